//! The unstable sort: a parallel quicksort, in safe code.
//!
//! Each level picks a pivot (median of 3, or Tukey's ninther on 64 or more
//! elements), partitions by swaps (branchless for plain values) into `< pivot | pivot | >= pivot`, and
//! sorts the two sides under `join`. Parts of at most `leaf` elements go to
//! `slice::sort_unstable_by`.
//!
//! - **Many equal keys.** Each part remembers the pivot just left of it (its
//!   predecessor, which no element of the part is less than). When the new
//!   pivot is not greater than that predecessor, the part holds many copies
//!   of it: it is partitioned into `<= pivot | > pivot` instead, and the left
//!   side, all equal, is done. pdqsort does the same.
//! - **No quadratic case.** Every level, including the equal-key steps,
//!   spends one unit of a depth budget of `2 * log2(len)`; a part that runs
//!   out goes to `slice::sort_unstable_by` (O(n log n) in the worst case).
//!   Each level costs O(n) in all, so the total is O(n log n).
//! - **Panics and bad comparators.** Elements move only by `slice::swap`, and
//!   every index the comparator steers is bounds-checked, so a panic leaves a
//!   permutation and a comparator that is not a total order causes at most a
//!   wrong order.

use super::{branchless, join};
use core::cmp::Ordering;

/// Sorts `v` by `compare`, unstably; parts of at most `leaf` elements (at
/// least 8) sort serially.
pub(super) fn sort<T, C>(v: &mut [T], compare: &C, leaf: usize)
where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    let depth_budget = 2 * (usize::BITS - v.len().leading_zeros());
    recurse(v, compare, None, depth_budget, leaf);
}

fn recurse<'a, T, C>(
    mut v: &'a mut [T],
    compare: &C,
    predecessor: Option<&'a mut T>,
    mut budget: u32,
    leaf: usize,
) where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    loop {
        if v.len() <= leaf || budget == 0 {
            v.sort_unstable_by(|a, b| compare(a, b));
            return;
        }
        budget -= 1;
        let pivot = choose_pivot(v, &is_less);
        v.swap(0, pivot);

        if let Some(pred) = predecessor.as_deref() {
            if !is_less(pred, &v[0]) {
                // The pivot equals the predecessor: everything `<= pivot`
                // is equal to it (for a total order) and already in place.
                let equal = partition(v, |pivot, x| !is_less(pivot, x));
                v = &mut core::mem::take(&mut v)[equal + 1..];
                continue;
            }
        }

        let mid = partition(v, |pivot, x| is_less(x, pivot));
        let (left, rest) = v.split_at_mut(mid);
        let Some((pivot, right)) = rest.split_first_mut() else {
            return; // unreachable: `partition` returns an index of `v`
        };
        join(
            || recurse(left, compare, predecessor, budget, leaf),
            || recurse(right, compare, Some(pivot), budget, leaf),
        );
        return;
    }
}

/// Partitions `v` around its first element, the pivot: the elements `x`
/// with `goes_left(pivot, x)` end up before the pivot, the rest after it.
/// Returns the pivot's new index. Moves elements by swaps only.
fn partition<T>(v: &mut [T], goes_left: impl Fn(&T, &T) -> bool) -> usize {
    let Some((pivot, rest)) = v.split_first_mut() else {
        return 0;
    };
    let l = if branchless::<T>() {
        partition_lomuto(pivot, rest, goes_left)
    } else {
        partition_hoare(pivot, rest, goes_left)
    };
    // v[1..=l] go left: move the pivot to just after them.
    v.swap(0, l);
    l
}

/// Branchless (Lomuto's scheme): every element is swapped to the end of
/// the left side whatever the comparison says, and the side grows by the
/// comparison's answer, so a random order costs no mispredicted branches
/// (which [`partition_hoare`] pays on plain keys). Returns how many go
/// left.
fn partition_lomuto<T>(pivot: &T, rest: &mut [T], goes_left: impl Fn(&T, &T) -> bool) -> usize {
    // rest[..l] go left, rest[l..i] go right; rest[i..] are unexamined.
    let mut l = 0;
    for i in 0..rest.len() {
        let left = goes_left(pivot, &rest[i]);
        // `l <= i`: the left side is never longer than what was examined.
        rest.swap(l, i);
        l += usize::from(left);
    }
    l
}

/// Hoare's scheme, swapping only misplaced pairs: for elements that
/// compare through pointers, where predicted branches let the CPU fetch
/// ahead (see [`branchless`]). Returns how many go left.
fn partition_hoare<T>(pivot: &T, rest: &mut [T], goes_left: impl Fn(&T, &T) -> bool) -> usize {
    // rest[..l] go left, rest[r..] go right; rest[l..r] are unexamined.
    let (mut l, mut r) = (0, rest.len());
    loop {
        while l < r && goes_left(pivot, &rest[l]) {
            l += 1;
        }
        while l < r && !goes_left(pivot, &rest[r - 1]) {
            r -= 1;
        }
        if l >= r {
            return l;
        }
        r -= 1;
        rest.swap(l, r);
        l += 1;
    }
}

/// The index of a pivot for `v` (at least 8 elements): the median of three
/// spread positions, or on 64 or more elements the median of three such
/// medians (Tukey's ninther).
fn choose_pivot<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let len = v.len();
    let (a, b, c) = (len / 4, len / 2, len / 4 * 3);
    if len < 64 {
        return median3(v, is_less, a, b, c);
    }
    let around = |i: usize| median3(v, is_less, i - 1, i, i + 1);
    median3(v, is_less, around(a), around(b), around(c))
}

/// The one of `v[a]`, `v[b]`, `v[c]` that lies between the other two.
fn median3<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool, a: usize, b: usize, c: usize) -> usize {
    let ab = is_less(&v[a], &v[b]);
    let ac = is_less(&v[a], &v[c]);
    if ab != ac {
        return a;
    }
    // `a` is the least or the greatest: the median is the other extreme
    // of `b` and `c`.
    let bc = is_less(&v[b], &v[c]);
    if ab == bc {
        b
    } else {
        c
    }
}
