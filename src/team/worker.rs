//! The worker loop: wait for a generation, run its share, count it done.

use super::{env, Team};
use crate::sync::Ordering;

impl Team {
    /// The worker loop of one worker, which passes `thread_index` (and the
    /// team's colocation) to every share it runs.
    ///
    /// # Safety
    /// At most `threads - 1` threads may run this on one team at a time (one
    /// more would count down twice for one fork and let the caller return
    /// while a share still runs). A plain team's workers pass their slot,
    /// `1..threads`; a team in a spread fork passes indices of the whole
    /// spread (see [`Team::fork_spread`]).
    pub(crate) unsafe fn worker_loop(&self, thread_index: usize) {
        // A worker runs user code only inside shares of this team's forks,
        // so its frame can stay entered for its whole life: set the
        // thread-local once here, not twice per share.
        let frame = env::Frame::worker(self, thread_index);
        let outer = frame.enter();
        let mut seen = self.initial_generation;
        loop {
            seen = self.env.wait_for_fork(
                &self.waiter,
                &self.dispatch.generation,
                &self.dispatch.sleep_generation,
                seen,
            );
            // SAFETY: the holder wrote the slot and the target before the
            // generation store we acquired, and will not write them again
            // before our increment.
            let job = self.dispatch.job.with(|slot| unsafe { *slot });
            let Some(share) = job.share() else {
                break; // the exit job
            };
            // SAFETY: as above.
            let target = self.dispatch.join_target.with(|target| unsafe { *target });
            // Counts the share done on every way out, unwinding included.
            // It lives here, not in a function that takes `share` as an
            // argument: the caller may free the closure the moment the count
            // is in, and a reference argument would still be live (and, for
            // the aliasing model, protected) until such a function returned.
            let finished = Finished { team: self, target };
            self.env
                .run_worker_share(|| share(thread_index, self.colocation));
            drop(finished);
        }
        env::leave(outer);
    }
}

/// Adds this worker's share to the team's `done` count when dropped: a
/// worker's last touch of the fork. The worker whose count reaches the
/// fork's target then wakes the caller if it parked; that touches only the
/// team, never the caller's frame.
struct Finished<'a> {
    team: &'a Team,
    /// The count at which the fork is joined, read with the job.
    target: u32,
}

impl Drop for Finished<'_> {
    #[inline]
    fn drop(&mut self) {
        let done = &self.team.done_line.done;
        // Release: pairs with the Acquire load in the caller's join,
        // publishing this share's writes (and any panic payload) to it.
        let before = done.fetch_add(1, Ordering::Release);
        let last = before.wrapping_add(1) == self.target;
        self.team.env.counted(done, last);
    }
}
