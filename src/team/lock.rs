//! Taking the team and handing it back.
//!
//! The lock is `held`, on a line of its own that workers never write:
//! [`LOCK_IDLE`] means idle, and a caller takes the team with one
//! compare-exchange to [`LOCK_HELD`]. The holder hands the team back with a
//! Release store of [`LOCK_IDLE`], or of [`LOCK_RESERVED`] when callers
//! are parked waiting for it: then only a caller that has waited its turn
//! takes it ("Turns" in `wait/parking.rs`), so a caller that forks back to
//! back cannot starve the others. A caller that forks again and again
//! alone finds the line in its own cache both times, so the uncontended
//! lock costs no cache-line transfer.
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
use crate::wait::{Claim, LOCK_HELD, LOCK_IDLE, LOCK_RESERVED};

/// How long a caller waits for a busy team ([`env::Env::wait_for_idle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wait {
    /// For the busy wait at most (then it runs inline): a caller that may
    /// be a helper the holder waits for.
    Bounded,
    /// For as long as it takes: a caller the holder cannot be waiting for
    /// (`stop`).
    Unbounded,
}

impl Team {
    /// Takes the team, waiting for a busy team when that is safe. Returns
    /// false when the team is busy and the call must run inline instead.
    #[inline]
    pub(super) fn take(&self) -> bool {
        self.try_take() || self.take_contended()
    }

    /// One attempt to take an idle team (not one reserved for the callers
    /// waiting for it).
    #[inline]
    pub(super) fn try_take(&self) -> bool {
        self.try_take_from(LOCK_IDLE)
    }

    /// One attempt to take the team from the lock state `from`.
    #[inline]
    fn try_take_from(&self, from: u32) -> bool {
        // The previous fork's reads of the job slot happen before our write.
        let held = &self.lock_line.held;
        // Acquire: pairs with the Release store in `hand_back`.
        let taken = held.compare_exchange(from, LOCK_HELD, Ordering::Acquire, Ordering::Relaxed);
        taken.is_ok()
    }

    /// A waiting caller's attempt: an idle team, or a reserved one once it
    /// has waited its turn ([`Claim::IdleOrReserved`]).
    fn try_take_waiting(&self, claim: Claim) -> bool {
        self.try_take() || (claim == Claim::IdleOrReserved && self.try_take_from(LOCK_RESERVED))
    }

    #[cold]
    fn take_contended(&self) -> bool {
        // Inside any fork, this thread may be what the holder waits for: it
        // cannot wait, so it takes a team reserved for waiters rather than
        // run inline beside an idle team.
        if !env::may_wait_for_busy_team() {
            return self.try_take_from(LOCK_RESERVED);
        }
        // Bounded: this thread may still be a helper the holder waits for.
        let held = &self.lock_line.held;
        self.env.wait_for_idle(
            &self.waiter,
            held,
            |claim| self.try_take_waiting(claim),
            Wait::Bounded,
        )
    }

    /// Takes the team, waiting (parked) for as long as it is busy. Only for
    /// callers that the holder cannot be waiting for.
    pub(super) fn take_waiting(&self) {
        let held = &self.lock_line.held;
        let taken = self.env.wait_for_idle(
            &self.waiter,
            held,
            |claim| self.try_take_waiting(claim),
            Wait::Unbounded,
        );
        debug_assert!(taken, "an unbounded wait always takes the team");
    }

    /// Takes the team for a pool's serving thread, waiting (parked) while
    /// it is busy, for the busy wait at most: false if it stayed busy. Only
    /// for a thread that the holder cannot be waiting for.
    #[cfg(feature = "std")]
    pub(super) fn take_for_serving(&self) -> bool {
        let held = &self.lock_line.held;
        self.env
            .wait_for_idle_serving(&self.waiter, held, |claim| self.try_take_waiting(claim))
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
        // Reserved for the callers parked waiting for it, if any (a hint:
        // one that announces itself later finds the team idle).
        let next = if self.env.has_busy_waiters() {
            LOCK_RESERVED
        } else {
            LOCK_IDLE
        };
        // Release: pairs with the Acquire compare-exchange in `try_take_from`.
        self.lock_line.held.store(next, Ordering::Release);
        self.env.handed_back(&self.lock_line.held);
    }
}
