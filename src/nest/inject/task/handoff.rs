//! The hand-off of a task's result to its awaiting handle.
//!
//! It exists so that the end of a task on a pool thread and the poll of
//! its handle on an executor's thread meet without a lost wake-up and
//! without blocking either.
//!
//! The result, the awaiting task's waker and whether the handle was
//! dropped sit behind one spin lock. The end stores the result and takes
//! the waker under it, then wakes; a poll takes the result, or stores its
//! waker, under it: so a waker stored before the end is woken, and a poll
//! after the end finds the result (no lost wake-up; `nest/model.rs` has
//! it as a loom model). A handle dropped first detaches the task: it still
//! runs, and its panic then goes to the pool's panic handler, as a spawned
//! job's does; so does a panic that finished before the handle dropped
//! unawaited.

use crate::sync::{AtomicBool, Ordering};
use crate::wait::SpinLock;
use core::task::{Poll, Waker};

/// A task's result and its awaiter, handed over under one lock (see the
/// module head).
pub(crate) struct Handoff<T> {
    slot: SpinLock<Slot<T>>,
    /// The result was stored: a hint for an awaiter that waits yielding
    /// (the result itself is taken under the lock).
    ended: AtomicBool,
}

struct Slot<T> {
    result: Option<std::thread::Result<T>>,
    waker: Option<Waker>,
    /// The handle was dropped: nobody will take the result.
    detached: bool,
    /// The result was stored (and may have been taken since).
    ended: bool,
    /// The awaiter waits yielding its CPU (`Handoff::wait_yielding`).
    #[cfg_attr(loom, allow(dead_code))] // loom models do not wait yielding
    yielding: bool,
    /// The end counted the awaiter as woken (`wait/woken.rs`): it waited
    /// yielding, or its waker was woken; the awaiter's side ends the count
    /// as it runs again (the end of its yielding wait, its next poll, or
    /// the handle's drop).
    #[cfg_attr(loom, allow(dead_code))]
    counted: bool,
}

impl<T> Handoff<T> {
    pub(crate) fn new() -> Self {
        Handoff {
            slot: SpinLock::new(Slot {
                result: None,
                waker: None,
                detached: false,
                ended: false,
                yielding: false,
                counted: false,
            }),
            ended: AtomicBool::new(false),
        }
    }

    /// The task's end: stores `result` for the awaiter and wakes it; if the
    /// handle is gone, returns the result instead (a panic is then the
    /// pool's panic handler's).
    pub(crate) fn end(&self, result: std::thread::Result<T>) -> Option<std::thread::Result<T>> {
        let (waker, unclaimed) = self.slot.with(|slot| {
            slot.ended = true;
            // Relaxed: a hint; the result is taken under the lock.
            self.ended.store(true, Ordering::Relaxed);
            if slot.detached {
                return (None, Some(result));
            }
            slot.result = Some(result);
            let waker = slot.waker.take();
            #[cfg(not(loom))]
            if slot.yielding || waker.is_some() {
                // The awaiter needs a CPU, which may be a spinner's: the
                // pool's spinners give way until it runs.
                slot.counted = true;
                crate::wait::woken::Woken::count();
            }
            (waker, None)
        });
        if let Some(waker) = waker {
            waker.wake();
        }
        unclaimed
    }

    /// The awaiter's poll: the result if the task has ended, else `Pending`
    /// with `waker` kept for the end.
    pub(crate) fn poll(&self, waker: &Waker) -> Poll<std::thread::Result<T>> {
        let (poll, counted) = self.slot.with(|slot| {
            if let Some(result) = slot.result.take() {
                return (Poll::Ready(result), core::mem::take(&mut slot.counted));
            }
            assert!(
                !slot.ended,
                "a tine::Task polled after it returned its result"
            );
            match &slot.waker {
                Some(kept) if kept.will_wake(waker) => {}
                _ => slot.waker = Some(waker.clone()),
            }
            (Poll::Pending, false)
        });
        Self::end_count(counted);
        poll
    }

    /// Ends the awaiter's count as woken, if the end counted it.
    fn end_count(counted: bool) {
        #[cfg(not(loom))]
        if counted {
            crate::wait::woken::Woken::end();
        }
        #[cfg(loom)]
        let _ = counted;
    }

    /// The awaiter's wait for a task it expects to end soon: yields its CPU
    /// (to the pool's thread on it, most likely) until the task has ended
    /// or `wait` has passed; then the awaiter polls as usual.
    #[cfg(not(loom))]
    pub(crate) fn wait_yielding(&self, wait: core::time::Duration) {
        self.slot.with(|slot| slot.yielding = true);
        let start = std::time::Instant::now();
        // Relaxed: a hint (see the field).
        while !self.ended.load(Ordering::Relaxed) && start.elapsed() < wait {
            std::thread::yield_now();
        }
        let counted = self.slot.with(|slot| {
            slot.yielding = false;
            core::mem::take(&mut slot.counted)
        });
        Self::end_count(counted);
    }

    /// The handle lets go: from now on the end keeps nothing for it. A
    /// result already stored and not taken is returned.
    pub(crate) fn detach(&self) -> Option<std::thread::Result<T>> {
        let (result, counted) = self.slot.with(|slot| {
            slot.detached = true;
            slot.waker = None;
            (slot.result.take(), core::mem::take(&mut slot.counted))
        });
        Self::end_count(counted);
        result
    }
}
