//! The injector: work handed to a pool from outside its team, waiting for
//! one of the team's threads. It exists so that a caller that finds the
//! team busy neither waits out a timeout nor runs its call serially while
//! the team could help: it queues the call, and the pool's serving thread
//! (`pool/serve.rs`) or an idle thread of a running region takes it.
//!
//! Two kinds of job enter it:
//! - a blocked call ([`CallJob`](call::CallJob), `inject/call.rs`): a
//!   `join`, `scope` or parallel-iterator call from a thread outside the
//!   pool, on that thread's stack, which waits until the job is done (or
//!   takes it back, see below);
//! - a detached job ([`SpawnJob`](spawned::SpawnJob), `inject/spawned.rs`):
//!   `spawn`'s `'static` closure, boxed, counted until it has run, so that
//!   the pool drops only after it.
//!
//! # Protocol
//!
//! The queue is an intrusive doubly linked list under a [`SpinLock`];
//! `queued` mirrors its length for lock-free checks (a hint). Calls are
//! also linked, in the order they came, in a list of their own
//! (`inject/order.rs`), which picks the call to run when the queue's front
//! job is a call: the newest until the oldest has waited the pool's
//! patience, then the oldest (a spawned job behind a call then waits for
//! newer calls too, as long; a patience of zero is arrival order). A job is in the queue from its push
//! until exactly one of:
//! - a runner pops it (under the lock), then runs it;
//! - its owner removes it (under the lock, [`Injector::take_back`]) and
//!   runs it itself: a blocked call whose wait passed the pool's bound,
//!   the guard against a helper thread of a task (which the holder of the
//!   team may be waiting for) waiting for the team forever.
//!
//! So every job runs exactly once, and a stack job is unlinked before its
//! frame can end: its owner returns only after taking it back or seeing
//! its `done` flag, and the runner's Release store of that flag is its last
//! touch of the job (the argument of `job.rs`'s latch).
//!
//! # Invariants
//!
//! - `prev`, `next` and `linked` of a job, and a call's links in the
//!   calls' list, are touched only under the lock while the job is linked.
//! - `queued` and `queued_calls` (the counts) change only under the lock.
//! - Only the serving thread's region runs spawned jobs, and relief
//!   threads while another region holds the team past the busy wait
//!   (`pool/relief.rs`); any region's idle thread may take a call, until
//!   its region's root has finished.
//! - A push rings the pool's bells after the job is linked: the serving
//!   thread's (`serve_bell`) and the regions' (`Nest::bell`), whose
//!   sleepers check [`Injector::is_empty`] after announcing themselves.

use super::worker::Worker;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use crate::wait::{Doorbell, SpinLock};
use call_time::CallTime;
use core::cell::Cell;
use core::ptr;
use core::time::Duration;
use links::Ends;
use order::{Calls, Patience};
use std::time::Instant;

pub(crate) mod call;
mod call_time;
mod links;
pub(crate) mod order;
pub(crate) mod spawned;

/// What every injected job starts with (`repr(C)`: a job's address is its
/// header's).
#[repr(C)]
pub(crate) struct Injected {
    /// Runs the job with the runner's worker; never unwinds.
    execute: unsafe fn(*const Injected, &Worker),
    /// Links in the queue (under the lock, while linked).
    prev: Cell<*const Injected>,
    next: Cell<*const Injected>,
    /// Whether the job is linked (under the lock).
    linked: Cell<bool>,
    /// A detached job (`SpawnJob`), which only the serving thread's region
    /// (or a relief thread) runs; a call (`CallJob`) any region's idle
    /// thread may take.
    spawned: bool,
    /// A call's links in the list of queued calls (`order.rs`; under the
    /// lock, while linked).
    call_prev: Cell<*const Injected>,
    call_next: Cell<*const Injected>,
    /// When a call was queued (`order.rs`; under the lock).
    queued_at: Cell<Option<Instant>>,
}

impl Injected {
    fn new(execute: unsafe fn(*const Injected, &Worker), spawned: bool) -> Self {
        Injected {
            execute,
            prev: Cell::new(ptr::null()),
            next: Cell::new(ptr::null()),
            linked: Cell::new(false),
            spawned,
            call_prev: Cell::new(ptr::null()),
            call_next: Cell::new(ptr::null()),
            queued_at: Cell::new(None),
        }
    }
}

/// Runs a popped job.
///
/// # Safety
/// `job` was popped from an [`Injector`] by this thread (so no one else
/// runs it) and is alive (a call's owner waits for its `done` flag; a
/// spawned job frees itself).
pub(crate) unsafe fn run(job: *const Injected, worker: &Worker) {
    // SAFETY: as this function's.
    unsafe { run_alone(job, worker) };
    // The job is not touched again: only the pool's counts and bell.
    let nest = worker.nest();
    if nest.injector.finished() {
        // A serving thread may wait, parked, for the last one to end.
        nest.bell.ring();
    }
}

/// Runs a popped job, and nothing else: for one popped by
/// [`Injector::pop_spawned`] (not counted as running) with `worker`, a
/// relief thread's serial worker. [`run`] adds the pool's count and bell.
///
/// # Safety
/// As [`run`].
pub(crate) unsafe fn run_alone(job: *const Injected, worker: &Worker) {
    // SAFETY: alive by the contract; `execute` never changes.
    unsafe { ((*job).execute)(job, worker) };
}

/// The queue's ends, and its calls in their own list.
struct Queue {
    jobs: Ends,
    calls: Calls,
}

/// The queue's links in a job.
fn queue_links(job: &Injected) -> (&Cell<*const Injected>, &Cell<*const Injected>) {
    (&job.prev, &job.next)
}

// SAFETY: the pointers are followed only under the injector's lock, and the
// jobs they point to are `Send` (their constructors require it).
unsafe impl Send for Queue {}

/// A pool's queue of injected work; see the module head.
pub(crate) struct Injector {
    queue: SpinLock<Queue>,
    /// Jobs linked in `queue` (changed under the lock; read as a hint).
    queued: AtomicUsize,
    /// How many of them are calls, not spawned jobs (likewise).
    queued_calls: AtomicUsize,
    /// Jobs popped and not yet finished (counted under the lock, before
    /// `queued` drops; see [`Injector::is_running`]).
    running: AtomicUsize,
    /// Spawned jobs not yet finished.
    spawned: AtomicUsize,
    /// The serving thread has started (its handler has run).
    started: AtomicBool,
    /// The pool's serving thread parks here.
    pub(crate) serve_bell: Doorbell,
    /// How long a queued call may wait behind newer ones (`order.rs`).
    patience: Patience,
    /// The mean run time of recent calls, which scales the default patience
    /// and a lone caller's yielding wait.
    call_time: CallTime,
}

impl Injector {
    pub(crate) fn new() -> Self {
        Injector {
            queue: SpinLock::new(Queue {
                jobs: Ends::new(),
                calls: Calls::new(),
            }),
            queued: AtomicUsize::new(0),
            queued_calls: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            spawned: AtomicUsize::new(0),
            started: AtomicBool::new(false),
            serve_bell: Doorbell::new(),
            patience: Patience::new(),
            call_time: CallTime::new(),
        }
    }

    /// Whether no job is queued (a hint: Relaxed).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.queued.load(Ordering::Relaxed) == 0
    }

    /// Whether two or more calls are queued (a hint: Relaxed).
    fn many_calls(&self) -> bool {
        self.queued_calls.load(Ordering::Relaxed) >= 2
    }

    /// Whether no call is queued (spawned jobs aside; a hint: Relaxed).
    #[inline]
    pub(crate) fn has_no_calls(&self) -> bool {
        self.queued_calls.load(Ordering::Relaxed) == 0
    }

    /// Whether a popped job is still running, on any thread: the serving
    /// thread's region does not end meanwhile (`pool/serve.rs`), so that
    /// the work such a job offers finds the region's other threads.
    pub(crate) fn is_running(&self) -> bool {
        // Acquire: pairs with the Release decrement in `finished`.
        self.running.load(Ordering::Acquire) != 0
    }

    /// Whether nothing is queued and no popped job runs. A reader that
    /// sees a pop's decrement of `queued` sees that pop's count of
    /// `running` (the pops count before they unlink).
    pub(crate) fn is_idle(&self) -> bool {
        // Acquire: pairs with the Release decrement in `unlink`.
        self.queued.load(Ordering::Acquire) == 0 && !self.is_running()
    }

    /// A popped job has finished; true if it was the last one running (the
    /// caller then rings the region's bell, for a serving thread parked
    /// until then).
    pub(crate) fn finished(&self) -> bool {
        // Release: pairs with the Acquire load in `is_running`, so the
        // job's work happens before the region that waited for it ends.
        self.running.fetch_sub(1, Ordering::Release) == 1
    }

    /// The serving thread says it has started.
    pub(crate) fn mark_started(&self) {
        // Release: pairs with the Acquire load in `has_started`, so the
        // thread's start happens before the pool is returned.
        self.started.store(true, Ordering::Release);
    }

    /// Whether the serving thread has started.
    pub(crate) fn has_started(&self) -> bool {
        // Acquire: pairs with the Release store in `mark_started`.
        self.started.load(Ordering::Acquire)
    }

    /// Whether spawned jobs are still queued or running.
    pub(crate) fn has_spawned(&self) -> bool {
        // Acquire: pairs with the Release decrement in `SpawnJob::execute`,
        // so whatever a finished job did is seen by the pool's drop.
        self.spawned.load(Ordering::Acquire) != 0
    }

    /// Bounds how long a queued call waits behind newer ones by the pool's
    /// busy wait (`order.rs`).
    pub(crate) fn set_busy_wait(&mut self, busy_wait: Duration) {
        self.patience.set_busy_wait(busy_wait);
    }

    /// Sets how long a queued call may wait behind newer ones (`order.rs`;
    /// `None`: scaled by the calls' run time).
    pub(crate) fn set_call_patience(&mut self, patience: Option<Duration>) {
        self.patience.set(patience);
    }

    /// How long a caller that just pushed its call waits for it yielding
    /// its CPU before it parks (`inject/call_time.rs`): zero if other calls
    /// are queued too.
    pub(crate) fn yielding_wait(&self) -> Duration {
        if self.many_calls() {
            return Duration::ZERO;
        }
        self.call_time.yielding_wait()
    }

    /// A popped call ran for `took` (`call.rs`), for the scaled patience
    /// and the callers' yielding wait.
    fn note_call(&self, took: Duration) {
        self.call_time.note(took);
    }

    /// The patience in force (`order.rs`), and the time to order calls
    /// by, if the patience is not zero and (`many`) two or more calls may be
    /// queued (a hint); read before the lock is taken.
    fn clock(&self, many: bool) -> (Option<Instant>, Duration) {
        let patience = self.patience.get(&self.call_time);
        ((many && !patience.is_zero()).then(Instant::now), patience)
    }

    /// Links `job` at the front (runs next) or the back (runs after every
    /// queued job); a call always goes to the back, and among calls the
    /// order is `order.rs`'s. The caller rings the bells afterwards.
    ///
    /// # Safety
    /// `job` is alive and unlinked, and stays alive until it is popped and
    /// run, or taken back by its owner.
    pub(crate) unsafe fn push(&self, job: *const Injected, front: bool) {
        // SAFETY: alive by the contract.
        let call = !unsafe { (*job).spawned };
        debug_assert!(!(call && front), "a call goes to the back");
        let now = if call { self.clock(true).0 } else { None };
        self.queue.with(|queue| {
            // SAFETY: alive by the contract; links touched under the lock.
            let header = unsafe { &*job };
            header.linked.set(true);
            if call {
                // SAFETY: a call, alive, not yet in the list.
                unsafe { queue.calls.push(job, now) };
            }
            // SAFETY: alive and unlinked by the contract; under the lock.
            unsafe { queue.jobs.push(job, front, queue_links) };
            self.queued.fetch_add(1, Ordering::Relaxed);
            if !header.spawned {
                self.queued_calls.fetch_add(1, Ordering::Relaxed);
            }
        });
    }

    /// Unlinks `job`. Under the lock (`queue` is the locked list).
    ///
    /// # Safety
    /// `job` is linked in `queue` (so alive).
    unsafe fn unlink(&self, queue: &mut Queue, job: *const Injected) {
        // SAFETY: linked, so alive by the contract; links touched under the
        // lock.
        let header = unsafe { &*job };
        // SAFETY: linked, by the contract.
        unsafe { queue.jobs.unlink(job, queue_links) };
        header.linked.set(false);
        if !header.spawned {
            // SAFETY: a linked call is in the calls' list.
            unsafe { queue.calls.unlink(job) };
        }
        // Release: pairs with the Acquire load in `is_idle`, so a pop's
        // count of `running` is seen with its decrement.
        self.queued.fetch_sub(1, Ordering::Release);
        if !header.spawned {
            self.queued_calls.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Takes the front job, if any, or, if the front job is a call, the
    /// call `order.rs` picks; the caller runs it ([`run`]). Only the check
    /// of the count is inlined: the idle loops that call it between forks
    /// keep their code small.
    #[inline]
    pub(crate) fn pop(&self) -> Option<*const Injected> {
        if self.is_empty() {
            return None;
        }
        self.pop_queued()
    }

    /// [`Injector::pop`] once a job is queued.
    #[inline(never)]
    fn pop_queued(&self) -> Option<*const Injected> {
        let (now, patience) = self.clock(self.many_calls());
        self.queue.with(|queue| {
            // SAFETY: linked jobs are alive; read under the lock.
            let job = match unsafe { queue.jobs.first.as_ref() } {
                None => return None,
                Some(first) if first.spawned => queue.jobs.first,
                // A call in front: the calls' list holds it at least.
                Some(_) => queue.calls.pick(now, patience).unwrap_or(queue.jobs.first),
            };
            self.count_running();
            // SAFETY: the front job, or a call of the calls' list (the
            // queued calls): linked either way.
            unsafe { self.unlink(queue, job) };
            Some(job)
        })
    }

    /// Counts a job about to be popped as running, before `unlink` lowers
    /// `queued` (under the lock).
    fn count_running(&self) {
        // Relaxed: published by `unlink`'s Release decrement of `queued`,
        // which comes after it (see `is_idle`).
        self.running.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes the call `order.rs` picks, if any, leaving spawned jobs
    /// queued: for a caller's region, whose end must not wait for a
    /// detached job (which may itself wait for that caller). Inlined as
    /// [`Injector::pop`] is: only the check of the count.
    #[inline]
    pub(crate) fn pop_call(&self) -> Option<*const Injected> {
        if self.has_no_calls() {
            return None;
        }
        self.pop_queued_call()
    }

    /// [`Injector::pop_call`] once a call is queued.
    #[inline(never)]
    fn pop_queued_call(&self) -> Option<*const Injected> {
        let (now, patience) = self.clock(self.many_calls());
        self.queue.with(|queue| {
            let job = queue.calls.pick(now, patience)?;
            self.count_running();
            // SAFETY: a queued call: linked.
            unsafe { self.unlink(queue, job) };
            Some(job)
        })
    }

    /// Whether spawned jobs are queued (a hint: Relaxed).
    pub(crate) fn has_queued_spawned(&self) -> bool {
        self.queued.load(Ordering::Relaxed) != self.queued_calls.load(Ordering::Relaxed)
    }

    /// Takes the frontmost spawned job, if any, leaving calls queued: for
    /// a relief thread (`pool/relief.rs`), which runs it alone. It is not
    /// counted as running: it offers no region work, so none waits for it.
    pub(crate) fn pop_spawned(&self) -> Option<*const Injected> {
        self.queue.with(|queue| {
            let mut job = queue.jobs.first;
            // SAFETY: linked jobs are alive; links read under the lock.
            while let Some(header) = unsafe { job.as_ref() } {
                if header.spawned {
                    // SAFETY: reached through the locked list: linked.
                    unsafe { self.unlink(queue, job) };
                    return Some(job);
                }
                job = header.next.get();
            }
            None
        })
    }

    /// The owner takes `job` back if no runner has popped it; false if one
    /// has (then the job runs, or has run, there).
    ///
    /// # Safety
    /// `job` was pushed by this thread and is alive.
    pub(crate) unsafe fn take_back(&self, job: *const Injected) -> bool {
        self.queue.with(|queue| {
            // SAFETY: alive by the contract; the flag is read under the lock.
            if !unsafe { (*job).linked.get() } {
                return false;
            }
            // SAFETY: linked, as just read under the lock.
            unsafe { self.unlink(queue, job) };
            true
        })
    }
}
