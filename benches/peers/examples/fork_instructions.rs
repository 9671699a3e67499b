//! Runs `FORK_COUNT` empty 2-thread fork-joins (`for_threads`), for
//! `scripts/fork-instructions.sh`, which runs it twice under an instruction
//! counter and divides the difference by the extra forks.
//!
//! ```text
//! FORK_COUNT=20000 cargo run --release -p tine-peers --example fork_instructions
//! ```
//!
//! `FORK_WAIT=spin` (the default) waits as a pool does by default: spin,
//! then park. `FORK_WAIT=yield` spins zero polls, so every wait gives the
//! core away at once. That is the mode for Valgrind, which runs one thread at
//! a time and switches only when the running one blocks or yields: a
//! spinning wait would count its whole time slice of polls.

use std::hint::black_box;
use std::time::Duration;
use tine::{ThreadPool, WaitPolicy};

fn main() {
    let forks: usize = std::env::var("FORK_COUNT")
        .ok()
        .map(|v| v.parse().expect("FORK_COUNT: a positive integer"))
        .unwrap_or(20_000);
    let policy = match std::env::var("FORK_WAIT").as_deref().unwrap_or("spin") {
        "spin" => WaitPolicy::Adaptive,
        "yield" => WaitPolicy::SpinThenPark(Duration::ZERO),
        other => panic!("FORK_WAIT={other:?}: expected spin or yield"),
    };
    let pool = ThreadPool::builder()
        .threads(2)
        .wait_policy(policy)
        .build()
        .expect("a 2-thread pool");
    for _ in 0..forks {
        pool.for_threads(|thread_index, colocation| {
            black_box((thread_index, colocation));
        });
    }
}
