//! A [`Builder`]'s model settings: who runs a call made from outside the
//! pool (tine's model or rayon's, `pool/edge.rs`), and the settings rayon's
//! model adds: the building thread as thread 0, the order of spawned jobs,
//! and a drop that returns at once.

use super::Builder;
#[cfg(doc)]
use crate::error::Error;
use crate::nest::SpawnOrder;
use crate::pool::edge::Model;
#[cfg(doc)]
use crate::pool::ThreadPool;

impl Builder {
    /// Whether a call from a thread outside the pool runs on its caller,
    /// as thread 0 of the team (true, the default: tine's model, with no
    /// hand-off on the way in or out), or goes to the pool's own threads
    /// while its caller waits (false: rayon's model). With `false`, every
    /// closure of every call runs on a thread the pool started, as rayon
    /// promises: thread-local state, names, indices and handlers are the
    /// pool's. The pool then has `threads` threads of its own, indices `0`
    /// to `threads - 1` (named and handled alike), which stay ready for
    /// work for the pool's life; a caller outside them waits parked, or,
    /// on a thread of another pool, running that pool's work. Each such
    /// call pays a hand-off (a wake-up, when the pool was idle); calls made
    /// on the pool's threads, the joins and splits inside, do not. After
    /// work, the threads spin for more for the spin budget while work comes
    /// at shorter intervals than that, and for less (down to 20 µs) while
    /// it comes rarer: a pool fed a job now and then does not spin after
    /// each.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).name("own").caller_runs(false).build()?;
    /// let name = || std::thread::current().name().map(str::to_owned);
    /// let (a, b) = pool.join(name, name);
    /// // Both on the pool's threads (`own:0` or `own:1`), never the caller's.
    /// assert!(a.is_some_and(|a| a.starts_with("own:")));
    /// assert!(b.is_some_and(|b| b.starts_with("own:")));
    /// # Ok::<(), tine::Error>(())
    /// ```
    ///
    /// `caller_runs(true)` after [`Builder::use_current_thread`] undoes it:
    /// the last of the two settings wins.
    pub fn caller_runs(mut self, caller_runs: bool) -> Self {
        self.model = if caller_runs {
            Model::CallerJoins
        } else {
            Model::PoolRuns
        };
        self.use_current_thread &= !caller_runs;
        self
    }

    /// Makes the thread that builds the pool its thread 0, in rayon's model
    /// (this implies [`Builder::caller_runs`]`(false)`; rayon's
    /// `use_current_thread`): the pool starts threads for indices 1 and up
    /// only, and until the pool drops, this thread is index 0 of it
    /// (`current_thread_index()` is `Some(0)`, and free calls such as
    /// `tine::join` use this pool). It has no loop of its own: it runs the
    /// pool's work only inside its own calls (a `join` offers its second
    /// half to the other threads, and its waits and `yield_now` run pool
    /// work meanwhile); other callers are served by the other threads. No
    /// start or exit handler runs on it.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).use_current_thread().build()?;
    /// assert_eq!(pool.current_thread_index(), Some(0));
    /// assert_eq!(tine::join(|| 1, || 2), (1, 2)); // on this pool
    /// # Ok::<(), tine::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Builder::build`] fails with [`Error::CurrentThreadAlreadyInPool`]
    /// on a thread that already works for a pool.
    pub fn use_current_thread(mut self) -> Self {
        self.model = Model::PoolRuns;
        self.use_current_thread = true;
        self
    }

    /// Which of the jobs spawned from inside the pool (by
    /// [`Scope::spawn`](crate::nest::scope::Scope::spawn), or
    /// [`ThreadPool::spawn`] on one of its threads) a thread runs first:
    /// the newest by default, as rayon's threads do, or the oldest (rayon's
    /// deprecated `breadth_first`).
    ///
    /// ```
    /// use tine::SpawnOrder;
    ///
    /// let pool = tine::ThreadPool::builder().threads(1).spawn_order(SpawnOrder::OldestFirst).build()?;
    /// let order = std::sync::Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     for i in 0..3 {
    ///         let order = &order;
    ///         s.spawn(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2]);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn spawn_order(mut self, order: SpawnOrder) -> Self {
        self.spawn_order = order;
        self
    }

    /// Makes the pool's drop return at once, as rayon's does: its threads
    /// finish the jobs spawned on it, run their exit handlers and end on
    /// their own. By default the drop waits for all of that (the pool's
    /// threads have ended when it returns), unless it runs on one of the
    /// pool's own threads (a spawned job held the last handle of the pool),
    /// where waiting would wait for itself.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).detach_on_drop().build()?;
    /// let (send, receive) = std::sync::mpsc::channel::<()>();
    /// pool.spawn(move || receive.recv().unwrap()); // waits for a message sent after the drop
    /// drop(pool); // returns at once
    /// send.send(()).unwrap();
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn detach_on_drop(mut self) -> Self {
        self.detach_on_drop = true;
        self
    }
}
