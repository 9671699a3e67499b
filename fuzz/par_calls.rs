//! The parallel-iterator calls of the fuzz program (`program.rs`): each
//! visits positions `0..n` through `visit`, on the pool given either with
//! `with_pool` or through `install`, and checks its own result.
//!
//! Every call but [`ParCall::Any`] and [`ParCall::SkipTake`] visits each
//! position exactly once, like the pool's own calls. `Any` stops early and
//! `SkipTake` cuts positions off: they visit each position at most once. The owned-item calls also count drops: each item is dropped exactly
//! once, whether the call returns, stops early or unwinds from a panic.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use tine::par::Schedule as Plan;
use tine::prelude::*;
use tine::ThreadPool;

/// One parallel-iterator call.
#[derive(Clone, Copy, Debug)]
pub enum ParCall {
    /// `(0..n).into_par_iter().with_pool(pool).schedule(plan).for_each(..)`.
    ForEach(Plan),
    /// `pool.install(|| (0..n).into_par_iter().schedule(plan).map(..).sum())`.
    Sum(Plan),
    /// `map(..).collect::<Vec<_>>()` over a slice, in input order.
    Collect { min_len: usize },
    /// `position_first` of the last position: every position is looked at.
    FindLast(Plan),
    /// Owned items (`Vec::into_par_iter`) and `any` with a hit at `hit`
    /// (mod `n`): stops early, and drops every item once.
    Any { plan: Plan, hit: usize },
    /// Owned items folded per block, then reduced.
    FoldReduce(Plan),
    /// `(0..cut).chain(cut..n)`, collected in order.
    Chain { plan: Plan, cut: usize },
    /// Owned items, `skip(skip).take(n / 2)`, collected; the cut-off items
    /// are dropped unseen.
    SkipTake { plan: Plan, skip: usize },
    /// `partition` into two `Vec`s, in input order.
    Partition(Plan),
    /// `tine::join` halving `0..n` down to `grain` positions, on the pool
    /// through `install`.
    Join { grain: usize },
    /// `pool.scope`, each task halving its range and spawning the halves
    /// down to `grain` positions.
    Scope { grain: usize },
    /// `pool.join` of two parallel-iterator calls, the first with a `join`
    /// inside each item.
    JoinPar(Plan),
    /// The positions, shuffled, sorted back inside `install` by a parallel
    /// sort (`par_sort_by_key` if `stable`, else `par_sort_unstable`), then
    /// visited in sorted order: each exactly once, and in order.
    Sort { stable: bool },
}

impl ParCall {
    /// A call from two bytes.
    pub fn decode(kind: u8, argument: u8) -> Self {
        let plan = match argument % 3 {
            0 => Plan::Static,
            1 => Plan::Dynamic {
                grain: usize::from(argument / 3),
            },
            _ => Plan::Guided {
                min: usize::from(argument / 3),
            },
        };
        match kind % 12 {
            0 => ParCall::ForEach(plan),
            1 => ParCall::Sum(plan),
            2 => ParCall::Collect {
                min_len: usize::from(argument),
            },
            3 => ParCall::FindLast(plan),
            4 => ParCall::Any {
                plan,
                hit: usize::from(argument) * 7,
            },
            5 => ParCall::FoldReduce(plan),
            6 => ParCall::Chain {
                plan,
                cut: usize::from(argument) * 5,
            },
            7 => ParCall::SkipTake {
                plan,
                skip: usize::from(argument) * 9,
            },
            8 => ParCall::Partition(plan),
            9 => ParCall::Join {
                grain: 1 + usize::from(argument % 64),
            },
            10 => ParCall::Scope {
                grain: 1 + usize::from(argument % 64),
            },
            // The top of the argument's range picks the sorts, so that older
            // corpus entries keep their meaning.
            _ if argument >= 240 => ParCall::Sort {
                stable: argument % 2 == 0,
            },
            _ => ParCall::JoinPar(plan),
        }
    }

    /// Whether the call visits every position (no early stop).
    pub fn visits_all(self) -> bool {
        !matches!(self, ParCall::Any { .. } | ParCall::SkipTake { .. })
    }

    /// Makes the call over `0..n`, with `visit(position)` for each
    /// position it looks at, and checks its result.
    pub fn call(self, pool: &ThreadPool, n: usize, visit: &(dyn Fn(usize) + Sync)) {
        let seen = |i: usize| {
            visit(i);
            i
        };
        match self {
            ParCall::Join { grain } => pool.install(|| halves(0, n, grain, visit)),
            ParCall::Scope { grain } => pool.scope(|s| spawn_halves(s, 0, n, grain, visit)),
            ParCall::JoinPar(plan) => {
                let middle = n / 2;
                pool.join(
                    || {
                        (0..middle).into_par_iter().schedule(plan).for_each(|i| {
                            tine::join(|| visit(i), || ());
                        })
                    },
                    || (middle..n).into_par_iter().schedule(plan).for_each(visit),
                );
            }
            ParCall::ForEach(plan) => (0..n)
                .into_par_iter()
                .with_pool(pool)
                .schedule(plan)
                .for_each(visit),
            ParCall::Sum(plan) => {
                let sum: usize =
                    pool.install(|| (0..n).into_par_iter().schedule(plan).map(seen).sum());
                assert_eq!(sum, n * n.saturating_sub(1) / 2, "{self:?}: the sum");
            }
            ParCall::Collect { min_len } => {
                let input: Vec<usize> = (0..n).collect();
                let output: Vec<usize> = input
                    .par_iter()
                    .with_pool(pool)
                    .with_min_len(min_len)
                    .map(|&i| seen(i))
                    .collect();
                assert_eq!(output, input, "{self:?}: collect's order");
            }
            ParCall::FindLast(plan) => {
                let found = (0..n)
                    .into_par_iter()
                    .with_pool(pool)
                    .schedule(plan)
                    .position_first(|i| seen(i) + 1 == n);
                assert_eq!(found, n.checked_sub(1), "{self:?}: the position");
            }
            ParCall::Any { plan, hit } => {
                let hit = hit % n.max(1);
                let drops = Drops::new(n);
                let items = drops.items();
                let found = owned_call(&drops, || {
                    items
                        .into_par_iter()
                        .with_pool(pool)
                        .schedule(plan)
                        .any(|item| seen(item.position) == hit)
                });
                assert_eq!(found, n > 0, "{self:?}: any's answer");
            }
            ParCall::FoldReduce(plan) => {
                let drops = Drops::new(n);
                let items = drops.items();
                let total = owned_call(&drops, || {
                    items
                        .into_par_iter()
                        .with_pool(pool)
                        .schedule(plan)
                        .fold(|| 0usize, |sum, item| sum + seen(item.position))
                        .reduce(|| 0, |a, b| a + b)
                });
                assert_eq!(total, n * n.saturating_sub(1) / 2, "{self:?}: the total");
            }
            ParCall::Chain { plan, cut } => {
                let cut = cut.min(n);
                let all: Vec<usize> = (0..cut)
                    .into_par_iter()
                    .chain(cut..n)
                    .with_pool(pool)
                    .schedule(plan)
                    .map(seen)
                    .collect();
                assert!(all.iter().copied().eq(0..n), "{self:?}: the chained order");
            }
            ParCall::SkipTake { plan, skip } => {
                let skip = skip % (n + 1);
                let drops = Drops::new(n);
                let items = drops.items();
                let kept: Vec<usize> = owned_call(&drops, || {
                    items
                        .into_par_iter()
                        .with_pool(pool)
                        .schedule(plan)
                        .skip(skip)
                        .take(n / 2)
                        .map(|item| seen(item.position))
                        .collect()
                });
                let want = skip..(skip + n / 2).min(n);
                assert!(kept.iter().copied().eq(want), "{self:?}: the items kept");
            }
            ParCall::Sort { stable } => {
                // A permutation of `0..n` (7919 is prime, so coprime with
                // any `n` it does not divide; else the identity).
                let step = if n % 7919 == 0 { 1 } else { 7919 };
                let mut v: Vec<(usize, usize)> =
                    (0..n).map(|i| ((i * step) % n.max(1), i)).collect();
                pool.install(|| {
                    if stable {
                        v.par_sort_by_key(|pair| pair.0);
                    } else {
                        v.par_sort_unstable();
                    }
                });
                for (rank, &(key, _)) in v.iter().enumerate() {
                    assert_eq!(key, rank, "{self:?}: sorted order");
                    visit(key);
                }
            }
            ParCall::Partition(plan) => {
                let (thirds, others): (Vec<usize>, Vec<usize>) = (0..n)
                    .into_par_iter()
                    .with_pool(pool)
                    .schedule(plan)
                    .map(seen)
                    .partition(|i| i % 3 == 0);
                assert!(thirds.iter().copied().eq((0..n).filter(|i| i % 3 == 0)));
                assert!(others.iter().copied().eq((0..n).filter(|i| i % 3 != 0)));
            }
        }
    }
}

/// Runs `call` over owned items; checks, even if it unwinds, that each
/// item was dropped exactly once, then returns or resumes the panic.
fn owned_call<R>(drops: &Drops, call: impl FnOnce() -> R) -> R {
    let result = catch_unwind(AssertUnwindSafe(call));
    drops.check_once();
    result.unwrap_or_else(|panic| resume_unwind(panic))
}

/// Drop counts of the owned items of one call.
struct Drops(Vec<AtomicU8>);

impl Drops {
    fn new(n: usize) -> Self {
        Drops((0..n).map(|_| AtomicU8::new(0)).collect())
    }

    fn items(&self) -> Vec<Item<'_>> {
        (0..self.0.len())
            .map(|position| Item {
                position,
                drops: &self.0[position],
            })
            .collect()
    }

    fn check_once(&self) {
        for (position, drops) in self.0.iter().enumerate() {
            let drops = drops.load(Relaxed);
            assert_eq!(drops, 1, "owned item {position} dropped {drops} times");
        }
    }
}

/// An owned item that counts its drops.
struct Item<'a> {
    position: usize,
    drops: &'a AtomicU8,
}

impl Drop for Item<'_> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Relaxed);
    }
}

/// Visits `begin..end` through nested `join`s, `grain` positions a leaf.
fn halves(begin: usize, end: usize, grain: usize, visit: &(dyn Fn(usize) + Sync)) {
    if end - begin <= grain {
        return (begin..end).for_each(visit);
    }
    let middle = begin + (end - begin) / 2;
    tine::join(
        || halves(begin, middle, grain, visit),
        || halves(middle, end, grain, visit),
    );
}

/// Visits `begin..end` through scope tasks that spawn their halves.
fn spawn_halves<'s>(
    s: &tine::Scope<'s>,
    begin: usize,
    end: usize,
    grain: usize,
    visit: &'s (dyn Fn(usize) + Sync),
) {
    if end - begin <= grain {
        return (begin..end).for_each(visit);
    }
    let middle = begin + (end - begin) / 2;
    s.spawn(move |s| spawn_halves(s, begin, middle, grain, visit));
    s.spawn(move |s| spawn_halves(s, middle, end, grain, visit));
}
