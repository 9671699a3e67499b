//! `into_par_iter`, `par_iter` and `par_iter_mut` on `Vec<T>`, `Box<[T]>`
//! and slices: the sources that are split by position with no copy. Owned
//! items are moved out by position ([`VecProducer`]); borrowed ones are
//! slices ([`SliceProducer`], [`SliceMutProducer`]).

use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::par::Par;
use crate::par::producer::{SliceMutProducer, SliceProducer, VecProducer};
use std::boxed::Box;
use std::vec::Vec;

/// Clones the `len` items into a new buffer (a panicking `T::clone` drops
/// the clones made so far), for `Par::clone`.
///
/// The items are all in place: a producer is cloned only before any of its
/// positions is handed out (`producer.rs`, the contract), since `Par::clone`
/// is the only caller and a `Par` gives its producer up to the consumer that
/// takes it. And only one thread reads them: `Par` is not `Sync`.
impl<T: Clone> Clone for VecProducer<T> {
    fn clone(&self) -> Self {
        // SAFETY: `base..base + len` holds `len` initialized items, none
        // moved out (no position handed out, see above), and no other thread
        // touches them while this shared borrow lives.
        let items = unsafe { core::slice::from_raw_parts(self.base, self.len) };
        VecProducer::new(items.to_vec())
    }
}

/// `Clone` for any `T`, as `&[T]` is `Copy`.
impl<T> Clone for SliceProducer<'_, T> {
    fn clone(&self) -> Self {
        SliceProducer(self.0)
    }
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = Par<VecProducer<T>>;
    type Item = T;

    /// Moves the items out. Items that a call does not consume (early stop,
    /// a panic) are still dropped, once.
    fn into_par_iter(self) -> Self::Iter {
        Par::new(VecProducer::new(self))
    }
}

impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Iter = Par<VecProducer<T>>;
    type Item = T;

    /// Moves the items out, as `Vec`'s `into_par_iter` does.
    fn into_par_iter(self) -> Self::Iter {
        Vec::from(self).into_par_iter()
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Box<[T]> {
    type Iter = Par<SliceProducer<'a, T>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        Par::new(SliceProducer(self))
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Box<[T]> {
    type Iter = Par<SliceMutProducer<'a, T>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        Par::new(SliceMutProducer::new(self))
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a [T] {
    type Iter = Par<SliceProducer<'a, T>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        Par::new(SliceProducer(self))
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Vec<T> {
    type Iter = Par<SliceProducer<'a, T>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        Par::new(SliceProducer(self))
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut [T] {
    type Iter = Par<SliceMutProducer<'a, T>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        Par::new(SliceMutProducer::new(self))
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Vec<T> {
    type Iter = Par<SliceMutProducer<'a, T>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        Par::new(SliceMutProducer::new(self))
    }
}
