//! Zero heap allocations per fork, after warm-up, counted by a global
//! allocator. Its own test binary, with one test, so nothing else allocates
//! while it counts.
#![cfg(not(loom))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; counting
// touches only atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Every kind of fork on `$pool`, `$rounds` times.
macro_rules! all_kinds {
    ($pool:expr, $sink:expr, $rounds:expr) => {{
        let (pool, sink) = (&$pool, &$sink);
        let data = [1usize; 1024];
        for _ in 0..$rounds {
            pool.for_threads(|thread_index, _| {
                sink.fetch_add(thread_index, Relaxed);
            });
            pool.for_n(data.len(), |prong| {
                sink.fetch_add(data[prong.task_index], Relaxed);
            });
            pool.for_slices(data.len(), |first, count| {
                sink.fetch_add(data[first.task_index..][..count].len(), Relaxed);
            });
            pool.for_n_dynamic(data.len(), |prong| {
                sink.fetch_add(data[prong.task_index], Relaxed);
            });
            // Nested calls run inline, without allocating either.
            pool.for_threads(|_, _| {
                pool.for_n(8, |prong| {
                    sink.fetch_add(prong.task_index, Relaxed);
                });
            });
        }
    }};
}

#[test]
fn forks_do_not_allocate() {
    let pool = tine::ThreadPool::try_spawn(4).unwrap();
    // With `numa`: a distributed pool too, over 4 colocations (binding is
    // faked on a synthetic topology, the forks are real).
    #[cfg(feature = "numa")]
    let distributed = {
        let topology = tine::numa::Topology::from_synthetic("pack:4 numa:1 core:2 pu:1").unwrap();
        tine::numa::DistributedPool::builder(&topology)
            .threads(6)
            .build()
            .unwrap()
    };
    let sink = AtomicUsize::new(0);
    let all = |rounds: usize| {
        all_kinds!(pool, sink, rounds);
        #[cfg(feature = "numa")]
        all_kinds!(distributed, sink, rounds);
    };
    all(100); // warm-up: thread-locals, lazy statics
    COUNTING.store(true, Relaxed);
    all(1000);
    COUNTING.store(false, Relaxed);
    let allocations = ALLOCATIONS.load(Relaxed);
    assert_eq!(
        allocations, 0,
        "{allocations} allocations in 5000 forks per pool"
    );
    assert!(sink.load(Relaxed) > 0);
}
