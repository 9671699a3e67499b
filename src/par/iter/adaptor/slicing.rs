//! Adaptors that cut or join positions: `skip` and `take` (a [`Window`],
//! on indexed iterators as in rayon) and `chain`.
//!
//! A position the adaptor never hands to the driver (the ones a window cuts
//! off) is dropped when the adaptor is, as `zip` drops the
//! longer side's tail, so an owning source's items are still dropped
//! exactly once.

use super::{clone_parts, DropPart};
use crate::par::producer::{Indexed, Producer};

/// `skip` and `take`: the base's positions `begin..end`, renumbered from 0.
#[derive(Clone, Debug)]
pub struct Window<P: Producer> {
    pub(in crate::par) base: P,
    /// `begin <= end <= base.len()`.
    pub(in crate::par) begin: usize,
    pub(in crate::par) end: usize,
}

impl<P: Producer> Window<P> {
    /// `base`'s positions from `skip` on, at most `take` of them.
    pub(in crate::par) fn new(base: P, skip: usize, take: usize) -> Self {
        let begin = skip.min(base.len());
        let end = begin + take.min(base.len() - begin);
        Window { base, begin, end }
    }
}

// SAFETY: hands position `i` of its own to position `begin + i` of the
// base, once; the base's positions outside `begin..end` only to `drop`.
unsafe impl<P: Indexed> Producer for Window<P> {
    type Item = P::Item;
    type Iter<'a>
        = P::Iter<'a>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.end - self.begin
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller, shifted into the window.
        unsafe { self.base.range(self.begin + begin, self.begin + end) }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: as in `range`.
        unsafe { self.base.drop_range(self.begin + begin, self.begin + end) }
    }
}
// SAFETY: one item per position of an indexed base.
unsafe impl<P: Indexed> Indexed for Window<P> {}

impl<P: Producer> Drop for Window<P> {
    fn drop(&mut self) {
        // SAFETY: the positions outside the window are never handed out;
        // the tail goes even if a `Drop` in the head panics.
        let tail = unsafe { DropPart::new(&self.base, self.end, self.base.len()) };
        // SAFETY: as above.
        unsafe { self.base.drop_range(0, self.begin) };
        drop(tail);
    }
}

/// `chain(other)`: `a`'s positions, then `b`'s.
#[derive(Debug)]
pub struct Chain<A, B> {
    pub(in crate::par) a: A,
    pub(in crate::par) b: B,
}

impl<A: Producer + Clone, B: Clone> Clone for Chain<A, B> {
    fn clone(&self) -> Self {
        let (a, b) = clone_parts(&self.a, || self.b.clone());
        Chain { a, b }
    }
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
    const BOUNDLESS: bool = A::BOUNDLESS || B::BOUNDLESS;
    const HEAVY: bool = A::HEAVY || B::HEAVY;

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

    #[inline]
    fn live_from(&self, begin: usize) -> usize {
        let a_len = self.a.len();
        if begin < a_len {
            let live = self.a.live_from(begin);
            if live < a_len {
                return live;
            }
        }
        a_len + self.b.live_from(begin.max(a_len) - a_len)
    }

    /// `b`'s part from its end, then `a`'s.
    unsafe fn rfind_map<R, T: FnMut(A::Item) -> Option<R>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut T,
    ) -> Option<R> {
        let ((a_begin, a_end), (b_begin, b_end)) = self.parts(begin, end);
        // SAFETY: as in `range`; `a`'s part goes even if `b`'s search
        // panics, or unseen if it has the answer.
        let a = unsafe { DropPart::new(&self.a, a_begin, a_end) };
        // SAFETY: as in `range`.
        if let Some(answer) = unsafe { self.b.rfind_map(b_begin, b_end, test) } {
            return Some(answer);
        }
        core::mem::forget(a);
        // SAFETY: as in `range`.
        unsafe { self.a.rfind_map(a_begin, a_end, test) }
    }
}
// SAFETY: one item per position when both sides have one.
unsafe impl<A: Indexed, B: Indexed<Item = A::Item>> Indexed for Chain<A, B> {}
