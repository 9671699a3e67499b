//! An idle pool costs (almost) no CPU. Its own test binary with one test, so
//! the process's CPU time is the pool's.
#![cfg(all(not(loom), unix))]

mod support;

use std::time::Duration;
use support::process_cpu;
use tine::{ThreadPool, WaitPolicy};

fn busy_then_idle(pool: &ThreadPool, idle: Duration) -> Duration {
    for _ in 0..1000 {
        pool.for_threads(|_, _| {});
    }
    let before = process_cpu();
    std::thread::sleep(idle);
    process_cpu() - before
}

#[test]
fn idle_pools_park() {
    // CPU time is the property (what an idle pool costs). The bound is 10%
    // of one core, far above what a parked pool burns and far below what a
    // spinning one does; the exact figure is the benchmark's.
    let limit = Duration::from_millis(50);

    // Fitting the CPUs, and oversubscribed.
    for threads in [2, 8] {
        let pool = ThreadPool::try_spawn(threads).unwrap();
        let burnt = busy_then_idle(&pool, Duration::from_millis(500));
        assert!(
            burnt < limit,
            "an idle {threads}-thread pool burnt {burnt:?} in 500 ms"
        );
    }

    // The control: a pool that never parks does burn its worker's core, so
    // the measurement above can see a spinning pool.
    let pool = ThreadPool::builder()
        .threads(2)
        .wait_policy(WaitPolicy::AlwaysSpin)
        .build()
        .unwrap();
    // Other processes on the machine (a build, CI's niced Miri) can take
    // the spinner's core for a while: it must burn the time in one of a
    // few tries, not in every one.
    let burnt = (0..3)
        .map(|_| busy_then_idle(&pool, Duration::from_millis(500)))
        .find(|&burnt| burnt > 2 * limit);
    assert!(
        burnt.is_some(),
        "a spinning pool burnt at most {:?} in 500 ms, three times",
        2 * limit
    );

    // `sleep` parks even that pool at once.
    pool.sleep(0);
    std::thread::sleep(Duration::from_millis(20)); // let the workers see it
    let before = process_cpu();
    std::thread::sleep(Duration::from_millis(500));
    let burnt = process_cpu() - before;
    assert!(burnt < limit, "a slept pool burnt {burnt:?} in 500 ms");
    // And it still works.
    let count = std::sync::atomic::AtomicUsize::new(0);
    pool.for_threads(|_, _| {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(count.into_inner(), 2);
}
