//! The `par_sort*` methods of `ParallelSliceMut` against `slice::sort*`:
//! random lengths up to 20,000 (past the 4,096-element serial leaf, so the
//! parallel splits and merges run), duplicate-heavy keys, stability on
//! `(key, original index)`, every element dropped exactly once, comparators
//! and key functions that panic at a random call, and comparators that
//! answer at random. Every case runs either on the caller or inside
//! `install` on a 3-thread pool.
#![cfg(not(loom))]

use proptest::prelude::*;
use std::cmp::Ordering;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;
use tine::prelude::*;
use tine::ThreadPool;

/// What the comparator and the key function do.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Compare keys.
    Keys,
    /// Panic on call `k` (counting comparisons and key calls), else
    /// compare keys.
    PanicAt(usize),
    /// Answer at random: consistent for a pair of elements but not a
    /// total order; keys change from call to call.
    Random(u64),
}

/// The state an element's comparisons consult, and its drop counters.
struct Ctx {
    mode: Mode,
    calls: AtomicUsize,
    drops: Vec<AtomicUsize>,
}

/// An owned element: its key, its position in the input, and its context.
struct Item<'a> {
    key: u32,
    id: u32,
    ctx: &'a Ctx,
}

impl Drop for Item<'_> {
    fn drop(&mut self) {
        self.ctx.drops[self.id as usize].fetch_add(1, Relaxed);
    }
}

fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Ctx {
    fn new(mode: Mode, len: usize) -> Ctx {
        let drops = (0..len).map(|_| AtomicUsize::new(0)).collect();
        Ctx {
            mode,
            calls: AtomicUsize::new(0),
            drops,
        }
    }

    fn count_call(&self) -> usize {
        let n = self.calls.fetch_add(1, Relaxed);
        if let Mode::PanicAt(k) = self.mode {
            if n == k {
                panic!("deliberate panic at call {k}");
            }
        }
        n
    }

    fn compare(&self, a: &Item, b: &Item) -> Ordering {
        self.count_call();
        match self.mode {
            Mode::Random(seed) => match mix(seed ^ (u64::from(a.id) << 32) ^ u64::from(b.id)) % 3 {
                0 => Ordering::Less,
                1 => Ordering::Equal,
                _ => Ordering::Greater,
            },
            _ => a.key.cmp(&b.key),
        }
    }

    fn key(&self, a: &Item) -> u32 {
        let n = self.count_call();
        match self.mode {
            Mode::Random(seed) => mix(seed ^ n as u64) as u32 % 7,
            _ => a.key,
        }
    }
}

impl PartialEq for Item<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Item<'_> {}

impl PartialOrd for Item<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Item<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.ctx.compare(self, other)
    }
}

const METHODS: [&str; 7] = [
    "par_sort",
    "par_sort_by",
    "par_sort_by_key",
    "par_sort_by_cached_key",
    "par_sort_unstable",
    "par_sort_unstable_by",
    "par_sort_unstable_by_key",
];

fn is_stable(method: usize) -> bool {
    method < 4
}

fn par(method: usize, v: &mut [Item]) {
    match method {
        0 => v.par_sort(),
        1 => v.par_sort_by(|a, b| a.ctx.compare(a, b)),
        2 => v.par_sort_by_key(|a| a.ctx.key(a)),
        3 => v.par_sort_by_cached_key(|a| a.ctx.key(a)),
        4 => v.par_sort_unstable(),
        5 => v.par_sort_unstable_by(|a, b| a.ctx.compare(a, b)),
        _ => v.par_sort_unstable_by_key(|a| a.ctx.key(a)),
    }
}

fn serial(method: usize, v: &mut [Item]) {
    match method {
        0 => v.sort(),
        1 => v.sort_by(|a, b| a.ctx.compare(a, b)),
        2 => v.sort_by_key(|a| a.ctx.key(a)),
        3 => v.sort_by_cached_key(|a| a.ctx.key(a)),
        4 => v.sort_unstable(),
        5 => v.sort_unstable_by(|a, b| a.ctx.compare(a, b)),
        _ => v.sort_unstable_by_key(|a| a.ctx.key(a)),
    }
}

fn pool3() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| ThreadPool::try_spawn(3).unwrap())
}

/// `len` keys below `modulus` (few distinct keys when it is small).
fn keys(len: usize, modulus: u32, seed: u64) -> Vec<u32> {
    (0..len as u64)
        .map(|i| (mix(seed ^ i) % u64::from(modulus)) as u32)
        .collect()
}

fn items<'a>(keys: &[u32], ctx: &'a Ctx) -> Vec<Item<'a>> {
    keys.iter()
        .enumerate()
        .map(|(id, &key)| Item {
            key,
            id: id as u32,
            ctx,
        })
        .collect()
}

/// Sorts with `method` (in the 3-thread pool if `in_pool`), catching a
/// panic; checks that the slice holds every input element once, then that
/// dropping it drops each exactly once. Returns `(key, id)` in the order
/// the sort left, and whether it panicked.
fn sort_and_check(
    method: usize,
    keys: &[u32],
    mode: Mode,
    in_pool: bool,
) -> (Vec<(u32, u32)>, bool) {
    let ctx = Ctx::new(mode, keys.len());
    let mut v = items(keys, &ctx);
    let result = catch_unwind(AssertUnwindSafe(|| {
        if in_pool {
            pool3().install(|| par(method, &mut v));
        } else {
            par(method, &mut v);
        }
    }));
    let order: Vec<(u32, u32)> = v.iter().map(|x| (x.key, x.id)).collect();
    let mut ids: Vec<u32> = order.iter().map(|p| p.1).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..keys.len() as u32),
        "{}: not a permutation",
        METHODS[method]
    );
    assert!(
        ctx.drops.iter().all(|d| d.load(Relaxed) == 0),
        "{}: dropped during the sort",
        METHODS[method]
    );
    drop(v);
    assert!(
        ctx.drops.iter().all(|d| d.load(Relaxed) == 1),
        "{}: not dropped exactly once",
        METHODS[method]
    );
    (order, result.is_err())
}

/// What `slice::sort*` gives for the same method and keys.
fn expected(method: usize, keys: &[u32]) -> Vec<(u32, u32)> {
    let ctx = Ctx::new(Mode::Keys, keys.len());
    let mut v = items(keys, &ctx);
    serial(method, &mut v);
    v.iter().map(|x| (x.key, x.id)).collect()
}

fn check_matches_std(method: usize, keys: &[u32], in_pool: bool) {
    let (got, panicked) = sort_and_check(method, keys, Mode::Keys, in_pool);
    assert!(!panicked);
    let want = expected(method, keys);
    if is_stable(method) {
        // Equal keys keep their input order: the (key, id) sequences agree.
        assert_eq!(got, want, "{}", METHODS[method]);
    } else {
        let key_order = |v: &[(u32, u32)]| v.iter().map(|p| p.0).collect::<Vec<_>>();
        assert_eq!(key_order(&got), key_order(&want), "{}", METHODS[method]);
    }
}

fn modulus() -> impl Strategy<Value = u32> {
    prop_oneof![Just(1u32), Just(2), Just(16), Just(1000), Just(u32::MAX)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_method_matches_std(
        method in 0usize..7,
        len in 0usize..20_000,
        modulus in modulus(),
        seed: u64,
        in_pool: bool,
    ) {
        check_matches_std(method, &keys(len, modulus, seed), in_pool);
    }

    #[test]
    fn a_panic_at_any_call_leaves_a_permutation(
        method in 0usize..7,
        len in 0usize..20_000,
        modulus in modulus(),
        seed: u64,
        k in 0usize..400_000,
        in_pool: bool,
    ) {
        let keys = keys(len, modulus, seed);
        let (_, panicked) = sort_and_check(method, &keys, Mode::PanicAt(k), in_pool);
        // Whether call `k` happens depends on how many calls the sort
        // makes; call 0 always happens on two or more elements, and then
        // the panic must reach the caller.
        if k == 0 && len >= 2 {
            prop_assert!(panicked, "{}: the panic was lost", METHODS[method]);
        }
    }

    #[test]
    fn a_random_comparator_never_loses_or_duplicates(
        method in 0usize..7,
        len in 0usize..20_000,
        seed: u64,
        in_pool: bool,
    ) {
        // It may panic (std's sorts may detect a bad order); either way
        // `sort_and_check` checks the permutation and the drops.
        sort_and_check(method, &keys(len, 1000, seed), Mode::Random(seed), in_pool);
    }
}

/// Sorted, reversed, equal, sawtooth and organ-pipe inputs of 50,000: the
/// patterns that make a naive quicksort quadratic.
#[test]
fn patterns() {
    let n = 50_000u32;
    let patterns: [Vec<u32>; 5] = [
        (0..n).collect(),
        (0..n).rev().collect(),
        vec![7; n as usize],
        (0..n).map(|i| i % 97).collect(),
        (0..n).map(|i| i.min(n - i)).collect(),
    ];
    for keys in &patterns {
        for method in 0..7 {
            check_matches_std(method, keys, method % 2 == 0);
        }
    }
}

/// The forms the docs show, on plain values, in and out of a pool.
#[test]
fn plain_values() {
    let mut v: Vec<u64> = (0..30_000u64).map(|i| mix(i) % 5_000).collect();
    let mut want = v.clone();
    want.sort_unstable();
    let mut a = v.clone();
    a.par_sort_unstable();
    assert_eq!(a, want);
    pool3().install(|| v.par_sort());
    assert_eq!(v, want);

    let mut strings: Vec<String> = (0..10_000u64).map(|i| (mix(i) % 777).to_string()).collect();
    let mut want = strings.clone();
    want.sort_by_cached_key(|s| s.len());
    pool3().install(|| strings.par_sort_by_cached_key(|s| s.len()));
    assert_eq!(strings, want);

    let mut empty: [u8; 0] = [];
    empty.par_sort();
    empty.par_sort_unstable();
    let mut one = [1];
    one.par_sort_by_cached_key(|x| *x);
    assert_eq!(one, [1]);
}

/// A panic payload whose `Drop` panics (when not already unwinding).
struct PanickyPayload;

impl Drop for PanickyPayload {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("a panic payload's drop panicked");
        }
    }
}

/// Comparators on both sides of a merge panic with payloads whose `Drop`
/// panics: the stable sort drops the losing ones only after every element
/// is back in the slice, so the slice still holds each string once (a
/// stale copy would be freed twice, which Miri and ASan report, and which
/// the comparison below sees as a lost or doubled string).
#[test]
fn losing_payloads_that_panic_when_dropped_leave_every_element_in_place() {
    let len = 20_000;
    let original: Vec<String> = (0..len as u64).map(|i| format!("{:x}", mix(i))).collect();
    for calls_before_panic in [0, 100, 5_000] {
        let mut v = original.clone();
        let calls = AtomicUsize::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool3().install(|| {
                v.par_sort_by(|a, b| {
                    if calls.fetch_add(1, Relaxed) >= calls_before_panic {
                        std::panic::panic_any(PanickyPayload);
                    }
                    a.cmp(b)
                })
            })
        }));
        let payload = result.expect_err("the comparator panicked");
        assert!(payload.is::<PanickyPayload>());
        // Its `Drop` would panic: the test forgets it.
        std::mem::forget(payload);
        let mut got = v.clone();
        got.sort_unstable();
        let mut want = original.clone();
        want.sort_unstable();
        assert!(
            got == want,
            "after a panic at call {calls_before_panic}, the strings changed"
        );
    }
}
