//! Adaptors that cut or join positions: `skip` and `take` (indexed, as in
//! rayon) and `chain`.
//!
//! A position the adaptor never hands to the driver (the ones `skip` and
//! `take` cut off) is dropped when the adaptor is, as `zip` drops the
//! longer side's tail, so an owning source's items are still dropped
//! exactly once.

use super::{Indexed, Producer};

/// `skip(n)`: the positions from `n` on.
#[derive(Debug)]
pub struct Skip<P: Producer> {
    pub(in crate::par) base: P,
    /// Positions cut off at the front: `min(n, base.len())`.
    pub(in crate::par) skipped: usize,
}

// SAFETY: hands position `i` of its own to position `skipped + i` of the
// base, once; the base's first `skipped` positions only to `drop`.
unsafe impl<P: Indexed> Producer for Skip<P> {
    type Item = P::Item;
    type Iter<'a>
        = P::Iter<'a>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.base.len() - self.skipped
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller, shifted past the cut.
        unsafe { self.base.range(self.skipped + begin, self.skipped + end) }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: as in `range`.
        unsafe {
            self.base
                .drop_range(self.skipped + begin, self.skipped + end)
        }
    }
}
// SAFETY: one item per position of an indexed base.
unsafe impl<P: Indexed> Indexed for Skip<P> {}

impl<P: Producer> Drop for Skip<P> {
    fn drop(&mut self) {
        // SAFETY: the first `skipped` positions are never handed out.
        unsafe { self.base.drop_range(0, self.skipped) }
    }
}

/// `take(n)`: the first `n` positions.
#[derive(Debug)]
pub struct Take<P: Producer> {
    pub(in crate::par) base: P,
    /// Positions kept: `min(n, base.len())`.
    pub(in crate::par) taken: usize,
}

// SAFETY: hands its positions to the same positions of the base, once; the
// base's positions from `taken` on only to `drop`.
unsafe impl<P: Indexed> Producer for Take<P> {
    type Item = P::Item;
    type Iter<'a>
        = P::Iter<'a>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.taken
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller; `end <= taken <= base.len()`.
        unsafe { self.base.range(begin, end) }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: as in `range`.
        unsafe { self.base.drop_range(begin, end) }
    }
}
// SAFETY: one item per position of an indexed base.
unsafe impl<P: Indexed> Indexed for Take<P> {}

impl<P: Producer> Drop for Take<P> {
    fn drop(&mut self) {
        // SAFETY: the positions from `taken` on are never handed out.
        unsafe { self.base.drop_range(self.taken, self.base.len()) }
    }
}

/// `chain(other)`: `a`'s positions, then `b`'s.
#[derive(Debug)]
pub struct Chain<A, B> {
    pub(in crate::par) a: A,
    pub(in crate::par) b: B,
}

impl<A: Producer, B: Producer> Chain<A, B> {
    /// Splits `begin..end` into `a`'s part and `b`'s part (either may be
    /// empty), in each side's own positions.
    fn parts(&self, begin: usize, end: usize) -> ((usize, usize), (usize, usize)) {
        let split = self.a.len();
        (
            (begin.min(split), end.min(split)),
            (begin.max(split) - split, end.max(split) - split),
        )
    }
}

// SAFETY: hands position `i` to `a`'s position `i` below `a.len()`, else to
// `b`'s position `i - a.len()`, once; an empty part hands out nothing.
unsafe impl<A: Producer, B: Producer<Item = A::Item>> Producer for Chain<A, B> {
    type Item = A::Item;
    type Iter<'a>
        = core::iter::Chain<A::Iter<'a>, B::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = A::EXACT && B::EXACT;

    fn len(&self) -> usize {
        self.a.len() + self.b.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let ((a_begin, a_end), (b_begin, b_end)) = self.parts(begin, end);
        // SAFETY: forwarded from the caller, each part to its side.
        unsafe {
            self.a
                .range(a_begin, a_end)
                .chain(self.b.range(b_begin, b_end))
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let ((a_begin, a_end), (b_begin, b_end)) = self.parts(begin, end);
        // SAFETY: as in `range`.
        unsafe {
            self.a.drop_range(a_begin, a_end);
            self.b.drop_range(b_begin, b_end);
        }
    }
}
// SAFETY: one item per position when both sides have one.
unsafe impl<A: Indexed, B: Indexed<Item = A::Item>> Indexed for Chain<A, B> {}
