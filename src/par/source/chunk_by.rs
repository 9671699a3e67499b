//! `par_chunk_by` and `par_chunk_by_mut`: the runs of a slice in which
//! each two neighbours satisfy a predicate, as `slice::chunk_by`.
//!
//! **Shared** ([`ChunkByProducer`]): position `i` is element `i`, and each
//! run belongs to the position where it starts (0, or an `i` whose pair
//! `(i - 1, i)` fails the predicate). `range(begin, end)` finds its first
//! start from `begin`, then yields the runs that start before `end`; the
//! last one may run on past `end`, reading the shared slice. Nothing is
//! allocated.
//!
//! **Mutable**: a run's end cannot be found without reading elements that
//! another thread may already hold as `&mut`, so the cuts are found first,
//! each block of elements by one thread (and the pairs across blocks on
//! the caller), into one `Vec`; the runs are then cut from that list by a
//! [`SplitMutProducer`], one per position.

use super::slice_split::{SliceCut, SplitMutProducer};
use crate::par::producer::Producer;
use std::vec::Vec;

/// The runs of a shared slice: `slice.par_chunk_by(f)`.
#[derive(Debug)]
pub struct ChunkByProducer<'a, T, F> {
    pub(super) slice: &'a [T],
    pub(super) same: F,
}

/// `Clone` for any `T` and a `Clone` predicate.
impl<T, F: Clone> Clone for ChunkByProducer<'_, T, F> {
    fn clone(&self) -> Self {
        ChunkByProducer {
            slice: self.slice,
            same: self.same.clone(),
        }
    }
}

impl<T, F: Fn(&T, &T) -> bool> ChunkByProducer<'_, T, F> {
    /// Whether a run starts at element `i` (`i < len`).
    fn starts_at(&self, i: usize) -> bool {
        i == 0 || !(self.same)(&self.slice[i - 1], &self.slice[i])
    }
}

/// The runs of one range of a [`ChunkByProducer`].
#[derive(Debug)]
pub struct ChunkByRange<'a, 'b, T, F> {
    producer: &'b ChunkByProducer<'a, T, F>,
    /// The next run's start, if one starts before `end`.
    next: Option<usize>,
    end: usize,
}

impl<'a, T, F: Fn(&T, &T) -> bool> Iterator for ChunkByRange<'a, '_, T, F> {
    type Item = &'a [T];

    fn next(&mut self) -> Option<&'a [T]> {
        let start = self.next.filter(|&start| start < self.end)?;
        let slice = self.producer.slice;
        let mut stop = start + 1;
        while stop < slice.len() && (self.producer.same)(&slice[stop - 1], &slice[stop]) {
            stop += 1;
        }
        self.next = (stop < slice.len()).then_some(stop);
        Some(&slice[start..stop])
    }
}

// SAFETY: each run is yielded by the range holding the position where it
// starts, once; runs are shared sub-slices, so reading past `end` is fine.
unsafe impl<'a, T: Sync, F: Fn(&T, &T) -> bool + Sync> Producer for ChunkByProducer<'a, T, F> {
    type Item = &'a [T];
    type Iter<'b>
        = ChunkByRange<'a, 'b, T, F>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.slice.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let next = (begin..end).find(|&i| self.starts_at(i));
        ChunkByRange {
            producer: self,
            next,
            end,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The runs of a mutable slice, `slice.par_chunk_by_mut(f)`: the last
/// index of every run but the last, found block by block (each block's
/// pairs by one thread with `&mut` access, the pairs across blocks on the
/// caller), as a [`SplitMutProducer`] of inclusive pieces.
pub(super) fn chunk_by_mut<T, F>(slice: &mut [T], same: F) -> SplitMutProducer<'_, T>
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync + Send,
{
    use crate::par::iter::indexed::IndexedParallelIterator;
    use crate::par::iter::ParallelIterator;
    use crate::par::source::ParallelSliceMut;
    let len = slice.len();
    // Enough blocks for every thread, few enough that the caller's check
    // of the pairs across them costs nothing to speak of.
    let threads = crate::pool::current_num_threads();
    let block = len.div_ceil(threads.saturating_mul(4).max(1)).max(1024);
    let mut ends: Vec<usize> = slice
        .par_chunks_mut(block)
        .enumerate()
        .flat_map_iter(|(b, chunk)| {
            let first = b * block;
            let ends: Vec<usize> = (1..chunk.len())
                .filter(|&i| !same(&chunk[i - 1], &chunk[i]))
                .map(|i| first + i - 1)
                .collect();
            ends
        })
        .collect();
    for boundary in (block..len).step_by(block) {
        if !same(&slice[boundary - 1], &slice[boundary]) {
            ends.push(boundary - 1);
        }
    }
    ends.sort_unstable();
    SplitMutProducer::from_separators(slice, ends, SliceCut::Inclusive)
}
