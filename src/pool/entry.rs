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
use crate::nest::join::{join_on, AtOnce, FnContext, WhenAsked};
use crate::nest::scope::{scope_on, Scope};
use crate::nest::worker::Worker;
use crate::nest::yielding::{yield_local_on, yield_on, Yield};

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

/// Where a call runs, against the thread that made it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runs {
    /// On the calling thread.
    Here,
    /// On another: a call from outside every region that a pool in rayon's
    /// model handed over to its threads.
    Moved,
}

/// As [`on_current_pool`], telling `f` where it runs.
#[inline]
fn on_current_pool_moved<R: Send>(f: impl FnOnce(&Worker, Runs) -> R + Send) -> R {
    Worker::with_current(|worker| match worker {
        Some(worker) => f(worker, Runs::Here),
        None => enter_current_moved(f),
    })
}

/// [`enter_current`], comparing the thread that runs `f` with this one.
#[cold]
#[inline(never)]
fn enter_current_moved<R: Send>(f: impl FnOnce(&Worker, Runs) -> R + Send) -> R {
    let caller = std::thread::current().id();
    enter_current(move |worker| {
        let runs = if std::thread::current().id() == caller {
            Runs::Here
        } else {
            Runs::Moved
        };
        f(worker, runs)
    })
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
    pool.enter_region(f)
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
    on_current_pool(|worker| join_on::<WhenAsked, _, _, _, _>(worker, |_| a(), |_| b()))
}

/// As [`join`], with each closure told through a [`FnContext`] whether it
/// migrated to another thread: `b` if an idle thread took it; both if the
/// whole call was handed over to the pool's threads from outside it (a
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
    on_current_pool_moved(|worker, runs| {
        // A call handed over from outside: both closures run away from
        // their caller, wherever the pool's threads run them.
        let moved = move |context: FnContext| match runs {
            Runs::Here => context,
            Runs::Moved => FnContext::new(true),
        };
        let a = move |context: FnContext| a(moved(context));
        let b = move |context: FnContext| b(moved(context));
        join_on::<WhenAsked, _, _, _, _>(worker, a, b)
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
    on_current_pool(|worker| join_on::<AtOnce, _, _, _, _>(worker, |_| a(), |_| b()))
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
/// where the pool's threads run every call
/// ([`Builder::caller_runs`](crate::pool::Builder::caller_runs)`(false)`)
/// or the team is busy: this one runs it here even then, outside the pool,
/// its tasks queued to the pool's threads while this thread waits for
/// them, parked.
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
            Some(pool) => pool.scope_in_place(op),
            None => with_current_pool(|pool| pool.scope_in_place(op)),
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

#[cfg(all(test, not(loom)))]
mod tests {
    // Unit tests of [`super::join_coarse`], and of the woken-caller count
    // (`wait/woken.rs`) and a lone caller's yielding wait
    // (`nest/inject/call_time.rs`) through calls handed over to a pool.

    use super::join_coarse;
    use crate::pool::ThreadPool;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    /// `b` of a coarse join reaches the idle thread while `a` runs without
    /// joining again (a plain join would keep it until `a`'s next join).
    #[test]
    fn a_coarse_join_offers_b_at_once() {
        let pool = ThreadPool::try_spawn(2).expect("a pool");
        let flag = AtomicBool::new(false);
        let (seen, ()) = pool.install(|| {
            join_coarse(
                || {
                    let start = Instant::now();
                    // Acquire: pairs with the Release store in `b`.
                    while !flag.load(Ordering::Acquire) {
                        if start.elapsed() > Duration::from_secs(20) {
                            return false;
                        }
                        std::thread::yield_now();
                    }
                    true
                },
                // Release: pairs with the Acquire load in `a`.
                || flag.store(true, Ordering::Release),
            )
        });
        assert!(seen, "b never ran while a waited for it");
    }

    /// Every caller counted as woken (`wait/woken.rs`) is counted off once
    /// it has its result, a panic's included: after calls handed over from
    /// several threads at once, the count reads zero again (other tests'
    /// calls may hold it up for a moment, never for long). A caller left
    /// counted would make every spinner in the process give way at each
    /// poll from then on.
    #[test]
    fn every_woken_caller_is_counted_off() {
        let pool = ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .build()
            .expect("a pool");
        std::thread::scope(|scope| {
            for client in 0..4 {
                let pool = &pool;
                scope.spawn(move || {
                    for call in 0..200 {
                        let ran = std::panic::catch_unwind(|| {
                            pool.join(
                                || {
                                    // Long enough to count its caller.
                                    busy_for(Duration::from_micros(20));
                                    assert!(call % 50 != client, "a call that panics");
                                },
                                || call,
                            )
                        });
                        assert_eq!(ran.is_ok(), call % 50 != client);
                    }
                });
            }
        });
        assert!(
            crate::wait::woken::counted() > 0,
            "no call ran long enough to count its caller"
        );
        every_woken_caller_ends();
    }

    /// A lone caller of short calls waits for each yielding its CPU before it
    /// parks (`nest/inject/call_time.rs`): every call still returns its own
    /// result, its panic still reaches the caller, and every caller the runner
    /// counted as woken is counted off, whichever way the caller waited.
    #[test]
    fn a_lone_caller_of_short_calls_waits_yielding_and_gets_every_result() {
        let pool = ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .build()
            .expect("a pool");
        let before = crate::nest::inject::call::yielded_here();
        for call in 0..300u32 {
            let ran = std::panic::catch_unwind(|| {
                pool.join(
                    || {
                        // Short enough for the yielding wait (at most 100 µs).
                        busy_for(Duration::from_micros(20));
                        assert!(call % 100 != 99, "a call that panics");
                        call
                    },
                    || call + 1,
                )
            });
            match ran {
                Ok((a, b)) => assert_eq!((a, b), (call, call + 1)),
                Err(_) => assert_eq!(call % 100, 99),
            }
        }
        assert!(
            crate::nest::inject::call::yielded_here() > before,
            "this caller never waited yielding"
        );
        every_woken_caller_ends();
    }

    /// Spins for `span`: a call's work.
    fn busy_for(span: Duration) {
        let start = Instant::now();
        while start.elapsed() < span {
            std::hint::spin_loop();
        }
    }

    /// Waits (20 s at most) until no caller counted as woken is left.
    fn every_woken_caller_ends() {
        let start = Instant::now();
        while crate::wait::woken::Woken::pending() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "a woken caller was never counted off"
            );
            std::thread::yield_now();
        }
    }
}
