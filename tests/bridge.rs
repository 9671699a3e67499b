//! `par_bridge` (`src/par/bridge.rs`): every item of the serial source
//! exactly once, whatever the consumer, schedule, block bounds or thread
//! count; owned items dropped once on early stop and on panics (in the
//! map and in the source); items too large for a range's room and
//! zero-sized ones; and calls that end with the source even when their
//! blocks are small.
#![cfg(not(loom))]

mod scale;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;

/// Runs `body` once with each cutoff override, so that calls run both
/// alone on the caller and forked.
fn both_ways(mut body: impl FnMut()) {
    for way in [
        Override::NeverFork,
        Override::AlwaysFork,
        Override::Adaptive,
    ] {
        let before = set_override(way);
        body();
        set_override(before);
    }
}

fn lengths() -> Vec<usize> {
    [0, 1, 2, 3, 255, 256, 257, 4095, 4097, 100_000]
        .into_iter()
        .map(scale::size)
        .collect()
}

#[test]
fn every_item_once_for_each_consumer_and_schedule() {
    for threads in [1, 2, 3, 4] {
        let pool = tine::spawn_pool(threads);
        both_ways(|| {
            for n in lengths() {
                let want = (n as u64) * (n as u64).saturating_sub(1) / 2;
                let sum: u64 = (0..n as u64).par_bridge().with_pool(&pool).sum();
                assert_eq!(sum, want, "sum, {threads} threads, {n} items");
                let mut all: Vec<u64> = (0..n as u64).par_bridge().with_pool(&pool).collect();
                all.sort_unstable();
                assert!(all.iter().copied().eq(0..n as u64), "collect, {n} items");
                for schedule in [
                    Schedule::Static,
                    Schedule::Dynamic { grain: 1 },
                    Schedule::Guided { min: 3 },
                ] {
                    let count = (0..n)
                        .par_bridge()
                        .with_pool(&pool)
                        .schedule(schedule)
                        .with_max_len(2)
                        .filter(|x| x % 3 == 0)
                        .count();
                    assert_eq!(count, n.div_ceil(3), "{schedule:?}, {n} items");
                }
                // Consumers that can stop: blocks of at most 4096 positions.
                assert_eq!(
                    (0..n).par_bridge().with_pool(&pool).any(|x| x + 1 == n),
                    n > 0
                );
                assert!((0..n).par_bridge().with_pool(&pool).all(|x| x < n));
                let found = (0..n)
                    .par_bridge()
                    .with_pool(&pool)
                    .find_any(|&x| x == n / 2);
                assert_eq!(found, (n > 0).then_some(n / 2));
                let max = (0..n).par_bridge().with_pool(&pool).max();
                assert_eq!(max, n.checked_sub(1));
            }
        });
    }
}

#[test]
fn adaptors_over_a_bridge_end_with_the_source() {
    let pool = tine::spawn_pool(3);
    both_ways(|| {
        let n = scale::size(10_000);
        let lines: String = (0..n).map(|i| format!("{i}\n")).collect();
        let total: usize = lines
            .lines()
            .par_bridge()
            .with_pool(&pool)
            .map(|line| line.parse::<usize>().unwrap())
            .filter(|x| x % 2 == 0)
            .map_init(|| 1, |one, x| x * *one)
            .flat_map_iter(|x| [x, 0])
            .inspect(|_| {})
            .sum();
        assert_eq!(total, (0..n).filter(|x| x % 2 == 0).sum::<usize>());
        // A bridge in a chain, and the fold of one.
        let mut chained: Vec<usize> = (0..n)
            .par_bridge()
            .chain(vec![n, n + 1].into_par_iter())
            .with_pool(&pool)
            .collect();
        chained.sort_unstable();
        assert!(chained.into_iter().eq(0..n + 2));
        let folded: usize = (0..n)
            .par_bridge()
            .with_pool(&pool)
            .fold(|| 0, |a, x| a + x)
            .sum();
        assert_eq!(folded, n * (n - 1) / 2);
    });
}

/// Counts its drops.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn owned_items_are_dropped_once_on_early_stop_and_panic() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(4);
    both_ways(|| {
        let n = scale::size(20_000);
        // Early stop: every item made is dropped once, pulled or not.
        let made = AtomicUsize::new(0);
        let dropped = AtomicUsize::new(0);
        let source = (0..n).map(|i| {
            made.fetch_add(1, Relaxed);
            (i, Counted(&dropped))
        });
        let found = source
            .par_bridge()
            .with_pool(&pool)
            .find_any(|(i, _)| *i == n / 3)
            .map(|(i, _)| i);
        assert_eq!(found, Some(n / 3));
        assert_eq!(dropped.load(Relaxed), made.load(Relaxed));
        // A panic in the map: the call panics, every item made is dropped
        // once, and the pool stays usable.
        let made = AtomicUsize::new(0);
        let dropped = AtomicUsize::new(0);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            (0..n)
                .map(|i| {
                    made.fetch_add(1, Relaxed);
                    (i, Counted(&dropped))
                })
                .par_bridge()
                .with_pool(&pool)
                .for_each(|(i, _)| assert!(i != n / 2, "item {i} failed"));
        }));
        assert!(outcome.is_err());
        assert_eq!(dropped.load(Relaxed), made.load(Relaxed));
        assert_eq!((0..10).par_bridge().with_pool(&pool).count(), 10);
    });
}

#[test]
fn a_panic_in_the_source_reaches_the_caller_and_nothing_pulls_after_it() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(3);
    both_ways(|| {
        let n = scale::size(5_000);
        let pulled = AtomicUsize::new(0);
        let dropped = AtomicUsize::new(0);
        let source = (0..n).map(|i| {
            pulled.fetch_add(1, Relaxed);
            assert!(i != n / 2, "the source failed at {i}");
            Counted(&dropped)
        });
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            source.par_bridge().with_pool(&pool).for_each(drop);
        }));
        let payload = outcome.expect_err("the source's panic");
        let message = payload
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert_eq!(*message, format!("the source failed at {}", n / 2));
        // Nothing was pulled after the panic, and every item made was
        // dropped once (the panicking pull made none).
        assert_eq!(pulled.load(Relaxed), n / 2 + 1);
        assert_eq!(dropped.load(Relaxed), n / 2);
    });
}

#[test]
fn large_and_zero_sized_items() {
    let pool = tine::spawn_pool(3);
    both_ways(|| {
        let n = scale::size(300);
        // 8 KiB items: more than a range's room holds, one per lock.
        let big: u64 = (0..n as u64)
            .map(|i| [i; 1024])
            .par_bridge()
            .with_pool(&pool)
            .map(|a| a[1023])
            .sum();
        assert_eq!(big, (0..n as u64).sum::<u64>());
        // Over-aligned items do not fit the room's alignment either.
        #[repr(align(128))]
        struct Wide(u64);
        let wide: u64 = (0..n as u64)
            .map(Wide)
            .par_bridge()
            .with_pool(&pool)
            .map(|w| w.0)
            .sum();
        assert_eq!(wide, big);
        let units = std::iter::repeat_n((), scale::size(100_000))
            .par_bridge()
            .with_pool(&pool)
            .count();
        assert_eq!(units, scale::size(100_000));
    });
}

/// Batches start at one item, so a few slow items still reach every
/// thread. The first item takes a fork's worth, so the call forks after
/// it; every later item waits until each of the 3 threads has started one,
/// which happens only if no thread pulled the rest in one batch. A bridge
/// that did would hang, and the watchdog fails it.
#[test]
fn a_bridge_of_expensive_items_spreads_over_the_threads() {
    support::within(std::time::Duration::from_secs(60), || {
        use std::sync::atomic::Ordering::{Acquire, Release};
        let pool = tine::spawn_pool(3);
        let per_thread: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        let threads_in = AtomicUsize::new(0);
        (0..6).par_bridge().with_pool(&pool).for_each(|item| {
            let index = tine::current_thread_index().unwrap();
            if per_thread[index].fetch_add(1, Relaxed) == 0 {
                // Release: pairs with the Acquire load below.
                threads_in.fetch_add(1, Release);
            }
            if item == 0 {
                // The caller's probe pulls the first item alone; a sleep
                // lasts at least a fork's worth, enough for the cutoff to
                // fork after it.
                let worth = tine::par::cutoff::FORK_WORTH_NS;
                std::thread::sleep(std::time::Duration::from_nanos(worth));
            } else {
                // Acquire: pairs with the Release increment above.
                while threads_in.load(Acquire) < 3 {
                    std::thread::yield_now();
                }
            }
        });
        let counts: Vec<usize> = per_thread.iter().map(|c| c.load(Relaxed)).collect();
        assert_eq!(counts.iter().sum::<usize>(), 6);
        assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
    });
}

#[test]
fn every_adaptor_over_a_bridge_stops_with_the_source_in_blocks_of_one() {
    // Blocks of one position: a call that did not see the source end would
    // walk ~2^61 empty blocks. Each adaptor must pass `ended` on.
    let pool = tine::spawn_pool(2);
    let n = scale::size(1000);
    let bridge = || (0..n).par_bridge().with_pool(&pool).with_max_len(1);
    both_ways(|| {
        assert_eq!(bridge().map(|x| x + 1).count(), n);
        assert_eq!(bridge().map_init(|| (), |(), x| x).count(), n);
        assert_eq!(bridge().map_with(0, |_, x| x).count(), n);
        assert_eq!(bridge().inspect(|_| {}).count(), n);
        assert_eq!(bridge().filter(|_| true).count(), n);
        assert_eq!(bridge().filter_map(Some).count(), n);
        assert_eq!(bridge().flat_map_iter(|x| [x]).count(), n);
        assert_eq!(bridge().flat_map(|x| vec![x]).count(), n);
        assert_eq!(bridge().map(|x| vec![x]).flatten().count(), n);
        assert_eq!(bridge().map(|_| &7u8).copied().count(), n);
        assert_eq!(bridge().map(|_| &7u8).cloned().count(), n);
        assert_eq!(
            bridge().fold(|| 0, |a, x| a + x).sum::<usize>(),
            n * (n - 1) / 2
        );
        assert_eq!(
            bridge().fold_with(0, |a, x| a + x).sum::<usize>(),
            n * (n - 1) / 2
        );
        assert_eq!(bridge().update(|x| *x += 1).max(), Some(n));
        assert_eq!(bridge().take_any(3).count(), 3.min(n));
        assert_eq!(bridge().skip_any(3).count(), n - 3.min(n));
        let sums: Result<usize, ()> = bridge().try_fold(|| 0, |a, x| Ok(a + x)).sum();
        assert_eq!(sums, Ok(n * (n - 1) / 2));
        assert_eq!(bridge().chain(bridge()).count(), 2 * n);
        assert!(!bridge().map(|x| x).any(|x| x == n));
    });
}

/// Runs `body` on a thread of its own and fails if it has not returned
/// within 60 s: a call that walks a bridge's bound position by position
/// would otherwise hang the suite.
fn within_a_minute(what: &str, body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        body();
        let _ = done.send(());
    });
    match finished.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(()) => worker.join().expect("the body's thread"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            // The body panicked: resume its panic here.
            if let Err(payload) = worker.join() {
                std::panic::resume_unwind(payload);
            }
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what} did not return"),
    }
}

/// `flat_map` and `flatten` over inner bridges end with every
/// short-circuiting consumer, found or not, for every boundless inner
/// source (a bridge, and a bridge under `map`, `filter` and `chain`).
#[test]
fn short_circuiting_consumers_over_inner_bridges_return() {
    // Outer items 0..outer, each with the inner items 0..3 (in no order).
    macro_rules! check_every_consumer {
        ($name:literal, $make:expr) => {{
            let make = $make;
            for outer in [1u32, 2, 5] {
                let items = 3 * outer as usize;
                within_a_minute(concat!($name, ": any, all, find"), move || {
                    let par = || (0..outer).into_par_iter().flat_map(make);
                    assert!(!par().any(|x| x == 99));
                    assert!(par().any(|x| x == 2));
                    assert!(par().all(|x| x < 3));
                    assert!(!par().all(|x| x < 2));
                    assert_eq!(par().find_any(|&x| x == 99), None);
                    assert_eq!(par().find_any(|&x| x == 1), Some(1));
                    assert_eq!(par().find_first(|&x| x == 99), None);
                    assert_eq!(par().find_map_any(|x| (x == 99).then_some(x)), None);
                    assert_eq!(par().find_map_first(|x| (x == 2).then_some(x)), Some(2));
                });
                within_a_minute(concat!($name, ": try_*"), move || {
                    let par = || (0..outer).into_par_iter().flat_map(make);
                    assert_eq!(
                        par().try_for_each(|x| if x < 9 { Ok(()) } else { Err(x) }),
                        Ok(())
                    );
                    assert_eq!(
                        par().try_for_each(|x| if x < 2 { Ok(()) } else { Err(x) }),
                        Err(2)
                    );
                    assert_eq!(par().try_for_each(|x| (x < 9).then_some(())), Some(()));
                    let sum = par()
                        .map(|x| Some(u64::from(x)))
                        .try_reduce(|| 0, |a, b| Some(a + b));
                    assert_eq!(sum, Some(3 * u64::from(outer)));
                    let failed = par()
                        .map(|x| (x != 1).then_some(x))
                        .try_reduce(|| 0, |a, b| Some(a + b));
                    assert_eq!(failed, None);
                });
                within_a_minute(concat!($name, ": take_any, skip_any"), move || {
                    let par = || (0..outer).into_par_iter().flat_map(make);
                    assert_eq!(par().take_any(2).count(), 2);
                    assert_eq!(par().take_any(items + 5).count(), items);
                    assert_eq!(par().skip_any(1).count(), items - 1);
                    assert_eq!(par().skip_any(items + 5).count(), 0);
                });
            }
        }};
    }
    check_every_consumer!("bridge", |_| vec![0u32, 1, 2].into_iter().par_bridge());
    check_every_consumer!("bridge, map", |_| (10u32..13).par_bridge().map(|x| x - 10));
    check_every_consumer!("bridge, filter", |_| (0u32..6)
        .par_bridge()
        .filter(|&x| x < 3));
    check_every_consumer!("bridge, chain", |_| (0u32..2)
        .par_bridge()
        .chain(std::iter::once(2u32).par_bridge()));
    // `flatten` of the inner bridges.
    for outer in [1u32, 4] {
        within_a_minute("flatten", move || {
            let par = || {
                (0..outer)
                    .into_par_iter()
                    .map(|_| vec![0u32, 1, 2].into_iter().par_bridge())
                    .flatten()
            };
            assert!(!par().any(|x| x == 3));
            assert_eq!(par().find_first(|&x| x == 3), None);
            assert_eq!(par().take_any(1).count(), 1);
        });
    }
}
