//! Static fork-join calls: `for_threads`, `for_n` and `for_slices`.
//!
//! Each is one fork of the team (see `pool.rs`). `for_n` and `for_slices`
//! split `0..n` into one contiguous range per thread with [`split`]: fair,
//! with the first `n % threads` threads taking one task more than the rest.

use crate::pool::Team;
use crate::sync::AtomicUsize;
#[cfg(feature = "std")]
use crate::ThreadPool;

/// Where a task runs: its index, the thread running it, and the thread's
/// colocation (its NUMA node's pool; always 0 for a single pool).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prong {
    /// The task's index in `0..n`.
    pub task_index: usize,
    /// The thread running it: 0 is the caller, `1..threads` the workers.
    pub thread_index: usize,
    /// Which colocation (group of threads sharing a NUMA node) the thread is
    /// in. A single pool is one colocation, 0.
    pub colocation_index: usize,
}

/// Unsigned integers that [`split`] can divide work over.
///
/// The split is generic so that tests can check it exhaustively on `u8`,
/// where any overflow in the arithmetic would show up.
pub(crate) trait SplitIndex:
    Copy
    + Ord
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Rem<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
}

macro_rules! split_index {
    ($($t:ty),*) => {$(
        impl SplitIndex for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
        }
    )*};
}
split_index!(u8, u16, u32, u64, usize);

/// Thread `thread`'s contiguous range of `0..n` among `threads` threads, as
/// `(begin, count)`.
///
/// With `q = n / threads` and `r = n % threads`, thread `i` starts at
/// `q * i + min(i, r)` and takes `q + (i < r)` tasks. No intermediate exceeds
/// `n`, so it cannot overflow. `threads` must be non-zero and `thread <
/// threads`.
#[inline]
pub(crate) fn split<I: SplitIndex>(n: I, threads: I, thread: I) -> (I, I) {
    let quotient = n / threads;
    let remainder = n % threads;
    let begin = quotient * thread + thread.min(remainder);
    let extra = if thread < remainder { I::ONE } else { I::ZERO };
    (begin, quotient + extra)
}

impl Team {
    /// Runs `f(thread_index, colocation_index)` once on every thread of the
    /// team, the caller as thread 0, and returns when all have finished.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = tine::spawn(4);
    /// let seen = AtomicUsize::new(0);
    /// pool.for_threads(|thread_index, _colocation| {
    ///     seen.fetch_or(1 << thread_index, Ordering::Relaxed);
    /// });
    /// assert_eq!(seen.into_inner(), 0b1111);
    /// ```
    pub fn for_threads<F>(&self, f: F)
    where
        F: Fn(usize, usize) + Sync,
    {
        self.fork(false, &|thread_index, _: &AtomicUsize| f(thread_index, 0));
    }

    /// Runs `f` once for every task in `0..n`, each thread taking one
    /// contiguous range of about `n / threads` tasks (a static schedule).
    ///
    /// Use it when tasks cost about the same; for uneven tasks see
    /// [`Team::for_n_dynamic`]. `n == 0` returns at once, and `n == 1` runs on
    /// the caller without waking the workers.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = tine::spawn(3);
    /// let sum = AtomicU64::new(0);
    /// pool.for_n(100, |prong| {
    ///     sum.fetch_add(prong.task_index as u64, Ordering::Relaxed);
    /// });
    /// assert_eq!(sum.into_inner(), 4950);
    /// ```
    pub fn for_n<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong) + Sync,
    {
        self.for_slices(n, each_task(&f));
    }

    /// Like [`Team::for_n`], but calls `f(first, count)` once per thread with
    /// the thread's whole range: `first.task_index..first.task_index + count`.
    /// Threads with an empty range are not called.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = tine::spawn(4);
    /// let data = vec![1u32; 10_007];
    /// let total = AtomicUsize::new(0);
    /// pool.for_slices(data.len(), |first, count| {
    ///     let mine = &data[first.task_index..first.task_index + count];
    ///     total.fetch_add(mine.iter().sum::<u32>() as usize, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 10_007);
    /// ```
    pub fn for_slices<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong, usize) + Sync,
    {
        if n <= 1 {
            if n == 1 {
                f(prong(0, 0), 1);
            }
            return;
        }
        let threads = self.threads();
        self.fork(false, &|thread_index, _: &AtomicUsize| {
            let (begin, count) = split(n, threads, thread_index);
            if count > 0 {
                f(prong(begin, thread_index), count);
            }
        });
    }
}

/// Turns a per-task closure into a per-range one for `for_slices`: the
/// range's tasks in order, each with its own index.
#[inline(always)]
pub(crate) fn each_task<F: Fn(Prong)>(f: &F) -> impl Fn(Prong, usize) + '_ {
    move |first: Prong, count: usize| {
        for task_index in first.task_index..first.task_index + count {
            f(Prong {
                task_index,
                ..first
            });
        }
    }
}

#[inline(always)]
pub(crate) fn prong(task_index: usize, thread_index: usize) -> Prong {
    Prong {
        task_index,
        thread_index,
        colocation_index: 0,
    }
}

#[cfg(feature = "std")]
impl ThreadPool {
    /// Runs `f(thread_index, colocation_index)` once on every thread; see
    /// [`Team::for_threads`].
    pub fn for_threads<F>(&self, f: F)
    where
        F: Fn(usize, usize) + Sync,
    {
        self.team().for_threads(f);
    }

    /// Runs `f` for every task in `0..n` with a static schedule; see
    /// [`Team::for_n`].
    pub fn for_n<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong) + Sync,
    {
        self.team().for_n(n, f);
    }

    /// Calls `f(first, count)` with each thread's contiguous range; see
    /// [`Team::for_slices`].
    pub fn for_slices<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong, usize) + Sync,
    {
        self.team().for_slices(n, f);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::split;

    /// Every thread count 1..=255 times every task count 0..=255, in `u8`
    /// arithmetic: the ranges tile `0..n` in order, each task once, and
    /// their sizes differ by at most one.
    #[test]
    fn split_tiles_every_range_exhaustively_in_u8() {
        for threads in 1..=u8::MAX {
            for n in 0..=u8::MAX {
                let mut next = 0u16;
                let (mut smallest, mut largest) = (u8::MAX, 0u8);
                for thread in 0..threads {
                    let (begin, count) = split(n, threads, thread);
                    assert_eq!(
                        u16::from(begin),
                        next,
                        "n={n} threads={threads} thread={thread}"
                    );
                    next += u16::from(count);
                    smallest = smallest.min(count);
                    largest = largest.max(count);
                }
                assert_eq!(next, u16::from(n), "n={n} threads={threads}");
                assert!(largest - smallest <= 1, "n={n} threads={threads}");
            }
        }
    }

    #[test]
    fn split_does_not_overflow_near_usize_max() {
        let n = usize::MAX;
        let threads = 7;
        let mut next = 0usize;
        for thread in 0..threads {
            let (begin, count) = split(n, threads, thread);
            assert_eq!(begin, next);
            next = next.wrapping_add(count);
        }
        assert_eq!(next, n);
    }
}
