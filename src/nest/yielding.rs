//! [`yield_now`] and [`yield_local`]: a task that waits on something
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

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// It ran one pending job.
    Executed,
    /// There was no pending job to run.
    Idle,
}

/// Whether this thread works for a pool outside any region: inside an
/// `install`, or in a task of a plain fork.
fn in_a_pool() -> bool {
    crate::team::in_task() || !crate::par::global::installed_is_none_or(|_| false)
}

/// Runs one pending job of the current region, this thread's own first,
/// then one another thread promoted. Outside every region (no `join`,
/// `scope` or nested parallel call encloses this point) there is none:
/// `Some(Yield::Idle)` inside an `install` or a fork's task, `None` on a
/// thread outside every pool, as rayon answers on threads outside its
/// pools.
///
/// ```
/// let pool = tine::spawn(2);
/// assert_eq!(tine::yield_now(), None); // outside every pool
/// assert_eq!(pool.install(tine::yield_now), Some(tine::Yield::Idle));
/// pool.scope(|s| {
///     s.spawn(|_| {});
///     // The spawned task is pending here, or another thread took it.
///     assert!(tine::yield_now().is_some());
/// });
/// ```
pub fn yield_now() -> Option<Yield> {
    let Some(worker) = Worker::current() else {
        return in_a_pool().then_some(Yield::Idle);
    };
    Some(match worker.find_work() {
        Some(job) => {
            // SAFETY: claimed by `find_work`, so this thread alone runs it.
            unsafe { worker.run_anchored(job) };
            Yield::Executed
        }
        None => Yield::Idle,
    })
}

/// As [`yield_now`], but runs only this thread's own pending jobs.
pub fn yield_local() -> Option<Yield> {
    let Some(worker) = Worker::current() else {
        return in_a_pool().then_some(Yield::Idle);
    };
    Some(match worker.find_local_work() {
        Some(job) => {
            // SAFETY: claimed by `find_local_work`.
            unsafe { worker.run_anchored(job) };
            Yield::Executed
        }
        None => Yield::Idle,
    })
}
