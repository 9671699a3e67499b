//! [`Partials`]: per-thread slots for the partial results of a reduction,
//! owned by a pool so that a parallel-iterator call allocates nothing.
//!
//! # Protocol
//!
//! - A call leases the whole set with one swap of `leased` (Acquire); the
//!   lease's drop stores `false` (Release). So one call at a time uses the
//!   slots, and everything the previous call did with them happens before
//!   the next call's lease. A call that finds them leased (a concurrent
//!   caller on another thread) uses slots of its own instead.
//! - During a fork, thread `t` is the only one to touch slot `t` (the
//!   `ForkJoin` contract runs each thread index once). The caller reads the
//!   slots after the fork has joined, and the join's Acquire orders every
//!   thread's write before that read.
//! - A slot holds any value up to [`SLOT_BYTES`] bytes with an alignment up
//!   to 128; [`Lease::slot`] refuses larger types, whose calls then use
//!   slots of their own.

use crate::sync::{AtomicBool, Ordering};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use crossbeam_utils::CachePadded;
use std::boxed::Box;

/// The bytes one slot holds: two cache lines.
pub(crate) const SLOT_BYTES: usize = 256;

/// The storage of one slot, aligned for any partial up to 128.
#[repr(C, align(128))]
struct Slot(UnsafeCell<MaybeUninit<[u8; SLOT_BYTES]>>);

/// Per-thread slots for reductions' partial results (one per thread of the
/// pool, each on cache lines of its own), leased by one call at a time.
/// Pools that own one return it from [`crate::schedule::ForkJoin::partials`].
pub struct Partials {
    slots: Box<[Slot]>,
    leased: CachePadded<AtomicBool>,
}

// SAFETY: a slot is written only by the thread with its index during a
// fork of the call that holds the lease, and read by that call's caller
// after the join (see the protocol above); the lease itself is atomic.
unsafe impl Sync for Partials {}
// SAFETY: the slots hold no values between calls (each call moves its
// partials out before it drops its lease).
unsafe impl Send for Partials {}

impl core::fmt::Debug for Partials {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Partials")
            .field("slots", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl Partials {
    /// Slots for a pool of `threads` threads.
    pub fn new(threads: usize) -> Self {
        let slots = (0..threads)
            .map(|_| Slot(UnsafeCell::new(MaybeUninit::uninit())))
            .collect();
        Partials {
            slots,
            leased: CachePadded::new(AtomicBool::new(false)),
        }
    }

    /// The number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Leases every slot to one call, or `None` if another call holds them.
    pub(crate) fn lease(&self) -> Option<Lease<'_>> {
        // Acquire: pairs with the Release store in `Lease::drop`, so the
        // previous call's use of the slots happens before ours.
        if self.leased.swap(true, Ordering::Acquire) {
            // Held by another call. (No `Lease` may be made here: its drop
            // would hand back the other call's lease.)
            return None;
        }
        Some(Lease { partials: self })
    }
}

/// One call's hold on a pool's [`Partials`].
pub(crate) struct Lease<'a> {
    partials: &'a Partials,
}

impl Lease<'_> {
    /// Slot `index` viewed as storage for one `R`, or `None` if `R` does not
    /// fit a slot or there is no such slot.
    pub(crate) fn slot<R>(&self, index: usize) -> Option<*mut R> {
        let fits = core::mem::size_of::<R>() <= SLOT_BYTES && core::mem::align_of::<R>() <= 128;
        let slot = self.partials.slots.get(index)?;
        fits.then(|| slot.0.get().cast::<R>())
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        // Release: pairs with the Acquire swap in `Partials::lease`.
        self.partials.leased.store(false, Ordering::Release);
    }
}
