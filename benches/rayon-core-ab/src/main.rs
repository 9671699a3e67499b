//! Join-heavy and iterator workloads in the shape of rayon's demos, written
//! against rayon's API only: built once on rayon-core and once on tine's
//! rayon-core/ (the `[patch]` line), and run in turns by
//! `scripts/rayon-core-ab.sh`. Prints one line per workload: its name and
//! the median of `AB_SAMPLES` timed runs, in microseconds.

use rayon::prelude::*;
use std::time::Instant;

fn fib(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_serial(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

fn quick_sort<T: PartialOrd + Send>(v: &mut [T]) {
    if v.len() <= 1 {
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    rayon::join(|| quick_sort(lo), || quick_sort(hi));
}

fn partition<T: PartialOrd + Send>(v: &mut [T]) -> usize {
    let pivot = v.len() - 1;
    let mut i = 0;
    for j in 0..pivot {
        if v[j] <= v[pivot] {
            v.swap(i, j);
            i += 1;
        }
    }
    v.swap(i, pivot);
    i
}

fn merge_sort(v: &mut [u32], buf: &mut [u32]) {
    if v.len() <= 1 {
        return;
    }
    let mid = v.len() / 2;
    {
        let (lo, hi) = v.split_at_mut(mid);
        let (blo, bhi) = buf.split_at_mut(mid);
        rayon::join(|| merge_sort(lo, blo), || merge_sort(hi, bhi));
    }
    let (mut i, mut j) = (0, mid);
    for slot in buf.iter_mut() {
        if j >= v.len() || (i < mid && v[i] <= v[j]) {
            *slot = v[i];
            i += 1;
        } else {
            *slot = v[j];
            j += 1;
        }
    }
    v.copy_from_slice(buf);
}

struct Tree {
    value: u64,
    children: Option<Box<(Tree, Tree)>>,
}

fn build(depth: u32, value: u64) -> Tree {
    Tree {
        value,
        children: (depth > 0)
            .then(|| Box::new((build(depth - 1, 2 * value), build(depth - 1, 2 * value + 1)))),
    }
}

fn tree_sum(tree: &Tree) -> u64 {
    match &tree.children {
        None => tree.value,
        Some(children) => {
            let (a, b) = rayon::join(|| tree_sum(&children.0), || tree_sum(&children.1));
            tree.value + a + b
        }
    }
}

fn tree_sum_serial(tree: &Tree) -> u64 {
    match &tree.children {
        None => tree.value,
        Some(children) => tree.value + tree_sum_serial(&children.0) + tree_sum_serial(&children.1),
    }
}

fn lcg(seed: &mut u64) -> u32 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*seed >> 33) as u32
}

fn median_us(samples: usize, mut run: impl FnMut()) -> f64 {
    run(); // warm-up
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[times.len() / 2]
}

/// The process's CPU time so far (user and system), from `getrusage`.
fn cpu_time() -> std::time::Duration {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed value we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    std::time::Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

/// The process's CPU-seconds per wall-second while `run` runs.
fn cpu_per_second(run: impl FnOnce()) -> f64 {
    let (cpu, wall) = (cpu_time(), Instant::now());
    run();
    (cpu_time() - cpu).as_secs_f64() / wall.elapsed().as_secs_f64()
}

/// `clients` threads send requests to the global pool for `seconds`, each
/// a `par_iter().map().sum()` over the client's own 256K `f64`: requests
/// a second, and the 99th percentile of their latency in microseconds.
fn server(clients: usize, seconds: f64) -> (f64, f64) {
    let deadline = Instant::now() + std::time::Duration::from_secs_f64(seconds);
    let latencies: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|client| {
                scope.spawn(move || {
                    let data: Vec<f64> = (0..1 << 18).map(|i| (i + client) as f64).collect();
                    let mut latencies = Vec::new();
                    while Instant::now() < deadline {
                        let start = Instant::now();
                        let sum: f64 = data.par_iter().map(|x| x * 1.5).sum();
                        assert!(sum > 0.0);
                        latencies.push(start.elapsed().as_secs_f64() * 1e6);
                    }
                    latencies
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<f64> = latencies.into_iter().flatten().collect();
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p99 = all[(all.len() * 99 / 100).min(all.len() - 1)];
    (all.len() as f64 / seconds, p99)
}

fn main() {
    let samples: usize = std::env::var("AB_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    let only = std::env::var("AB_ONLY").ok();
    let want = |name: &str| {
        only.as_deref()
            .is_none_or(|only| only.split(',').any(|o| o == name))
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut seed = 42u64;
    let data: Vec<u32> = (0..1 << 20).map(|_| lcg(&mut seed)).collect();
    // The 4M-node tree only for the rows that walk it, so that a profile
    // of the other rows does not show its building and freeing.
    let tree = if ["tree", "tree-serial", "tree-1thread"]
        .iter()
        .any(|row| want(row))
    {
        build(22, 1)
    } else {
        build(0, 1)
    };
    let floats: Vec<f64> = (0..1 << 20).map(|i| i as f64).collect();

    if only.as_deref() == Some("probe") {
        // Whether the two sides of a join from outside the pool run on two
        // threads (each side waits long enough for a thief to come).
        let spread = (0..20)
            .filter(|_| {
                let side = || {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    std::thread::current().id()
                };
                let (a, b) = rayon::join(side, side);
                a != b
            })
            .count();
        println!(
            "probe: {spread} of 20 joins ran on two threads; {} threads",
            rayon::current_num_threads()
        );
        return;
    }
    let report = |name: &str, us: f64| println!("{name} {us:.1}");
    if want("fib30-serial") {
        report(
            "fib30-serial",
            median_us(samples, || assert!(fib_serial(30) > 0)),
        );
    }
    if want("fib30-1thread") {
        report(
            "fib30-1thread",
            median_us(samples, || assert!(one.install(|| fib(30)) > 0)),
        );
    }
    if want("fib30") {
        report("fib30", median_us(samples, || assert!(fib(30) > 0)));
    }
    if want("quicksort") {
        report(
            "quicksort",
            median_us(samples, || {
                let mut v = data.clone();
                quick_sort(&mut v);
            }),
        );
    }
    if want("mergesort") {
        report(
            "mergesort",
            median_us(samples, || {
                let mut v = data.clone();
                let mut buf = vec![0; v.len()];
                merge_sort(&mut v, &mut buf);
            }),
        );
    }
    if want("par_sort") {
        report(
            "par_sort",
            median_us(samples, || {
                let mut v = data.clone();
                v.par_sort();
            }),
        );
    }
    if want("tree") {
        report("tree", median_us(samples, || assert!(tree_sum(&tree) > 0)));
    }
    if want("tree-serial") {
        report(
            "tree-serial",
            median_us(samples, || assert!(tree_sum_serial(&tree) > 0)),
        );
    }
    if want("tree-1thread") {
        report(
            "tree-1thread",
            median_us(samples, || assert!(one.install(|| tree_sum(&tree)) > 0)),
        );
    }
    if want("joins") {
        // 100,000 empty joins from inside the pool: the join's own cost.
        report(
            "joins",
            median_us(samples, || {
                rayon::scope(|_| {
                    for _ in 0..100_000 {
                        std::hint::black_box(rayon::join(|| 1, || 2));
                    }
                })
            }),
        );
    }
    if want("calls") {
        // 1,000 empty joins from outside the pool: a call's round trip.
        report(
            "calls",
            median_us(samples, || {
                for _ in 0..1000 {
                    std::hint::black_box(rayon::join(|| 1, || 2));
                }
            }),
        );
    }
    if want("calls-work") {
        // 200 joins from outside the pool, one call each, whose first side
        // walks 100K `usize` serially (tens of µs): a call's round trip
        // with work in it.
        let mut big = vec![0usize; 100 * 1024];
        report(
            "calls-work",
            median_us(samples, || {
                for _ in 0..200 {
                    rayon::join(
                        || big.iter_mut().for_each(|p| *p = p.wrapping_add(1)),
                        || (),
                    );
                }
            }),
        );
    }
    if want("calls-split") {
        // 200 calls from outside the pool, each a parallel loop over 100K
        // `usize` in two halves of 50K (rayon-demo's `increment_all_min`):
        // a call's round trip with both threads working.
        let mut big = vec![0usize; 100 * 1024];
        let half = big.len() / 2;
        report(
            "calls-split",
            median_us(samples, || {
                for _ in 0..200 {
                    big.par_iter_mut()
                        .with_min_len(half)
                        .for_each(|p| *p = p.wrapping_add(1));
                }
            }),
        );
    }
    if want("server8") {
        // 8 clients of the global pool for 2 s: requests a second (higher
        // is better) and the 99th percentile of their latency in µs.
        let (rate, p99) = server(8, 2.0);
        report("server8-rps", rate);
        report("server8-p99", p99);
    }
    if want("energy") {
        // CPU-seconds per wall-second, in thousandths: a join whose stolen
        // half sleeps for a second while its first half returns at once;
        // one empty spawn a millisecond for a second; a second idle.
        rayon::join(|| (), || ());
        let join = cpu_per_second(|| {
            let started = std::sync::atomic::AtomicBool::new(false);
            rayon::join(
                // Returns once the other half has started elsewhere: its
                // thread then waits for that half.
                || {
                    while !started.load(std::sync::atomic::Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                },
                || {
                    started.store(true, std::sync::atomic::Ordering::Release);
                    std::thread::sleep(std::time::Duration::from_secs(1));
                },
            );
        });
        let spawns = cpu_per_second(|| {
            for _ in 0..1000 {
                rayon::spawn(|| ());
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        let idle = cpu_per_second(|| std::thread::sleep(std::time::Duration::from_secs(1)));
        report("energy-join", join * 1000.0);
        report("energy-spawn", spawns * 1000.0);
        report("energy-idle", idle * 1000.0);
    }
    if want("factorial") {
        report(
            "factorial",
            median_us(samples, || {
                let product = (1..200_000u64)
                    .into_par_iter()
                    .map(|x| x | 1)
                    .reduce(|| 1u64, |a, b| a.wrapping_mul(b));
                assert!(product != 0);
            }),
        );
    }
    if want("sum") {
        report(
            "sum",
            median_us(samples, || {
                assert!(floats.par_iter().map(|x| x * 1.5).sum::<f64>() > 0.0);
            }),
        );
    }
}
