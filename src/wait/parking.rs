//! The parking handshakes of a team, on top of an OS [`Backend`]: workers
//! parking until the next generation, the caller parking until the join,
//! and a thread that found the team busy (a second caller, or `stop`)
//! parking until the holder hands it back. The no-lost-wakeup argument is at
//! the top of `wait/mod.rs`; the third handshake follows the same table,
//! with the hand-back's store (of [`LOCK_IDLE`] or [`LOCK_RESERVED`]) as
//! the event and `busy_waiters` as the announcement.
//!
//! # Turns
//!
//! A holder that hands the team back while callers are parked waiting for
//! it stores [`LOCK_RESERVED`], not [`LOCK_IDLE`]: the team is idle, but
//! only for a caller that has parked at least once. A caller that has not
//! (the previous holder, calling again at once, is the usual one) takes
//! only an idle team; it spins, then parks like the others, and its next
//! hand-back wakes it. So a caller that forks back to back cannot keep the
//! team from the callers parked for it. A caller that finds the team
//! reserved before it has parked sleeps at most [`RESERVED_NAP`] on it, then
//! may take it: a reservation whose waiters all left (their wait ran out)
//! holds no one up for longer. A caller that finds others already waiting
//! skips the spin and parks at once: it is not next.

use super::backend::Backend;
#[cfg(not(loom))]
use super::RESERVED_NAP;
use super::{Claim, Waiter, LOCK_HELD, LOCK_IDLE, LOCK_RESERVED};
use crate::sync::{fence, AtomicBool, AtomicU32, Ordering};
use core::time::Duration;
use crossbeam_utils::CachePadded;
use std::time::Instant;

/// Who has announced that they are parked. Read on every fork by the caller
/// and the last worker; written only on the parking paths.
#[derive(Debug)]
struct Announcements {
    /// Workers parked, or about to park, on the generation word.
    sleepers: AtomicU32,
    /// Whether the caller is parked, or about to park, on the `done` count.
    caller_parked: AtomicBool,
    /// Threads parked, or about to park, on the lock word until the team is
    /// handed back ([`Parking::wait_for_idle`]).
    busy_waiters: AtomicU32,
}

/// A team's parking state.
#[derive(Debug)]
pub(crate) struct Parking {
    announced: CachePadded<Announcements>,
    backend: Backend,
}

impl Parking {
    pub(crate) fn new() -> Self {
        Parking {
            announced: CachePadded::new(Announcements {
                sleepers: AtomicU32::new(0),
                caller_parked: AtomicBool::new(false),
                busy_waiters: AtomicU32::new(0),
            }),
            backend: Backend::new(),
        }
    }

    /// A worker's wait for the generation to move past `seen`; returns the new
    /// generation. Spins for the budget, then parks. A pending
    /// [`crate::team::Team::sleep`] request (`sleep_generation == seen`) skips
    /// the spinning.
    pub(crate) fn wait_for_fork(
        &self,
        waiter: &Waiter,
        generation: &AtomicU32,
        sleep_generation: &AtomicU32,
        seen: u32,
    ) -> u32 {
        // Acquire: pairs with the Release store in `Team::publish`, so the
        // job slot written before it is ours.
        let moved = || generation.load(Ordering::Acquire) != seen;
        let wake = || moved() || sleep_generation.load(Ordering::Relaxed) == seen;
        let mut spin = true;
        loop {
            // After a park that returned without a fork (a spurious or stale
            // wake-up), go straight back to parking instead of spinning the
            // whole budget again.
            let ready = if spin { waiter.spin(wake) } else { wake() };
            if moved() {
                // Acquire: as above.
                return generation.load(Ordering::Acquire);
            }
            if !ready && !waiter.parks() {
                // Never parks (WaitPolicy::AlwaysSpin): keep polling, giving
                // the core away between polls, until a fork or a sleep request.
                waiter.spin_until(wake);
                continue;
            }
            self.announced.sleepers.fetch_add(1, Ordering::Relaxed);
            // Dekker: pairs with the fast fence in `wake_workers`.
            let fenced = self.backend.slow_fence();
            if fenced && generation.load(Ordering::Relaxed) == seen {
                self.backend.wait(generation, seen);
            }
            self.announced.sleepers.fetch_sub(1, Ordering::Relaxed);
            if !fenced {
                // Cannot park safely: wait for the fork without parking (and
                // without the sleep request, which would make this a busy
                // loop through the failing barrier).
                waiter.spin_until(moved);
            }
            spin = false;
        }
    }

    /// Called right after a new generation is stored: wakes parked workers.
    /// Makes no syscall unless one has announced itself; returns whether it
    /// woke anyone.
    #[inline]
    pub(crate) fn wake_workers(&self, generation: &AtomicU32) -> bool {
        // Dekker: pairs with the slow fence in `wait_for_fork`.
        self.backend.fast_fence();
        self.announced.sleepers.load(Ordering::Relaxed) != 0 && self.backend.wake_all(generation)
    }

    /// The caller's wait for `done` to reach `target` (every worker done).
    ///
    /// `woke_workers`: this fork had to wake parked workers. They need a CPU,
    /// and the one the caller frees by parking at once is the fastest to get:
    /// an idle CPU may sit in a deep sleep state (or, in a virtual machine, a
    /// halted vCPU the host has descheduled), whose wake-up takes far longer
    /// than the caller's own CPU changing threads. So such a join skips the
    /// spin.
    pub(crate) fn wait_for_join(
        &self,
        waiter: &Waiter,
        count: &AtomicU32,
        target: u32,
        woke_workers: bool,
    ) {
        // Acquire: pairs with each worker's Release increment in
        // `Finished::drop` (one release sequence), so their writes are ours.
        let mut done = || count.load(Ordering::Acquire) == target;
        loop {
            let joined = if woke_workers && waiter.parks() {
                done()
            } else {
                waiter.spin(&mut done)
            };
            if joined {
                return;
            }
            if !waiter.parks() {
                return waiter.spin_until(&mut done);
            }
            self.announced.caller_parked.store(true, Ordering::Relaxed);
            // SeqCst fence: pairs with the fence in `wake_caller` (Dekker). A
            // plain fence on both sides here: the last worker's fence is off
            // the critical path, and a membarrier would interrupt the very
            // workers the caller waits for.
            fence(Ordering::SeqCst);
            let seen = count.load(Ordering::Relaxed);
            if seen != target {
                self.backend.wait(count, seen);
            }
            self.announced.caller_parked.store(false, Ordering::Relaxed);
        }
    }

    /// Called by the last worker right after its increment: wakes the
    /// caller if it parked. The count lives in the team, which outlives every
    /// worker, so this touches nothing the caller may have freed.
    #[inline]
    pub(crate) fn wake_caller(&self, count: &AtomicU32) {
        // SeqCst fence: pairs with the fence in `wait_for_join` (Dekker).
        fence(Ordering::SeqCst);
        if self.announced.caller_parked.load(Ordering::Relaxed) {
            self.backend.wake_all(count);
        }
    }

    /// Waits until `try_take` succeeds, parking on `held` (the team's
    /// lock word) while the team is busy. `try_take(claim)` takes an idle
    /// team, and with [`Claim::IdleOrReserved`] (once this caller has
    /// parked) a reserved one too: see "Turns" above. Returns false if
    /// `limit` passed first (never under loom, whose models check the
    /// wake-up itself).
    /// Spins for the waiter's budget first, then parks whatever the policy:
    /// a busy team may stay busy for a long fork.
    pub(crate) fn wait_for_idle(
        &self,
        waiter: &Waiter,
        held: &AtomicU32,
        mut try_take: impl FnMut(Claim) -> bool,
        limit: Option<Duration>,
    ) -> bool {
        // A caller that finds others already waiting is not next: it parks
        // at once rather than spin beside them (on a machine with fewer
        // CPUs than callers, spinners would take the CPUs from the fork
        // they wait for).
        let queued = self.has_busy_waiters();
        if !queued
            && waiter.spin(|| held.load(Ordering::Relaxed) == LOCK_IDLE && try_take(Claim::Idle))
        {
            return true;
        }
        #[cfg(not(loom))]
        let deadline = limit.and_then(|limit| Instant::now().checked_add(limit));
        #[cfg(loom)]
        let deadline: Option<Instant> = {
            let _ = limit;
            None
        };
        // Under loom, whose time does not pass, a reserved team is anyone's
        // (no nap ends): its models check the hand-back, not the turns.
        let mut claim = if cfg!(loom) {
            Claim::IdleOrReserved
        } else {
            Claim::Idle
        };
        loop {
            if try_take(claim) {
                return true;
            }
            let remaining = match deadline {
                None => None,
                Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => return false,
                },
            };
            self.announced.busy_waiters.fetch_add(1, Ordering::Relaxed);
            // Dekker: pairs with the fast fence in `wake_idle_waiters`.
            let fenced = self.backend.slow_fence();
            let seen = held.load(Ordering::Relaxed);
            if fenced && seen == LOCK_HELD {
                self.backend.wait_timeout(held, seen, remaining);
                claim = Claim::IdleOrReserved;
            } else if fenced && seen == LOCK_RESERVED && claim == Claim::Idle {
                // Not ours yet: the parked callers' turn. No hand-back
                // comes to wake this nap, so it is short.
                #[cfg(not(loom))]
                let nap = Some(remaining.map_or(RESERVED_NAP, |left| left.min(RESERVED_NAP)));
                #[cfg(loom)]
                let nap = remaining;
                self.backend.wait_timeout(held, seen, nap);
                claim = Claim::IdleOrReserved;
            }
            self.announced.busy_waiters.fetch_sub(1, Ordering::Relaxed);
            if !fenced {
                // Cannot park safely: give the core away between polls.
                super::give_way(waiter);
                claim = Claim::IdleOrReserved;
            }
        }
    }

    /// Whether a caller has announced that it waits, or is about to wait,
    /// for the team to be handed back: the holder then reserves the team
    /// for them (see "Turns" above). A hint: read before the hand-back's
    /// store, it only chooses the value stored.
    #[inline]
    pub(crate) fn has_busy_waiters(&self) -> bool {
        // Relaxed: a hint; the wake-up's own check follows the fence in
        // `wake_idle_waiters`.
        self.announced.busy_waiters.load(Ordering::Relaxed) != 0
    }

    /// Called by the holder right after it stored [`LOCK_IDLE`] or
    /// [`LOCK_RESERVED`] in `held` (handed
    /// the team back): wakes the threads parked in
    /// [`Parking::wait_for_idle`]. Makes no syscall unless one announced
    /// itself.
    #[inline]
    pub(crate) fn wake_idle_waiters(&self, held: &AtomicU32) {
        // Dekker: pairs with the slow fence in `wait_for_idle`.
        self.backend.fast_fence();
        if self.announced.busy_waiters.load(Ordering::Relaxed) != 0 {
            self.backend.wake_all(held);
        }
    }
}
