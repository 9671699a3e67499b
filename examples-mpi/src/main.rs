//! Hybrid MPI + tine: MPI between processes (ranks), a tine thread team
//! inside each one.
//!
//! Two distributed computations, each checked against a single-process
//! recomputation on rank 0 (no MPI, no threads):
//!
//! - **dot**: the dot product of two vectors of `--len` elements, split in
//!   contiguous blocks over the ranks. Each rank fills its block and reduces
//!   it with tine's parallel iterators on its own team, then
//!   `MPI_Allreduce` sums the ranks' partials. The elements are small
//!   integers held in `f64`, so every partial sum is exact and the result
//!   must match the serial one bit for bit, whatever the split.
//! - **nbody**: `--steps` steps of an all-pairs gravity simulation of
//!   `--bodies` bodies. Each rank owns a block of bodies and advances them
//!   with its tine team (one body per task, its forces summed in a serial
//!   loop over all bodies); `MPI_Allgatherv` then gives every rank every
//!   body's new position. Each body's arithmetic is the same as in the
//!   serial run, so the final positions must match bit for bit too.
//!
//! Only the main thread of a rank calls MPI (`MPI_THREAD_FUNNELED`); tine's
//! workers only compute. The team is tine's global pool: `TINE_NUM_THREADS`
//! threads, else one per CPU the rank may use (its MPI binding). Open MPI
//! binds each of up to 2 ranks to one core, so by default each team has one
//! thread; the first line gives each rank's team size and binding.
//!
//! ```sh
//! mpirun -np 2 target/release/tine-mpi --len 4194304 --bodies 1024 --steps 20
//! mpirun -np 2 --oversubscribe --bind-to none -x TINE_NUM_THREADS=2 target/release/tine-mpi
//! ```
//!
//! Rank 0 prints each computation's result and time, the serial run's, and
//! a `result:` line (the dot product and a hash of the final positions)
//! that is the same for every rank count and thread count.
//!
//! Exit status: 0 when both results match, 1 on a mismatch, 2 on bad
//! arguments.

mod args;
mod dot;
mod nbody;

use mpi::traits::*;
use mpi::Threading;
use std::process::ExitCode;

/// The contiguous block of `0..n` that part `index` of `parts` owns, as
/// `(first, count)`: the first `n % parts` parts get one item more, as in
/// tine's static split.
pub fn block(n: usize, parts: usize, index: usize) -> (usize, usize) {
    let (base, extra) = (n / parts, n % parts);
    (
        index * base + index.min(extra),
        base + usize::from(index < extra),
    )
}

/// What a computation found, on rank 0 (the other ranks return a match
/// and an empty result).
pub struct Outcome {
    /// Whether the distributed result equals the serial one, bit for bit.
    pub matches: bool,
    /// The result, for the `result:` line that scripts compare between runs
    /// with different rank counts.
    pub result: String,
}

fn main() -> ExitCode {
    let Some((universe, _threading)) = mpi::initialize_with_threading(Threading::Funneled) else {
        eprintln!("tine-mpi: MPI was already initialized");
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    let rank = world.rank();
    let size = world.size();

    let args = match args::Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            if rank == 0 {
                eprintln!("tine-mpi: {message}\n{}", args::USAGE);
            }
            return ExitCode::from(2);
        }
    };

    // Every rank's team size and the CPUs its binding allows, gathered for
    // the report.
    let threads = tine::current_num_threads() as u64;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let mut all_threads = vec![0u64; size as usize];
    let mut all_cpus = vec![0u64; size as usize];
    world.all_gather_into(&threads, &mut all_threads[..]);
    world.all_gather_into(&cpus, &mut all_cpus[..]);
    if rank == 0 {
        println!(
            "tine-mpi: {size} rank(s) on {}, tine threads per rank {all_threads:?}, CPUs in each \
             rank's binding {all_cpus:?} (a team has one thread per CPU of its binding unless \
             TINE_NUM_THREADS sets the count)",
            mpi::environment::processor_name().unwrap_or_default()
        );
    }

    let dot = dot::run(&world, args.len);
    let nbody = nbody::run(&world, args.bodies, args.steps);

    // Rank 0 holds the verdicts; every rank exits with the same status.
    let mut failed = u8::from(!(dot.matches && nbody.matches));
    world.process_at_rank(0).broadcast_into(&mut failed);
    if rank == 0 {
        println!("result: {} {}", dot.result, nbody.result);
        println!(
            "tine-mpi: {}",
            if failed == 0 {
                "both results match the single-process run"
            } else {
                "MISMATCH"
            }
        );
    }
    drop(universe); // MPI_Finalize
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
