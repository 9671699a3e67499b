//! What waiting costs: wake-up latency after an idle spell, CPU burnt by an
//! idle pool, empty fork-join with more threads than cores, and empty
//! fork-join beside a CPU-bound process. tine against fork_union 2.3.1,
//! rayon, OpenMP (libgomp) and `std::thread::scope`.
//!
//! ```text
//! cargo run --release -p tine-peers --example waiting
//! ```
//!
//! Every (measurement, backend) pair runs in a fresh child process, so that
//! one backend's idle workers cannot steal CPU from another's measurement or
//! show up in its CPU time. Environment:
//! - `WAITING_THREADS`: threads for the wake-up and idle measurements
//!   (default 2).
//! - `WAITING_OVERSUBSCRIBED`: threads for the oversubscribed fork-join
//!   (default 8).
//! - `WAITING_SAMPLES`: samples per measurement (default 41).
//! - `WAITING_ONLY`: run one measurement only: `wake`, `idle`,
//!   `sporadic`, `oversubscribed` or `contended`.
//! - `WAITING_CONTENDED_SAMPLES`: samples of the contended measurement
//!   (default 201).
//! - `WAITING_CONTENDED_BATCH`: make each contended sample a batch of this
//!   many forks instead of a 5 ms window. A batch weighs every placement by
//!   the forks it lets through, not by the time it lasts, so a backend whose
//!   threads stall for milliseconds in some placement shows its fast
//!   placement as the median.
//! - `WAITING_BACKENDS`: comma-separated subset of `tine,fork_union,rayon,
//!   openmp,scope` (default: all, in that order; ratios are against the
//!   first).
//!
//! OpenMP runs with libgomp's defaults: this example neither sets nor reads
//! `OMP_WAIT_POLICY` or `GOMP_SPINCOUNT`, so leave them unset for the
//! comparison the tables are meant to show (libgomp then spins up to 300,000
//! iterations before sleeping, far fewer when threads outnumber CPUs).
//!
//! Measurements, each reported as the median over samples with p10, p90 and
//! the mean:
//! - `wake after 10 ms idle`: sleep 10 ms, then time one empty fork-join.
//! - `CPU per idle second`: after 1000 forks, the process CPU time over one
//!   second of idling (one sample; ms of CPU per s).
//! - `CPU per second, a spawn every 1 ms`: rayon's `noop` demo, one empty
//!   job spawned on a pool in rayon's model after each 1 ms sleep, for one
//!   second after a warm-up second (one sample; ms of CPU per s). tine and
//!   rayon only: the others have no detached spawn.
//! - `oversubscribed fork-join`: mean of a batch of empty fork-joins with
//!   `WAITING_OVERSUBSCRIBED` threads.
//! - `contended fork-join`: mean of the empty fork-joins run back to back in
//!   a 5 ms window, with `WAITING_THREADS` threads, while one CPU-bound
//!   process (`sh -c 'while :; do :; done'`) runs beside them. The measuring child starts that process
//!   before building its pool and kills it when done, on a panic too (a drop
//!   guard), and the busy process is also told by the kernel to die with the
//!   child (`PR_SET_PDEATHSIG`) should the child be killed outright.

use std::process::Command;
use std::time::{Duration, Instant};

const BACKENDS: [&str; 5] = ["tine", "fork_union", "rayon", "openmp", "scope"];

/// One sample of the contended measurement: forks run back to back for this
/// long. Samples are windows of time, not batches of a fixed count, so that
/// each state the scheduler puts the threads in (the busy process sharing a
/// CPU with the caller, with the worker, or the two sharing one CPU) weighs
/// in the median as long as it lasts, however many forks it lets through.
const CONTENDED_WINDOW: Duration = Duration::from_millis(5);

/// A pool of any backend, driven through one empty fork-join.
// One per measuring process: boxing tine's pool would only add an
// indirection to the measured calls.
#[allow(clippy::large_enum_variant)]
enum Pool {
    Tine(tine::ThreadPool),
    ForkUnion(fork_union::ThreadPool),
    Rayon(rayon::ThreadPool),
    OpenMp(tine_peers::openmp::OpenMp),
    Scope(usize),
}

impl Pool {
    fn new(backend: &str, threads: usize) -> Pool {
        match backend {
            "tine" => Pool::Tine(tine::ThreadPool::try_spawn(threads).expect("tine pool")),
            "fork_union" => Pool::ForkUnion(
                fork_union::ThreadPool::try_spawn(threads).expect("fork_union pool"),
            ),
            "rayon" => Pool::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("rayon pool"),
            ),
            "openmp" => Pool::OpenMp(tine_peers::openmp::OpenMp::new(threads)),
            "scope" => Pool::Scope(threads),
            other => panic!("unknown backend {other}"),
        }
    }

    fn fork_join(&mut self) {
        match self {
            Pool::Tine(pool) => pool.for_threads(|_, _| {}),
            Pool::ForkUnion(pool) => pool.for_threads(|_, _| {}).join(),
            Pool::Rayon(pool) => {
                pool.broadcast(|_| {});
            }
            Pool::OpenMp(team) => team.empty_fork_join(),
            Pool::Scope(threads) => std::thread::scope(|scope| {
                for _ in 1..*threads {
                    scope.spawn(|| {});
                }
            }),
        }
    }
}

/// User + system CPU time of this process.
fn process_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc_rusage::Rusage>::zeroed();
    // SAFETY: `usage` is a valid out-pointer for one rusage.
    let status = unsafe { libc_rusage::getrusage(0, usage.as_mut_ptr()) };
    assert_eq!(status, 0, "getrusage failed");
    // SAFETY: getrusage filled it in.
    let usage = unsafe { usage.assume_init() };
    let micros = |t: libc_rusage::Timeval| t.sec as u64 * 1_000_000 + t.usec as u64;
    Duration::from_micros(micros(usage.utime) + micros(usage.stime))
}

/// A CPU-bound process (a shell busy loop) that lives as long as this guard:
/// dropping it, also while unwinding from a panic, kills and reaps it.
struct BusyProcess(std::process::Child);

impl BusyProcess {
    fn start() -> BusyProcess {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new("sh");
        command.args(["-c", "while :; do :; done"]);
        // SAFETY: the hook runs in the forked child before exec and only
        // makes one async-signal-safe syscall, touching no memory of ours.
        unsafe {
            command.pre_exec(|| {
                // Should this process die without dropping the guard (a
                // SIGKILL, an abort), the kernel kills the busy loop too.
                if libc_rusage::prctl(libc_rusage::PR_SET_PDEATHSIG, libc_rusage::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
        BusyProcess(command.spawn().expect("busy process"))
    }
}

impl Drop for BusyProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The libc calls this example needs, declared by hand to keep the peers
/// crate's dependencies to the peers themselves. The layout is 64-bit
/// Linux's; anywhere else the example refuses to build rather than misread.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
compile_error!("the waiting example reads `struct rusage` as laid out on 64-bit Linux");

mod libc_rusage {
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct Timeval {
        pub sec: i64,
        pub usec: i64,
    }

    /// `struct rusage` on 64-bit Linux: two timevals, then 14 longs.
    #[repr(C)]
    pub struct Rusage {
        pub utime: Timeval,
        pub stime: Timeval,
        pub rest: [i64; 14],
    }

    extern "C" {
        /// `who = 0` is `RUSAGE_SELF`.
        pub fn getrusage(who: i32, usage: *mut Rusage) -> i32;
        /// Variadic in C; the one option used here takes one argument.
        pub fn prctl(option: i32, ...) -> i32;
    }

    /// From `linux/prctl.h` and `signal.h` (x86-64 and AArch64 agree).
    pub const PR_SET_PDEATHSIG: i32 = 1;
    pub const SIGKILL: i32 = 9;
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?}")))
        .unwrap_or(default)
}

/// Runs one measurement in this process and prints its samples, in ns, one
/// per line.
fn child(measurement: &str, backend: &str) {
    let samples = env_usize("WAITING_SAMPLES", 41);
    match measurement {
        "wake" => {
            let mut pool = Pool::new(backend, env_usize("WAITING_THREADS", 2));
            for _ in 0..1000 {
                pool.fork_join();
            }
            for _ in 0..samples {
                std::thread::sleep(Duration::from_millis(10));
                let start = Instant::now();
                pool.fork_join();
                println!("{}", start.elapsed().as_nanos());
            }
        }
        "idle" => {
            let mut pool = Pool::new(backend, env_usize("WAITING_THREADS", 2));
            for _ in 0..1000 {
                pool.fork_join();
            }
            let before = process_cpu();
            std::thread::sleep(Duration::from_secs(1));
            // ns of CPU per second of idling.
            println!("{}", (process_cpu() - before).as_nanos());
        }
        "sporadic" => {
            let threads = env_usize("WAITING_THREADS", 2);
            let spawn: Box<dyn Fn()> = match backend {
                "tine" => {
                    let pool = tine::ThreadPool::builder()
                        .threads(threads)
                        .caller_runs(false)
                        .build()
                        .expect("tine pool");
                    Box::new(move || pool.spawn(|| {}))
                }
                "rayon" => {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("rayon pool");
                    Box::new(move || pool.spawn(|| {}))
                }
                other => panic!("{other} has no detached spawn"),
            };
            let feed = || {
                let start = Instant::now();
                while start.elapsed() < Duration::from_secs(1) {
                    std::thread::sleep(Duration::from_millis(1));
                    spawn();
                }
            };
            feed();
            let (before, start) = (process_cpu(), Instant::now());
            feed();
            // ns of CPU per second.
            let burnt = (process_cpu() - before).as_secs_f64();
            println!("{:.0}", burnt / start.elapsed().as_secs_f64() * 1e9);
        }
        "oversubscribed" => {
            let mut pool = Pool::new(backend, env_usize("WAITING_OVERSUBSCRIBED", 8));
            let batch = if backend == "scope" { 20 } else { 200 };
            let warmup = Instant::now();
            while warmup.elapsed() < Duration::from_millis(100) {
                pool.fork_join();
            }
            for _ in 0..samples {
                let start = Instant::now();
                for _ in 0..batch {
                    pool.fork_join();
                }
                println!("{}", start.elapsed().as_nanos() / batch);
                // Give way between samples so one slow fork cannot hide in a
                // batch with the next.
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        "contended" => {
            let _busy = BusyProcess::start();
            let mut pool = Pool::new(backend, env_usize("WAITING_THREADS", 2));
            let warmup = Instant::now();
            while warmup.elapsed() < Duration::from_millis(100) {
                pool.fork_join();
            }
            // 0: time windows (the default); else batches of this many forks.
            let batch = env_usize("WAITING_CONTENDED_BATCH", 0) as u128;
            for _ in 0..env_usize("WAITING_CONTENDED_SAMPLES", 201) {
                let start = Instant::now();
                let mut forks = 0;
                while if batch == 0 {
                    start.elapsed() < CONTENDED_WINDOW
                } else {
                    forks < batch
                } {
                    pool.fork_join();
                    forks += 1;
                }
                println!("{}", start.elapsed().as_nanos() / forks);
            }
            // The pool goes first, then the busy process.
            drop(pool);
        }
        other => panic!("unknown measurement {other}"),
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank]
}

fn show(ns: f64) -> String {
    match ns {
        ns if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        ns if ns >= 1e3 => format!("{:.1} µs", ns / 1e3),
        ns => format!("{ns:.0} ns"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "--child" {
        return child(&args[2], &args[3]);
    }
    let me = std::env::current_exe().expect("own path");
    let threads = env_usize("WAITING_THREADS", 2);
    let over = env_usize("WAITING_OVERSUBSCRIBED", 8);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{cpus} CPUs; {threads} threads, oversubscribed: {over} threads\n");
    let measurements = [
        ("wake", format!("wake after 10 ms idle, {threads} threads")),
        ("idle", format!("CPU per idle second, {threads} threads")),
        (
            "sporadic",
            format!("CPU per second, a spawn every 1 ms, {threads} threads"),
        ),
        (
            "oversubscribed",
            format!("empty fork-join, {over} threads on {cpus} CPUs"),
        ),
        (
            "contended",
            format!("empty fork-join, {threads} threads beside one busy process"),
        ),
    ];
    let backends: Vec<String> = match std::env::var("WAITING_BACKENDS") {
        Ok(list) => list.split(',').map(|b| b.trim().to_owned()).collect(),
        Err(_) => BACKENDS.iter().map(|b| b.to_string()).collect(),
    };
    let only = std::env::var("WAITING_ONLY").ok();
    for (measurement, title) in measurements {
        if only.as_deref().is_some_and(|only| only != measurement) {
            continue;
        }
        println!("### {title}\n");
        println!("| backend | median | p10 | p90 | mean | vs first |");
        println!("|---|---:|---:|---:|---:|---:|");
        let mut tine_median = None;
        for backend in backends.iter().map(String::as_str) {
            if measurement == "idle" && backend == "scope" {
                continue; // no pool to idle
            }
            if measurement == "sporadic" && !matches!(backend, "tine" | "rayon") {
                continue; // no detached spawn
            }
            let output = Command::new(&me)
                .args(["--child", measurement, backend])
                .output()
                .expect("child run");
            assert!(output.status.success(), "{measurement}/{backend} failed");
            let mut samples: Vec<f64> = String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(|line| line.parse().expect("a number"))
                .collect();
            samples.sort_by(f64::total_cmp);
            let median = percentile(&samples, 0.5);
            let tine = *tine_median.get_or_insert(median);
            let (low, high) = (percentile(&samples, 0.1), percentile(&samples, 0.9));
            if measurement == "idle" || measurement == "sporadic" {
                let ms = |ns: f64| format!("{:.1} ms/s", ns / 1e6);
                println!("| {backend} | {} | | | | |", ms(median));
            } else {
                let mean = samples.iter().sum::<f64>() / samples.len() as f64;
                println!(
                    "| {backend} | {} | {} | {} | {} | {:.2}x |",
                    show(median),
                    show(low),
                    show(high),
                    show(mean),
                    median / tine
                );
            }
        }
        println!();
    }
}
