//! Fork-join latency of an empty parallel region: tine against fork_union,
//! rayon and `std::thread::scope`, with a cache-line ping-pong between two
//! threads as the physical floor.
//!
//! ```text
//! cargo run --release -p tine-peers --example latency
//! ```
//!
//! Environment:
//! - `LATENCY_THREADS`: team size, the caller included (default: all CPUs).
//! - `LATENCY_ROUNDS`: calls per sample for every backend but
//!   `std::thread::scope`, which gets `1/100` of it (default: each sample
//!   runs for 60 ms, whatever that many calls is, so the run takes about
//!   15 s).
//! - `LATENCY_SAMPLES`: samples per backend (default 31).
//! - `LATENCY_BACKENDS`: comma-separated subset of `ping-pong,tine,
//!   fork_union,rayon,scope` (default: all, in that order).
//! - `LATENCY_PARK`: `0` keeps idle pools spinning while other backends are
//!   measured (default `1`, see below).
//!
//! Method: every backend is warmed up, then sampled round-robin (sample 1 of
//! every backend, then sample 2, ...) so slow drift hits all alike. A sample
//! is 10 ms of untimed warm-up, then a timed batch of calls; it yields the
//! batch's time divided by its length. The table reports the median and the
//! 10th and 90th percentiles of the samples, and the median batch length.
//!
//! All pools stay alive for the whole run. An idle tine or fork_union worker
//! keeps its core busy (spinning, or for tine yielding to the OS past a
//! budget), which would steal cores from whichever backend is being measured
//! when threads outnumber free cores. So between its own samples each of
//! those two pools is parked: a helper thread forks a region whose threads
//! all block on a condition variable, and the region is released (and the
//! pool warmed up again) right before the pool's next sample. rayon workers
//! go to sleep on their own when idle.

use std::hint::black_box;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `LATENCY_BACKENDS` keys, in the default order.
const BACKENDS: [&str; 5] = ["ping-pong", "tine", "fork_union", "rayon", "scope"];
/// Calls per sample is `ROUNDS / SCOPE_DIVISOR` for `std::thread::scope`.
const SCOPE_DIVISOR: usize = 100;
/// Length of one sample's timed part when `LATENCY_ROUNDS` is not set.
const SAMPLE_TARGET: Duration = Duration::from_millis(60);
/// Work between two clock reads in a timed sample (so reading the clock
/// costs well under 1% of it).
const CHUNK: Duration = Duration::from_micros(10);
/// Length of the initial warm-up of every backend.
const WARMUP: Duration = Duration::from_millis(300);
/// Least warm-up before every sample: covers the threads' wake-up and the
/// scheduler spreading them over the CPUs after the pool is unparked.
const MIN_WARM: Duration = Duration::from_millis(10);

/// Where parked threads wait until their pool's next sample.
struct Gate {
    /// (threads arrived, gate open)
    state: Mutex<(usize, bool)>,
    arrived: Condvar,
    opened: Condvar,
}

impl Gate {
    fn new() -> Self {
        Gate {
            state: Mutex::new((0, false)),
            arrived: Condvar::new(),
            opened: Condvar::new(),
        }
    }

    /// Called by every thread of the parked region: blocks until opened.
    fn enter(&self) {
        let mut state = self.state.lock().unwrap();
        state.0 += 1;
        self.arrived.notify_all();
        while !state.1 {
            state = self.opened.wait(state).unwrap();
        }
    }

    fn wait_for(&self, threads: usize) {
        let mut state = self.state.lock().unwrap();
        while state.0 < threads {
            state = self.arrived.wait(state).unwrap();
        }
    }

    fn open(&self) {
        self.state.lock().unwrap().1 = true;
        self.opened.notify_all();
    }
}

/// A pool parked by a helper thread; joining the helper hands back `T`.
struct Parked<T> {
    gate: Arc<Gate>,
    helper: JoinHandle<T>,
}

impl<T> Parked<T> {
    fn release(self) -> T {
        self.gate.open();
        self.helper.join().expect("parking helper panicked")
    }
}

fn park_tine(pool: &Arc<tine::ThreadPool>) -> Parked<()> {
    let gate = Arc::new(Gate::new());
    let (pool2, gate2) = (Arc::clone(pool), Arc::clone(&gate));
    let helper = std::thread::spawn(move || pool2.for_threads(|_, _| gate2.enter()));
    gate.wait_for(pool.threads());
    Parked { gate, helper }
}

fn park_fork_union(mut pool: fork_union::ThreadPool) -> Parked<fork_union::ThreadPool> {
    let threads = pool.threads();
    let gate = Arc::new(Gate::new());
    let gate2 = Arc::clone(&gate);
    let helper = std::thread::spawn(move || {
        pool.for_threads(|_, _| gate2.enter()).join();
        pool
    });
    gate.wait_for(threads);
    Parked { gate, helper }
}

enum ForkUnion {
    Ready(fork_union::ThreadPool),
    Parked(Parked<fork_union::ThreadPool>),
    Moving,
}

enum Backend {
    PingPong,
    Tine {
        pool: Arc<tine::ThreadPool>,
        parked: Option<Parked<()>>,
    },
    ForkUnion(ForkUnion),
    Rayon(rayon::ThreadPool),
    Scope {
        threads: usize,
    },
}

impl Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::PingPong => "ping-pong (2 threads, floor)",
            Backend::Tine { .. } => "tine `for_threads`",
            Backend::ForkUnion(_) => "fork_union 2.3.1 `for_threads`",
            Backend::Rayon(_) => "rayon `broadcast`",
            Backend::Scope { .. } => "`std::thread::scope` + spawn",
        }
    }

    fn is_scope(&self) -> bool {
        matches!(self, Backend::Scope { .. })
    }

    /// Unparks the pool, takes one sample (see [`timed`]) and parks it again
    /// if `park`. Returns (mean ns per call, calls timed).
    fn sample(&mut self, budget: Budget, park: bool) -> (f64, usize) {
        match self {
            Backend::PingPong => ping_pong(budget),
            Backend::Tine { pool, parked } => {
                if let Some(parked) = parked.take() {
                    parked.release();
                }
                let result = timed(budget, || pool.for_threads(|_, _| {}));
                if park {
                    *parked = Some(park_tine(pool));
                }
                result
            }
            Backend::ForkUnion(state) => {
                let mut pool = match std::mem::replace(state, ForkUnion::Moving) {
                    ForkUnion::Ready(pool) => pool,
                    ForkUnion::Parked(parked) => parked.release(),
                    ForkUnion::Moving => unreachable!(),
                };
                let result = timed(budget, || pool.for_threads(|_, _| {}).join());
                *state = if park {
                    ForkUnion::Parked(park_fork_union(pool))
                } else {
                    ForkUnion::Ready(pool)
                };
                result
            }
            Backend::Rayon(pool) => timed(budget, || {
                black_box(pool.broadcast(|_| {}));
            }),
            Backend::Scope { threads } => {
                let threads = *threads;
                timed(budget, || {
                    std::thread::scope(|s| {
                        for _ in 1..threads {
                            s.spawn(|| black_box(()));
                        }
                    });
                })
            }
        }
    }

    /// Warms up for about `WARMUP`; returns how many calls take about
    /// `CHUNK`, from the fastest of several short samples.
    fn warm_up(&mut self, park: bool) -> usize {
        let mut fastest = f64::MAX;
        let target = WARMUP / 10;
        for _ in 0..10 {
            let (ns, _) = self.sample(Budget::Time { chunk: 1, target }, park);
            fastest = fastest.min(ns);
        }
        (CHUNK.as_nanos() as f64 / fastest).clamp(1.0, 65536.0) as usize
    }
}

/// How long a sample's timed part runs.
#[derive(Clone, Copy)]
enum Budget {
    /// Exactly this many calls.
    Calls(usize),
    /// Batches of `chunk` calls (one clock read per batch) until `target`
    /// has passed.
    Time { chunk: usize, target: Duration },
}

/// Runs `call` for `MIN_WARM` untimed, then times it as `budget` says.
/// Returns (mean ns per call, calls timed).
fn timed(budget: Budget, mut call: impl FnMut()) -> (f64, usize) {
    let start = Instant::now();
    while start.elapsed() < MIN_WARM {
        call();
    }
    let start = Instant::now();
    let calls = match budget {
        Budget::Calls(calls) => {
            for _ in 0..calls {
                call();
            }
            calls
        }
        Budget::Time { chunk, target } => {
            let mut calls = 0;
            while calls == 0 || start.elapsed() < target {
                for _ in 0..chunk {
                    call();
                }
                calls += chunk;
            }
            calls
        }
    };
    let ns = start.elapsed().as_nanos() as f64 / calls as f64;
    (black_box(ns), calls)
}

/// Round trips of a counter between this thread and a partner (see
/// [`tine_peers::with_ping_pong`]); the partner lives for one sample only.
fn ping_pong(budget: Budget) -> (f64, usize) {
    tine_peers::with_ping_pong(|partner| timed(budget, || partner.round_trip()))
}

fn env_usize(name: &str) -> Option<usize> {
    let value = std::env::var(name).ok()?;
    match value.trim().parse() {
        Ok(n) if n > 0 => Some(n),
        _ => panic!("{name}={value:?}: expected a positive integer"),
    }
}

/// Three significant digits for small values, whole numbers for large.
fn short(value: f64) -> String {
    match value.abs() {
        v if v >= 100.0 || v == 0.0 || v.is_nan() => format!("{value:.0}"),
        v if v >= 10.0 => format!("{value:.1}"),
        v if v >= 1.0 => format!("{value:.2}"),
        _ => format!("{value:.3}"),
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = env_usize("LATENCY_THREADS").unwrap_or(cpus);
    let rounds = env_usize("LATENCY_ROUNDS");
    let samples = env_usize("LATENCY_SAMPLES").unwrap_or(31);
    let park = std::env::var("LATENCY_PARK").map_or(true, |v| v.trim() != "0");

    let selected = std::env::var("LATENCY_BACKENDS").unwrap_or_else(|_| BACKENDS.join(","));
    let mut backends = Vec::new();
    for key in selected.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        backends.push(match key {
            "ping-pong" => Backend::PingPong,
            // Park every pool from the start, so that no idle pool spins
            // while another backend warms up.
            "tine" => {
                let pool = Arc::new(tine::ThreadPool::try_spawn(threads).expect("tine pool"));
                let parked = park.then(|| park_tine(&pool));
                Backend::Tine { pool, parked }
            }
            "fork_union" => {
                let pool = fork_union::ThreadPool::try_spawn(threads).expect("fork_union pool");
                Backend::ForkUnion(if park {
                    ForkUnion::Parked(park_fork_union(pool))
                } else {
                    ForkUnion::Ready(pool)
                })
            }
            "rayon" => Backend::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("rayon pool"),
            ),
            "scope" => Backend::Scope { threads },
            _ => panic!("LATENCY_BACKENDS: unknown {key:?}, expected some of {BACKENDS:?}"),
        });
    }

    println!(
        "threads: {threads} (of {cpus} CPUs), samples: {samples}, parking idle pools: {park}, \
         fork_union {:?} capabilities: {}",
        fork_union::version(),
        fork_union::capabilities_string().unwrap_or("?"),
    );

    let budgets: Vec<Budget> = backends
        .iter_mut()
        .map(|backend| {
            let chunk = backend.warm_up(park);
            match rounds {
                Some(r) if backend.is_scope() => Budget::Calls((r / SCOPE_DIVISOR).max(1)),
                Some(r) => Budget::Calls(r),
                None => Budget::Time {
                    chunk,
                    target: SAMPLE_TARGET,
                },
            }
        })
        .collect();

    let start = Instant::now();
    let mut results = vec![Vec::with_capacity(samples); backends.len()];
    let mut calls = vec![Vec::with_capacity(samples); backends.len()];
    for _ in 0..samples {
        for (index, backend) in backends.iter_mut().enumerate() {
            let (ns, n) = backend.sample(budgets[index], park);
            results[index].push(ns);
            calls[index].push(n);
        }
    }
    println!("sampled in {:.1} s", start.elapsed().as_secs_f64());

    for sorted in &mut results {
        sorted.sort_by(f64::total_cmp);
    }
    for sorted in &mut calls {
        sorted.sort_unstable();
    }
    let tine_median = backends
        .iter()
        .position(|b| matches!(b, Backend::Tine { .. }))
        .map_or(f64::NAN, |index| percentile(&results[index], 0.5));

    println!();
    println!("| backend | median ns | p10 ns | p90 ns | ratio vs tine | calls/sample |");
    println!("|---|---:|---:|---:|---:|---:|");
    for ((backend, sorted), n) in backends.iter().zip(&results).zip(&calls) {
        let median = percentile(sorted, 0.5);
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            backend.name(),
            short(median),
            short(percentile(sorted, 0.1)),
            short(percentile(sorted, 0.9)),
            short(median / tine_median) + "x",
            n[n.len() / 2],
        );
    }

    // Release the parked pools before they drop.
    for backend in &mut backends {
        match backend {
            Backend::Tine { parked, .. } => {
                if let Some(parked) = parked.take() {
                    parked.release();
                }
            }
            Backend::ForkUnion(state) => {
                if let ForkUnion::Parked(parked) = std::mem::replace(state, ForkUnion::Moving) {
                    drop(parked.release());
                }
            }
            _ => {}
        }
    }
}
