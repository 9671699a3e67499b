//! Parking where there is no futex (and under loom, where it mocks one): a
//! mutex and condition variable per team.
//!
//! `wait` checks the word under the mutex and `wake_all` takes the mutex to
//! notify, so a wake that races with a wait is never lost: either the waiter
//! checked before the waker locked, and is then inside `Condvar::wait` when
//! the notification comes, or it checks after and sees the new value. Both
//! words of a team share the pair; a waiter woken for the other word simply
//! re-checks its own and waits again.

use crate::sync::{fence, AtomicU32, Condvar, Mutex, Ordering};
use core::time::Duration;

/// Mutex and condvar parking.
#[derive(Debug)]
pub(crate) struct Backend {
    lock: Mutex<()>,
    condvar: Condvar,
}

impl Backend {
    pub(crate) fn new() -> Self {
        Backend {
            lock: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }

    /// The waker's side of a handshake (see `futex.rs`): here a plain fence.
    #[inline(always)]
    pub(crate) fn fast_fence(&self) {
        // SeqCst fence: pairs with the fence in `slow_fence`.
        fence(Ordering::SeqCst);
    }

    /// The parker's side of a handshake; always available here.
    pub(crate) fn slow_fence(&self) -> bool {
        // SeqCst fence: pairs with the fence in `fast_fence`.
        fence(Ordering::SeqCst);
        true
    }

    /// Blocks while `word == expected`. May return spuriously: callers
    /// re-check.
    pub(crate) fn wait(&self, word: &AtomicU32, expected: u32) {
        let mut guard = self
            .lock
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        while word.load(Ordering::Relaxed) == expected {
            guard = self
                .condvar
                .wait(guard)
                .unwrap_or_else(|poison| poison.into_inner());
        }
    }

    /// Blocks while `word == expected`, for at most `timeout` (no limit if
    /// `None`, and none under loom, which models no time). May return early
    /// or spuriously: callers re-check.
    pub(crate) fn wait_timeout(&self, word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
        #[cfg(not(loom))]
        if let Some(timeout) = timeout {
            let guard = self
                .lock
                .lock()
                .unwrap_or_else(|poison| poison.into_inner());
            if word.load(Ordering::Relaxed) == expected {
                let _ = self.condvar.wait_timeout(guard, timeout);
            }
            return;
        }
        let _ = timeout;
        self.wait(word, expected);
    }

    /// Wakes every thread blocked in `wait`; returns true (it cannot tell
    /// whether anyone was blocked).
    pub(crate) fn wake_all(&self, word: &AtomicU32) -> bool {
        let _ = word;
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        self.condvar.notify_all();
        true
    }

    /// Wakes one thread blocked in `wait`, if any; returns true (it cannot
    /// tell whether anyone was blocked).
    pub(crate) fn wake_one(&self, word: &AtomicU32) -> bool {
        let _ = word;
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        self.condvar.notify_one();
        true
    }
}
