//! The stop test of the block a thread is folding, for the serial walks
//! inside that block to ask.
//!
//! # Why
//!
//! A parallel iterator's `flat_map` whose closure returns a parallel
//! iterator walks that inner iterator serially, inside one block of the
//! outer call, and an inner iterator may hold a great many items (rayon's
//! `octillion` tests nest two of 10^9). A search that stops early
//! (`find_any`, `any`, `try_for_each`, ...) cannot wait for the block to
//! end before it looks for the stop: a thread whose block holds no answer
//! would walk on long after another thread found one. So the parallel
//! iterators' driver folds such blocks under [`watching`], with the call's
//! own test, and each step of an inner walk asks [`stopped`]; an inner walk
//! that finds the call stopped ends there, since its items would only reach
//! a block whose result the call throws away.
//!
//! The test belongs to that call alone. Work of any other call that this
//! thread runs meanwhile starts [`unwatched`]: a parallel call made from a
//! closure of the block (the driver's entry), and every job this thread
//! takes for others while it waits or yields there (a `join`'s stolen half,
//! a queued call, a scope task: `Worker::run_anchored` and
//! `Worker::run_injected`). It lives in this layer so that the jobs can.
//!
//! # Invariants
//!
//! The thread-local hook holds the test of the innermost block being
//! folded under [`watching`] on this thread, or none; [`watching`] and
//! [`unwatched`] put back the one before when their body returns or
//! unwinds, so the hook never outlives the test it points to.

use core::cell::Cell;
use core::ptr::NonNull;

/// A block's test: true once the call has stopped.
type Test = dyn Fn() -> bool;

std::thread_local! {
    /// The test of the block this thread is folding, if any.
    static HOOK: Cell<Option<NonNull<Test>>> = const { Cell::new(None) };
}

/// Whether the call whose block this thread is folding under [`watching`]
/// has stopped (false outside every such block).
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

/// Whether this thread is folding a block under [`watching`].
#[inline(always)]
pub(crate) fn is_watched() -> bool {
    HOOK.with(|hook| hook.get().is_some())
}

/// Runs `body` with no hook, then puts back the one before (on unwinding
/// too): work of another call, run inside a watched block (module docs),
/// has stops of its own, and its inner walks must not end at this one's.
#[inline]
pub(crate) fn unwatched<R>(body: impl FnOnce() -> R) -> R {
    if !is_watched() {
        return body();
    }
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
    // The pointer is read only while `test` is borrowed: `Restore` takes it
    // out of the hook before this function returns or unwinds.
    // SAFETY: only the trait object's lifetime bound changes (same layout).
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
