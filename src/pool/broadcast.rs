//! rayon's per-thread calls: [`broadcast`], [`BroadcastContext`],
//! [`current_thread_index`], and the pool methods of the same names.
//!
//! They exist for code that keeps one slot of state per thread (a buffer,
//! an RNG, a counter), indexed by the thread's index in its pool. In tine
//! the caller of a fork is its thread 0 and workers are `1..n`, so an
//! index from [`current_thread_index`] is below
//! [`crate::pool::current_num_threads`] and no two threads of one fork share it.

use super::ThreadPool;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
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

/// Runs `op` once on every thread of the current pool (the one `install`
/// made current, else the global pool) and returns the results in thread
/// order, as rayon's `broadcast`. One fork; the results are the one
/// allocation.
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
    super::current::with_current_pool(|pool| pool.broadcast(op))
}

/// What [`broadcast`]'s closure learns about the thread it runs on.
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    _not_send: PhantomData<&'a *mut ()>,
}

impl BroadcastContext<'_> {
    /// This thread's index, `0..num_threads()`.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of threads the broadcast runs on (each runs it once).
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// One result slot per thread, each written by one thread only.
struct Slots<R>(Vec<UnsafeCell<Option<R>>>);

// SAFETY: thread `i` writes slot `i` only, and the fork's join orders every
// write before the caller reads the slots.
unsafe impl<R: Send> Sync for Slots<R> {}

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
        let num_threads = self.threads();
        let slots = Slots((0..num_threads).map(|_| UnsafeCell::new(None)).collect());
        let shared = &slots; // the whole `Slots` (which is `Sync`), not its field
        let share = |index: usize, _colocation: usize| {
            let result = op(BroadcastContext {
                index,
                num_threads,
                _not_send: PhantomData,
            });
            // SAFETY: the fork runs each index once, so no other thread
            // touches this slot during the fork.
            unsafe { *shared.0[index].get() = Some(result) };
        };
        if self.hand_over {
            // Each thread of the team runs its own index: the team's fork
            // itself, not a hand-over (whose region would split the
            // indices over whichever threads are idle).
            self.team().fork(&share);
        } else {
            self.for_threads(share);
        }
        slots
            .0
            .into_iter()
            .map(|slot| slot.into_inner().expect("every thread ran its share"))
            .collect()
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
