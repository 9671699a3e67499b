//! Adaptors that group the positions of an indexed producer into chunks:
//! `chunks` (each chunk a `Vec`) and `fold_chunks` / `fold_chunks_with`
//! (each chunk folded).
//!
//! Position `p` of the adaptor is the chunk of the base's positions
//! `p * size .. (p + 1) * size` (the last one cut to the base's length), so
//! a block `[b, e)` is one range of the base, `b * size .. e * size`, cut
//! into chunks as it runs: every base position is handed out once, with
//! the block that owns it.

use super::{clone_parts, MakeState};
use crate::par::producer::{Indexed, Producer};
use std::vec::Vec;

/// The base positions of the chunks `begin..end`, for chunks of `size` over
/// `len` positions.
fn base_range(len: usize, size: usize, begin: usize, end: usize) -> (usize, usize) {
    (
        begin.saturating_mul(size).min(len),
        end.saturating_mul(size).min(len),
    )
}

/// The number of chunks of `size` in `len` positions.
fn chunk_count(len: usize, size: usize) -> usize {
    len.div_ceil(size)
}

/// `chunks(size)`: each position is a `Vec` of up to `size` of the base's
/// items, in order; only the last one is shorter.
#[derive(Clone, Debug)]
pub struct Chunks<P> {
    pub(in crate::par) base: P,
    /// Not 0 (`chunks` panics first).
    pub(in crate::par) size: usize,
}

/// The iterator of one range of [`Chunks`]: the base's range, gathered
/// `size` items at a time into a `Vec` of the exact length.
#[derive(Debug)]
pub struct ChunksIter<It> {
    items: It,
    size: usize,
    /// The base items left in the range.
    left: usize,
}

impl<It: Iterator> Iterator for ChunksIter<It> {
    type Item = Vec<It::Item>;

    fn next(&mut self) -> Option<Vec<It::Item>> {
        if self.left == 0 {
            return None;
        }
        let take = self.size.min(self.left);
        self.left -= take;
        let mut chunk = Vec::with_capacity(take);
        chunk.extend(self.items.by_ref().take(take));
        Some(chunk)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let chunks = chunk_count(self.left, self.size);
        (chunks, Some(chunks))
    }
}

// SAFETY: the chunks' base ranges are disjoint and cover the base (see the
// module docs); an indexed base yields `left` items, so there is one chunk
// per position.
unsafe impl<P: Indexed> Producer for Chunks<P> {
    type Item = Vec<P::Item>;
    type Iter<'a>
        = ChunksIter<P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        chunk_count(self.base.len(), self.size)
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let (first, last) = base_range(self.base.len(), self.size, begin, end);
        ChunksIter {
            // SAFETY: forwarded from the caller, scaled to chunks.
            items: unsafe { self.base.range(first, last) },
            size: self.size,
            left: last - first,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let (first, last) = base_range(self.base.len(), self.size, begin, end);
        // SAFETY: as in `range`.
        unsafe { self.base.drop_range(first, last) }
    }
}
// SAFETY: one chunk per position.
unsafe impl<P: Indexed> Indexed for Chunks<P> {}

/// `fold_chunks(size, identity, f)` and `fold_chunks_with(size, init, f)`:
/// each position is a chunk of up to `size` of the base's items folded with
/// `f` from a fresh state (`identity()`, or a clone of `init`).
#[derive(Debug)]
pub struct FoldChunks<P, I, F> {
    pub(in crate::par) base: P,
    /// Not 0 (`fold_chunks` panics first).
    pub(in crate::par) size: usize,
    pub(in crate::par) identity: I,
    pub(in crate::par) f: F,
}

impl<P: Producer + Clone, I: Clone, F: Clone> Clone for FoldChunks<P, I, F> {
    fn clone(&self) -> Self {
        let (base, (identity, f)) =
            clone_parts(&self.base, || (self.identity.clone(), self.f.clone()));
        let size = self.size;
        FoldChunks {
            base,
            size,
            identity,
            f,
        }
    }
}

/// `fold_chunks_with`: a clone of `init` starts each chunk.
pub type FoldChunksWith<P, T, F> = FoldChunks<P, super::CloneOf<T>, F>;

/// The iterator of one range of [`FoldChunks`]: the base's range, folded
/// `size` items at a time.
#[derive(Debug)]
pub struct FoldChunksIter<'a, It, I, F> {
    items: It,
    size: usize,
    left: usize,
    identity: &'a I,
    f: &'a F,
}

impl<It, I, F, T> Iterator for FoldChunksIter<'_, It, I, F>
where
    It: Iterator,
    I: MakeState<State = T>,
    F: Fn(T, It::Item) -> T,
{
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        let take = self.size.min(self.left);
        self.left -= take;
        let mut acc = self.identity.make();
        for item in self.items.by_ref().take(take) {
            acc = (self.f)(acc, item);
        }
        Some(acc)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let chunks = chunk_count(self.left, self.size);
        (chunks, Some(chunks))
    }
}

// SAFETY: as for `Chunks`: one folded chunk per position.
unsafe impl<P, I, F, T> Producer for FoldChunks<P, I, F>
where
    P: Indexed,
    I: MakeState<State = T>,
    F: Fn(T, P::Item) -> T + Sync,
{
    type Item = T;
    type Iter<'a>
        = FoldChunksIter<'a, P::Iter<'a>, I, F>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        chunk_count(self.base.len(), self.size)
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let (first, last) = base_range(self.base.len(), self.size, begin, end);
        FoldChunksIter {
            // SAFETY: forwarded from the caller, scaled to chunks.
            items: unsafe { self.base.range(first, last) },
            size: self.size,
            left: last - first,
            identity: &self.identity,
            f: &self.f,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let (first, last) = base_range(self.base.len(), self.size, begin, end);
        // SAFETY: as in `range`.
        unsafe { self.base.drop_range(first, last) }
    }
}
// SAFETY: one folded chunk per position.
unsafe impl<P, I, F, T> Indexed for FoldChunks<P, I, F>
where
    P: Indexed,
    I: MakeState<State = T>,
    F: Fn(T, P::Item) -> T + Sync,
{
}
