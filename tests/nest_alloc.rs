//! Zero heap allocations per `join`, on the fast path and when idle
//! threads take branches, after warm-up, counted by a global allocator
//! (`counting_alloc`). Its own test binary, with one test, so nothing else
//! allocates while it counts.
#![cfg(not(loom))]

mod counting_alloc;

use counting_alloc::allocations_in;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = tine::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn join_allocates_nothing() {
    for threads in 1..=3 {
        let pool = tine::spawn_pool(threads);
        // Warm-up: thread-locals, the wait calibration, the first region.
        assert_eq!(pool.install(|| fib(15)), 610);
        let (sum, allocations) = allocations_in(|| {
            (0..50)
                .map(|_| pool.install(|| fib(18)) + pool.join(|| fib(12), || 1).0)
                .sum::<u64>()
        });
        assert_eq!(sum, 50 * (2584 + 144));
        assert_eq!(
            allocations, 0,
            "{threads} threads: {allocations} allocations"
        );
        // Joins with a context, and the same inside one long region.
        let (total, allocations) = allocations_in(|| {
            pool.install(|| {
                (0..200)
                    .map(|n| tine::join_context(|_| fib(n % 12), |ctx| u64::from(ctx.migrated())).0)
                    .sum::<u64>()
            })
        });
        assert_eq!(total, (0..200).map(|n| fib(n % 12)).sum::<u64>());
        assert_eq!(
            allocations, 0,
            "{threads} threads: {allocations} allocations"
        );
    }
}
