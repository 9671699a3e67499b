//! `for_n_dynamic`: tasks claimed one at a time from a shared counter.
//!
//! # Claim logic
//!
//! With `n` tasks and `t` threads, the first `d = n - min(n, t)` tasks are
//! claimed dynamically and the last `min(n, t)` are pre-assigned, one per
//! thread. Each thread first runs its pre-assigned task (no shared traffic),
//! then claims with one `fetch_add(1)` on the team's `dynamic_progress` until
//! a claim returns `>= d`.
//!
//! Every thread makes exactly one failed claim, so the counter ends at
//! `d + t <= max(n, t)`: it never wraps, even for `n` near `usize::MAX`. Each
//! index below `d` is returned by exactly one `fetch_add` (atomicity), and the
//! pre-assigned ones are disjoint from them, so every task runs exactly once.
//!
//! The claims are Relaxed: the counter hands out indices and publishes
//! nothing. The tasks' results reach the caller through the join countdown's
//! Release/Acquire pair, and the counter's reset to 0 reaches the workers
//! through the fork's generation Release/Acquire pair.

use crate::broadcast::{prong, Prong, SplitIndex};
use crate::pool::Team;
use crate::sync::{AtomicUsize, Ordering};
#[cfg(feature = "std")]
use crate::ThreadPool;

impl Team {
    /// Runs `f` once for every task in `0..n`, threads claiming tasks one at a
    /// time as they finish the previous one (a dynamic schedule).
    ///
    /// Use it when tasks have uneven costs. Each claim is one `fetch_add` on a
    /// shared counter; for cheap, even tasks [`Team::for_n`] has less
    /// overhead. `n == 0` returns at once and `n == 1` runs on the caller.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = tine::spawn(4);
    /// let work = AtomicU64::new(0);
    /// pool.for_n_dynamic(1000, |prong| {
    ///     // Task i costs i: a static split would leave the last thread with
    ///     // most of the work.
    ///     let cost = (0..prong.task_index as u64).sum::<u64>();
    ///     work.fetch_add(std::hint::black_box(cost), Ordering::Relaxed);
    /// });
    /// assert_eq!(work.into_inner(), (0..1000u64).map(|i| i * i.saturating_sub(1) / 2).sum());
    /// ```
    pub fn for_n_dynamic<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong) + Sync,
    {
        if n <= 1 {
            if n == 1 {
                f(prong(0, 0));
            }
            return;
        }
        let threads = self.threads();
        self.fork(true, &|thread_index, progress: &AtomicUsize| {
            run_share(n, threads, thread_index, progress, |task_index| {
                f(prong(task_index, thread_index))
            });
        });
    }
}

/// A counter that hands out claims. Generic so that tests can run the claim
/// logic on `u8`, where an overflow would show.
pub(crate) trait Claims {
    /// The index type.
    type Index: SplitIndex;
    /// Returns the counter's value and adds one.
    fn claim(&self) -> Self::Index;
}

impl Claims for AtomicUsize {
    type Index = usize;
    #[inline(always)]
    fn claim(&self) -> usize {
        self.fetch_add(1, Ordering::Relaxed)
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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{run_share, Claims};
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
}

#[cfg(feature = "std")]
impl ThreadPool {
    /// Runs `f` for every task in `0..n` with a dynamic schedule; see
    /// [`Team::for_n_dynamic`].
    pub fn for_n_dynamic<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong) + Sync,
    {
        self.team().for_n_dynamic(n, f);
    }
}
