//! A blocked call's job ([`CallJob`]): a `join`, `scope` or
//! parallel-iterator call from a thread outside the pool, on that thread's
//! stack, which waits until a runner sets its `done` flag (or takes the job
//! back). The queue that carries it, its protocol and the order calls run
//! in are the parent module's (`inject.rs`, `inject/order.rs`).

use super::super::worker::Worker;
use super::header::{Injected, Kind};
use crate::sync::{AtomicBool, Ordering, UnsafeCell};
use crate::wait::woken::{Caller, Runner, Woken};
use crate::wait::Doorbell;
use core::ptr;
use std::sync::Arc;

#[cfg(test)]
std::thread_local! {
    /// How many yielding waits this thread began, for the tests to check
    /// that a caller's own calls took that path.
    static YIELDED: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// How many yielding waits this thread began (tests only; loom's build
/// has no test that reads it).
#[cfg(all(test, not(loom)))]
pub(crate) fn yielded_here() -> usize {
    YIELDED.with(core::cell::Cell::get)
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
    /// Set by the caller while it waits yielding its CPU, not parked
    /// (`call_time.rs`): the runner then counts it as woken however short
    /// the job, so that the spinner on its CPU gives it back. A hint: a
    /// stale value only decides whether the caller is counted, and `woken`
    /// carries that decision to the caller through `done` either way.
    yielding: AtomicBool,
    /// How the runner wakes the caller once `done` is set.
    wake: Wake,
}

/// How a call's runner wakes its caller once the call is done.
#[derive(Clone)]
pub(crate) enum Wake {
    /// Unparks the caller's thread, parked outside every region.
    Thread(std::thread::Thread),
    /// Rings the doorbell of the caller's own pool, on which its thread
    /// waits running that pool's work (`worker/wait.rs`): a thread of one
    /// pool that handed a call to another.
    Bell(Arc<Doorbell>),
}

impl Wake {
    /// The calling thread, parked until the call is done.
    pub(crate) fn this_thread() -> Self {
        Wake::Thread(std::thread::current())
    }

    /// Wakes the caller.
    pub(crate) fn wake(self) {
        match self {
            Wake::Thread(thread) => thread.unpark(),
            Wake::Bell(bell) => bell.ring(),
        }
    }
}

impl<F: FnOnce(&Worker) -> R + Send, R: Send> CallJob<F, R> {
    /// A job for `func`, owned by the calling thread, which `wake` wakes.
    pub(crate) fn new(func: F, wake: Wake) -> Self {
        CallJob {
            header: Injected::new(Self::execute, Kind::Call),
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
            done: AtomicBool::new(false),
            woken: AtomicBool::new(false),
            yielding: AtomicBool::new(false),
            wake,
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

    /// Polls the done flag, yielding the CPU between polls, for `wait` at
    /// most (`call_time.rs`), then returns (done or not: the caller parks
    /// next if not).
    #[cfg(not(loom))]
    pub(crate) fn wait_yielding(&self, wait: core::time::Duration) {
        #[cfg(test)]
        YIELDED.with(|yielded| yielded.set(yielded.get() + 1));
        // Relaxed: a hint to the runner (see the field).
        self.yielding.store(true, Ordering::Relaxed);
        let start = std::time::Instant::now();
        while !self.is_done() && start.elapsed() < wait {
            std::thread::yield_now();
        }
        // Relaxed: as above.
        self.yielding.store(false, Ordering::Relaxed);
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
    /// As [`run`](super::run), for a `CallJob<F, R>`.
    unsafe fn execute(this: *const Injected, worker: &Worker) {
        let job = this.cast::<Self>();
        // Popped, so ours until `done` (the caller touches only the atomic
        // flags `done` and `yielding` meanwhile); fields reached through the
        // raw pointer, no reference outliving its statement.
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
        // Our own handle on the caller (a thread, or its pool's doorbell):
        // the job may be freed as soon as `done` is seen.
        // SAFETY: as above.
        let wake = unsafe { (*job).wake.clone() };
        // SAFETY: the field is reached through the raw pointer.
        let done = unsafe { ptr::addr_of!((*job).done) };
        // Relaxed: a hint (see the field); a caller that stopped yielding
        // just now parks, and is woken below all the same.
        // SAFETY: as above; an atomic, which the caller may write.
        let yielding = unsafe { (*job).yielding.load(Ordering::Relaxed) };
        // Counted before the store, so the caller's `take_result` ends it;
        // a pool's thread waits running its pool's work, on no CPU of its
        // own to be given back, and is not counted.
        let (woken, took) = match wake {
            Wake::Thread(_) if yielding => runner.finish(Caller::Yielding),
            Wake::Thread(_) => runner.finish(Caller::Parked),
            Wake::Bell(_) => (false, runner.took()),
        };
        worker.nest().injector.note_call(took);
        // Relaxed: published by the Release store of `done` below.
        // SAFETY: as above.
        unsafe { (*job).woken.store(woken, Ordering::Relaxed) };
        // Release: pairs with the Acquire load in `is_done`. The caller may
        // free the job as soon as it sees the store (the argument of
        // `Arc::drop`, as for `job.rs`'s latch); nothing after it touches
        // the job.
        // SAFETY: alive until this store lands, as argued.
        unsafe { (*done).store(true, Ordering::Release) };
        wake.wake();
    }
}
