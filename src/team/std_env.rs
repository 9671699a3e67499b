//! The protocol's environment with `std`: shares run under `catch_unwind`,
//! idle threads spin and then park ([`Parking`]), and fork frames tell a
//! thread whether a busy team may be waiting for it.
//!
//! `bare_env.rs` has the same items for builds without `std`; `team/mod.rs`
//! picks one of the two, once.

use super::nesting::{frames_contain, in_fork};
use super::panic::{drop_payload, PanicSlot};
use super::Team;
use crate::error::Error;
use crate::sync::{AtomicU32, Generation};
use crate::wait::{Parking, WaitPolicy, Waiter};

pub(super) use super::nesting::{leave, Frame, FrameSlot};
pub(super) use super::panic::Payload;

/// A team's parking state and panic slot.
pub(super) struct Env {
    parking: Parking,
    panic: PanicSlot,
}

impl Env {
    pub(super) fn new() -> Self {
        Env {
            parking: Parking::new(),
            panic: PanicSlot::new(),
        }
    }

    /// Right after a new generation is stored: wakes parked workers, and
    /// says whether there were any.
    #[inline]
    pub(super) fn wake_workers(&self, generation: &AtomicU32) -> bool {
        self.parking.wake_workers(generation)
    }

    /// A worker's wait for the generation to move past `seen`.
    #[inline]
    pub(super) fn wait_for_fork(
        &self,
        waiter: &Waiter,
        generation: &AtomicU32,
        sleep_generation: &AtomicU32,
        seen: Generation,
    ) -> Generation {
        self.parking
            .wait_for_fork(waiter, generation, sleep_generation, seen)
    }

    /// The caller's wait for the countdown to reach 1.
    #[inline]
    pub(super) fn wait_for_join(&self, waiter: &Waiter, countdown: &AtomicU32, woke: bool) {
        self.parking.wait_for_join(waiter, countdown, woke);
    }

    /// Right after a worker's decrement from `before`: the last worker
    /// wakes the caller if it parked.
    #[inline]
    pub(super) fn counted_down(&self, countdown: &AtomicU32, before: u32) {
        if before == 2 {
            self.parking.wake_caller(countdown);
        }
    }

    /// Runs the caller's share, catching a panic into the slot.
    #[inline]
    pub(super) fn run_share(&self, share: impl FnOnce()) {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(share));
        if let Err(payload) = result {
            self.panic.offer(payload);
        }
    }

    /// Runs a worker's share: as [`Env::run_share`].
    #[inline]
    pub(super) fn run_worker_share(&self, share: impl FnOnce()) {
        self.run_share(share);
    }

    /// This fork's first panic payload. Only the holder calls it, after the
    /// join.
    pub(super) fn take_panic(&self) -> Option<Payload> {
        self.panic.take()
    }
}

/// Keeps the first payload of a fork that spans several teams; drops later
/// ones.
pub(super) fn keep_first(first: &mut Option<Payload>, found: Option<Payload>) {
    match (first.is_some(), found) {
        (false, found) => *first = found,
        (true, Some(later)) => drop_payload(later),
        (true, None) => {}
    }
}

/// Resumes a share's panic on the caller.
pub(super) fn resume(payload: Payload) -> ! {
    std::panic::resume_unwind(payload)
}

/// Whether a call that finds a team busy may wait for it: not from inside
/// any fork, where this thread may be what the holder waits for.
pub(super) fn may_wait_for_busy_team() -> bool {
    !in_fork()
}

/// Whether this thread runs (transitively) inside a fork of `team`.
pub(super) fn inside_fork_of(team: &Team) -> bool {
    frames_contain(team)
}

/// How a team built by [`Team::new`] waits.
pub(super) fn default_waiter(threads: usize) -> Waiter {
    Waiter::new(WaitPolicy::Adaptive, threads)
}

impl Team {
    /// A team whose idle threads wait by `policy`.
    ///
    /// # Errors
    /// As [`Team::new`].
    pub fn with_policy(threads: usize, policy: WaitPolicy) -> Result<Self, Error> {
        Self::build(threads, super::Slots::Open, Waiter::new(policy, threads))
    }
}
