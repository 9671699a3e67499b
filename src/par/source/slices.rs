//! More ways to cut a slice into items, with rayon's names:
//! `par_windows`, `par_chunks_exact(_mut)`, `par_rchunks(_mut)` and
//! `par_rchunks_exact(_mut)`.
//!
//! Each is a producer whose position `i` is the `i`-th window or chunk, in
//! the order `std`'s iterator of the same name yields them, so a range of
//! positions is one sub-slice cut by that very iterator: a thread's share
//! runs as `std`'s own loop. The one rule per kind is [`Kind::positions`]
//! and [`Kind::bounds`]; the producers below differ only in the `std`
//! iterator they call.

use crate::par::producer::Indexed;
use crate::par::producer::{Producer, SliceMutProducer};

/// How a slice of `len` elements is cut into items of `size`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    /// Overlapping windows, one per start.
    Windows,
    /// Chunks from the front; a shorter remainder is left out.
    ChunksExact,
    /// Chunks from the back; the last one (at the front) may be shorter.
    RChunks,
    /// Chunks from the back; a shorter remainder (at the front) is left
    /// out.
    RChunksExact,
}

impl Kind {
    /// The number of items.
    fn positions(self, len: usize, size: usize) -> usize {
        match self {
            Kind::Windows => (len + 1).saturating_sub(size),
            Kind::ChunksExact | Kind::RChunksExact => len / size,
            Kind::RChunks => len.div_ceil(size),
        }
    }

    /// The elements `start..stop` that hold items `begin..end` (`begin <=
    /// end <= positions`), cut so that `std`'s iterator of this kind yields
    /// exactly those items.
    fn bounds(self, len: usize, size: usize, begin: usize, end: usize) -> (usize, usize) {
        match self {
            Kind::Windows => {
                let stop = if begin == end { begin } else { end + size - 1 };
                (begin, stop)
            }
            Kind::ChunksExact => (begin * size, end * size),
            Kind::RChunks => (
                len.saturating_sub(end.saturating_mul(size)),
                len.saturating_sub(begin.saturating_mul(size)),
            ),
            Kind::RChunksExact => (len - end * size, len - begin * size),
        }
    }
}

macro_rules! shared_producer {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $iter:ident, $method:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'a, T> {
            pub(super) slice: &'a [T],
            /// Positive (the trait method checks it).
            pub(super) size: usize,
        }

        /// `Clone` for any `T`, as `&[T]` is `Copy`.
        impl<T> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                let (slice, size) = (self.slice, self.size);
                $name { slice, size }
            }
        }

        // SAFETY: position `i` is the `i`-th item of `std`'s iterator over
        // the whole slice, and `range` yields exactly the items of its
        // positions (`Kind::bounds`), one per position.
        unsafe impl<'a, T: Sync> Producer for $name<'a, T> {
            type Item = &'a [T];
            type Iter<'b>
                = core::slice::$iter<'a, T>
            where
                Self: 'b;
            const EXACT: bool = true;

            fn len(&self) -> usize {
                Kind::$kind.positions(self.slice.len(), self.size)
            }

            unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
                let (start, stop) = Kind::$kind.bounds(self.slice.len(), self.size, begin, end);
                self.slice[start..stop].$method(self.size)
            }

            unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
        }

        // SAFETY: one item per position (above).
        unsafe impl<T: Sync> Indexed for $name<'_, T> {}
    };
}

macro_rules! mut_producer {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $iter:ident, $method:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'a, T> {
            pub(super) slice: SliceMutProducer<'a, T>,
            /// Positive (the trait method checks it).
            pub(super) size: usize,
        }

        // SAFETY: as for the shared producers; the items of distinct
        // positions are disjoint sub-slices (no kind with a mutable
        // version overlaps), so the `&mut`s never alias.
        unsafe impl<'a, T: Send> Producer for $name<'a, T> {
            type Item = &'a mut [T];
            type Iter<'b>
                = core::slice::$iter<'a, T>
            where
                Self: 'b;
            const EXACT: bool = true;

            fn len(&self) -> usize {
                Kind::$kind.positions(self.slice.len(), self.size)
            }

            unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
                let (start, stop) = Kind::$kind.bounds(self.slice.len(), self.size, begin, end);
                // SAFETY: in bounds (`Kind::bounds`), and these elements
                // belong to positions handed out once (the caller's
                // contract), so no other thread gets them.
                unsafe { self.slice.sub_slice(start, stop) }.$method(self.size)
            }

            unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
        }

        // SAFETY: one item per position (above).
        unsafe impl<T: Send> Indexed for $name<'_, T> {}
    };
}

shared_producer!(
    /// Overlapping windows of a slice: `slice.par_windows(size)`.
    WindowsProducer, Windows, Windows, windows
);
shared_producer!(
    /// Chunks of exactly `size` from the front: `slice.par_chunks_exact(size)`.
    ChunksExactProducer, ChunksExact, ChunksExact, chunks_exact
);
shared_producer!(
    /// Chunks from the back: `slice.par_rchunks(size)`.
    RChunksProducer, RChunks, RChunks, rchunks
);
shared_producer!(
    /// Chunks of exactly `size` from the back: `slice.par_rchunks_exact(size)`.
    RChunksExactProducer, RChunksExact, RChunksExact, rchunks_exact
);
mut_producer!(
    /// Mutable chunks of exactly `size` from the front:
    /// `slice.par_chunks_exact_mut(size)`.
    ChunksExactMutProducer, ChunksExact, ChunksExactMut, chunks_exact_mut
);
mut_producer!(
    /// Mutable chunks from the back: `slice.par_rchunks_mut(size)`.
    RChunksMutProducer, RChunks, RChunksMut, rchunks_mut
);
mut_producer!(
    /// Mutable chunks of exactly `size` from the back:
    /// `slice.par_rchunks_exact_mut(size)`.
    RChunksExactMutProducer, RChunksExact, RChunksExactMut, rchunks_exact_mut
);

#[cfg(test)]
mod tests {
    use super::Kind;
    use std::vec::Vec;

    /// Every kind's bounds, cut by `std`'s iterator, give exactly the items
    /// of the positions, for every split point.
    #[test]
    fn ranges_of_positions_match_std() {
        let data: Vec<u32> = (0..23).collect();
        for len in 0..data.len() {
            let slice = &data[..len];
            for size in 1..8 {
                let whole: [Vec<&[u32]>; 4] = [
                    slice.windows(size).collect(),
                    slice.chunks_exact(size).collect(),
                    slice.rchunks(size).collect(),
                    slice.rchunks_exact(size).collect(),
                ];
                let kinds = [
                    Kind::Windows,
                    Kind::ChunksExact,
                    Kind::RChunks,
                    Kind::RChunksExact,
                ];
                for (kind, whole) in kinds.into_iter().zip(&whole) {
                    let n = kind.positions(len, size);
                    assert_eq!(n, whole.len(), "{kind:?} len {len} size {size}");
                    for begin in 0..=n {
                        for end in begin..=n {
                            let (start, stop) = kind.bounds(len, size, begin, end);
                            let part = &slice[start..stop];
                            let got: Vec<&[u32]> = match kind {
                                Kind::Windows => part.windows(size).collect(),
                                Kind::ChunksExact => part.chunks_exact(size).collect(),
                                Kind::RChunks => part.rchunks(size).collect(),
                                Kind::RChunksExact => part.rchunks_exact(size).collect(),
                            };
                            assert_eq!(got, whole[begin..end], "{kind:?} {begin}..{end}");
                        }
                    }
                }
            }
        }
    }
}
