//! tine's N-body simulation (`examples/nbody`) on every peer backend, in one
//! table with time ratios against `tine_static`.
//!
//! ```text
//! cargo run --release -p tine-peers --example nbody
//! NBODY_BACKEND=tine_static,fork_union_static cargo run --release -p tine-peers --example nbody
//! ```
//!
//! - `NBODY_COUNT`: bodies (default 128).
//! - `NBODY_ITERATIONS`: steps per backend (default 10000).
//! - `NBODY_BACKEND`: a comma-separated subset of `serial`, `tine_static`,
//!   `tine_dynamic`, `fork_union_static`, `fork_union_dynamic`,
//!   `rayon_static`, `rayon_dynamic`, `rayon_in_pool_static`,
//!   `rayon_in_pool_dynamic`, `chili` and `scope` (default: all, in that
//!   order). `rayon_*` calls the pool from outside, as a main thread does;
//!   `rayon_in_pool_*` runs the whole simulation on one of its workers.
//! - `NBODY_THREADS`: threads per pool (default: available CPUs).
//!
//! `_static` backends split the acceleration pass into one contiguous share
//! per thread; `_dynamic` ones hand out one body at a time (tine's and
//! fork_union's `for_n_dynamic`, rayon's `par_iter` with `with_max_len(1)`).
//! chili halves the bodies with `join` down to single bodies. `scope` spawns
//! threads for every pass. The move pass is static everywhere.
//!
//! Each backend's pool is made right before its run and dropped right after,
//! so no idle pool competes for the cores. Every backend does the same
//! arithmetic in the same order per body, so the example checks that all
//! final states match bit for bit.

use tine_peers::nbody::harness::Settings;
use tine_peers::nbody_backend;

fn main() {
    let settings = Settings::from_env(&tine_peers::NBODY_BACKENDS);
    settings.run_all(|name, simulation| {
        let (backend, schedule) = nbody_backend(name).expect("a known backend");
        backend.with_team(settings.threads, |team| {
            team.enter(|team| simulation.run(team.passes(schedule)));
        });
    });
}
