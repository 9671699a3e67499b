//! A pool fed one small job now and then (a GUI's events, a timer's ticks)
//! costs little CPU: its resident threads' spin (`pool/pace.rs`) shrinks
//! while work comes rarer than the spin budget, and they park. Its own
//! test binary with one test, so the process's CPU time is the pool's.
#![cfg(all(not(loom), unix))]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::process_cpu;
use tine::ThreadPool;

#[test]
fn rarely_fed_pools_spin_little() {
    // Spawned jobs on a pool in rayon's model, one every 30 ms: three
    // times its spin budget, so that the wake-up jitter of a loaded machine
    // cannot bring an interval under it. A long budget keeps the two
    // outcomes far apart: a spin that shrinks costs each job a few wake-ups
    // and the floor's spin, one that stays whole costs it the budget.
    let pool = ThreadPool::builder()
        .threads(2)
        .caller_runs(false)
        .spin_budget(Duration::from_millis(10))
        .build()
        .unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let feed = |rounds: usize| {
        let (cpu, start) = (process_cpu(), Instant::now());
        for _ in 0..rounds {
            std::thread::sleep(Duration::from_millis(30));
            let ran = Arc::clone(&ran);
            pool.spawn(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            });
        }
        (process_cpu() - cpu, start.elapsed())
    };
    // The first jobs find the whole spin budget; a few bring it down.
    feed(16);
    let (burnt, took) = feed(60);
    drop(pool);
    assert_eq!(
        ran.load(Ordering::Relaxed),
        16 + 60,
        "every spawned job ran"
    );
    // CPU time is the property (what a rarely fed pool costs). A spin that
    // stayed whole after each job would burn about a third of the time
    // between jobs; one that shrank burns a small fraction of the bound.
    assert!(
        burnt < took / 10,
        "a pool fed every 30 ms burnt {burnt:?} of CPU in {took:?}"
    );
}
