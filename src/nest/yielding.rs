//! What `tine::yield_now` and `tine::yield_local` (`pool/entry.rs`) do
//! inside a region: a task that waits on something
//! outside tine (a flag, a channel) runs pending tine jobs meanwhile, as
//! rayon's functions of the same names.
//!
//! A thread inside a `join`, `scope` or nested parallel call (a region of
//! the nested engine) may have jobs pending: its own spawned tasks and the
//! other branches it offered, and, in a region of several threads, the
//! branches other threads promoted. Running one here is what the thread
//! would do while waiting for a join: each job is claimed once, so its
//! owner finds it done, as it would after a steal.

use super::worker::Worker;

/// What [`yield_now`](crate::pool::entry::yield_now) or
/// [`yield_local`](crate::pool::entry::yield_local) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// It ran one pending job.
    Executed,
    /// There was no pending job to run.
    Idle,
}

/// Runs one pending job of `worker`'s region, its own first, then one
/// another thread promoted, then (a thread that takes queued work: a
/// resident or serving one) one queued on its pool, a spawned job
/// included: the body of `tine::yield_now` (`pool/entry.rs`) inside a
/// region. So a job may wait, yielding, for a job it spawned, even on a
/// pool of one thread.
pub(crate) fn yield_on(worker: &Worker) -> Yield {
    if let Some(job) = worker.find_work() {
        // SAFETY: claimed by `find_work`, so this thread alone runs it.
        unsafe { worker.run_anchored(job) };
        return Yield::Executed;
    }
    if worker.takes_queued() {
        if let Some(job) = worker.nest().injector.pop() {
            // SAFETY: popped by this thread.
            unsafe { worker.run_injected(job) };
            return Yield::Executed;
        }
    }
    Yield::Idle
}

/// As [`yield_on`], but runs only `worker`'s own pending jobs: the body of
/// `tine::yield_local` inside a region.
pub(crate) fn yield_local_on(worker: &Worker) -> Yield {
    match worker.find_local_work() {
        Some(job) => {
            // SAFETY: claimed by `find_local_work`.
            unsafe { worker.run_anchored(job) };
            Yield::Executed
        }
        None => Yield::Idle,
    }
}
