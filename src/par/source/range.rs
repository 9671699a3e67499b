//! Ranges: `(a..b).into_par_iter()` and `(a..=b).into_par_iter()` over
//! the integers and `char` ([`RangeInteger`]), as a [`RangeProducer`] over
//! the type's own producer: one value to a position for every type but the
//! 128-bit ones ([`StepProducer`], indexed); `u128` and `i128` ranges have
//! `wide_range.rs`'s producer. The wrapper names `T` itself, so a range's
//! type is inferred from the iterator type a program asks for.

use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::par::Par;
use crate::par::producer::{Indexed, Producer};
use core::ops::{Range, RangeInclusive};

/// Whether a range's end is one of its values: what
/// [`RangeInteger::producer`] is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeEnd {
    /// `start..end`: the values below `end`.
    Exclusive,
    /// `start..=end`: the values up to `end`, `end` included.
    Inclusive,
}

/// Integers (and `char`) whose ranges run in parallel:
/// `(a..b).into_par_iter()` and `(a..=b).into_par_iter()`.
pub trait RangeInteger: Copy + Ord + Send + Sync + 'static {
    /// The producer of this type's ranges: [`StepProducer`] (one value to
    /// a position, so an indexed parallel iterator) for every type but
    /// `u128` and `i128`, whose ranges may hold more values than there are
    /// positions ([`crate::par::WideRangeProducer`], not indexed, as in
    /// rayon).
    type Producer: Producer<Item = Self> + Clone + Send + core::fmt::Debug + 'static;
    /// The producer of `start..end`, or of `start..=end` if `range_end` is
    /// [`RangeEnd::Inclusive`] (`start <= end` then).
    ///
    /// # Panics
    /// If a [`StepProducer`]'s range holds more than `usize::MAX` values
    /// (`0..=usize::MAX`, or a 64-bit range on a 32-bit target).
    fn producer(start: Self, end: Self, range_end: RangeEnd) -> Self::Producer;
    /// `self + offset`, for an offset within the range.
    fn plus(self, offset: usize) -> Self;
    /// The number of values in `start..end` (0 if empty), or `None` if
    /// it does not fit a `usize`.
    fn distance(start: Self, end: Self) -> Option<usize>;
}

/// The [`StepProducer`] of `start..end`, or of `start..=end` if
/// `range_end` is [`RangeEnd::Inclusive`]; panics as
/// [`RangeInteger::producer`] says.
fn indexed_range<T: RangeInteger>(start: T, end: T, range_end: RangeEnd) -> StepProducer<T> {
    let len = T::distance(start, end)
        .and_then(|len| len.checked_add(usize::from(range_end == RangeEnd::Inclusive)))
        .expect("range too long for a parallel iterator");
    StepProducer { start, len }
}

macro_rules! range_integer {
    ($($t:ty => $wide:ty),*) => {$(
        impl RangeInteger for $t {
            type Producer = StepProducer<$t>;
            #[inline]
            fn producer(start: Self, end: Self, range_end: RangeEnd) -> Self::Producer {
                indexed_range(start, end, range_end)
            }
            #[inline]
            fn plus(self, offset: usize) -> Self {
                (self as $wide).wrapping_add(offset as $wide) as $t
            }
            #[inline]
            fn distance(start: Self, end: Self) -> Option<usize> {
                if end <= start {
                    return Some(0);
                }
                usize::try_from((end as $wide).wrapping_sub(start as $wide) as u128).ok()
            }
        }
    )*};
}
range_integer!(
    usize => u128, u8 => u128, u16 => u128, u32 => u128, u64 => u128,
    isize => i128, i8 => i128, i16 => i128, i32 => i128, i64 => i128
);

/// The first code point of the surrogate gap, which no `char` holds.
const SURROGATES: u32 = 0xD800;
/// How many code points the surrogate gap holds (`0xD800..0xE000`).
const SURROGATE_COUNT: u32 = 0x800;

/// `char` ranges, as rayon has them: the code points in order, skipping
/// the surrogate gap, so `'\u{D7FF}'..'\u{E001}'` holds two `char`s.
impl RangeInteger for char {
    type Producer = StepProducer<char>;
    #[inline]
    fn producer(start: Self, end: Self, range_end: RangeEnd) -> Self::Producer {
        indexed_range(start, end, range_end)
    }

    #[inline]
    fn plus(self, offset: usize) -> Self {
        let start = self as u32;
        let mut code = start.wrapping_add(offset as u32);
        if start < SURROGATES && code >= SURROGATES {
            code = code.wrapping_add(SURROGATE_COUNT);
        }
        // Every offset within the range gives a `char`; an offset past it
        // gives the replacement character, never an invalid `char`.
        char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
    }

    fn distance(start: Self, end: Self) -> Option<usize> {
        if end <= start {
            return Some(0);
        }
        let (start, end) = (start as u32, end as u32);
        let gap = if start < SURROGATES && end >= SURROGATES + SURROGATE_COUNT {
            SURROGATE_COUNT
        } else {
            0
        };
        usize::try_from(end - start - gap).ok()
    }
}

/// The values of a range of an integer type other than `u128` and
/// `i128`, or of `char`s: one value to a position.
#[derive(Clone, Copy, Debug)]
pub struct StepProducer<T> {
    pub(super) start: T,
    pub(super) len: usize,
}

// SAFETY: position `i` is `start + i`, one per position.
unsafe impl<T: RangeInteger> Producer for StepProducer<T> {
    type Item = T;
    type Iter<'a> = RangeIter<T>;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        RangeIter {
            start: self.start,
            next: begin,
            end,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The integers of one range of a [`StepProducer`].
#[derive(Clone, Debug)]
pub struct RangeIter<T> {
    start: T,
    next: usize,
    end: usize,
}

impl<T: RangeInteger> Iterator for RangeIter<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        (self.next < self.end).then(|| {
            self.next += 1;
            self.start.plus(self.next - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

// SAFETY: one item per position.
unsafe impl<T: RangeInteger> Indexed for StepProducer<T> {}

/// The integers (or `char`s) of a range: `(a..b).into_par_iter()`, over
/// the type's own producer ([`RangeInteger::Producer`]).
pub struct RangeProducer<T: RangeInteger>(T::Producer);

impl<T: RangeInteger> Clone for RangeProducer<T> {
    fn clone(&self) -> Self {
        RangeProducer(self.0.clone())
    }
}

impl<T: RangeInteger> core::fmt::Debug for RangeProducer<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("RangeProducer").field(&self.0).finish()
    }
}

// SAFETY: every call is the type's producer's own.
unsafe impl<T: RangeInteger> Producer for RangeProducer<T> {
    type Item = T;
    type Iter<'a> = <T::Producer as Producer>::Iter<'a>;
    const EXACT: bool = T::Producer::EXACT;
    const HEAVY: bool = T::Producer::HEAVY;

    #[inline(always)]
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.range(begin, end) }
    }

    #[inline]
    unsafe fn rfind_map<A, F: FnMut(T) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut F,
    ) -> Option<A> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.rfind_map(begin, end, test) }
    }

    #[inline(always)]
    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.drop_range(begin, end) }
    }
}

// SAFETY: one item per position when the type's producer has one.
unsafe impl<T: RangeInteger> Indexed for RangeProducer<T> where T::Producer: Indexed {}

impl<T: RangeInteger> IntoParallelIterator for Range<T> {
    type Iter = Par<RangeProducer<T>>;
    type Item = T;

    /// # Panics
    /// If the range holds more than `usize::MAX` values and its type is
    /// not a 128-bit one (only possible for 64-bit integers on a 32-bit
    /// target).
    fn into_par_iter(self) -> Self::Iter {
        Par::new(RangeProducer(T::producer(
            self.start,
            self.end,
            RangeEnd::Exclusive,
        )))
    }
}

impl<T: RangeInteger> IntoParallelIterator for RangeInclusive<T> {
    type Iter = Par<RangeProducer<T>>;
    type Item = T;

    /// # Panics
    /// If the range holds more than `usize::MAX` values and its type is
    /// not a 128-bit one, as `0..=usize::MAX` does.
    fn into_par_iter(self) -> Self::Iter {
        let (start, end) = (*self.start(), *self.end());
        if self.is_empty() {
            return Par::new(RangeProducer(T::producer(
                start,
                start,
                RangeEnd::Exclusive,
            )));
        }
        Par::new(RangeProducer(T::producer(start, end, RangeEnd::Inclusive)))
    }
}
