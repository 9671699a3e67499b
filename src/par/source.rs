//! Where parallel iterators come from: `par_iter`, `par_iter_mut`,
//! `into_par_iter`, `par_chunks` and `par_chunks_mut`, with rayon's trait
//! names so that code written against rayon's prelude finds them.

use super::iter::{IntoParallelIterator, Par, ParallelIterator};
use super::producer::{
    ChunksMutProducer, ChunksProducer, RangeInteger, RangeProducer, SliceMutProducer,
    SliceProducer, VecProducer,
};
use core::ops::{Range, RangeInclusive};
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

impl<T: RangeInteger> IntoParallelIterator for Range<T> {
    type Iter = Par<RangeProducer<T>>;
    type Item = T;

    /// # Panics
    /// If the range holds more than `usize::MAX` values (only possible for
    /// 64-bit integers on a 32-bit target).
    fn into_par_iter(self) -> Self::Iter {
        let len =
            T::distance(self.start, self.end).expect("range too long for a parallel iterator");
        Par::new(RangeProducer {
            start: self.start,
            len,
        })
    }
}

impl<T: RangeInteger> IntoParallelIterator for RangeInclusive<T> {
    type Iter = Par<RangeProducer<T>>;
    type Item = T;

    /// # Panics
    /// If the range holds more than `usize::MAX` values, as
    /// `0..=usize::MAX` does.
    fn into_par_iter(self) -> Self::Iter {
        let (start, end) = (*self.start(), *self.end());
        let len = if self.is_empty() {
            0
        } else {
            T::distance(start, end)
                .and_then(|len| len.checked_add(1))
                .expect("range too long for a parallel iterator")
        };
        Par::new(RangeProducer { start, len })
    }
}

/// `par_iter()`: a parallel iterator over references, for anything whose
/// reference converts (slices, `Vec`s).
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (references).
    type Item: Send + 'data;
    /// Iterates over `&self`'s items in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references.
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (mutable references).
    type Item: Send + 'data;
    /// Iterates over `&mut self`'s items in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_chunks()` on slices (and `Vec`s, through deref).
pub trait ParallelSlice<T: Sync> {
    /// Chunks of `size` items, the last one shorter if `size` does not
    /// divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks(&self, size: usize) -> Par<ChunksProducer<'_, T>>;
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn par_chunks(&self, size: usize) -> Par<ChunksProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksProducer { slice: self, size })
    }
}

/// `par_chunks_mut()` on slices (and `Vec`s, through deref).
pub trait ParallelSliceMut<T: Send> {
    /// Mutable chunks of `size` items, the last one shorter if `size` does
    /// not divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks_mut(&mut self, size: usize) -> Par<ChunksMutProducer<'_, T>>;
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn par_chunks_mut(&mut self, size: usize) -> Par<ChunksMutProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksMutProducer {
            slice: SliceMutProducer::new(self),
            size,
        })
    }
}
