//! Parallel sorting of slices: the `par_sort*` methods of
//! [`ParallelSliceMut`](super::ParallelSliceMut), built on `join`.
//!
//! - `quick.rs`: `par_sort_unstable*`, a parallel quicksort. One serial
//!   partition per level (pseudo-median-of-9 pivot, a partition by swaps,
//!   branchless for plain values: [`branchless`]), then `join` on the two sides; `slice::sort_unstable_by`
//!   below the leaf size ([`leaf_for`]) or past the depth limit.
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
/// pays for a `join`.
const LEAF: usize = 4096;

/// Parts per thread of the pool: enough that a thread slowed by the host
/// (or a part smaller than its share) leaves work the others can take, and
/// that the last part, which one thread sorts while the others have
/// nothing left, is short. On 2 threads, 10M `u64`, 9 interleaved rounds
/// in one process, two sittings: 8 parts per thread against 4, stable
/// 160.7 and 175.8 ms against 173.6 and 182.7 ms, unstable 91.9 and 91.3
/// ms against 94.9 and 95.3 ms (serial `sort` 287 ms and `sort_unstable`
/// 162 ms in both sittings); 2, 12 and 16 were no better than 8 overall.
const PARTS_PER_THREAD: usize = 8;

/// The leaf size for sorting `len` elements of `T` on the current pool.
///
/// - Plain values ([`branchless`]): about [`PARTS_PER_THREAD`] parts per
///   thread, never under [`LEAF`]. `std`'s sorts (ipnsort, driftsort) sort
///   a part far faster than a level of parallel partitioning or merging
///   costs per element, so the recursion goes only as deep as the threads
///   need: on 2 threads, about 16 parts and four levels, where
///   4096-element leaves made about 12 (and a 1.8x loss to serial
///   `sort_unstable` on 10M `u64`).
/// - Elements that own heap data: [`LEAF`]. Their comparisons chase
///   pointers, and the branching merges and partitions of small parts
///   overlap those loads better than `std`'s sorts of large parts do: on
///   10M `(u32, String)`, 4096-element leaves sorted in 1.7 s, 2-thread
///   parts in 2.3-2.6 s.
pub(super) fn leaf_for<T>(len: usize) -> usize {
    if !branchless::<T>() {
        return LEAF;
    }
    let parts = crate::pool::current_num_threads().saturating_mul(PARTS_PER_THREAD);
    LEAF.max(len / parts.max(1))
}

/// Whether the partition and the merge avoid branching on the comparison.
///
/// Branchless code wins on plain values (no mispredictions: `u64` keys
/// partition and merge about 3x faster), but it makes each step wait for
/// the comparison before it. Elements that own heap data (a `String`)
/// compare through pointers, and a branch lets the CPU fetch the next
/// comparison's data while it predicts: on 10M `(u32, String)` the
/// branchless merge sort was 2.8x slower. Owning heap data is judged by
/// `needs_drop`, a compile-time constant.
const fn branchless<T>() -> bool {
    !core::mem::needs_drop::<T>()
}

/// The smallest leaf the recursion accepts (the tests use small leaves to
/// reach deep recursion on short inputs): pivot selection and the merge
/// split assume at least this many elements.
const MIN_LEAF: usize = 8;

/// The splits run under tine's nested fork-join: `b` may run on another
/// thread of the region, concurrently with `a`; as every part is large, `b`
/// is offered to idle threads at once (`join_coarse`). The unit tests swap
/// in a `join` that always runs `b` on a thread of its own.
#[cfg(not(test))]
use crate::pool::entry::join_coarse as join;
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
