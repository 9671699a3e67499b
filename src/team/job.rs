//! What the holder publishes with a generation: the share to run, or the
//! order to exit.

/// A type-erased share of a fork: called once on every thread of the team
/// as `share(thread_index, colocation_index)`.
///
/// The one closure type every fork runs. A `&Share` is two words (the
/// closure's address and its call table), which is exactly what the job
/// slot holds, so erasing the closure's type costs one indirect call per
/// share and nothing else.
pub type Share<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// The contents of the job slot: the caller's share with its lifetime
/// erased, or `None`, the order to exit. Only the holder writes the exit
/// job, so a worker can never skip a fork it was counted in.
#[derive(Clone, Copy)]
pub(super) struct Job(Option<&'static Share<'static>>);

impl Job {
    /// The job for `share`.
    ///
    /// # Safety
    /// The job may be run only while `share` is alive: the fork that
    /// publishes it must not return before every worker has finished it
    /// (the `done` count says so), as `std::thread::scope` must not before its
    /// threads end.
    pub(super) unsafe fn new(share: &Share<'_>) -> Self {
        // SAFETY: only the lifetime changes (same layout); the caller keeps
        // the closure alive for as long as the job can run.
        let share = unsafe { core::mem::transmute::<&Share<'_>, &'static Share<'static>>(share) };
        Job(Some(share))
    }

    /// The exit job.
    pub(super) const fn exit() -> Self {
        Job(None)
    }

    /// The share to run, or `None` for the exit job.
    pub(super) fn share(self) -> Option<&'static Share<'static>> {
        self.0
    }
}
