//! [`ParallelSlice`]: the parallel methods of shared slices, with
//! rayon's names: `par_chunks`, `par_windows`, `par_chunks_exact`,
//! `par_rchunks(_exact)`, `par_split` and `par_split_inclusive`.

use super::chunk_by::ChunkByProducer;
use super::slice_split::{SliceCut, SliceSplitProducer};
use super::slices::{ChunksExactProducer, RChunksExactProducer, RChunksProducer, WindowsProducer};
use crate::par::iter::adaptor::Map;
use crate::par::iter::par::Par;
use crate::par::producer::ChunksProducer;

/// The parallel methods of shared slices (and `Vec`s, through deref),
/// with rayon's names and bounds.
pub trait ParallelSlice<T: Sync> {
    /// The slice the methods run over: the one method to write for a type
    /// of one's own (rayon's `as_parallel_slice`); the others are provided.
    fn as_parallel_slice(&self) -> &[T];

    /// Chunks of `size` items, the last one shorter if `size` does not
    /// divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks(&self, size: usize) -> Par<ChunksProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksProducer {
            slice: self.as_parallel_slice(),
            size,
        })
    }

    /// Overlapping windows of `size` items, one per start (none if the
    /// slice is shorter than `size`).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let rising = [1, 2, 4, 7].par_windows(2).all(|w| w[0] < w[1]);
    /// assert!(rising);
    /// ```
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_windows(&self, size: usize) -> Par<WindowsProducer<'_, T>> {
        assert!(size != 0, "window_size must not be zero");
        Par::new(WindowsProducer {
            slice: self.as_parallel_slice(),
            size,
        })
    }

    /// Chunks of exactly `size` items from the front; a shorter remainder
    /// at the end is left out (take it with `chunks_exact(size).remainder()`).
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks_exact(&self, size: usize) -> Par<ChunksExactProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksExactProducer {
            slice: self.as_parallel_slice(),
            size,
        })
    }

    /// Chunks of `size` items from the back, the last one (at the front)
    /// shorter if `size` does not divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_rchunks(&self, size: usize) -> Par<RChunksProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(RChunksProducer {
            slice: self.as_parallel_slice(),
            size,
        })
    }

    /// Chunks of exactly `size` items from the back; a shorter remainder
    /// at the front is left out.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_rchunks_exact(&self, size: usize) -> Par<RChunksExactProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(RChunksExactProducer {
            slice: self.as_parallel_slice(),
            size,
        })
    }

    /// The sub-slices between the elements `separator` matches, as
    /// `slice::split`: a leading or trailing separator gives an empty
    /// piece, and an empty slice gives one empty piece. Allocates nothing.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let data = [1, 2, 0, 3, 0, 0, 4];
    /// let sums: Vec<i32> = data.par_split(|&x| x == 0).map(|p| p.iter().sum()).collect();
    /// assert_eq!(sums, [3, 3, 0, 4]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Par<SliceSplitProducer<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Par::new(SliceSplitProducer {
            slice: self.as_parallel_slice(),
            separator,
            cut: SliceCut::Split,
        })
    }

    /// The sub-slices, each ending with the element `separator` matched,
    /// as `slice::split_inclusive` (no empty last piece).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let lens: Vec<usize> = [1, 0, 2, 3, 0].par_split_inclusive(|&x| x == 0).map(<[_]>::len).collect();
    /// assert_eq!(lens, [2, 3]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> Par<SliceSplitProducer<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Par::new(SliceSplitProducer {
            slice: self.as_parallel_slice(),
            separator,
            cut: SliceCut::Inclusive,
        })
    }

    /// The runs in which each two neighbours satisfy `same`, as
    /// `slice::chunk_by` (rayon's `par_chunk_by`). Allocates nothing.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let runs: Vec<&[i32]> = [1, 1, 2, 3, 3, 3].par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1, 1][..], &[2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<F>(&self, same: F) -> Par<ChunkByProducer<'_, T, F>>
    where
        F: Fn(&T, &T) -> bool + Sync + Send,
    {
        Par::new(ChunkByProducer {
            slice: self.as_parallel_slice(),
            same,
        })
    }

    /// Overlapping windows of `N` items as arrays, one per start, as
    /// rayon's `par_array_windows` (none if the slice is shorter than `N`).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let sums: Vec<i32> = [1, 2, 3, 4].par_array_windows::<2>().map(|[a, b]| a + b).collect();
    /// assert_eq!(sums, [3, 5, 7]);
    /// ```
    ///
    /// # Panics
    /// If `N` is 0.
    #[allow(clippy::type_complexity)]
    fn par_array_windows<const N: usize>(
        &self,
    ) -> Par<Map<WindowsProducer<'_, T>, fn(&[T]) -> &[T; N]>> {
        assert!(N != 0, "window size must be non-zero");
        let array: fn(&[T]) -> &[T; N] = |window| match window.try_into() {
            Ok(array) => array,
            Err(_) => unreachable!("every window holds N items"),
        };
        crate::par::iter::ParallelIterator::map(
            Par::new(WindowsProducer {
                slice: self.as_parallel_slice(),
                size: N,
            }),
            array,
        )
    }
}

/// `Clone` for any `T`, as `&[T]` is `Copy`.
impl<T> Clone for ChunksProducer<'_, T> {
    fn clone(&self) -> Self {
        let (slice, size) = (self.slice, self.size);
        ChunksProducer { slice, size }
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    #[inline]
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}
