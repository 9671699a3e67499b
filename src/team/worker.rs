//! The worker loop: wait for a generation, run its share, count down.

use super::job::Share;
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
        let frame = env::Frame::worker(self);
        let outer = frame.enter();
        let mut seen = self.initial_generation;
        loop {
            seen = self.env.wait_for_fork(
                &self.waiter,
                &self.dispatch.generation,
                &self.dispatch.sleep_generation,
                seen,
            );
            // SAFETY: the holder wrote the slot before the generation store we
            // acquired and will not write it again before our decrement.
            let job = self.dispatch.job.with(|slot| unsafe { *slot });
            let Some(share) = job.share() else {
                break; // the exit job
            };
            self.run_worker_share(share, thread_index);
        }
        env::leave(outer);
    }

    fn run_worker_share(&self, share: &Share<'_>, thread_index: usize) {
        // Counts down on every way out, unwinding included.
        let countdown = Countdown(self);
        // The share's closure outlives the fork, and the fork cannot end
        // before `countdown` drops below.
        self.env
            .run_worker_share(|| share(thread_index, self.colocation));
        drop(countdown);
    }
}

/// Decrements the join countdown when dropped: a worker's last touch of the
/// fork. The last worker then wakes the caller if it parked; that touches
/// only the team, never the caller's frame.
struct Countdown<'a>(&'a Team);

impl Drop for Countdown<'_> {
    fn drop(&mut self) {
        let countdown = &self.0.join_line.threads_to_sync;
        // Release: pairs with the Acquire load in the caller's join, publishing
        // this share's writes (and any panic payload) to the caller.
        let before = countdown.fetch_sub(1, Ordering::Release);
        self.0.env.counted_down(countdown, before);
    }
}
