//! A scope's task queued on its pool ([`ScopedJob`]): one spawned from a
//! thread that has no worker of the scope's pool (an `in_place_scope`'s
//! body outside the pool, or a thread the body started), boxed, freed by
//! its runner. Its closure (`Scope::task_body`) keeps its panic and counts
//! its scope down; the scope waits for it. The queue that carries it is the
//! parent module's (`inject.rs`): the threads that take spawned jobs take
//! it.

use super::super::worker::Worker;
use super::header::{Injected, Kind};
use std::boxed::Box;

/// A scope's task, boxed: freed by its runner.
#[repr(C)]
pub(crate) struct ScopedJob<F> {
    header: Injected,
    func: F,
}

impl<F: FnOnce() + Send> ScopedJob<F> {
    /// Boxes `func` (a task of the scope at `scope`, which never unwinds);
    /// the pointer is a job to push, which frees itself when run. The
    /// scope waits for it, so it may borrow what the scope does; its own
    /// wait finds it by `scope` (`Injector::pop_owned`).
    pub(crate) fn into_raw(func: F, scope: *const ()) -> *const Injected {
        let job = Box::new(ScopedJob {
            header: Injected::owned(Self::execute, Kind::Spawned, scope),
            func,
        });
        Box::into_raw(job).cast_const().cast()
    }

    /// # Safety
    /// As [`run`](super::run): `this` came from [`ScopedJob::into_raw`] for
    /// this `F`.
    unsafe fn execute(this: *const Injected, _worker: &Worker) {
        // SAFETY: made by `into_raw` with the same type; popped once.
        let job = unsafe { Box::from_raw(this.cast::<Self>().cast_mut()) };
        let ScopedJob { func, .. } = *job;
        func();
    }
}
