//! Taking the team and handing it back.
//!
//! The lock is the join countdown itself: `threads_to_sync == 0` means idle,
//! and a caller takes the team with one compare-exchange from `0` to the
//! count its fork will join (`threads`; `1` for `stop`, which joins no one).
//! The holder hands the team back with a Release store of `0`. So the
//! uncontended fork pays one atomic for the lock and the countdown together.
//!
//! A caller that finds the team busy waits for it only when it cannot be
//! what the holder is waiting for (`env::may_wait_for_busy_team`); otherwise
//! its call runs inline.

use super::job::Job;
use super::{env, Team};
use crate::sync::Ordering;

impl Team {
    /// Takes the team for a fork joining `count` counts, waiting for a busy
    /// team when that is safe. Returns false when the team is busy and the
    /// call must run inline instead.
    #[inline]
    pub(super) fn take(&self, count: u32) -> bool {
        self.try_take(count) || self.take_contended(count)
    }

    /// One attempt to take the team.
    #[inline]
    pub(super) fn try_take(&self, count: u32) -> bool {
        // The previous fork's reads of the job slot happen before our write.
        let countdown = &self.join_line.threads_to_sync;
        // Acquire: pairs with the Release store in `hand_back`.
        let taken = countdown.compare_exchange(0, count, Ordering::Acquire, Ordering::Relaxed);
        taken.is_ok()
    }

    #[cold]
    fn take_contended(&self, count: u32) -> bool {
        // Inside any fork, this thread may be what the holder waits for.
        if !env::may_wait_for_busy_team() {
            return false;
        }
        self.take_waiting(count);
        true
    }

    /// Takes the team, waiting for as long as it is busy. Only for callers
    /// that the holder cannot be waiting for.
    pub(super) fn take_waiting(&self, count: u32) {
        while !self.try_take(count) {
            self.waiter
                .spin_until(|| self.join_line.threads_to_sync.load(Ordering::Relaxed) == 0);
        }
    }

    /// Hands the team back. A stop requested meanwhile is passed on to the
    /// workers first, once, while we still hold the team.
    pub(super) fn hand_back(&self) {
        if self.stop_requested.load(Ordering::Relaxed)
            && !self.exit_published.load(Ordering::Relaxed)
        {
            self.exit_published.store(true, Ordering::Relaxed);
            self.publish(Job::exit());
        }
        // Release: pairs with the Acquire compare-exchange in `try_take`.
        self.join_line.threads_to_sync.store(0, Ordering::Release);
    }
}
