//! A detached job ([`SpawnJob`]): `spawn`'s `'static` closure, boxed,
//! counted on its pool's injector until it has run (so that the pool drops
//! after it), its panic sent to the pool's panic handler. The queue that
//! carries it, and its protocol, are the parent module's (`inject.rs`).

use super::super::worker::Worker;
use super::{Injected, Injector};
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
            header: Injected::new(Self::execute, true),
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
        // Release: pairs with the Acquire load in `has_spawned`.
        nest.injector.spawned.fetch_sub(1, Ordering::Release);
    }
}
