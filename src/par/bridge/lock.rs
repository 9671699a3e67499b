//! [`SourceLock`]: the bridge's source behind a lock that spins, then
//! yields, and never parks.
//!
//! # Why not `std::sync::Mutex`
//!
//! A bridge's threads hold the lock for one batch of pulls (about a
//! microsecond for cheap items) and want it again right after. std's mutex
//! parks a waiter after a short spin, and every unlock then pays a
//! `futex` wake and the waiter a reschedule, which costs more than the
//! batch: measured here, it made the bridge slower than rayon's lock per
//! item. A waiter here spins with the CPU's pause hint and, past
//! [`SPINS`], yields its core to the scheduler between checks, so an
//! oversubscribed holder still runs.
//!
//! # Invariants
//!
//! - `locked` is true exactly while a [`SourceGuard`] exists; only its
//!   holder touches the source.
//! - Taking the lock is an Acquire swap and releasing it a Release store,
//!   so each holder sees the source as the last one left it.

use crate::sync::{AtomicBool, Ordering};
use core::cell::UnsafeCell;

/// Spins before a waiter starts yielding.
pub const SPINS: u32 = 256;

/// A serial source that one thread at a time may pull from.
pub(super) struct SourceLock<I> {
    locked: AtomicBool,
    source: UnsafeCell<I>,
}

// SAFETY: the lock hands the source to one thread at a time (the
// invariants), which `I: Send` allows.
unsafe impl<I: Send> Sync for SourceLock<I> {}

impl<I> SourceLock<I> {
    pub(super) fn new(source: I) -> Self {
        SourceLock {
            locked: AtomicBool::new(false),
            source: UnsafeCell::new(source),
        }
    }

    /// Takes the lock, spinning and then yielding while another thread
    /// holds it.
    pub(super) fn lock(&self) -> SourceGuard<'_, I> {
        let mut spins = 0u32;
        // Acquire: pairs with the Release store in `SourceGuard::drop`, so
        // the last holder's pulls happen before this holder's.
        while self.locked.swap(true, Ordering::Acquire) {
            // Relaxed: only waits for a release; the swap above orders.
            while self.locked.load(Ordering::Relaxed) {
                if spins < SPINS {
                    spins += 1;
                    core::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        SourceGuard { lock: self }
    }
}

/// A new, free lock around a clone of the source, taken under this lock,
/// so that no pull runs meanwhile (a panicking `I::clone` releases it).
impl<I: Clone> Clone for SourceLock<I> {
    fn clone(&self) -> Self {
        SourceLock::new(self.lock().clone())
    }
}

/// The held lock: the source, until it drops.
pub(super) struct SourceGuard<'a, I> {
    lock: &'a SourceLock<I>,
}

impl<I> core::ops::Deref for SourceGuard<'_, I> {
    type Target = I;

    fn deref(&self) -> &I {
        // SAFETY: the guard holds the lock, so no other thread touches the
        // source until it drops.
        unsafe { &*self.lock.source.get() }
    }
}

impl<I> core::ops::DerefMut for SourceGuard<'_, I> {
    fn deref_mut(&mut self) -> &mut I {
        // SAFETY: as in `deref`, and `&mut self` makes this the only
        // reference through the guard.
        unsafe { &mut *self.lock.source.get() }
    }
}

impl<I> Drop for SourceGuard<'_, I> {
    fn drop(&mut self) {
        // Release: pairs with the Acquire swap in `SourceLock::lock`.
        self.lock.locked.store(false, Ordering::Release);
    }
}
