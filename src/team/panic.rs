//! The panic slot: the first panic payload of a fork, kept until the caller
//! resumes it (std only).

use crate::sync::{AtomicBool, Ordering, UnsafeCell};
use std::any::Any;
use std::boxed::Box;

/// A caught panic.
pub(crate) type Payload = Box<dyn Any + Send>;

/// Holds the first panic payload of a fork until the caller resumes it.
pub(crate) struct PanicSlot {
    taken: AtomicBool,
    payload: UnsafeCell<Option<Payload>>,
}

impl PanicSlot {
    pub(crate) fn new() -> Self {
        PanicSlot {
            taken: AtomicBool::new(false),
            payload: UnsafeCell::new(None),
        }
    }

    /// Keeps `payload` if it is the fork's first, else drops it here.
    pub(crate) fn offer(&self, payload: Payload) {
        // Relaxed: only the winner writes the slot, and the caller reads it
        // after the join's Acquire, which orders the winner's write first.
        if !self.taken.swap(true, Ordering::Relaxed) {
            // SAFETY: the swap made us the only writer in this fork; the
            // caller reads only after the join.
            self.payload
                .with_mut(|slot| unsafe { *slot = Some(payload) });
        } else {
            drop_payload(payload);
        }
    }

    /// Takes this fork's payload. Only the holder calls it, after the join.
    pub(crate) fn take(&self) -> Option<Payload> {
        if !self.taken.load(Ordering::Relaxed) {
            return None;
        }
        self.taken.store(false, Ordering::Relaxed);
        // SAFETY: every share has ended (joined), so no one else touches it.
        self.payload.with_mut(|slot| unsafe { (*slot).take() })
    }
}

/// Drops a payload that lost the race to be resumed. A payload whose own
/// `Drop` panics is leaked rather than allowed to unwind out of a worker.
pub(crate) fn drop_payload(payload: Payload) {
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(payload)));
    if let Err(second) = dropped {
        core::mem::forget(second);
    }
}
