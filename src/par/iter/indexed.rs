//! [`IndexedParallelIterator`]: the methods of iterators with exactly one
//! item per position, in one trait, as rayon's.
//!
//! Its comparisons with another indexed iterator (`cmp`, `partial_cmp`,
//! `eq`, `ne`, `lt`, `le`, `gt` and `ge`) each give the lexicographic
//! answer of `std`'s `Iterator` methods of the same names: a comparison
//! zips the two, compares pairs and stops at the first pair that is not
//! equal (`find_first`: blocks past it are skipped); if all are, the
//! lengths decide.

use super::adaptor::chunking::{Chunks, FoldChunks, FoldChunksWith};
use super::adaptor::items::Positions;
use super::adaptor::order::{Interleave, Rev, StepBy};
use super::adaptor::reshape::Zip;
use super::adaptor::slicing::Window;
use super::adaptor::{CloneOf, Enumerate};
use super::consume::{self, Wanted};
use super::convert::IntoParallelIterator;
use super::par::Par;
use super::ParallelIterator;
use crate::par::producer::Indexed;

/// A parallel iterator with exactly one item per position: the sources,
/// and `map`, `enumerate`, `zip`, `copied` and `cloned` over them.
pub trait IndexedParallelIterator: ParallelIterator {
    /// The producer, known to be indexed (an implementation detail).
    #[doc(hidden)]
    type Indexed: Indexed<Item = Self::Item> + Send;

    /// The iterator as a [`Par`] over an indexed producer (an
    /// implementation detail).
    #[doc(hidden)]
    fn into_indexed(self) -> Par<Self::Indexed>;

    /// The number of items.
    fn len(&self) -> usize;

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pairs each item with its position.
    fn enumerate(self) -> Par<Enumerate<Self::Indexed>> {
        self.into_indexed().wrap(Enumerate)
    }

    /// Pairs items with `other`'s, as long as the shorter of the two. The
    /// call runs with `self`'s settings (schedule, pool, lengths); `other`'s
    /// are ignored.
    fn zip<Z>(
        self,
        other: Z,
    ) -> Par<Zip<Self::Indexed, <Z::Iter as IndexedParallelIterator>::Indexed>>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let (b, _) = other.into_par_iter().into_indexed().into_parts();
        self.into_indexed().wrap(|a| Zip { a, b })
    }

    /// The items after the first `n` (none if there are fewer). The skipped
    /// ones are dropped unseen.
    fn skip(self, n: usize) -> Par<Window<Self::Indexed>> {
        self.into_indexed()
            .wrap(|base| Window::new(base, n, usize::MAX))
    }

    /// The first `n` items (all if there are fewer). The rest are dropped
    /// unseen.
    fn take(self, n: usize) -> Par<Window<Self::Indexed>> {
        self.into_indexed().wrap(|base| Window::new(base, 0, n))
    }

    /// The items in reverse order (rayon's `rev`).
    ///
    /// Each item is fetched from its source position on its own (see
    /// [`Rev`]), so a `map_init` before `rev` makes its state per item.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<u32> = (0..5u32).into_par_iter().rev().collect();
    /// assert_eq!(v, [4, 3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Par<Rev<Self::Indexed>> {
        self.into_indexed().wrap(Rev)
    }

    /// Every `step`-th item, starting with the first (rayon's `step_by`).
    /// The items stepped over are dropped. Panics if `step` is 0 ("attempt
    /// to divide by zero", as rayon's does).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<i32> = (3..10).into_par_iter().step_by(3).collect();
    /// assert_eq!(v, [3, 6, 9]);
    /// ```
    fn step_by(self, step: usize) -> Par<StepBy<Self::Indexed>> {
        let par = self.into_indexed();
        // Panics on 0 ("attempt to divide by zero", as rayon's length does)
        // while `par` still owns the items, which it then drops.
        let len = par.producer_len().div_ceil(step);
        par.wrap(|base| StepBy::new(base, step, len))
    }

    /// The items in `Vec`s of `chunk_size` (the last one shorter), as
    /// rayon's `chunks`: one allocation per chunk, its `Vec`. Panics if
    /// `chunk_size` is 0.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<Vec<u32>> = (1..=5u32).into_par_iter().chunks(2).collect();
    /// assert_eq!(v, [vec![1, 2], vec![3, 4], vec![5]]);
    /// ```
    #[track_caller]
    fn chunks(self, chunk_size: usize) -> Par<Chunks<Self::Indexed>> {
        let par = self.into_indexed();
        assert!(chunk_size != 0, "chunk_size must not be zero");
        par.wrap(|base| Chunks {
            base,
            size: chunk_size,
        })
    }

    /// Folds each chunk of `chunk_size` items (the last one shorter) from
    /// `identity()`, as rayon's `fold_chunks`: one item per chunk. Panics
    /// if `chunk_size` is 0.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let sums: Vec<u32> =
    ///     (1..=10u32).into_par_iter().fold_chunks(2, || 0, |a, n| a + n).collect();
    /// assert_eq!(sums, [3, 7, 11, 15, 19]);
    /// ```
    #[track_caller]
    fn fold_chunks<T, I, F>(
        self,
        chunk_size: usize,
        identity: I,
        fold_op: F,
    ) -> Par<FoldChunks<Self::Indexed, I, F>>
    where
        I: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        let par = self.into_indexed();
        assert!(chunk_size != 0, "chunk_size must not be zero");
        par.wrap(|base| FoldChunks {
            base,
            size: chunk_size,
            identity,
            f: fold_op,
        })
    }

    /// [`fold_chunks`](Self::fold_chunks) from a clone of `init` per chunk,
    /// as rayon's `fold_chunks_with` (tine also needs `T: Sync`: the
    /// threads clone one shared `init`). Panics if `chunk_size` is 0.
    #[track_caller]
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> Par<FoldChunksWith<Self::Indexed, T, F>>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        let par = self.into_indexed();
        assert!(chunk_size != 0, "chunk_size must not be zero");
        par.wrap(|base| FoldChunks {
            base,
            size: chunk_size,
            identity: CloneOf::new(init),
            f: fold_op,
        })
    }

    /// The positions of the items for which `predicate` is true, in order
    /// (rayon's `positions`).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v = [1, 2, 3, 4, 5, 6];
    /// let odd: Vec<usize> = v.par_iter().positions(|&x| x % 2 == 1).collect();
    /// assert_eq!(odd, [0, 2, 4]);
    /// ```
    fn positions<F>(self, predicate: F) -> Par<Positions<Self::Indexed, F>>
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.into_indexed()
            .wrap(|base| Positions { base, f: predicate })
    }

    /// Splits pairs into `left` and `right`, replacing their contents, as
    /// rayon's `unzip_into_vecs`: each item is written straight to its
    /// place, with one allocation per vector at most (none if it has the
    /// capacity).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let (mut a, mut b) = (vec![9], Vec::new());
    /// (0..3u32).into_par_iter().map(|i| (i, i * 2)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 2, 4]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut std::vec::Vec<A>, right: &mut std::vec::Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        super::collect::unzip_into_vecs(self.into_indexed(), left, right)
    }

    /// rayon's `by_exponential_blocks`, which makes rayon run the input in
    /// growing blocks, one after another, so that an early stop
    /// (`find_first`) finishes sooner. Tine's driver already runs every
    /// call in blocks (the caller's grow 1, 4, 16, ..., and a call that can
    /// stop early checks between blocks of at most
    /// [`STOP_BLOCK`](crate::par::drive::STOP_BLOCK) positions), so this
    /// returns the iterator unchanged.
    fn by_exponential_blocks(self) -> Par<Self::Indexed> {
        self.into_indexed()
    }

    /// rayon's `by_uniform_blocks(block_size)`: as
    /// [`by_exponential_blocks`](Self::by_exponential_blocks), the
    /// iterator unchanged (bound the blocks with
    /// [`with_max_len`](ParallelIterator::with_max_len) if needed). Panics
    /// if `block_size` is 0, as rayon's does.
    #[track_caller]
    fn by_uniform_blocks(self, block_size: usize) -> Par<Self::Indexed> {
        let par = self.into_indexed();
        assert!(block_size != 0, "block_size must not be zero");
        par
    }

    /// `self[0], other[0], self[1], other[1], ...`, then the rest of the
    /// longer one (rayon's `interleave`). The call runs with `self`'s
    /// settings. Panics if the lengths together overflow `usize`.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<u32> = (1..3u32).into_par_iter().interleave(3..7u32).collect();
    /// assert_eq!(v, [1, 3, 2, 4, 5, 6]);
    /// ```
    fn interleave<I>(
        self,
        other: I,
    ) -> Par<Interleave<Self::Indexed, <I::Iter as IndexedParallelIterator>::Indexed>>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
    {
        let (a, b) = (self.into_indexed(), other.into_par_iter().into_indexed());
        // Checked while both are still iterators: a panic drops their items.
        let fits = a.producer_len().checked_add(b.producer_len()).is_some();
        assert!(
            fits,
            "interleaved parallel iterators longer than usize::MAX"
        );
        let (b, _) = b.into_parts();
        a.wrap(|a| Interleave { a, b })
    }

    /// [`interleave`](Self::interleave) until either side runs out (rayon's
    /// `interleave_shortest`): `self` gives at most one item more than
    /// `other`; the rest of the longer side is dropped unseen.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().interleave_shortest(5..7u32).collect();
    /// assert_eq!(v, [1, 5, 2, 6, 3]);
    /// ```
    #[allow(clippy::type_complexity)]
    fn interleave_shortest<I>(
        self,
        other: I,
    ) -> Par<Interleave<Window<Self::Indexed>, Window<<I::Iter as IndexedParallelIterator>::Indexed>>>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let (la, lb) = (self.len(), other.len());
        let (take_a, take_b) = if la <= lb { (la, la) } else { (lb + 1, lb) };
        self.take(take_a).interleave(other.take(take_b))
    }

    /// Collects into `target`, replacing its contents, with one allocation
    /// at most (none if it has the capacity).
    fn collect_into_vec(self, target: &mut std::vec::Vec<Self::Item>) {
        super::collect::collect_into_vec(self.into_indexed(), target)
    }

    /// The position of some item for which `f` is true, stopping the call
    /// at the first found.
    fn position_any<F>(self, f: F) -> Option<usize>
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = |(i, item)| f(item).then_some(i);
        consume::find(self.enumerate(), found, Wanted::Any)
    }

    /// The lowest position of an item for which `f` is true.
    fn position_first<F>(self, f: F) -> Option<usize>
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = |(i, item)| f(item).then_some(i);
        consume::find(self.enumerate(), found, Wanted::First)
    }

    /// Compares the items with `other`'s, lexicographically, as
    /// `Iterator::cmp`.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use tine::prelude::*;
    ///
    /// let a = vec![1, 2, 3];
    /// assert_eq!(a.par_iter().cmp(&vec![1, 2, 4]), Ordering::Less);
    /// assert_eq!(a.par_iter().cmp(&vec![1, 2]), Ordering::Greater);
    /// ```
    fn cmp<I>(self, other: I) -> core::cmp::Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let lengths = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| Ord::cmp(&x, &y))
            .find_first(|&order| order != core::cmp::Ordering::Equal)
            .unwrap_or(lengths)
    }

    /// Compares the items with `other`'s, lexicographically, as
    /// `Iterator::partial_cmp`: `None` at the first pair that has no
    /// order.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use tine::prelude::*;
    ///
    /// let a = vec![1.0, 2.0];
    /// assert_eq!(a.par_iter().partial_cmp(&vec![1.0, 3.0]), Some(Ordering::Less));
    /// assert_eq!(a.par_iter().partial_cmp(&vec![f64::NAN, 0.0]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<core::cmp::Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let lengths = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| PartialOrd::partial_cmp(&x, &y))
            .find_first(|&order| order != Some(core::cmp::Ordering::Equal))
            .unwrap_or(Some(lengths))
    }

    /// Whether the items equal `other`'s, as `Iterator::eq`: the same
    /// length, and every pair equal.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// assert!((0..100).into_par_iter().eq(0..100));
    /// assert!(!(0..100).into_par_iter().eq(0..99));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(x, y)| x.eq(&y))
    }

    /// Whether the items differ from `other`'s: `!eq`.
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether the items sort before `other`'s, lexicographically.
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(core::cmp::Ordering::Less)
    }

    /// Whether the items sort before `other`'s or equal them.
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let order = self.partial_cmp(other);
        order == Some(core::cmp::Ordering::Less) || order == Some(core::cmp::Ordering::Equal)
    }

    /// Whether the items sort after `other`'s, lexicographically.
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(core::cmp::Ordering::Greater)
    }

    /// Whether the items sort after `other`'s or equal them.
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let order = self.partial_cmp(other);
        order == Some(core::cmp::Ordering::Greater) || order == Some(core::cmp::Ordering::Equal)
    }

    /// [`zip`](Self::zip) for two iterators that must be as long as each
    /// other, as rayon's `zip_eq`.
    ///
    /// # Panics
    /// If the lengths differ, before any item is produced.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let sums: Vec<u32> = (0..4u32).into_par_iter().zip_eq(vec![10, 20, 30, 40]).map(|(a, b)| a + b).collect();
    /// assert_eq!(sums, [10, 21, 32, 43]);
    /// ```
    fn zip_eq<Z>(
        self,
        other: Z,
    ) -> Par<Zip<Self::Indexed, <Z::Iter as IndexedParallelIterator>::Indexed>>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let (left, right) = (self.len(), other.len());
        assert_eq!(left, right, "zip_eq: iterators of different lengths");
        self.zip(other)
    }

    /// The highest position of an item for which `f` is true, as
    /// rayon's `position_last`: blocks below the highest found so far
    /// are skipped.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v = vec![1, 2, 3, 2, 1];
    /// assert_eq!(v.par_iter().position_last(|&x| x == 2), Some(3));
    /// assert_eq!(v.par_iter().position_last(|&x| x == 9), None);
    /// ```
    fn position_last<F>(self, f: F) -> Option<usize>
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = |(i, item)| f(item).then_some(i);
        consume::find_last::find_last(self.enumerate().into_par(), found)
    }
}

impl<P: Indexed + Send> IndexedParallelIterator for Par<P>
where
    P::Item: Send,
{
    type Indexed = P;

    fn into_indexed(self) -> Par<P> {
        self
    }

    fn len(&self) -> usize {
        self.producer.as_ref().map_or(0, |p| p.len())
    }
}
