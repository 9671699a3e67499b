//! The N-body driver shared by tine's `examples/nbody` and the peer
//! comparison's: settings from the environment, one timed run per backend,
//! one table, and the bit-for-bit check of every final state.

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
    /// with speed-ups against `serial` and time ratios against
    /// `tine_static`. `run(backend, simulation)` sets the backend up, calls
    /// [`Simulation::run`] once, and tears it down (so no idle pool lingers
    /// while the next backend runs). Panics if a final state differs from the
    /// first backend's by a single bit.
    pub fn run_all(&self, mut run: impl FnMut(&str, &mut Simulation)) {
        println!(
            "n-body: {} bodies, {} steps, {} threads",
            self.count, self.iterations, self.threads
        );
        let mut rows: Vec<(&str, f64)> = Vec::new();
        let mut reference: Option<Vec<Body>> = None;
        for backend in &self.backends {
            let mut simulation = Simulation {
                bodies: initial_bodies(self.count),
                accelerations: vec![Vec3::default(); self.count],
                iterations: self.iterations,
                seconds: None,
            };
            run(backend, &mut simulation);
            let seconds = simulation.seconds.expect("the backend ran no simulation");
            match &reference {
                Some(expected) => assert!(
                    *expected == simulation.bodies,
                    "{backend} diverged from {}'s final state",
                    self.backends[0]
                ),
                None => reference = Some(simulation.bodies),
            }
            rows.push((backend, seconds));
        }
        let seconds_of = |name: &str| rows.iter().find(|row| row.0 == name).map(|row| row.1);
        let ratio = |baseline: Option<f64>, seconds: f64, invert: bool| match baseline {
            Some(baseline) if invert => format!("{:.2}x", baseline / seconds),
            Some(baseline) => format!("{:.2}x", seconds / baseline),
            None => "-".to_owned(),
        };
        let (serial, tine) = (seconds_of("serial"), seconds_of("tine_static"));
        println!();
        println!("| backend | seconds | steps/s | speed-up vs serial | time vs tine_static |");
        println!("|---|---:|---:|---:|---:|");
        for (backend, seconds) in &rows {
            println!(
                "| {backend} | {seconds:.3} | {:.0} | {} | {} |",
                self.iterations as f64 / seconds,
                ratio(serial, *seconds, true),
                ratio(tine, *seconds, false),
            );
        }
        println!(
            "\nevery backend's final state matches {}'s bit for bit",
            self.backends[0]
        );
    }
}

/// One backend's run: the bodies, scratch space, and its timing.
pub struct Simulation {
    bodies: Vec<Body>,
    accelerations: Vec<Vec3>,
    iterations: usize,
    seconds: Option<f64>,
}

impl Simulation {
    /// Runs all the steps with `passes` and records how long they took.
    pub fn run(&mut self, mut passes: impl Passes) {
        let start = Instant::now();
        for _ in 0..self.iterations {
            step(&mut passes, &mut self.bodies, &mut self.accelerations);
        }
        self.seconds = Some(start.elapsed().as_secs_f64());
    }
}
