//! The protocol's environment without `std`: nothing can catch a panic or
//! park, and a thread cannot tell whether it runs inside a fork.
//!
//! `std_env.rs` has the same items for builds with `std`; `team/mod.rs`
//! picks one of the two, once.

use super::lock::Wait;
use super::Team;
use crate::sync::{AtomicU32, Generation, Ordering};
use crate::wait::Waiter;
use crate::wait::{Claim, LOCK_HELD};

/// Nothing: no parking, and panics are not caught.
pub(super) struct Env;

/// Fork frames: without thread-locals there is nothing to record.
pub(super) struct Frame;

/// The team's frame record: nothing.
pub(super) struct FrameSlot;

/// What [`Frame::enter`] replaced: nothing.
pub(super) struct Outer;

impl Frame {
    pub(super) fn dispatcher(_team: &Team, _threads: usize) -> Self {
        Frame
    }

    pub(super) fn worker(_team: &Team, _thread_index: usize) -> Self {
        Frame
    }

    pub(super) fn enter(&self) -> Outer {
        Outer
    }
}

/// Restores the frame [`Frame::enter`] replaced: nothing.
pub(super) fn leave(_outer: Outer) {}

impl FrameSlot {
    pub(super) fn new() -> Self {
        FrameSlot
    }

    /// # Safety
    /// None needed here; `std_env`'s version has a contract.
    pub(super) unsafe fn record(&self, _frame: &Frame) {}
}

impl Env {
    pub(super) fn new() -> Self {
        Env
    }

    /// Nothing parks, so there is no one to wake.
    #[inline]
    pub(super) fn wake_workers(&self, _generation: &AtomicU32) -> bool {
        false
    }

    /// A worker's wait for the generation to move past `seen`: spins.
    #[inline]
    pub(super) fn wait_for_fork(
        &self,
        waiter: &Waiter,
        generation: &AtomicU32,
        _sleep_generation: &AtomicU32,
        seen: Generation,
    ) -> Generation {
        let mut now = seen;
        waiter.spin_until(|| {
            // Acquire: pairs with the Release store in `Team::publish`, so
            // the job slot written before it is ours.
            now = generation.load(Ordering::Acquire);
            now != seen
        });
        now
    }

    /// The caller's wait for `done` to reach `target`: spins.
    #[inline]
    pub(super) fn wait_for_join(
        &self,
        waiter: &Waiter,
        done: &AtomicU32,
        target: u32,
        _woke: bool,
    ) {
        waiter.spin_until(|| {
            // Acquire: pairs with each worker's Release increment (`Finished`).
            done.load(Ordering::Acquire) == target
        });
    }

    /// Nothing parks, so the last worker has no one to wake.
    #[inline]
    pub(super) fn counted(&self, _done: &AtomicU32, _last: bool) {}

    /// Runs the caller's share. If it unwinds, the fork's `Joiner` still
    /// joins the workers on the way out.
    #[inline]
    pub(super) fn run_share(&self, share: impl FnOnce()) {
        share();
    }

    /// Runs a worker's share. Nothing can catch a panic here, and a worker
    /// that unwound out of its loop would leave every later fork waiting for
    /// it forever; so a guard, reached only by unwinding, panics again,
    /// which aborts the process instead.
    #[inline]
    pub(super) fn run_worker_share(&self, share: impl FnOnce()) {
        struct AbortOnUnwind;
        impl Drop for AbortOnUnwind {
            fn drop(&mut self) {
                panic!("a tine task panicked in a no_std build, where panics cannot be caught");
            }
        }
        let abort = AbortOnUnwind;
        share();
        core::mem::forget(abort);
    }

    /// There are no payloads.
    pub(super) fn take_panics(&self, _panics: &mut Panics) {}

    /// A wait for a busy team: only `stop` waits without `std` (every other
    /// call that finds the team busy runs inline), and it spins until it
    /// takes the team.
    pub(super) fn wait_for_idle(
        &self,
        waiter: &Waiter,
        held: &AtomicU32,
        mut try_take: impl FnMut(Claim) -> bool,
        _wait: Wait,
    ) -> bool {
        // Nothing reserves the team without `std` (no one parks).
        while !try_take(Claim::IdleOrReserved) {
            waiter.spin_until(|| held.load(Ordering::Relaxed) != LOCK_HELD);
        }
        true
    }

    /// No one parks, so no one waits for a hand-back.
    #[inline]
    pub(super) fn has_busy_waiters(&self) -> bool {
        false
    }

    /// Nothing parks, so there is no one to wake.
    #[inline]
    pub(super) fn handed_back(&self, _held: &AtomicU32) {}
}

/// The panics of one fork: there are none without `std`.
pub(super) struct Panics;

impl Panics {
    pub(super) fn new() -> Self {
        Panics
    }

    /// Nothing to drop or resume.
    pub(super) fn finish(self) {}
}

/// Runs `share(thread_index)` for every index in `0..threads` on the
/// calling thread, in order. Nothing can catch a panic here: one unwinds
/// out at once.
pub(crate) fn run_inline(threads: usize, share: impl Fn(usize)) {
    (0..threads).for_each(share);
}

/// A thread cannot tell whether it runs inside a fork, so it never waits
/// for a busy team: its call runs inline.
pub(super) fn may_wait_for_busy_team() -> bool {
    false
}

/// A thread cannot tell; `stop` then waits (see [`Team::stop`]).
pub(super) fn inside_fork_of(_team: &Team) -> bool {
    false
}

/// A thread cannot tell (see [`Team::run_worker`]).
pub(super) fn worker_inside_own_fork(_team: &Team) -> bool {
    false
}

/// Without `std` idle threads spin.
pub(super) fn default_waiter(_threads: usize) -> Waiter {
    Waiter::spin_only()
}
