//! The distributed dot product: tine inside each rank, `MPI_Allreduce`
//! between them.

use crate::{block, Outcome};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tine::prelude::*;

/// A well-mixed 64-bit hash of `i` (splitmix64's finalizer).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Element `i` of the first vector: an integer in `0..1024`.
fn x(i: usize) -> f64 {
    (mix(i as u64) % 1024) as f64
}

/// Element `i` of the second vector: an integer in `-512..512`.
fn y(i: usize) -> f64 {
    (mix(!(i as u64)) % 1024) as f64 - 512.0
}

/// Computes the dot product over all ranks, and on rank 0 checks it
/// against a serial recomputation.
///
/// The distributed run is slower than the serial check on one machine, and
/// its line says why: each rank first writes its block of both vectors to
/// memory (16 bytes per element, every page faulted in), the part its time
/// is mostly spent on, while the serial check computes each product on the
/// fly in one pass over nothing. The phases are timed apart on rank 0.
pub fn run(world: &SimpleCommunicator, len: usize) -> Outcome {
    let (rank, size) = (world.rank(), world.size());
    let (first, count) = block(len, size as usize, rank as usize);

    world.barrier();
    let start = mpi::time();
    // Each rank holds only its block. The team fills it (first touch by
    // the threads that will read it), then reduces it.
    let mut xs = vec![0.0f64; count];
    let mut ys = vec![0.0f64; count];
    xs.par_iter_mut()
        .zip(ys.par_iter_mut())
        .enumerate()
        .for_each(|(k, (xk, yk))| {
            *xk = x(first + k);
            *yk = y(first + k);
        });
    let filled = mpi::time();
    let local: f64 = xs.par_iter().zip(ys.par_iter()).map(|(a, b)| a * b).sum();
    let reduced = mpi::time();
    let mut total = 0.0f64;
    world.all_reduce_into(&local, &mut total, SystemOperation::sum());
    let end = mpi::time();
    let elapsed = end - start;

    if rank != 0 {
        return Outcome {
            matches: true,
            result: String::new(),
        };
    }
    let serial_start = mpi::time();
    let serial: f64 = (0..len).map(|i| x(i) * y(i)).sum();
    let serial_elapsed = mpi::time() - serial_start;
    let matches = total.to_bits() == serial.to_bits();
    println!(
        "dot: {len} elements on {size} rank(s) = {total} in {:.3} ms (filling the blocks {:.3}, \
         reducing them {:.3}, MPI_Allreduce {:.3}); serial, one pass without vectors, \
         {serial} in {:.3} ms: {}",
        elapsed * 1e3,
        (filled - start) * 1e3,
        (reduced - filled) * 1e3,
        (end - reduced) * 1e3,
        serial_elapsed * 1e3,
        if matches { "match" } else { "MISMATCH" }
    );
    Outcome {
        matches,
        result: format!("dot={total}"),
    }
}
