//! The early stop of the call whose heavy block this thread is folding,
//! for the serial walks inside that block to look for.
//!
//! # Why
//!
//! A `flat_map` whose closure returns a parallel iterator walks that inner
//! iterator serially, inside one block of the outer call. An inner
//! iterator may hold a great many items (rayon's `octillion` tests nest
//! two of 10^9), so a search that stops early (`find_any`, `any`,
//! `try_for_each`, ...) cannot wait for the block to end before it looks
//! for the stop: a thread whose block holds no answer would walk on long
//! after another thread found one. Such producers are
//! [`Producer::HEAVY`](crate::par::Producer::HEAVY); the driver folds their
//! blocks under [`watching`], with the call's own test (a panic elsewhere,
//! or the consumer skipping the block), and each step of an inner walk asks
//! [`stopped`]. An inner walk that finds the call stopped ends there: its
//! items would only reach a block whose result the call throws away.
//!
//! # Invariants
//!
//! The thread-local hook holds the test of the innermost block being
//! folded under [`watching`] on this thread, or none; [`watching`] puts
//! back the one before when its body returns or unwinds, so the hook never
//! outlives the test it points to.

use core::cell::Cell;
use core::ptr::NonNull;

/// A block's test: true once the call has stopped.
type Test = dyn Fn() -> bool;

std::thread_local! {
    /// The test of the heavy block this thread is folding, if any.
    static HOOK: Cell<Option<NonNull<Test>>> = const { Cell::new(None) };
}

/// Whether the call whose heavy block this thread is folding has stopped
/// (false outside every such block).
#[inline]
pub(crate) fn stopped() -> bool {
    HOOK.with(|hook| match hook.get() {
        None => false,
        // SAFETY: the hook points to a test that `watching` borrowed for
        // as long as its body runs on this thread, and `watching` takes it
        // out before the borrow ends (module invariants).
        Some(test) => (unsafe { test.as_ref() })(),
    })
}

/// Whether this thread is folding a heavy block under [`watching`].
#[inline(always)]
pub(crate) fn is_watched() -> bool {
    HOOK.with(|hook| hook.get().is_some())
}

/// Runs `body` with no hook, then puts back the one before (on unwinding
/// too): a parallel call made from inside a heavy block (by a closure of
/// the outer call) has stops of its own, and its inner walks must not end
/// at the outer call's.
pub(crate) fn unwatched<R>(body: impl FnOnce() -> R) -> R {
    let _restore = Restore(HOOK.with(|hook| hook.replace(None)));
    body()
}

/// Puts the earlier hook back when dropped.
struct Restore(Option<NonNull<Test>>);

impl Drop for Restore {
    fn drop(&mut self) {
        HOOK.with(|hook| hook.set(self.0));
    }
}

/// Runs `body` with `test` as this thread's hook, then puts back the one
/// before (on unwinding too).
#[inline]
pub(crate) fn watching<R>(test: &dyn Fn() -> bool, body: impl FnOnce() -> R) -> R {
    let short: NonNull<dyn Fn() -> bool + '_> = NonNull::from(test);
    // SAFETY: only the lifetime bound of the trait object changes (same
    // layout); the pointer is read only while `test` is borrowed, since
    // `Restore` takes it out of the hook before this function returns or
    // unwinds.
    let erased: NonNull<Test> = unsafe { core::mem::transmute(short) };
    let _restore = Restore(HOOK.with(|hook| hook.replace(Some(erased))));
    body()
}

#[cfg(test)]
mod tests {
    use super::{is_watched, stopped, unwatched, watching};
    use core::cell::Cell;

    #[test]
    fn the_innermost_test_answers_and_the_outer_one_comes_back() {
        assert!(!stopped());
        let outer = Cell::new(false);
        watching(&|| outer.get(), || {
            assert!(!stopped());
            outer.set(true);
            assert!(stopped());
            watching(&|| false, || assert!(!stopped()));
            assert!(stopped());
            let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                watching(&|| false, || panic!("inner"));
            }));
            assert!(unwound.is_err());
            assert!(stopped(), "the outer test is back after an unwind");
            unwatched(|| assert!(!is_watched() && !stopped()));
            assert!(is_watched() && stopped());
        });
        assert!(!stopped());
    }
}
