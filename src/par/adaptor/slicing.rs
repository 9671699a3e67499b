//! Adaptors that cut or join positions: `skip` and `take` (indexed, as in
//! rayon) and `chain`.
//!
//! A position the adaptor never hands to the driver (the ones `skip` and
//! `take` cut off) is dropped when the adaptor is, as `zip` drops the
//! longer side's tail, so an owning source's items are still dropped
//! exactly once.

use super::{DropPart, Indexed, Producer};

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

/// The iterator of one range of [`Chain`]: `a`'s part, then `b`'s. A side
/// whose part is empty gets no iterator at all, so a per-range state (a
/// `fold` partial, a `map_init` state) is made only for a side that has
/// positions in the range.
#[derive(Debug)]
pub struct ChainIter<A, B> {
    a: Option<A>,
    b: Option<B>,
}

impl<A: Iterator, B: Iterator<Item = A::Item>> Iterator for ChainIter<A, B> {
    type Item = A::Item;

    #[inline]
    fn next(&mut self) -> Option<A::Item> {
        if let Some(a) = &mut self.a {
            match a.next() {
                None => self.a = None,
                item => return item,
            }
        }
        self.b.as_mut()?.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let hint = |side: Option<(usize, Option<usize>)>| side.unwrap_or((0, Some(0)));
        let (a_low, a_high) = hint(self.a.as_ref().map(Iterator::size_hint));
        let (b_low, b_high) = hint(self.b.as_ref().map(Iterator::size_hint));
        let high = a_high.zip(b_high).and_then(|(a, b)| a.checked_add(b));
        (a_low.saturating_add(b_low), high)
    }

    /// Each side's own `fold`, so that its loop stays one plain loop.
    #[inline]
    fn fold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut f: F) -> Acc {
        let mut acc = init;
        if let Some(a) = self.a {
            acc = a.fold(acc, &mut f);
        }
        if let Some(b) = self.b {
            acc = b.fold(acc, &mut f);
        }
        acc
    }
}

// SAFETY: hands position `i` to `a`'s position `i` below `a.len()`, else to
// `b`'s position `i - a.len()`, once; an empty part is not handed out.
unsafe impl<A: Producer, B: Producer<Item = A::Item>> Producer for Chain<A, B> {
    type Item = A::Item;
    type Iter<'a>
        = ChainIter<A::Iter<'a>, B::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = A::EXACT && B::EXACT;

    fn len(&self) -> usize {
        // `chain` checked that the sum fits.
        self.a.len() + self.b.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let ((a_begin, a_end), (b_begin, b_end)) = self.parts(begin, end);
        ChainIter {
            // SAFETY: forwarded from the caller, each part to its side.
            a: (a_begin < a_end).then(|| unsafe { self.a.range(a_begin, a_end) }),
            // SAFETY: as above.
            b: (b_begin < b_end).then(|| unsafe { self.b.range(b_begin, b_end) }),
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let ((a_begin, a_end), (b_begin, b_end)) = self.parts(begin, end);
        // SAFETY: as in `range`; `b`'s part goes even if a `Drop` in `a`'s
        // panics.
        let b = unsafe { DropPart::new(&self.b, b_begin, b_end) };
        // SAFETY: as in `range`.
        unsafe { self.a.drop_range(a_begin, a_end) };
        drop(b);
    }
}
// SAFETY: one item per position when both sides have one.
unsafe impl<A: Indexed, B: Indexed<Item = A::Item>> Indexed for Chain<A, B> {}
