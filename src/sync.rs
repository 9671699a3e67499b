//! The one place that imports atomics, fences, `UnsafeCell` and spin hints.
//!
//! Every other module takes its synchronization primitives from here, so that
//! under `cfg(loom)` the whole crate runs on loom's model-checked versions and
//! nothing slips past the checker. The fork generation is a `u32` everywhere
//! (workers park on it with a futex); loom models reach its wraparound by
//! starting it near `u32::MAX` (`Team::with_generation`).

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

/// Job pointers of nested fork-join (`nest/`), and a task's scheduling
/// state (`nest/inject/task.rs`), which need `std`.
#[cfg(all(feature = "std", not(loom)))]
pub(crate) use core::sync::atomic::{AtomicPtr, AtomicU8};

/// Fences appear only in the parking handshakes, which need `std`.
#[cfg(all(feature = "std", not(loom)))]
pub(crate) use core::sync::atomic::fence;

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering,
};

/// The mutex and condition variable of the parking backend used where there
/// is no futex; under loom, they mock the futex.
#[cfg(all(feature = "std", not(loom)))]
#[allow(unused_imports)] // only the non-futex backend uses them
pub(crate) use std::sync::{Condvar, Mutex};

#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};

/// The fork generation counter. 32 bits, so that workers can park on it
/// with a futex; it wraps, which the protocol allows (see `pool.rs`). Loom
/// models reach the wrap by starting it near `u32::MAX`.
pub(crate) type Generation = u32;
/// The atomic that holds a [`Generation`].
pub(crate) type AtomicGeneration = AtomicU32;

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

/// As above: the micro-yield calibration cache.
#[cfg(feature = "std")]
pub(crate) use core::sync::atomic::AtomicU32 as UnmodeledAtomicU32;
