//! 128-bit ranges of any length (`u128`, `i128`); the searches from the
//! end (`find_last`, `find_map_last`, `position_last`), which search in
//! segments from the end: answers, and every item dropped once; and
//! searches that stop inside a `flat_map`'s huge inner iterators.
#![cfg(not(loom))]

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

/// Runs `body` with each schedule, alone, forked and adaptive, on a
/// 2-thread pool and a 3-thread one.
fn every_way(mut body: impl FnMut(Schedule)) {
    for threads in [2, 3] {
        let pool = tine::spawn_pool(threads);
        for way in [
            Override::NeverFork,
            Override::AlwaysFork,
            Override::Adaptive,
        ] {
            let before = set_override(way);
            for schedule in [Schedule::Static, Schedule::Dynamic { grain: 3 }] {
                pool.install(|| body(schedule));
            }
            set_override(before);
        }
    }
}

#[test]
fn short_wide_ranges_match_the_serial_ones() {
    every_way(|schedule| {
        let ranges: [(u128, u128); 5] = [
            (0, 0),
            (5, 6),
            (0, 1000),
            (u128::MAX - 100, u128::MAX),
            (7, 3),
        ];
        for (start, end) in ranges {
            let got: Vec<u128> = (start..end).into_par_iter().schedule(schedule).collect();
            assert!(got.iter().copied().eq(start..end), "{start}..{end}");
            let got: Vec<u128> = (start..=end)
                .into_par_iter()
                .schedule(schedule)
                .filter(|x| x % 3 == 0)
                .collect();
            let want: Vec<u128> = (start..=end).filter(|x| x % 3 == 0).collect();
            assert_eq!(got, want, "{start}..={end}");
        }
        // The range's type comes from the iterator type asked for.
        let named: tine::range::Iter<u128> = (1..4).into_par_iter();
        assert_eq!(named.schedule(schedule).sum::<u128>(), 6);
        let signed: i128 = (-500..=500i128).into_par_iter().schedule(schedule).sum();
        assert_eq!(signed, 0);
        let count = (i128::MAX - 9..=i128::MAX)
            .into_par_iter()
            .schedule(schedule)
            .count();
        assert_eq!(count, 10);
    });
}

#[test]
fn ranges_longer_than_usize_hold_every_value() {
    // Three values to a position: every one is there, in order, once.
    let len = usize::MAX as u128 * 3;
    every_way(|schedule| {
        let range = || (0..len).into_par_iter().schedule(schedule);
        assert_eq!(range().find_first(|_| true), Some(0));
        assert_eq!(range().find_last(|_| true), Some(len - 1));
        assert_eq!(range().find_last(|x| x % 3 == 1), Some(len - 2));
        let top: Vec<u128> = (len - 10..=len).into_par_iter().collect();
        assert!(top.into_iter().eq(len - 10..=len));
    });
    // An unordered search ends where a thread's static range starts past
    // the answer (as rayon's ends where a split does): so forked, static.
    for way in [Override::AlwaysFork, Override::Adaptive] {
        let before = set_override(way);
        tine::spawn_pool(2).install(|| {
            let range = || (0..len).into_par_iter().schedule(Schedule::Static);
            let high = len / 2 + 5;
            assert!(range().find_any(|&x| x >= high).unwrap() >= high);
            assert!(range().any(|x| x == high));
            assert!(!range().all(|x| x < high));
        });
        set_override(before);
    }
    let whole = (0..=u128::MAX).into_par_iter();
    assert_eq!(whole.find_first(|&x| x >= 5), Some(5));
    let signed = (i128::MIN..=i128::MAX).into_par_iter();
    assert_eq!(signed.find_first(|&x| x > i128::MIN), Some(i128::MIN + 1));
}

#[test]
fn an_octillion_is_searched_from_either_end() {
    let pool = tine::spawn_pool(2);
    pool.install(|| {
        let octillion = || (0..OCTILLION).into_par_iter();
        assert_eq!(octillion().find_first(|_| true), Some(0));
        assert_eq!(octillion().find_last(|_| true), Some(OCTILLION - 1));
        let inclusive = (0..=OCTILLION).into_par_iter();
        assert_eq!(inclusive.find_last(|_| true), Some(OCTILLION));
        let half = OCTILLION / 2;
        assert!(octillion().find_any(|&x| x > half).is_some());
        assert!(octillion()
            .filter(|&x| x > half)
            .find_any(|_| true)
            .is_some());
    });
}

#[test]
fn searches_from_the_end_agree_with_serial_ones() {
    let items: Vec<u32> = (0..20_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
        .collect();
    every_way(|schedule| {
        for wanted in [0u32, 7, 999, 1000] {
            let test = |x: &&u32| **x == wanted;
            let got = items.par_iter().schedule(schedule).find_last(test);
            assert_eq!(got, items.iter().rev().find(test));
            let got = items
                .par_iter()
                .schedule(schedule)
                .position_last(|x| *x == wanted);
            assert_eq!(got, items.iter().rposition(|x| *x == wanted));
            let got = items
                .par_iter()
                .schedule(schedule)
                .find_map_last(|x| (*x == wanted).then_some(*x + 1));
            assert_eq!(got, items.iter().rev().find(test).map(|x| x + 1));
        }
    });
}

static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts its drops in [`DROPPED`].
struct Counted(u32);

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Relaxed);
    }
}

#[test]
fn a_search_from_the_end_drops_every_item_once() {
    support::serialize_panic_output();
    let counted = || (0..5000u32).map(Counted).collect::<Vec<_>>();
    every_way(|schedule| {
        for wanted in [0, 2500, 4999, 5000] {
            DROPPED.store(0, Relaxed);
            let found = counted()
                .into_par_iter()
                .schedule(schedule)
                .find_last(|item| item.0 == wanted)
                .map(|item| item.0);
            assert_eq!(found, (wanted < 5000).then_some(wanted));
            assert_eq!(DROPPED.load(Relaxed), 5000, "wanted {wanted}");
        }
        DROPPED.store(0, Relaxed);
        let result = catch_unwind(AssertUnwindSafe(|| {
            counted()
                .into_par_iter()
                .schedule(schedule)
                .find_last(|item| {
                    assert!(item.0 != 1000, "boom");
                    false
                })
        }));
        assert!(result.is_err());
        assert_eq!(DROPPED.load(Relaxed), 5000, "after a panic");
    });
}

#[test]
fn a_search_through_flat_maps_stops_inside_their_inner_iterators() {
    // Each outer item holds 2^40 values: a walk to the end of one never
    // ends, so each search must stop inside the inner walks. The answers
    // lie above 400,000's items, where the last thread's static range
    // starts (at 500,000 on 2 threads, about 666,667 on 3), below it none.
    let nested = || {
        (0u32..1_000_000)
            .into_par_iter()
            .schedule(Schedule::Static)
            .with_max_len(1000)
            .flat_map(|i| {
                (0u64..1 << 40)
                    .into_par_iter()
                    .map(move |j| (u64::from(i) << 40) + j)
            })
    };
    let high = 400_000u64 << 40;
    for threads in [2, 3] {
        for way in [Override::AlwaysFork, Override::Adaptive] {
            let before = set_override(way);
            tine::spawn_pool(threads).install(|| {
                assert!(nested().find_any(|&x| x > high).unwrap() > high);
                let found = nested().filter(|&x| x > high).find_any(|_| true);
                assert!(found.unwrap() > high);
                assert!(nested().any(|x| x > high));
                assert!(!nested().all(|x| x <= high));
                assert_eq!(nested().find_first(|&x| x > 5), Some(6));
                // The failure of the lowest position: the others stop.
                let stopped = nested().try_for_each(|x| if x > 5 { Err(x) } else { Ok(()) });
                assert_eq!(stopped, Err(6));
            });
            set_override(before);
        }
    }
}

#[test]
fn a_call_made_inside_a_stopped_search_answers_to_its_own_stops_only() {
    use std::sync::atomic::{
        AtomicBool,
        Ordering::{Acquire, Release},
    };
    use std::time::Duration;
    // Thread 1's static range (outer items 2 and 3) holds no answer: it
    // walks item 2's 2^40 values until the search stops. Thread 0 finds
    // its answer only once thread 1 is inside item 2; then thread 1 makes
    // a search of its own there, whose inner walks must not end at the
    // outer search's stop.
    static ENTERED: AtomicBool = AtomicBool::new(false);
    static FOUND: AtomicBool = AtomicBool::new(false);
    fn wait_for(flag: &AtomicBool) {
        // Acquire: pairs with the Release store that sets the flag.
        while !flag.load(Acquire) {
            std::thread::yield_now();
        }
    }
    let before = set_override(Override::AlwaysFork);
    tine::spawn_pool(2).install(|| {
        let answer = AtomicUsize::new(0);
        let hit = (0u32..4)
            .into_par_iter()
            .schedule(Schedule::Static)
            .flat_map(|outer| {
                let answer = &answer;
                (0u64..1 << 40).into_par_iter().map(move |x| {
                    if outer == 2 && x == 0 {
                        // Release: pairs with the Acquire in `wait_for`.
                        ENTERED.store(true, Release);
                        wait_for(&FOUND);
                        std::thread::sleep(Duration::from_millis(20));
                        let nested = || {
                            (0u32..100)
                                .into_par_iter()
                                .flat_map(|i| (0u32..3).into_par_iter().map(move |j| i * 3 + j))
                        };
                        let last = nested().find_first(|&x| x == 299);
                        let taken = nested().take_any(300).count();
                        let kept: Vec<u32> = nested().map(Some).while_some().collect();
                        answer.store(last.map_or(0, |x| x as usize) + taken + kept.len(), Relaxed);
                    }
                    (u64::from(outer) << 40) + x
                })
            })
            .any(|x| {
                if x == 3 {
                    wait_for(&ENTERED);
                    // Release: pairs with the Acquire in `wait_for`.
                    FOUND.store(true, Release);
                }
                x == 3
            });
        assert!(hit);
        assert_eq!(
            answer.load(Relaxed),
            299 + 300 + 300,
            "the nested calls ran whole"
        );
    });
    set_override(before);
}
