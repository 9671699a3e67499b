//! `par_drain` on the standard collections other than `Vec` and `String`:
//! a range of a `VecDeque`, and all of a `BinaryHeap`, `HashMap` or
//! `HashSet`, with rayon's traits ([`ParallelDrainRange`],
//! [`ParallelDrainFull`]).
//!
//! A `VecDeque` or a `BinaryHeap` is taken out as the `Vec` that holds its
//! items (no allocation; a deque that wraps around its buffer is first
//! moved to its front, as `Vec::from` does) and drained as a `Vec` is
//! (`drain.rs`), then put back with its capacity when the producer drops.
//! While the iterator lives the collection is empty, so one leaked with
//! `mem::forget` leaves it empty and valid, its items leaked, never
//! dropped (`std`'s `VecDeque::drain` allows as much).
//!
//! A `HashMap` or `HashSet` cannot be split by position, so its items are
//! moved out at once with `drain()` and gathered into a `Vec` that the
//! call runs over: one allocation per call, as rayon's `par_drain` for
//! these makes too. The collection is empty as soon as `par_drain`
//! returns.

use super::drain::{
    drain_bounds, forward_to_drained, Drained, ParallelDrainFull, ParallelDrainRange,
};
use crate::par::iter::par::Par;
use crate::par::producer::{Indexed, Producer, VecProducer, VecRange};
use core::ops::{Range, RangeBounds};
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::vec::Vec;

/// The items of a range of a collection `C` taken out as a `Vec<T>`,
/// moved out by position: `deque.par_drain(range)` and
/// `heap.par_drain()`. The collection is put back, less the range, when
/// this drops.
#[derive(Debug)]
pub struct TakenDrainProducer<'a, C, T> {
    /// Left empty (`Default`) until `Drop` puts `vec` back.
    collection: &'a mut C,
    /// How `vec` becomes a `C` again.
    put_back: fn(Vec<T>) -> C,
    /// The collection's items: before the range (owned), the range (owned
    /// by the positions) and after it (given back by `Drained::close`).
    vec: Vec<T>,
    drained: Drained<T>,
}

impl<'a, C, T> TakenDrainProducer<'a, C, T> {
    /// Drains `range` (checked) of `vec`, which was taken out of
    /// `collection`.
    fn new(
        collection: &'a mut C,
        mut vec: Vec<T>,
        range: Range<usize>,
        put_back: fn(Vec<T>) -> C,
    ) -> Self {
        let drained = Drained::open(&mut vec, range);
        // Moving `vec` moves its handle only: the buffer `drained` points
        // into stays where it is.
        TakenDrainProducer {
            collection,
            put_back,
            vec,
            drained,
        }
    }
}

impl<C, T> Drop for TakenDrainProducer<'_, C, T> {
    fn drop(&mut self) {
        // Sound because `vec` is the vector `new` opened, owned by this producer
        // and untouched since, and the ranges borrow the producer, so none
        // is alive. Every position was handed out or dropped (the producer
        // contract), and any that was not only leaks.
        // SAFETY: as argued just above.
        unsafe { self.drained.close(&mut self.vec) };
        *self.collection = (self.put_back)(core::mem::take(&mut self.vec));
    }
}

// SAFETY: it owns the items as a `Vec<T>` does and borrows the collection
// mutably, so it moves across threads as a `Vec<T>` and a `&mut C` do.
unsafe impl<C: Send, T: Send> Send for TakenDrainProducer<'_, C, T> {}

// SAFETY: threads only move disjoint positions out, once each (the
// producer contract), moving `T` across threads, which `T: Send` allows;
// the collection and the vector are touched only by `new` and `Drop`.
unsafe impl<C: Send, T: Send> Sync for TakenDrainProducer<'_, C, T> {}

// SAFETY: yields the items of positions `begin..end`, each moved out once
// by `VecRange`, which drops the ones it does not yield.
unsafe impl<C: Send, T: Send> Producer for TakenDrainProducer<'_, C, T> {
    forward_to_drained!();
}

// SAFETY: one item per position.
unsafe impl<C: Send, T: Send> Indexed for TakenDrainProducer<'_, C, T> {}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut VecDeque<T> {
    type Iter = Par<TakenDrainProducer<'a, VecDeque<T>, T>>;
    type Item = T;

    /// Moves the items of `range` out, front first; the deque keeps the
    /// rest in order, and its capacity. No allocation; a deque that wraps
    /// around its buffer is moved to its front first.
    ///
    /// ```
    /// use std::collections::VecDeque;
    /// use tine::prelude::*;
    ///
    /// let mut deque: VecDeque<i32> = (3..8).collect();
    /// deque.push_front(2);
    /// let drained: Vec<i32> = deque.par_drain(1..4).collect();
    /// assert_eq!(drained, [3, 4, 5]);
    /// assert_eq!(deque, [2, 6, 7]);
    /// ```
    ///
    /// # Panics
    /// As `VecDeque::drain`: if the range's start is past its end or its
    /// end past the length.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = drain_bounds(range, self.len());
        let vec = Vec::from(core::mem::take(self));
        Par::new(TakenDrainProducer::new(self, vec, range, VecDeque::from))
    }
}

impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = Par<TakenDrainProducer<'a, BinaryHeap<T>, T>>;
    type Item = T;

    /// Moves every item out, in the heap's internal order (no order, as
    /// rayon's); the heap keeps its capacity. No allocation.
    ///
    /// ```
    /// use std::collections::BinaryHeap;
    /// use tine::prelude::*;
    ///
    /// let mut heap: BinaryHeap<u64> = (1..=10).collect();
    /// assert_eq!(heap.par_drain().max(), Some(10));
    /// assert!(heap.is_empty() && heap.capacity() >= 10);
    /// ```
    fn par_drain(self) -> Self::Iter {
        let vec = core::mem::take(self).into_vec();
        let all = 0..vec.len();
        Par::new(TakenDrainProducer::new(self, vec, all, BinaryHeap::from))
    }
}

impl<K: Send, V: Send, S> ParallelDrainFull for &mut HashMap<K, V, S> {
    type Iter = Par<VecProducer<(K, V)>>;
    type Item = (K, V);

    /// Moves every entry out, gathered into a `Vec` first (one
    /// allocation); the map is empty, with its capacity, as soon as this
    /// returns.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tine::prelude::*;
    ///
    /// let mut map: HashMap<u32, u32> = (0..100).map(|k| (k, k * k)).collect();
    /// let total: u32 = map.par_drain().map(|(_, v)| v).sum();
    /// assert_eq!(total, 328_350);
    /// assert!(map.is_empty());
    /// ```
    fn par_drain(self) -> Self::Iter {
        Par::new(VecProducer::new(self.drain().collect()))
    }
}

impl<T: Send, S> ParallelDrainFull for &mut HashSet<T, S> {
    type Iter = Par<VecProducer<T>>;
    type Item = T;

    /// Moves every item out, gathered into a `Vec` first (one
    /// allocation); the set is empty, with its capacity, as soon as this
    /// returns.
    fn par_drain(self) -> Self::Iter {
        Par::new(VecProducer::new(self.drain().collect()))
    }
}
