//! Every workload on every backend, in one criterion run.
//!
//! ```text
//! cargo bench -p tine-peers                     # everything, a few minutes
//! cargo bench -p tine-peers -- reduce_1536      # one group (a regex)
//! cargo bench -p tine-peers -- --test           # every bench once (CI smoke)
//! TINE_BENCH_THREADS=4 cargo bench -p tine-peers
//! ```
//!
//! Groups (the thread count is in the name, `..._2t` for 2 threads):
//! - `empty_fork_join`: an empty parallel region on all threads (tine and
//!   fork_union `for_threads`, rayon `broadcast`, a chili `join` tree, one
//!   `std::thread::scope` spawn per worker), beside `ping_pong_floor`: one
//!   cache-line round trip between two threads, the physical floor.
//! - `reduce_1536`, `reduce_1M`: the sum of 1536 (ParallelReductionsBenchmark's
//!   size, as fork_union's blog quotes it) and 1,000,000 `f32`, one
//!   cache-padded partial per thread. Throughput is in bytes.
//! - `uneven_10k`: 10,000 tasks whose cost ramps up with a random jitter,
//!   dynamic schedule.
//! - `nbody_128`: one step of tine's N-body example with 128 bodies.
//!
//! Every backend's pool is made inside its own bench and dropped at its end:
//! idle fork_union workers spin forever and would slow whatever runs next.

use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tine_peers::nbody::physics::{initial_bodies, step, Serial, Vec3};
use tine_peers::{Backend, NBODY_BACKENDS};

/// Times `iters` calls of `call`, run through [`tine_peers::Team::enter`]
/// (on one of rayon's workers for `rayon_in_pool`, here otherwise).
fn timed(
    team: &mut tine_peers::Team<'_>,
    iters: u64,
    mut call: impl FnMut(&mut tine_peers::Team<'_>) + Send,
) -> Duration {
    team.enter(move |team| {
        let start = Instant::now();
        for _ in 0..iters {
            call(team);
        }
        start.elapsed()
    })
}

/// Every backend that forks (all but serial).
fn parallel_backends() -> impl Iterator<Item = Backend> {
    Backend::ALL.into_iter().filter(|b| *b != Backend::Serial)
}

fn empty_fork_join(c: &mut Criterion, threads: usize) {
    let mut group = c.benchmark_group(format!("empty_fork_join_{threads}t"));
    group.bench_function("ping_pong_floor", |b| {
        b.iter_custom(|iters| {
            tine_peers::with_ping_pong(|partner| {
                // Until the scheduler has put the partner on another core:
                // a fresh thread may start on this one.
                let warm = Instant::now();
                while warm.elapsed() < Duration::from_millis(10) {
                    partner.round_trip();
                }
                let start = Instant::now();
                for _ in 0..iters {
                    partner.round_trip();
                }
                start.elapsed()
            })
        });
    });
    for backend in parallel_backends() {
        backend.with_team(threads, |team| {
            group.bench_function(backend.name(), |b| {
                b.iter_custom(|iters| timed(team, iters, |team| team.broadcast(|_| {})));
            });
        });
    }
    group.finish();
}

fn reduce(c: &mut Criterion, threads: usize, count: usize, label: &str) {
    let data = tine_peers::reduction_input(count);
    let expected = tine_peers::sum_f32(&data);
    let mut group = c.benchmark_group(format!("reduce_{label}_{threads}t"));
    group.throughput(Throughput::Bytes(std::mem::size_of_val(&data[..]) as u64));
    for backend in Backend::ALL {
        backend.with_team(threads, |team| {
            let sum = team.reduce(&data);
            assert!(
                tine_peers::sums_agree(sum, expected),
                "{backend:?}: {sum} vs {expected}"
            );
            group.bench_function(backend.name(), |b| {
                b.iter_custom(|iters| {
                    timed(team, iters, |team| {
                        black_box(team.reduce(black_box(&data)));
                    })
                });
            });
        });
    }
    group.finish();
}

fn uneven(c: &mut Criterion, threads: usize) {
    let n = tine_peers::UNEVEN_TASKS;
    let expected = tine_peers::uneven_checksum(n);
    let results: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let mut group = c.benchmark_group(format!("uneven_10k_{threads}t"));
    for backend in Backend::ALL {
        backend.with_team(threads, |team| {
            results.iter().for_each(|r| r.store(0, Ordering::Relaxed));
            team.uneven(&results);
            assert_eq!(tine_peers::checksum(&results), expected, "{backend:?}");
            group.bench_function(backend.name(), |b| {
                b.iter_custom(|iters| timed(team, iters, |team| team.uneven(&results)));
            });
        });
    }
    group.finish();
}

fn nbody(c: &mut Criterion, threads: usize) {
    const BODIES: usize = 128;
    let mut accelerations = vec![Vec3::default(); BODIES];
    let mut expected = initial_bodies(BODIES);
    step(&mut Serial, &mut expected, &mut accelerations);
    let mut group = c.benchmark_group(format!("nbody_{BODIES}_{threads}t"));
    for name in NBODY_BACKENDS {
        let (backend, schedule) = tine_peers::nbody_backend(name).expect("known backend");
        backend.with_team(threads, |team| {
            let mut bodies = initial_bodies(BODIES);
            step(&mut team.passes(schedule), &mut bodies, &mut accelerations);
            assert!(bodies == expected, "{name}: a step differs from serial's");
            group.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    timed(team, iters, |team| {
                        step(&mut team.passes(schedule), &mut bodies, &mut accelerations);
                    })
                });
            });
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .configure_from_args();
    let threads = tine_peers::threads();
    eprintln!(
        "tine-peers: {threads} threads (TINE_BENCH_THREADS overrides), {} CPUs, fork_union {:?}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        fork_union::version(),
    );
    empty_fork_join(&mut c, threads);
    reduce(&mut c, threads, 1536, "1536");
    reduce(&mut c, threads, 1_000_000, "1M");
    uneven(&mut c, threads);
    nbody(&mut c, threads);
    c.final_summary();
}
