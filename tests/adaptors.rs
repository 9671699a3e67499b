//! rayon's adaptors `rev`, `step_by`, `chunks`, `fold_chunks(_with)`,
//! `positions`, `unzip_into_vecs`, `interleave(_shortest)`,
//! `by_*_blocks`, `update`, `try_fold(_with)`, `take_any` and `skip_any`
//! against serial `std` code, on edge lengths and random inputs, on a
//! 3-thread pool forced to fork with short blocks; and owned items dropped
//! exactly once under early stop and panics.
#![cfg(not(loom))]

mod par_common;
mod scale;
mod support;

use par_common::pool;
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::par::{Par, Pooled, Schedule, VecProducer};
use tine::prelude::*;

/// Every call of this thread forks, however short (the override is per
/// thread, and every test here wants it).
fn force_fork() {
    set_override(Override::AlwaysFork);
}

/// `a[0], b[0], a[1], b[1], ...`, then the rest of the longer one.
fn interleaved<T: Clone>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for i in 0..a.len().max(b.len()) {
        out.extend(a.get(i).cloned());
        out.extend(b.get(i).cloned());
    }
    out
}

/// Every new indexed adaptor on `data` with chunks and steps of `k`, blocks
/// of at most `max` positions, under `schedule`, against serial code.
fn check_indexed(data: &[i64], other: &[i64], k: usize, max: usize, schedule: Schedule) {
    let pool = pool(3);
    let par = || {
        data.par_iter()
            .with_pool(pool)
            .with_max_len(max)
            .schedule(schedule)
    };
    let context = format!("len {} k {k} max {max} {schedule:?}", data.len());

    let rev: Vec<i64> = par().rev().copied().collect();
    assert!(rev.iter().eq(data.iter().rev()), "rev: {context}");
    assert_eq!(par().rev().sum::<i64>(), data.iter().sum::<i64>());
    let rev_enum: Vec<(usize, i64)> = par().rev().copied().enumerate().collect();
    assert_eq!(
        rev_enum,
        data.iter().rev().copied().enumerate().collect::<Vec<_>>(),
        "rev enumerate: {context}"
    );
    assert_eq!(
        par().rev().position_first(|&x| x % 5 == 0),
        data.iter().rev().position(|&x| x % 5 == 0),
        "rev position_first: {context}"
    );
    assert_eq!(
        par().rev().rev().copied().collect::<Vec<_>>(),
        data,
        "rev rev: {context}"
    );

    let step: Vec<i64> = par().step_by(k).copied().collect();
    assert_eq!(
        step,
        data.iter().step_by(k).copied().collect::<Vec<_>>(),
        "step_by: {context}"
    );
    assert_eq!(par().step_by(k).len(), data.iter().step_by(k).len());
    assert_eq!(
        par().rev().step_by(k).copied().collect::<Vec<_>>(),
        data.iter().rev().step_by(k).copied().collect::<Vec<_>>(),
        "rev step_by: {context}"
    );
    assert_eq!(
        par().step_by(k).find_first(|&&x| x > 0).copied(),
        data.iter().step_by(k).find(|&&x| x > 0).copied(),
        "step_by find_first: {context}"
    );

    let chunks: Vec<Vec<i64>> = par().copied().chunks(k).collect();
    assert_eq!(
        chunks,
        data.chunks(k).map(<[i64]>::to_vec).collect::<Vec<_>>(),
        "chunks: {context}"
    );
    assert_eq!(par().chunks(k).len(), data.chunks(k).len());
    let folded: Vec<i64> = par().fold_chunks(k, || 0, |a, &x| a + x).collect();
    let sums: Vec<i64> = data.chunks(k).map(|c| c.iter().sum()).collect();
    assert_eq!(folded, sums, "fold_chunks: {context}");
    let with: Vec<i64> = par().fold_chunks_with(k, 0, |a, &x| a + x).collect();
    assert_eq!(with, sums, "fold_chunks_with: {context}");
    assert_eq!(
        par()
            .rev()
            .fold_chunks(k, Vec::new, |mut v, &x| {
                v.push(x);
                v
            })
            .collect::<Vec<_>>(),
        data.iter()
            .rev()
            .copied()
            .collect::<Vec<_>>()
            .chunks(k)
            .map(<[i64]>::to_vec)
            .collect::<Vec<_>>(),
        "rev fold_chunks: {context}"
    );

    let positions: Vec<usize> = par().positions(|&x| x % 3 == 0).collect();
    let serial: Vec<usize> = (0..data.len()).filter(|&i| data[i] % 3 == 0).collect();
    assert_eq!(positions, serial, "positions: {context}");
    assert_eq!(par().positions(|&x| x % 3 == 0).count(), serial.len());

    let (mut left, mut right) = (vec![7i64; 3], Vec::new());
    par()
        .map(|&x| (x, x.to_string()))
        .unzip_into_vecs(&mut left, &mut right);
    assert_eq!(left, data, "unzip_into_vecs: {context}");
    assert!(right
        .iter()
        .map(|s| s.parse::<i64>().unwrap())
        .eq(data.iter().copied()));

    let mixed: Vec<i64> = par()
        .copied()
        .interleave(other.par_iter().copied())
        .collect();
    assert_eq!(mixed, interleaved(data, other), "interleave: {context}");
    let mixed: Vec<i64> = other
        .par_iter()
        .with_pool(pool)
        .with_max_len(max)
        .interleave(par())
        .copied()
        .collect();
    assert_eq!(
        mixed,
        interleaved(other, data),
        "interleave back: {context}"
    );
    let shortest: Vec<i64> = par()
        .copied()
        .interleave_shortest(other.par_iter().copied())
        .collect();
    let n = data.len().min(other.len());
    let (a, b) = if data.len() <= other.len() {
        (&data[..n], &other[..n])
    } else {
        (&data[..=n], &other[..n])
    };
    assert_eq!(
        shortest,
        interleaved(a, b),
        "interleave_shortest: {context}"
    );

    assert_eq!(
        par().by_exponential_blocks().copied().collect::<Vec<_>>(),
        data
    );
    assert_eq!(
        par().by_uniform_blocks(k).copied().collect::<Vec<_>>(),
        data
    );
}

/// The new `ParallelIterator` methods on `data`, indexed and not.
fn check_unindexed(data: &[i64], n: usize, max: usize, schedule: Schedule) {
    let pool = pool(3);
    let par = || {
        data.par_iter()
            .with_pool(pool)
            .with_max_len(max)
            .schedule(schedule)
    };
    let context = format!("len {} n {n} max {max} {schedule:?}", data.len());

    let updated: Vec<i64> = par().copied().update(|x| *x = *x * 2 + 1).collect();
    assert!(
        updated.into_iter().eq(data.iter().map(|x| x * 2 + 1)),
        "update: {context}"
    );
    let filtered: Vec<i64> = par()
        .filter(|x| **x > 0)
        .copied()
        .update(|x| *x -= 1)
        .collect();
    assert!(filtered
        .into_iter()
        .eq(data.iter().filter(|x| **x > 0).map(|x| x - 1)));

    // `try_fold` partials: `Some` sums while no item is a multiple of 97.
    let fails = |x: i64| x % 97 == 0;
    let sum = par()
        .try_fold(|| 0i64, |a, &x| (!fails(x)).then_some(a + x))
        .try_reduce(|| 0, |a, b| Some(a + b));
    let serial = data
        .iter()
        .try_fold(0i64, |a, &x| (!fails(x)).then_some(a + x));
    assert_eq!(sum, serial, "try_fold: {context}");
    let sum: Result<i64, i64> = par()
        .try_fold_with(0i64, |a, &x| if fails(x) { Err(x) } else { Ok(a + x) })
        .try_reduce(|| 0, |a, b| Ok(a + b));
    assert_eq!(sum.is_ok(), !data.iter().any(|&x| fails(x)), "{context}");
    if let Err(x) = sum {
        assert!(fails(x));
    } else {
        assert_eq!(sum, Ok(data.iter().sum::<i64>()));
    }
    let partials: Vec<Option<usize>> = par().try_fold(|| 0usize, |c, _| Some(c + 1)).collect();
    assert_eq!(partials.iter().flatten().sum::<usize>(), data.len());

    // `take_any` / `skip_any`: how many, and only items of the input.
    let mut sorted = data.to_vec();
    sorted.sort_unstable();
    for par_items in [
        par().copied().take_any(n).collect::<Vec<_>>(),
        par().filter(|_| true).copied().take_any(n).collect(),
    ] {
        assert_eq!(par_items.len(), n.min(data.len()), "take_any: {context}");
        assert_subset(&par_items, &sorted);
    }
    for par_items in [
        par().copied().skip_any(n).collect::<Vec<_>>(),
        par().filter(|_| true).copied().skip_any(n).collect(),
    ] {
        assert_eq!(
            par_items.len(),
            data.len().saturating_sub(n),
            "skip_any: {context}"
        );
        assert_subset(&par_items, &sorted);
    }
    assert_eq!(par().take_any(n).count(), n.min(data.len()));
    // Taken and skipped together: all of the input, once.
    let kept = std::sync::Mutex::new(Vec::new());
    par()
        .copied()
        .skip_any(n)
        .for_each(|x| kept.lock().unwrap().push(x));
    assert_eq!(
        kept.into_inner().unwrap().len(),
        data.len().saturating_sub(n)
    );
}

/// Every item of `items` is in `sorted`, as a multiset.
fn assert_subset(items: &[i64], sorted: &[i64]) {
    let mut items = items.to_vec();
    items.sort_unstable();
    let mut rest = sorted.iter();
    for x in &items {
        assert!(
            rest.any(|y| y == x),
            "{x} is not (often enough) in the input"
        );
    }
}

#[test]
fn edge_lengths_around_the_chunk_size() {
    force_fork();
    for k in 1..=4usize {
        let mut lengths = vec![
            0,
            1,
            2,
            3,
            k - 1,
            k,
            k + 1,
            2 * k - 1,
            2 * k,
            2 * k + 1,
            3 * k,
        ];
        lengths.dedup();
        for len in lengths {
            let data: Vec<i64> = (0..len as i64).map(|i| i * 7 - 10).collect();
            for other_len in [0, len.saturating_sub(1), len, len + 1, len + 3] {
                let other: Vec<i64> = (0..other_len as i64).map(|i| -i - 1000).collect();
                for max in [1, 2, 3, usize::MAX] {
                    check_indexed(&data, &other, k, max, Schedule::Static);
                }
            }
            for max in [1, 2, usize::MAX] {
                for n in [0, 1, k, len.saturating_sub(1), len, len + 1] {
                    check_unindexed(&data, n, max, Schedule::Static);
                }
            }
        }
    }
}

#[test]
fn large_steps_and_chunks_and_longer_inputs() {
    force_fork();
    let data: Vec<i64> = (0..scale::size(1000) as i64)
        .map(|i| (i * 37) % 101)
        .collect();
    let other: Vec<i64> = data.iter().map(|x| x + 1).take(data.len() / 3).collect();
    for k in [
        5,
        64,
        data.len() - 1,
        data.len(),
        data.len() + 1,
        usize::MAX,
    ] {
        for max in [1, 7, usize::MAX] {
            check_indexed(&data, &other, k, max, Schedule::Static);
        }
    }
    check_indexed(&data, &other, 3, 5, Schedule::Dynamic { grain: 3 });
    check_indexed(&data, &other, 3, 5, Schedule::Guided { min: 2 });
    check_unindexed(&data, 10, 3, Schedule::Dynamic { grain: 2 });
}

fn schedule_strategy() -> impl Strategy<Value = Schedule> {
    par_common::schedule_strategy()
}

proptest! {
    #![proptest_config(scale::proptest_config(32))]

    #[test]
    fn indexed_adaptors_match_serial_code(
        data in prop::collection::vec(-500i64..500, 0..scale::size(300)),
        other in prop::collection::vec(-500i64..500, 0..scale::size(100)),
        k in 1usize..12,
        max in 1usize..9,
        schedule in schedule_strategy(),
    ) {
        force_fork();
        check_indexed(&data, &other, k, max, schedule);
    }

    #[test]
    fn parallel_iterator_additions_match_serial_code(
        data in prop::collection::vec(-500i64..500, 0..scale::size(300)),
        n in 0usize..320,
        max in 1usize..9,
        schedule in schedule_strategy(),
    ) {
        force_fork();
        check_unindexed(&data, n, max, schedule);
    }
}

/// An owned item that counts its drops in its position's slot.
struct Tracked<'a>(usize, &'a [AtomicUsize]);

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.1[self.0].fetch_add(1, Relaxed);
    }
}

/// Runs `body` on `len` owned items (it may panic) and checks that each
/// was dropped exactly once by the time it returns.
/// Runs `body` on `len` tracked items, checks that each was dropped
/// exactly once, and returns `body`'s panic, if it panicked.
fn dropped_once_catching(
    len: usize,
    body: impl FnOnce(Vec<Tracked<'_>>),
) -> Option<Box<dyn std::any::Any + Send>> {
    let drops: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
    let items = (0..len).map(|i| Tracked(i, &drops)).collect();
    let panicked = catch_unwind(AssertUnwindSafe(|| body(items))).err();
    for (i, count) in drops.iter().enumerate() {
        assert_eq!(count.load(Relaxed), 1, "item {i} dropped {count:?} times");
    }
    panicked
}

/// [`dropped_once_catching`] for a `body` that must not panic: its
/// panic (a failed assertion inside it, say) fails the test.
fn each_dropped_once(len: usize, body: impl FnOnce(Vec<Tracked<'_>>)) {
    if let Some(payload) = dropped_once_catching(len, body) {
        std::panic::resume_unwind(payload);
    }
}

/// [`dropped_once_catching`] for a `body` that must panic with a message
/// containing `expected`.
fn dropped_once_after_panic(len: usize, expected: &str, body: impl FnOnce(Vec<Tracked<'_>>)) {
    let payload = dropped_once_catching(len, body).expect("the body panicked");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    assert!(
        message.contains(expected),
        "the panic says {message:?}, not {expected:?}"
    );
}

/// Owned items on the 3-thread pool, in blocks of at most `max`.
fn owned(v: Vec<Tracked<'_>>, max: usize) -> Par<Pooled<'static, VecProducer<Tracked<'_>>>> {
    v.into_par_iter().with_pool(pool(3)).with_max_len(max)
}

/// Owned items through `rev`, `step_by`, `chunks`, `interleave` and the
/// others, with early stops, panics and no consumer at all.
#[test]
fn owned_items_are_dropped_exactly_once() {
    support::serialize_panic_output();
    force_fork();
    let len = 203;
    // Under Miri, blocks of up to 3 and 64 items: blocks of one item
    // cost the most.
    let maxes: &[usize] = if cfg!(miri) { &[3, 64] } else { &[1, 3, 64] };
    for &max in maxes {
        let boom = |t: &Tracked<'_>| assert!(t.0 != 150, "boom");
        each_dropped_once(len, |v| {
            let found = owned(v, max).rev().find_any(|t| t.0 == 17);
            assert_eq!(found.map(|t| t.0), Some(17));
        });
        each_dropped_once(len, |v| {
            let first = owned(v, max).rev().find_first(|t| t.0 < 100);
            assert_eq!(first.map(|t| t.0), Some(99));
        });
        each_dropped_once(len, |v| {
            let some: Vec<_> = owned(v, max).rev().take(5).collect();
            assert!(some.iter().map(|t| t.0).eq((198..203).rev()));
        });
        dropped_once_after_panic(len, "boom", |v| {
            owned(v, max).rev().inspect(boom).for_each(drop)
        });
        each_dropped_once(len, |v| drop(owned(v, max).rev().skip(3)));
        each_dropped_once(len, |v| {
            let some: Vec<_> = owned(v, max).step_by(3).take(5).collect();
            assert!(some.iter().map(|t| t.0).eq([0, 3, 6, 9, 12]));
        });
        each_dropped_once(len, |v| {
            let found = owned(v, max).step_by(4).find_any(|t| t.0 == 40);
            assert_eq!(found.map(|t| t.0), Some(40));
        });
        // Multiples of 7 skip item 150: no panic.
        each_dropped_once(len, |v| {
            owned(v, max).step_by(7).inspect(boom).for_each(drop)
        });
        each_dropped_once(len, |v| drop(owned(v, max).step_by(5)));
        each_dropped_once(len, |v| {
            let found = owned(v, max).chunks(4).find_any(|c| c[0].0 == 40);
            assert_eq!(found.map(|c| c.len()), Some(4));
        });
        each_dropped_once(len, |v| {
            let some: Vec<_> = owned(v, max).chunks(10).skip(2).take(3).collect();
            assert_eq!(some.iter().map(Vec::len).sum::<usize>(), 30);
        });
        dropped_once_after_panic(len, "boom", |v| {
            owned(v, max)
                .chunks(6)
                .for_each(|c| c.iter().for_each(boom))
        });
        dropped_once_after_panic(len, "boom", |v| {
            owned(v, max).inspect(boom).chunks(6).for_each(drop)
        });
        each_dropped_once(len, |v| {
            let n = owned(v, max).fold_chunks(5, || 0, |n, t| n + t.0 % 2).max();
            assert_eq!(n, Some(3));
        });
        each_dropped_once(len, |v| {
            let mut items = v;
            let tail = items.split_off(70);
            let found = owned(items, max)
                .interleave(tail)
                .find_first(|t| t.0 == 100);
            assert_eq!(found.map(|t| t.0), Some(100));
        });
        each_dropped_once(len, |v| {
            let mut items = v;
            let tail = items.split_off(120);
            let pairs: Vec<_> = owned(items, max).interleave_shortest(tail).collect();
            assert_eq!(pairs.len(), 2 * 83 + 1);
        });
        dropped_once_after_panic(len, "boom", |v| {
            let mut items = v;
            let tail = items.split_off(100);
            owned(items, max)
                .interleave(tail)
                .inspect(boom)
                .for_each(drop);
        });
        each_dropped_once(len, |v| {
            let taken: Vec<_> = owned(v, max).take_any(9).collect();
            assert_eq!(taken.len(), 9);
        });
        each_dropped_once(len, |v| {
            assert_eq!(owned(v, max).skip_any(9).count(), len - 9)
        });
        dropped_once_after_panic(len, "boom", |v| {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            owned(v, max)
                .map(|t| {
                    boom(&t);
                    (t, 0u8)
                })
                .unzip_into_vecs(&mut a, &mut b);
        });
        each_dropped_once(len, |v| {
            let failed = owned(v, max)
                .try_fold(|| 0, |n, t| if t.0 == 77 { Err(t) } else { Ok(n + 1) })
                .try_reduce(|| 0, |a, b| Ok(a + b));
            assert_eq!(failed.err().map(|t| t.0), Some(77));
        });
        dropped_once_after_panic(len, "boom", |v| {
            let total: usize = owned(v, max).update(|t| boom(t)).map(|t| t.0).sum();
            assert_eq!(total, 0, "unreachable: item 150 panics");
        });
    }
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn chunks_of_zero_panic_with_rayons_message() {
    let _ = (0..10).into_par_iter().chunks(0);
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn fold_chunks_of_zero_panic_with_rayons_message() {
    let _ = (0..10).into_par_iter().fold_chunks(0, || 0, |a, b| a + b);
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn fold_chunks_with_of_zero_panic_with_rayons_message() {
    let _ = (0..10).into_par_iter().fold_chunks_with(0, 0, |a, b| a + b);
}

#[test]
#[should_panic(expected = "block_size must not be zero")]
fn uniform_blocks_of_zero_panic_with_rayons_message() {
    let _ = (0..10).into_par_iter().by_uniform_blocks(0);
}

#[test]
#[should_panic(expected = "attempt to divide by zero")]
fn a_step_of_zero_panics_as_rayons_does() {
    let _ = (0..10).into_par_iter().step_by(0);
}

#[test]
fn a_zero_size_panic_drops_the_owned_items() {
    support::serialize_panic_output();
    dropped_once_after_panic(10, "chunk_size must not be zero", |v| {
        drop(v.into_par_iter().chunks(0))
    });
    dropped_once_after_panic(10, "attempt to divide by zero", |v| {
        drop(v.into_par_iter().step_by(0))
    });
}
