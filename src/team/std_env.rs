//! The protocol's environment with `std`: shares run under `catch_unwind`,
//! idle threads spin and then park ([`Parking`]), and fork frames tell a
//! thread whether a busy team may be waiting for it.
//!
//! # A call that finds the team busy
//!
//! - From inside a task of any tine fork (the fork frames say so), it runs
//!   inline at once: this thread may be what the holder waits for.
//! - Otherwise it parks until the holder hands the team back, for at most
//!   the team's busy wait ([`DEFAULT_BUSY_WAIT`], or
//!   [`crate::pool::Builder::busy_wait`]), and then runs inline if the team is
//!   still busy. Such a caller may be a helper thread that a task spawned
//!   and joins, which no frame can reveal; the bound is what keeps it from
//!   waiting forever for the fork that waits for it. Every wait for the lock
//!   in a dispatch is therefore finite, so no cycle of threads can wait on
//!   each other through a team's lock.
//! - `stop` outside the team's fork parks for as long as the fork runs (it
//!   cannot run "inline"); it wakes when the holder hands the team back.
//!
//! `bare_env.rs` has the same items for builds without `std`; `team/mod.rs`
//! picks one of the two, once.

use super::lock::Wait;
use super::nesting::Frame as NestingFrame;
use super::nesting::{frames_contain, in_fork};
use super::panic::{drop_payload, PanicSlot};
use super::Team;
use crate::error::Error;
use crate::sync::{AtomicU32, Generation};
use crate::wait::{Claim, Parking, WaitPolicy, Waiter};
use core::time::Duration;
use std::vec::Vec;

/// How long a call that finds a team busy, outside any task, waits for it
/// (parked) before it runs inline on the calling thread instead. See
/// [`crate::pool::Builder::busy_wait`].
pub const DEFAULT_BUSY_WAIT: Duration = Duration::from_millis(100);

/// The shortest wait of a pool's serving thread for a busy team
/// ([`Env::wait_for_idle_serving`]).
const SERVING_WAIT_MIN: Duration = Duration::from_millis(1);

pub(super) use super::nesting::{leave, Frame, FrameSlot};
use super::panic::Payload;

/// A team's parking state, panic slot and busy-wait bound.
pub(super) struct Env {
    parking: Parking,
    panic: PanicSlot,
    busy_wait: Duration,
}

impl Env {
    pub(super) fn new() -> Self {
        Env {
            parking: Parking::new(),
            panic: PanicSlot::new(),
            busy_wait: DEFAULT_BUSY_WAIT,
        }
    }

    /// A caller's wait for a busy team, outside any task: parks until
    /// `try_take` succeeds or the busy wait runs out (then false: run
    /// inline). With [`Wait::Unbounded`] (`stop`), waits for as long as it
    /// takes.
    pub(super) fn wait_for_idle(
        &self,
        waiter: &Waiter,
        held: &AtomicU32,
        try_take: impl FnMut(Claim) -> bool,
        wait: Wait,
    ) -> bool {
        let limit = match wait {
            Wait::Bounded => Some(self.busy_wait),
            Wait::Unbounded => None,
        };
        self.parking.wait_for_idle(waiter, held, try_take, limit)
    }

    /// A pool's serving thread's wait for a busy team: as a caller's, for
    /// the busy wait, but at least [`SERVING_WAIT_MIN`], so that a pool
    /// built with a tiny busy wait does not make it poll.
    pub(super) fn wait_for_idle_serving(
        &self,
        waiter: &Waiter,
        held: &AtomicU32,
        try_take: impl FnMut(Claim) -> bool,
    ) -> bool {
        let limit = self.busy_wait.max(SERVING_WAIT_MIN);
        self.parking
            .wait_for_idle(waiter, held, try_take, Some(limit))
    }

    /// Whether callers wait for the team to be handed back (the holder
    /// then reserves it for them).
    #[inline]
    pub(super) fn has_busy_waiters(&self) -> bool {
        self.parking.has_busy_waiters()
    }

    /// Right after the holder stored the lock word's idle or reserved
    /// value: wakes the threads parked in [`Env::wait_for_idle`].
    #[inline]
    pub(super) fn handed_back(&self, held: &AtomicU32) {
        self.parking.wake_idle_waiters(held);
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

    /// The caller's wait for `done` to reach `target`.
    #[inline]
    pub(super) fn wait_for_join(&self, waiter: &Waiter, done: &AtomicU32, target: u32, woke: bool) {
        self.parking.wait_for_join(waiter, done, target, woke);
    }

    /// Right after a worker's increment of `done`: the last worker (whose
    /// increment reached the target) wakes the caller if it parked.
    #[inline]
    pub(super) fn counted(&self, done: &AtomicU32, last: bool) {
        if last {
            self.parking.wake_caller(done);
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

    /// Moves this fork's panics into `panics`. Only the holder calls it,
    /// after the join.
    #[inline]
    pub(super) fn take_panics(&self, panics: &mut Panics) {
        let found = self.panic.take(&mut panics.losers);
        panics.keep(found);
    }
}

/// The panics of one fork, spanning every team of a spread fork: the first
/// payload, to resume, and the others, to drop once the teams are handed
/// back (a payload's `Drop` may call the same pool; `panic.rs`).
pub(super) struct Panics {
    first: Option<Payload>,
    losers: Vec<Payload>,
}

impl Panics {
    /// No panics (allocates nothing).
    #[inline]
    pub(super) fn new() -> Self {
        Panics {
            first: None,
            losers: Vec::new(),
        }
    }

    /// Keeps `found` if it is the first payload, else as a loser.
    #[inline]
    fn keep(&mut self, found: Option<Payload>) {
        match (&self.first, found) {
            (None, found) => self.first = found,
            (Some(_), Some(later)) => self.losers.push(later),
            (Some(_), None) => {}
        }
    }

    /// Drops the losers, then resumes the first payload, if any. Call only
    /// once every team of the fork is handed back and the caller's frame is
    /// left, so a loser's `Drop` may call the pool again.
    #[inline]
    pub(super) fn finish(self) {
        if self.first.is_none() && self.losers.capacity() == 0 {
            // The fork path: nothing to drop or resume, and no allocation to
            // free, so skip the `Vec`'s drop glue.
            core::mem::forget(self);
            return;
        }
        self.finish_cold();
    }

    #[cold]
    fn finish_cold(self) {
        for loser in self.losers {
            drop_payload(loser);
        }
        if let Some(first) = self.first {
            std::panic::resume_unwind(first);
        }
    }
}

/// Runs `share(thread_index)` for every index in `0..threads` on the
/// calling thread, in order, as a fork would: a panicking share does not
/// stop the rest, and the first payload resumes once all have run. Marks
/// the thread as inside a task meanwhile, so that calls from these shares
/// that find a team busy run inline at once instead of waiting.
pub(crate) fn run_inline(threads: usize, share: impl Fn(usize)) {
    let frame = NestingFrame::inline(threads);
    let outer = frame.enter();
    let mut panics = Panics::new();
    for thread_index in 0..threads {
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| share(thread_index)));
        panics.keep(ran.err());
    }
    leave(outer);
    panics.finish();
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

/// Whether [`Team::run_worker`] can tell that it was called from inside a
/// task of the team's own fork: always, with `std`.
pub(super) fn worker_inside_own_fork(team: &Team) -> bool {
    frames_contain(team)
}

/// How a team built by [`Team::new`] waits.
pub(super) fn default_waiter(threads: usize) -> Waiter {
    Waiter::new(WaitPolicy::Adaptive, threads)
}

impl Team {
    /// Sets how long a call that finds this team busy waits before it runs
    /// inline (see [`crate::pool::Builder::busy_wait`]). Before the team is shared.
    pub(crate) fn set_busy_wait(&mut self, limit: Duration) {
        self.env.busy_wait = limit;
    }

    /// A team whose idle threads wait by `policy`.
    ///
    /// # Errors
    /// As [`Team::new`].
    pub fn with_policy(threads: usize, policy: WaitPolicy) -> Result<Self, Error> {
        Self::build(threads, super::Slots::Open, Waiter::new(policy, threads))
    }
}
