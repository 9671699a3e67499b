//! Parallel iterators: tine's `par_iter()` against the same loop written
//! serially, with rayon's `par_iter()`, and by hand on fork_union.
//!
//! ```text
//! cargo run --release -p tine-peers --example par
//! PAR_ONLY=sum cargo run --release -p tine-peers --example par
//! PAR_ONLY=sum,dot,scale PAR_SIZES=small cargo run --release -p tine-peers --example par
//! ```
//!
//! Workloads (every backend runs the same expression):
//! - `sum`: `v.iter().sum::<f32>()` for 256 to 8M elements;
//! - `dot`: `a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>()`, 256 to
//!   16K and 1M;
//! - `scale`: `v.iter_mut().for_each(|x| *x *= 1.000001)`, 256 to 16K
//!   and 1M (`PAR_SIZES=small`: only the sizes up to 16K, every workload);
//! - `uneven`: 10k tasks of uneven cost through `map(..).reduce(..)`,
//!   with tine's static, dynamic (grain 16) and guided schedules;
//! - `flat_map`: 10k outer items, each a parallel range of 0..=1000 inner
//!   items (`flat_map(|i| (0..k).into_par_iter().map(..))`), summed and
//!   collected into a `Vec` (serial, tine and rayon only).
//!
//! Backends: `serial`; `tine` (`v.par_iter()...` on a tine pool of its
//! own, installed with `pool.install`: for `sum`, `dot` and `scale` one
//! install around each timed batch of calls, as a program installs a pool
//! once and calls it many times; elsewhere one per call, which costs
//! nothing at those sizes); `tine, install per call` (rows up to 16K of
//! `sum`, `dot` and `scale`: an `install` around every call, as the rayon
//! cell makes one); `rayon` (`pool.install(|| v.par_iter()...)`, called
//! from outside its pool as a program's main thread calls it);
//! `fork_union`: the best hand-written version, `for_slices` with one
//! cache-padded partial per thread, added in thread order
//! (`for_n_dynamic` for `uneven`).
//!
//! The serial and tine cells of `sum`, `dot` and `scale` are timed in
//! turns, one batch of each at a time (of at least 2 ms) after a 1 ms
//! pause, so that a host whose speed changes during the run (a busy SMT
//! sibling doubled the time of the very same serial loop on the AMD
//! guest, from one second to the next) slows them alike. They share one
//! tine pool. The rayon and fork_union cells (and every cell of the other
//! workloads) are timed one after another, in samples of batches of at
//! least 200 µs, and divided by the serial median: on such a host their
//! ratios carry its swings. Each backend gets its own pool, made for it
//! and dropped after it (fork_union's idle workers spin forever and would
//! steal the cores). The table gives the median of `PAR_SAMPLES` samples
//! (default 31) and the time
//! relative to serial. Threads: `TINE_BENCH_THREADS` (default: all CPUs).

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;
use tine::par::Schedule;
use tine::prelude::*;
use tine_peers::timing::{batch, interleaved_medians, Batch, INTERLEAVED_GAP};
use tine_peers::{reduction_input, uneven_task, CachePadded, UNEVEN_TASKS};

/// Rows up to this many elements also time a tine cell that installs its
/// pool around every call ([`PER_CALL`]).
const SMALL: usize = 16 << 10;
/// The name of that cell.
const PER_CALL: &str = "tine, install per call";
/// The warm-up of each cell.
const WARM_UP: Duration = Duration::from_millis(30);

/// The serial loop and tine's, timed in turns (`interleaved_medians`):
/// `serial`, `tine` (`par` called in a batch inside one `pool.install`, as
/// a program calls it), and for rows up to [`SMALL`] elements [`PER_CALL`]
/// (an `install` around each call, as the rayon cell makes one). `state`
/// is what the calls share (the slice `scale` writes).
fn serial_and_tine<T>(
    samples: usize,
    n: usize,
    threads: usize,
    state: &mut T,
    serial: impl Fn(&mut T) + Copy,
    par: impl Fn(&mut T) + Copy,
) -> Vec<(String, f64)> {
    let pool = tine::ThreadPool::try_spawn(threads).unwrap();
    let mut cells: Vec<Batch<'_, T>> = vec![
        batch(serial),
        Box::new(|state: &mut T, calls| {
            pool.install(|| {
                for _ in 0..calls {
                    par(state);
                }
            })
        }),
    ];
    let mut names = vec!["serial", "tine"];
    if n <= SMALL {
        cells.push(batch(|state| pool.install(|| par(state))));
        names.push(PER_CALL);
    }
    let times = interleaved_medians(samples, WARM_UP, INTERLEAVED_GAP, state, &mut cells);
    names.into_iter().map(String::from).zip(times).collect()
}

/// Median seconds per call of `call` (`tine_peers::timing`).
fn measure(samples: usize, call: impl FnMut()) -> f64 {
    tine_peers::timing::median_seconds(samples, WARM_UP, call)
}

fn show(seconds: f64) -> String {
    match seconds {
        s if s >= 1e-3 => format!("{:.2} ms", s * 1e3),
        s if s >= 1e-6 => format!("{:.2} µs", s * 1e6),
        s => format!("{:.0} ns", s * 1e9),
    }
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool")
}

/// fork_union's best hand-written reduction: one share per thread into a
/// cache-padded partial, added in thread order.
fn fork_union_sum(
    pool: &mut fork_union::ThreadPool,
    partials: &[CachePadded<AtomicU32>],
    n: usize,
    share: impl Fn(usize, usize) -> f32 + Sync,
) -> f32 {
    pool.for_slices(n, |prong, count| {
        let sum = share(prong.task_index, prong.task_index + count);
        partials[prong.thread_index]
            .0
            .store(sum.to_bits(), Ordering::Relaxed);
    });
    partials
        .iter()
        .map(|partial| f32::from_bits(partial.0.swap(0, Ordering::Relaxed)))
        .sum()
}

struct Row {
    workload: String,
    cells: Vec<(String, f64)>,
}

fn main() {
    let threads = tine_peers::threads();
    let samples: usize = std::env::var("PAR_SAMPLES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(31)
        .max(1);
    let only = std::env::var("PAR_ONLY").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|only| only.split(',').any(|one| name.starts_with(one)))
    };
    println!("{threads} threads, {samples} samples per cell; time vs serial (below 1x: faster than serial)\n");
    let partials: Vec<CachePadded<AtomicU32>> =
        (0..threads).map(|_| CachePadded::default()).collect();
    let mut rows = Vec::new();

    // Calls of up to 16K elements must stay within 1.10x of serial, so
    // sum, dot and scale all run them (`PAR_SIZES=small` keeps only those).
    let sizes: &[usize] = match std::env::var("PAR_SIZES").as_deref() {
        Ok("small") => &[256, 1536, 16 << 10],
        _ => &[256, 1536, 16 << 10, 128 << 10, 1 << 20, 8 << 20],
    };
    let small_and_1m: Vec<usize> = sizes
        .iter()
        .copied()
        .filter(|&n| n <= 16 << 10 || n == 1 << 20)
        .collect();

    if wanted("sum") {
        for &n in sizes {
            let data = reduction_input(n);
            let expected: f32 = data.iter().sum();
            let check =
                |got: f32| assert!(tine_peers::sums_agree(got, expected), "{got} vs {expected}");
            let mut cells = serial_and_tine(
                samples,
                n,
                threads,
                &mut (),
                |_| check(black_box(&data).iter().sum()),
                |_| check(black_box(&data).par_iter().sum()),
            );
            let pool = rayon_pool(threads);
            cells.push((
                "rayon".into(),
                measure(samples, || {
                    // rayon's traits by path: the prelude in scope is tine's.
                    pool.install(|| {
                        check(rayon::prelude::ParallelIterator::sum(
                            rayon::prelude::IntoParallelRefIterator::par_iter(black_box(&data)),
                        ))
                    })
                }),
            ));
            drop(pool);
            let mut pool = fork_union::ThreadPool::try_spawn(threads).unwrap();
            let data = &data;
            cells.push((
                "fork_union".into(),
                measure(samples, || {
                    check(fork_union_sum(&mut pool, &partials, n, |b, e| {
                        data[b..e].iter().sum()
                    }))
                }),
            ));
            drop(pool);
            rows.push(Row {
                workload: format!("sum, {n} f32"),
                cells,
            });
        }
    }

    if wanted("dot") {
        for &n in &small_and_1m {
            let (a, b) = (reduction_input(n), reduction_input(n + 7)[7..].to_vec());
            let dot = |a: &[f32], b: &[f32]| -> f32 { a.iter().zip(b).map(|(x, y)| x * y).sum() };
            let expected = dot(&a, &b);
            let check =
                |got: f32| assert!(tine_peers::sums_agree(got, expected), "{got} vs {expected}");
            let par_dot = || -> f32 { black_box(&a).par_iter().zip(&b).map(|(x, y)| x * y).sum() };
            let mut cells = serial_and_tine(
                samples,
                n,
                threads,
                &mut (),
                |_| check(dot(black_box(&a), &b)),
                |_| check(par_dot()),
            );
            let pool = rayon_pool(threads);
            cells.push((
                "rayon".into(),
                measure(samples, || {
                    pool.install(|| {
                        let got: f32 = rayon::prelude::ParallelIterator::sum(
                            rayon::prelude::ParallelIterator::map(
                                rayon::prelude::IndexedParallelIterator::zip(
                                    rayon::prelude::IntoParallelRefIterator::par_iter(black_box(
                                        &a,
                                    )),
                                    &b,
                                ),
                                |(x, y)| x * y,
                            ),
                        );
                        check(got)
                    })
                }),
            ));
            drop(pool);
            let mut pool = fork_union::ThreadPool::try_spawn(threads).unwrap();
            let (a, b) = (&a, &b);
            cells.push((
                "fork_union".into(),
                measure(samples, || {
                    check(fork_union_sum(&mut pool, &partials, n, |s, e| {
                        dot(&a[s..e], &b[s..e])
                    }))
                }),
            ));
            drop(pool);
            rows.push(Row {
                workload: format!("dot, {n} f32"),
                cells,
            });
        }
    }

    if wanted("scale") {
        for &n in &small_and_1m {
            let mut data = reduction_input(n);
            let mut cells = serial_and_tine(
                samples,
                n,
                threads,
                &mut data,
                |data| black_box(data).iter_mut().for_each(|x| *x *= 1.000_001),
                |data| black_box(data).par_iter_mut().for_each(|x| *x *= 1.000_001),
            );
            let pool = rayon_pool(threads);
            cells.push((
                "rayon".into(),
                measure(samples, || {
                    pool.install(|| {
                        rayon::prelude::ParallelIterator::for_each(
                            rayon::prelude::IntoParallelRefMutIterator::par_iter_mut(black_box(
                                &mut data,
                            )),
                            |x| *x *= 1.000_001,
                        )
                    })
                }),
            ));
            drop(pool);
            let mut pool = fork_union::ThreadPool::try_spawn(threads).unwrap();
            let base = tine_peers::SendPtr(data.as_mut_ptr());
            cells.push((
                "fork_union".into(),
                measure(samples, || {
                    let base = &base;
                    pool.for_slices(n, |prong, count| {
                        // SAFETY: each thread gets a disjoint range of `data`,
                        // which outlives the call.
                        let mine = unsafe {
                            std::slice::from_raw_parts_mut(base.0.add(prong.task_index), count)
                        };
                        mine.iter_mut().for_each(|x| *x *= 1.000_001);
                    });
                }),
            ));
            drop(pool);
            rows.push(Row {
                workload: format!("scale, {n} f32 in place"),
                cells,
            });
        }
    }

    if wanted("uneven") {
        let n = UNEVEN_TASKS;
        let expected = tine_peers::uneven_checksum(n);
        let check = |got: u64| assert_eq!(got, expected);
        let task = |i: usize| uneven_task(i, n);
        let mut cells = Vec::new();
        cells.push((
            "serial".into(),
            measure(samples, || {
                check((0..n).map(task).fold(0, u64::wrapping_add))
            }),
        ));
        let pool = tine::ThreadPool::try_spawn(threads).unwrap();
        for (name, schedule) in [
            ("tine static", Schedule::Static),
            ("tine dynamic 16", Schedule::Dynamic { grain: 16 }),
            ("tine guided 4", Schedule::Guided { min: 4 }),
        ] {
            cells.push((
                name.into(),
                measure(samples, || {
                    pool.install(|| {
                        check(
                            (0..n)
                                .into_par_iter()
                                .schedule(schedule)
                                .map(task)
                                .reduce(|| 0, u64::wrapping_add),
                        )
                    })
                }),
            ));
        }
        drop(pool);
        let pool = rayon_pool(threads);
        cells.push((
            "rayon".into(),
            measure(samples, || {
                pool.install(|| {
                    check(rayon::prelude::ParallelIterator::reduce(
                        rayon::prelude::ParallelIterator::map(
                            rayon::prelude::IntoParallelIterator::into_par_iter(0..n),
                            task,
                        ),
                        || 0,
                        u64::wrapping_add,
                    ))
                })
            }),
        ));
        drop(pool);
        let mut pool = fork_union::ThreadPool::try_spawn(threads).unwrap();
        let sums: Vec<CachePadded<AtomicU64>> =
            (0..threads).map(|_| CachePadded::default()).collect();
        cells.push((
            "fork_union dynamic".into(),
            measure(samples, || {
                pool.for_n_dynamic(n, |prong| {
                    let slot = &sums[prong.thread_index].0;
                    slot.store(
                        slot.load(Ordering::Relaxed)
                            .wrapping_add(task(prong.task_index)),
                        Ordering::Relaxed,
                    );
                });
                check(
                    sums.iter()
                        .fold(0, |acc, s| acc.wrapping_add(s.0.swap(0, Ordering::Relaxed))),
                );
            }),
        ));
        drop(pool);
        rows.push(Row {
            workload: format!("uneven, {n} tasks"),
            cells,
        });
    }

    if wanted("flat_map") {
        let (sum, len) = tine_peers::flat_map::serial(true);
        for collect in [false, true] {
            let want = (sum, if collect { len } else { 0 });
            let check = |got: (u64, usize)| assert_eq!(got, want);
            let mut cells = Vec::new();
            cells.push((
                "serial".into(),
                measure(samples, || check(tine_peers::flat_map::serial(collect))),
            ));
            let pool = tine::ThreadPool::try_spawn(threads).unwrap();
            cells.push((
                "tine".into(),
                measure(samples, || {
                    pool.install(|| check(tine_peers::flat_map::tine(collect)))
                }),
            ));
            drop(pool);
            let pool = rayon_pool(threads);
            cells.push((
                "rayon".into(),
                measure(samples, || {
                    pool.install(|| check(tine_peers::flat_map::rayon(collect)))
                }),
            ));
            drop(pool);
            let consumer = if collect { "collect" } else { "sum" };
            rows.push(Row {
                workload: format!(
                    "flat_map {consumer}, {} outer items of 0..=1000 parallel inner items",
                    tine_peers::flat_map::OUTER
                ),
                cells,
            });
        }
    }

    for row in rows {
        println!("### {}\n", row.workload);
        println!("| backend | median | vs serial |");
        println!("|---|---:|---:|");
        let serial = row.cells[0].1;
        for (name, seconds) in &row.cells {
            println!("| {name} | {} | {:.2}x |", show(*seconds), seconds / serial);
        }
        println!();
    }
}
