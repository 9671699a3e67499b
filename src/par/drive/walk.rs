//! A thread's walk through its static range, and the record each thread
//! leaves in its slot.

use super::consumer::Consumer;
use super::STOP_BLOCK;
use crate::par::producer::Producer;
use crate::par::settings::Config;
use crate::schedule::split::Shares;

/// One thread's result, left in its slot. The caller writes every slot
/// before the fork with nothing folded and nothing handed out, so a share
/// that never runs (or dies before its guard exists) still leaves a true
/// record.
pub(super) struct Record<A> {
    /// `None` if the thread's share unwound or never ran.
    pub(super) acc: Option<A>,
    /// Positions `begin..done` of its static range were folded.
    pub(super) begin: usize,
    pub(super) done: usize,
    /// Positions `handed..end` of its static range were never handed out.
    pub(super) handed: usize,
    pub(super) end: usize,
}

impl<A> Record<A> {
    /// The record of a static range (or, for claims, an empty one) that no
    /// share has touched yet.
    #[inline]
    pub(super) fn untouched(begin: usize, end: usize) -> Self {
        Record {
            acc: None,
            begin,
            done: begin,
            handed: begin,
            end,
        }
    }
}

/// A thread's walk through its static range.
#[derive(Clone, Copy)]
pub(super) struct Walk {
    pub(super) begin: usize,
    /// Folded up to here.
    pub(super) done: usize,
    /// Handed out up to here (folded or dropped).
    pub(super) cursor: usize,
    pub(super) end: usize,
    /// Thread 0: where its current probe block ends (`begin` + 1, 4, 16,
    /// ...; past `cursor` unless it saturated at `usize::MAX`); the
    /// others: `usize::MAX`.
    pub(super) probe_end: usize,
}

impl Walk {
    /// No range: what the caller's guard holds before its first partial.
    #[inline]
    pub(super) fn empty() -> Self {
        Walk {
            begin: 0,
            done: 0,
            cursor: 0,
            end: 0,
            probe_end: usize::MAX,
        }
    }

    /// Thread `thread`'s walk of a static call whose positions `shares`
    /// splits.
    #[inline]
    pub(super) fn new(shares: Shares<usize>, thread: usize) -> Self {
        let (begin, count) = shares.of(thread);
        Walk {
            begin,
            done: begin,
            cursor: begin,
            end: begin + count,
            probe_end: if thread == 0 { begin + 1 } else { usize::MAX },
        }
    }

    /// One walk over all `n` positions, with no probe blocks: a call that
    /// runs alone from the start and whose consumer does not depend on
    /// the split (`Consumer::SPLIT_FREE`).
    #[inline]
    pub(super) fn whole(n: usize) -> Self {
        Walk {
            begin: 0,
            done: 0,
            cursor: 0,
            end: n,
            probe_end: usize::MAX,
        }
    }

    /// For a boundless producer (`par_bridge`): drops the dead positions
    /// at the cursor unseen and moves past them (to the range's end if the
    /// rest is dead); they count as done, since they yield nothing. A no-op
    /// for every other producer.
    #[inline]
    pub(super) fn skip_dead<P: Producer>(&mut self, producer: &P) {
        if !P::BOUNDLESS || self.cursor >= self.end {
            return;
        }
        let live = producer.live_from(self.cursor).min(self.end);
        if live <= self.cursor {
            return;
        }
        // SAFETY: positions `cursor..end` of a walk were handed to its
        // thread and never handed out; dead ones hold nothing to drop.
        unsafe { producer.drop_range(self.cursor, live) };
        self.cursor = live;
        self.done = live;
        // The probe goes on from the block that holds the new cursor.
        self.pass_probe_ends();
    }

    /// The next block: at most `blocks.max` positions. Thread 0's blocks
    /// end at `begin + 1, 4, 16, ...` (the cutoff's probe), so from the
    /// 64th position on they start at multiples of 64 (unless a `max_len`
    /// that is not one cuts them): a block that starts off a cache line
    /// would make a vector loop split about one store in four across two
    /// lines, which slows a memory-bound loop measurably.
    ///
    /// With a `min` above 1 (`with_min_len`), every block, probe blocks
    /// included, has at least `min` positions, except a range shorter
    /// than `min` ([`Blocks::fit`]).
    #[inline]
    pub(super) fn next_block(&mut self, blocks: Blocks) -> Option<(usize, usize)> {
        let begin = self.cursor;
        if begin >= self.end {
            return None;
        }
        let left = self.end - begin;
        // `probe_end > begin` (a saturated `usize::MAX` is above any
        // `begin < end`): the others' `usize::MAX` bounds nothing.
        let size = blocks.fit(left, blocks.max.min(left).min(self.probe_end - begin));
        self.cursor = begin + size;
        if self.cursor >= self.probe_end {
            self.pass_probe_ends();
        }
        Some((begin, self.cursor))
    }

    /// Moves the probe's next end past the cursor: `begin` + 4 times as
    /// far, as often as it takes (more than once only after a block that
    /// `with_min_len` made longer, or dead positions skipped). A no-op for
    /// the others' `usize::MAX`, which it also stops at (a cursor at
    /// `usize::MAX` is the end of a walk).
    #[inline]
    fn pass_probe_ends(&mut self) {
        while self.probe_end != usize::MAX && self.cursor >= self.probe_end {
            let reach = (self.probe_end - self.begin).saturating_mul(4);
            self.probe_end = self.begin.saturating_add(reach);
        }
    }
}

/// The bounds on a call's blocks: `with_max_len` (and the early-stop
/// block) and `with_min_len`. `min` wins over `max`, as in rayon: `max`
/// is at least `min`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocks {
    pub(super) max: usize,
    pub(super) min: usize,
}

impl Blocks {
    /// The bounds that `config` (`with_max_len`, `with_min_len`), the
    /// consumer (an early stop's block) and the producer (a heavy one's
    /// positions) set.
    #[inline]
    pub(super) fn of<P: Producer, C: Consumer<P::Item>>(config: &Config) -> Self {
        let mut max_block = config.max_len.max(1);
        if C::STOPS {
            max_block = max_block.min(if P::HEAVY { 1 } else { STOP_BLOCK });
        }
        // `min` wins over `max`, as in rayon.
        Blocks {
            max: max_block.max(config.min_len),
            min: config.min_len,
        }
    }

    /// The size of the next block of a range with `left` positions to go,
    /// given the size `want` (`1..=left`) the walk would take: `want`
    /// itself when `min` is 1. Otherwise at least `min`, and never leaving
    /// a rest shorter than `min`: a range of fewer than `2 * min` goes in
    /// one block (so a block can reach `2 * min - 1`, as rayon's pieces
    /// can), and a block that would leave a short rest stops `min` before
    /// the end (which keeps it at most `max`, since it shrinks).
    #[inline]
    pub(super) fn fit(self, left: usize, want: usize) -> usize {
        if self.min <= 1 {
            return want;
        }
        if left < self.min.saturating_mul(2) {
            return left;
        }
        let size = want.max(self.min);
        if left - size < self.min {
            left - self.min
        } else {
            size
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Blocks, Walk};
    use crate::schedule::split::Shares;
    use std::vec::Vec;

    /// Thread 0's blocks end at `begin` + 1, 4, 16, ... (cut by `max`,
    /// stretched by `min`), the layout that a float reduction's bits
    /// depend on: checked against the rule written out the slow way, and
    /// the others' ranges go in blocks of `max`.
    #[test]
    fn probe_blocks_end_at_powers_of_four() {
        for n in [
            1usize, 2, 3, 4, 5, 16, 17, 64, 65, 200, 256, 1000, 4097, 70_000,
        ] {
            for (min, max) in [
                (1, usize::MAX),
                (1, 7),
                (1, 64),
                (3, 100),
                (10, 1),
                (50, 60),
            ] {
                let blocks = Blocks {
                    max: max.max(min),
                    min,
                };
                for used in [1usize, 2, 3] {
                    let used = used.min(n / min).max(1);
                    let shares = Shares::new(n, used);
                    for thread in 0..used {
                        let mut walk = Walk::new(shares, thread);
                        let (begin, end) = (walk.begin, walk.end);
                        // The rule: an offset `grow` that moves on, 4 times
                        // as far, once a block reaches it.
                        let (mut cursor, mut grow, mut expected) = (begin, 1usize, Vec::new());
                        while cursor < end {
                            let left = end - cursor;
                            let mut want = blocks.max.min(left);
                            if thread == 0 {
                                want = want.min(grow - (cursor - begin));
                            }
                            let size = blocks.fit(left, want);
                            expected.push((cursor, cursor + size));
                            cursor += size;
                            while thread == 0 && cursor - begin >= grow {
                                grow *= 4;
                            }
                        }
                        let mut got = Vec::new();
                        while let Some(block) = walk.next_block(blocks) {
                            got.push(block);
                        }
                        assert_eq!(got, expected, "n {n} min {min} max {max} thread {thread}");
                    }
                }
            }
        }
    }

    /// Every block of every thread's walk is within `min..=max` (or `min`
    /// up to `2 * min - 1` when `min > max`), except a range shorter than
    /// `min`, and the blocks tile the range.
    #[test]
    fn blocks_respect_min_and_max_and_tile_the_range() {
        for n in [1usize, 2, 5, 17, 100, 1000, 4097] {
            for used in [1usize, 2, 3, 8] {
                for (min, max) in [
                    (1, usize::MAX),
                    (1, 7),
                    (3, 100),
                    (10, 1),
                    (64, 64),
                    (50, 60),
                ] {
                    let used = used.min(n / min).max(1);
                    let blocks = Blocks {
                        max: max.max(min),
                        min,
                    };
                    let shares = Shares::new(n, used);
                    let mut next = 0;
                    for thread in 0..used {
                        let mut walk = Walk::new(shares, thread);
                        let range = walk.end - walk.begin;
                        let mut sizes = Vec::new();
                        while let Some((begin, end)) = walk.next_block(blocks) {
                            assert_eq!(begin, next);
                            next = end;
                            sizes.push(end - begin);
                        }
                        for &size in &sizes {
                            assert!(size >= min.min(range), "n {n} min {min}: {sizes:?}");
                            assert!(size <= blocks.max.max(2 * min - 1), "{sizes:?}");
                        }
                    }
                    assert_eq!(next, n);
                }
            }
        }
    }
}
