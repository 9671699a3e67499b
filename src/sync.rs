//! The one place that imports atomics, fences, `UnsafeCell` and spin hints.
//!
//! Every other module takes its synchronization primitives from here, so that
//! under `cfg(loom)` the whole crate runs on loom's model-checked versions and
//! nothing slips past the checker. The shim also narrows the fork generation to
//! a `u8` under loom, so a model can reach the counter's wraparound in a few
//! forks instead of 2^64 of them.

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The fork generation counter. Narrow under loom so models can wrap it.
#[cfg(not(loom))]
pub(crate) type Generation = usize;
/// The atomic that holds a [`Generation`].
#[cfg(not(loom))]
pub(crate) type AtomicGeneration = core::sync::atomic::AtomicUsize;

/// The fork generation counter. Narrow under loom so models can wrap it.
#[cfg(loom)]
pub(crate) type Generation = u8;
/// The atomic that holds a [`Generation`].
#[cfg(loom)]
pub(crate) type AtomicGeneration = loom::sync::atomic::AtomicU8;

/// Under loom, every spin loop must yield the model thread, so that loom
/// explores the other threads instead of this one spinning forever.
#[cfg(loom)]
pub(crate) use loom::thread::yield_now as model_yield;

/// An `UnsafeCell` with loom's closure-based access API on both sides of the
/// shim, so loom can check that no read overlaps a write.
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(
    #[cfg(not(loom))] core::cell::UnsafeCell<T>,
    #[cfg(loom)] loom::cell::UnsafeCell<T>,
);

impl<T> UnsafeCell<T> {
    /// Wraps `value`.
    pub(crate) fn new(value: T) -> Self {
        #[cfg(not(loom))]
        return Self(core::cell::UnsafeCell::new(value));
        #[cfg(loom)]
        return Self(loom::cell::UnsafeCell::new(value));
    }

    /// Gives `f` a shared pointer to the value.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        #[cfg(not(loom))]
        return f(self.0.get());
        #[cfg(loom)]
        return self.0.with(f);
    }

    /// Gives `f` a mutable pointer to the value.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        #[cfg(not(loom))]
        return f(self.0.get());
        #[cfg(loom)]
        return self.0.with_mut(f);
    }
}

/// A process-wide cache outside the model: loom cannot check `static`s, and
/// the TSC calibration it holds is not part of any protocol.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use core::sync::atomic::AtomicU64 as UnmodeledAtomicU64;
