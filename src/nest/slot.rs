//! A team thread's exchange point: the slot where its owner offers one
//! job to the others, the flag by which they ask it to, and its mail.
//!
//! It exists so that promotion (`worker.rs`) and stealing meet on one
//! cache line per thread with no lock: the owner alone fills the slot,
//! anyone may empty it with one compare-exchange, and the owner takes an
//! unclaimed job back the same way. The invariants are `mod.rs`'s.

use super::job::Header;
use crate::sync::{AtomicBool, AtomicPtr, Ordering};
use crossbeam_utils::CachePadded;

/// One team thread's exchange point.
pub(super) struct Slot {
    /// A promoted job others may take, or null. Written non-null only by
    /// the owner (Release); emptied by a compare-exchange (Acquire).
    pub(super) shared: AtomicPtr<Header>,
    /// Set by a thread that found nothing to do: promote at the next join.
    pub(super) wanted: AtomicBool,
    /// Jobs for the owner alone, newest first, or closed (`broadcast.rs`),
    /// on a line of its own: only posters and the owner touch it.
    pub(super) mail: CachePadded<AtomicPtr<Header>>,
}

impl Slot {
    pub(super) fn new() -> Self {
        Slot {
            shared: AtomicPtr::new(core::ptr::null_mut()),
            wanted: AtomicBool::new(false),
            mail: CachePadded::new(AtomicPtr::new(core::ptr::null_mut())),
        }
    }

    /// Whether the slot is empty (a hint: Relaxed).
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.shared.load(Ordering::Relaxed).is_null()
    }

    /// The owner publishes `job`. Only while the slot is empty.
    #[inline]
    pub(super) fn offer(&self, job: *const Header) {
        // Release: publishes the job's contents; pairs with the Acquire
        // compare-exchange in `claim`.
        self.shared.store(job.cast_mut(), Ordering::Release);
    }

    /// Takes the job in the slot, if any; the winner runs it.
    #[inline]
    pub(super) fn claim(&self) -> Option<*const Header> {
        let job = self.shared.load(Ordering::Relaxed);
        if job.is_null() {
            return None;
        }
        // Acquire: pairs with the Release store in `offer`.
        let (won, lost) = (Ordering::Acquire, Ordering::Relaxed);
        let taken = self
            .shared
            .compare_exchange(job, core::ptr::null_mut(), won, lost);
        taken.ok().map(|job| job.cast_const())
    }

    /// The owner takes `job` back if no one claimed it; false if someone
    /// did (then its latch will be set).
    #[inline]
    pub(super) fn take_back(&self, job: *const Header) -> bool {
        // Relaxed: on success no one else touched the job.
        self.shared
            .compare_exchange(
                job.cast_mut(),
                core::ptr::null_mut(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// Asks the owner to promote, unless already asked (no write then, so
    /// idle threads do not bounce the owner's line).
    #[inline]
    pub(super) fn ask(&self) {
        if !self.wanted.load(Ordering::Relaxed) {
            self.wanted.store(true, Ordering::Relaxed);
        }
    }
}
