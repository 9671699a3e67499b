//! The parallel iterators against their serial `Iterator` counterparts:
//! every consumer and adaptor, random lengths, thread counts 1..=6, every
//! schedule, with the cutoff adaptive and forced to fork.
//!
//! Longer than the ~450 lines a file should keep to: one proptest target,
//! whose strategies and serial references every case shares (the sources,
//! strings and collections have files of their own).
#![cfg(not(loom))]

mod par_common;
mod scale;
mod support;

use par_common::{pool, schedule_strategy};
use proptest::prelude::*;
use std::num::Wrapping;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;
use tine::ThreadPool;

/// Every consumer and adaptor on `data`, checked against `Iterator`.
fn check_all(data: &[i64], pool: &ThreadPool, schedule: Schedule) {
    let par = || data.par_iter().with_pool(pool).schedule(schedule);
    let key = |x: &&i64| **x % 7;

    assert_eq!(
        par().map(|x| x * 3).sum::<i64>(),
        data.iter().map(|x| x * 3).sum::<i64>()
    );
    assert_eq!(
        par()
            .map(|&x| Wrapping(x as u64 | 1))
            .product::<Wrapping<u64>>(),
        data.iter()
            .map(|&x| Wrapping(x as u64 | 1))
            .product::<Wrapping<u64>>()
    );
    assert_eq!(
        par().copied().reduce(|| 0, |a, b| a ^ b),
        data.iter().fold(0, |a, b| a ^ b)
    );
    assert_eq!(
        par().fold(|| 0i64, |a, &x| a + x).sum::<i64>(),
        data.iter().sum::<i64>()
    );
    assert_eq!(
        par()
            .fold(|| i64::MIN, |a, &x| a.max(x))
            .reduce(|| i64::MIN, i64::max),
        data.iter().copied().fold(i64::MIN, i64::max)
    );
    let partials: Vec<usize> = par().fold(|| 0usize, |n, _| n + 1).collect();
    assert_eq!(partials.iter().sum::<usize>(), data.len());
    assert_eq!(par().count(), data.len());
    assert_eq!(
        par().filter(|x| **x > 0).count(),
        data.iter().filter(|x| **x > 0).count()
    );
    assert_eq!(par().min(), data.iter().min());
    assert_eq!(par().max(), data.iter().max());
    // Ties: `min_by_key` keeps the first, `max_by_key` the last (by address).
    assert!(std::ptr::eq(
        par().min_by_key(key).map_or(std::ptr::null(), |x| x),
        data.iter().min_by_key(key).map_or(std::ptr::null(), |x| x)
    ));
    assert!(std::ptr::eq(
        par().max_by_key(key).map_or(std::ptr::null(), |x| x),
        data.iter().max_by_key(key).map_or(std::ptr::null(), |x| x)
    ));
    assert_eq!(
        par().min_by(|a, b| b.cmp(a)),
        data.iter().min_by(|a, b| b.cmp(a))
    );
    assert_eq!(
        par().max_by(|a, b| b.cmp(a)),
        data.iter().max_by(|a, b| b.cmp(a))
    );
    assert_eq!(
        par().any(|x| *x % 97 == 5),
        data.iter().any(|x| *x % 97 == 5)
    );
    assert_eq!(
        par().all(|x| *x % 97 != 5),
        data.iter().all(|x| *x % 97 != 5)
    );
    assert_eq!(
        par().find_first(|x| **x % 31 == 3),
        data.iter().find(|x| **x % 31 == 3)
    );
    match par().find_any(|x| **x % 31 == 3) {
        Some(found) => assert_eq!(*found % 31, 3),
        None => assert!(!data.iter().any(|x| *x % 31 == 3)),
    }
    assert_eq!(
        par().position_first(|x| *x % 13 == 4),
        data.iter().position(|x| *x % 13 == 4)
    );
    match par().position_any(|x| *x % 13 == 4) {
        Some(i) => assert_eq!(data[i] % 13, 4),
        None => assert!(!data.iter().any(|x| *x % 13 == 4)),
    }
    let collected: Vec<i64> = par().map(|x| x - 1).collect();
    assert_eq!(collected, data.iter().map(|x| x - 1).collect::<Vec<_>>());
    let filtered: Vec<&i64> = par().filter(|x| **x % 3 == 0).collect();
    assert_eq!(
        filtered,
        data.iter().filter(|x| **x % 3 == 0).collect::<Vec<_>>()
    );
    let filter_mapped: Vec<i64> = par()
        .filter_map(|x| (x % 2 == 0).then_some(x / 2))
        .collect();
    assert_eq!(
        filter_mapped,
        data.iter()
            .filter_map(|x| (x % 2 == 0).then_some(x / 2))
            .collect::<Vec<_>>()
    );
    let flat: Vec<i64> = par()
        .flat_map_iter(|&x| (0..x.rem_euclid(4)).map(move |k| x + k))
        .collect();
    assert_eq!(
        flat,
        data.iter()
            .flat_map(|&x| (0..x.rem_euclid(4)).map(move |k| x + k))
            .collect::<Vec<_>>()
    );
    let mut into = vec![7i64; 3];
    par().map(|x| x * x).collect_into_vec(&mut into);
    assert_eq!(into, data.iter().map(|x| x * x).collect::<Vec<_>>());
    let enumerated: Vec<(usize, i64)> = par().copied().enumerate().collect();
    assert_eq!(
        enumerated,
        data.iter().copied().enumerate().collect::<Vec<_>>()
    );
    let half = &data[..data.len() / 2];
    let zipped: Vec<(i64, i64)> = par().copied().zip(half.par_iter().cloned()).collect();
    assert_eq!(
        zipped,
        data.iter()
            .copied()
            .zip(half.iter().cloned())
            .collect::<Vec<_>>()
    );
    let mapped_init: Vec<i64> = par()
        .map_init(
            || 10i64,
            |state, x| {
                *state += 1;
                x + *state - *state
            },
        )
        .collect();
    assert_eq!(mapped_init, data.to_vec());
    let failing = |x: &i64| if x % 53 == 7 { Err(*x) } else { Ok(()) };
    assert_eq!(
        par().try_for_each(failing),
        data.iter().try_for_each(failing)
    );
    let optional = |x: &i64| (x % 53 != 7).then_some(());
    assert_eq!(
        par().try_for_each(optional),
        data.iter().try_for_each(optional)
    );
    let checked = par().map(|&x| if x % 89 == 11 { Err(x) } else { Ok(x) });
    let mut serial = data
        .iter()
        .map(|&x| if x % 89 == 11 { Err(x) } else { Ok(x) });
    assert_eq!(
        checked.try_reduce(|| 0i64, |a, b| Ok(a.wrapping_add(b))),
        serial.try_fold(0i64, |a, x| x.map(|b| a.wrapping_add(b)))
    );
    let some_sum = par()
        .map(|&x| (x % 89 != 11).then_some(x))
        .try_reduce(|| 0i64, |a, b| Some(a + b));
    assert_eq!(
        some_sum,
        data.iter()
            .map(|&x| (x % 89 != 11).then_some(x))
            .sum::<Option<i64>>()
    );
    assert_eq!(
        par()
            .with_min_len(100)
            .with_max_len(17)
            .map(|x| x + 1)
            .sum::<i64>(),
        data.iter().map(|x| x + 1).sum::<i64>()
    );

    // Mutable and owned sources.
    let mut copy = data.to_vec();
    copy.par_iter_mut()
        .with_pool(pool)
        .schedule(schedule)
        .for_each(|x| *x *= 2);
    assert_eq!(copy, data.iter().map(|x| x * 2).collect::<Vec<_>>());
    let sums: Vec<i64> = copy
        .par_chunks(5)
        .with_pool(pool)
        .schedule(schedule)
        .map(|c| c.iter().sum())
        .collect();
    assert_eq!(
        sums,
        copy.chunks(5).map(|c| c.iter().sum()).collect::<Vec<i64>>()
    );
    copy.par_chunks_mut(3)
        .with_pool(pool)
        .schedule(schedule)
        .for_each(|c| c.reverse());
    let mut expected = data.iter().map(|x| x * 2).collect::<Vec<_>>();
    expected.chunks_mut(3).for_each(|c| c.reverse());
    assert_eq!(copy, expected);
    let owned: Vec<String> = copy
        .into_par_iter()
        .with_pool(pool)
        .schedule(schedule)
        .map(|x| x.to_string())
        .collect();
    assert_eq!(
        owned,
        expected.iter().map(|x| x.to_string()).collect::<Vec<_>>()
    );
    let n = data.len() as u32;
    assert_eq!(
        (0..n)
            .into_par_iter()
            .with_pool(pool)
            .schedule(schedule)
            .map(u64::from)
            .sum::<u64>(),
        (0..u64::from(n)).sum()
    );
    assert_eq!(
        (-(n as i64)..=5)
            .into_par_iter()
            .with_pool(pool)
            .schedule(schedule)
            .count(),
        n as usize + 6
    );
}

proptest! {
    #![proptest_config(scale::proptest_config(48))]

    #[test]
    fn every_consumer_and_adaptor_matches_the_serial_iterator(
        data in prop::collection::vec(-1000i64..1000, 0..scale::size(5000)),
        threads in 1usize..=6,
        schedule in schedule_strategy(),
        forced in any::<bool>(),
    ) {
        let before = set_override(if forced { Override::AlwaysFork } else { Override::Adaptive });
        check_all(&data, pool(threads), schedule);
        set_override(before);
    }
}

#[test]
fn the_global_pool_install_and_current_num_threads() {
    let sum: u64 = (1..=100u64).into_par_iter().sum();
    assert_eq!(sum, 5050);
    assert_eq!(tine::current_num_threads(), tine::global().threads());
    let outer = pool(3);
    outer.install(|| {
        assert_eq!(tine::current_num_threads(), 3);
        let inner = pool(2);
        inner.install(|| assert_eq!(tine::current_num_threads(), 2));
        assert_eq!(tine::current_num_threads(), 3);
    });
    assert_eq!(tine::current_num_threads(), tine::global().threads());
}

#[test]
fn a_static_float_sum_gives_the_same_bits_whether_or_not_it_forks() {
    let data: Vec<f32> = (0..scale::size(100_000))
        .map(|i| (i as f32).sin() * 1e3)
        .collect();
    let pool = pool(4);
    let sum = |over| {
        let before = set_override(over);
        let sum: f32 = data.par_iter().with_pool(pool).sum();
        set_override(before);
        sum
    };
    let forked = sum(Override::AlwaysFork);
    for _ in 0..scale::size(20) {
        assert_eq!(sum(Override::AlwaysFork).to_bits(), forked.to_bits());
        assert_eq!(sum(Override::NeverFork).to_bits(), forked.to_bits());
        assert_eq!(sum(Override::Adaptive).to_bits(), forked.to_bits());
    }
}

#[test]
fn small_float_reductions_kept_on_the_caller_give_the_forks_bits() {
    // Calls small enough that the cutoff keeps them on the caller, most of
    // them on a remembered (trusted) cost: each must fold the very ranges
    // and blocks of a fork, on 3 threads, with and without `with_max_len`
    // and `with_min_len`, on an installed pool and on the iterator's own.
    // 301 positions (the zip's length): 101, 100 and 100 on 3 threads.
    let data: Vec<f32> = (0..302).map(|i| (i as f32).sin() * 1e3).collect();
    let pool = pool(3);
    let dot = |over, max: usize, min: usize, own_pool: bool| {
        let before = set_override(over);
        let call = || -> f32 {
            let products = data
                .par_iter()
                .zip(&data[1..])
                .map(|(x, y)| x * y)
                .with_max_len(max)
                .with_min_len(min);
            if own_pool {
                products.with_pool(pool).sum()
            } else {
                products.sum()
            }
        };
        let dot = if own_pool { call() } else { pool.install(call) };
        set_override(before);
        dot
    };
    for own_pool in [false, true] {
        for (max, min) in [(usize::MAX, 1), (7, 1), (usize::MAX, 5), (40, 3)] {
            let forked = dot(Override::AlwaysFork, max, min, own_pool);
            let alone = dot(Override::NeverFork, max, min, own_pool);
            assert_eq!(alone.to_bits(), forked.to_bits());
            // Enough calls from one site for the trusted path to take most
            // (fewer under Miri, which checks the paths, not the timing).
            for _ in 0..scale::size(300) {
                assert_eq!(
                    dot(Override::Adaptive, max, min, own_pool).to_bits(),
                    forked.to_bits(),
                    "max_len {max}, min_len {min}, own pool {own_pool}"
                );
            }
        }
    }
}

#[test]
fn nested_parallel_iterators_complete() {
    let pool = pool(4);
    let before = set_override(Override::AlwaysFork);
    let inner = scale::size(1000) as u64;
    let total: u64 = pool.install(|| {
        (0..64u64)
            .into_par_iter()
            .map(|i| (0..inner).into_par_iter().map(|j| i * j).sum::<u64>())
            .sum()
    });
    set_override(before);
    assert_eq!(
        total,
        (0..64u64)
            .map(|i| (0..inner).map(|j| i * j).sum::<u64>())
            .sum()
    );
}

#[test]
fn zero_chunk_size_panics_with_rayons_message() {
    let data = [1, 2, 3];
    let payload = std::panic::catch_unwind(|| data.par_chunks(0).count()).unwrap_err();
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"chunk_size must not be zero")
    );
}

/// Counts drops of its values.
#[derive(Debug)]
struct Counted<'a>(&'a AtomicUsize, #[allow(dead_code)] u64);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn owned_items_are_dropped_exactly_once_under_early_stop_and_panics() {
    let pool = pool(4);
    for schedule in [
        Schedule::Static,
        Schedule::Dynamic { grain: 3 },
        Schedule::Guided { min: 2 },
    ] {
        for over in [
            Override::AlwaysFork,
            Override::Adaptive,
            Override::NeverFork,
        ] {
            let before = set_override(over);
            let drops = AtomicUsize::new(0);
            let make = |n: u64| (0..n).map(|i| Counted(&drops, i)).collect::<Vec<_>>();
            let n = scale::size(20_000) as u64;
            let (hit, bad) = (n / 4, n * 12_345 / 20_000);
            // Early stop.
            assert!(make(n)
                .into_par_iter()
                .with_pool(pool)
                .schedule(schedule)
                .any(|c| c.1 == 10));
            assert_eq!(drops.swap(0, Relaxed), n as usize);
            let first = make(n)
                .into_par_iter()
                .with_pool(pool)
                .schedule(schedule)
                .map(|c| c.1)
                .find_first(|&i| i >= hit);
            assert_eq!(first, Some(hit));
            assert_eq!(drops.swap(0, Relaxed), n as usize);
            // A zip's longer side, and an iterator dropped unconsumed.
            let zipped = make(n)
                .into_par_iter()
                .with_pool(pool)
                .zip(make(10).into_par_iter())
                .count();
            assert_eq!(zipped, 10);
            assert_eq!(drops.swap(0, Relaxed), n as usize + 10);
            drop(make(100).into_par_iter().map(|c| c.1));
            assert_eq!(drops.swap(0, Relaxed), 100);
            // A panic in one item, with collect writing straight to the output.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                make(n)
                    .into_par_iter()
                    .with_pool(pool)
                    .schedule(schedule)
                    .map(|c| {
                        if c.1 == bad {
                            panic!("item 12345");
                        }
                        c
                    })
                    .collect::<Vec<_>>()
            }));
            let payload = result.unwrap_err();
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"item 12345"));
            assert_eq!(drops.swap(0, Relaxed), n as usize, "{schedule:?} {over:?}");
            // A panic in `for_each`, whose serial path is the plain loop over
            // every position (in blocks only with `with_max_len`).
            for max_len in [usize::MAX, 7] {
                let (visited, seen) = (AtomicUsize::new(0), AtomicUsize::new(0));
                let walk = |panic_at: Option<u64>| {
                    make(n)
                        .into_par_iter()
                        .with_pool(pool)
                        .schedule(schedule)
                        .with_max_len(max_len)
                        .for_each(|c| {
                            visited.fetch_add(1, Relaxed);
                            seen.fetch_add(c.1 as usize + 1, Relaxed);
                            if Some(c.1) == panic_at {
                                panic!("item 12345");
                            }
                        })
                };
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| walk(Some(bad))));
                assert!(result.is_err());
                assert_eq!(drops.swap(0, Relaxed), n as usize, "{schedule:?} {over:?}");
                let visits = visited.swap(0, Relaxed);
                assert!(visits > 0 && visits <= n as usize, "{visits}");
                // Without the panic, every item is visited once.
                seen.store(0, Relaxed);
                walk(None);
                let n = n as usize;
                assert_eq!(seen.into_inner(), n * (n + 1) / 2);
                assert_eq!(drops.swap(0, Relaxed), n);
            }
            // The pool still works.
            assert_eq!(
                (0..100u64).into_par_iter().with_pool(pool).sum::<u64>(),
                4950
            );
            set_override(before);
        }
    }
}

#[test]
fn a_hit_at_index_zero_stops_the_other_threads_early() {
    let pool = pool(2);
    let before = set_override(Override::AlwaysFork);
    for schedule in [
        Schedule::Static,
        Schedule::Dynamic { grain: 64 },
        Schedule::Guided { min: 64 },
    ] {
        let visited = AtomicUsize::new(0);
        let n = scale::size(10_000_000);
        let found = (0..n as u64)
            .into_par_iter()
            .with_pool(pool)
            .schedule(schedule)
            .any(|i| {
                visited.fetch_add(1, Relaxed);
                if i != 0 {
                    // Give the hit time to be seen: each item costs ~1 µs.
                    let start = std::time::Instant::now();
                    while start.elapsed() < std::time::Duration::from_micros(1) {}
                }
                i == 0
            });
        assert!(found);
        // How soon the other threads stop is the property, and the count of
        // items they ran measures it: a few blocks per thread, far below
        // the bound, not 10 million items. Not under Miri: its scheduler may
        // run the other thread for a long stretch before the one that found
        // the hit, and its clock is virtual, so the bound is about timing.
        if cfg!(miri) {
            continue;
        }
        assert!(
            visited.load(Relaxed) < (n / 4).min(200_000),
            "{schedule:?}: {}",
            visited.load(Relaxed)
        );
    }
    set_override(before);
}

#[test]
fn find_first_returns_the_lowest_index_when_a_later_hit_comes_first() {
    let pool = pool(4);
    let before = set_override(Override::AlwaysFork);
    for schedule in [
        Schedule::Static,
        Schedule::Dynamic { grain: 1 },
        Schedule::Guided { min: 1 },
    ] {
        // Hits at 10 and 900_000; the low one is slow to be found.
        let (n, late) = (scale::size(1_000_000) as u64, scale::size(900_000) as u64);
        let found = (0..n)
            .into_par_iter()
            .with_pool(pool)
            .schedule(schedule)
            .find_first(|&i| {
                if i == 10 {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                i == 10 || i == late
            });
        assert_eq!(found, Some(10), "{schedule:?}");
        let failed = (0..n)
            .into_par_iter()
            .with_pool(pool)
            .schedule(schedule)
            .try_for_each(|i| {
                if i == 10 {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                if i == 10 || i == late {
                    Err(i)
                } else {
                    Ok(())
                }
            });
        assert_eq!(failed, Err(10), "{schedule:?}");
    }
    set_override(before);
}

#[test]
fn a_panic_reaches_the_caller_and_the_pool_keeps_working() {
    let pool = pool(3);
    for over in [Override::AlwaysFork, Override::NeverFork] {
        let before = set_override(over);
        let n = scale::size(10_000) as u32;
        let at = n * 7777 / 10_000;
        let result = std::panic::catch_unwind(|| {
            (0..n).into_par_iter().with_pool(pool).for_each(|i| {
                if i == at {
                    panic!("boom at {i}");
                }
            })
        });
        let payload = result.unwrap_err();
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some(format!("boom at {at}").as_str())
        );
        assert_eq!((0..10u32).into_par_iter().with_pool(pool).sum::<u32>(), 45);
        set_override(before);
    }
}

/// A call whose first item takes a fork's worth forks the rest, unasked:
/// the cutoff extrapolates from that item. Every later item the caller
/// runs waits until an item has run on another thread, so a call that
/// stayed on the caller would hang, and the watchdog fails it. (That cheap
/// calls stay on the caller is the cutoff's rule on remembered costs, which
/// its unit tests check exactly: here it would rest on the clock.)
#[test]
#[cfg_attr(
    miri,
    ignore = "the cutoff weighs items in real time, and Miri's clock counts interpreted steps"
)]
fn expensive_items_fork_without_being_told() {
    support::within(std::time::Duration::from_secs(60), || {
        use std::sync::atomic::{AtomicBool, Ordering};
        use tine::par::cutoff::FORK_WORTH_NS;
        // A pool of its own: a shared one, busy with another test's call,
        // would take this test's call as handed over, not as forked.
        let pool = &tine::ThreadPool::try_spawn(2).unwrap();
        let caller = std::thread::current().id();
        let elsewhere = AtomicBool::new(false);
        let ran = AtomicUsize::new(0);
        (0..40u64).into_par_iter().with_pool(pool).for_each(|i| {
            // A fork's worth (a sleep lasts at least that long): enough,
            // after the first item alone, for the cutoff to fork.
            std::thread::sleep(std::time::Duration::from_nanos(FORK_WORTH_NS));
            if std::thread::current().id() != caller {
                // Release: pairs with the Acquire load below.
                elsewhere.store(true, Ordering::Release);
            } else if i != 0 {
                // Acquire: pairs with the Release store above.
                while !elsewhere.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
            }
            ran.fetch_add(1, Relaxed);
        });
        assert_eq!(ran.into_inner(), 40, "every item ran");
        assert!(elsewhere.into_inner(), "an item ran on the pool's worker");
    });
}

#[test]
fn concurrent_callers_on_one_pool_each_get_their_own_partials() {
    let pool = tine::spawn_pool(3);
    std::thread::scope(|s| {
        for k in 0..3u64 {
            let pool = &pool;
            s.spawn(move || {
                set_override(Override::AlwaysFork);
                for round in 0..scale::size(2000) as u64 {
                    let n = scale::size(1000) as u64 + round % 7 + k;
                    let sum: u64 = (0..n).into_par_iter().with_pool(pool).map(|x| x * 2).sum();
                    assert_eq!(sum, n * (n - 1), "k={k} round={round}");
                }
            });
        }
    });
}

/// A zero-sized item that counts its drops.
struct Unit<'a>(&'a AtomicUsize);

impl Drop for Unit<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn zero_sized_items_are_counted_and_dropped_once() {
    let pool = pool(3);
    for over in [Override::AlwaysFork, Override::NeverFork] {
        let before = set_override(over);
        assert_eq!(
            vec![(); scale::size(10_000)]
                .into_par_iter()
                .with_pool(pool)
                .count(),
            scale::size(10_000)
        );
        let units: Vec<()> = vec![(); 777].into_par_iter().with_pool(pool).collect();
        assert_eq!(units.len(), 777);
        let kept: Vec<()> = vec![(); 777]
            .into_par_iter()
            .with_pool(pool)
            .filter(|_| true)
            .collect();
        assert_eq!(kept.len(), 777);
        let drops = AtomicUsize::new(0);
        let seen = (0..scale::size(5000))
            .map(|_| Unit(&drops))
            .collect::<Vec<_>>()
            .into_par_iter()
            .with_pool(pool)
            .count();
        let n = scale::size(5000);
        assert_eq!((seen, drops.into_inner()), (n, n));
        assert_eq!([(); 100].par_chunks(7).with_pool(pool).count(), 15);
        set_override(before);
    }
}

#[test]
fn a_panicking_identity_on_a_worker_leaves_no_stale_partial() {
    // A pool of its own: a shared one that another test keeps busy past
    // the busy wait (under qemu, say) runs the call inline on the caller,
    // where the identity does not panic.
    let pool = &tine::ThreadPool::try_spawn(4).unwrap();
    let before = set_override(Override::AlwaysFork);
    let caller = std::thread::current().id();
    let run = |fail: bool| {
        (0..scale::size(100_000) as u64)
            .into_par_iter()
            .with_pool(pool)
            .map(|x| vec![x])
            .reduce(
                || {
                    if fail && std::thread::current().id() != caller {
                        panic!("identity");
                    }
                    Vec::new()
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
    };
    for _ in 0..scale::size(20) {
        assert_eq!(run(false).len(), scale::size(100_000));
        let payload =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(true))).unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"identity"));
    }
    set_override(before);
}

#[test]
fn a_stopped_team_runs_calls_inline_and_a_panic_drops_every_item_once() {
    let team = tine::Team::new(4).unwrap();
    team.stop();
    let before = set_override(Override::AlwaysFork);
    let drops = AtomicUsize::new(0);
    let items: Vec<Counted<'_>> = (0..1000).map(|i| Counted(&drops, i)).collect();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        items
            .into_par_iter()
            .with_pool(&team)
            .map(|c| {
                if c.1 == 300 {
                    panic!("item 300");
                }
                c
            })
            .collect::<Vec<_>>()
    }));
    assert!(result.is_err());
    assert_eq!(drops.load(Relaxed), 1000);
    let sum: u64 = (0..100u64).into_par_iter().with_pool(&team).sum();
    assert_eq!(sum, 4950);
    set_override(before);
}
