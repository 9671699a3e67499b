//! [`CallerOnly`]: a value that a fork's shares can name but only the
//! calling thread can touch, so that a non-`Send` writer can stay on it.

use core::cell::RefCell;
use std::thread::{self, ThreadId};

/// Holds a value owned by the thread that created it. Any thread may hold a
/// `&CallerOnly`, but [`CallerOnly::with`] runs only on the owner; elsewhere
/// it returns `None` without touching the value.
pub(crate) struct CallerOnly<T> {
    owner: ThreadId,
    value: RefCell<T>,
}

// SAFETY: a shared reference lets other threads call `with` only, which
// compares the current thread with `owner` before touching `value` (its data
// or its borrow flag). So the `RefCell` is only ever used on the owner
// thread, as if it had never been shared: neither `T: Send` nor `T: Sync`
// is needed. The value is dropped wherever the `CallerOnly` itself is
// dropped, which the ordinary auto-`Send` rules govern.
unsafe impl<T> Sync for CallerOnly<T> {}

impl<T> CallerOnly<T> {
    /// Wraps `value`, owned by the current thread.
    pub(crate) fn new(value: T) -> Self {
        Self {
            owner: thread::current().id(),
            value: RefCell::new(value),
        }
    }

    /// Whether the current thread is the owner.
    pub(crate) fn is_owner(&self) -> bool {
        thread::current().id() == self.owner
    }

    /// Runs `f` on the value if the current thread owns it and is not
    /// already inside `with`.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        if !self.is_owner() {
            return None;
        }
        let mut value = self.value.try_borrow_mut().ok()?;
        Some(f(&mut value))
    }
}
