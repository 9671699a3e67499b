//! The distributed N-body simulation: each rank advances its own block of
//! bodies with its tine team, then `MPI_Allgatherv` shares the positions.

use crate::{block, Outcome};
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use tine::prelude::*;

/// The time step.
const DT: f64 = 1e-3;
/// Plummer softening: keeps close encounters finite.
const SOFTENING2: f64 = 1e-2;

/// Body `i`'s starting position, deterministic and spread over a unit cube.
fn initial_position(i: usize) -> [f64; 3] {
    let f = |k: usize| ((i * 3 + k) as f64 * 0.618_033_988_749_894_9).fract();
    [f(0), f(1), f(2)]
}

/// Advances body `i` one step: its acceleration from every body's position
/// in `positions` (three `f64` per body, all of unit mass), summed in index
/// order, updates `velocity`; returns its new position. The serial and the
/// distributed runs call this same function, so they agree bit for bit.
fn advance(i: usize, positions: &[f64], velocity: &mut [f64]) -> [f64; 3] {
    let p = &positions[3 * i..3 * i + 3];
    let mut acceleration = [0.0f64; 3];
    for q in positions.chunks_exact(3) {
        let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING2;
        let inv_r3 = 1.0 / (r2 * r2.sqrt());
        for k in 0..3 {
            acceleration[k] += d[k] * inv_r3;
        }
    }
    let mut next = [0.0f64; 3];
    for k in 0..3 {
        velocity[k] += acceleration[k] * DT;
        next[k] = p[k] + velocity[k] * DT;
    }
    next
}

/// Runs the simulation over all ranks, and on rank 0 checks the final
/// positions against a serial run.
pub fn run(world: &SimpleCommunicator, bodies: usize, steps: usize) -> Outcome {
    let (rank, size) = (world.rank(), world.size());
    let (first, count) = block(bodies, size as usize, rank as usize);
    // Every rank's share of the gathered buffer, in f64s. `Args` bounds
    // `bodies` so that these fit a C int.
    let counts: Vec<Count> = (0..size as usize)
        .map(|r| (3 * block(bodies, size as usize, r).1) as Count)
        .collect();
    let displacements: Vec<Count> = (0..size as usize)
        .map(|r| (3 * block(bodies, size as usize, r).0) as Count)
        .collect();

    let mut positions: Vec<f64> = (0..bodies).flat_map(initial_position).collect();
    let mut velocities = vec![0.0f64; 3 * count];
    let mut mine = vec![0.0f64; 3 * count];

    world.barrier();
    let start = mpi::time();
    for _ in 0..steps {
        let all = &positions[..];
        mine.par_chunks_mut(3)
            .zip(velocities.par_chunks_mut(3))
            .enumerate()
            .for_each(|(k, (next, velocity))| {
                next.copy_from_slice(&advance(first + k, all, velocity))
            });
        let mut gathered = PartitionMut::new(&mut positions[..], &counts[..], &displacements[..]);
        world.all_gather_varcount_into(&mine[..], &mut gathered);
    }
    let elapsed = mpi::time() - start;

    if rank != 0 {
        return Outcome {
            matches: true,
            result: String::new(),
        };
    }
    let serial_start = mpi::time();
    let mut serial: Vec<f64> = (0..bodies).flat_map(initial_position).collect();
    let mut serial_velocities = vec![0.0f64; 3 * bodies];
    let mut next = vec![0.0f64; 3 * bodies];
    for _ in 0..steps {
        for (i, velocity) in serial_velocities.chunks_exact_mut(3).enumerate() {
            next[3 * i..3 * i + 3].copy_from_slice(&advance(i, &serial, velocity));
        }
        std::mem::swap(&mut serial, &mut next);
    }
    let serial_elapsed = mpi::time() - serial_start;

    let mismatches = positions
        .iter()
        .zip(&serial)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    let largest = positions
        .iter()
        .zip(&serial)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let centre: f64 = positions.chunks_exact(3).map(|p| p[0]).sum::<f64>() / bodies as f64;
    println!(
        "nbody: {bodies} bodies, {steps} steps on {size} rank(s), mean x {centre:.9} in {:.3} ms; \
         serial in {:.3} ms: {}",
        elapsed * 1e3,
        serial_elapsed * 1e3,
        if mismatches == 0 {
            "match".to_string()
        } else {
            format!("MISMATCH in {mismatches} coordinates, largest difference {largest:e}")
        }
    );
    Outcome {
        matches: mismatches == 0,
        result: format!("positions-fnv1a={:016x}", fnv1a(&positions)),
    }
}

/// The FNV-1a hash of the values' bits: equal positions, equal hash.
fn fnv1a(values: &[f64]) -> u64 {
    values
        .iter()
        .flat_map(|value| value.to_bits().to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
}
