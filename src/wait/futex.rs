//! Parking on Linux: a private futex on the word the waiter watches, and an
//! asymmetric fence so the hot path needs no fence instruction.
//!
//! `wait` blocks only while the word still holds the value the waiter saw;
//! the kernel checks that under its own lock, so a wake that races with the
//! wait is never lost.
//!
//! # Asymmetric fences
//!
//! The Dekker handshakes in `wait/mod.rs` need a full fence on both sides.
//! In the workers' handshake the waker's side runs on every fork, on the
//! critical path; the parker's side only when a worker is about to sleep. So, where the kernel offers it, the parker issues
//! `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which makes every running
//! thread of the process execute a full memory barrier before it returns,
//! and the waker only needs a compiler fence. Either the waker's load of the
//! announcement comes after the barrier membarrier forced on its CPU, so it
//! sees the announcement stored before the membarrier, or it came before it,
//! and then the waker's earlier event store was drained by that barrier and
//! is visible to the parker's check after membarrier returns. A waker that
//! was not running at the time passed a context switch, itself a full
//! barrier. This is the asymmetric fence of liburcu and folly. If the kernel
//! refuses to register the process for membarrier, both sides use
//! `fence(SeqCst)`.
//!
//! This argument is about the hardware and the kernel, outside the Rust
//! memory model, and loom cannot check it: loom runs the condvar backend,
//! with fences on both sides. The caller's join handshake keeps plain fences:
//! its waker (the last worker) fences after its decrement, off the critical
//! path.

use crate::sync::{fence, AtomicU32, Ordering};
use core::sync::atomic::{compiler_fence, AtomicU8};
use core::time::Duration;

/// Futex parking, with the fence strategy chosen once per process.
#[derive(Debug)]
pub(crate) struct Backend {
    /// Whether membarrier carries the parker's side of the handshakes.
    asymmetric: bool,
}

impl Backend {
    pub(crate) fn new() -> Self {
        Backend {
            asymmetric: membarrier_registered(),
        }
    }

    /// The waker's side of a handshake, between its event store and its load
    /// of the announcement. On the hot path.
    #[inline(always)]
    pub(crate) fn fast_fence(&self) {
        if self.asymmetric {
            // The parker's membarrier supplies the hardware barrier.
            compiler_fence(Ordering::SeqCst);
        } else {
            // SeqCst fence: pairs with the fence in `slow_fence`.
            fence(Ordering::SeqCst);
        }
    }

    /// The parker's side, between its announcement and its check of the
    /// event. Returns false if the barrier could not be had, in which case
    /// the caller must not block.
    pub(crate) fn slow_fence(&self) -> bool {
        // SeqCst fence: pairs with the fence in `fast_fence` (symmetric mode).
        fence(Ordering::SeqCst);
        if !self.asymmetric {
            return true;
        }
        // SAFETY: membarrier takes no pointers; the command is valid once the
        // process has registered for it, which `asymmetric` records.
        unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 }
    }

    /// Blocks while `word == expected`. May return spuriously: callers
    /// re-check.
    pub(crate) fn wait(&self, word: &AtomicU32, expected: u32) {
        // SAFETY: a null timeout means "no timeout".
        unsafe { futex_wait(word, expected, core::ptr::null()) }
    }

    /// Blocks while `word == expected`, for at most `timeout` (no limit if
    /// `None`). May return early or spuriously: callers re-check.
    pub(crate) fn wait_timeout(&self, word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
        let Some(timeout) = timeout else {
            return self.wait(word, expected);
        };
        let relative = libc::timespec {
            tv_sec: libc::time_t::try_from(timeout.as_secs()).unwrap_or(libc::time_t::MAX),
            // Under 10^9, which every `c_long` holds.
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: the relative timeout lives on our stack for the call.
        unsafe { futex_wait(word, expected, &relative) }
    }

    /// Wakes every thread blocked on `word`; returns whether it woke any.
    pub(crate) fn wake_all(&self, word: &AtomicU32) -> bool {
        futex_wake(word, i32::MAX)
    }

    /// Wakes one thread blocked on `word`, if any; returns whether it woke
    /// one.
    pub(crate) fn wake_one(&self, word: &AtomicU32) -> bool {
        futex_wake(word, 1)
    }
}

/// `FUTEX_WAKE` of up to `count` threads blocked on `word`; whether it woke
/// any.
fn futex_wake(word: &AtomicU32, count: i32) -> bool {
    // SAFETY: FUTEX_WAKE only uses the address as a key; `word` is live.
    let woken = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            count,
        )
    };
    woken > 0
}

/// From the Linux UAPI `linux/membarrier.h`.
const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

/// Registers the process for private expedited membarrier, once; returns
/// whether it is registered.
fn membarrier_registered() -> bool {
    // Miri has no `membarrier`: plain fences on both sides instead.
    if cfg!(miri) {
        return false;
    }
    const UNKNOWN: u8 = 0;
    const REGISTERED: u8 = 1;
    const REFUSED: u8 = 2;
    /// Process-wide, outside any model: registration is a property of the
    /// process, and registering twice is harmless.
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
    match STATE.load(Ordering::Relaxed) {
        REGISTERED => true,
        REFUSED => false,
        _ => {
            // SAFETY: membarrier takes no pointers; registering is idempotent.
            let status = unsafe {
                libc::syscall(
                    libc::SYS_membarrier,
                    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                    0,
                    0,
                )
            };
            let registered = status == 0;
            STATE.store(
                if registered { REGISTERED } else { REFUSED },
                Ordering::Relaxed,
            );
            registered
        }
    }
}

/// `FUTEX_WAIT` on `word` while it holds `expected`, for at most the
/// relative `timeout` (none if null). May return early or spuriously.
///
/// # Safety
/// `timeout` is null or points to a `timespec` that lives for the call.
unsafe fn futex_wait(word: &AtomicU32, expected: u32, timeout: *const libc::timespec) {
    // SAFETY: `word` is a live, aligned 32-bit atomic for the whole call,
    // and FUTEX_WAIT only reads it and the timeout, valid by our contract.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            timeout,
        );
    }
}
