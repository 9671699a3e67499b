//! Nested fork-join: `join` at every level of a recursion, and parallel
//! sort, against serial code, rayon and chili (the Rust port of Spice,
//! heartbeat scheduling).
//!
//! ```text
//! cargo run --release -p tine-peers --example nested
//! NESTED_ONLY=tree,fib cargo run --release -p tine-peers --example nested
//! ```
//!
//! Workloads:
//! - `tree`: the sum of a balanced binary tree of boxed nodes (chili's own
//!   benchmark), 1,023 and 16,777,215 nodes, a `join` at every node. The
//!   big tree comes in two memory layouts, because at that size the layout
//!   decides the time: children allocated before their parent (chili's
//!   benchmark; a walk that takes the right child first reads it in
//!   address order, and chili's `join` runs its second closure first), and
//!   parents before their children (a walk that takes the left child
//!   first, as `join`'s callers write it, reads it in address order). Both
//!   big rows also time the serial walk right child first, and every tree
//!   row the serial walk written as a `join` call site is (its second
//!   closure lendable), tine on a 1-thread pool (half its time: a reference
//!   for any split on 2 threads), and the two subtrees walked on two
//!   threads of `std::thread::scope`, serially and by the lendable walk
//!   (no `join` at all: on the big trees, near the memory's bound for any
//!   2-thread walk);
//! - `fib`: `fib(30)` with a `join` at every level, no manual cutoff, on 1
//!   thread and on all of them, and serially with both calls made (the
//!   plain serial `fib` compiles its second call into a loop) and with its
//!   second closure lendable;
//! - `quicksort`, `mergesort`: rayon-demo-style recursive sorts of random
//!   `u32`, written once over a `join` function (serial below 1,000 items);
//! - `sort`: `par_sort_unstable` and `par_sort` of random `u64`, and of
//!   `(u32, String)` pairs, against the serial `sort_unstable`/`sort`.
//!
//! One example, so that every backend runs in one process and one run
//! (about 540 lines: a row per workload, the peers' `join` wrappers).
//!
//! Each backend runs in its own pool of `TINE_BENCH_THREADS` threads
//! (default: all CPUs), made for it; rayon's and tine's are entered from
//! outside with `install`, as a program's main thread enters them. A cell is
//! the median of `NESTED_SAMPLES` samples (default 11); the table gives it
//! and its ratio to serial. The `tree` and `fib` rows take their samples in
//! turns (one batch of at least 2 ms of each cell, then backwards, each
//! after a 1 ms pause in which the previous cell's spinning threads park),
//! so that the host's changes of speed are spread over every cell; the
//! recursive sorts time one cell after the other, batches of at least
//! 200 µs. The `sort` rows take at most 5 samples of one sort each, in
//! turns (serial, tine, rayon, then backwards). `NESTED_SCALE` (default 1)
//! divides the big sizes, for a quick run.

use std::hint::black_box;
use std::time::Duration;
use tine::prelude::*;
use tine_peers::recursion::{fib_serial, tree_sum_serial, Node};
use tine_peers::recursions;
use tine_peers::timing::{
    batch, interleaved_medians, median_seconds, sorts_in_turns, Batch, SortCall, INTERLEAVED_GAP,
};

/// The serial tree sum, right child first (the order chili's `join` runs
/// its closures in when no thread steals).
fn tree_sum_right_first(node: &Node) -> u64 {
    let right = node.right.as_deref().map_or(0, tree_sum_right_first);
    let left = node.left.as_deref().map_or(0, tree_sum_right_first);
    node.value + left + right
}

/// The tree sum with its two subtrees walked serially on two threads of
/// `std::thread::scope`, spawned per call: a split with no `join` at all.
/// On the big trees, whose walks wait on memory, its time bounds what any
/// 2-thread walk can reach on the host.
fn tree_sum_scope_halves(node: &Node) -> u64 {
    scope_halves(node, tree_sum_serial)
}

/// The two halves of [`tree_sum_scope_halves`], each walked by `walk`.
fn scope_halves(node: &Node, walk: fn(&Node) -> u64) -> u64 {
    let (left, right) = std::thread::scope(|scope| {
        let right = scope.spawn(|| node.right.as_deref().map_or(0, walk));
        let left = node.left.as_deref().map_or(0, walk);
        (left, right.join().expect("the right half's walk"))
    });
    node.value + left + right
}

/// One `join` implementation: what the recursive sorts are written over.
trait Join: Sync {
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send;
}

struct Serial;
impl Join for Serial {
    #[inline]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        (a(), b())
    }
}

struct Tine;
impl Join for Tine {
    #[inline]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        tine::join(a, b)
    }
}

struct Rayon;
impl Join for Rayon {
    #[inline]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(a, b)
    }
}

/// `fib` making both of its calls, as every `join` must (its second
/// closure may run on another thread): `fib_serial` compiles to one call
/// per level and a loop for `fib(n - 2)`, which no `join` can match. The
/// second call goes through a function pointer the compiler cannot see
/// through, so it stays a call.
fn fib_both_calls(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let opaque: fn(u32) -> u64 = black_box(fib_both_calls);
    fib_both_calls(n - 1) + opaque(n - 2)
}

/// `fib` written as a `join` call site is, with no pool: both closures
/// borrow `n`, and the second one's address escapes on a path never taken,
/// as it does where a `join` offers it to another thread. So `n` is kept in
/// memory, and neither call becomes a loop: a reference for a `join` whose
/// second closure may run elsewhere.
fn fib_lendable(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let a = || fib_lendable(n - 1);
    let b = || fib_lendable(n - 2);
    if black_box(false) {
        black_box(&b);
    }
    a() + b()
}

/// The tree sum written as a `join` call site is, with no pool: as
/// [`fib_lendable`], both closures borrow `node`, and the second one's
/// address escapes on a path never taken.
fn tree_sum_lendable(node: &Node) -> u64 {
    let a = || node.left.as_deref().map_or(0, tree_sum_lendable);
    let b = || node.right.as_deref().map_or(0, tree_sum_lendable);
    if black_box(false) {
        black_box(&b);
    }
    let (left, right) = (a(), b());
    node.value + left + right
}

recursions!(fib_tine, tree_sum_tine, tine::join);
recursions!(fib_rayon, tree_sum_rayon, rayon::join);

/// chili passes its scope down explicitly.
fn tree_sum_chili(scope: &mut chili::Scope<'_>, node: &Node) -> u64 {
    let (left, right) = scope.join(
        |s| node.left.as_deref().map_or(0, |n| tree_sum_chili(s, n)),
        |s| node.right.as_deref().map_or(0, |n| tree_sum_chili(s, n)),
    );
    node.value + left + right
}

fn fib_chili(scope: &mut chili::Scope<'_>, n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = scope.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

/// Below this many items the recursive sorts call the serial sort.
const SORT_LEAF: usize = 1_000;

/// rayon-demo's quicksort: partition around the last item, recurse on both
/// sides in parallel.
fn quicksort<J: Join, T: Ord + Send>(j: &J, v: &mut [T]) {
    if v.len() <= SORT_LEAF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    j.join(|| quicksort(j, lo), || quicksort(j, &mut hi[1..]));
}

fn partition<T: Ord>(v: &mut [T]) -> usize {
    let pivot = v.len() - 1;
    v.swap(v.len() / 2, pivot);
    let mut store = 0;
    for i in 0..pivot {
        if v[i] <= v[pivot] {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, pivot);
    store
}

/// rayon-demo's mergesort: sort the halves in parallel into `buf`, merge.
fn mergesort<J: Join, T: Ord + Copy + Send + Sync>(j: &J, v: &mut [T], buf: &mut [T]) {
    if v.len() <= SORT_LEAF {
        v.sort();
        return;
    }
    let mid = v.len() / 2;
    {
        let (lo, hi) = v.split_at_mut(mid);
        let (blo, bhi) = buf.split_at_mut(mid);
        j.join(|| mergesort(j, lo, blo), || mergesort(j, hi, bhi));
    }
    buf.copy_from_slice(v);
    let (lo, hi) = buf.split_at(mid);
    let (mut i, mut k) = (0, 0);
    for out in v.iter_mut() {
        if k >= hi.len() || (i < lo.len() && lo[i] <= hi[k]) {
            *out = lo[i];
            i += 1;
        } else {
            *out = hi[k];
            k += 1;
        }
    }
}

/// Random numbers from a fixed seed (xorshift).
fn random_u64s(n: usize, mut seed: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        })
        .collect()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.trim()
                .parse()
                .unwrap_or_else(|_| panic!("{name}: a positive integer"))
        })
        .unwrap_or(default)
}

fn show(seconds: f64) -> String {
    match seconds {
        s if s >= 1e-3 => format!("{:.2} ms", s * 1e3),
        s if s >= 1e-6 => format!("{:.2} µs", s * 1e6),
        s => format!("{:.0} ns", s * 1e9),
    }
}

/// One table row: a workload's serial time and every backend's.
struct Row {
    name: String,
    cells: Vec<(&'static str, f64)>,
}

impl Row {
    fn print(&self) {
        let serial = self.cells[0].1;
        let cells: Vec<String> = self
            .cells
            .iter()
            .map(|(backend, s)| format!("{backend} {} ({:.2}x)", show(*s), s / serial))
            .collect();
        println!("| {} | {} |", self.name, cells.join(" | "));
    }
}

/// How long each cell runs before its samples, sizing its batch.
const WARM: Duration = Duration::from_millis(100);

/// A row whose cells are timed in turns (`interleaved_medians`), so that a
/// change of the host's speed during the row slows every cell alike and the
/// ratios stay comparable.
fn in_turns(name: String, samples: usize, cells: Vec<(&'static str, Batch<'_, ()>)>) -> Row {
    let (names, mut batches): (Vec<_>, Vec<_>) = cells.into_iter().unzip();
    let times = interleaved_medians(samples, WARM, INTERLEAVED_GAP, &mut (), &mut batches);
    Row {
        name,
        cells: names.into_iter().zip(times).collect(),
    }
}

fn main() {
    let threads = tine_peers::threads();
    let samples = env_usize("NESTED_SAMPLES", 11);
    let scale = env_usize("NESTED_SCALE", 1).max(1);
    let only = std::env::var("NESTED_ONLY").unwrap_or_default();
    let wanted = |name: &str| only.is_empty() || only.split(',').any(|w| w.trim() == name);
    let time = |call: &mut dyn FnMut()| median_seconds(samples, WARM, call);

    let tine_pool = tine::ThreadPool::try_spawn(threads).expect("tine pool");
    let tine_one = tine::ThreadPool::try_spawn(1).expect("tine pool of 1");
    let rayon_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");
    let chili_pool = chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZeroUsize::new(threads),
        ..Default::default()
    });
    println!("threads: {threads}, samples: {samples}, scale: 1/{scale}");
    println!("| workload | cells (time per call, ratio to serial) |");
    println!("|---|---|");

    if wanted("tree") {
        for (levels, parents_first) in [(10u32, false), (24, false), (24, true)] {
            let levels = if levels > 10 && scale > 1 {
                levels - scale.ilog2().min(levels - 11)
            } else {
                levels
            };
            let tree = if parents_first {
                Node::tree_parents_first(levels)
            } else {
                Node::tree(levels)
            }
            .expect("a tree");
            let expected = tree_sum_serial(&tree);
            let big = levels > 10;
            let layout = match (big, parents_first) {
                (false, _) => "",
                (true, false) => ", children allocated first",
                (true, true) => ", parents allocated first",
            };
            let tree = &tree;
            let mut cells: Vec<(&'static str, Batch<'_, ()>)> = vec![(
                "serial",
                batch(|_| {
                    black_box(tree_sum_serial(black_box(tree)));
                }),
            )];
            if big {
                cells.push((
                    "serial, right child first",
                    batch(|_| assert_eq!(tree_sum_right_first(black_box(tree)), expected)),
                ));
            }
            cells.push((
                "serial, second call lendable",
                batch(|_| assert_eq!(tree_sum_lendable(black_box(tree)), expected)),
            ));
            // Half the 1-thread join's time: a reference for any split of
            // this walk on 2 threads (see BENCHMARKS, "The big tree's floor").
            cells.push((
                "tine 1 thread",
                batch(|_| {
                    let got = tine_one.install(|| tree_sum_tine(black_box(tree)));
                    assert_eq!(got, expected);
                }),
            ));
            cells.push((
                "tine",
                batch(|_| {
                    let got = tine_pool.install(|| tree_sum_tine(black_box(tree)));
                    assert_eq!(got, expected);
                }),
            ));
            cells.push((
                "std::thread::scope, two halves",
                batch(|_| assert_eq!(tree_sum_scope_halves(black_box(tree)), expected)),
            ));
            // The two halves walked by the lendable recursion: a reference
            // for a `join`'s 2-thread walk.
            cells.push((
                "two lendable halves",
                batch(|_| {
                    let got = scope_halves(black_box(tree), tree_sum_lendable);
                    assert_eq!(got, expected);
                }),
            ));
            cells.push((
                "rayon",
                batch(|_| {
                    let got = rayon_pool.install(|| tree_sum_rayon(black_box(tree)));
                    assert_eq!(got, expected);
                }),
            ));
            cells.push((
                "chili",
                batch(|_| {
                    let got = tree_sum_chili(&mut chili_pool.scope(), black_box(tree));
                    assert_eq!(got, expected);
                }),
            ));
            let name = format!("tree sum, {} nodes{layout}", (1u64 << levels) - 1);
            in_turns(name, samples, cells).print();
        }
    }

    if wanted("fib") {
        let n = 30;
        let expected = fib_serial(n);
        let cells: Vec<(&'static str, Batch<'_, ()>)> = vec![
            (
                "serial",
                batch(|_| {
                    black_box(fib_serial(black_box(n)));
                }),
            ),
            (
                "serial, both calls made",
                batch(|_| {
                    black_box(fib_both_calls(black_box(n)));
                }),
            ),
            (
                "serial, second call lendable",
                batch(|_| {
                    black_box(fib_lendable(black_box(n)));
                }),
            ),
            (
                "tine 1 thread",
                batch(|_| assert_eq!(tine_one.install(|| fib_tine(black_box(n))), expected)),
            ),
            (
                "tine",
                batch(|_| assert_eq!(tine_pool.install(|| fib_tine(black_box(n))), expected)),
            ),
            (
                "rayon",
                batch(|_| assert_eq!(rayon_pool.install(|| fib_rayon(black_box(n))), expected)),
            ),
            (
                "chili",
                batch(|_| {
                    assert_eq!(fib_chili(&mut chili_pool.scope(), black_box(n)), expected);
                }),
            ),
        ];
        in_turns(format!("fib({n}), a join at every level"), samples, cells).print();
    }

    let sizes = [1_000_000 / scale, 10_000_000 / scale];
    if wanted("quicksort") || wanted("mergesort") {
        for n in sizes {
            let input: Vec<u32> = random_u64s(n, 7).into_iter().map(|x| x as u32).collect();
            let mut sorted = input.clone();
            sorted.sort_unstable();
            let check = |v: &[u32]| assert!(v == &sorted[..]);
            if wanted("quicksort") {
                let mut row = Row {
                    name: format!("quicksort, {n} u32"),
                    cells: Vec::new(),
                };
                let mut v = input.clone();
                let mut run = |backend: &'static str, sort: &dyn Fn(&mut [u32])| {
                    row.cells.push((
                        backend,
                        time(&mut || {
                            v.copy_from_slice(&input);
                            sort(&mut v);
                        }),
                    ));
                    check(&v);
                };
                run("serial", &|v| quicksort(&Serial, v));
                run("tine", &|v| tine_pool.install(|| quicksort(&Tine, v)));
                run("rayon", &|v| rayon_pool.install(|| quicksort(&Rayon, v)));
                row.print();
            }
            if wanted("mergesort") {
                let mut row = Row {
                    name: format!("mergesort, {n} u32"),
                    cells: Vec::new(),
                };
                let mut v = input.clone();
                let mut buf = vec![0u32; n];
                let mut run = |backend: &'static str, sort: &dyn Fn(&mut [u32], &mut [u32])| {
                    row.cells.push((
                        backend,
                        time(&mut || {
                            v.copy_from_slice(&input);
                            sort(&mut v, &mut buf);
                        }),
                    ));
                    check(&v);
                };
                run("serial", &|v, b| mergesort(&Serial, v, b));
                run("tine", &|v, b| tine_pool.install(|| mergesort(&Tine, v, b)));
                run("rayon", &|v, b| {
                    rayon_pool.install(|| mergesort(&Rayon, v, b))
                });
                row.print();
            }
        }
    }

    if wanted("sort") {
        let n = 10_000_000 / scale;
        let input = random_u64s(n, 11);
        let pairs: Vec<(u32, String)> = input
            .iter()
            .map(|&x| ((x >> 40) as u32 % 1000, format!("{:x}", x & 0xffff)))
            .collect();
        let sort_samples = samples.min(5);
        sort_rows(
            sort_samples,
            &tine_pool,
            &rayon_pool,
            &input,
            &format!("{n} u64"),
        );
        sort_rows(
            sort_samples,
            &tine_pool,
            &rayon_pool,
            &pairs,
            &format!("{n} (u32, String)"),
        );
    }
}

/// The `par_sort_unstable` and `par_sort` rows for one input.
fn sort_rows<T: Ord + Clone + Send + Sync>(
    samples: usize,
    tine_pool: &tine::ThreadPool,
    rayon_pool: &rayon::ThreadPool,
    input: &[T],
    what: &str,
) {
    let mut expected = input.to_vec();
    expected.sort();
    for stable in [false, true] {
        let name = if stable {
            "par_sort"
        } else {
            "par_sort_unstable"
        };
        let sorts: [SortCall<'_, T>; 3] = if stable {
            [
                &|v| v.sort(),
                &|v| tine_pool.install(|| v.par_sort()),
                &|v| rayon_pool.install(|| rayon::slice::ParallelSliceMut::par_sort(&mut v[..])),
            ]
        } else {
            [
                &|v| v.sort_unstable(),
                &|v| tine_pool.install(|| v.par_sort_unstable()),
                &|v| {
                    rayon_pool
                        .install(|| rayon::slice::ParallelSliceMut::par_sort_unstable(&mut v[..]))
                },
            ]
        };
        let times = sorts_in_turns(samples, input, &expected, &sorts);
        let row = Row {
            name: format!("{name}, {what}"),
            cells: ["serial", "tine", "rayon"].into_iter().zip(times).collect(),
        };
        row.print();
    }
}
