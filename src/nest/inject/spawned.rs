//! A detached job ([`SpawnJob`]): `spawn`'s `'static` closure, boxed,
//! counted on its pool's injector until it has run (so that the pool drops
//! after it), its panic sent to the pool's panic handler. The queue that
//! carries it, and its protocol, are the parent module's (`inject.rs`).

use super::super::worker::Worker;
use super::header::{Injected, Kind};
use super::Injector;
use crate::sync::Ordering;
use std::boxed::Box;

/// What a spawned job's panic goes to: the pool's panic handler, if any.
pub(crate) type PanicHandler = dyn Fn(Box<dyn core::any::Any + Send>) + Send + Sync;

/// A detached job: boxed, freed by its runner.
#[repr(C)]
pub(crate) struct SpawnJob<F> {
    header: Injected,
    func: F,
}

impl<F: FnOnce() + Send + 'static> SpawnJob<F> {
    /// Boxes `func` and counts it as spawned on `injector`; the pointer is a
    /// job to push, which frees itself when run.
    pub(crate) fn into_raw(func: F, injector: &Injector) -> *const Injected {
        injector.spawned.fetch_add(1, Ordering::Relaxed);
        let job = Box::new(SpawnJob {
            header: Injected::new(Self::execute, Kind::Spawned),
            func,
        });
        Box::into_raw(job).cast_const().cast()
    }

    /// # Safety
    /// As [`run`](super::run): `this` came from [`SpawnJob::into_raw`] for this `F`.
    unsafe fn execute(this: *const Injected, worker: &Worker) {
        // SAFETY: made by `into_raw` with the same type; popped once.
        let job = unsafe { Box::from_raw(this.cast::<Self>().cast_mut()) };
        let SpawnJob { func, .. } = *job;
        let nest = worker.nest();
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(func)) {
            nest.spawned_panicked(payload);
        }
        nest.spawned_done();
    }
}

/// A turn of the detached jobs `spawn_fifo` made on the pool's threads
/// (`Injector::push_fifo`): queued where a `spawn` would put its job, it
/// runs the oldest such job when a thread takes it. So jobs spawned both
/// ways interleave as in rayon, whose threads keep one newest-first order
/// in which each FIFO spawn is a turn of a FIFO queue.
#[repr(C)]
pub(crate) struct FifoTurn {
    header: Injected,
}

impl FifoTurn {
    /// A boxed turn to push; it frees itself when run.
    pub(crate) fn into_raw() -> *const Injected {
        let turn = Box::new(FifoTurn {
            header: Injected::new(Self::execute, Kind::Spawned),
        });
        Box::into_raw(turn).cast_const().cast()
    }

    /// # Safety
    /// As [`run`](super::run): `this` came from [`FifoTurn::into_raw`].
    unsafe fn execute(this: *const Injected, worker: &Worker) {
        // SAFETY: made by `into_raw`; popped once.
        drop(unsafe { Box::from_raw(this.cast::<Self>().cast_mut()) });
        // One job for each turn: one is there.
        if let Some(job) = worker.nest().injector.pop_fifo() {
            // SAFETY: taken out of the FIFO: ours alone to run; alive (a
            // boxed spawned job frees itself).
            unsafe { super::run_alone(job, worker) };
        }
    }
}
