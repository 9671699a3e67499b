//! `tine::current_num_threads()`: rayon's answer wherever it is called.
#![cfg(not(loom))]

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::prelude::*;
use tine::ThreadPool;

#[test]
fn inside_a_task_it_is_the_forks_size() {
    let pool = ThreadPool::try_spawn(4).unwrap();
    let seen: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
    pool.for_threads(|thread, _| {
        // As under rayon, where a worker reports its own pool's size; a
        // parallel iterator called here still runs inline.
        let inline: usize = (0..10usize)
            .into_par_iter()
            .map(|_| tine::current_num_threads())
            .sum();
        seen[thread].store(tine::current_num_threads() * 100 + inline, Relaxed);
    });
    for (thread, seen) in seen.iter().enumerate() {
        assert_eq!(seen.load(Relaxed), 4 * 100 + 40, "thread {thread}");
    }
}

#[test]
fn an_install_wins_at_its_own_level_of_nesting_only() {
    let (outer, inner) = (
        ThreadPool::try_spawn(4).unwrap(),
        ThreadPool::try_spawn(3).unwrap(),
    );
    let seen: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
    inner.install(|| {
        assert_eq!(tine::current_num_threads(), 3);
        outer.for_threads(|thread, _| {
            // The task is deeper than the install: the fork's size.
            let in_task = tine::current_num_threads();
            // An install inside the task is at the task's level: it wins.
            let installed = inner.install(tine::current_num_threads);
            seen[thread].store(in_task * 10 + installed, Relaxed);
        });
        assert_eq!(tine::current_num_threads(), 3);
    });
    for (thread, seen) in seen.iter().enumerate() {
        assert_eq!(seen.load(Relaxed), 4 * 10 + 3, "thread {thread}");
    }
}

#[test]
fn a_busy_pools_inline_call_reports_that_pools_size() {
    // A call on a busy pool from inside another pool's task runs inline,
    // with the busy pool's thread indices: it reports the busy pool's size.
    let (outer, busy) = (
        ThreadPool::try_spawn(2).unwrap(),
        ThreadPool::try_spawn(5).unwrap(),
    );
    let seen = AtomicUsize::new(0);
    busy.for_threads(|thread, _| {
        if thread == 0 {
            outer.for_threads(|inner_thread, _| {
                if inner_thread == 0 {
                    busy.for_threads(|_, _| {
                        seen.fetch_max(tine::current_num_threads(), Relaxed);
                    });
                }
            });
        }
    });
    assert_eq!(seen.into_inner(), 5);
}
