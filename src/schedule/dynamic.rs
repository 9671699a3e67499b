//! The dynamic schedule's claim logic: tasks claimed one at a time from a
//! shared counter (`ForkJoin::for_n_dynamic`, and each colocation's block
//! of a distributed pool).
//!
//! # Claim logic
//!
//! With `n` tasks and `t` threads, the first `d = n - min(n, t)` tasks are
//! claimed dynamically and the last `min(n, t)` are pre-assigned, one per
//! thread. Each thread first runs its pre-assigned task (no shared traffic),
//! then claims with one `fetch_add(1)` on the call's progress counter until
//! a claim returns `>= d`.
//!
//! Every thread makes exactly one failed claim, so the counter ends at
//! `d + t <= max(n, t)`: it never wraps, even for `n` near `usize::MAX`. Each
//! index below `d` is returned by exactly one `fetch_add` (atomicity), and the
//! pre-assigned ones are disjoint from them, so every task runs exactly once.
//!
//! The claims are Relaxed: the counter hands out indices and publishes
//! nothing. The tasks' results reach the caller through the join countdown's
//! Release/Acquire pair, and the counter's initial 0 reaches the workers
//! through the fork's generation Release/Acquire pair.

use super::split::SplitIndex;
use crate::sync::{AtomicUsize, Ordering};

/// A counter that hands out claims. Generic so that tests can run the claim
/// logic on `u8`, where an overflow would show.
pub(crate) trait Claims {
    /// The index type.
    type Index: SplitIndex;
    /// Returns the counter's value and adds one.
    fn claim(&self) -> Self::Index;
    /// The counter's value, without claiming.
    #[cfg_attr(not(feature = "numa"), allow(dead_code))] // thieves only
    fn peek(&self) -> Self::Index;
}

impl Claims for AtomicUsize {
    type Index = usize;
    #[inline(always)]
    fn claim(&self) -> usize {
        self.fetch_add(1, Ordering::Relaxed)
    }
    #[inline(always)]
    fn peek(&self) -> usize {
        self.load(Ordering::Relaxed)
    }
}

/// One thread's share of a dynamic fork: its pre-assigned task, then claims
/// until the dynamic range is exhausted (see the module docs).
#[inline(always)]
pub(crate) fn run_share<C: Claims>(
    n: C::Index,
    threads: C::Index,
    thread_index: C::Index,
    counter: &C,
    mut task: impl FnMut(C::Index),
) {
    let pre_assigned = n.min(threads);
    let dynamic = n - pre_assigned;
    if thread_index < pre_assigned {
        task(dynamic + thread_index);
    }
    loop {
        let task_index = counter.claim();
        if task_index >= dynamic {
            break;
        }
        task(task_index);
    }
}

/// A thief's pass over another block's counter: claims the indices below
/// `claimable` that are left (the block's dynamic part; its pre-assigned
/// tasks are its own threads'). It loads before it claims and stops at the
/// first failed claim, so each thief pushes the counter at most one past
/// `claimable`: with `t` threads in all, the counter ends at most `t` past
/// the block's dynamic part, as the distributed pool's overflow bound needs.
#[inline(always)]
#[cfg_attr(not(feature = "numa"), allow(dead_code))] // the distributed pool's
pub(crate) fn steal<C: Claims>(counter: &C, claimable: C::Index, mut task: impl FnMut(C::Index)) {
    while counter.peek() < claimable {
        let task_index = counter.claim();
        if task_index >= claimable {
            break;
        }
        task(task_index);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{run_share, steal, Claims};
    use core::cell::Cell;

    /// A `u8` counter that panics instead of wrapping.
    struct Checked(Cell<u8>);

    impl Claims for Checked {
        type Index = u8;
        fn claim(&self) -> u8 {
            let value = self.0.get();
            self.0
                .set(value.checked_add(1).expect("the claim counter overflowed"));
            value
        }
        fn peek(&self) -> u8 {
            self.0.get()
        }
    }

    /// Every thread count 1..=255 times every task count 0..=255 in `u8`:
    /// each task runs once and the counter never overflows, even at
    /// `n == u8::MAX`. Shares run one after another in every rotation of the
    /// thread order, which covers which thread drains the counter.
    #[test]
    fn claims_cover_each_task_once_and_never_overflow_in_u8() {
        for threads in 1..=u8::MAX {
            for n in 0..=u8::MAX {
                for first in [0, threads / 2, threads - 1] {
                    let counter = Checked(Cell::new(0));
                    let mut hits = [0u8; 256];
                    for step in 0..threads {
                        let thread =
                            ((u16::from(first) + u16::from(step)) % u16::from(threads)) as u8;
                        run_share(n, threads, thread, &counter, |task| {
                            hits[usize::from(task)] += 1
                        });
                    }
                    for (task, &count) in hits.iter().enumerate() {
                        let expected = u8::from(task < usize::from(n));
                        assert_eq!(count, expected, "task {task} of n={n}, threads={threads}");
                    }
                }
            }
        }
    }

    /// The distributed schedule in `u8`: a block of `n` tasks for `local`
    /// threads, drained by some of them and then by `thieves` other
    /// threads, in either order. Every task runs once and the counter stays
    /// within `local + thieves` of the block's dynamic part.
    #[test]
    fn thieves_and_owners_cover_each_task_once_in_u8() {
        for local in 1..=16u8 {
            for thieves in 0..=16u8 {
                for n in 0..=200u8 {
                    for owners_first in [0, local / 2, local] {
                        let counter = Checked(Cell::new(0));
                        let claimable = n - n.min(local);
                        let mut hits = [0u8; 256];
                        for thread in 0..owners_first {
                            run_share(n, local, thread, &counter, |task| {
                                hits[usize::from(task)] += 1
                            });
                        }
                        for _ in 0..thieves {
                            steal(&counter, claimable, |task| hits[usize::from(task)] += 1);
                        }
                        for thread in owners_first..local {
                            run_share(n, local, thread, &counter, |task| {
                                hits[usize::from(task)] += 1
                            });
                        }
                        for (task, &count) in hits.iter().enumerate() {
                            let expected = u8::from(task < usize::from(n));
                            assert_eq!(
                                count, expected,
                                "task {task}, n={n}, local={local}, thieves={thieves}"
                            );
                        }
                        assert!(counter.0.get() <= claimable + local + thieves);
                    }
                }
            }
        }
    }
}
