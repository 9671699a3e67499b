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
//!   `std::thread::scope`, which gets `1/100` of it (default: calibrated so
//!   that each sample takes about 60 ms and the run about 15 s).
//! - `LATENCY_SAMPLES`: samples per backend (default 31).
//! - `LATENCY_PARK`: `0` keeps idle pools spinning while other backends are
//!   measured (default `1`, see below).
//!
//! Method: every backend is warmed up, then sampled round-robin (sample 1 of
//! every backend, then sample 2, ...) so slow drift hits all alike. A sample
//! is the time of a batch of calls divided by its length; the table reports
//! the median and the 10th and 90th percentiles of the samples.
//!
//! All pools stay alive for the whole run. An idle tine or fork_union worker
//! keeps its core busy (spinning, or for tine yielding to the OS past a
//! budget), which would steal cores from whichever backend is being measured
//! when threads outnumber free cores. So between its own samples each of
//! those two pools is parked: a helper thread forks a region whose threads
//! all block on a condition variable, and the region is released (and the
//! pool warmed up again) right before the pool's next sample. rayon workers
//! go to sleep on their own when idle.

use std::hint::{black_box, spin_loop};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Calls per sample is `ROUNDS / SCOPE_DIVISOR` for `std::thread::scope`.
const SCOPE_DIVISOR: usize = 100;
/// Target length of one sample when `LATENCY_ROUNDS` is not set.
const SAMPLE_TARGET: Duration = Duration::from_millis(60);
/// Length of the initial warm-up (and calibration) of every backend.
const WARMUP: Duration = Duration::from_millis(300);
/// Least warm-up before every sample, after the pool is unparked.
const MIN_WARM: Duration = Duration::from_millis(1);

/// An atomic alone on its cache line (128 bytes covers adjacent-line
/// prefetching on x86 and the 128-byte lines of some Arm cores).
#[repr(align(128))]
struct Padded(AtomicUsize);

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

    /// Runs `warm` untimed calls, then returns the mean ns of `calls` more.
    fn sample(&mut self, warm: usize, calls: usize, park: bool) -> f64 {
        let ns = match self {
            Backend::PingPong => ping_pong(warm, calls),
            Backend::Tine { pool, parked } => {
                if let Some(parked) = parked.take() {
                    parked.release();
                }
                let ns = timed(warm, calls, || pool.for_threads(|_, _| {}));
                if park {
                    *parked = Some(park_tine(pool));
                }
                ns
            }
            Backend::ForkUnion(state) => {
                let mut pool = match std::mem::replace(state, ForkUnion::Moving) {
                    ForkUnion::Ready(pool) => pool,
                    ForkUnion::Parked(parked) => parked.release(),
                    ForkUnion::Moving => unreachable!(),
                };
                let ns = timed(warm, calls, || pool.for_threads(|_, _| {}).join());
                *state = if park {
                    ForkUnion::Parked(park_fork_union(pool))
                } else {
                    ForkUnion::Ready(pool)
                };
                ns
            }
            Backend::Rayon(pool) => timed(warm, calls, || {
                black_box(pool.broadcast(|_| {}));
            }),
            Backend::Scope { threads } => {
                let threads = *threads;
                timed(warm, calls, || {
                    std::thread::scope(|s| {
                        for _ in 1..threads {
                            s.spawn(|| black_box(()));
                        }
                    });
                })
            }
        };
        black_box(ns)
    }

    /// Warms up for about `WARMUP`; returns the calls per sample that make
    /// a sample last about `SAMPLE_TARGET`.
    fn warm_up(&mut self, park: bool) -> usize {
        let (mut calls, mut total_ns) = (0, 0.0);
        let mut batch = 1_usize;
        let start = Instant::now();
        while start.elapsed() < WARMUP {
            let ns = self.sample(batch / 8, batch, park);
            calls += batch;
            total_ns += ns * batch as f64;
            let left = WARMUP.saturating_sub(start.elapsed()).as_nanos() as f64;
            batch = (2.0 * batch as f64).min(left / ns).max(1.0) as usize;
        }
        (SAMPLE_TARGET.as_nanos() as f64 * calls as f64 / total_ns).max(1.0) as usize
    }
}

/// Runs `call` at least `warm` times and for at least `MIN_WARM`, then
/// returns the mean ns of `calls` more.
fn timed(warm: usize, calls: usize, mut call: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut done = 0;
    while done < warm || start.elapsed() < MIN_WARM {
        call();
        done += 1;
    }
    let start = Instant::now();
    for _ in 0..calls {
        call();
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// Round trips of a value between this thread and a partner through two
/// cache-padded atomics; the partner lives for one sample only.
fn ping_pong(warm: usize, calls: usize) -> f64 {
    let ping = Padded(AtomicUsize::new(0));
    let pong = Padded(AtomicUsize::new(0));
    let total = warm + calls;
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 1..=total {
                while ping.0.load(Ordering::Acquire) != i {
                    spin_loop();
                }
                pong.0.store(i, Ordering::Release);
            }
        });
        let round_trip = |i: usize| {
            ping.0.store(i, Ordering::Release);
            while pong.0.load(Ordering::Acquire) != i {
                spin_loop();
            }
        };
        for i in 1..=warm {
            round_trip(i);
        }
        let start = Instant::now();
        for i in warm + 1..=total {
            round_trip(i);
        }
        start.elapsed().as_nanos() as f64 / calls as f64
    })
}

fn env_usize(name: &str) -> Option<usize> {
    let value = std::env::var(name).ok()?;
    match value.trim().parse() {
        Ok(n) if n > 0 => Some(n),
        _ => panic!("{name}={value:?}: expected a positive integer"),
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

    let tine_pool = tine::ThreadPool::try_spawn(threads).expect("tine pool");
    let fu_pool = fork_union::ThreadPool::try_spawn(threads).expect("fork_union pool");
    let rayon_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");

    println!(
        "threads: {threads} (of {cpus} CPUs), samples: {samples}, parking idle pools: {park}, \
         fork_union {:?} capabilities: {}",
        fork_union::version(),
        fork_union::capabilities_string().unwrap_or("?"),
    );

    let mut backends = [
        Backend::PingPong,
        Backend::Tine {
            pool: Arc::new(tine_pool),
            parked: None,
        },
        Backend::ForkUnion(ForkUnion::Ready(fu_pool)),
        Backend::Rayon(rayon_pool),
        Backend::Scope { threads },
    ];

    let calls: Vec<usize> = backends
        .iter_mut()
        .map(|backend| {
            let calibrated = backend.warm_up(park);
            match rounds {
                Some(r) if backend.is_scope() => (r / SCOPE_DIVISOR).max(1),
                Some(r) => r,
                None => calibrated,
            }
        })
        .collect();

    let start = Instant::now();
    let mut results = vec![Vec::with_capacity(samples); backends.len()];
    for _ in 0..samples {
        for (index, backend) in backends.iter_mut().enumerate() {
            let n = calls[index];
            results[index].push(backend.sample((n / 8).max(1), n, park));
        }
    }
    println!("sampled in {:.1} s", start.elapsed().as_secs_f64());

    for sorted in &mut results {
        sorted.sort_by(f64::total_cmp);
    }
    let tine_median = percentile(&results[1], 0.5);

    println!();
    println!("| backend | median ns | p10 ns | p90 ns | ratio vs tine | calls/sample |");
    println!("|---|---:|---:|---:|---:|---:|");
    for ((backend, sorted), n) in backends.iter().zip(&results).zip(&calls) {
        let median = percentile(sorted, 0.5);
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.2}x | {} |",
            backend.name(),
            median,
            percentile(sorted, 0.1),
            percentile(sorted, 0.9),
            median / tine_median,
            n,
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
