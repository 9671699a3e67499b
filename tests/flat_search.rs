//! Searches through `flat_map`s whose inner iterators are huge: searches
//! from the end (`find_last`, `find_map_last`) search each inner iterator
//! from its end, through the adaptors between; a `fold` under a search
//! hands on partials as it goes. Answers against serial ones on small
//! inputs, every item dropped once, and rayon's `octillion` shapes.
#![cfg(not(loom))]

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;

/// Runs `body` alone, forked and adaptive, on a 2-thread pool and a
/// 3-thread one.
fn every_way(mut body: impl FnMut()) {
    for threads in [2, 3] {
        let pool = tine::spawn_pool(threads);
        for way in [
            Override::NeverFork,
            Override::AlwaysFork,
            Override::Adaptive,
        ] {
            let before = set_override(way);
            pool.install(&mut body);
            set_override(before);
        }
    }
}

/// 10^9 outer items, each of 10^9 inner ones, twice over: rayon's
/// `octillion_flat`, 10^27 values in all.
fn octillion_flat() -> impl ParallelIterator<Item = u128> {
    (0u32..1_000_000_000)
        .into_par_iter()
        .with_max_len(1_000)
        .map(|i| u64::from(i) * 1_000_000_000)
        .flat_map(|i| {
            (0u32..1_000_000_000)
                .into_par_iter()
                .with_max_len(1_000)
                .map(move |j| i + u64::from(j))
        })
        .map(|i| u128::from(i) * 1_000_000_000)
        .flat_map(|i| {
            (0u32..1_000_000_000)
                .into_par_iter()
                .with_max_len(1_000)
                .map(move |j| i + u128::from(j))
        })
}

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

/// How long a search of 10^27 values may take: a walk that does not
/// stop where it should takes years.
const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn an_octillion_through_flat_maps_is_searched_from_its_end() {
    support::within(LIMIT, || {
        every_way(|| {
            assert_eq!(octillion_flat().find_last(|_| true), Some(OCTILLION - 1));
            // The last answer lies 1000 values below the end, behind a
            // filter.
            let found = octillion_flat()
                .filter(|x| x % 1_000_000_000 < 999_999_000)
                .find_map_last(|x| Some(x + 1));
            assert_eq!(found, Some(OCTILLION - 1000));
        })
    });
}

#[test]
fn a_fold_under_a_search_hands_on_partials_as_it_goes() {
    support::within(LIMIT, || {
        every_way(|| {
            let any = octillion_flat().fold(|| (), |_, _| ()).find_any(|_| true);
            assert!(any.is_some());
            let counts = octillion_flat()
                .fold(|| 0u64, |n, _| n + 1)
                .find_any(|&n| n > 0);
            assert!(counts.is_some_and(|n| n <= 1024));
        })
    });
    // Without a search, each range still folds into one partial.
    let tine_sums: u64 = (0u64..1000)
        .into_par_iter()
        .flat_map(|i| (0..i).into_par_iter())
        .fold(|| 0u64, |a, x| a + x)
        .sum();
    assert_eq!(tine_sums, (0u64..1000).map(|i| (0..i).sum::<u64>()).sum());
}

#[test]
fn searches_from_the_end_through_adaptors_agree_with_serial_ones() {
    let serial = |wanted: u64| {
        (0u64..300)
            .flat_map(|i| (0..i % 17).map(move |j| i * 100 + j))
            .filter(|x| x % 3 != 0)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find(|x| x % 50 == wanted)
    };
    every_way(|| {
        for wanted in [0u64, 1, 7, 49, 50] {
            let test = |x: &u64| x % 50 == wanted;
            let nested = || {
                (0u64..300)
                    .into_par_iter()
                    .with_max_len(4)
                    .flat_map(|i| (0..i % 17).into_par_iter().map(move |j| i * 100 + j))
            };
            let expected = serial(wanted);
            let got = nested().filter(|x| x % 3 != 0).find_last(test);
            assert_eq!(got, expected, "filter, wanted {wanted}");
            let got = nested()
                .filter_map(|x| (x % 3 != 0).then_some(x))
                .inspect(|x| assert!(x % 3 != 0))
                .find_map_last(|x| test(&x).then_some(x));
            assert_eq!(got, expected, "filter_map and inspect");
            let got = nested()
                .map_with(3u64, |three, x| (x, x % *three))
                .map_init(|| 0, |_, (x, rest)| (rest != 0).then_some(x))
                .flatten_iter()
                .find_last(test);
            assert_eq!(got, expected, "map_with, map_init and flatten_iter");
            // A flat_map of flat_maps, whose inner iterators are split
            // into positions of several items each.
            let got = (0u64..300)
                .into_par_iter()
                .flat_map(|i| {
                    (0..1u64).into_par_iter().flat_map(move |_| {
                        (0..i % 17)
                            .into_par_iter()
                            .map(move |j| i * 100 + j)
                            .filter(|x| x % 3 != 0)
                    })
                })
                .find_last(test);
            assert_eq!(got, expected, "nested flat_maps");
            // Inner iterators of a bridge, whose length is only a bound.
            let got = (0u64..300)
                .into_par_iter()
                .flat_map(|i| {
                    (0..i % 17)
                        .map(move |j| i * 100 + j)
                        .filter(|x| x % 3 != 0)
                        .par_bridge()
                })
                .find_last(test);
            assert_eq!(got, expected, "bridged inner iterators");
        }
    });
}

static MADE: AtomicUsize = AtomicUsize::new(0);
static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts its drops in [`DROPPED`], as [`counted`] counts the ones made.
struct Counted(u32);

fn counted(n: u32) -> Counted {
    MADE.fetch_add(1, Relaxed);
    Counted(n)
}

/// Held by each test that counts, since the tests of this file run at
/// once.
static COUNTING: Mutex<()> = Mutex::new(());

/// Starts counting afresh.
fn recount() {
    MADE.store(0, Relaxed);
    DROPPED.store(0, Relaxed);
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Relaxed);
    }
}

#[test]
fn a_search_from_the_end_through_flat_maps_drops_every_item_once() {
    let _counting = COUNTING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    support::serialize_panic_output();
    // Outer items of 50 owned items each (of 5 under Miri), made when the
    // search reaches the outer item.
    let (outer, each) = if cfg!(miri) { (6, 5) } else { (100, 50) };
    let total = outer * each;
    let owned = move || {
        (0..outer).into_par_iter().flat_map(move |i| {
            (0..each)
                .map(|j| counted(i * each + j))
                .collect::<Vec<_>>()
                .into_par_iter()
        })
    };
    every_way(|| {
        for wanted in [0, total / 2 + 1, total - 1, total] {
            recount();
            let found = owned()
                .find_last(|item| item.0 == wanted)
                .map(|item| item.0);
            assert_eq!(found, (wanted < total).then_some(wanted));
            let made = MADE.load(Relaxed) as u32;
            assert!(made >= total - wanted / each * each, "wanted {wanted}");
            assert_eq!(DROPPED.load(Relaxed) as u32, made, "wanted {wanted}");
        }
        recount();
        let result = catch_unwind(AssertUnwindSafe(|| {
            owned().find_last(|item| {
                assert!(item.0 != total * 3 / 5, "boom");
                false
            })
        }));
        assert!(result.is_err());
        assert_eq!(DROPPED.load(Relaxed), MADE.load(Relaxed), "after a panic");
    });
}

#[test]
fn a_search_from_the_end_stops_the_lower_inner_walks() {
    // Outer item 0 holds no answer and 2^40 values, item 1 an answer near
    // its end, item 2 nothing. Searched from the end, item 0 is never
    // needed: a thread alone never gets there, and one that searches it
    // beside another must give up once item 1's answer is found.
    support::within(LIMIT, || {
        every_way(|| {
            let last = (2u64 << 40) - 1;
            for schedule in [Schedule::Static, Schedule::Dynamic { grain: 1 }] {
                let found = (0u32..3)
                    .into_par_iter()
                    .schedule(schedule)
                    .flat_map(|i| {
                        let len = if i == 2 { 10 } else { 1 << 40 };
                        (0u64..len)
                            .into_par_iter()
                            .map(move |j| (u64::from(i) << 40) + j)
                    })
                    .find_last(|&x| x >> 40 == 1 && x % 3 == 0);
                assert_eq!(found, Some(last - last % 3));
            }
            // A chain searches its second part from the end first.
            let huge = |i: u64| (0u64..1 << 40).into_par_iter().map(move |j| (i << 40) + j);
            let found = (0u64..2)
                .into_par_iter()
                .flat_map(huge)
                .chain((2u64..3).into_par_iter().flat_map(huge))
                .find_last(|&x| x % 5 == 0);
            let last = (3u64 << 40) - 1;
            assert_eq!(found, Some(last - last % 5));
        })
    });
}

#[test]
fn a_128_bit_range_is_searched_from_the_end_of_its_runs() {
    // Runs of about 2^64 values each.
    support::within(LIMIT, || {
        every_way(|| {
            let found = (0..u128::MAX).into_par_iter().find_last(|x| x % 1000 == 7);
            let last = u128::MAX - 1;
            assert_eq!(found, Some(last - (last - 7) % 1000));
            let all = (0..=u128::MAX).into_par_iter();
            assert_eq!(all.find_last(|_| true), Some(u128::MAX));
            let signed = (i128::MIN..=i128::MAX).into_par_iter();
            let below = signed.find_map_last(|x| (x < i128::MAX - 5).then_some(x));
            assert_eq!(below, Some(i128::MAX - 6));
        })
    });
}

/// Outer items `0..4`, each a `flat_map` of 2 items, each of 2^40 values:
/// `(2 * i + j) << 40 | k`.
fn nested_flat_maps() -> impl ParallelIterator<Item = u64> {
    (0u64..4).into_par_iter().flat_map(|i| {
        (0u64..2).into_par_iter().flat_map(move |j| {
            (0u64..1 << 40)
                .into_par_iter()
                .map(move |k| ((2 * i + j) << 40) | k)
        })
    })
}

#[test]
fn searches_stop_inside_the_innermost_walks_of_nested_flat_maps() {
    // Every answer lies among the first values of outer item 0, so a walk
    // alone finds it too; the threads on other outer items must stop
    // inside the innermost walks, each of 2^40 values.
    support::within(LIMIT, || {
        every_way(|| {
            assert!(nested_flat_maps()
                .find_any(|&x| x > 5)
                .is_some_and(|x| x > 5));
            assert_eq!(nested_flat_maps().find_first(|&x| x > 5), Some(6));
            assert!(nested_flat_maps().any(|x| x == 6));
            assert!(!nested_flat_maps().all(|x| x < 6));
            let found = nested_flat_maps().find_map_any(|x| (x == 7).then_some(x));
            assert_eq!(found, Some(7));
            let failed = nested_flat_maps().try_for_each(|x| if x > 5 { Err(x) } else { Ok(()) });
            assert_eq!(failed, Err(6));
            assert_eq!(nested_flat_maps().take_any(3).count(), 3);
            assert!(nested_flat_maps().take_any_while(|&x| x < 6).count() <= 6);
        })
    });
}

#[test]
fn a_search_through_nested_flat_maps_drops_every_item_once() {
    let _counting = COUNTING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    support::serialize_panic_output();
    // Outer items, each a flat_map of 5 owned runs of 50 items (smaller
    // under Miri).
    let (outer, runs, each) = if cfg!(miri) { (4, 2, 5) } else { (20, 5, 50) };
    let total = outer * runs * each;
    let owned = move || {
        (0..outer).into_par_iter().flat_map(move |i| {
            (0..runs).into_par_iter().flat_map(move |j| {
                (0..each)
                    .map(|k| counted((i * runs + j) * each + k))
                    .collect::<Vec<_>>()
                    .into_par_iter()
            })
        })
    };
    // The same with the middle level reversed: a walk kept in the middle
    // drops its positions left through the producer it borrows.
    let reversed = move || {
        (0..outer).into_par_iter().flat_map(move |i| {
            (0..runs).into_par_iter().rev().flat_map(move |j| {
                (0..each)
                    .map(|k| counted((i * runs + j) * each + k))
                    .collect::<Vec<_>>()
                    .into_par_iter()
            })
        })
    };
    every_way(|| {
        for wanted in [0, total / 2 + 1, total - 1, total] {
            recount();
            let found = reversed()
                .find_any(|item| item.0 == wanted)
                .map(|item| item.0);
            assert_eq!(found, (wanted < total).then_some(wanted));
            assert_eq!(
                DROPPED.load(Relaxed),
                MADE.load(Relaxed),
                "reversed {wanted}"
            );
            recount();
            let found = owned().find_any(|item| item.0 == wanted).map(|item| item.0);
            assert_eq!(found, (wanted < total).then_some(wanted));
            assert_eq!(DROPPED.load(Relaxed), MADE.load(Relaxed), "wanted {wanted}");
            recount();
            let found = owned()
                .find_first(|item| item.0 >= wanted)
                .map(|item| item.0);
            assert_eq!(found, (wanted < total).then_some(wanted));
            assert_eq!(DROPPED.load(Relaxed), MADE.load(Relaxed), "first {wanted}");
        }
        recount();
        let result = catch_unwind(AssertUnwindSafe(|| {
            owned().find_any(|item| {
                assert!(item.0 != total * 3 / 5, "boom");
                false
            })
        }));
        assert!(result.is_err());
        assert_eq!(DROPPED.load(Relaxed), MADE.load(Relaxed), "after a panic");
    });
}
