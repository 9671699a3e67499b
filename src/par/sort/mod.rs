//! Parallel sorting of slices: the `par_sort*` methods of
//! [`ParallelSliceMut`](super::ParallelSliceMut), built on `join`.
//!
//! - `quick.rs`: `par_sort_unstable*`, a parallel quicksort. One serial
//!   partition per level (pseudo-median-of-9 pivot, Hoare partition by
//!   swaps), then `join` on the two sides; `slice::sort_unstable_by`
//!   below [`LEAF`] elements or past the depth limit.
//! - `merge.rs`: `par_sort*`, a parallel merge sort. `join` on the two
//!   halves, `slice::sort_by` at the leaves, and a merge that is itself
//!   split by binary search into parts merged under `join`, through one
//!   buffer of `len` elements allocated per call.
//! - `cached.rs`: `par_sort_by_cached_key`. Keys computed in parallel,
//!   `(key, index)` pairs sorted by `quick.rs`, the permutation applied in
//!   place.
//!
//! # Invariants
//!
//! - **A permutation, always.** The unstable sort moves elements only with
//!   `slice::swap` in safe code, so a panicking comparator leaves the slice
//!   a permutation wherever it unwinds. The merge sort moves elements by
//!   bitwise copies between the slice and the buffer; every element is, at
//!   every moment, in exactly one of the two (see `merge.rs` for the rule at
//!   each step), and on a panic every element is copied back into the slice
//!   before the payload resumes on the caller. The buffer never drops an
//!   element. Nothing is dropped twice or leaked.
//! - **A comparator is only trusted for the order.** No index, length or
//!   pointer offset depends on the comparator being a total order: every
//!   index it steers is bounds-checked or bounded by a loop counter. A
//!   comparator that is not a total order gives an unspecified order (a
//!   permutation of the input); the serial leaves are `std`'s sorts, which
//!   may panic on such a comparator, and that panic then reaches the caller
//!   as any comparator panic does.
//! - **Both sides of a `join` touch disjoint ranges.** Each side gets its own
//!   `&mut` sub-slice (quicksort) or its own ranges of the slice and the
//!   buffer (merge sort); the parent reads nothing while they run.
//! - **Correct with any `join`.** `join` may run its two closures on other
//!   threads, concurrently, and may run the second even if the first
//!   panicked. The merge sort catches panics inside each side
//!   (`catch_unwind`) so that both sides always finish and put their
//!   elements where the parent expects them; the first payload is resumed
//!   once, at the top.

mod cached;
mod merge;
mod quick;
#[cfg(test)]
mod tests;

use core::cmp::Ordering;

pub(super) use cached::sort_by_cached_key;

/// Below this many elements a call, or a part of one, sorts serially with
/// `std`'s sort; merges below it run serially. Large enough that a part
/// pays for a `join`, small enough to leave hundreds of parts on 10M
/// elements for idle threads to take.
pub(super) const LEAF: usize = 4096;

/// The smallest leaf the recursion accepts (the tests use small leaves to
/// reach deep recursion on short inputs): pivot selection and the merge
/// split assume at least this many elements.
const MIN_LEAF: usize = 8;

/// The splits run under tine's nested fork-join: `b` may run on another
/// thread of the region, concurrently with `a`. The unit tests swap in a
/// `join` that always runs `b` on a thread of its own.
#[cfg(not(test))]
use crate::join;
#[cfg(test)]
use tests::join;

/// `par_sort_unstable_by` with the leaf size given.
pub(super) fn unstable<T, C>(v: &mut [T], compare: &C, leaf: usize)
where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    quick::sort(v, compare, leaf.max(MIN_LEAF));
}

/// `par_sort_by` with the leaf size given.
pub(super) fn stable<T, C>(v: &mut [T], compare: &C, leaf: usize)
where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    merge::sort(v, compare, leaf.max(MIN_LEAF));
}
