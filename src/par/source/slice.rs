//! [`ParallelSlice`]: the parallel methods of shared slices, with
//! rayon's names: `par_chunks`, `par_windows`, `par_chunks_exact`,
//! `par_rchunks(_exact)`, `par_split` and `par_split_inclusive`.

use super::slice_split::SliceSplitProducer;
use super::slices::{ChunksExactProducer, RChunksExactProducer, RChunksProducer, WindowsProducer};
use crate::par::iter::Par;
use crate::par::producer::ChunksProducer;

/// The parallel methods of shared slices (and `Vec`s, through deref),
/// with rayon's names and bounds.
pub trait ParallelSlice<T: Sync> {
    /// Chunks of `size` items, the last one shorter if `size` does not
    /// divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks(&self, size: usize) -> Par<ChunksProducer<'_, T>>;

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
    fn par_windows(&self, size: usize) -> Par<WindowsProducer<'_, T>>;

    /// Chunks of exactly `size` items from the front; a shorter remainder
    /// at the end is left out (take it with `chunks_exact(size).remainder()`).
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_chunks_exact(&self, size: usize) -> Par<ChunksExactProducer<'_, T>>;

    /// Chunks of `size` items from the back, the last one (at the front)
    /// shorter if `size` does not divide the length.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_rchunks(&self, size: usize) -> Par<RChunksProducer<'_, T>>;

    /// Chunks of exactly `size` items from the back; a shorter remainder
    /// at the front is left out.
    ///
    /// # Panics
    /// If `size` is 0, with rayon's message.
    fn par_rchunks_exact(&self, size: usize) -> Par<RChunksExactProducer<'_, T>>;

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
        P: Fn(&T) -> bool + Sync + Send;

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
        P: Fn(&T) -> bool + Sync + Send;
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn par_chunks(&self, size: usize) -> Par<ChunksProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksProducer { slice: self, size })
    }

    fn par_windows(&self, size: usize) -> Par<WindowsProducer<'_, T>> {
        assert!(size != 0, "window_size must not be zero");
        Par::new(WindowsProducer { slice: self, size })
    }

    fn par_chunks_exact(&self, size: usize) -> Par<ChunksExactProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(ChunksExactProducer { slice: self, size })
    }

    fn par_rchunks(&self, size: usize) -> Par<RChunksProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(RChunksProducer { slice: self, size })
    }

    fn par_rchunks_exact(&self, size: usize) -> Par<RChunksExactProducer<'_, T>> {
        assert!(size != 0, "chunk_size must not be zero");
        Par::new(RChunksExactProducer { slice: self, size })
    }

    fn par_split<P>(&self, separator: P) -> Par<SliceSplitProducer<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Par::new(SliceSplitProducer {
            slice: self,
            separator,
            inclusive: false,
        })
    }

    fn par_split_inclusive<P>(&self, separator: P) -> Par<SliceSplitProducer<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Par::new(SliceSplitProducer {
            slice: self,
            separator,
            inclusive: true,
        })
    }
}
