//! The panic slot: the panics of one fork, kept until the caller has handed
//! the team back (std only).
//!
//! # Protocol
//!
//! - The first share to panic wins the slot (`taken`) and writes its payload
//!   there; that payload resumes on the caller.
//! - Every later payload (a *loser*) is pushed onto `losers`, not dropped: a
//!   payload's `Drop` is user code and may call the very pool whose fork is
//!   still in flight. The holder takes the winner and the losers after the
//!   join ([`PanicSlot::take`]) and drops the losers only after it has
//!   handed every team back and left its fork frame (`fork.rs`), where a
//!   call from that `Drop` forks like any other call.
//! - Losers are rare (two shares of one fork must panic), so their list may
//!   allocate: the fork path without panics allocates nothing.
//! - Two losers may push at once: a spin lock of the crate's own atomics
//!   (`pushing`) lets one push at a time. Not `std::sync::Mutex`: the
//!   sanitizer CI's std is not instrumented, so ThreadSanitizer cannot see
//!   a std lock's ordering and reported two losers' pushes as a race. The
//!   holder reads the list after the join, when no share pushes any more.

use crate::sync::{AtomicBool, Ordering, UnsafeCell};
use std::any::Any;
use std::boxed::Box;
use std::vec::Vec;

/// A caught panic.
pub(crate) type Payload = Box<dyn Any + Send>;

/// Holds the panics of a fork until the caller resumes the first.
pub(crate) struct PanicSlot {
    taken: AtomicBool,
    payload: UnsafeCell<Option<Payload>>,
    /// Payloads that lost the race, kept for the holder to drop later;
    /// pushed to under `pushing`, read by the holder after the join.
    losers: UnsafeCell<Vec<Payload>>,
    /// Held by the loser pushing onto `losers`.
    pushing: AtomicBool,
}

impl PanicSlot {
    pub(crate) fn new() -> Self {
        PanicSlot {
            taken: AtomicBool::new(false),
            payload: UnsafeCell::new(None),
            losers: UnsafeCell::new(Vec::new()),
            pushing: AtomicBool::new(false),
        }
    }

    /// Keeps `payload` as the fork's first, or among its losers.
    pub(crate) fn offer(&self, payload: Payload) {
        // Relaxed: only the winner writes the slot, and the caller reads it
        // after the join's Acquire, which orders the winner's write first.
        if !self.taken.swap(true, Ordering::Relaxed) {
            // SAFETY: the swap made us the only writer in this fork; the
            // caller reads only after the join.
            self.payload
                .with_mut(|slot| unsafe { *slot = Some(payload) });
        } else {
            // Acquire: pairs with the Release store below of the loser that
            // pushed before us.
            while self.pushing.swap(true, Ordering::Acquire) {
                #[cfg(loom)]
                crate::sync::model_yield();
                #[cfg(not(loom))]
                std::thread::yield_now();
            }
            // SAFETY: `pushing` is ours, so no other loser touches the
            // list, and the holder reads it only after the join.
            self.losers
                .with_mut(|losers| unsafe { (*losers).push(payload) });
            // Release: pairs with the next loser's Acquire swap above (the
            // holder's read is ordered by the join).
            self.pushing.store(false, Ordering::Release);
        }
    }

    /// Takes this fork's first payload, and moves its losers into `losers`.
    /// Only the holder calls it, after the join.
    #[inline]
    pub(crate) fn take(&self, losers: &mut Vec<Payload>) -> Option<Payload> {
        if !self.taken.load(Ordering::Relaxed) {
            return None; // the fork path: no share panicked
        }
        self.take_taken(losers)
    }

    #[cold]
    fn take_taken(&self, losers: &mut Vec<Payload>) -> Option<Payload> {
        self.taken.store(false, Ordering::Relaxed);
        // SAFETY: every share has ended (joined), so no one else touches
        // the list; the join's Acquire orders every loser's push before.
        self.losers
            .with_mut(|kept| unsafe { losers.append(&mut *kept) });
        // SAFETY: every share has ended (joined), so no one else touches it.
        self.payload.with_mut(|slot| unsafe { (*slot).take() })
    }
}

/// Drops a payload that lost the race to be resumed. A payload whose own
/// `Drop` panics is leaked rather than allowed to unwind further.
pub(crate) fn drop_payload(payload: Payload) {
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(payload)));
    if let Err(second) = dropped {
        core::mem::forget(second);
    }
}
