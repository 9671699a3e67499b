//! [`ThreadPool`]: rayon's pool, a handle on a tine pool built in rayon's
//! model (calls from outside it run on its threads).

use crate::scope::ScopeFifo;
use tine::{BroadcastContext, Scope, Yield};

/// A pool of threads: rayon-core's `ThreadPool`, on a [`tine::ThreadPool`]
/// whose callers hand their calls over (rayon's model). Dropping it lets
/// its threads finish the jobs spawned on it, then stop.
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let index = pool.install(rayon_core::current_thread_index);
/// assert!(index.is_some()); // `install` runs on the pool's threads
/// assert_eq!(rayon_core::current_thread_index(), None);
/// ```
pub struct ThreadPool {
    pool: tine::ThreadPool,
}

impl core::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.pool.threads())
            .finish()
    }
}

impl ThreadPool {
    pub(crate) fn from_tine(pool: tine::ThreadPool) -> Self {
        ThreadPool { pool }
    }

    /// Builds a pool from a deprecated [`Configuration`](crate::Configuration).
    ///
    /// # Errors
    /// As [`ThreadPoolBuilder::build`](crate::ThreadPoolBuilder::build).
    #[deprecated(note = "Use `ThreadPoolBuilder::build`")]
    #[allow(deprecated)]
    pub fn new(
        configuration: crate::Configuration,
    ) -> Result<ThreadPool, Box<dyn std::error::Error>> {
        configuration.into_builder().build().map_err(Box::from)
    }

    /// Whether this thread is one of this pool's, running its work.
    fn is_current(&self) -> bool {
        tine::fork_thread_index().is_some() && self.pool.current_thread_index().is_some()
    }

    /// Runs `op` on this pool's threads and returns its result; a call made
    /// on one of them runs `op` right there.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.install(|| rayon_core::current_num_threads()), 2);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.pool.enter(op)
    }

    /// [`join`](crate::join) on this pool.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// ```
    pub fn join<A, B, RA, RB>(&self, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| tine::join(oper_a, oper_b))
    }

    /// [`scope`](crate::scope) on this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| tine::scope(op))
    }

    /// [`scope_fifo`](crate::scope_fifo) on this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope_fifo(op))
    }

    /// [`in_place_scope`](crate::in_place_scope) on this pool: `op` runs on
    /// the calling thread, the tasks on the pool.
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        self.pool.in_place_scope(op)
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) on this pool.
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        self.pool.in_place_scope(|scope| op(ScopeFifo::of(scope)))
    }

    /// Runs `op` on this pool's threads, detached.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (send, receive) = std::sync::mpsc::channel();
    /// pool.spawn(move || send.send(1).unwrap());
    /// assert_eq!(receive.recv().unwrap(), 1);
    /// ```
    pub fn spawn<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        self.pool.spawn(op);
    }

    /// As [`ThreadPool::spawn`], in the order spawned.
    pub fn spawn_fifo<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        self.pool.spawn_fifo(op);
    }

    /// Runs `op` once on every thread of this pool, detached.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        self.pool.spawn_broadcast(op);
    }

    /// Runs `op` once on every thread of this pool and returns the results
    /// in thread order.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.pool.broadcast(op)
    }

    /// The number of threads in this pool.
    pub fn current_num_threads(&self) -> usize {
        self.pool.threads()
    }

    /// This thread's index in this pool, or `None` if it is not one of the
    /// pool's threads.
    pub fn current_thread_index(&self) -> Option<usize> {
        if self.is_current() {
            tine::fork_thread_index()
        } else {
            None
        }
    }

    /// Whether this thread, one of this pool's, has pending tasks of its
    /// own; `None` on other threads.
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        if self.is_current() {
            tine::current_thread_has_pending_tasks()
        } else {
            None
        }
    }

    /// [`yield_now`](crate::yield_now), on one of this pool's threads;
    /// `None` on other threads.
    pub fn yield_now(&self) -> Option<Yield> {
        if self.is_current() {
            tine::yield_now()
        } else {
            None
        }
    }

    /// [`yield_local`](crate::yield_local), on one of this pool's threads;
    /// `None` on other threads.
    pub fn yield_local(&self) -> Option<Yield> {
        if self.is_current() {
            tine::yield_local()
        } else {
            None
        }
    }
}
