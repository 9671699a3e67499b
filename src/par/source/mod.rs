//! Where parallel iterators come from: the sources that `par_iter`,
//! `par_iter_mut` and `into_par_iter` reach (their traits are in
//! `iter/convert.rs`), and the methods of mutable slices
//! ([`ParallelSliceMut`]: `par_chunks_mut` and the like, `par_split_mut`,
//! and the `par_sort*` methods, implemented in `sort/`), with rayon's trait
//! names so that code written against rayon's prelude finds them.
//!
//! The other sources, one file each:
//! - `slice.rs`: [`ParallelSlice`](slice::ParallelSlice), the methods of
//!   shared slices; `slices.rs`: windows and exact or reversed chunks;
//!   `slice_split.rs`: `par_split` on slices.
//! - `strings.rs`: [`ParallelString`](strings::ParallelString);
//!   `str_split.rs`: the pieces of a `&str` cut at a [`Pattern`](pattern::Pattern)
//!   (`pattern.rs`).
//! - `owned.rs`: `Vec<T>`, `Box<[T]>` and slices, owned and borrowed.
//! - `collections.rs`: the standard collections other than `Vec`.
//! - `drain.rs`: `par_drain` ([`ParallelDrainRange`](drain::ParallelDrainRange),
//!   [`ParallelDrainFull`](drain::ParallelDrainFull)) on `Vec` and `String`;
//!   `drain_collections.rs`: on `VecDeque`, `BinaryHeap`, `HashMap`, `HashSet`.
//! - `small.rs`: `empty`, `once`, `repeat`, `Option`, `Result`, arrays.
//! - `split.rs`: the recursive sources, `split` and `walk_tree*`.
//! - `range.rs`: integer and `char` ranges; `wide_range.rs`: `u128` and
//!   `i128` ranges, of any length.

pub(crate) mod chunk_by;
pub(crate) mod collections;
pub(crate) mod drain;
pub(crate) mod drain_collections;
pub(crate) mod owned;
pub(crate) mod pattern;
pub(crate) mod range;
pub(crate) mod slice;
pub(crate) mod slice_split;
pub(crate) mod slices;
pub(crate) mod small;
pub(crate) mod split;
pub(crate) mod str_split;
pub(crate) mod strings;
mod tuples;
pub(crate) mod wide_range;

use crate::par::iter::par::Par;
use crate::par::producer::{ChunksMutProducer, SliceMutProducer};
use crate::par::sort;
use core::cmp::Ordering;

use slice_split::{SliceCut, SplitMutProducer};
use slices::{ChunksExactMutProducer, RChunksExactMutProducer, RChunksMutProducer};

/// `par_chunks_mut()` and the `par_sort*` methods on slices (and `Vec`s,
/// through deref), with rayon's names and bounds.
pub trait ParallelSliceMut<T: Send> {
    /// The slice the methods run over: the one method to write for a type
    /// of one's own (rayon's `as_parallel_slice_mut`); the others are
    /// provided.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// The runs in which each two neighbours satisfy `same`, as
    /// `slice::chunk_by_mut` (rayon's `par_chunk_by_mut`). The run ends
    /// are found first (one `Vec` of indices), as for `par_split_mut`.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = [1, 1, 2, 3, 3, 3];
    /// v.par_chunk_by_mut(|a, b| a == b).for_each(|run| run.reverse());
    /// assert_eq!(v, [1, 1, 2, 3, 3, 3]);
    /// let lens: Vec<usize> = v.par_chunk_by_mut(|a, b| a == b).map(|run| run.len()).collect();
    /// assert_eq!(lens, [2, 1, 3]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, same: F) -> Par<SplitMutProducer<'_, T>>
    where
        F: Fn(&T, &T) -> bool + Sync + Send,
    {
        Par::new(chunk_by::chunk_by_mut(self.as_parallel_slice_mut(), same))
    }

    /// Mutable chunks of `size` items, the last one shorter if `size` does
    /// not divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks_mut(&mut self, size: usize) -> Par<ChunksMutProducer<'_, T>> {
        let slice = self.as_parallel_slice_mut();
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksMutProducer {
            slice: SliceMutProducer::new(slice),
            size,
        })
    }

    /// Mutable chunks of exactly `size` items from the front; a shorter
    /// remainder at the end is left out.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(2).for_each(|pair| pair.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks_exact_mut(&mut self, size: usize) -> Par<ChunksExactMutProducer<'_, T>> {
        let slice = self.as_parallel_slice_mut();
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksExactMutProducer {
            slice: SliceMutProducer::new(slice),
            size,
        })
    }

    /// Mutable chunks of `size` items from the back, the last one (at the
    /// front) shorter if `size` does not divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_rchunks_mut(&mut self, size: usize) -> Par<RChunksMutProducer<'_, T>> {
        let slice = self.as_parallel_slice_mut();
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(RChunksMutProducer {
            slice: SliceMutProducer::new(slice),
            size,
        })
    }

    /// Mutable chunks of exactly `size` items from the back; a shorter
    /// remainder at the front is left out.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_rchunks_exact_mut(&mut self, size: usize) -> Par<RChunksExactMutProducer<'_, T>> {
        let slice = self.as_parallel_slice_mut();
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(RChunksExactMutProducer {
            slice: SliceMutProducer::new(slice),
            size,
        })
    }

    /// The mutable sub-slices between the elements `separator` matches, as
    /// `slice::split_mut`. The separators are found first, in one parallel
    /// pass on the current pool, into one `Vec` of their indices (a
    /// thread cannot look for separators in elements another thread may
    /// already be writing); the pieces are then an indexed iterator.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = [1, 2, 0, 3, 4, 5, 0, 6];
    /// v.par_split_mut(|&x| x == 0).for_each(|piece| piece.reverse());
    /// assert_eq!(v, [2, 1, 0, 5, 4, 3, 0, 6]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> Par<SplitMutProducer<'_, T>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        let slice = self.as_parallel_slice_mut();
        Par::new(SplitMutProducer::new(slice, separator, SliceCut::Split))
    }

    /// The mutable sub-slices, each ending with the element `separator`
    /// matched, as `slice::split_inclusive_mut` (no empty last piece); the
    /// separators are found first, as for
    /// [`par_split_mut`](Self::par_split_mut).
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> Par<SplitMutProducer<'_, T>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        let slice = self.as_parallel_slice_mut();
        Par::new(SplitMutProducer::new(slice, separator, SliceCut::Inclusive))
    }

    /// Sorts the slice, stably (equal elements keep their order): a
    /// parallel merge sort that allocates one buffer as long as the slice.
    /// See [`par_sort_by`](Self::par_sort_by) for panics and bad orders.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec![5, 1, 4, 1, 3];
    /// v.par_sort();
    /// assert_eq!(v, [1, 1, 3, 4, 5]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        let slice = self.as_parallel_slice_mut();
        sort::stable(slice, &T::cmp, sort::leaf_for::<T>(slice.len()));
    }

    /// Sorts the slice by `compare`, stably: a parallel merge sort (halves
    /// sorted under `join`, merges split by binary search), with one buffer
    /// as long as the slice; parts go to `slice::sort_by`. A part is at
    /// least 4096 elements; for elements that own no heap data, about a
    /// quarter of a thread's share, so that `std`'s fast sort does most of
    /// the work.
    ///
    /// If `compare` panics, the panic reaches the caller and the slice
    /// holds its elements in some order, each exactly once. If `compare`
    /// is not a total order, the order is unspecified (and `std`'s sort,
    /// which sorts the parts, may panic), but nothing is lost, duplicated
    /// or unsound.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
    /// v.par_sort_by(|x, y| x.0.cmp(&y.0));
    /// assert_eq!(v, [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        sort::stable(slice, &compare, sort::leaf_for::<T>(slice.len()));
    }

    /// Sorts the slice by the key `f` gives, stably. `f` runs on every
    /// comparison (twice each); see
    /// [`par_sort_by_cached_key`](Self::par_sort_by_cached_key) for
    /// expensive keys.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec![-3i32, 2, -1, 0];
    /// v.par_sort_by_key(|x| x.abs());
    /// assert_eq!(v, [0, -1, 2, -3]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        sort::stable(
            slice,
            &|a: &T, b: &T| f(a).cmp(&f(b)),
            sort::leaf_for::<T>(slice.len()),
        );
    }

    /// Sorts the slice by the key `f` gives, stably, calling `f` once per
    /// element (in parallel). The `(key, index)` pairs are sorted with the
    /// parallel unstable sort (the index breaks ties) and the permutation
    /// is applied in place; the pairs take one allocation. If `f` or the
    /// key's `cmp` panics, the slice is left untouched.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec!["hello", "a", "tine", "abc"];
    /// v.par_sort_by_cached_key(|s| s.len().to_string());
    /// assert_eq!(v, ["a", "abc", "tine", "hello"]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        sort::cached::sort_by_cached_key(slice, f);
    }

    /// Sorts the slice, unstably (equal elements may be reordered), in
    /// place with no allocation. See
    /// [`par_sort_unstable_by`](Self::par_sort_unstable_by).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v: Vec<u64> = (0..10_000).map(|i| (i * 7919) % 10_007).collect();
    /// v.par_sort_unstable();
    /// assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        let slice = self.as_parallel_slice_mut();
        sort::unstable(slice, &T::cmp, sort::leaf_for::<T>(slice.len()));
    }

    /// Sorts the slice by `compare`, unstably, in place: a parallel
    /// quicksort (pseudo-median-of-9 pivot, a partition by swaps, the two
    /// sides under `join`) that hands parts (sized as for
    /// [`par_sort_by`](Self::par_sort_by)), and parts deeper than
    /// `2 * log2(len)` levels, to `slice::sort_unstable_by`, so it is
    /// O(n log n) in the worst case.
    ///
    /// If `compare` panics, the panic reaches the caller and the slice
    /// holds its elements in some order, each exactly once. If `compare`
    /// is not a total order, the order is unspecified (and `std`'s sort
    /// may panic), but nothing is lost, duplicated or unsound.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        sort::unstable(slice, &compare, sort::leaf_for::<T>(slice.len()));
    }

    /// Sorts the slice by the key `f` gives, unstably, in place. `f` runs
    /// on every comparison (twice each).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let mut v = vec![-3i32, 2, -1];
    /// v.par_sort_unstable_by_key(|x| x.abs());
    /// assert_eq!(v, [-1, 2, -3]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        sort::unstable(
            slice,
            &|a: &T, b: &T| f(a).cmp(&f(b)),
            sort::leaf_for::<T>(slice.len()),
        );
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
