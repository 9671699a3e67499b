//! The injector: work handed to a pool's threads, waiting for one of them
//! to take it. It exists so that a caller with work for a pool that it
//! cannot run itself (tine's model with the team busy; every call from
//! outside the pool in rayon's) neither waits out a timeout nor runs its
//! call alone while the pool could help: it queues the work, and a thread
//! that takes queued work runs it: the serving thread's region
//! (`pool/serve.rs`) or a resident thread (`pool/resident.rs`).
//!
//! What enters it:
//! - a blocked call ([`CallJob`](call::CallJob), `inject/call.rs`): a
//!   `join`, `scope`, `install` or parallel-iterator call from a thread
//!   outside the pool's regions, on that thread's stack, which waits until
//!   the job is done (or, in tine's model, takes it back, see below);
//! - a detached job ([`SpawnJob`](spawned::SpawnJob), `inject/spawned.rs`):
//!   `spawn`'s `'static` closure, boxed, counted until it has run, so that
//!   the pool's threads leave only after it; `spawn_fifo`'s from a thread
//!   of the pool waits in a list of its own, and a turn
//!   ([`FifoTurn`](spawned::FifoTurn)) runs the oldest there;
//! - a scope's task spawned from a thread with no worker of the scope's
//!   pool ([`ScopedJob`](scoped::ScopedJob), `inject/scoped.rs`), tagged
//!   with its scope, whose wait takes it too ([`Injector::pop_owned`]);
//! - a poll of a future (`inject/task.rs`), queued on each wake.
//!
//! # Protocol
//!
//! The queue is an intrusive doubly linked list under a [`SpinLock`];
//! `queued` mirrors its length for lock-free checks (a hint). Calls are
//! also linked, in the order they came, in a list of their own
//! (`inject/order.rs`), which picks the call to run when the queue's front
//! job is a call: the newest until the oldest has waited the pool's
//! patience, then the oldest (a spawned job behind a call then waits for
//! newer calls too, as long; a patience of zero is arrival order). A job
//! is in the queue from its push until exactly one of:
//! - a runner pops it (under the lock), then runs it;
//! - its owner removes it (under the lock, [`Injector::take_back`]) and
//!   runs it itself: in tine's model, a blocked call whose wait passed the
//!   pool's bound, the guard against a helper thread of a task (which the
//!   holder of the team may be waiting for) waiting for the team forever.
//!
//! So every job runs exactly once, and a stack job is unlinked before its
//! frame can end: its owner returns only after taking it back or seeing
//! its `done` flag, the runner's last touch of it (as `job.rs`'s latch).
//!
//! # Invariants
//!
//! - `prev`, `next` and `linked` of a job, and a call's links in the
//!   calls' list, are touched only under the lock while the job is linked
//!   (or, for a job in the FIFO list, under that list's lock).
//! - `queued` and `queued_calls` (the counts) change only under the lock.
//! - Only threads that take queued work run what the queue holds (a
//!   caller's region takes none: its caller would wait for another's work),
//!   and besides them a scope's own wait its own tasks, and in tine's model
//!   a relief thread the spawned jobs a long region holds back
//!   (`pool/relief.rs`).
//! - A push rings the pool's bells after the job is linked: the serving
//!   thread's (`serve_bell`) and the regions' (`Nest::bell`), whose
//!   sleepers check [`Injector::is_empty`] after announcing themselves.

use super::worker::Worker;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use crate::wait::{Doorbell, SpinLock};
use call_time::CallTime;
use core::cell::Cell;
use core::time::Duration;
use header::Injected;
use links::{End, Ends};
use order::{Calls, Patience};
use std::time::Instant;

pub(crate) mod call;
mod call_time;
pub(crate) mod header;
pub(crate) mod links;
pub(crate) mod order;
pub(crate) mod scoped;
pub(crate) mod spawned;
pub(crate) mod task;

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
    nest.injector.finished();
    // A serving or resident thread may wait, parked, for the last job to
    // end, and a scope's wait for its task (`worker/wait.rs`). One load
    // while none is parked.
    nest.ring_done();
    if nest.is_stopping() {
        // A dropped pool's idle threads wait for its last jobs to end.
        nest.ring_work();
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
    /// Detached jobs `spawn_fifo` queued from the pool's own threads,
    /// oldest first, each with a turn in the queue that runs the oldest
    /// (`spawned.rs`, [`Injector::push_fifo`]).
    fifo: SpinLock<Ends>,
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
    /// The mean run time of recent polls of tasks (`task.rs`), for a lone
    /// awaiter's yielding wait.
    #[cfg_attr(loom, allow(dead_code))] // loom models do not wait yielding
    task_time: CallTime,
}

impl Injector {
    pub(crate) fn new() -> Self {
        Injector {
            queue: SpinLock::new(Queue {
                jobs: Ends::new(),
                calls: Calls::new(),
            }),
            fifo: SpinLock::new(Ends::new()),
            queued: AtomicUsize::new(0),
            queued_calls: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            spawned: AtomicUsize::new(0),
            started: AtomicBool::new(false),
            serve_bell: Doorbell::new(),
            patience: Patience::new(),
            call_time: CallTime::new(),
            task_time: CallTime::new(),
        }
    }

    /// Whether no job is queued (a hint: Relaxed).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.queued.load(Ordering::Relaxed) == 0
    }

    /// Whether two or more calls are queued (a hint: Relaxed).
    #[cfg(not(loom))] // for the yielding wait
    fn many_calls(&self) -> bool {
        self.queued_calls.load(Ordering::Relaxed) >= 2
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

    /// A popped job has finished (the caller then rings the region's bell,
    /// for a thread parked until no job runs).
    pub(crate) fn finished(&self) {
        // Release: pairs with the Acquire load in `is_running`, so the
        // job's work happens before the region that waited for it ends.
        self.running.fetch_sub(1, Ordering::Release);
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

    /// Counts one more spawned job (a detached job, or an awaited task)
    /// until [`Injector::spawned_done`].
    pub(crate) fn spawned_one(&self) {
        // Relaxed: published with the job by the queue's lock.
        self.spawned.fetch_add(1, Ordering::Relaxed);
    }

    /// A spawned job has ended.
    pub(crate) fn spawned_done(&self) {
        // Release: pairs with the Acquire load in `has_spawned`, so
        // whatever the job did is seen by the pool's threads as they leave.
        self.spawned.fetch_sub(1, Ordering::Release);
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
    #[cfg(not(loom))] // loom models do not wait yielding
    pub(crate) fn yielding_wait(&self) -> Duration {
        if self.many_calls() {
            return Duration::ZERO;
        }
        self.call_time.yielding_wait()
    }

    /// A popped call ran for `took` (`call.rs`): see `call_time.rs`.
    fn note_call(&self, took: Duration) {
        self.call_time.note(took);
    }

    /// How long the awaiter of a task just spawned waits for it yielding
    /// its CPU, on its first poll (`inject/call_time.rs`): zero unless the
    /// task is the only job queued or running.
    #[cfg(not(loom))]
    pub(crate) fn task_yielding_wait(&self) -> Duration {
        // Relaxed: hints, as the counts are.
        let others = self.queued.load(Ordering::Relaxed) + self.running.load(Ordering::Relaxed);
        if others > 1 {
            return Duration::ZERO;
        }
        self.task_time.task_yielding_wait()
    }

    /// A poll of a task ran for `took` (`task/cell.rs`).
    #[cfg(not(loom))]
    fn note_task(&self, took: Duration) {
        self.task_time.note(took);
    }

    /// The patience in force (`order.rs`), scaled by the longer of the
    /// calls' and the tasks' mean runs.
    fn patience(&self) -> Duration {
        self.patience
            .get(self.call_time.mean().max(self.task_time.mean()))
    }

    /// The time to order calls by, if `patience` is not zero; read before
    /// the lock is taken.
    fn clock(&self, patience: Duration) -> Option<Instant> {
        (!patience.is_zero()).then(Instant::now)
    }

    /// Links `job` at `end` of the queue; a call or a task always goes to
    /// the back, and among them the order is `order.rs`'s. The caller rings
    /// the bells afterwards.
    ///
    /// # Safety
    /// `job` is alive and unlinked, and stays alive until it is popped and
    /// run, or taken back by its owner.
    pub(crate) unsafe fn push(&self, job: *const Injected, end: End) {
        // SAFETY: alive by the contract.
        let ordered = unsafe { (*job).is_ordered() };
        debug_assert!(
            !(ordered && end == End::Front),
            "a call or a task goes to the back"
        );
        let now = if ordered {
            self.clock(self.patience())
        } else {
            None
        };
        self.queue.with(|queue| {
            // SAFETY: alive by the contract; links touched under the lock.
            let header = unsafe { &*job };
            header.linked.set(true);
            if ordered {
                // SAFETY: a call or a task, alive, not yet in the list.
                unsafe { queue.calls.push(job, now) };
            }
            // SAFETY: alive and unlinked by the contract; under the lock.
            unsafe { queue.jobs.push(job, end, queue_links) };
            self.queued.fetch_add(1, Ordering::Relaxed);
            if header.is_call() {
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
        if header.is_ordered() {
            // SAFETY: a linked call or task is in the calls' list.
            unsafe { queue.calls.unlink(job) };
        }
        // Release: pairs with the Acquire load in `is_idle`, so a pop's
        // count of `running` is seen with its decrement.
        self.queued.fetch_sub(1, Ordering::Release);
        if header.is_call() {
            self.queued_calls.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Takes the front job, if any, or, if the front job is a call or a
    /// task, the one `order.rs` picks; the caller runs it ([`run`]). Only the check
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
        let patience = self.patience();
        // Relaxed: a hint; with one job queued there is no order to keep.
        let now = if self.queued.load(Ordering::Relaxed) >= 2 {
            self.clock(patience)
        } else {
            None
        };
        self.queue.with(|queue| {
            // SAFETY: linked jobs are alive; read under the lock.
            let job = match unsafe { queue.jobs.first.as_ref() } {
                None => return None,
                Some(first) if !first.is_ordered() => queue.jobs.first,
                // A call or a task in front: the calls' list holds it.
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
                if !header.is_call() {
                    // SAFETY: reached through the locked list: linked.
                    unsafe { self.unlink(queue, job) };
                    return Some(job);
                }
                job = header.next.get();
            }
            None
        })
    }

    /// Puts `job`, a detached job `spawn_fifo` made on one of the pool's
    /// threads, behind the others so made; the caller then pushes its turn
    /// (`spawned::FifoTurn`), which runs the oldest.
    ///
    /// # Safety
    /// `job` is alive and in no list, and stays alive until a turn runs it.
    pub(crate) unsafe fn push_fifo(&self, job: *const Injected) {
        // SAFETY: by the contract; the links are the queue's, unused while
        // the job waits here, and touched under this lock.
        self.fifo
            .with(|fifo| unsafe { fifo.push(job, End::Back, queue_links) });
    }

    /// The oldest job [`Injector::push_fifo`] put there, for a turn to run.
    pub(crate) fn pop_fifo(&self) -> Option<*const Injected> {
        self.fifo.with(|fifo| {
            let job = fifo.first;
            if job.is_null() {
                return None;
            }
            // SAFETY: the first job of the list: in it, so alive.
            unsafe { fifo.unlink(job, queue_links) };
            Some(job)
        })
    }

    /// Takes the frontmost job whose owner is `owner` (a scope's queued
    /// task, for that scope's own wait), if any; the caller runs it
    /// ([`run`]). Under the lock, a walk of the queue: only while the scope
    /// counts some of its tasks queued.
    pub(crate) fn pop_owned(&self, owner: *const ()) -> Option<*const Injected> {
        self.queue.with(|queue| {
            let mut job = queue.jobs.first;
            // SAFETY: linked jobs are alive; links read under the lock.
            while let Some(header) = unsafe { job.as_ref() } {
                if header.owner == owner {
                    self.count_running();
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
