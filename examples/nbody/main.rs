//! All-pairs N-body simulation: the fine-grained workload of fork_union's
//! benchmark, where every step is two short parallel loops.
//!
//! Each step computes the gravitational acceleration on every body from
//! every other body (O(n²), one task per body), then moves every body (one
//! task per body). With 128 bodies a step is tens of microseconds of work,
//! so fork-join overhead shows directly in the total.
//!
//! ```text
//! cargo run --release --example nbody
//! NBODY_COUNT=1024 NBODY_ITERATIONS=100 NBODY_BACKEND=tine_dynamic cargo run --release --example nbody
//! ```
//!
//! - `NBODY_COUNT`: bodies (default 128).
//! - `NBODY_ITERATIONS`: steps (default 10000).
//! - `NBODY_BACKEND`: `serial`, `tine_static` or `tine_dynamic`, or a
//!   comma-separated list (default: all).
//! - `NBODY_THREADS`: threads for the tine pool (default: available CPUs).
//!
//! The table gives each backend's time, its speed-up over `serial`, its
//! time against `tine_static`, and how many CPUs the process kept busy
//! during the run; a legend under it says the same. `tine_static` splits
//! the acceleration pass into one contiguous share per thread, and
//! `tine_dynamic` hands out one body at a time. tine's threads spin between
//! a step's forks, so a tine run whose CPUs busy fall well below its thread
//! count had its threads share CPUs (with another process, or two of them
//! on one CPU) and is flagged with a note: its time then says more about
//! the machine than about tine. Runs under 0.1 s show no CPUs busy.
//!
//! Every backend runs the same arithmetic in the same order per body, so
//! their final states must match the serial one bit for bit; the example
//! checks that. The same physics runs against rayon, fork_union and chili in
//! `cargo run --release -p tine-peers --example nbody`.

mod harness;
mod physics;

fn main() -> Result<(), tine::Error> {
    let settings = harness::Settings::from_env(&["serial", "tine_static", "tine_dynamic"]);
    let pool = tine::ThreadPool::try_spawn(settings.threads)?;
    settings.run_all(|backend, simulation| match backend {
        "serial" => simulation.run(physics::Serial),
        _ => simulation.run(physics::Tine {
            pool: &pool,
            dynamic: backend == "tine_dynamic",
        }),
    });
    Ok(())
}
