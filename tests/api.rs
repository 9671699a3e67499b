//! rayon's iterator methods that the native layer added: the comparisons,
//! `zip_eq`, the searches from the end, `try_reduce_with`,
//! `try_for_each_with`/`_init`, `collect_vec_list`, `panic_fuse`, the
//! `Try` types (`ControlFlow`, `Poll`), and the `_with` methods and
//! `repeat` on values that are `Send` but not `Sync`. Each answer is
//! checked against `std`'s serial one, on the caller alone and forked,
//! under every schedule.
#![cfg(not(loom))]

mod support;

use std::cell::Cell;
use std::cmp::Ordering;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::task::Poll;
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;

/// Runs `body` with each schedule, on the caller alone, forked and
/// adaptive, on a 3-thread pool.
fn every_way(mut body: impl FnMut(Schedule)) {
    let pool = tine::spawn_pool(3);
    for way in [
        Override::NeverFork,
        Override::AlwaysFork,
        Override::Adaptive,
    ] {
        let before = set_override(way);
        for schedule in [
            Schedule::Static,
            Schedule::Dynamic { grain: 7 },
            Schedule::Guided { min: 5 },
        ] {
            pool.install(|| body(schedule));
        }
        set_override(before);
    }
}

#[test]
fn comparisons_agree_with_std() {
    let cases: Vec<(Vec<u32>, Vec<u32>)> = vec![
        (vec![], vec![]),
        (vec![1], vec![]),
        ((0..5000).collect(), (0..5000).collect()),
        ((0..5000).collect(), (0..4999).collect()),
        (
            (0..5000).collect(),
            (0..5000).map(|x| if x == 4321 { 0 } else { x }).collect(),
        ),
        (
            (0..5000).map(|x| if x == 7 { 0 } else { x }).collect(),
            (0..5000).collect(),
        ),
    ];
    every_way(|schedule| {
        for (a, b) in &cases {
            let pa = || a.par_iter().schedule(schedule);
            assert_eq!(pa().cmp(b), a.iter().cmp(b.iter()));
            assert_eq!(pa().partial_cmp(b), a.iter().partial_cmp(b.iter()));
            assert_eq!(pa().eq(b), a.iter().eq(b.iter()));
            assert_eq!(pa().ne(b), a.iter().ne(b.iter()));
            assert_eq!(pa().lt(b), a.iter().lt(b.iter()));
            assert_eq!(pa().le(b), a.iter().le(b.iter()));
            assert_eq!(pa().gt(b), a.iter().gt(b.iter()));
            assert_eq!(pa().ge(b), a.iter().ge(b.iter()));
        }
        let floats = [1.0, f64::NAN, 3.0];
        assert_eq!(floats.par_iter().partial_cmp(&[1.0, 2.0, 3.0]), None);
        assert_eq!(
            floats.par_iter().partial_cmp(&[0.0, 2.0, 3.0]),
            Some(Ordering::Greater)
        );
    });
}

#[test]
fn zip_eq_pairs_equal_lengths_and_panics_on_unequal_ones() {
    let sums: Vec<u32> = (0..100u32)
        .into_par_iter()
        .zip_eq((100..200u32).into_par_iter())
        .map(|(a, b)| a + b)
        .collect();
    assert!(sums.iter().copied().eq((0..100).map(|x| 2 * x + 100)));
    let unequal = std::panic::catch_unwind(|| (0..3u32).into_par_iter().zip_eq(0..4u32).count());
    assert!(unequal.is_err());
}

#[test]
fn searches_from_the_end_find_the_highest_position() {
    let v: Vec<u32> = (0..20_000).map(|x| (x * 7919) % 1000).collect();
    every_way(|schedule| {
        for target in [0u32, 1, 999, 500, 1001] {
            let want = v.iter().rposition(|&x| x == target);
            assert_eq!(
                v.par_iter()
                    .schedule(schedule)
                    .position_last(|&x| x == target),
                want
            );
            let found = v
                .par_iter()
                .enumerate()
                .schedule(schedule)
                .find_last(|(_, &x)| x == target);
            assert_eq!(found.map(|(i, _)| i), want);
            let mapped = v
                .par_iter()
                .enumerate()
                .schedule(schedule)
                .find_map_last(|(i, &x)| (x == target).then_some(i));
            assert_eq!(mapped, want);
            // Not indexed: a filter before the search.
            let filtered = v
                .par_iter()
                .enumerate()
                .filter(|(i, _)| i % 2 == 0)
                .schedule(schedule)
                .find_last(|(_, &x)| x == target);
            let want_even = v
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 2 == 0)
                .rfind(|(_, &x)| x == target);
            assert_eq!(filtered, want_even);
        }
    });
}

#[test]
fn a_search_from_the_end_skips_the_low_blocks() {
    let pool = tine::spawn_pool(2);
    let before = set_override(Override::AlwaysFork);
    let asked = AtomicUsize::new(0);
    let n = 1_000_000usize;
    let found = pool.install(|| {
        (0..n)
            .into_par_iter()
            .with_max_len(1024)
            .position_last(|x| {
                asked.fetch_add(1, Relaxed);
                x % 1000 == 999
            })
    });
    set_override(before);
    assert_eq!(found, Some(n - 1));
    // The top thread's range is walked whole; far from every item of the
    // bottom one is.
    assert!(
        asked.into_inner() < n * 3 / 4,
        "the search asked about most items"
    );
}

#[test]
fn try_reduce_with_and_try_for_each_with_and_init() {
    every_way(|schedule| {
        let sum = (1..=1000u64)
            .into_par_iter()
            .schedule(schedule)
            .map(Some)
            .try_reduce_with(|a, b| Some(a + b));
        assert_eq!(sum, Some(Some(500_500)));
        let failed = (1..=1000u64)
            .into_par_iter()
            .schedule(schedule)
            .map(|x| if x == 600 { Err(x) } else { Ok(x) })
            .try_reduce_with(|a, b| Ok(a + b));
        assert_eq!(failed, Some(Err(600)));
        let empty: Option<Result<u64, ()>> = (0..0u64)
            .into_par_iter()
            .map(Ok)
            .try_reduce_with(|a, b| Ok(a + b));
        assert_eq!(empty, None);
        let seen = AtomicUsize::new(0);
        let with = (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .try_for_each_with(Cell::new(0u32), |count, x| {
                count.set(count.get() + 1);
                seen.fetch_add(1, Relaxed);
                if x == 999 {
                    Err(x)
                } else {
                    Ok(())
                }
            });
        assert_eq!(with, Err(999));
        let init = (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .try_for_each_init(Vec::new, |buffer: &mut Vec<u32>, x| {
                buffer.push(x);
                (x < 2000).then_some(())
            });
        assert_eq!(init, Some(()));
    });
}

#[test]
fn try_accepts_control_flow_and_poll() {
    every_way(|schedule| {
        let flow = (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .try_for_each(|x| {
                if x == 321 {
                    ControlFlow::Break(x)
                } else {
                    ControlFlow::Continue(())
                }
            });
        assert_eq!(flow, ControlFlow::Break(321));
        let total = (0..100u32)
            .into_par_iter()
            .schedule(schedule)
            .map(ControlFlow::<(), u32>::Continue)
            .try_reduce(|| 0, |a, b| ControlFlow::Continue(a + b));
        assert_eq!(total, ControlFlow::Continue(4950));
        // `Poll` carries `Try` through `try_reduce` (its `Output` is a `Poll`).
        let add = |a: Poll<u32>, b: Poll<u32>| -> Poll<Result<u32, u32>> {
            match (a, b) {
                (Poll::Ready(a), Poll::Ready(b)) => Poll::Ready(Ok(a + b)),
                _ => Poll::Pending,
            }
        };
        let polled = (0..100u32)
            .into_par_iter()
            .schedule(schedule)
            .map(|x| {
                if x == 50 {
                    Poll::Ready(Err(x))
                } else {
                    Poll::Ready(Ok(x))
                }
            })
            .try_reduce(|| Poll::Ready(0), add);
        assert_eq!(polled, Poll::Ready(Err(50)));
        let summed = (0..100u32)
            .into_par_iter()
            .schedule(schedule)
            .map(|x| Poll::Ready(Ok::<u32, u32>(x)))
            .try_reduce(|| Poll::Ready(0), add);
        assert_eq!(summed, Poll::Ready(Ok(4950)));
        let nested = (0..100u32)
            .into_par_iter()
            .schedule(schedule)
            .map(|x| {
                if x == 70 {
                    Poll::Ready(Some(Err(x)))
                } else {
                    Poll::Ready(Some(Ok(x)))
                }
            })
            .try_reduce(
                || Poll::Ready(Some(0)),
                |a, b| match (a, b) {
                    (Poll::Ready(Some(a)), Poll::Ready(Some(b))) => Poll::Ready(Some(Ok(a + b))),
                    _ => Poll::Ready(None),
                },
            );
        assert_eq!(nested, Poll::Ready(Some(Err(70))));
    });
}

#[test]
fn collect_vec_list_keeps_input_order() {
    every_way(|schedule| {
        let list = (0..10_000u32)
            .into_par_iter()
            .schedule(schedule)
            .filter(|x| x % 3 != 0)
            .collect_vec_list();
        assert!(list
            .iter()
            .flatten()
            .copied()
            .eq((0..10_000).filter(|x| x % 3 != 0)));
        assert!(list.iter().all(|v| !v.is_empty()));
        let none = (0..0u32).into_par_iter().collect_vec_list();
        assert!(none.is_empty());
    });
}

#[test]
fn panic_fuse_still_resumes_the_first_panic() {
    let pool = tine::spawn_pool(3);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            (0..100_000u32)
                .into_par_iter()
                .panic_fuse()
                .for_each(|x| assert!(x != 5000))
        })
    }));
    assert!(result.is_err());
    assert_eq!(
        pool.install(|| (0..10u32).into_par_iter().panic_fuse().sum::<u32>()),
        45
    );
}

#[test]
fn with_methods_and_repeat_take_values_that_are_not_sync() {
    every_way(|schedule| {
        // `Cell` is `Send + Clone` but not `Sync`, as rayon allows.
        let mapped: Vec<u32> = (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .map_with(Cell::new(1u32), |step, x| x + step.get())
            .collect();
        assert!(mapped.iter().copied().eq(1..1001));
        let folded: u32 = (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .fold_with(Cell::new(0u32), |acc, x| {
                acc.set(acc.get() + x);
                acc
            })
            .map(|cell| cell.get())
            .sum();
        assert_eq!(folded, 499_500);
        let try_folded: Option<u32> = (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .try_fold_with(Cell::new(0u32), |acc, x| {
                acc.set(acc.checked_add_cell(x)?);
                Some(acc)
            })
            .map(|cell| cell.map(|c| c.get()))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(try_folded, Some(499_500));
        let count = AtomicUsize::new(0);
        (0..1000u32)
            .into_par_iter()
            .schedule(schedule)
            .for_each_with(Cell::new(()), |_, _| {
                count.fetch_add(1, Relaxed);
            });
        assert_eq!(count.into_inner(), 1000);
        let cells: Vec<Cell<u8>> = tine::iter::repeat_n(Cell::new(7u8), 500).collect();
        assert!(cells.iter().all(|c| c.get() == 7));
        let zipped: u32 = tine::iter::repeat(Cell::new(2u32))
            .zip(0..300u32)
            .schedule(schedule)
            .map(|(c, x)| c.get() * x)
            .sum();
        assert_eq!(zipped, 2 * (0..300).sum::<u32>());
    });
}

/// `Cell<u32>`'s checked add, for the `try_fold_with` case.
trait CheckedAddCell {
    fn checked_add_cell(&self, x: u32) -> Option<u32>;
}

impl CheckedAddCell for Cell<u32> {
    fn checked_add_cell(&self, x: u32) -> Option<u32> {
        self.get().checked_add(x)
    }
}

#[test]
fn char_and_128_bit_ranges_match_std() {
    every_way(|schedule| {
        let edges = [
            '\0',
            'a',
            '\u{D7F0}',
            '\u{D7FF}',
            '\u{E000}',
            '\u{E010}',
            '\u{10FFFF}',
        ];
        for &low in &edges {
            for &high in &edges {
                let want: Vec<char> = (low..high).collect();
                let got: Vec<char> = (low..high).into_par_iter().schedule(schedule).collect();
                assert_eq!(got, want, "{low:?}..{high:?}");
                let want: Vec<char> = (low..=high).collect();
                let got: Vec<char> = (low..=high).into_par_iter().schedule(schedule).collect();
                assert_eq!(got, want, "{low:?}..={high:?}");
                assert_eq!((low..=high).into_par_iter().count(), (low..=high).count());
            }
        }
        let all = '\0'..=char::MAX;
        assert_eq!(
            all.clone().into_par_iter().schedule(schedule).count(),
            all.count()
        );
        let ascii: String = ('\0'..='\u{7F}')
            .into_par_iter()
            .schedule(schedule)
            .collect();
        assert!(ascii.chars().eq('\0'..='\u{7F}'));
        let big = u128::MAX - 5000;
        let sum: u128 = (big..u128::MAX)
            .into_par_iter()
            .schedule(schedule)
            .map(|x| x - big)
            .sum();
        assert_eq!(sum, (0..5000u128).sum());
        let small: Vec<i128> = (-3..=3i128).into_par_iter().schedule(schedule).collect();
        assert_eq!(small, [-3, -2, -1, 0, 1, 2, 3]);
    });
}

#[test]
fn intersperse_matches_a_serial_intersperse() {
    fn serial<T: Clone>(items: Vec<T>, separator: T) -> Vec<T> {
        let mut out = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(separator.clone());
            }
            out.push(item);
        }
        out
    }
    every_way(|schedule| {
        for n in [0i32, 1, 2, 3, 1000, 4097] {
            let want = serial((0..n).collect(), -1);
            let got: Vec<i32> = (0..n)
                .into_par_iter()
                .intersperse(-1)
                .schedule(schedule)
                .collect();
            assert_eq!(got, want, "{n} items");
            let len = (0..n).into_par_iter().intersperse(-1).len();
            assert_eq!(len, want.len());
            // Twice, and in reverse through `zip_eq`.
            let twice: Vec<i32> = (0..n)
                .into_par_iter()
                .intersperse(-1)
                .intersperse(-2)
                .schedule(schedule)
                .collect();
            assert_eq!(twice, serial(want.clone(), -2));
            let reversed: Vec<(i32, usize)> = (0..n)
                .into_par_iter()
                .intersperse(-1)
                .zip_eq(0..want.len())
                .rev()
                .schedule(schedule)
                .collect();
            assert!(reversed
                .iter()
                .rev()
                .map(|&(x, _)| x)
                .eq(want.iter().copied()));
            // Not one item per position: gathered first.
            let evens: Vec<i32> = (0..n)
                .into_par_iter()
                .filter(|x| x % 2 == 0)
                .intersperse(-1)
                .schedule(schedule)
                .collect();
            assert_eq!(evens, serial((0..n).filter(|x| x % 2 == 0).collect(), -1));
        }
        let text = (0..500)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let joined: String = text.par_split(',').intersperse(";").collect();
        assert_eq!(joined, text.replace(',', ";"));
    });
}

#[test]
fn intersperse_drops_owned_items_and_separators_once() {
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    #[derive(Debug, PartialEq)]
    struct Counted(u32);
    impl Counted {
        fn new(x: u32) -> Self {
            LIVE.fetch_add(1, Relaxed);
            Counted(x)
        }
    }
    impl Clone for Counted {
        fn clone(&self) -> Self {
            Counted::new(self.0)
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Relaxed);
        }
    }
    every_way(|schedule| {
        let items: Vec<Counted> = (0..3000).map(Counted::new).collect();
        let found = items
            .into_par_iter()
            .intersperse(Counted::new(u32::MAX))
            .schedule(schedule)
            .position_first(|c| c.0 == 1500);
        assert_eq!(found, Some(3000));
        let items: Vec<Counted> = (0..100).map(Counted::new).collect();
        drop(items.into_par_iter().intersperse(Counted::new(7)));
        let items: Vec<Counted> = (0..100).map(Counted::new).collect();
        let all: Vec<Counted> = items
            .into_par_iter()
            .intersperse(Counted::new(7))
            .schedule(schedule)
            .collect();
        assert_eq!(all.len(), 199);
        drop(all);
        assert_eq!(
            LIVE.load(Relaxed),
            0,
            "an item or a separator leaked or dropped twice"
        );
    });
}

#[test]
fn take_and_skip_any_while_and_while_some() {
    every_way(|schedule| {
        let n = 20_000u32;
        // All pass: every item, in some order.
        let mut all: Vec<u32> = (0..n)
            .into_par_iter()
            .take_any_while(|_| true)
            .schedule(schedule)
            .collect();
        all.sort_unstable();
        assert!(all.iter().copied().eq(0..n));
        // A cut: nothing that fails passes, and the items before the first
        // failure in the caller's own first block always do.
        let taken: Vec<u32> = (0..n)
            .into_par_iter()
            .take_any_while(|&x| x < 5000)
            .schedule(schedule)
            .collect();
        assert!(taken.iter().all(|&x| x < 5000));
        let skipped: Vec<u32> = (0..n)
            .into_par_iter()
            .skip_any_while(|&x| x < 5000)
            .schedule(schedule)
            .collect();
        assert!(skipped.contains(&(n - 1)) || skipped.contains(&5000));
        let none_fail: Vec<u32> = (0..n)
            .into_par_iter()
            .skip_any_while(|_| true)
            .schedule(schedule)
            .collect();
        assert!(none_fail.is_empty());
        let some: Vec<u32> = (0..n)
            .into_par_iter()
            .map(Some)
            .while_some()
            .schedule(schedule)
            .collect();
        assert_eq!(some.len(), n as usize);
        let cut: Vec<u32> = (0..n)
            .into_par_iter()
            .map(|x| (x != 7000).then_some(x))
            .while_some()
            .schedule(schedule)
            .collect();
        assert!(!cut.contains(&7000));
        assert!(cut.len() < n as usize);
    });
    // On one thread the order is the input's: exactly the prefix.
    let pool = tine::spawn_pool(1);
    let prefix: Vec<u32> = pool.install(|| {
        (0..1000u32)
            .into_par_iter()
            .take_any_while(|&x| x < 300)
            .collect()
    });
    assert!(prefix.iter().copied().eq(0..300));
    let suffix: Vec<u32> = pool.install(|| {
        (0..1000u32)
            .into_par_iter()
            .skip_any_while(|&x| x < 300)
            .collect()
    });
    assert!(suffix.iter().copied().eq(300..1000));
    let somes: Vec<u32> = pool.install(|| {
        (0..1000u32)
            .into_par_iter()
            .map(|x| (x < 300).then_some(x))
            .while_some()
            .collect()
    });
    assert!(somes.iter().copied().eq(0..300));
}

#[test]
fn tuples_zip_their_members() {
    every_way(|schedule| {
        let v: Vec<u32> = (0..1000).collect();
        let w: Vec<String> = (0..900).map(|i| i.to_string()).collect();
        let one: Vec<(&u32,)> = (&v,).into_par_iter().schedule(schedule).collect();
        assert!(one.iter().map(|t| *t.0).eq(0..1000));
        let three: Vec<(u32, &String, usize)> = (0..2000u32, &w, 5..100_000usize)
            .into_par_iter()
            .schedule(schedule)
            .collect();
        assert_eq!(three.len(), 900);
        assert!(three
            .iter()
            .enumerate()
            .all(|(i, (a, b, c))| *a as usize == i && **b == i.to_string() && *c == i + 5));
        let twelve = (&v, &v, &v, &v, &v, &v, &v, &v, &v, &v, &v, &v).into_par_iter();
        assert_eq!(twelve.len(), 1000);
        let sums: Vec<u32> = twelve
            .schedule(schedule)
            .map(|(a, b, c, d, e, f, g, h, i, j, k, l)| {
                a + b + c + d + e + f + g + h + i + j + k + l
            })
            .collect();
        assert!(sums.iter().copied().eq((0..1000).map(|x| 12 * x)));
    });
}

#[test]
fn chunk_by_and_array_windows_match_std() {
    every_way(|schedule| {
        for len in [0usize, 1, 2, 3, 1000, 5000] {
            let v: Vec<u32> = (0..len as u32)
                .map(|x| (x / 3) % 7 + (x % 11 == 0) as u32)
                .collect();
            let same = |a: &u32, b: &u32| a == b;
            let want: Vec<&[u32]> = v.chunk_by(same).collect();
            let got: Vec<&[u32]> = v.par_chunk_by(same).schedule(schedule).collect();
            assert_eq!(got, want, "{len} items");
            let mut w = v.clone();
            let lens: Vec<usize> = w
                .par_chunk_by_mut(same)
                .schedule(schedule)
                .map(|run| {
                    run.reverse();
                    run.len()
                })
                .collect();
            assert_eq!(lens, want.iter().map(|r| r.len()).collect::<Vec<_>>());
            let mut reversed = v.clone();
            reversed.chunk_by_mut(same).for_each(|run| run.reverse());
            assert_eq!(w, reversed);
            let sums: Vec<u32> = v
                .par_array_windows::<3>()
                .schedule(schedule)
                .map(|[a, b, c]| a + b + c)
                .collect();
            let want: Vec<u32> = v.windows(3).map(|w| w.iter().sum()).collect();
            assert_eq!(sums, want);
        }
    });
}

#[test]
fn rayons_type_names_name_the_iterators() {
    use tine::iter::{
        Flatten, FoldWith, Intersperse, PanicFuse, SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile,
        WhileSome, ZipEq,
    };
    type R = tine::range::Iter<u32>;
    type Somes = tine::iter::Map<R, fn(u32) -> Option<u32>>;
    type Vecs = tine::iter::Map<R, fn(u32) -> Vec<u32>>;
    let v: Vec<u32> = (0..10).collect();
    let a: Intersperse<R> = (0..3u32).into_par_iter().intersperse(9);
    let b: WhileSome<Somes> = (0..3u32)
        .into_par_iter()
        .map(Some as fn(u32) -> Option<u32>)
        .while_some();
    let c: ZipEq<R, R> = (0..3u32).into_par_iter().zip_eq(0..3u32);
    let d: TakeAny<R> = (0..3u32).into_par_iter().take_any(2);
    let e: SkipAny<R> = (0..3u32).into_par_iter().skip_any(1);
    let f: PanicFuse<R> = (0..3u32).into_par_iter().panic_fuse();
    let g: Flatten<Vecs> = (0..3u32)
        .into_par_iter()
        .map((|x| vec![x]) as fn(u32) -> Vec<u32>)
        .flatten();
    let h: FoldWith<R, u32, fn(u32, u32) -> u32> = (0..3u32)
        .into_par_iter()
        .fold_with(0, (|a, b| a + b) as fn(u32, u32) -> u32);
    let i: TakeAnyWhile<R, fn(&u32) -> bool> = (0..3u32)
        .into_par_iter()
        .take_any_while((|_| true) as fn(&u32) -> bool);
    let j: SkipAnyWhile<R, fn(&u32) -> bool> = (0..3u32)
        .into_par_iter()
        .skip_any_while((|_| false) as fn(&u32) -> bool);
    let k: tine::slice::ChunkBy<'_, u32, fn(&u32, &u32) -> bool> =
        v.par_chunk_by((|a, b| a == b) as fn(&u32, &u32) -> bool);
    let l: tine::slice::ArrayWindows<'_, u32, 2> = v.par_array_windows::<2>();
    assert_eq!(
        a.count() + b.count() + c.count() + d.count() + e.count() + f.count(),
        5 + 3 + 3 + 2 + 2 + 3
    );
    assert_eq!(
        g.count() + h.sum::<u32>() as usize + i.count() + j.count(),
        3 + 3 + 3 + 3
    );
    assert_eq!(k.count() + l.count(), 10 + 9);
}

/// The names whose rayon types carry a closure's type, named in generic
/// signatures, as a library wrapping them would.
#[test]
fn rayons_closure_carrying_type_names_work_in_generic_signatures() {
    use std::ops::Range;
    use tine::iter::{MultiZip, Split, WalkTree, WalkTreePostfix, WalkTreePrefix};
    type Cut = (Range<u32>, Option<Range<u32>>);
    fn pieces<S: Fn(Range<u32>) -> Cut + Sync>(cut: S) -> Split<Range<u32>, S> {
        tine::iter::split(0..100, cut)
    }
    fn runs<'a, F: Fn(&u32, &u32) -> bool + Send + Sync>(
        v: &'a mut [u32],
        same: F,
    ) -> tine::slice::ChunkByMut<'a, u32, F> {
        v.par_chunk_by_mut(same)
    }
    fn zipped<A: IndexedParallelIterator, B: IndexedParallelIterator>(
        a: A,
        b: B,
    ) -> MultiZip<(A, B)> {
        (a, b).into_par_iter()
    }
    fn kids(n: &u32) -> Vec<u32> {
        if *n < 8 {
            vec![2 * n, 2 * n + 1]
        } else {
            vec![]
        }
    }
    let halves = |r: Range<u32>| {
        if r.len() < 10 {
            return (r, None);
        }
        let mid = r.start + r.len() as u32 / 2;
        (r.start..mid, Some(mid..r.end))
    };
    let total: u32 = pieces(halves).map(|r| r.sum::<u32>()).sum();
    assert_eq!(total, (0..100).sum());
    let mut v = vec![1u32, 1, 2, 3, 3, 3];
    let lens: Vec<usize> = runs(&mut v, |a, b| a == b).map(|r| r.len()).collect();
    assert_eq!(lens, [2, 1, 3]);
    let pairs: Vec<(u32, char)> = zipped(
        (0..3u32).into_par_iter(),
        "abc".par_chars().collect::<Vec<_>>().into_par_iter(),
    )
    .collect();
    assert_eq!(pairs, [(0, 'a'), (1, 'b'), (2, 'c')]);
    type Kids = fn(&u32) -> Vec<u32>;
    let all: WalkTree<u32, Kids> = tine::iter::walk_tree(1, kids as Kids);
    let pre: WalkTreePrefix<u32, Kids> = tine::iter::walk_tree_prefix(1, kids as Kids);
    let post: WalkTreePostfix<u32, Kids> = tine::iter::walk_tree_postfix(1, kids as Kids);
    assert_eq!(all.count(), 15);
    assert_eq!(pre.collect::<Vec<_>>()[..3], [1, 2, 4]);
    assert_eq!(post.collect::<Vec<_>>()[..3], [8, 9, 4]);
}

#[test]
fn a_panic_in_for_each_ends_only_its_block_and_resumes_the_first_payload() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(3);
    for schedule in [Schedule::Static, Schedule::Dynamic { grain: 1 }] {
        let ran = AtomicUsize::new(0);
        let owned: Vec<String> = (0..3000).map(|i| i.to_string()).collect();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                owned
                    .into_par_iter()
                    .with_max_len(1)
                    .schedule(schedule)
                    .for_each(|s| {
                        let i: u32 = s.parse().unwrap();
                        // One of the two payloads resumes; the other is dropped.
                        assert!(i != 100 && i != 2000, "boom {i}");
                        ran.fetch_add(1, Relaxed);
                    })
            })
        }));
        let payload = result.unwrap_err();
        let message = payload.downcast_ref::<String>().unwrap();
        assert!(message == "boom 100" || message == "boom 2000", "{message}");
        // Every other block ran: with `with_max_len(1)`, every other item.
        assert_eq!(ran.load(Relaxed), 2998, "{schedule:?}");
    }
    // A fuse stops the other blocks once the panic is seen.
    let ran = AtomicUsize::new(0);
    let fused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            (0..1_000_000u32)
                .into_par_iter()
                .with_max_len(1)
                .panic_fuse()
                .for_each(|i| {
                    assert!(i != 10, "boom");
                    ran.fetch_add(1, Relaxed);
                })
        })
    }));
    assert!(fused.is_err());
    assert!(ran.load(Relaxed) < 999_999);
}
