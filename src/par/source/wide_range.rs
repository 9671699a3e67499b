//! 128-bit ranges: `(a..b).into_par_iter()` on `u128` and `i128`, of any
//! length, up to `0..=u128::MAX`.
//!
//! # Why a producer of its own
//!
//! A driver's positions are `usize`s, and a 128-bit range can hold more
//! values than that (rayon's `tests/octillion.rs` searches
//! `0..10^27`). Here each position is a run of `stride` consecutive
//! values, `stride` the least that fits the range in `usize::MAX`
//! positions: 1 for every range that fits (each position one value), about
//! `5.4 * 10^7` for an octillion. So positions do not each yield one item,
//! and, as in rayon, 128-bit ranges are parallel iterators but not indexed
//! ones (no `zip`, `enumerate`, `collect_into_vec`). The producer is
//! [`Producer::HEAVY`] when its runs are long: a search that stops early
//! looks for the stop after each run.
//!
//! Invariants: `last` is the offset of the range's last value from
//! `start`, `len == last / stride + 1` (0 for an empty range), and
//! position `p` covers offsets `p * stride ..= min((p + 1) * stride - 1,
//! last)`.

use crate::nest::stop::stopped;
use crate::par::producer::Producer;
use crate::par::source::range::{RangeEnd, RangeInteger};

/// The 128-bit integers, whose ranges [`WideRangeProducer`] covers.
pub trait WideInteger: Copy + Ord + Send + Sync + 'static {
    /// `self + offset`, wrapping: an offset within a range stays in it.
    fn offset_by(self, offset: u128) -> Self;
    /// `end - start` as a `u128` offset, for `start <= end`.
    fn offset_of(start: Self, end: Self) -> u128;
}

impl WideInteger for u128 {
    #[inline]
    fn offset_by(self, offset: u128) -> Self {
        self.wrapping_add(offset)
    }
    fn offset_of(start: Self, end: Self) -> u128 {
        end - start
    }
}

impl WideInteger for i128 {
    #[inline]
    fn offset_by(self, offset: u128) -> Self {
        self.wrapping_add(offset as i128)
    }
    fn offset_of(start: Self, end: Self) -> u128 {
        end.wrapping_sub(start) as u128
    }
}

/// The values of a 128-bit range, `stride` to a position.
#[derive(Clone, Copy, Debug)]
pub struct WideRangeProducer<T> {
    start: T,
    last: u128,
    stride: u128,
    len: usize,
}

impl<T: WideInteger> WideRangeProducer<T> {
    /// The range `start ..= start + last`, or an empty one.
    fn new(start: T, last: Option<u128>) -> Self {
        let Some(last) = last else {
            return WideRangeProducer {
                start,
                last: 0,
                stride: 1,
                len: 0,
            };
        };
        let most = usize::MAX as u128;
        let stride = if last < most { 1 } else { last / most + 1 };
        // `last / stride < most` (see `stride`), so the count fits.
        let len = (last / stride + 1) as usize;
        WideRangeProducer {
            start,
            last,
            stride,
            len,
        }
    }
}

// SAFETY: `range(begin, end)` yields the values of positions `begin..end`
// (module docs), computed, never shared; `EXACT` is false.
unsafe impl<T: WideInteger> Producer for WideRangeProducer<T> {
    type Item = T;
    type Iter<'a> = WideIter<T>;
    const EXACT: bool = false;
    // Long runs only where the range did not fit; every range of a type
    // shares the constant, so it is set for the type.
    const HEAVY: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> WideIter<T> {
        if begin >= end {
            return WideIter::empty(self.start);
        }
        let first = begin as u128 * self.stride;
        // The last offset of position `end - 1`: `end * stride - 1`, which
        // may pass `u128::MAX` only beyond `last`.
        let last = (end as u128)
            .checked_mul(self.stride)
            .map_or(self.last, |past| (past - 1).min(self.last));
        WideIter {
            start: self.start,
            next: first,
            last,
            done: false,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}

    /// Value by value from the last, each run from its end: a run may hold
    /// 2^64 values.
    unsafe fn rfind_map<A, F: FnMut(T) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut F,
    ) -> Option<A> {
        // SAFETY: forwarded from the caller.
        let mut values = unsafe { self.range(begin, end) };
        let mut asked = 0u32;
        while let Some(value) = values.next_back() {
            if let Some(answer) = test(value) {
                return Some(answer);
            }
            asked = asked.wrapping_add(1);
            // The stop of a search inside a heavy block (as in `Serial`).
            if asked % STOP_EVERY == 0 && stopped() {
                return None;
            }
        }
        None
    }
}

/// How many values a search from the end asks between two looks for the
/// stop.
const STOP_EVERY: u32 = 4096;

/// The values of some positions of a [`WideRangeProducer`], in order.
#[derive(Clone, Debug)]
pub struct WideIter<T> {
    start: T,
    next: u128,
    last: u128,
    done: bool,
}

impl<T> WideIter<T> {
    fn empty(start: T) -> Self {
        WideIter {
            start,
            next: 1,
            last: 0,
            done: true,
        }
    }
}

impl<T: WideInteger> Iterator for WideIter<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.done {
            return None;
        }
        let offset = self.next;
        // `last` is inclusive and may be `u128::MAX`: end before stepping
        // past it.
        if offset == self.last {
            self.done = true;
        } else {
            self.next += 1;
        }
        Some(self.start.offset_by(offset))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done {
            return (0, Some(0));
        }
        match usize::try_from(self.last - self.next) {
            Ok(left) if left < usize::MAX => (left + 1, Some(left + 1)),
            _ => (usize::MAX, None),
        }
    }
}

impl<T: WideInteger> DoubleEndedIterator for WideIter<T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.done {
            return None;
        }
        let offset = self.last;
        // `next` may be 0: end before stepping below it.
        if offset == self.next {
            self.done = true;
        } else {
            self.last -= 1;
        }
        Some(self.start.offset_by(offset))
    }
}

macro_rules! wide_ranges {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            type Producer = WideRangeProducer<$t>;
            #[inline]
            fn producer(start: Self, end: Self, range_end: RangeEnd) -> Self::Producer {
                let last = match range_end {
                    RangeEnd::Inclusive => Some(<$t>::offset_of(start, end)),
                    RangeEnd::Exclusive => {
                        (start < end).then(|| <$t>::offset_of(start, end) - 1)
                    }
                };
                WideRangeProducer::new(start, last)
            }
            #[inline]
            fn plus(self, offset: usize) -> Self {
                self.offset_by(offset as u128)
            }
            fn distance(start: Self, end: Self) -> Option<usize> {
                if end <= start {
                    return Some(0);
                }
                usize::try_from(<$t>::offset_of(start, end)).ok()
            }
        }
    )*};
}
wide_ranges!(u128, i128);
