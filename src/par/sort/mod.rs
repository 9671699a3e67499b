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

pub(super) mod cached;
mod merge;
mod quick;

use core::cmp::Ordering;

/// Below this many elements a call, or a part of one, sorts serially with
/// `std`'s sort; merges below it run serially. Large enough that a part
/// pays for a `join`.
const LEAF: usize = 4096;

/// Parts per thread of the pool: enough that a thread slowed by the host
/// (or a part smaller than its share) leaves work the others can take, and
/// that the last part, which one thread sorts while the others have
/// nothing left, is short; fewer parts leave a thread idle at the end,
/// more pay for levels of partitioning that `std`'s sort of a part does
/// faster (the sorts' rows in BENCHMARKS.md were measured with 8).
const PARTS_PER_THREAD: usize = 8;

/// The leaf size for sorting `len` elements of `T` on the current pool.
///
/// - Plain values ([`branchless`]): about [`PARTS_PER_THREAD`] parts per
///   thread, never under [`LEAF`]. `std`'s sorts (ipnsort, driftsort) sort
///   a part far faster than a level of parallel partitioning or merging
///   costs per element, so the recursion goes only as deep as the threads
///   need: on 2 threads, about 16 parts and four levels, where
///   4096-element leaves would make about 12 levels, each a pass over the
///   data that `std`'s sort of a part saves.
/// - Elements that own heap data: [`LEAF`]. Their comparisons chase
///   pointers, and the branching merges and partitions of small parts
///   overlap those loads better than `std`'s sorts of large parts do.
pub(super) fn leaf_for<T>(len: usize) -> usize {
    if !branchless::<T>() {
        return LEAF;
    }
    let parts = crate::pool::current_num_threads().saturating_mul(PARTS_PER_THREAD);
    LEAF.max(len / parts.max(1))
}

/// Whether the partition and the merge avoid branching on the comparison.
///
/// Branchless code wins on plain values (no mispredictions), but it makes
/// each step wait for the comparison before it. Elements that own heap
/// data (a `String`) compare through pointers, and a branch lets the CPU
/// fetch the next comparison's data while it predicts, which branchless
/// code cannot. Owning heap data is judged by `needs_drop`, a
/// compile-time constant.
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

/// The recursion with tiny leaves, so that short inputs (fast under Miri)
/// reach deep splits, parallel merges and the equal-key and depth-limit
/// paths. `tests/par_sort.rs` tests the public methods.
#[cfg(test)]
mod tests {
    use super::{stable, unstable};
    use core::cell::Cell;
    use core::cmp::Ordering;
    use std::boxed::Box;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::vec::Vec;

    /// `join` with `b` on a new thread, concurrently with `a`: both always
    /// run, and a panic on either side resumes here after both have finished
    /// (the first side's payload if both panic), as rayon's `join` does.
    pub(super) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        std::thread::scope(|s| {
            let other = s.spawn(b);
            let ra = catch_unwind(AssertUnwindSafe(a));
            let rb = other.join();
            match (ra, rb) {
                (Ok(ra), Ok(rb)) => (ra, rb),
                (Err(payload), _) | (_, Err(payload)) => std::panic::resume_unwind(payload),
            }
        })
    }

    /// A xorshift generator: reproducible inputs without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn inputs() -> Vec<Vec<(u32, usize)>> {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut out = Vec::new();
        let lens: &[usize] = if cfg!(miri) {
            &[0, 9, 100]
        } else {
            &[0, 1, 7, 8, 9, 17, 64, 65, 100, 300]
        };
        for &len in lens {
            for range in [1u64, 3, 1000] {
                let v = (0..len).map(|i| ((rng.next() % range) as u32, i)).collect();
                out.push(v);
            }
            out.push((0..len).map(|i| (i as u32, i)).collect());
            out.push((0..len).rev().map(|i| (i as u32, i)).collect());
        }
        out
    }

    #[test]
    fn small_leaves_sort_like_std() {
        // 64: serial merges long enough to merge from both ends.
        let leaves: &[usize] = if cfg!(miri) {
            &[8, 64]
        } else {
            &[0, 8, 13, 64]
        };
        for &leaf in leaves {
            for input in inputs() {
                let mut want = input.clone();
                want.sort_by_key(|p| p.0);

                let mut got = input.clone();
                stable(
                    &mut got,
                    &|a: &(u32, usize), b: &(u32, usize)| a.0.cmp(&b.0),
                    leaf,
                );
                assert_eq!(got, want, "stable, leaf {leaf}");

                let mut got = input.clone();
                unstable(
                    &mut got,
                    &|a: &(u32, usize), b: &(u32, usize)| a.0.cmp(&b.0),
                    leaf,
                );
                let keys: Vec<u32> = got.iter().map(|p| p.0).collect();
                let want_keys: Vec<u32> = want.iter().map(|p| p.0).collect();
                assert_eq!(keys, want_keys, "unstable, leaf {leaf}");

                // Elements that own heap data take the branching partition
                // and merge (`branchless`).
                let boxed = |v: &[(u32, usize)]| -> Vec<(u32, Box<usize>)> {
                    v.iter().map(|&(k, i)| (k, Box::new(i))).collect()
                };
                let by_key = |a: &(u32, Box<usize>), b: &(u32, Box<usize>)| a.0.cmp(&b.0);
                let mut got = boxed(&input);
                stable(&mut got, &by_key, leaf);
                assert_eq!(got, boxed(&want), "stable, owned, leaf {leaf}");
                let mut got = boxed(&input);
                unstable(&mut got, &by_key, leaf);
                let keys: Vec<u32> = got.iter().map(|p| p.0).collect();
                assert_eq!(keys, want_keys, "unstable, owned, leaf {leaf}");
            }
        }
    }

    /// A sort under test, on owned values.
    type SortFn<E> = fn(&mut [E], &(dyn Fn(&E, &E) -> Ordering + Sync));

    /// Sorts `len` values made by `make` with `sort`, a comparator that
    /// compares by `key`, panicking on call `k` (or answers at random when `k`
    /// is `None`), and checks that every value is still there exactly once.
    fn permutation_survives<E: Clone + Ord + core::fmt::Debug>(
        sort: SortFn<E>,
        make: fn(u32) -> E,
        key: fn(&E) -> u32,
        len: usize,
        k: Option<usize>,
    ) {
        let input: Vec<E> = (0..len as u32).map(make).collect();
        let mut v = input.clone();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let rng = std::sync::Mutex::new(Rng(len as u64 + 1));
        let compare = |a: &E, b: &E| {
            let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            match k {
                Some(k) if n == k => panic!("comparator panic at call {k}"),
                Some(_) => key(a).cmp(&key(b)),
                None => [Ordering::Less, Ordering::Equal, Ordering::Greater]
                    [(rng.lock().unwrap().next() % 3) as usize],
            }
        };
        let _ = catch_unwind(AssertUnwindSafe(|| sort(&mut v, &compare)));
        v.sort();
        let mut want = input;
        want.sort();
        assert_eq!(v, want);
    }

    /// Both sorts, on owned values (the branching partition and merge) and on
    /// plain ones (the branchless partition, and the merge from both ends).
    #[test]
    fn panics_and_bad_orders_leave_a_permutation() {
        let lens: &[usize] = if cfg!(miri) {
            &[60]
        } else {
            &[9, 40, 150, 2000]
        };
        let ks: &[usize] = if cfg!(miri) {
            &[0, 200]
        } else {
            &[0, 1, 5, 20, 60, 200, 400, 1000]
        };
        let stable_owned: SortFn<Vec<u32>> = |v, c| stable(v, &c, 8);
        let unstable_owned: SortFn<Vec<u32>> = |v, c| unstable(v, &c, 8);
        // Leaves of 64: serial merges long enough to merge from both ends.
        let stable_plain: SortFn<(u32, u32)> = |v, c| stable(v, &c, 64);
        let unstable_plain: SortFn<(u32, u32)> = |v, c| unstable(v, &c, 8);
        for &len in lens {
            for k in ks.iter().copied().map(Some).chain([None]) {
                for sort in [stable_owned, unstable_owned] {
                    permutation_survives(sort, |i| std::vec![i % 17, i], |e| e[0], len, k);
                }
                for sort in [stable_plain, unstable_plain] {
                    permutation_survives(sort, |i| (i % 17, i), |e| e.0, len, k);
                }
            }
        }
    }

    #[test]
    fn zero_sized_and_interior_mutability() {
        let mut units = std::vec![(); 100];
        stable(&mut units, &|_: &(), _: &()| Ordering::Equal, 8);
        unstable(&mut units, &|_: &(), _: &()| Ordering::Equal, 8);
        assert_eq!(units.len(), 100);

        // A comparator that writes through `Cell`s: the writes stay with the
        // element, wherever the merge moved it.
        let mut v: Vec<(u32, Cell<u32>)> =
            (0..200).map(|i| ((i * 37) % 101, Cell::new(0))).collect();
        // `Cell` is not `Sync`, but the comparator only needs `Sync` itself and
        // the elements only `Send`.
        stable(
            &mut v,
            &|a: &(u32, Cell<u32>), b: &(u32, Cell<u32>)| {
                a.1.set(a.1.get() + 1);
                a.0.cmp(&b.0)
            },
            8,
        );
        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(v.iter().map(|p| p.1.get()).sum::<u32>() > 0);
    }

    /// A comparator that gives each element it sees a new allocation (through
    /// a `Cell`) and panics at call `k`: the slice must end up with the latest
    /// copy of every element, since a stale one would point at freed memory,
    /// which the final check and the drops read (Miri reports it).
    #[test]
    fn panics_after_writes_through_cells_keep_the_latest_copies() {
        type Elem = (u32, Cell<Vec<u32>>);
        let lens: &[usize] = if cfg!(miri) { &[60] } else { &[40, 150, 2000] };
        let stable_small: SortFn<Elem> = |v, c| stable(v, &c, 8);
        let unstable_small: SortFn<Elem> = |v, c| unstable(v, &c, 8);
        for sort in [stable_small, unstable_small] {
            for &len in lens {
                // Under Miri, no panic midway (at call `len`).
                let ks = [10, len, 3 * len, 1_000_000];
                for k in ks.into_iter().filter(|&k| !cfg!(miri) || k != len) {
                    let mut v: Vec<Elem> = (0..len as u32)
                        .map(|i| (i % 13, Cell::new(std::vec![i])))
                        .collect();
                    let calls = std::sync::atomic::AtomicUsize::new(0);
                    let renew = |x: &Elem| x.1.set(x.1.take().clone());
                    let compare = |a: &Elem, b: &Elem| {
                        if calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == k {
                            panic!("comparator panic at call {k}");
                        }
                        renew(a);
                        renew(b);
                        a.0.cmp(&b.0)
                    };
                    let result = catch_unwind(AssertUnwindSafe(|| sort(&mut v, &compare)));
                    let mut ids: Vec<u32> = v.iter_mut().map(|x| x.1.get_mut()[0]).collect();
                    ids.sort_unstable();
                    assert!(ids.iter().copied().eq(0..len as u32));
                    if result.is_ok() {
                        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
                    }
                }
            }
        }
    }

    /// The serial merge driven directly, on runs long enough to merge from
    /// both ends (`merge.rs`): the stable merge for a total order (runs whose
    /// keys straddle the other's, so that one run runs out within a round;
    /// ties; runs wholly before or after the other), and for a comparator that
    /// panics at any call, answers at random, or writes through `Cell`s, every
    /// element exactly once and the latest copy of each.
    #[test]
    fn the_serial_merge_from_both_ends() {
        use super::merge::merge_serial_for_test as merge;
        let lens: &[u32] = if cfg!(miri) {
            &[16, 23]
        } else {
            &[15, 16, 17, 23, 33, 40]
        };
        let every_kth_call = if cfg!(miri) { 13 } else { 1 };
        let mut rng = Rng(0x5eed);
        for &la in lens {
            for &lb in lens {
                let straddle_a: Vec<u32> = (0..la)
                    .map(|i| if i < la / 2 { i } else { 1000 + i })
                    .collect();
                let straddle_b: Vec<u32> = (0..lb).map(|i| 500 + i).collect();
                let mut ties_a: Vec<u32> = (0..la).map(|_| (rng.next() % 4) as u32).collect();
                let mut ties_b: Vec<u32> = (0..lb).map(|_| (rng.next() % 4) as u32).collect();
                ties_a.sort_unstable();
                ties_b.sort_unstable();
                let low: Vec<u32> = (0..la).collect();
                let high: Vec<u32> = (0..lb).map(|i| 100 + i).collect();
                for (keys_a, keys_b) in [
                    (&straddle_a, &straddle_b),
                    (&straddle_b, &straddle_a),
                    (&ties_a, &ties_b),
                    (&low, &high),
                    (&high, &low),
                ] {
                    let mid = keys_a.len();
                    // (key, id): ids number the elements in input order.
                    let input: Vec<(u32, u32)> = keys_a
                        .iter()
                        .chain(keys_b)
                        .enumerate()
                        .map(|(id, &key)| (key, id as u32))
                        .collect();
                    let by_key = |x: &(u32, u32), y: &(u32, u32)| x.0.cmp(&y.0);
                    let mut want = input.clone();
                    want.sort_by_key(|e| e.0);
                    let calls = Cell::new(0usize);
                    let counting = |x: &(u32, u32), y: &(u32, u32)| {
                        calls.set(calls.get() + 1);
                        by_key(x, y)
                    };
                    let (got, outcome) = merge(input.clone(), mid, &counting);
                    assert!(outcome.is_ok());
                    assert_eq!(got, want, "the stable merge, runs of {la} and {lb}");

                    let ids = |v: &[(u32, u32)]| {
                        let mut ids: Vec<u32> = v.iter().map(|e| e.1).collect();
                        ids.sort_unstable();
                        ids
                    };
                    let all: Vec<u32> = (0..input.len() as u32).collect();
                    for k in (0..calls.get()).step_by(every_kth_call) {
                        let seen = Cell::new(0usize);
                        let panicking = |x: &(u32, u32), y: &(u32, u32)| {
                            seen.set(seen.get() + 1);
                            assert_ne!(seen.get() - 1, k, "comparator panic at call {k}");
                            by_key(x, y)
                        };
                        let (got, outcome) = merge(input.clone(), mid, &panicking);
                        assert!(outcome.is_err());
                        assert_eq!(ids(&got), all, "a panic at call {k}");
                    }
                    let random = |_: &(u32, u32), _: &(u32, u32)| {
                        [Ordering::Less, Ordering::Equal, Ordering::Greater]
                            [(rng_next_shared() % 3) as usize]
                    };
                    let (got, _) = merge(input.clone(), mid, &random);
                    assert_eq!(ids(&got), all, "a random comparator");

                    // Each comparison counts itself in both elements' cells: a
                    // stale copy of an element would miss its later counts.
                    let touched: Vec<(u32, u32, Cell<u32>)> = input
                        .iter()
                        .map(|&(key, id)| (key, id, Cell::new(0)))
                        .collect();
                    let compared = Cell::new(0u32);
                    let writing = |x: &(u32, u32, Cell<u32>), y: &(u32, u32, Cell<u32>)| {
                        compared.set(compared.get() + 1);
                        x.2.set(x.2.get() + 1);
                        y.2.set(y.2.get() + 1);
                        x.0.cmp(&y.0)
                    };
                    let (got, _) = merge(touched, mid, &writing);
                    let mut got_ids: Vec<u32> = got.iter().map(|e| e.1).collect();
                    got_ids.sort_unstable();
                    assert_eq!(got_ids, all, "a comparator writing through cells");
                    let counts: u32 = got.iter().map(|e| e.2.get()).sum();
                    assert_eq!(counts, 2 * compared.get(), "the latest copy of each");
                }
            }
        }
    }

    /// A shared xorshift for comparators that must be `Fn`.
    fn rng_next_shared() -> u64 {
        std::thread_local!(static STATE: Cell<u64> = const { Cell::new(0x2545_f491_4f6c_dd1d) });
        STATE.with(|state| {
            let mut rng = Rng(state.get());
            let next = rng.next();
            state.set(rng.0);
            next
        })
    }
}
