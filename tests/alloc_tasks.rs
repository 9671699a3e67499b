//! One heap allocation per task: `spawn_async` and `spawn_future` on both
//! models of pool, each task awaited to its end, counted by a global
//! allocator (`counting_alloc`). Its own test binary, with one test, so
//! nothing else allocates while it counts. The tasks are awaited by a
//! poll loop with a waker that allocates nothing, so that only the pool's
//! allocations count.
#![cfg(not(loom))]

mod counting_alloc;

use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use counting_alloc::allocations_in;

/// A waker that does nothing (the loop polls again and again).
fn quiet_waker() -> Waker {
    const VTABLE: RawWakerVTable = RawWakerVTable::new(|_| RAW, |_| {}, |_| {}, |_| {});
    const RAW: RawWaker = RawWaker::new(core::ptr::null(), &VTABLE);
    // SAFETY: the vtable's functions do nothing and touch no data.
    unsafe { Waker::from_raw(RAW) }
}

/// Polls `future` until it is ready, yielding between polls.
fn spin_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = quiet_waker();
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::yield_now();
    }
}

#[test]
fn a_task_allocates_once() {
    let pools = [
        tine::ThreadPool::try_spawn(2).unwrap(),
        tine::ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .build()
            .unwrap(),
    ];
    let tasks = 200;
    let run = |pool: &tine::ThreadPool| {
        let mut sum = 0u64;
        for i in 0..tasks {
            sum += spin_on(pool.spawn_async(move || i));
            sum += spin_on(pool.spawn_future(async move { i }));
        }
        sum
    };
    for pool in &pools {
        run(pool); // warm-up: thread-locals, lazy statics
        let (sum, allocations) = allocations_in(|| run(pool));
        assert_eq!(sum, 2 * (0..tasks).sum::<u64>());
        assert_eq!(
            allocations,
            2 * tasks as usize,
            "{allocations} allocations for {} tasks",
            2 * tasks
        );
    }
}
