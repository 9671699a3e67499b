//! Helpers shared by the parallel-iterator test binaries
//! (`mod par_common;`): one pool per thread count, the schedule strategy
//! of the proptests, and an item that counts its drops.
#![allow(dead_code)] // not every test binary uses every item

use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;
use tine::par::Schedule;
use tine::ThreadPool;

/// One pool per thread count 1..=6, shared by every case of a binary.
pub fn pool(threads: usize) -> &'static ThreadPool {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    &POOLS.get_or_init(|| (1..=6).map(|t| ThreadPool::try_spawn(t).unwrap()).collect())[threads - 1]
}

/// Every schedule, with small grains and minimums.
pub fn schedule_strategy() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        Just(Schedule::Static),
        (0usize..40).prop_map(|grain| Schedule::Dynamic { grain }),
        (0usize..20).prop_map(|min| Schedule::Guided { min }),
    ]
}

/// An owned item, `Counted(position, drops)`, that counts its drops.
pub struct Counted<'a>(pub usize, pub &'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(1, Relaxed);
    }
}
