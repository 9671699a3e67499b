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
//! - Two losers may push at once: the list is behind a [`SpinLock`] (the
//!   crate's own atomics, which ThreadSanitizer sees, unlike the sanitizer
//!   CI's uninstrumented std locks). The holder takes the list after the
//!   join, when no share pushes any more.

use crate::sync::{AtomicBool, Ordering, UnsafeCell};
use crate::wait::SpinLock;
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
    /// read by the holder after the join.
    losers: SpinLock<Vec<Payload>>,
}

impl PanicSlot {
    pub(crate) fn new() -> Self {
        PanicSlot {
            taken: AtomicBool::new(false),
            payload: UnsafeCell::new(None),
            losers: SpinLock::new(Vec::new()),
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
            // One loser at a time; the holder's read is ordered after every
            // push by the join.
            self.losers.with(|losers| losers.push(payload));
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
        // Every share has ended (joined), so the lock is free; the join's
        // Acquire orders every loser's push before.
        self.losers.with(|kept| losers.append(kept));
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
