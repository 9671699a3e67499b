//! [`join`] and [`join_context`]: rayon's fork-join primitive, on the
//! region's threads.

use super::job::StackJob;
use super::region::on_current_pool;
use super::worker::Worker;
use core::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// What [`join_context`] tells each closure about where it runs.
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
    /// Not `Send` or `Sync`, as rayon's.
    _marker: PhantomData<*mut ()>,
}

impl FnContext {
    fn new(migrated: bool) -> Self {
        FnContext {
            migrated,
            _marker: PhantomData,
        }
    }

    /// Whether the closure runs on a thread other than the one that called
    /// [`join_context`] (it was taken by an idle thread of the pool). The
    /// first closure always runs on the calling thread.
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// `a` runs on the calling thread; `b` waits on the caller's stack frame
/// until an idle thread of the pool asks for work, and runs on the caller
/// after `a` if none did. So a `join` costs about a function call when all
/// threads are busy, and closures may borrow the caller's stack.
///
/// The pool is the one [`crate::ThreadPool::install`] made current, else
/// the one whose region this thread runs in, else the global pool
/// ([`crate::global`]). A call from outside a region takes the whole team
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
    on_current_pool(|worker| join_on(worker, |_| a(), |_| b()))
}

/// As [`join`], with each closure told through a [`FnContext`] whether it
/// migrated to another thread.
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
    on_current_pool(|worker| join_on(worker, a, b))
}

/// A join on the current region's worker, whatever pool is installed: for
/// a pool's fork split into joins (`region.rs`).
pub(super) fn join_here<A, B>(a: A, b: B)
where
    A: FnOnce() + Send,
    B: FnOnce() + Send,
{
    let ((), ()) = match Worker::current() {
        Some(worker) => join_on(worker, |_| a(), |_| b()),
        // Not reached (a split runs inside a region); both still run.
        None => join_on_serial(|_| a(), |_| b()),
    };
}

/// Both results, or the first panic once both have finished.
fn both<RA, RB>(a: std::thread::Result<RA>, b: std::thread::Result<RB>) -> (RA, RB) {
    match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(payload), _) | (Ok(_), Err(payload)) => resume_unwind(payload),
    }
}

fn join_on_serial<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA,
    B: FnOnce(FnContext) -> RB,
{
    let ra = catch_unwind(AssertUnwindSafe(|| a(FnContext::new(false))));
    let rb = catch_unwind(AssertUnwindSafe(|| b(FnContext::new(false))));
    both(ra, rb)
}

/// One join on `worker` (this thread's): the protocol in `nest/mod.rs`.
fn join_on<A, B, RA, RB>(worker: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    if !worker.in_region() {
        return join_on_serial(a, b);
    }
    let job = StackJob::new(|migrated| b(FnContext::new(migrated)));
    let header = job.header();
    worker.push(header);
    worker.tick();
    let ra = catch_unwind(AssertUnwindSafe(|| a(FnContext::new(false))));
    // SAFETY: our own job, alive in this frame; the flag is owner-only.
    let promoted = unsafe { (*header).is_promoted() };
    let rb = if !promoted {
        worker.unlink(header);
        run_back(&job)
    } else if worker.take_back(header) {
        run_back(&job)
    } else {
        // SAFETY: as above: alive until this frame ends.
        worker.wait_until(|| unsafe { (*header).probe() });
        match job.take_result() {
            Some(result) => result,
            None => unreachable!("a claimed job leaves a result before its latch"),
        }
    };
    both(ra, rb)
}

/// Runs a job that is the joiner's own again.
fn run_back<F: FnOnce(bool) -> R, R>(job: &StackJob<F, R>) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(|| match job.run_inline() {
        Some(value) => value,
        None => unreachable!("a job taken back has not run"),
    }))
}
