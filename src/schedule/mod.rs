//! The schedules, written once for every kind of pool: the [`ForkJoin`]
//! trait and its provided methods.
//!
//! A pool type implements one method, [`ForkJoin::fork_join`]: run a
//! type-erased share on every thread and join. `for_threads`, `for_n`,
//! `for_slices` and `for_n_dynamic` are built on it here (`split.rs` holds
//! the static split, `dynamic.rs` the claim logic), and a pool overrides
//! only what truly differs, as the distributed pool's node-first dynamic
//! schedule does. [`Team`], [`crate::pool::ThreadPool`] and
//! `numa::DistributedPool` also get the four calls as inherent methods (one
//! line each, through [`forward_fork_join!`]), so code that never names the
//! trait, as fork_union code does not, still calls `pool.for_n(..)`.

pub(crate) mod dynamic;
#[cfg(feature = "std")]
pub(crate) mod partials;
pub(crate) mod split;

use crate::sync::AtomicUsize;
use crate::team::{Share, Team};
use crossbeam_utils::CachePadded;
use dynamic::{GrainClaims, GuidedClaims, GuidedCursor};
#[cfg(feature = "std")]
pub use partials::Partials;
pub(crate) use split::{each_task, split};

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

/// A team of threads that can fork a closure onto all of them and join:
/// the one primitive behind every schedule.
///
/// Implemented by [`Team`], [`crate::pool::ThreadPool`] and (feature `numa`)
/// `numa::DistributedPool`. Generic code takes `&impl ForkJoin`:
///
/// ```
/// use tine::ForkJoin;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// fn sum_squares(pool: &impl ForkJoin, n: u64) -> u64 {
///     let total = AtomicU64::new(0);
///     pool.for_slices(n as usize, |first, count| {
///         let begin = first.task_index as u64;
///         let mine: u64 = (begin..begin + count as u64).map(|x| x * x).sum();
///         total.fetch_add(mine, Ordering::Relaxed);
///     });
///     total.into_inner()
/// }
///
/// let pool = tine::spawn_pool(3);
/// assert_eq!(sum_squares(&pool, 100), (0..100u64).map(|x| x * x).sum());
/// ```
///
/// # Safety
/// Implementors promise what the provided methods, and callers that write
/// through raw pointers by thread index, rely on: [`ForkJoin::fork_join`]
/// calls its share exactly once for each thread index in
/// `0..self.threads()` (a value that never changes), even when some of
/// those calls panic, and does not return, nor unwind, before every one of
/// those calls has returned. A panic in a share is then resumed on the
/// caller (the first one, if several).
pub unsafe trait ForkJoin: Sync {
    /// The number of threads a fork runs on, the caller included.
    fn threads(&self) -> usize;

    /// Runs `share(thread_index, colocation_index)` once on every thread,
    /// the caller as thread 0, and returns when all have finished.
    ///
    /// A panic in any share is caught, every share still runs and joins,
    /// and the first payload resumes on the caller. A call from inside a
    /// task of any tine fork never waits for a busy pool: it runs every
    /// share inline, in thread order (every share even if one panics; the
    /// first payload resumes). Any other call waits for a busy pool for a
    /// bounded time, parked, and then runs inline too (see [`Team`]).
    fn fork_join(&self, share: &Share<'_>);

    /// As [`ForkJoin::fork_join`], for shares that must each run on a
    /// thread of their own, at once (the sides of a barrier, per-thread
    /// set-up): where a pool would otherwise run a fork's shares through
    /// whichever of its threads are free (a busy pool, or one whose threads
    /// run every call), it hands each share to a thread of its own.
    /// [`ForkJoin::for_threads`] forks this way. By default,
    /// [`ForkJoin::fork_join`].
    #[inline]
    fn fork_join_each_thread(&self, share: &Share<'_>) {
        self.fork_join(share);
    }

    /// Per-thread slots for the partial results of reductions, owned by the
    /// pool so that a parallel-iterator call allocates nothing; `None` if
    /// the pool has none (then such a call allocates its slots).
    #[cfg(feature = "std")]
    fn partials(&self) -> Option<&Partials> {
        None
    }

    /// Runs `f(thread_index, colocation_index)` once on every thread, the
    /// caller as thread 0, and returns when all have finished.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = tine::spawn_pool(4);
    /// let seen = AtomicUsize::new(0);
    /// pool.for_threads(|thread_index, _colocation| {
    ///     seen.fetch_or(1 << thread_index, Ordering::Relaxed);
    /// });
    /// assert_eq!(seen.into_inner(), 0b1111);
    /// ```
    #[inline]
    fn for_threads<F>(&self, f: F)
    where
        Self: Sized,
        F: Fn(usize, usize) + Sync,
    {
        self.fork_join_each_thread(&f);
    }

    /// Runs `f` once for every task in `0..n`, each thread taking one
    /// contiguous range of about `n / threads` tasks (a static schedule).
    ///
    /// Use it when tasks cost about the same; for uneven tasks see
    /// [`ForkJoin::for_n_dynamic`]. `n == 0` returns at once, and `n == 1`
    /// runs on the caller without waking the workers.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = tine::spawn_pool(3);
    /// let sum = AtomicU64::new(0);
    /// pool.for_n(100, |prong| {
    ///     sum.fetch_add(prong.task_index as u64, Ordering::Relaxed);
    /// });
    /// assert_eq!(sum.into_inner(), 4950);
    /// ```
    #[inline]
    fn for_n<F>(&self, n: usize, f: F)
    where
        Self: Sized,
        F: Fn(Prong) + Sync,
    {
        self.for_slices(n, each_task(&f));
    }

    /// Like [`ForkJoin::for_n`], but calls `f(first, count)` once per thread
    /// with the thread's whole range:
    /// `first.task_index..first.task_index + count`. Threads with an empty
    /// range are not called.
    ///
    /// The split is fair: with `n` tasks on `t` threads, the first `n % t`
    /// threads each take one task more than the rest.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = tine::spawn_pool(4);
    /// let data = vec![1u32; 10_007];
    /// let total = AtomicUsize::new(0);
    /// pool.for_slices(data.len(), |first, count| {
    ///     let mine = &data[first.task_index..first.task_index + count];
    ///     total.fetch_add(mine.iter().sum::<u32>() as usize, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 10_007);
    /// ```
    #[inline]
    fn for_slices<F>(&self, n: usize, f: F)
    where
        Self: Sized,
        F: Fn(Prong, usize) + Sync,
    {
        if n <= 1 {
            // Not worth waking anyone: the caller does it.
            if n == 1 {
                f(prong(0, 0, 0), 1);
            }
            return;
        }
        let threads = self.threads();
        self.fork_join(&|thread_index, colocation_index| {
            let (begin, count) = split(n, threads, thread_index);
            if count > 0 {
                f(prong(begin, thread_index, colocation_index), count);
            }
        });
    }

    /// Runs `f` once for every task in `0..n`, threads claiming tasks one at
    /// a time as they finish the previous one (a dynamic schedule).
    ///
    /// Use it when tasks have uneven costs. Each claim is one `fetch_add` on
    /// a counter on the caller's stack, on a cache line of its own; for
    /// cheap, even tasks [`ForkJoin::for_n`] has less overhead. `n == 0`
    /// returns at once and `n == 1` runs on the caller.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = tine::spawn_pool(4);
    /// let work = AtomicU64::new(0);
    /// pool.for_n_dynamic(1000, |prong| {
    ///     // Task i costs i: a static split would leave the last thread with
    ///     // most of the work.
    ///     let cost = (0..prong.task_index as u64).sum::<u64>();
    ///     work.fetch_add(std::hint::black_box(cost), Ordering::Relaxed);
    /// });
    /// assert_eq!(work.into_inner(), (0..1000u64).map(|i| i * i.saturating_sub(1) / 2).sum());
    /// ```
    #[inline]
    fn for_n_dynamic<F>(&self, n: usize, f: F)
    where
        Self: Sized,
        F: Fn(Prong) + Sync,
    {
        if n <= 1 {
            if n == 1 {
                f(prong(0, 0, 0));
            }
            return;
        }
        let threads = self.threads();
        // Reset per call, and published to the workers by the fork.
        let progress = CachePadded::new(AtomicUsize::new(0));
        self.fork_join(&|thread_index, colocation_index| {
            dynamic::run_share(n, threads, thread_index, &*progress, |task_index| {
                f(prong(task_index, thread_index, colocation_index))
            });
        });
    }

    /// Like [`ForkJoin::for_n_dynamic`], but each claim takes `grain`
    /// consecutive tasks with one `fetch_add`: fewer transfers of the
    /// counter's cache line when tasks are short (OpenMP's
    /// `schedule(dynamic, grain)`). A `grain` of 0 counts as 1. If `n` is so
    /// close to `usize::MAX` that the counter could wrap, the static split
    /// runs instead.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = tine::spawn_pool(3);
    /// let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
    /// pool.for_n_dynamic_grain(hits.len(), 64, |prong| {
    ///     hits[prong.task_index].fetch_add(1, Ordering::Relaxed);
    /// });
    /// assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    /// ```
    #[inline]
    fn for_n_dynamic_grain<F>(&self, n: usize, grain: usize, f: F)
    where
        Self: Sized,
        F: Fn(Prong) + Sync,
    {
        let Some(claims) = GrainClaims::new(n, grain, self.threads()).filter(|_| n > 1) else {
            return self.for_n(n, f);
        };
        let progress = CachePadded::new(AtomicUsize::new(0));
        self.fork_join(&|thread_index, colocation_index| {
            while let Some((begin, end)) = claims.claim(&progress) {
                for task_index in begin..end {
                    f(prong(task_index, thread_index, colocation_index));
                }
            }
        });
    }

    /// Runs every task in `0..n` with a guided schedule: each claim takes
    /// `max(ceil(remaining / threads), min)` tasks, so chunks start large
    /// and shrink as the work runs out (OpenMP's `schedule(guided, min)`).
    /// One `fetch_add` per claim, no compare-exchange loop. A `min` of 0
    /// counts as 1.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = tine::spawn_pool(2);
    /// let total = AtomicU64::new(0);
    /// pool.for_n_guided(10_000, 16, |prong| {
    ///     total.fetch_add(prong.task_index as u64, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 9_999 * 10_000 / 2);
    /// ```
    #[inline]
    fn for_n_guided<F>(&self, n: usize, min: usize, f: F)
    where
        Self: Sized,
        F: Fn(Prong) + Sync,
    {
        let Some(claims) = GuidedClaims::new(n, min, self.threads()).filter(|_| n > 1) else {
            return self.for_n(n, f);
        };
        let progress = CachePadded::new(AtomicUsize::new(0));
        self.fork_join(&|thread_index, colocation_index| {
            let mut cursor = GuidedCursor::default();
            while let Some((begin, end)) = claims.claim(&progress, &mut cursor) {
                for task_index in begin..end {
                    f(prong(task_index, thread_index, colocation_index));
                }
            }
        });
    }
}

#[inline(always)]
pub(crate) fn prong(task_index: usize, thread_index: usize, colocation_index: usize) -> Prong {
    Prong {
        task_index,
        thread_index,
        colocation_index,
    }
}

// SAFETY: `Team::fork` runs the share once per thread index (on the team's
// threads, or inline on the caller) and joins every worker before it
// returns or unwinds (`team/fork.rs`).
unsafe impl ForkJoin for Team {
    #[inline]
    fn threads(&self) -> usize {
        Team::threads(self)
    }

    #[inline]
    fn fork_join(&self, share: &Share<'_>) {
        self.fork(share);
    }
}

/// The [`ForkJoin`] calls as inherent methods of a pool type, one line each,
/// so that they need no `use tine::ForkJoin`.
macro_rules! forward_fork_join {
    ($pool:ty) => {
        impl $pool {
            /// Runs `f(thread_index, colocation_index)` once on every thread;
            /// see [`ForkJoin::for_threads`](crate::schedule::ForkJoin::for_threads).
            #[inline]
            pub fn for_threads<F: Fn(usize, usize) + Sync>(&self, f: F) {
                <Self as $crate::schedule::ForkJoin>::for_threads(self, f)
            }

            /// Runs `f` for every task in `0..n` with a static schedule; see
            /// [`ForkJoin::for_n`](crate::schedule::ForkJoin::for_n).
            #[inline]
            pub fn for_n<F: Fn($crate::schedule::Prong) + Sync>(&self, n: usize, f: F) {
                <Self as $crate::schedule::ForkJoin>::for_n(self, n, f)
            }

            /// Calls `f(first, count)` with each thread's contiguous range;
            /// see [`ForkJoin::for_slices`](crate::schedule::ForkJoin::for_slices).
            #[inline]
            pub fn for_slices<F: Fn($crate::schedule::Prong, usize) + Sync>(&self, n: usize, f: F) {
                <Self as $crate::schedule::ForkJoin>::for_slices(self, n, f)
            }

            /// Runs `f` for every task in `0..n` with a dynamic schedule; see
            /// [`ForkJoin::for_n_dynamic`](crate::schedule::ForkJoin::for_n_dynamic).
            #[inline]
            pub fn for_n_dynamic<F: Fn($crate::schedule::Prong) + Sync>(&self, n: usize, f: F) {
                <Self as $crate::schedule::ForkJoin>::for_n_dynamic(self, n, f)
            }

            /// Runs `f` for every task in `0..n`, `grain` tasks per claim;
            /// see [`ForkJoin::for_n_dynamic_grain`](crate::schedule::ForkJoin::for_n_dynamic_grain).
            #[inline]
            pub fn for_n_dynamic_grain<F: Fn($crate::schedule::Prong) + Sync>(
                &self,
                n: usize,
                grain: usize,
                f: F,
            ) {
                <Self as $crate::schedule::ForkJoin>::for_n_dynamic_grain(self, n, grain, f)
            }

            /// Runs `f` for every task in `0..n` with a guided schedule; see
            /// [`ForkJoin::for_n_guided`](crate::schedule::ForkJoin::for_n_guided).
            #[inline]
            pub fn for_n_guided<F: Fn($crate::schedule::Prong) + Sync>(
                &self,
                n: usize,
                min: usize,
                f: F,
            ) {
                <Self as $crate::schedule::ForkJoin>::for_n_guided(self, n, min, f)
            }
        }
    };
}
#[cfg_attr(not(feature = "std"), allow(unused_imports))] // the std pools use it
pub(crate) use forward_fork_join;

forward_fork_join!(Team);
