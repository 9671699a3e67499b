//! The producers behind `par_split` and `par_split_inclusive` on slices,
//! and their mutable versions: the sub-slices between the elements a
//! predicate matches, in `std`'s order and with `std`'s edge cases.
//!
//! **Shared** ([`SliceSplitProducer`]): position `i` is element `i`, plus
//! one more position, `len`, where the empty piece after a trailing
//! separator (or the one piece of an empty slice) starts. Each piece
//! belongs to the position where it starts (0, or right after a
//! separator): `range(begin, end)` looks at element `begin - 1`, then
//! searches `begin..end - 1` for a separator to find its first start, and
//! yields pieces while they start before `end`; the last one may run on
//! past `end`, reading the shared slice. Nothing is allocated.
//!
//! **Mutable** ([`SplitMutProducer`]): the same cut cannot find piece
//! starts without reading elements of a piece that another thread may
//! already hold as `&mut` (a data race, and a wrong cut if that thread
//! writes separators). So the separators are found first, in one parallel
//! pass over the elements (each read by one thread, before any piece
//! exists), into one `Vec` of indices; position `k` is then piece `k`,
//! cut from that list: one item per position, and disjoint pieces.

use crate::par::producer::Indexed;
use crate::par::producer::{Producer, SliceMutProducer};
use std::vec::Vec;

/// How a slice split cuts its pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SliceCut {
    /// `split`: every piece, separators left out.
    Split,
    /// `split_inclusive`: each piece keeps its separator; an empty last
    /// piece is left out.
    Inclusive,
}

impl SliceCut {
    /// How many elements past a piece's end (its separator) the piece
    /// takes: 1 if it keeps its separator.
    #[inline]
    fn kept(self) -> usize {
        usize::from(self == SliceCut::Inclusive)
    }
}

/// Sub-slices between the elements `separator` matches:
/// `slice.par_split(f)`, `slice.par_split_inclusive(f)`.
#[derive(Debug)]
pub struct SliceSplitProducer<'a, T, P> {
    pub(super) slice: &'a [T],
    pub(super) separator: P,
    /// Whether each piece keeps its separator (`split_inclusive`, which
    /// has no empty last piece).
    pub(super) cut: SliceCut,
}

/// `Clone` for any `T` and a `Clone` separator.
impl<T, P: Clone> Clone for SliceSplitProducer<'_, T, P> {
    fn clone(&self) -> Self {
        SliceSplitProducer {
            slice: self.slice,
            separator: self.separator.clone(),
            cut: self.cut,
        }
    }
}

impl<T, P: Fn(&T) -> bool> SliceSplitProducer<'_, T, P> {
    /// The first piece start in `begin..end` (`begin < end <= len + 1`).
    fn first_start(&self, begin: usize, end: usize) -> Option<usize> {
        if begin == 0 || (self.separator)(&self.slice[begin - 1]) {
            return Some(begin);
        }
        // A later start `s < end` follows a separator at `s - 1`, in
        // `begin..end - 1`.
        let window = &self.slice[begin..(end - 1).min(self.slice.len())];
        let at = window.iter().position(&self.separator)?;
        Some(begin + at + 1)
    }
}

// SAFETY: `range` yields only the pieces that start in `begin..end` (see
// the module docs), reading the shared slice only; `EXACT` is false.
unsafe impl<'a, T: Sync, P: Fn(&T) -> bool + Sync> Producer for SliceSplitProducer<'a, T, P> {
    type Item = &'a [T];
    type Iter<'b>
        = SlicePieces<'a, 'b, T, P>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.slice.len() + 1
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let next = if begin < end {
            self.first_start(begin, end)
        } else {
            None
        };
        SlicePieces {
            producer: self,
            next,
            end,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The pieces of one range of a [`SliceSplitProducer`].
#[derive(Debug)]
pub struct SlicePieces<'a, 'b, T, P> {
    producer: &'b SliceSplitProducer<'a, T, P>,
    /// Where the next piece starts; `None` once the last piece is out.
    next: Option<usize>,
    /// Pieces starting here or later belong to another range.
    end: usize,
}

impl<'a, T, P: Fn(&T) -> bool> Iterator for SlicePieces<'a, '_, T, P> {
    type Item = &'a [T];

    fn next(&mut self) -> Option<&'a [T]> {
        let start = self.next.filter(|&start| start < self.end)?;
        let rest = &self.producer.slice[start..];
        match rest.iter().position(&self.producer.separator) {
            Some(at) => {
                self.next = Some(start + at + 1);
                Some(&rest[..at + self.producer.cut.kept()])
            }
            None => {
                self.next = None;
                (!rest.is_empty() || self.producer.cut == SliceCut::Split).then_some(rest)
            }
        }
    }
}

/// Mutable sub-slices between the elements a predicate matched:
/// `slice.par_split_mut(f)`, `slice.par_split_inclusive_mut(f)`. Position
/// `k` is piece `k`; see the module docs.
#[derive(Debug)]
pub struct SplitMutProducer<'a, T> {
    slice: SliceMutProducer<'a, T>,
    /// The separators' indices, increasing.
    separators: Vec<usize>,
    cut: SliceCut,
}

impl<'a, T: Send> SplitMutProducer<'a, T> {
    /// The pieces of `slice` between the given separators (increasing
    /// indices below its length), cut as `cut` says.
    pub(super) fn from_separators(
        slice: &'a mut [T],
        separators: Vec<usize>,
        cut: SliceCut,
    ) -> Self {
        debug_assert!(separators.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(separators.last().map_or(true, |&last| last < slice.len()));
        SplitMutProducer {
            slice: SliceMutProducer::new(slice),
            separators,
            cut,
        }
    }

    /// Finds the separators of `slice` (in parallel, on the current pool)
    /// and takes the slice.
    pub(super) fn new<P>(slice: &'a mut [T], separator: P, cut: SliceCut) -> Self
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        use crate::par::iter::convert::IntoParallelIterator;
        use crate::par::iter::indexed::IndexedParallelIterator;
        use crate::par::iter::ParallelIterator;
        let separators = (&mut *slice)
            .into_par_iter()
            .enumerate()
            .filter_map(|(i, item)| separator(item).then_some(i))
            .collect();
        SplitMutProducer {
            slice: SliceMutProducer::new(slice),
            separators,
            cut,
        }
    }

    /// Elements `start..stop` of piece `k < len()`.
    fn bounds(&self, k: usize) -> (usize, usize) {
        let start = if k == 0 {
            0
        } else {
            self.separators[k - 1] + 1
        };
        let stop = match self.separators.get(k) {
            Some(&at) => at + self.cut.kept(),
            None => self.slice.len(),
        };
        (start, stop)
    }
}

// SAFETY: piece `k` is `bounds(k)`: pieces of distinct positions are
// disjoint (each lies between two consecutive separators, and takes at most
// the later one), in bounds, and each position is handed out once (the
// caller's contract), so no two `&mut` pieces alias. One item per position.
unsafe impl<'a, T: Send> Producer for SplitMutProducer<'a, T> {
    type Item = &'a mut [T];
    type Iter<'b>
        = SplitMutRange<'a, 'b, T>
    where
        Self: 'b;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        let (len, count) = (self.slice.len(), self.separators.len());
        match self.separators.last() {
            _ if self.cut == SliceCut::Split => count + 1,
            // `split_inclusive` has no empty last piece.
            Some(&last) if last + 1 == len => count,
            _ if len == 0 => 0,
            _ => count + 1,
        }
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        SplitMutRange {
            producer: self,
            next: begin,
            end,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

// SAFETY: one item per position (above).
unsafe impl<T: Send> Indexed for SplitMutProducer<'_, T> {}

/// The pieces of one range of a [`SplitMutProducer`].
#[derive(Debug)]
pub struct SplitMutRange<'a, 'b, T> {
    producer: &'b SplitMutProducer<'a, T>,
    next: usize,
    end: usize,
}

impl<'a, T: Send> Iterator for SplitMutRange<'a, '_, T> {
    type Item = &'a mut [T];

    fn next(&mut self) -> Option<&'a mut [T]> {
        if self.next >= self.end {
            return None;
        }
        let (start, stop) = self.producer.bounds(self.next);
        self.next += 1;
        // SAFETY: piece `next - 1` of this range's positions, which no
        // other range holds, and which this iterator yields once; pieces
        // are disjoint and in bounds (the `Producer` impl above).
        Some(unsafe { self.producer.slice.sub_slice(start, stop) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::{SliceCut, SliceSplitProducer};
    use crate::par::producer::Producer;
    use std::vec::Vec;

    /// Every way of cutting the positions in two gives `std`'s pieces.
    #[test]
    fn two_ranges_at_every_cut_give_stds_pieces() {
        let data = [0, 1, 0, 0, 2, 3, 0, 4, 0];
        for len in 0..=data.len() {
            for first in 0..len.max(1) {
                let slice = &data[first.min(len)..len];
                for cut in [SliceCut::Split, SliceCut::Inclusive] {
                    let separator = |x: &i32| *x == 0;
                    let expected: Vec<&[i32]> = match cut {
                        SliceCut::Inclusive => slice.split_inclusive(separator).collect(),
                        SliceCut::Split => slice.split(separator).collect(),
                    };
                    let producer = SliceSplitProducer {
                        slice,
                        separator,
                        cut,
                    };
                    for middle in 0..=producer.len() {
                        // SAFETY: the two ranges cover the positions once.
                        let got: Vec<&[i32]> = unsafe {
                            producer
                                .range(0, middle)
                                .chain(producer.range(middle, producer.len()))
                                .collect()
                        };
                        assert_eq!(got, expected, "{slice:?} {cut:?} cut at {middle}");
                    }
                }
            }
        }
    }
}
