//! The injector: work handed to a pool from outside its team, waiting for
//! one of the team's threads. It exists so that a caller that finds the
//! team busy neither waits out a timeout nor runs its call serially while
//! the team could help: it queues the call, and the pool's serving thread
//! (`pool/serve.rs`) or an idle thread of a running region takes it.
//!
//! Two kinds of job enter it:
//! - a blocked call ([`CallJob`]): a `join`, `scope` or parallel-iterator
//!   call from a thread outside the pool, on that thread's stack, which
//!   waits until the job is done (or takes it back, see below);
//! - a detached job ([`SpawnJob`](spawned::SpawnJob), `inject/spawned.rs`):
//!   `spawn`'s `'static` closure, boxed, counted until it has run, so that
//!   the pool drops only after it.
//!
//! # Protocol
//!
//! The queue is an intrusive doubly linked list under a [`SpinLock`];
//! `queued` mirrors its length for lock-free checks (a hint). A job is in
//! the queue from its push until exactly one of:
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
//! - `prev`, `next` and `queued` of a job are touched only under the lock
//!   while the job is linked.
//! - `queued` and `queued_calls` (the counts) change only under the lock.
//! - Only the serving thread's region runs spawned jobs, and relief
//!   threads while another region holds the team past the busy wait
//!   (`pool/relief.rs`); any region's idle thread may take a call, until
//!   its region's root has finished.
//! - A push rings the pool's bells after the job is linked: the serving
//!   thread's (`serve_bell`) and the regions' (`Nest::bell`), whose
//!   sleepers check [`Injector::is_empty`] after announcing themselves.
//!
//! The file stays whole (a little over ~450 lines): the queue, its counts
//! and the calls it carries are one protocol, whose invariants are the
//! ones stated above.

use super::worker::Worker;
use crate::sync::{AtomicBool, AtomicUsize, Ordering, UnsafeCell};
use crate::wait::woken::{Runner, Woken};
use crate::wait::{Doorbell, SpinLock};
use core::cell::Cell;
use core::ptr;

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
}

impl Injected {
    fn new(execute: unsafe fn(*const Injected, &Worker), spawned: bool) -> Self {
        Injected {
            execute,
            prev: Cell::new(ptr::null()),
            next: Cell::new(ptr::null()),
            linked: Cell::new(false),
            spawned,
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

/// The queue's ends.
struct Queue {
    head: *const Injected,
    tail: *const Injected,
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
}

impl Injector {
    pub(crate) fn new() -> Self {
        Injector {
            queue: SpinLock::new(Queue {
                head: ptr::null(),
                tail: ptr::null(),
            }),
            queued: AtomicUsize::new(0),
            queued_calls: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            spawned: AtomicUsize::new(0),
            started: AtomicBool::new(false),
            serve_bell: Doorbell::new(),
        }
    }

    /// Whether no job is queued (a hint: Relaxed).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.queued.load(Ordering::Relaxed) == 0
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

    /// Links `job` at the front (runs next) or the back (runs after every
    /// queued job). The caller rings the bells afterwards.
    ///
    /// # Safety
    /// `job` is alive and unlinked, and stays alive until it is popped and
    /// run, or taken back by its owner.
    pub(crate) unsafe fn push(&self, job: *const Injected, front: bool) {
        self.queue.with(|queue| {
            // SAFETY: alive by the contract; links touched under the lock.
            let header = unsafe { &*job };
            header.linked.set(true);
            if front {
                header.prev.set(ptr::null());
                header.next.set(queue.head);
                // SAFETY: linked jobs are alive.
                match unsafe { queue.head.as_ref() } {
                    Some(head) => head.prev.set(job),
                    None => queue.tail = job,
                }
                queue.head = job;
            } else {
                header.next.set(ptr::null());
                header.prev.set(queue.tail);
                // SAFETY: linked jobs are alive.
                match unsafe { queue.tail.as_ref() } {
                    Some(tail) => tail.next.set(job),
                    None => queue.head = job,
                }
                queue.tail = job;
            }
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
        let (prev, next) = (header.prev.get(), header.next.get());
        // SAFETY: as above.
        match unsafe { prev.as_ref() } {
            Some(prev) => prev.next.set(next),
            None => queue.head = next,
        }
        // SAFETY: as above.
        match unsafe { next.as_ref() } {
            Some(next) => next.prev.set(prev),
            None => queue.tail = prev,
        }
        header.linked.set(false);
        // Release: pairs with the Acquire load in `is_idle`, so a pop's
        // count of `running` is seen with its decrement.
        self.queued.fetch_sub(1, Ordering::Release);
        if !header.spawned {
            self.queued_calls.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Takes the front job, if any; the caller runs it ([`run`]).
    pub(crate) fn pop(&self) -> Option<*const Injected> {
        if self.is_empty() {
            return None;
        }
        self.queue.with(|queue| {
            let job = queue.head;
            if job.is_null() {
                return None;
            }
            self.count_running();
            // SAFETY: the head of the locked list: linked.
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

    /// Takes the frontmost call, if any, leaving spawned jobs queued: for a
    /// caller's region, whose end must not wait for a detached job (which
    /// may itself wait for that caller).
    pub(crate) fn pop_call(&self) -> Option<*const Injected> {
        if self.has_no_calls() {
            return None;
        }
        self.pop_first(false)
    }

    /// Whether spawned jobs are queued (a hint: Relaxed).
    pub(crate) fn has_queued_spawned(&self) -> bool {
        self.queued.load(Ordering::Relaxed) != self.queued_calls.load(Ordering::Relaxed)
    }

    /// Takes the frontmost spawned job, if any, leaving calls queued: for
    /// a relief thread (`pool/relief.rs`), which runs it alone.
    pub(crate) fn pop_spawned(&self) -> Option<*const Injected> {
        self.pop_first(true)
    }

    /// Takes the frontmost job whose kind is `spawned` (a spawned job if
    /// true, a call if false), if any.
    /// A call is counted as running; a spawned job, for a relief thread,
    /// is not: it offers no region work, so none waits for it.
    fn pop_first(&self, spawned: bool) -> Option<*const Injected> {
        self.queue.with(|queue| {
            let mut job = queue.head;
            // SAFETY: linked jobs are alive; links read under the lock.
            while let Some(header) = unsafe { job.as_ref() } {
                if header.spawned == spawned {
                    if !spawned {
                        self.count_running();
                    }
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

/// A blocked call's job, on the caller's stack: the call, the room for its
/// result, and the flag its caller waits for.
#[repr(C)]
pub(crate) struct CallJob<F, R> {
    header: Injected,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
    /// Set (Release) by the runner as its last touch of the job.
    done: AtomicBool,
    /// Whether the runner counted the caller as woken (`wait/woken.rs`):
    /// written before `done`, read after it.
    woken: AtomicBool,
    /// The caller's thread, woken once `done` is set.
    caller: std::thread::Thread,
}

impl<F: FnOnce(&Worker) -> R + Send, R: Send> CallJob<F, R> {
    /// A job for `func`, owned by the calling thread.
    pub(crate) fn new(func: F) -> Self {
        CallJob {
            header: Injected::new(Self::execute, false),
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
            done: AtomicBool::new(false),
            woken: AtomicBool::new(false),
            caller: std::thread::current(),
        }
    }

    /// The header to push; the job must not move until it is done or
    /// taken back.
    pub(crate) fn header(&self) -> *const Injected {
        (self as *const Self).cast()
    }

    /// Whether a runner has finished the job.
    pub(crate) fn is_done(&self) -> bool {
        // Acquire: pairs with the Release store in `execute`, so the
        // result is the caller's.
        self.done.load(Ordering::Acquire)
    }

    /// The closure back, for the caller to run itself.
    ///
    /// # Safety
    /// The job was taken back (no runner has or will touch it); once.
    pub(crate) unsafe fn take_func(&self) -> F {
        // SAFETY: by the contract, no one else touches the job.
        let func = self.func.with_mut(|func| unsafe { (*func).take() });
        func.expect("a call job's closure is taken once")
    }

    /// The runner's result.
    ///
    /// # Safety
    /// [`CallJob::is_done`] returned true; once.
    pub(crate) unsafe fn take_result(&self) -> std::thread::Result<R> {
        // SAFETY: the runner wrote it before its Release store of `done`,
        // which the caller's Acquire load saw; the runner is gone.
        let result = self.result.with_mut(|result| unsafe { (*result).take() });
        // Relaxed: ordered by `done` (the runner's Release store, the
        // caller's Acquire load).
        if self.woken.load(Ordering::Relaxed) {
            // The caller runs again: spinners need not give way for it.
            Woken::end();
        }
        result.expect("a finished call job left its result")
    }

    /// # Safety
    /// As [`run`], for a `CallJob<F, R>`.
    unsafe fn execute(this: *const Injected, worker: &Worker) {
        let job = this.cast::<Self>();
        // Popped, so ours until `done`; fields reached through the raw
        // pointer, no reference outliving its statement.
        // SAFETY: as just said.
        let func = unsafe { (*job).func.with_mut(|func| (*func).take()) };
        let runner = Runner::start();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            func.map(|func| func(worker))
        }));
        let result = match result {
            Ok(Some(value)) => Ok(value),
            Ok(None) => unreachable!("a popped call job still holds its closure"),
            Err(payload) => Err(payload),
        };
        // SAFETY: as above.
        unsafe { (*job).result.with_mut(|slot| *slot = Some(result)) };
        // Our own handle on the caller: the job may be freed as soon as
        // `done` is seen.
        // SAFETY: as above.
        let caller = unsafe { (*job).caller.clone() };
        // SAFETY: the field is reached through the raw pointer.
        let done = unsafe { ptr::addr_of!((*job).done) };
        // Counted before the store, so the caller's `take_result` ends it.
        let woken = runner.finish();
        // Relaxed: published by the Release store of `done` below.
        // SAFETY: as above.
        unsafe { (*job).woken.store(woken, Ordering::Relaxed) };
        // Release: pairs with the Acquire load in `is_done`. The caller may
        // free the job as soon as it sees the store (the argument of
        // `Arc::drop`, as for `job.rs`'s latch); nothing after it touches
        // the job.
        // SAFETY: alive until this store lands, as argued.
        unsafe { (*done).store(true, Ordering::Release) };
        caller.unpark();
    }
}
