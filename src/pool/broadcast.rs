//! rayon's per-thread calls: [`broadcast`], [`current_thread_index`], and
//! the pool methods of the same names (`BroadcastContext` and the
//! broadcast inside a region are the nested engine's, `nest/broadcast.rs`).
//!
//! They exist for code that keeps one slot of state per thread (a buffer,
//! an RNG, a counter), indexed by the thread's index in its pool. In tine
//! the caller of a fork is its thread 0 and workers are `1..n`, so an
//! index from [`current_thread_index`] is below
//! [`crate::pool::current_num_threads`] and no two threads of one fork share it.

use super::ThreadPool;
use crate::nest::broadcast::{broadcast_here, BroadcastContext};
use crate::nest::worker::Worker;
use core::cell::UnsafeCell;
use std::vec::Vec;

/// This thread's index in the pool it works for, as rayon's
/// `current_thread_index`: inside a fork (a parallel-iterator call, a
/// `for_threads`, a `join` region), the index of this thread's share,
/// below [`crate::pool::current_num_threads`]; a nested call that runs inline
/// keeps the index of the share it runs in.
///
/// Outside every fork it returns `Some(0)`, where rayon returns `None`:
/// a tine caller is thread 0 of the pool it calls (a parallel iterator
/// small enough to run on the caller alone calls its closures there, with
/// no fork). So `current_thread_index().unwrap()` inside any parallel
/// closure works. Two threads that call one pool at once are both 0
/// outside their forks, but never inside one. (The `rayon-core` crate of
/// this repository, for the real rayon, answers `None` there, as rayon.)
///
/// ```
/// use tine::prelude::*;
///
/// let pool = tine::spawn_pool(3);
/// let seen: Vec<usize> = pool.install(|| {
///     (0..3).into_par_iter().map(|_| tine::current_thread_index().unwrap()).collect()
/// });
/// assert!(seen.iter().all(|&index| index < 3));
/// ```
pub fn current_thread_index() -> Option<usize> {
    Some(crate::team::innermost_thread_index().unwrap_or(0))
}

/// This thread's index in the fork it runs in (a parallel call, a `join`
/// or `scope` region, a `for_threads`, a job a pool's thread runs), or
/// `None` outside every fork: rayon's `current_thread_index` exactly,
/// where [`current_thread_index`] answers `Some(0)` on a caller between
/// its calls.
///
/// ```
/// assert_eq!(tine::fork_thread_index(), None);
/// let pool = tine::spawn_pool(2);
/// assert_eq!(pool.broadcast(|_| tine::fork_thread_index()), [Some(0), Some(1)]);
/// ```
pub fn fork_thread_index() -> Option<usize> {
    crate::team::innermost_thread_index()
}

/// The most threads a tine pool can hold, as rayon's `max_num_threads`:
/// teams count their threads in 32 bits.
///
/// ```
/// assert!(tine::max_num_threads() >= 1 << 16);
/// ```
pub fn max_num_threads() -> usize {
    u32::MAX as usize
}

/// Runs `op` once on every thread of the current pool and returns the
/// results in thread order, as rayon's `broadcast`. From outside every
/// region: the pool `install` made current, else the global pool, in one
/// fork. From a task of a region (a `join`'s closure, a scope's task, a
/// call handed to a busy pool): that region's pool, each thread running
/// its own index when it next looks for work, while this thread runs its
/// own at once and then waits, running other jobs meanwhile. (A call
/// handed to a busy pool may outlive the root of the region whose idle
/// thread took it: the indices of threads that have left that region by
/// then run on this thread.)
///
/// ```
/// let pool = tine::spawn_pool(3);
/// let indices = pool.install(|| tine::broadcast(|ctx| ctx.index()));
/// assert_eq!(indices, [0, 1, 2]);
/// ```
///
/// # Panics
/// A panic in `op` reaches the caller after every thread has finished;
/// results already made are dropped.
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let op = &op;
    let here = Worker::with_current(|worker| match worker {
        Some(worker) if worker.in_region() => {
            let threads = worker.nest().threads();
            Some(collect(threads, op, |each| broadcast_here(worker, each)))
        }
        _ => None,
    });
    match here {
        Some(results) => results,
        None => super::current::with_current_pool(|pool| pool.broadcast(op)),
    }
}

/// Runs `op` once on every thread of the current pool, detached: this
/// returns at once, as [`spawn`](crate::pool::serve::spawn) does (rayon's
/// `spawn_broadcast`). The current pool is the one whose thread or
/// `install` this is, else the global pool. A panic in `op` goes, for each
/// thread it happens on, to the pool's
/// [`panic_handler`](crate::pool::Builder::panic_handler); without one,
/// the process aborts.
///
/// ```
/// use std::sync::mpsc::channel;
///
/// let pool = tine::ThreadPool::try_spawn(3)?;
/// let (sender, receiver) = channel();
/// let sender = std::sync::Mutex::new(sender);
/// pool.install(|| tine::spawn_broadcast(move |ctx| sender.lock().unwrap().send(ctx.index()).unwrap()));
/// let mut seen: Vec<usize> = receiver.iter().take(3).collect();
/// seen.sort();
/// assert_eq!(seen, [0, 1, 2]);
/// # Ok::<(), tine::Error>(())
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    crate::pool::serve::spawn(move || broadcast_detached(&op));
}

/// The job `spawn_broadcast` spawns: `op` on every thread of the pool that
/// runs it, each thread's panic sent to the pool's panic handler.
fn broadcast_detached(op: &(dyn Fn(BroadcastContext<'_>) + Sync)) {
    broadcast(|ctx| {
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| op(ctx)));
        if let Err(payload) = ran {
            Worker::with_current(|worker| match worker {
                Some(worker) => worker.nest().spawned_panicked(payload),
                // Not reached: a pool's thread runs each index.
                None => std::process::abort(),
            });
        }
    });
}

/// One result slot per thread, each written by one thread only.
struct Slots<R>(Vec<UnsafeCell<Option<R>>>);

// SAFETY: thread `i` writes slot `i` only, and the fork's join (or the
// latches the region's broadcast waits for) orders every write before the
// caller reads the slots.
unsafe impl<R: Send> Sync for Slots<R> {}

/// Runs `op` for each index of `0..num_threads` through `run`, which must
/// call the closure it gets once per index (each on its own thread), and
/// returns the results in index order.
fn collect<OP, R>(num_threads: usize, op: OP, run: impl FnOnce(&(dyn Fn(usize) + Sync))) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let slots = Slots((0..num_threads).map(|_| UnsafeCell::new(None)).collect());
    let shared = &slots; // the whole `Slots` (which is `Sync`), not its field
    run(&|index: usize| {
        let result = op(BroadcastContext::new(index, num_threads));
        // SAFETY: `run` calls this once per index, so no other thread
        // touches this slot meanwhile.
        unsafe { *shared.0[index].get() = Some(result) };
    });
    slots
        .0
        .into_iter()
        .map(|slot| slot.into_inner().expect("every thread ran its share"))
        .collect()
}

impl ThreadPool {
    /// Runs `op` once on every thread of this pool, and returns the
    /// results in thread order; see [`broadcast`].
    ///
    /// ```
    /// let pool = tine::spawn_pool(2);
    /// assert_eq!(pool.broadcast(|ctx| ctx.num_threads()), [2, 2]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        // Each index on a thread of its own (`edge.rs`).
        collect(self.threads(), op, |each| self.fork_each_thread(each))
    }

    /// [`spawn_broadcast`] on this pool: `op` once on each of its threads,
    /// detached.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        self.spawn(move || broadcast_detached(&op));
    }

    /// The number of threads in this pool, as rayon's method of this name
    /// (tine's own name is [`ThreadPool::threads`]).
    #[inline]
    pub fn current_num_threads(&self) -> usize {
        self.threads()
    }

    /// This thread's index in this pool, as rayon's method of this name:
    /// inside a fork of this pool, this thread's index in it (see
    /// [`current_thread_index`]); outside every fork, inside this pool's
    /// [`install`](ThreadPool::install), 0 (the caller is thread 0);
    /// otherwise `None`.
    ///
    /// ```
    /// let pool = tine::spawn_pool(2);
    /// assert_eq!(pool.current_thread_index(), None);
    /// assert_eq!(pool.install(|| pool.current_thread_index()), Some(0));
    /// let inside = pool.broadcast(|_| pool.current_thread_index());
    /// assert_eq!(inside, [Some(0), Some(1)]);
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        if crate::team::innermost_thread_index().is_some() {
            if crate::team::frames_contain(self.team()) {
                return crate::team::innermost_thread_index();
            }
            return None;
        }
        // Outside every fork: inside this pool's `install`, the caller.
        let installed_here =
            !super::current::installed_is_none_or(|pool| !core::ptr::eq(pool, self));
        installed_here.then_some(0)
    }
}
