//! Producers: the sources of a parallel iterator, cut into contiguous
//! ranges that each run as a plain serial loop.
//!
//! # Contract
//!
//! A [`Producer`] stands for `len()` positions. During one call, the driver
//! hands each position out exactly once, to exactly one thread: either to
//! [`Producer::range`], whose iterator yields the items of those positions
//! (and drops the ones it is not asked for), or to
//! [`Producer::drop_range`], which drops them unseen. So an owning producer
//! (`Vec<T>::into_par_iter`) can move items out by position, and every item
//! is moved out or dropped exactly once, even under early stop or a panic.
//! A producer whose [`Producer::EXACT`] is true yields exactly one item per
//! position, so its items can be written straight to their place in an
//! output. A producer is cloned only before any of its positions is handed
//! out, by `Par::clone` alone: an owning producer clones every item.
//!
//! The file holds the trait and the producers of the core sources (slices
//! and `Vec`), so that the contract and its first implementations read
//! together; ranges are in `source/range.rs` and `source/wide_range.rs`.
//! The trait's default search from the end is here too, with `Unreached`,
//! the positions a search from the end has not taken, which `find_last`
//! (`iter/consume/find_last.rs`) shares.

use crate::nest::stop::stopped;
use core::marker::PhantomData;
use std::vec::Vec;

/// A source of items at positions `0..len()`, cut into ranges that threads
/// run as serial loops. See the module docs for the contract.
///
/// # Safety
/// Implementors must yield, from `range(begin, end)`, only items of the
/// positions `begin..end`, and must stay sound when the ranges of one call
/// are handed to several threads at once (the driver never hands out one
/// position twice). `EXACT` may be true only if `range(begin, end)` yields
/// exactly `end - begin` items.
pub unsafe trait Producer: Sync {
    /// The items.
    type Item;
    /// The serial iterator over one range.
    type Iter<'a>: Iterator<Item = Self::Item>
    where
        Self: 'a;
    /// Whether every position yields exactly one item.
    const EXACT: bool;
    /// Whether `len()` is only a bound, far above the items there will be
    /// (a `par_bridge`): the driver then splits statically and skips the
    /// positions that [`Producer::live_from`] finds dead.
    const BOUNDLESS: bool = false;
    /// Whether one position may hold a great many items (a 128-bit range
    /// longer than `usize::MAX`, whose positions are runs of values): a
    /// consumer that stops early then looks for the stop after every
    /// position, not after blocks of [`crate::par::drive::STOP_BLOCK`].
    const HEAVY: bool = false;

    /// The number of positions.
    fn len(&self) -> usize;

    /// Whether there are no positions.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The items of positions `begin..end`, in order.
    ///
    /// # Safety
    /// `begin <= end <= len()`, and no position of the range has been or
    /// will be handed out before in this producer's life.
    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_>;

    /// Drops the items of positions `begin..end` unseen.
    ///
    /// # Safety
    /// As for [`Producer::range`].
    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        drop(unsafe { self.range(begin, end) });
    }

    /// The first position from `begin` on that may still yield an item
    /// (`len()` if none will), so that the driver may drop the positions
    /// before it unseen and go on there. A source whose length is a bound
    /// it may never reach ([`Producer::BOUNDLESS`], `par_bridge`) answers
    /// `len()` once its items run out; every other source answers `begin`,
    /// and every adaptor asks the producers it wraps. The answer may only
    /// grow over a call: positions found dead stay dead.
    #[inline]
    fn live_from(&self, begin: usize) -> usize {
        begin
    }

    /// The answer that `test` gives to the last item of positions
    /// `begin..end` it answers at all, searched from the end: what
    /// `find_last` runs in a block of a [`Producer::HEAVY`] producer, whose
    /// one position may hold more items than a walk from the front could
    /// reach. A position's items are asked only while no later position
    /// has an answer, the positions below the answer are dropped unseen,
    /// and the search gives up (`None`) once the call it runs in has
    /// stopped (`nest/stop.rs`). By default it goes
    /// position by position from the last, each position's items in order;
    /// an adaptor hands the search to the producer it wraps, and `flat_map`
    /// searches each inner iterator from its end.
    ///
    /// # Safety
    /// As for [`Producer::range`]: the positions are handed to this search.
    #[inline]
    unsafe fn rfind_map<A, T: FnMut(Self::Item) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut T,
    ) -> Option<A>
    where
        Self: Sized,
    {
        // SAFETY: forwarded from the caller.
        unsafe { by_position(self, begin, end, test) }
    }
}

/// [`Producer::rfind_map`]'s default: position by position from the last,
/// each position's items in order (its last answer wins).
///
/// # Safety
/// As for [`Producer::range`].
#[inline]
unsafe fn by_position<P: Producer, A>(
    producer: &P,
    begin: usize,
    end: usize,
    test: &mut impl FnMut(P::Item) -> Option<A>,
) -> Option<A> {
    let mut unreached = Unreached {
        producer,
        begin,
        end,
    };
    while unreached.end > begin {
        if stopped() {
            return None;
        }
        let at = unreached.end - 1;
        unreached.end = at;
        // SAFETY: position `at` is this search's (the caller's contract),
        // and `unreached` no longer holds it.
        let items = unsafe { producer.range(at, at + 1) };
        // Item by item (a `fold`, which `last` runs, may not look for the
        // stop): the position's last answer wins.
        let mut found = None;
        for item in items {
            if let Some(answer) = test(item) {
                found = Some(answer);
            }
        }
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The positions `begin..end` of a search from the end that it has not
/// taken yet: dropped unseen when the search ends, by an answer or a
/// panic.
pub(super) struct Unreached<'a, P: Producer> {
    pub(super) producer: &'a P,
    pub(super) begin: usize,
    pub(super) end: usize,
}

impl<P: Producer> Drop for Unreached<'_, P> {
    fn drop(&mut self) {
        // SAFETY: positions `begin..end` were never handed out (the search
        // moves `end` below each position or segment before it takes it).
        unsafe { self.producer.drop_range(self.begin, self.end) }
    }
}

/// A producer whose positions each yield exactly one item, so that
/// `enumerate`, `zip`, `position_*` and `collect_into_vec` apply.
///
/// # Safety
/// `Producer::EXACT` must be true.
pub unsafe trait Indexed: Producer {}

/// Items of a slice, by reference: `slice.par_iter()`.
#[derive(Debug)]
pub struct SliceProducer<'a, T>(pub(super) &'a [T]);

// SAFETY: yields `&slice[begin..end]`'s items, one per position.
unsafe impl<'a, T: Sync> Producer for SliceProducer<'a, T> {
    type Item = &'a T;
    type Iter<'b>
        = core::slice::Iter<'a, T>
    where
        Self: 'b;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: in bounds by the caller's contract.
        unsafe { self.0.get_unchecked(begin..end) }.iter()
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// Items of a slice, by mutable reference: `slice.par_iter_mut()`.
#[derive(Debug)]
pub struct SliceMutProducer<'a, T> {
    base: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

impl<'a, T> SliceMutProducer<'a, T> {
    pub(super) fn new(slice: &'a mut [T]) -> Self {
        SliceMutProducer {
            base: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: PhantomData,
        }
    }

    /// The sub-slice `begin..end`.
    ///
    /// # Safety
    /// In bounds, and handed out once (the producer contract).
    pub(super) unsafe fn sub_slice(&self, begin: usize, end: usize) -> &'a mut [T] {
        // SAFETY: in bounds of the borrowed slice, and no other thread gets
        // any of these positions, so the `&mut` is unique.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(begin), end - begin) }
    }
}

// SAFETY: threads touch disjoint positions (the contract), and `&mut T`
// may be sent to another thread when `T: Send`.
unsafe impl<T: Send> Sync for SliceMutProducer<'_, T> {}
// SAFETY: it stands for a `&mut [T]`, which is `Send` when `T: Send`.
unsafe impl<T: Send> Send for SliceMutProducer<'_, T> {}

// SAFETY: yields `&mut slice[begin..end]`'s items, one per position; each
// position once, so the mutable borrows never alias.
unsafe impl<'a, T: Send> Producer for SliceMutProducer<'a, T> {
    type Item = &'a mut T;
    type Iter<'b>
        = core::slice::IterMut<'a, T>
    where
        Self: 'b;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.sub_slice(begin, end) }.iter_mut()
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// Chunks of a slice: `slice.par_chunks(size)`.
#[derive(Debug)]
pub struct ChunksProducer<'a, T> {
    pub(super) slice: &'a [T],
    pub(super) size: usize,
}

// SAFETY: position `i` is chunk `i`, `slice[i * size..]` cut to `size`.
unsafe impl<'a, T: Sync> Producer for ChunksProducer<'a, T> {
    type Item = &'a [T];
    type Iter<'b>
        = core::slice::Chunks<'a, T>
    where
        Self: 'b;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let len = self.slice.len();
        let (start, stop) = (
            len.min(begin.saturating_mul(self.size)),
            len.min(end.saturating_mul(self.size)),
        );
        self.slice[start..stop].chunks(self.size)
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// Mutable chunks of a slice: `slice.par_chunks_mut(size)`.
#[derive(Debug)]
pub struct ChunksMutProducer<'a, T> {
    pub(super) slice: SliceMutProducer<'a, T>,
    pub(super) size: usize,
}

// SAFETY: as for `ChunksProducer`, over disjoint sub-slices.
unsafe impl<'a, T: Send> Producer for ChunksMutProducer<'a, T> {
    type Item = &'a mut [T];
    type Iter<'b>
        = core::slice::ChunksMut<'a, T>
    where
        Self: 'b;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.slice.len.div_ceil(self.size)
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let len = self.slice.len;
        let (start, stop) = (
            len.min(begin.saturating_mul(self.size)),
            len.min(end.saturating_mul(self.size)),
        );
        // SAFETY: chunk positions map to disjoint element ranges, in bounds.
        unsafe { self.slice.sub_slice(start, stop) }.chunks_mut(self.size)
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// Owned items of a `Vec`: `vec.into_par_iter()`. Items are moved out by
/// position; the buffer is freed when the producer drops.
#[derive(Debug)]
pub struct VecProducer<T> {
    /// Length set to 0: the items belong to the positions. Owns the
    /// buffer, which it frees when dropped (read only by `Drop`).
    _buffer: Vec<T>,
    /// The buffer, taken once from `&mut` access to `_buffer`, so that the
    /// ranges may move items out and drop them in place through it (a
    /// pointer from `Vec::as_ptr` allows no writes).
    pub(super) base: *mut T,
    pub(super) len: usize,
}

impl<T> VecProducer<T> {
    pub(super) fn new(mut vec: Vec<T>) -> Self {
        let len = vec.len();
        // SAFETY: shrinking the length leaks nothing: every position is
        // handed out exactly once (the producer contract), which moves or
        // drops its item.
        unsafe { vec.set_len(0) };
        let base = vec.as_mut_ptr();
        VecProducer {
            _buffer: vec,
            base,
            len,
        }
    }
}

// SAFETY: the producer owns its items as the `Vec` does (`base` points
// into the buffer that `_buffer` owns), so it moves across threads as a
// `Vec<T>` does.
unsafe impl<T: Send> Send for VecProducer<T> {}

// SAFETY: threads read disjoint positions once each, moving `T` across
// threads, which `T: Send` allows.
unsafe impl<T: Send> Sync for VecProducer<T> {}

/// The items of one range of a [`VecProducer`], moved out as they are
/// yielded; the ones not yielded are dropped with the iterator. Positions
/// are counted, not compared as pointers, so zero-sized items work too.
pub struct VecRange<'a, T> {
    base: *mut T,
    next: usize,
    end: usize,
    _items: PhantomData<&'a T>,
}

impl<T> VecRange<'_, T> {
    /// The items of positions `begin..end` of the buffer at `base`.
    ///
    /// Every item of the range must be initialized, owned by the range
    /// alone (its positions handed out once), and `base` must allow
    /// moving them out and dropping them in place.
    pub(super) fn new(base: *mut T, begin: usize, end: usize) -> Self {
        VecRange {
            base,
            next: begin,
            end,
            _items: PhantomData,
        }
    }
}

impl<T> Iterator for VecRange<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.next == self.end {
            return None;
        }
        // SAFETY: `next` is a position of this range that has not been
        // moved out (each position is read once); for a zero-sized `T` the
        // pointer is the vector's aligned dangling one, valid for reads.
        let item = unsafe { self.base.add(self.next).read() };
        self.next += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl<T> Drop for VecRange<'_, T> {
    fn drop(&mut self) {
        let left = self.end - self.next;
        self.next = self.end;
        // SAFETY: the positions not yet yielded hold items no one else
        // will read; `drop_in_place` on the slice drops every one of them
        // even if one's `Drop` panics.
        unsafe {
            let rest = self.base.add(self.end - left);
            core::ptr::slice_from_raw_parts_mut(rest, left).drop_in_place();
        }
    }
}

// SAFETY: yields the items of positions `begin..end`, each moved out once.
unsafe impl<T: Send> Producer for VecProducer<T> {
    type Item = T;
    type Iter<'a>
        = VecRange<'a, T>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        VecRange::new(self.base, begin, end)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        if core::mem::needs_drop::<T>() {
            // SAFETY: forwarded from the caller.
            drop(unsafe { self.range(begin, end) });
        }
    }
}

// SAFETY: this producer, and each below, yields one item per position.
unsafe impl<T: Sync> Indexed for SliceProducer<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Indexed for SliceMutProducer<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Indexed for ChunksProducer<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Indexed for ChunksMutProducer<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Indexed for VecProducer<T> {}
