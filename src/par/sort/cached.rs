//! `par_sort_by_cached_key`: each key computed once, in parallel.
//!
//! The keys go into a `Vec<(K, index)>` (`par_iter_mut().enumerate()`, so
//! only `T: Send` is needed), with `u32` indices when the length allows.
//! The pairs sort with the unstable parallel quicksort: the index breaks
//! ties between equal keys, so the result is stable. The permutation is
//! then applied in place by swaps (the way `std`'s `sort_by_cached_key`
//! does it), so a panic in `f` or in `K::cmp` leaves the slice untouched.

use super::{leaf_for, quick, MIN_LEAF};
use crate::par::iter::convert::IntoParallelRefMutIterator;
use crate::par::iter::indexed::IndexedParallelIterator;
use crate::par::iter::ParallelIterator;
use std::vec::Vec;

/// Sorts `v` by the keys `f` gives, calling `f` once per element.
pub(crate) fn sort_by_cached_key<T, K, F>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    if v.len() < 2 {
        return;
    }
    if u32::try_from(v.len()).is_ok() {
        sort_with::<T, K, F, u32>(v, f);
    } else {
        sort_with::<T, K, F, usize>(v, f);
    }
}

/// An index type for the pairs: `u32` keeps them small.
trait Index: Copy + Ord + Send {
    /// Only called with indices below the slice's length, which fits.
    fn from_usize(i: usize) -> Self;
    fn to_usize(self) -> usize;
}

impl Index for u32 {
    fn from_usize(i: usize) -> Self {
        // The caller checked that the length fits in a u32.
        i as u32
    }

    fn to_usize(self) -> usize {
        self as usize
    }
}

impl Index for usize {
    fn from_usize(i: usize) -> Self {
        i
    }

    fn to_usize(self) -> usize {
        self
    }
}

fn sort_with<T, K, F, I>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
    I: Index,
{
    let mut pairs: Vec<(K, I)> = v
        .par_iter_mut()
        .enumerate()
        .map(|(i, x)| (f(&*x), I::from_usize(i)))
        .collect();
    let leaf = leaf_for::<(K, I)>(pairs.len()).max(MIN_LEAF);
    quick::sort(&mut pairs, &|a: &(K, I), b: &(K, I)| a.cmp(b), leaf);

    // Position `i` takes the element that was at `pairs[i].1`. Earlier
    // swaps moved an element from a position below `i` to the position
    // `pairs[that].1` names, so follow the chain until it reaches `i` or
    // beyond.
    for i in 0..v.len() {
        let mut from = pairs[i].1.to_usize();
        while from < i {
            from = pairs[from].1.to_usize();
        }
        pairs[i].1 = I::from_usize(from);
        v.swap(i, from);
    }
}
