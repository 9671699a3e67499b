//! The nested calls as methods of a [`ThreadPool`]: [`ThreadPool::enter`]
//! (rayon's `install`), and `join`, `scope` and `in_place_scope` on this
//! pool rather than the current one.

use super::entry::{in_place_scope, join, scope};
use super::ThreadPool;
use crate::nest::scope::Scope;
use crate::nest::worker::Worker;

impl ThreadPool {
    /// Runs `op` as the root of a region of this pool, and returns its
    /// result: rayon's `install`. On the calling thread as thread 0 of the
    /// team, or, where the team is busy or the pool's callers hand over
    /// ([`Builder::caller_runs`](crate::pool::Builder::caller_runs)), on one
    /// of the pool's threads while the caller waits. Inside `op`, every
    /// `join`, `scope` and parallel call runs on this pool, its `join`s and
    /// splits with the region's other threads. Called on a thread of a
    /// region of this pool, it runs `op` right there.
    ///
    /// [`install`](ThreadPool::install) instead runs its closure on the
    /// caller outside any region, so that each parallel call inside is one
    /// fork of the team.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).caller_runs(false).build()?;
    /// let here = std::thread::current().id();
    /// let (index, there) = pool.enter(|| (tine::fork_thread_index(), std::thread::current().id()));
    /// assert!(index.is_some()); // a thread of the pool's region
    /// assert_ne!(there, here); // never the caller
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn enter<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        let here = Worker::with_current(|worker| {
            worker.is_some_and(|worker| worker.is_region_of(self.nest()))
        });
        if here {
            return self.install(op);
        }
        self.enter_region(|_| self.install(op))
    }

    /// [`join`] on this pool: `self.install(|| tine::join(a, b))`.
    ///
    /// ```
    /// let pool = tine::spawn_pool(2);
    /// let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
    /// assert_eq!((a, b), (2, 4));
    /// ```
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| join(a, b))
    }

    /// [`scope`] on this pool: `self.install(|| tine::scope(op))`.
    ///
    /// ```
    /// let pool = tine::spawn_pool(3);
    /// let mut halves = [0u32; 2];
    /// let (low, high) = halves.split_at_mut(1);
    /// pool.scope(|s| {
    ///     s.spawn(|_| low[0] = (1..=50).sum());
    ///     s.spawn(|_| high[0] = (51..=100).sum());
    /// });
    /// assert_eq!(halves[0] + halves[1], 5050);
    /// ```
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| scope(op))
    }

    /// rayon's `ThreadPool::in_place_scope`: [`in_place_scope`] on this
    /// pool; `op` runs on the calling thread, its tasks on this pool.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).caller_runs(false).build()?;
    /// let mut squares = [0u64; 4];
    /// pool.in_place_scope(|s| {
    ///     // Here on the calling thread, not one of the pool's.
    ///     assert_eq!(pool.current_thread_index(), None);
    ///     for (i, square) in squares.iter_mut().enumerate() {
    ///         s.spawn(move |_| *square = (i * i) as u64);
    ///     }
    /// });
    /// assert_eq!(squares, [0, 1, 4, 9]);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        let mine = Worker::with_current(|worker| {
            worker.is_some_and(|worker| worker.belongs_to(self.nest()))
        });
        if mine {
            return in_place_scope(op);
        }
        self.scope_in_place(op)
    }
}
