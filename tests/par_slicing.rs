//! `skip`, `take` and `chain` against their serial counterparts (random
//! lengths and cuts, thread counts 1..=6, every schedule, the cutoff
//! adaptive and forced to fork), and owned items dropped exactly once
//! through them, under early stop and panics.
#![cfg(not(loom))]

mod par_common;

use par_common::{pool, schedule_strategy, Counted};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::par::{Par, Pooled, Schedule, SliceProducer};
use tine::prelude::*;
use tine::ThreadPool;

/// `data.par_iter()` on `pool` with `schedule`.
fn on<'a>(
    data: &'a [i64],
    pool: &'a ThreadPool,
    schedule: Schedule,
) -> Par<Pooled<'a, SliceProducer<'a, i64>>> {
    data.par_iter().with_pool(pool).schedule(schedule)
}

fn check_all(a: &[i64], b: &[i64], cut: usize, pool: &ThreadPool, schedule: Schedule) {
    let par = |data| on(data, pool, schedule);

    let got: Vec<i64> = par(a).skip(cut).copied().collect();
    assert_eq!(got, a.iter().skip(cut).copied().collect::<Vec<_>>(), "skip");
    let got: Vec<i64> = par(a).take(cut).copied().collect();
    assert_eq!(got, a.iter().take(cut).copied().collect::<Vec<_>>(), "take");
    let got: Vec<(usize, i64)> = par(a)
        .skip(cut / 2)
        .take(cut)
        .enumerate()
        .map(|(i, &x)| (i, x))
        .collect();
    let want: Vec<(usize, i64)> = a
        .iter()
        .skip(cut / 2)
        .take(cut)
        .copied()
        .enumerate()
        .collect();
    assert_eq!(got, want, "skip, take, enumerate");
    assert_eq!(par(a).take(cut).len(), cut.min(a.len()));
    assert_eq!(par(a).skip(cut).len(), a.len().saturating_sub(cut));

    let got: Vec<i64> = par(a).chain(b.par_iter()).copied().collect();
    assert_eq!(got, a.iter().chain(b).copied().collect::<Vec<_>>(), "chain");
    let got: Vec<i64> = par(a)
        .filter(|x| *x % 3 == 0)
        .chain(b.par_iter().filter(|x| *x % 2 == 0))
        .copied()
        .collect();
    let want: Vec<i64> = a
        .iter()
        .filter(|x| *x % 3 == 0)
        .chain(b.iter().filter(|x| *x % 2 == 0))
        .copied()
        .collect();
    assert_eq!(got, want, "chain of filtered sides");
    let got = par(a).chain(b.par_iter()).position_first(|&x| x == 999);
    assert_eq!(
        got,
        a.iter().chain(b).position(|&x| x == 999),
        "position_first over the join"
    );
    let got: i64 = par(a).chain(b).map(|x| x * 2).sum();
    assert_eq!(got, a.iter().chain(b).map(|x| x * 2).sum::<i64>());
    let got: Vec<(i64, i64)> = par(a)
        .chain(b)
        .zip(par(b).chain(a))
        .map(|(x, y)| (*x, *y))
        .collect();
    let want: Vec<(i64, i64)> = a
        .iter()
        .chain(b)
        .zip(b.iter().chain(a))
        .map(|(x, y)| (*x, *y))
        .collect();
    assert_eq!(got, want, "zip of chains");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn skip_take_and_chain_equal_their_serial_counterparts(
        mut a in proptest::collection::vec(-1000i64..1000, 0..3000),
        b in proptest::collection::vec(-1000i64..1000, 0..3000),
        plant in any::<prop::sample::Index>(),
        cut in 0usize..3500,
        threads in 1usize..=6,
        schedule in schedule_strategy(),
        fork in any::<bool>(),
    ) {
        // A value for `position_first` to find, somewhere in `a` if it has
        // room (also in `b`, by chance, sometimes).
        if !a.is_empty() {
            let at = plant.index(a.len());
            a[at] = 999;
        }
        let before = set_override(if fork { Override::AlwaysFork } else { Override::Adaptive });
        check_all(&a, &b, cut, pool(threads), schedule);
        set_override(before);
    }
}

fn owned(n: usize, drops: &AtomicUsize) -> Vec<Counted<'_>> {
    (0..n).map(|i| Counted(i, drops)).collect()
}

#[test]
fn owned_items_are_dropped_once_through_skip_take_and_chain() {
    for fork in [Override::AlwaysFork, Override::Adaptive] {
        let before = set_override(fork);
        drops_through_skip_take_and_chain();
        set_override(before);
    }
}

fn drops_through_skip_take_and_chain() {
    let pool = pool(3);
    for n in [0usize, 1, 7, 1000, 20_000] {
        for cut in [0, 1, n / 3, n, n + 5] {
            let drops = AtomicUsize::new(0);
            // Consumed whole: the cut-off items are dropped by the adaptors.
            let kept = owned(n, &drops)
                .into_par_iter()
                .with_pool(pool)
                .skip(cut / 2)
                .take(cut)
                .map(|item| item.0)
                .count();
            assert_eq!(kept, n.saturating_sub(cut / 2).min(cut));
            assert_eq!(drops.load(Relaxed), n, "n = {n}, cut = {cut}");

            // Early stop across a chain.
            let drops = AtomicUsize::new(0);
            let found = owned(n, &drops)
                .into_par_iter()
                .with_pool(pool)
                .take(cut)
                .chain(owned(n, &drops))
                .position_any(|item| item.0 == n / 2);
            assert_eq!(found.is_some(), n > 0);
            assert_eq!(
                drops.load(Relaxed),
                2 * n,
                "early stop: n = {n}, cut = {cut}"
            );

            // Never consumed.
            let drops = AtomicUsize::new(0);
            drop(
                owned(n, &drops)
                    .into_par_iter()
                    .skip(cut)
                    .chain(owned(n, &drops).into_par_iter().take(cut)),
            );
            assert_eq!(
                drops.load(Relaxed),
                2 * n,
                "dropped unconsumed: n = {n}, cut = {cut}"
            );

            // A panic.
            if n > 0 {
                let drops = AtomicUsize::new(0);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    owned(n, &drops)
                        .into_par_iter()
                        .with_pool(pool)
                        .skip(cut / 3)
                        .chain(owned(n, &drops))
                        .for_each(|item| assert_ne!(item.0, n - 1, "injected"));
                }));
                assert!(result.is_err());
                assert_eq!(drops.load(Relaxed), 2 * n, "panic: n = {n}, cut = {cut}");
            }
        }
    }
}

/// Panics in `Drop` for item `bad`.
struct Fragile<'a>(usize, usize, &'a AtomicUsize);

impl Drop for Fragile<'_> {
    fn drop(&mut self) {
        self.2.fetch_add(1, Relaxed);
        if self.0 == self.1 {
            panic!("a panicking destructor");
        }
    }
}

#[test]
fn a_panicking_destructor_on_one_side_of_a_chain_or_zip_leaks_nothing_on_the_other() {
    for bad in [0usize, 2, 4] {
        let drops = AtomicUsize::new(0);
        let fragile =
            |n: usize| -> Vec<Fragile<'_>> { (0..n).map(|i| Fragile(i, bad, &drops)).collect() };
        let ok = |n: usize| -> Vec<Fragile<'_>> {
            (0..n).map(|i| Fragile(i, usize::MAX, &drops)).collect()
        };
        // Dropped unconsumed: the first side's destructor panics.
        let chained = fragile(5).into_par_iter().chain(ok(5));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(chained)));
        assert!(result.is_err());
        assert_eq!(drops.swap(0, Relaxed), 10, "chain, bad item {bad}");
        // A zip's longer side's tail, after the other's tail panics.
        let zipped = fragile(5)
            .into_par_iter()
            .skip(3)
            .zip(ok(7).into_par_iter());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(zipped)));
        assert!(result.is_err(), "the panic comes back");
        assert_eq!(drops.swap(0, Relaxed), 12, "zip, bad item {bad}");
    }
}

#[test]
fn a_chain_makes_no_per_range_state_for_a_side_without_positions_in_the_range() {
    let pool = pool(2);
    for fork in [Override::AlwaysFork, Override::NeverFork] {
        let before = set_override(fork);
        let partials: Vec<Vec<u32>> = (0..100u32)
            .into_par_iter()
            .fold(Vec::new, |mut v, x| {
                v.push(x);
                v
            })
            .chain((100..200u32).into_par_iter().fold(Vec::new, |mut v, x| {
                v.push(x);
                v
            }))
            .with_pool(pool)
            .collect();
        set_override(before);
        assert!(
            partials.iter().all(|partial| !partial.is_empty()),
            "{fork:?}: {partials:?}"
        );
        let all: Vec<u32> = partials.into_iter().flatten().collect();
        assert_eq!(all, (0..200).collect::<Vec<_>>());
    }
}

#[test]
fn a_chain_too_long_for_usize_panics_and_drops_both_sides() {
    let drops = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = (0..usize::MAX)
            .into_par_iter()
            .map(|i| Counted(i, &drops))
            .chain(owned(3, &drops));
    }));
    assert!(
        result.is_err(),
        "usize::MAX + 3 positions cannot be indexed"
    );
    assert_eq!(drops.load(Relaxed), 3, "the owned side's items are dropped");
}
