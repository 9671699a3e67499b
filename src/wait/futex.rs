//! Parking on Linux: a private futex on the word the waiter watches.
//!
//! `wait` blocks only while the word still holds the value the waiter saw;
//! the kernel checks that under its own lock, so a wake that races with the
//! wait is never lost. No per-team state is needed.

use crate::sync::AtomicU32;

/// Futex-based parking; zero-sized.
#[derive(Debug, Default)]
pub(crate) struct Backend;

impl Backend {
    pub(crate) fn new() -> Self {
        Backend
    }

    /// Blocks while `word == expected`. May return spuriously: callers
    /// re-check.
    pub(crate) fn wait(&self, word: &AtomicU32, expected: u32) {
        // SAFETY: `word` is a live, aligned 32-bit atomic for the whole call;
        // FUTEX_WAIT only reads it. A null timeout means "no timeout".
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                expected,
                core::ptr::null::<libc::timespec>(),
            );
        }
    }

    /// Wakes every thread blocked on `word`.
    pub(crate) fn wake_all(&self, word: &AtomicU32) {
        // SAFETY: FUTEX_WAKE only uses the address as a key; `word` is live.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                i32::MAX,
            );
        }
    }
}
