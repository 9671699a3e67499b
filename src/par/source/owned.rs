//! `into_par_iter`, `par_iter` and `par_iter_mut` on `Vec<T>`, `Box<[T]>`
//! and slices: the sources that are split by position with no copy. Owned
//! items are moved out by position ([`VecProducer`]); borrowed ones are
//! slices ([`SliceProducer`], [`SliceMutProducer`]).

use crate::par::iter::{IntoParallelIterator, Par};
use crate::par::producer::{SliceMutProducer, SliceProducer, VecProducer};
use std::boxed::Box;
use std::vec::Vec;

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
