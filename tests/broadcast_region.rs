//! Per-thread work from inside a region (`nest/broadcast.rs`): a
//! broadcast made from a pool's own task, and a scope's
//! `spawn_broadcast`, run each index once, each on its own thread.
//! (Atomics only, no `Mutex`: ThreadSanitizer runs this file, and std's
//! lock is not instrumented.)
#![cfg(not(loom))]

mod support;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Repeats of each check (few under Miri, which interprets slowly).
const ROUNDS: usize = if cfg!(miri) { 2 } else { 20 };

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

std::thread_local! {
    /// A number of this thread's own, never 0.
    static ID: usize = NEXT_ID.fetch_add(1, Relaxed);
}

fn id() -> usize {
    ID.with(|id| *id)
}

/// Each index once, and as many distinct threads as indices.
fn each_on_its_own_thread(seen: &[(usize, usize)], threads: usize) {
    let indices: Vec<usize> = seen.iter().map(|&(index, _)| index).collect();
    assert_eq!(indices, (0..threads).collect::<Vec<_>>(), "{seen:?}");
    let ids: BTreeSet<usize> = seen.iter().map(|&(_, id)| id).collect();
    assert_eq!(ids.len(), threads, "{seen:?}");
}

/// One slot per index, each written once with the id of the thread that
/// ran it.
struct Seen(Vec<AtomicUsize>);

impl Seen {
    fn new(threads: usize) -> Self {
        Seen((0..threads).map(|_| AtomicUsize::new(0)).collect())
    }

    fn record(&self, index: usize) {
        assert_eq!(
            self.0[index].swap(id(), Relaxed),
            0,
            "index {index} ran twice"
        );
    }

    fn pairs(&self) -> Vec<(usize, usize)> {
        let pairs: Vec<(usize, usize)> = self
            .0
            .iter()
            .map(|id| id.load(Relaxed))
            .enumerate()
            .collect();
        assert!(
            pairs.iter().all(|&(_, id)| id != 0),
            "an index never ran: {pairs:?}"
        );
        pairs
    }
}

#[test]
fn a_broadcast_from_a_task_runs_each_index_on_its_own_thread() {
    for threads in [1, 2, 4] {
        let pool = tine::spawn_pool(threads);
        for _ in 0..ROUNDS {
            // From the region's root, from a join's closures (possibly
            // stolen), and from a scope's task.
            let from_root = pool.scope(|_| pool.broadcast(|ctx| (ctx.index(), id())));
            each_on_its_own_thread(&from_root, threads);
            let (a, b) = pool.join(
                || tine::broadcast(|ctx| (ctx.index(), id())),
                || pool.broadcast(|ctx| (ctx.index(), id())),
            );
            each_on_its_own_thread(&a, threads);
            each_on_its_own_thread(&b, threads);
            let from_task = Seen::new(threads);
            pool.scope(|s| {
                s.spawn(|_| {
                    tine::broadcast(|ctx| from_task.record(ctx.index()));
                })
            });
            each_on_its_own_thread(&from_task.pairs(), threads);
        }
    }
}

#[test]
fn a_scopes_spawn_broadcast_runs_each_index_on_its_own_thread() {
    for threads in [1, 3] {
        let pool = tine::spawn_pool(threads);
        for _ in 0..ROUNDS {
            let seen = Seen::new(threads);
            let spawned = AtomicUsize::new(0);
            pool.scope(|s| {
                s.spawn_broadcast(|s, ctx| {
                    assert_eq!(ctx.num_threads(), threads);
                    seen.record(ctx.index());
                    // Tasks of the scope may spawn more.
                    s.spawn(|_| {
                        spawned.fetch_add(1, Relaxed);
                    });
                });
            });
            each_on_its_own_thread(&seen.pairs(), threads);
            assert_eq!(spawned.into_inner(), threads);
        }
    }
}

#[test]
fn a_panic_in_a_broadcast_from_a_task_resumes_after_every_index_ran() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(3);
    let ran = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.scope(|_| {
            pool.broadcast(|ctx| {
                ran.fetch_add(1, Relaxed);
                assert!(ctx.index() != 1, "boom");
            })
        })
    }));
    assert!(result.is_err());
    assert_eq!(ran.into_inner(), 3);
    // The pool stays usable.
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
}

#[test]
fn broadcasts_from_every_thread_at_once_all_finish() {
    // Every thread of the region broadcasts at the same time: each runs
    // the others' jobs while it waits for its own.
    let pool = tine::spawn_pool(4);
    for _ in 0..ROUNDS {
        let nested = pool.scope(|_| {
            pool.broadcast(|_| tine::broadcast(|ctx| ctx.index()).iter().sum::<usize>())
        });
        assert_eq!(nested, [6, 6, 6, 6]);
    }
}
