//! A doorbell: threads that found nothing to do park on it until someone
//! rings (a nested-parallelism job was published, or the region ended).
//!
//! The same Dekker handshake as the team's parking (`wait/mod.rs`, "No lost
//! wakeup"): the event is whatever `ready` checks (a published job, the end
//! flag), the announcement is `sleepers`, and the word the parker blocks on
//! is `epoch`, which the ringer bumps before waking so that a parker that
//! read the old epoch returns from its futex wait at once.

use super::backend::Backend;
use super::gaps::at_gaps;
use super::Waiter;
use crate::sync::{AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

/// Parked threads and the word they park on, on one cache line, read by a
/// ringer only through `sleepers`.
#[derive(Debug)]
struct Bell {
    /// Threads parked, or about to park, on `epoch`.
    sleepers: AtomicU32,
    /// Bumped by every ring that finds a sleeper.
    epoch: AtomicU32,
}

/// Where idle threads park until [`Doorbell::ring`].
#[derive(Debug)]
pub(crate) struct Doorbell {
    bell: CachePadded<Bell>,
    backend: Backend,
}

impl Doorbell {
    pub(crate) fn new() -> Self {
        Doorbell {
            bell: CachePadded::new(Bell {
                sleepers: AtomicU32::new(0),
                epoch: AtomicU32::new(0),
            }),
            backend: Backend::new(),
        }
    }

    /// Call right after storing the event: wakes the parked threads, if
    /// any announced themselves. Makes no syscall otherwise.
    #[inline]
    pub(crate) fn ring(&self) {
        // Dekker: pairs with the slow fence in `wait`.
        self.backend.fast_fence();
        if self.bell.sleepers.load(Ordering::Relaxed) != 0 {
            self.wake();
        }
    }

    /// [`Doorbell::ring`] that wakes one parked thread, not all: for an
    /// event any one of them can take on (a job queued for whichever thread
    /// comes), where waking all would cost every sleeper a wake-up for one
    /// job. A thread that announced itself but has not parked yet sees the
    /// event in its last check, as for `ring`.
    /// Returns whether a thread was parked, or about to park (then one was
    /// woken, or will see the event).
    #[inline]
    pub(crate) fn ring_one(&self) -> bool {
        // Dekker: pairs with the slow fence in `wait`.
        self.backend.fast_fence();
        if self.bell.sleepers.load(Ordering::Relaxed) != 0 {
            self.wake_one();
            return true;
        }
        false
    }

    #[cold]
    fn wake(&self) {
        // Release: pairs with the Acquire load in `wait`, so a parker that
        // reads the new epoch also sees the event stored before this ring.
        self.bell.epoch.fetch_add(1, Ordering::Release);
        self.backend.wake_all(&self.bell.epoch);
    }

    #[cold]
    fn wake_one(&self) {
        // Release: as in `wake`.
        self.bell.epoch.fetch_add(1, Ordering::Release);
        self.backend.wake_one(&self.bell.epoch);
    }

    /// Spins by `waiter` until `ready`, then parks once until a ring (or a
    /// spurious wake-up). Returns whether `ready` held; callers loop.
    ///
    /// `announced` runs once this thread is announced and fenced, right
    /// before its last check: a request made there (a store after the
    /// fence) is seen only by a thread that will also see the announcement,
    /// so whoever answers it by ringing wakes this thread.
    pub(crate) fn wait(
        &self,
        waiter: &Waiter,
        ready: impl FnMut() -> bool,
        announced: impl FnOnce(),
    ) -> bool {
        self.wait_looking_every(waiter, 1, 1, ready, announced)
    }

    /// As [`Doorbell::wait`], but while it spins, `ready` is asked at gaps
    /// that double from `first` micro-yields up to `every` ([`at_gaps`]):
    /// for a `ready` that reads lines other threads write often, and that
    /// most often turns true soon or not for long. The looks before it
    /// parks, or gives way, are never skipped.
    pub(crate) fn wait_looking_every(
        &self,
        waiter: &Waiter,
        first: u32,
        every: u32,
        mut ready: impl FnMut() -> bool,
        announced: impl FnOnce(),
    ) -> bool {
        let looked = waiter.spin(at_gaps(first, every, &mut ready));
        if looked {
            return true;
        }
        if !waiter.parks() {
            super::give_way(waiter);
            return ready();
        }
        self.bell.sleepers.fetch_add(1, Ordering::Relaxed);
        // Dekker: pairs with the fast fence in `ring`.
        let fenced = self.backend.slow_fence();
        announced();
        // Acquire: pairs with the Release bump in `wake`.
        let epoch = self.bell.epoch.load(Ordering::Acquire);
        let ready_now = ready();
        if fenced && !ready_now {
            self.backend.wait(&self.bell.epoch, epoch);
        }
        self.bell.sleepers.fetch_sub(1, Ordering::Relaxed);
        if !fenced && !ready_now {
            super::give_way(waiter);
        }
        ready_now
    }
}
