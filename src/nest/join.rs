//! One join on a region's worker ([`join_on`]): rayon's fork-join
//! primitive, on the region's threads. The public calls that find the
//! current pool's worker (`tine::join`, `tine::join_context`) are in
//! `pool/entry.rs`.

use super::job::{Ran, StackJob};
use super::worker::{Besides, Worker};
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// What [`join_context`](crate::pool::entry::join_context) tells each closure about where it runs.
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
    /// Not `Send` or `Sync`, as rayon's.
    _marker: PhantomData<*mut ()>,
}

impl FnContext {
    pub(crate) fn new(migrated: bool) -> Self {
        FnContext {
            migrated,
            _marker: PhantomData,
        }
    }

    /// Whether the closure runs on a thread other than the one that called
    /// [`join_context`](crate::pool::entry::join_context): the second one
    /// if an idle thread of the pool took it, the first one only if the
    /// call came from outside a pool that runs such calls on its own
    /// threads (rayon's model).
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// When a join offers its second closure to idle threads: a type, so that
/// each join site's choice is made at compile time.
pub(crate) trait Offer {
    /// Whether the oldest pending job (this `b`, or an outer join's) is
    /// offered at once, if the slot is empty.
    const AT_ONCE: bool;
}

/// When an idle thread asks (at the join's own request check): the
/// default, with which a join below the linked zone costs about a call.
pub(crate) enum WhenAsked {}

impl Offer for WhenAsked {
    const AT_ONCE: bool = false;
}

/// At once, whether or not a thread asked: for joins known to be coarse (a
/// parallel sort's parts, a fork's shares).
pub(crate) enum AtOnce {}

impl Offer for AtOnce {
    const AT_ONCE: bool = true;
}

/// A join on the current region's worker, whatever pool is installed: for
/// a pool's fork split into joins (`region.rs`). Each side is a share of a
/// parallel loop, so `b` is offered at once, as in `pool::entry::join_coarse`.
pub(super) fn join_here<A, B>(a: A, b: B)
where
    A: FnOnce() + Send,
    B: FnOnce() + Send,
{
    let ((), ()) = Worker::with_current(|worker| match worker {
        Some(worker) => join_on::<AtOnce, _, _, _, _>(worker, |_| a(), |_| b()),
        // Not reached (a split runs inside a region); both still run.
        None => join_on_serial(|_| a(), |_| b()),
    });
}

/// Holds `b` while `a` runs, and runs it if dropped (only while `a`
/// unwinds: [`RunOnUnwind::disarm`] takes `b` back otherwise), so the fast
/// path needs no `catch_unwind`. On the way out of a panicking `a`, `b` still
/// runs, and its own panic is dropped: `a`'s resumes.
struct RunOnUnwind<B: FnOnce(FnContext) -> RB, RB> {
    b: ManuallyDrop<B>,
    _result: PhantomData<fn() -> RB>,
}

impl<B: FnOnce(FnContext) -> RB, RB> RunOnUnwind<B, RB> {
    #[inline(always)]
    fn new(b: B) -> Self {
        RunOnUnwind {
            b: ManuallyDrop::new(b),
            _result: PhantomData,
        }
    }

    /// Takes `b` back without running the guard.
    #[inline(always)]
    fn disarm(self) -> B {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so `b` is taken exactly once.
        unsafe { ManuallyDrop::take(&mut this.b) }
    }
}

impl<B: FnOnce(FnContext) -> RB, RB> Drop for RunOnUnwind<B, RB> {
    /// Inlined, so that the compiler need not keep the guard in memory on
    /// the fast path (its choice; in release builds the landing pad hands
    /// `b` to the cold function).
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: drop runs once, and `disarm` (the only other taker)
        // never lets it run.
        let b = unsafe { ManuallyDrop::take(&mut self.b) };
        // The result is dropped inside, so a panic of its `Drop` is caught.
        while_unwinding(move || drop(b(FnContext::new(false))));
    }
}

/// The unwind guards' work, out of line: runs `f` while a join unwinds and
/// drops its panic (a second panic during unwinding would abort, and the
/// panic of `a` is the one that resumes).
#[cold]
#[inline(never)]
fn while_unwinding(f: impl FnOnce()) {
    debug_assert!(std::thread::panicking(), "only while `a` unwinds");
    drop(catch_unwind(AssertUnwindSafe(f)));
}

/// A region join's unwind guard: finishes B ([`finish_b`]) if `a` unwinds,
/// so the fast path needs no `catch_unwind`. B's own panic is dropped:
/// `a`'s resumes.
struct FinishOnUnwind<'a, F: FnOnce(Ran) -> R, R> {
    worker: &'a Worker,
    job: &'a StackJob<F, R>,
}

impl<F: FnOnce(Ran) -> R, R> Drop for FinishOnUnwind<'_, F, R> {
    /// Inlined, so that the compiler need not store the guard's two words
    /// on the fast path (its choice; in release builds the landing pad
    /// passes them on from registers).
    #[inline(always)]
    fn drop(&mut self) {
        let (worker, job) = (self.worker, self.job);
        // Dropped only while the join unwinds (from `a`, or the request
        // check before it), after the guards of every join opened inside.
        // SAFETY: so this is the join's only `finish_b`, all inner ones closed.
        while_unwinding(move || drop(unsafe { finish_b(worker, job) }));
    }
}

/// Both closures on this thread: `a`, then `b`, each told it did not
/// migrate. A panic in `a` runs `b` before it resumes.
#[inline]
fn join_on_serial<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA,
    B: FnOnce(FnContext) -> RB,
{
    let guard = RunOnUnwind::new(b);
    let ra = a(FnContext::new(false));
    let b = guard.disarm();
    (ra, b(FnContext::new(false)))
}

/// One join on `worker` (this thread's): the protocol in `nest/mod.rs`;
/// [`AtOnce`] (or a resident worker, `Worker::eager`) offers the oldest
/// pending job at once (`pool::entry::join_coarse`).
#[inline]
pub(crate) fn join_on<O: Offer, A, B, RA, RB>(worker: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    if !worker.in_region() {
        return join_on_serial(a, b);
    }
    // Below the linked zone (`worker/zone.rs`), a join is the 1-thread join
    // plus a request check, unless the request makes it link itself. A
    // coarse join always links: it offers `b` at once. The address of a
    // local in this frame stands for the stack pointer.
    // A resident worker (rayon's model), whose code may loop in `a`, or wait in it
    // for `b`, and count on the work being taken, offers the oldest pending
    // job (this `b`, or an outer join's still waiting) at once whenever its
    // slot is empty, at every join and any depth, as rayon's deque offers
    // its oldest to thieves: its empty slot counts as a request
    // (`worker/zone.rs`), so below the zone a join that finds the slot
    // full runs as the 1-thread join does.
    // The pool's model is read where each branch needs it, not kept in a
    // local: one held across the request check's call costs every join,
    // the 1-thread path's included, a saved register.
    let here = core::mem::MaybeUninit::<u8>::uninit();
    if !O::AT_ONCE && worker.is_deep(here.as_ptr() as usize) {
        let link = if worker.eager() {
            worker.tick_deep_eager()
        } else {
            worker.tick_deep()
        };
        if !link {
            return join_on_serial(a, b);
        }
    }
    join_linked::<O, _, _, _, _>(worker, a, b)
}

/// A linked join (steps 1 to 5 in `nest/mod.rs`); [`AtOnce`], or a
/// resident worker, offers the oldest pending job at once, if the slot is
/// empty.
#[inline(always)]
fn join_linked<O: Offer, A, B, RA, RB>(worker: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = StackJob::new(|ran| b(FnContext::new(ran == Ran::Stolen)));
    // SAFETY: the job stays in this frame, which the guard below (or the
    // `finish_b` after `a`) closes it before leaving, on every path: the
    // guard is armed before anything else runs.
    unsafe { worker.open(job.header()) };
    // If `a` panics, B is still run or waited for before the panic goes on.
    let guard = FinishOnUnwind { worker, job: &job };
    worker.tick_in_region();
    if O::AT_ONCE || worker.eager() {
        worker.offer_now();
    }
    let ra = a(FnContext::new(false));
    core::mem::forget(guard);
    // SAFETY: the guard is forgotten: this is the only call.
    match unsafe { finish_b(worker, &job) } {
        Ok(rb) => (ra, rb),
        Err(payload) => resume_unwind(payload),
    }
}

/// After A: closes the join; runs B here if it is still ours (never
/// promoted, or taken back), else waits for its runner, running other jobs
/// meanwhile. `Err` is a panic of a runner on another thread (one here
/// unwinds at once).
///
/// # Safety
/// `job` was opened on `worker` and every join opened after it has closed;
/// called once per join: after A, or by the guard if A unwinds.
#[inline]
unsafe fn finish_b<F: FnOnce(Ran) -> R, R>(
    worker: &Worker,
    job: &StackJob<F, R>,
) -> std::thread::Result<R> {
    // SAFETY: by this function's contract, the newest open join's job.
    unsafe { worker.close(job.header()) };
    // SAFETY: our own job, alive in this frame; the flag is owner-only.
    if !unsafe { (*job.header()).is_promoted() } {
        // SAFETY: never promoted, so never claimed; called once.
        return Ok(unsafe { job.run_inline() });
    }
    // SAFETY: as this function's.
    unsafe { finish_promoted(worker, job) }
}

/// B was promoted: take it back, or wait for the thread that claimed it.
///
/// # Safety
/// As [`finish_b`].
#[cold]
#[inline(never)]
unsafe fn finish_promoted<F: FnOnce(Ran) -> R, R>(
    worker: &Worker,
    job: &StackJob<F, R>,
) -> std::thread::Result<R> {
    let header = job.header();
    if worker.take_back(header) {
        // SAFETY: taken back, so no one else claimed it; called once.
        return Ok(unsafe { job.run_inline() });
    }
    // SAFETY: alive until this frame ends; the latch is set last.
    worker.wait_until(|| unsafe { (*header).probe() }, Besides::Nothing);
    // SAFETY: the latch is set; called once.
    unsafe { job.take_result() }
}
