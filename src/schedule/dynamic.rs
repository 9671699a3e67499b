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
//! # Grain and guided claims
//!
//! [`GrainClaims`] hands out `grain` tasks per `fetch_add(grain)`. A thread
//! stops at its first claim at or past `n`, so the counter ends below
//! `n + (threads + 1) * grain`; [`GrainClaims::new`] refuses (returns
//! `None`) when that could wrap, and callers fall back to the static split.
//!
//! [`GuidedClaims`] hands out chunks that shrink with the work left, as
//! OpenMP's `schedule(guided, min)` does (libgomp: `max(ceil(remaining /
//! threads), min)`), without a compare-exchange loop: the chunk boundaries
//! are a fixed function of the chunk number (the recurrence in
//! [`GuidedClaims::next_chunk`]), so a claim is one `fetch_add(1)` on a
//! chunk counter, and each thread walks the recurrence forward from the
//! last chunk it saw to the one it claimed (a few hundred steps per call at
//! most, as the chunks shrink geometrically). Chunks number at most `n`, so
//! the counter ends at most `n + threads`.
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

/// Claims of `grain` consecutive tasks per `fetch_add` (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GrainClaims {
    n: usize,
    grain: usize,
}

impl GrainClaims {
    /// Claims over `0..n` for `threads` threads; `None` if the counter could
    /// wrap (`n + (threads + 1) * grain` past `usize::MAX`). A grain of 0
    /// counts as 1.
    pub(crate) fn new(n: usize, grain: usize, threads: usize) -> Option<Self> {
        let grain = grain.max(1);
        let overshoot = threads.checked_add(1)?.checked_mul(grain)?;
        n.checked_add(overshoot)?;
        Some(GrainClaims { n, grain })
    }

    /// The next block, `begin..end`, or `None` once the work is handed out.
    #[inline]
    pub(crate) fn claim(&self, counter: &AtomicUsize) -> Option<(usize, usize)> {
        let begin = counter.fetch_add(self.grain, Ordering::Relaxed);
        (begin < self.n).then(|| (begin, self.n.min(begin + self.grain)))
    }
}

/// Guided claims: chunk `k` starts where chunk `k - 1` ends and takes
/// `max(ceil(remaining / threads), min)` tasks (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GuidedClaims {
    n: usize,
    threads: usize,
    min: usize,
}

/// One thread's position in the guided recurrence: chunk `chunk` starts at
/// `start`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GuidedCursor {
    chunk: usize,
    start: usize,
}

impl GuidedClaims {
    /// Guided claims over `0..n`; `None` if the chunk counter could wrap
    /// (`n + threads` past `usize::MAX`). `min` and `threads` of 0 count
    /// as 1.
    pub(crate) fn new(n: usize, min: usize, threads: usize) -> Option<Self> {
        let threads = threads.max(1);
        n.checked_add(threads)?;
        Some(GuidedClaims {
            n,
            threads,
            min: min.max(1),
        })
    }

    /// The size of the chunk that starts at `start < n`.
    #[inline]
    fn size_at(&self, start: usize) -> usize {
        let remaining = self.n - start;
        let share = remaining / self.threads + usize::from(remaining % self.threads != 0);
        share.max(self.min).min(remaining)
    }

    /// Walks `cursor` to chunk `chunk` and returns its `begin..end`, or
    /// `None` if the work ends before it. `chunk` must not be below
    /// `cursor`'s (claims only grow).
    #[inline]
    pub(crate) fn next_chunk(
        &self,
        cursor: &mut GuidedCursor,
        chunk: usize,
    ) -> Option<(usize, usize)> {
        while cursor.chunk < chunk {
            if cursor.start >= self.n {
                return None;
            }
            cursor.start += self.size_at(cursor.start);
            cursor.chunk += 1;
        }
        (cursor.start < self.n).then(|| (cursor.start, cursor.start + self.size_at(cursor.start)))
    }

    /// Claims the next chunk: one `fetch_add(1)` on the chunk counter.
    #[inline]
    pub(crate) fn claim(
        &self,
        counter: &AtomicUsize,
        cursor: &mut GuidedCursor,
    ) -> Option<(usize, usize)> {
        let chunk = counter.fetch_add(1, Ordering::Relaxed);
        self.next_chunk(cursor, chunk)
    }

    /// Where the work not yet handed out begins, once the chunk counter
    /// has reached `claimed` (every chunk below it handed out).
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // parallel iterators
    pub(crate) fn unclaimed_from(&self, claimed: usize) -> usize {
        let mut cursor = GuidedCursor::default();
        match self.next_chunk(&mut cursor, claimed) {
            Some((begin, _)) => begin,
            None => self.n,
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{run_share, steal, Claims, GrainClaims, GuidedClaims, GuidedCursor};
    use crate::sync::AtomicUsize;
    extern crate std;
    use core::cell::Cell;
    use std::vec;

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

    /// Grain claims over every `n` up to 300, grains 1..=20 and threads
    /// 1..=6, threads taking turns: each task once, blocks of `grain` but
    /// the last, and the counter within its bound.
    #[test]
    fn grain_claims_cover_each_task_once() {
        for threads in 1..=6usize {
            for grain in 1..=20usize {
                for n in 0..=300usize {
                    let claims = GrainClaims::new(n, grain, threads).unwrap();
                    let counter = AtomicUsize::new(0);
                    let mut hits = vec![0u8; n];
                    let mut done = vec![false; threads];
                    while done.iter().any(|d| !d) {
                        for (thread, done) in done.iter_mut().enumerate() {
                            if *done {
                                continue;
                            }
                            match claims.claim(&counter) {
                                Some((b, e)) => {
                                    assert!(e - b == grain || e == n, "thread {thread}");
                                    hits[b..e].iter_mut().for_each(|h| *h += 1);
                                }
                                None => *done = true,
                            }
                        }
                    }
                    assert!(hits.iter().all(|&h| h == 1), "n={n} grain={grain}");
                    assert!(counter.into_inner() < n + (threads + 1) * grain);
                }
            }
        }
    }

    #[test]
    fn grain_claims_refuse_a_counter_that_could_wrap() {
        assert!(GrainClaims::new(usize::MAX, 1, 1).is_none());
        assert!(GrainClaims::new(usize::MAX - 100, 10, 8).is_some());
        assert!(GrainClaims::new(usize::MAX - 100, 10, 10).is_none());
        assert!(GrainClaims::new(10, usize::MAX / 2, 2).is_none());
    }

    /// Guided chunks tile `0..n` in order, shrink, never drop below `min`
    /// but at the end, and the first is `ceil(n / threads)` (libgomp's rule).
    #[test]
    fn guided_chunks_tile_the_range_and_shrink() {
        for threads in 1..=6usize {
            for min in 1..=9usize {
                for n in 0..=400usize {
                    let claims = GuidedClaims::new(n, min, threads).unwrap();
                    let mut cursor = GuidedCursor::default();
                    let (mut next, mut last_size) = (0, usize::MAX);
                    let mut chunk = 0;
                    while let Some((b, e)) = claims.next_chunk(&mut cursor, chunk) {
                        assert_eq!(b, next);
                        let size = e - b;
                        assert!(size >= 1 && size <= last_size);
                        assert!(size >= min || e == n);
                        if chunk == 0 {
                            assert_eq!(size, n.div_ceil(threads).max(min).min(n));
                        }
                        assert_eq!(claims.unclaimed_from(chunk), b);
                        next = e;
                        last_size = size;
                        chunk += 1;
                    }
                    assert_eq!(next, n);
                    assert_eq!(claims.unclaimed_from(chunk), n);
                }
            }
        }
    }

    /// Guided claims by threads taking turns, each with its own cursor: each
    /// task once, the chunk counter at most `chunks + threads`.
    #[test]
    fn guided_claims_cover_each_task_once() {
        for threads in 1..=6usize {
            for min in [1, 2, 7] {
                for n in 0..=300usize {
                    let claims = GuidedClaims::new(n, min, threads).unwrap();
                    let counter = AtomicUsize::new(0);
                    let mut cursors = vec![GuidedCursor::default(); threads];
                    let mut hits = vec![0u8; n];
                    let mut done = vec![false; threads];
                    while done.iter().any(|d| !d) {
                        for thread in (0..threads).rev() {
                            if done[thread] {
                                continue;
                            }
                            match claims.claim(&counter, &mut cursors[thread]) {
                                Some((b, e)) => hits[b..e].iter_mut().for_each(|h| *h += 1),
                                None => done[thread] = true,
                            }
                        }
                    }
                    assert!(
                        hits.iter().all(|&h| h == 1),
                        "n={n} min={min} threads={threads}"
                    );
                    assert!(counter.into_inner() <= n + threads);
                }
            }
        }
    }

    #[test]
    fn guided_claims_near_usize_max_do_not_overflow() {
        let n = usize::MAX - 8;
        let claims = GuidedClaims::new(n, 1, 8).unwrap();
        assert!(GuidedClaims::new(n, 1, 9).is_none());
        let mut cursor = GuidedCursor::default();
        let (mut chunk, mut next) = (0, 0usize);
        while let Some((b, e)) = claims.next_chunk(&mut cursor, chunk) {
            assert_eq!(b, next);
            next = e;
            chunk += 1;
        }
        assert_eq!(next, n);
    }
}
