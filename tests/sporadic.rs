//! A pool fed one small job now and then (a GUI's events, a timer's ticks)
//! costs little CPU: its serving thread's spin shrinks while work comes
//! rarer than the spin budget, and the team parks as each region ends. Its
//! own test binary with one test, so the process's CPU time is the pool's.
#![cfg(all(not(loom), unix))]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::process_cpu;
use tine::ThreadPool;

#[test]
fn rarely_fed_pools_spin_little() {
    // Spawned jobs on a pool in rayon's model, one every 600 µs: three
    // times its spin budget, so that the wake-up jitter of a loaded machine
    // cannot bring an interval under it.
    let pool = ThreadPool::builder()
        .threads(2)
        .caller_runs(false)
        .spin_budget(Duration::from_micros(200))
        .build()
        .unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let feed = |rounds: usize| {
        let (cpu, start) = (process_cpu(), Instant::now());
        for _ in 0..rounds {
            std::thread::sleep(Duration::from_micros(600));
            let ran = Arc::clone(&ran);
            pool.spawn(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            });
        }
        (process_cpu() - cpu, start.elapsed())
    };
    // The first jobs find the whole spin budget; a few bring it down.
    feed(16);
    let (burnt, took) = feed(600);
    drop(pool);
    assert_eq!(
        ran.load(Ordering::Relaxed),
        16 + 600,
        "every spawned job ran"
    );
    // Each job costs a few wake-ups and a short spin: about 28% of a core
    // on the 2-core AMD host. A serving thread and a team that spun their
    // whole budgets after each job (the serving thread in the region and
    // again before parking, the other thread in the region and again for
    // the next fork) would burn over 100% (107-110%).
    assert!(
        burnt < took / 2,
        "a pool fed every 600 µs burnt {burnt:?} of CPU in {took:?}"
    );
}
