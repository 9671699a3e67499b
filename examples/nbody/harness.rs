//! The N-body driver shared by tine's `examples/nbody` and the peer
//! comparison's: settings from the environment, one timed run per backend,
//! one table with its legend, and the bit-for-bit check of every final
//! state.

use super::physics::{initial_bodies, step, Body, Passes, Vec3};
use std::time::Instant;

/// What to run, from the environment:
/// - `NBODY_COUNT`: bodies (default 128).
/// - `NBODY_ITERATIONS`: steps (default 10000).
/// - `NBODY_BACKEND`: a comma-separated list of backends (default: all).
/// - `NBODY_THREADS`: threads per pool (default: available CPUs).
pub struct Settings {
    /// Bodies.
    pub count: usize,
    /// Steps per backend.
    pub iterations: usize,
    /// Threads per pool, the caller included.
    pub threads: usize,
    /// The backends to run, in order.
    pub backends: Vec<String>,
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, got {text:?}")),
        Err(_) => default,
    }
}

impl Settings {
    /// Reads the environment; exits with status 2 on a backend not in
    /// `known`.
    pub fn from_env(known: &[&str]) -> Settings {
        let backends = std::env::var("NBODY_BACKEND").unwrap_or_else(|_| known.join(","));
        let backends: Vec<String> = backends
            .split(',')
            .map(|b| b.trim().to_owned())
            .filter(|b| !b.is_empty())
            .collect();
        for backend in &backends {
            if !known.contains(&backend.as_str()) {
                eprintln!("unknown NBODY_BACKEND {backend:?}: use some of {known:?}");
                std::process::exit(2);
            }
        }
        Settings {
            count: env_usize("NBODY_COUNT", 128),
            iterations: env_usize("NBODY_ITERATIONS", 10_000),
            threads: env_usize(
                "NBODY_THREADS",
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ),
            backends,
        }
    }

    /// Runs every backend from the same initial state and prints one table,
    /// with speed-ups against `serial`, time ratios against `tine_static`
    /// and the CPUs each run kept busy, then its legend, and a note for each
    /// tine run that kept fewer CPUs busy than it has threads.
    /// `run(backend, simulation)` sets the backend up, calls
    /// [`Simulation::run`] once, and tears it down (so no idle pool lingers
    /// while the next backend runs). Panics if a final state differs from the
    /// first backend's by a single bit.
    pub fn run_all(&self, mut run: impl FnMut(&str, &mut Simulation)) {
        println!(
            "n-body: {} bodies, {} steps, {} threads",
            self.count, self.iterations, self.threads
        );
        let mut rows: Vec<(&str, f64, Option<f64>)> = Vec::new();
        let mut reference: Option<Vec<Body>> = None;
        for backend in &self.backends {
            let mut simulation = Simulation {
                bodies: initial_bodies(self.count),
                accelerations: vec![Vec3::default(); self.count],
                iterations: self.iterations,
                seconds: None,
                cpus: None,
            };
            run(backend, &mut simulation);
            let seconds = simulation.seconds.expect("the backend ran no simulation");
            let cpus = simulation.cpus;
            match &reference {
                Some(expected) => assert!(
                    *expected == simulation.bodies,
                    "{backend} diverged from {}'s final state",
                    self.backends[0]
                ),
                None => reference = Some(simulation.bodies),
            }
            rows.push((backend, seconds, cpus));
        }
        let seconds_of = |name: &str| rows.iter().find(|row| row.0 == name).map(|row| row.1);
        let ratio = |baseline: Option<f64>, seconds: f64, invert: bool| match baseline {
            Some(baseline) if invert => format!("{:.2}x", baseline / seconds),
            Some(baseline) => format!("{:.2}x", seconds / baseline),
            None => "-".to_owned(),
        };
        let (serial, tine) = (seconds_of("serial"), seconds_of("tine_static"));
        println!();
        println!(
            "| backend | seconds | steps/s | speed-up vs serial | time vs tine_static | CPUs busy |"
        );
        println!("|---|---:|---:|---:|---:|---:|");
        for (backend, seconds, cpus) in &rows {
            println!(
                "| {backend} | {seconds:.3} | {:.0} | {} | {} | {} |",
                self.iterations as f64 / seconds,
                ratio(serial, *seconds, true),
                ratio(tine, *seconds, false),
                cpus.map_or_else(|| "-".to_owned(), |cpus| format!("{cpus:.2}")),
            );
        }
        println!("{LEGEND}");
        // tine's threads spin between a step's forks (the gaps are shorter
        // than their spin budget), so a tine run keeps one CPU busy per
        // thread unless its threads had to share CPUs: then it timed the
        // machine's load more than the backend. Other backends' threads
        // may sleep between forks, so their CPUs say nothing of the kind.
        for (backend, _, cpus) in &rows {
            match cpus {
                Some(cpus)
                    if backend.starts_with("tine_") && *cpus < 0.75 * self.threads as f64 =>
                {
                    println!(
                        "note: {backend} kept {cpus:.2} CPUs busy for {} threads: they shared \
                         CPUs (with another process, or two on one CPU), so its time says more \
                         about the machine than about tine; rerun on an idle machine",
                        self.threads
                    );
                }
                _ => {}
            }
        }
        println!(
            "\nevery backend's final state matches {}'s bit for bit",
            self.backends[0]
        );
    }
}

/// The table's legend, printed under it.
const LEGEND: &str = "legend: _static splits the bodies into one share per thread, \
    _dynamic hands out one body at a time; seconds: wall time of all the steps; \
    faster is above 1x vs serial, below 1x vs tine_static; CPUs busy: the process's CPU \
    time over the wall time (tine's threads spin between forks: below the thread count, \
    they shared CPUs; - for a run under 0.1 s)";

/// One backend's run: the bodies, scratch space, and its timing.
pub struct Simulation {
    bodies: Vec<Body>,
    accelerations: Vec<Vec3>,
    iterations: usize,
    seconds: Option<f64>,
    cpus: Option<f64>,
}

impl Simulation {
    /// Runs all the steps with `passes`, and records how long they took and
    /// how many CPUs the process kept busy meanwhile.
    pub fn run(&mut self, mut passes: impl Passes) {
        let cpu_start = process_cpu_seconds();
        let start = Instant::now();
        for _ in 0..self.iterations {
            step(&mut passes, &mut self.bodies, &mut self.accelerations);
        }
        let seconds = start.elapsed().as_secs_f64();
        self.seconds = Some(seconds);
        self.cpus = match (cpu_start, process_cpu_seconds()) {
            (Some(before), Some(after)) if seconds >= MIN_SECONDS_FOR_CPUS => {
                Some((after - before) / seconds)
            }
            _ => None,
        };
    }
}

/// The shortest run whose CPUs busy are shown. The kernel adds a running
/// thread's CPU time to the process's total only at a scheduler tick or a
/// context switch (ticks are up to 10 ms apart), so a run needs many ticks
/// for the ratio to mean anything.
const MIN_SECONDS_FOR_CPUS: f64 = 0.1;

/// The CPU time the whole process has used (every thread, user and
/// system), in seconds.
#[cfg(unix)]
fn process_cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` fills in the struct it is given and reads nothing.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: `getrusage` succeeded, so it initialized the struct (which
    // was zeroed besides).
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// Not measured off Unix.
#[cfg(not(unix))]
fn process_cpu_seconds() -> Option<f64> {
    None
}
