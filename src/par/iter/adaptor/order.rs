//! Adaptors that reorder or thin out the positions of an indexed producer:
//! `rev`, `step_by` and `interleave` (and so `interleave_shortest`).
//!
//! Each keeps the producer contract: a block of the adaptor hands every
//! base position it stands for to the base exactly once, either to a
//! `range` (which yields or drops the item) or to `drop_range`.

use super::{clone_parts, DropPart};
use crate::par::producer::{Indexed, Producer};

/// `rev`: position `p` is the base's position `len - 1 - p`.
///
/// A block `[b, e)` is the base's positions `len - e .. len - b`, yielded
/// from the top down. The base's range iterators are plain `Iterator`s
/// (not all of them are double-ended: `fold` partials, `map_init` states,
/// owned `Vec` items), so [`RevIter`] asks the base for one position at a
/// time, `range(p, p + 1)`, which an indexed base answers with exactly one
/// item. That keeps every base position handed out once, and the ones a
/// stopped or panicking block never reached are dropped by the iterator's
/// `Drop`. The cost is one base range per item (no allocation); a
/// `map_init` under `rev` makes its state once per item.
#[derive(Clone, Debug)]
pub struct Rev<P>(pub(in crate::par) P);

/// The iterator of one range of [`Rev`]: the base's positions
/// `begin..end`, from `end - 1` down to `begin`.
#[derive(Debug)]
pub struct RevIter<'a, P: Producer> {
    base: &'a P,
    /// The positions not handed out yet are `begin..end`.
    begin: usize,
    end: usize,
}

impl<P: Indexed> Iterator for RevIter<'_, P> {
    type Item = P::Item;

    #[inline]
    fn next(&mut self) -> Option<P::Item> {
        if self.end == self.begin {
            return None;
        }
        self.end -= 1;
        // SAFETY: position `end` belongs to this range and is handed out
        // once: `end` only goes down, and `Drop` hands out only
        // `begin..end`, below it. An indexed base yields its one item.
        unsafe { self.base.range(self.end, self.end + 1) }.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.begin;
        (left, Some(left))
    }
}

impl<P: Producer> Drop for RevIter<'_, P> {
    fn drop(&mut self) {
        let (begin, end) = (self.begin, self.end);
        self.end = begin;
        // SAFETY: the positions `begin..end` of this range were never
        // handed out (see `next`).
        unsafe { self.base.drop_range(begin, end) }
    }
}

// SAFETY: position `p` maps to the base's position `len - 1 - p`, a
// bijection, so each base position is handed out once; one item each.
unsafe impl<P: Indexed> Producer for Rev<P> {
    type Item = P::Item;
    type Iter<'a>
        = RevIter<'a, P>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let len = self.0.len();
        RevIter {
            base: &self.0,
            begin: len - end,
            end: len - begin,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let len = self.0.len();
        // SAFETY: forwarded from the caller, mirrored.
        unsafe { self.0.drop_range(len - end, len - begin) }
    }
}
// SAFETY: one item per position.
unsafe impl<P: Indexed> Indexed for Rev<P> {}

/// `step_by(step)`: position `p` is the base's position `p * step`.
///
/// A block `[b, e)` owns the base's positions `b * step .. e * step` (cut
/// to the base's length): the ones it yields and the skipped ones after
/// each, so every base position belongs to exactly one block. The block
/// runs the base's range through `std`'s `step_by`, which yields its first
/// item and every `step`-th after it; the skipped items are taken and
/// dropped on the way, as a serial `iter.step_by(step)` does (a `map`
/// before `step_by` runs on them too, as in std and rayon).
#[derive(Clone, Debug)]
pub struct StepBy<P> {
    base: P,
    step: usize,
    /// `ceil(base.len() / step)`.
    len: usize,
}

impl<P: Producer> StepBy<P> {
    /// `base` with `step`, whose length `len` is `ceil(base.len() / step)`
    /// (`step_by` divides while the iterator still owns the items, so that
    /// a step of 0 panics as rayon's does and drops them).
    pub(in crate::par) fn new(base: P, step: usize, len: usize) -> Self {
        StepBy { base, step, len }
    }

    /// The base positions of the block `[begin, end)`.
    fn base_range(&self, begin: usize, end: usize) -> (usize, usize) {
        let n = self.base.len();
        (
            begin.saturating_mul(self.step).min(n),
            end.saturating_mul(self.step).min(n),
        )
    }
}

// SAFETY: the blocks' base ranges `b * step .. e * step` are disjoint and
// cover the base; a range of `e - b` positions holds between
// `(e - b - 1) * step + 1` and `(e - b) * step` base items, of which
// `step_by` yields exactly `e - b`.
unsafe impl<P: Indexed> Producer for StepBy<P> {
    type Item = P::Item;
    type Iter<'a>
        = core::iter::StepBy<P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let (first, last) = self.base_range(begin, end);
        // SAFETY: forwarded from the caller, scaled by the step.
        unsafe { self.base.range(first, last) }.step_by(self.step)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let (first, last) = self.base_range(begin, end);
        // SAFETY: as in `range`.
        unsafe { self.base.drop_range(first, last) }
    }
}
// SAFETY: one item per position.
unsafe impl<P: Indexed> Indexed for StepBy<P> {}

/// `interleave(other)`: `a[0], b[0], a[1], b[1], ...`, then the rest of the
/// longer side.
///
/// The positions of a block `[s, e)` that come from `a` are a contiguous
/// run of `a`'s positions, and so are `b`'s, so a block is one range of
/// each side, merged by [`InterleaveIter`]: no per-item calls.
#[derive(Debug)]
pub struct Interleave<A, B> {
    pub(in crate::par) a: A,
    pub(in crate::par) b: B,
}

impl<A: Producer + Clone, B: Clone> Clone for Interleave<A, B> {
    fn clone(&self) -> Self {
        let (a, b) = clone_parts(&self.a, || self.b.clone());
        Interleave { a, b }
    }
}

impl<A: Producer, B: Producer> Interleave<A, B> {
    /// How many of the positions below `p` come from `a` and from `b`.
    fn before(&self, p: usize) -> (usize, usize) {
        let (la, lb) = (self.a.len(), self.b.len());
        let both = la.min(lb);
        if p <= 2 * both {
            (p - p / 2, p / 2)
        } else if la > lb {
            (p - both, both)
        } else {
            (both, p - both)
        }
    }

    /// `a`'s and `b`'s positions in the block `[begin, end)`.
    fn parts(&self, begin: usize, end: usize) -> ((usize, usize), (usize, usize)) {
        let ((a0, b0), (a1, b1)) = (self.before(begin), self.before(end));
        ((a0, a1), (b0, b1))
    }
}

/// The iterator of one range of [`Interleave`]: `a`'s part and `b`'s part,
/// alternating, then whatever is left of either.
#[derive(Debug)]
pub struct InterleaveIter<A, B> {
    a: A,
    b: B,
    a_left: usize,
    b_left: usize,
    /// Whether `b` comes next while both have items.
    b_next: bool,
}

impl<A: Iterator, B: Iterator<Item = A::Item>> Iterator for InterleaveIter<A, B> {
    type Item = A::Item;

    #[inline]
    fn next(&mut self) -> Option<A::Item> {
        if self.b_left > 0 && (self.b_next || self.a_left == 0) {
            self.b_left -= 1;
            self.b_next = false;
            self.b.next()
        } else if self.a_left > 0 {
            self.a_left -= 1;
            self.b_next = true;
            self.a.next()
        } else {
            None
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.a_left + self.b_left;
        (left, Some(left))
    }
}

// SAFETY: the positions of `[begin, end)` map one-to-one to `a`'s run and
// `b`'s run (`parts`), disjoint between blocks; both sides are indexed, so
// the counts are the items.
unsafe impl<A: Indexed, B: Indexed<Item = A::Item>> Producer for Interleave<A, B> {
    type Item = A::Item;
    type Iter<'a>
        = InterleaveIter<A::Iter<'a>, B::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        // `interleave` checked that the sum fits.
        self.a.len() + self.b.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let ((a0, a1), (b0, b1)) = self.parts(begin, end);
        let both = self.a.len().min(self.b.len());
        InterleaveIter {
            // SAFETY: forwarded from the caller, each run to its side.
            a: unsafe { self.a.range(a0, a1) },
            // SAFETY: as above.
            b: unsafe { self.b.range(b0, b1) },
            a_left: a1 - a0,
            b_left: b1 - b0,
            b_next: begin < 2 * both && begin % 2 == 1,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let ((a0, a1), (b0, b1)) = self.parts(begin, end);
        // SAFETY: as in `range`; `b`'s run goes even if a `Drop` in `a`'s
        // panics.
        let b = unsafe { DropPart::new(&self.b, b0, b1) };
        // SAFETY: as in `range`.
        unsafe { self.a.drop_range(a0, a1) };
        drop(b);
    }
}
// SAFETY: one item per position.
unsafe impl<A: Indexed, B: Indexed<Item = A::Item>> Indexed for Interleave<A, B> {}
