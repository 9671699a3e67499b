//! The calls that run on the current pool's nested engine: [`join`],
//! [`join_context`], [`scope`], [`in_place_scope`], [`yield_now`] and
//! [`yield_local`], and the same calls as methods of a [`ThreadPool`].
//!
//! Each finds the worker of the region this thread runs in; outside every
//! region, it enters one on the pool `install`ed at this level of nesting,
//! else on the installed or global pool (`current.rs`). The work itself is
//! the nested engine's (`nest/`): one join, one scope, one yield on a
//! worker.

use super::current::{installed_is_none_or, with_current_pool, with_installed_here};
use super::ThreadPool;
use crate::nest::join::{join_on, FnContext};
use crate::nest::region::{enter, enter_here, Entry};
use crate::nest::scope::{scope_on, Scope};
use crate::nest::worker::Worker;
use crate::nest::yielding::{yield_local_on, yield_on, Yield};
// A process-wide static, outside any loom model (as `current.rs`'s).
use core::sync::atomic::{AtomicUsize, Ordering};

/// Runs `f` with a worker of the pool a call on this thread belongs to:
/// the pool `install`ed at this level of nesting, else the region this
/// thread runs in, else the installed or global pool (entering a region).
#[inline]
pub(crate) fn on_current_pool<R: Send>(f: impl FnOnce(&Worker) -> R + Send) -> R {
    // Inside a region: an `install` of another pool hides the worker
    // (`Worker::hide_unless_of`), so a worker found is the one to use.
    Worker::with_current(|worker| match worker {
        Some(worker) => f(worker),
        None => enter_current(f),
    })
}

/// As [`on_current_pool`], telling `f` whether it runs on a thread other
/// than this call's: a call from outside every region that a pool in
/// rayon's model handed over to its threads.
#[inline]
fn on_current_pool_moved<R: Send>(f: impl FnOnce(&Worker, bool) -> R + Send) -> R {
    Worker::with_current(|worker| match worker {
        Some(worker) => f(worker, false),
        None => enter_current_moved(f),
    })
}

/// [`enter_current`], comparing the thread that runs `f` with this one.
#[cold]
#[inline(never)]
fn enter_current_moved<R: Send>(f: impl FnOnce(&Worker, bool) -> R + Send) -> R {
    let caller = std::thread::current().id();
    enter_current(move |worker| f(worker, std::thread::current().id() != caller))
}

/// Outside every region: enters the pool installed at this level of
/// nesting, else the installed or global pool.
#[cold]
#[inline(never)]
fn enter_current<R: Send>(f: impl FnOnce(&Worker) -> R + Send) -> R {
    with_installed_here(|here| match here {
        Some(pool) => enter_pool(pool, f),
        None => with_current_pool(|pool| enter_pool(pool, f)),
    })
}

fn enter_pool<R: Send>(pool: &ThreadPool, f: impl FnOnce(&Worker) -> R + Send) -> R {
    enter(pool.team(), pool.nest(), Entry::Caller, f)
}

/// The live pools whose calls from outside go to their own threads
/// ([`Builder::caller_runs`](crate::pool::Builder::caller_runs)`(false)`).
/// While there are none, a parallel-iterator call needs no look at its
/// pool to know that its caller may run it. A process-wide count, outside
/// any loom model: core's atomic, not the `sync` shim's.
static HANDING_OVER: AtomicUsize = AtomicUsize::new(0);

/// Counts a pool built with `caller_runs(false)` in or out (`up`: built).
pub(crate) fn count_handing_over(up: bool) {
    // Relaxed: a hint read by `calls_may_go_elsewhere`; a call that reads
    // a stale zero is one made before the pool was built or installed.
    if up {
        HANDING_OVER.fetch_add(1, Ordering::Relaxed);
    } else {
        HANDING_OVER.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether some live pool hands its outside calls to its own threads: one
/// load, the only cost of [`run_where_calls_go`] to a process with none.
#[inline(always)]
pub(crate) fn calls_may_go_elsewhere() -> bool {
    // Relaxed: as in `count_handing_over`.
    HANDING_OVER.load(Ordering::Relaxed) != 0
}

/// Runs `f`, a parallel-iterator call on the current pool, where rayon's
/// model puts it: on the pool's own threads when the pool hands its
/// outside calls over and this thread is not one of its region's, else
/// right here (in a task, or on a pool whose caller is thread 0).
#[cold]
#[inline(never)]
pub(crate) fn run_where_calls_go<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if crate::team::in_task() {
        return f();
    }
    with_current_pool(|pool| {
        if pool.hands_over() {
            pool.enter(f)
        } else {
            f()
        }
    })
}

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// `a` runs on the calling thread; `b` stays on the caller's stack frame
/// and goes to an idle thread of the pool that asks for work, else runs on
/// the caller after `a`. So a `join` costs about a function call when all
/// threads are busy, and closures may borrow the caller's stack. A join
/// near the top of a thread's work offers `b` to askers until `a` returns;
/// one deeper in a recursion (nearly every join of one) offers it only to a
/// thread already asking when the join begins, so never make `a` wait for
/// `b` to run elsewhere (on a pool of one thread, it never would).
///
/// The pool is the one [`ThreadPool::install`] made current, else
/// the one whose region this thread runs in, else the global pool
/// ([`global`](crate::pool::current::global)). A call from outside a region takes the whole team
/// with one fork; a call made inside a plain fork's task (a `for_n` closure,
/// say) of that busy team runs both closures on the calling thread.
///
/// Both closures always run. If either panics, the panic resumes on the
/// caller once both have finished (`a`'s if both panic).
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (a, b) = tine::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
///
/// // Closures may borrow the caller's stack.
/// let mut left = vec![3, 1, 2];
/// let mut right = vec![6, 5, 4];
/// tine::join(|| left.sort(), || right.sort());
/// assert_eq!((left, right), (vec![1, 2, 3], vec![4, 5, 6]));
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    on_current_pool(|worker| join_on::<_, _, _, _, false>(worker, |_| a(), |_| b()))
}

/// As [`join`], with each closure told through a [`FnContext`] whether it
/// migrated to another thread: `b` if an idle thread took it; `a` only if
/// the whole call was handed over to the pool's threads from outside it (a
/// pool in rayon's model, [`Builder::caller_runs`](crate::pool::Builder::caller_runs)`(false)`),
/// as in rayon, whose parallel iterators split such a call's work further.
///
/// ```
/// let (a, b) = tine::join_context(|ctx| ctx.migrated(), |_| 7);
/// assert!(!a); // the first closure runs on the caller
/// assert_eq!(b, 7);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    on_current_pool_moved(|worker, moved| {
        let a = move |context: FnContext| a(if moved { FnContext::new(true) } else { context });
        join_on::<_, _, _, _, false>(worker, a, b)
    })
}

/// [`join`] for closures known to be coarse (a parallel sort's parts):
/// `b` is offered to idle threads at once, not at the next join after one
/// asks, so a thread that wakes while `a` runs a long serial leaf finds it.
/// Costs an atomic store and a take-back compare-exchange per call.
#[cfg_attr(test, allow(dead_code))] // the sort's unit tests swap it out
pub(crate) fn join_coarse<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    on_current_pool(|worker| join_on::<_, _, _, _, true>(worker, |_| a(), |_| b()))
}

/// Runs `op` with a [`Scope`] whose [`Scope::spawn`] starts tasks that may
/// borrow the caller's stack, and returns `op`'s result once every task
/// has finished.
///
/// Tasks run on the threads of the pool the call belongs to (as for
/// [`join`]: the installed pool, else the region's, else the global
/// pool). A panic in `op` or in any task resumes on the caller after every
/// task has finished (`op`'s first, else the first task's).
///
/// For work that outlives the call, see the detached
/// [`spawn`](crate::pool::serve::spawn).
///
/// ```
/// let mut sums = [0u64; 4];
/// let data: Vec<u64> = (1..=100).collect();
/// tine::scope(|s| {
///     for (sum, chunk) in sums.iter_mut().zip(data.chunks(25)) {
///         s.spawn(move |_| *sum = chunk.iter().sum());
///     }
/// });
/// assert_eq!(sums.iter().sum::<u64>(), 5050);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    on_current_pool(|worker| scope_on(worker, op))
}

/// rayon's `in_place_scope`: a [`scope`] whose `op` runs on the calling
/// thread, so it need not be `Send`. Every tine scope's `op` does, except
/// where the pool's callers hand over
/// ([`Builder::caller_runs`](crate::pool::Builder::caller_runs)) or the
/// team is busy: this one runs it here even then, waiting for the team a
/// bounded time (the pool's busy wait), else alone.
///
/// ```
/// let mut total = 0u64;
/// let not_send = std::rc::Rc::new(10u64);
/// tine::in_place_scope(|s| s.spawn(|_| total = (1..=10).sum()));
/// tine::in_place_scope(|_| assert_eq!(*not_send, 10));
/// assert_eq!(total, 55);
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    Worker::with_current(|worker| match worker {
        Some(worker) => scope_on(worker, op),
        None => with_installed_here(|here| match here {
            Some(pool) => enter_here(pool.team(), pool.nest(), |worker| scope_on(worker, op)),
            None => with_current_pool(|pool| {
                enter_here(pool.team(), pool.nest(), |worker| scope_on(worker, op))
            }),
        }),
    })
}

/// Whether this thread works for a pool outside any region: inside an
/// `install`, or in a task of a plain fork.
fn in_a_pool() -> bool {
    crate::team::in_task() || !installed_is_none_or(|_| false)
}

/// Runs one pending job of the current region, this thread's own first,
/// then one another thread promoted. Outside every region (no `join`,
/// `scope` or nested parallel call encloses this point) there is none:
/// `Some(Yield::Idle)` inside an `install` or a fork's task, `None` on a
/// thread outside every pool, as rayon answers on threads outside its
/// pools.
///
/// ```
/// let pool = tine::spawn_pool(2);
/// assert_eq!(tine::yield_now(), None); // outside every pool
/// assert_eq!(pool.install(tine::yield_now), Some(tine::Yield::Idle));
/// pool.scope(|s| {
///     s.spawn(|_| {});
///     // The spawned task is pending here, or another thread took it.
///     assert!(tine::yield_now().is_some());
/// });
/// ```
pub fn yield_now() -> Option<Yield> {
    Worker::with_current(|worker| match worker {
        Some(worker) => Some(yield_on(worker)),
        None => in_a_pool().then_some(Yield::Idle),
    })
}

/// Whether this thread has pending jobs of its own (spawned tasks, or
/// `join` closures not yet taken by another thread), as rayon's
/// `current_thread_has_pending_tasks`: `None` outside every region.
///
/// ```
/// assert_eq!(tine::current_thread_has_pending_tasks(), None);
/// tine::scope(|s| {
///     assert!(tine::current_thread_has_pending_tasks().is_some());
///     s.spawn(|_| {});
/// });
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    Worker::with_current(|worker| worker.map(Worker::has_pending))
}

/// As [`yield_now`], but runs only this thread's own pending jobs.
pub fn yield_local() -> Option<Yield> {
    Worker::with_current(|worker| match worker {
        Some(worker) => Some(yield_local_on(worker)),
        None => in_a_pool().then_some(Yield::Idle),
    })
}

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
        enter_pool(self, |_| self.install(op))
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
    /// pool; `op` runs on the calling thread.
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        self.install(|| in_place_scope(op))
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
