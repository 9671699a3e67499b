//! Taking the team and handing it back.
//!
//! The lock is `held`, on a line of its own that workers never write:
//! `0` means idle, and a caller takes the team with one compare-exchange
//! from `0` to `1`. The holder hands the team back with a Release store of
//! `0`. A caller that forks again and again finds the line in its own cache
//! both times, so the uncontended lock costs no cache-line transfer.
//!
//! A caller that finds the team busy waits for it only when it cannot be
//! known to be what the holder is waiting for
//! (`env::may_wait_for_busy_team`: not from inside a task), and then only
//! for a bounded time, parked (`env::Env::wait_for_idle`); otherwise, or
//! once the bound has passed, its call runs inline. The bound is what makes
//! a helper thread of a task safe: it cannot be told apart from an
//! independent caller, and an unbounded wait would deadlock with the fork
//! that joins it. `stop` alone waits without a bound (see `Team::stop`).
//!
//! The holder wakes parked waiters right after it hands the team back; that
//! costs the hot path one load of a line it reads anyway (the parking
//! announcements) and no fence instruction where membarrier works.

use super::job::Job;
use super::{env, Team};
use crate::sync::Ordering;

impl Team {
    /// Takes the team, waiting for a busy team when that is safe. Returns
    /// false when the team is busy and the call must run inline instead.
    #[inline]
    pub(super) fn take(&self) -> bool {
        self.try_take() || self.take_contended()
    }

    /// One attempt to take the team.
    #[inline]
    pub(super) fn try_take(&self) -> bool {
        // The previous fork's reads of the job slot happen before our write.
        let held = &self.lock_line.held;
        // Acquire: pairs with the Release store in `hand_back`.
        let taken = held.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed);
        taken.is_ok()
    }

    #[cold]
    fn take_contended(&self) -> bool {
        // Inside any fork, this thread may be what the holder waits for.
        if !env::may_wait_for_busy_team() {
            return false;
        }
        // Bounded: this thread may still be a helper the holder waits for.
        let held = &self.lock_line.held;
        self.env
            .wait_for_idle(&self.waiter, held, || self.try_take(), true)
    }

    /// Takes the team, waiting (parked) for as long as it is busy. Only for
    /// callers that the holder cannot be waiting for.
    pub(super) fn take_waiting(&self) {
        let held = &self.lock_line.held;
        let taken = self
            .env
            .wait_for_idle(&self.waiter, held, || self.try_take(), false);
        debug_assert!(taken, "an unbounded wait always takes the team");
    }

    /// Hands the team back. A stop requested meanwhile is passed on to the
    /// workers first, once, while we still hold the team.
    #[inline]
    pub(super) fn hand_back(&self) {
        if self.stop_requested.load(Ordering::Relaxed)
            && !self.exit_published.load(Ordering::Relaxed)
        {
            self.exit_published.store(true, Ordering::Relaxed);
            self.publish(Job::exit());
        }
        // Release: pairs with the Acquire compare-exchange in `try_take`.
        self.lock_line.held.store(0, Ordering::Release);
        self.env.handed_back(&self.lock_line.held);
    }
}
