//! `par_drain`: rayon's [`ParallelDrainRange`] and [`ParallelDrainFull`],
//! and the draining sources of `Vec` and `String` (the other collections'
//! are in `drain_collections.rs`).
//!
//! A `Vec`'s drained items are owned by position, as
//! `Vec::into_par_iter`'s are ([`VecRange`]), in place in the vector's
//! buffer. When the iterator is made, the vector's length drops to the
//! start of the range, so the vector owns only the items before it; when
//! the producer drops (after the call handed every position out, or
//! dropped it unseen), the items after the range move down and the length
//! takes them back. So a panic anywhere in the call leaves the vector
//! valid with every item dropped once, and an iterator leaked with
//! `mem::forget` leaves the vector valid, holding the items before the
//! range (the rest leak, never drop), as `std`'s `Vec::drain` does.
//!
//! A `String`'s drained characters are read from the text in place; the
//! range is removed when the iterator drops (a leaked one leaves the
//! string as it was).

use super::str_split::ceil_boundary;
use crate::par::iter::par::Par;
use crate::par::iter::ParallelIterator;
use crate::par::producer::{Indexed, Producer, VecRange};
use core::ops::{Bound, Range, RangeBounds};
use std::string::String;
use std::vec::Vec;

/// A parallel iterator that moves a range of items out of a collection,
/// which keeps its capacity: `par_drain(range)` on `&mut Vec<T>`,
/// `&mut VecDeque<T>` and `&mut String` (rayon's trait of this name).
///
/// ```
/// use tine::prelude::*;
///
/// let mut v: Vec<i32> = (0..10).collect();
/// let drained: Vec<i32> = v.par_drain(2..=5).map(|x| x * 10).collect();
/// assert_eq!(drained, [20, 30, 40, 50]);
/// assert_eq!(v, [0, 1, 6, 7, 8, 9]);
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Moves the items of `range` out, in parallel. When the iterator
    /// drops, the whole range is removed, even if a call did not consume
    /// every item (the rest are dropped). If the iterator is leaked
    /// (`mem::forget`), how many items are removed is unspecified, but the
    /// collection stays valid and no item is dropped twice.
    ///
    /// # Panics
    /// As `std`'s `drain` of the collection: if the range's start is past
    /// its end or its end past the length (and, for a `String`, if either
    /// end is not on a character boundary).
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// A parallel iterator that moves every item out of a collection, which
/// keeps its capacity: `par_drain()` on `&mut BinaryHeap<T>`,
/// `&mut HashMap<K, V, S>` and `&mut HashSet<T, S>` (rayon's trait of
/// this name).
///
/// ```
/// use std::collections::HashSet;
/// use tine::prelude::*;
///
/// let mut set: HashSet<u32> = (1..=100).collect();
/// let sum: u32 = set.par_drain().sum();
/// assert_eq!(sum, 5050);
/// assert!(set.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Moves every item out, in parallel. When the iterator drops, the
    /// collection is empty, even if a call did not consume every item (the
    /// rest are dropped). If the iterator is leaked (`mem::forget`), how
    /// many items are removed is unspecified, but the collection stays
    /// valid and no item is dropped twice.
    fn par_drain(self) -> Self::Iter;
}

/// The positions `range` names in a collection of `len` items, checked as
/// `std`'s `drain` checks them (with its messages).
pub(super) fn drain_bounds(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&start) => start,
        Bound::Excluded(&start) => start
            .checked_add(1)
            .expect("attempted to index slice from after maximum usize"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&end) => end
            .checked_add(1)
            .expect("attempted to index slice up to maximum usize"),
        Bound::Excluded(&end) => end,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "slice index starts at {start} but ends at {end}"
    );
    assert!(
        end <= len,
        "range end index {end} out of range for slice of length {len}"
    );
    start..end
}

/// A range of a vector's buffer lent to a producer, with what it takes to
/// give the vector back its tail: the vector's length is the range's start
/// until [`Drained::close`].
#[derive(Debug)]
pub(super) struct Drained<T> {
    /// Position 0 of the range in the buffer, taken from `&mut` access so
    /// that items may be moved out and dropped in place through it.
    base: *mut T,
    /// The range's length: the producer's positions.
    len: usize,
    /// The items after the range, to move down when it closes.
    tail: usize,
}

impl<T> Drained<T> {
    /// Takes the items of `range` (checked by the caller with
    /// [`drain_bounds`], and again here) out of `vec`'s ownership, and the
    /// tail after it for the time being.
    pub(super) fn open(vec: &mut Vec<T>, range: Range<usize>) -> Self {
        assert!(range.start <= range.end && range.end <= vec.len());
        let (len, tail) = (range.len(), vec.len() - range.end);
        // Sound because shrinking the length leaks nothing for good: the range's
        // items belong to the positions, each moved out or dropped once
        // (the producer contract), and `close` gives the tail back. If
        // `close` never runs (a leaked iterator), they leak, never drop.
        // SAFETY: as argued just above.
        unsafe { vec.set_len(range.start) };
        // Sound because `range.start <= len <= capacity`, so the offset stays in
        // (or one past the end of) the allocation. `as_mut_ptr` makes no
        // reference to the items, so the pointer stays valid as long as
        // the buffer is neither moved nor freed: until `close`.
        // SAFETY: as argued just above.
        let base = unsafe { vec.as_mut_ptr().add(range.start) };
        Drained { base, len, tail }
    }

    /// The number of positions.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The items of positions `begin..end`, moved out as they are yielded.
    ///
    /// # Safety
    /// The producer contract: in bounds, each position handed out once,
    /// and before [`Drained::close`].
    pub(super) unsafe fn range(&self, begin: usize, end: usize) -> VecRange<'_, T> {
        VecRange::new(self.base, begin, end)
    }

    /// Drops the items of positions `begin..end` unseen.
    ///
    /// # Safety
    /// As for [`Drained::range`].
    pub(super) unsafe fn drop_range(&self, begin: usize, end: usize) {
        if core::mem::needs_drop::<T>() {
            // SAFETY: forwarded from the caller.
            drop(unsafe { self.range(begin, end) });
        }
    }

    /// Moves the tail down over the range and gives the vector its length
    /// back. Positions that were never handed out are overwritten: their
    /// items leak, they do not drop.
    ///
    /// # Safety
    /// `vec` is the vector given to [`Drained::open`], untouched since,
    /// and no range of this one is still alive.
    pub(super) unsafe fn close(&self, vec: &mut Vec<T>) {
        let start = vec.len();
        // Sound because the tail's `self.tail` items are still initialized right
        // after the range, in the same buffer (untouched since `open`), and
        // no one else reads them; `copy` allows the overlap. Afterwards
        // `start + tail` items are initialized at the front.
        // SAFETY: as argued just above.
        unsafe {
            let at = vec.as_mut_ptr().add(start);
            if self.tail != 0 && self.len != 0 {
                core::ptr::copy(at.add(self.len), at, self.tail);
            }
            vec.set_len(start + self.tail);
        }
    }
}

/// The items of a range of a `Vec`, moved out by position:
/// `vec.par_drain(range)`. The vector's tail comes back when this drops.
#[derive(Debug)]
pub struct VecDrainProducer<'a, T> {
    vec: &'a mut Vec<T>,
    drained: Drained<T>,
}

impl<'a, T> VecDrainProducer<'a, T> {
    fn new(vec: &'a mut Vec<T>, range: Range<usize>) -> Self {
        let drained = Drained::open(vec, range);
        VecDrainProducer { vec, drained }
    }
}

impl<T> Drop for VecDrainProducer<'_, T> {
    fn drop(&mut self) {
        // Sound because the vector is the one `new` opened, borrowed by this
        // producer alone since, and the ranges borrow the producer, so none
        // is alive. Every position was handed out or dropped (the producer
        // contract, `Par`'s `Drop` when no call ran), and any that was not
        // only leaks.
        // SAFETY: as argued just above.
        unsafe { self.drained.close(self.vec) };
    }
}

// SAFETY: it owns the range's items as a `Vec<T>` would, and borrows the
// vector mutably, so it moves across threads as `&mut Vec<T>` does.
unsafe impl<T: Send> Send for VecDrainProducer<'_, T> {}

// SAFETY: threads only move disjoint positions out, once each (the
// producer contract), moving `T` across threads, which `T: Send` allows;
// the vector itself is touched only by `Drop`.
unsafe impl<T: Send> Sync for VecDrainProducer<'_, T> {}

/// The items of a drain producer's `Producer` impl, forwarded to its
/// `drained: Drained<T>` field: written once for every drain producer.
macro_rules! forward_to_drained {
    () => {
        type Item = T;
        type Iter<'b>
            = VecRange<'b, T>
        where
            Self: 'b;
        const EXACT: bool = true;

        fn len(&self) -> usize {
            self.drained.len()
        }

        unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
            // SAFETY: forwarded from the caller.
            unsafe { self.drained.range(begin, end) }
        }

        unsafe fn drop_range(&self, begin: usize, end: usize) {
            // SAFETY: forwarded from the caller.
            unsafe { self.drained.drop_range(begin, end) }
        }
    };
}
pub(super) use forward_to_drained;

// SAFETY: yields the items of positions `begin..end`, each moved out once
// by `VecRange`, which drops the ones it does not yield.
unsafe impl<T: Send> Producer for VecDrainProducer<'_, T> {
    forward_to_drained!();
}

// SAFETY: one item per position.
unsafe impl<T: Send> Indexed for VecDrainProducer<'_, T> {}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut Vec<T> {
    type Iter = Par<VecDrainProducer<'a, T>>;
    type Item = T;

    /// Moves the items of `range` out, in place: no allocation.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec![String::from("a"), "b".into(), "c".into(), "d".into()];
    /// let found = v.par_drain(1..).find_first(|s| s.as_str() > "b");
    /// assert_eq!(found.as_deref(), Some("c"));
    /// assert_eq!(v, ["a"]); // the whole range is gone, "b" and "d" dropped
    /// ```
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = drain_bounds(range, self.len());
        Par::new(VecDrainProducer::new(self, range))
    }
}

/// The characters of a range of a `String`: `string.par_drain(range)`.
/// Positions are the range's bytes, and a character belongs to the
/// position where it starts, as for `par_chars`; the range is removed
/// from the string when this drops.
#[derive(Debug)]
pub struct StringDrainProducer<'a> {
    string: &'a mut String,
    range: Range<usize>,
}

impl Drop for StringDrainProducer<'_> {
    fn drop(&mut self) {
        self.string.replace_range(self.range.clone(), "");
    }
}

// SAFETY: yields the characters that start in bytes `begin..end` of the
// range, reading the text only; `EXACT` is false.
unsafe impl Producer for StringDrainProducer<'_> {
    type Item = char;
    type Iter<'b>
        = core::str::Chars<'b>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.range.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let text = &self.string[self.range.clone()];
        let from = ceil_boundary(text, begin);
        text[from..ceil_boundary(text, end).max(from)].chars()
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = Par<StringDrainProducer<'a>>;
    type Item = char;

    /// The characters of `range`, removed from the string when the
    /// iterator drops.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut s = String::from("añb, rest");
    /// let word: String = s.par_drain(..5).filter(|c| c.is_alphabetic()).collect();
    /// assert_eq!(word, "añb");
    /// assert_eq!(s, " rest");
    /// ```
    ///
    /// # Panics
    /// As `String::drain`: if the range is out of bounds, or either end is
    /// not on a character boundary.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = drain_bounds(range, self.len());
        assert!(
            self.is_char_boundary(range.start),
            "byte index {} is not a char boundary",
            range.start
        );
        assert!(
            self.is_char_boundary(range.end),
            "byte index {} is not a char boundary",
            range.end
        );
        Par::new(StringDrainProducer {
            string: self,
            range,
        })
    }
}
