//! [`SpinLock`]: a value that one thread at a time may touch, for short,
//! rare sections (a panic payload pushed onto a list, a state cloned once
//! per block).
//!
//! It exists instead of `std::sync::Mutex` because the sanitizer CI's std
//! is not instrumented: ThreadSanitizer cannot see a std lock's ordering,
//! and reports the sections it orders as races. This one is the crate's
//! own atomics, which it sees (and loom models).
//!
//! # Protocol
//!
//! `locked` is false when free. A thread takes the lock by swapping in
//! true (Acquire), yielding its CPU between tries, and releases it by
//! storing false (Release), so each section happens before the next one's.

use crate::sync::{AtomicBool, Ordering, UnsafeCell};

/// A value behind a spin lock that yields between tries.
pub(crate) struct SpinLock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
    /// Under loom, the lock is loom's mutex: a spin loop under contention
    /// makes loom explore unbounded spinning (its branch limit), and the
    /// swap/store pair above is the mutex's own protocol.
    #[cfg(loom)]
    model: crate::sync::Mutex<()>,
}

// SAFETY: the lock gives one thread at a time access to the value, so
// sharing the lock moves the value's use between threads, as a `Mutex`
// does: `T: Send` is enough.
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T> SpinLock<T> {
    /// A free lock around `value`.
    pub(crate) fn new(value: T) -> Self {
        SpinLock {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
            #[cfg(loom)]
            model: crate::sync::Mutex::new(()),
        }
    }

    /// Runs `f` on the value, holding the lock; releases it on every way
    /// out, unwinding included.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        /// Releases the lock when dropped.
        struct Release<'a>(&'a AtomicBool);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                // Release: pairs with the next holder's Acquire swap.
                self.0.store(false, Ordering::Release);
            }
        }
        #[cfg(loom)]
        let _model = self
            .model
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Acquire: pairs with the Release store of the previous holder.
        while self.locked.swap(true, Ordering::Acquire) {
            std::thread::yield_now();
        }
        let _release = Release(&self.locked);
        // SAFETY: the lock is ours until `_release` drops, so no other
        // thread touches the value meanwhile.
        self.value.with_mut(|value| f(unsafe { &mut *value }))
    }
}
