//! All-pairs N-body simulation: the fine-grained workload of fork_union's
//! benchmark, where every step is two short parallel loops.
//!
//! Each step computes the gravitational acceleration on every body from
//! every other body (O(n²), one task per body), then moves every body (one
//! task per body). With 128 bodies a step is tens of microseconds of work,
//! so fork-join overhead shows directly in the total.
//!
//! ```text
//! cargo run --release --example nbody
//! NBODY_COUNT=1024 NBODY_ITERATIONS=100 NBODY_BACKEND=tine_dynamic cargo run --release --example nbody
//! ```
//!
//! - `NBODY_COUNT`: bodies (default 128).
//! - `NBODY_ITERATIONS`: steps (default 10000).
//! - `NBODY_BACKEND`: `tine_static`, `tine_dynamic` or `serial`, or a
//!   comma-separated list (default: all).
//! - `NBODY_THREADS`: threads for the tine pool (default: available CPUs).
//!
//! Every backend runs the same arithmetic in the same order per body, so
//! their final states must match the serial one bit for bit; the example
//! checks that.

use std::time::Instant;

const G: f32 = 6.674e-11;
const DT: f32 = 0.01;
const SOFTENING: f32 = 1e-9;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

impl Vec3 {
    fn add(self, o: Vec3) -> Vec3 {
        Vec3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
    fn scale(self, s: f32) -> Vec3 {
        Vec3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
    fn norm_squared(self) -> f32 {
        self.x * self.x + self.y * self.y + self.z * self.z
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Body {
    position: Vec3,
    velocity: Vec3,
    mass: f32,
}

/// A deterministic cloud of bodies (xorshift, no dependency).
fn initial_bodies(count: usize) -> Vec<Body> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..count)
        .map(|_| Body {
            position: Vec3 {
                x: next() * 100.0,
                y: next() * 100.0,
                z: next() * 100.0,
            },
            velocity: Vec3 {
                x: next() - 0.5,
                y: next() - 0.5,
                z: next() - 0.5,
            },
            mass: 1e9 + next() * 1e10,
        })
        .collect()
}

/// The acceleration on body `i` from all the others.
fn acceleration(bodies: &[Body], i: usize) -> Vec3 {
    let me = bodies[i].position;
    let mut total = Vec3::default();
    for (j, other) in bodies.iter().enumerate() {
        if j == i {
            continue;
        }
        let delta = other.position.sub(me);
        let distance_squared = delta.norm_squared() + SOFTENING;
        let inverse = 1.0 / (distance_squared * distance_squared.sqrt());
        total = total.add(delta.scale(G * other.mass * inverse));
    }
    total
}

fn advance(body: &mut Body, acceleration: Vec3) {
    body.velocity = body.velocity.add(acceleration.scale(DT));
    body.position = body.position.add(body.velocity.scale(DT));
}

fn step_serial(bodies: &mut [Body], accelerations: &mut [Vec3]) {
    for (i, slot) in accelerations.iter_mut().enumerate() {
        *slot = acceleration(bodies, i);
    }
    for (body, &a) in bodies.iter_mut().zip(accelerations.iter()) {
        advance(body, a);
    }
}

/// A pointer that tasks share to write disjoint elements of one slice.
#[derive(Clone, Copy)]
struct Disjoint<T>(*mut T);

// SAFETY: tasks only write distinct indices through it (one task per index),
// and the fork-join call does not return before every task has finished.
unsafe impl<T: Send> Sync for Disjoint<T> {}

impl<T> Disjoint<T> {
    /// # Safety
    /// `index` must be in bounds, and no other task may touch it meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self, index: usize) -> &mut T {
        // SAFETY: guaranteed by the caller.
        unsafe { &mut *self.0.add(index) }
    }
}

fn step_tine(
    pool: &tine::ThreadPool,
    dynamic: bool,
    bodies: &mut [Body],
    accelerations: &mut [Vec3],
) {
    let n = bodies.len();
    let out = Disjoint(accelerations.as_mut_ptr());
    let shared: &[Body] = bodies;
    let compute = |prong: tine::Prong| {
        // SAFETY: each task index is visited once, and is < n.
        unsafe { *out.get(prong.task_index) = acceleration(shared, prong.task_index) };
    };
    if dynamic {
        pool.for_n_dynamic(n, compute);
    } else {
        pool.for_n(n, compute);
    }
    let moved = Disjoint(bodies.as_mut_ptr());
    let accelerations: &[Vec3] = accelerations;
    pool.for_n(n, |prong| {
        // SAFETY: each task index is visited once, and is < n.
        let body = unsafe { moved.get(prong.task_index) };
        advance(body, accelerations[prong.task_index]);
    });
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, got {text:?}")),
        Err(_) => default,
    }
}

fn main() -> Result<(), tine::Error> {
    let count = env_usize("NBODY_COUNT", 128);
    let iterations = env_usize("NBODY_ITERATIONS", 10_000);
    let threads = env_usize(
        "NBODY_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let backends =
        std::env::var("NBODY_BACKEND").unwrap_or_else(|_| "serial,tine_static,tine_dynamic".into());
    let backends: Vec<&str> = backends.split(',').map(str::trim).collect();
    for backend in &backends {
        if !["serial", "tine_static", "tine_dynamic"].contains(backend) {
            eprintln!("unknown NBODY_BACKEND {backend:?}: use tine_static, tine_dynamic or serial");
            std::process::exit(2);
        }
    }

    let pool = tine::ThreadPool::try_spawn(threads)?;
    println!("n-body: {count} bodies, {iterations} steps, {threads} threads");
    println!();
    println!("| backend | seconds | steps/s | speed-up vs first row |");
    println!("|---|---:|---:|---:|");

    let mut reference: Option<(Vec<Body>, f64)> = None;
    for backend in backends {
        let mut bodies = initial_bodies(count);
        let mut accelerations = vec![Vec3::default(); count];
        let start = Instant::now();
        for _ in 0..iterations {
            match backend {
                "serial" => step_serial(&mut bodies, &mut accelerations),
                "tine_static" => step_tine(&pool, false, &mut bodies, &mut accelerations),
                _ => step_tine(&pool, true, &mut bodies, &mut accelerations),
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        let versus = match &reference {
            Some((expected, serial_seconds)) => {
                assert!(
                    *expected == bodies,
                    "{backend} diverged from the first backend's final state"
                );
                format!("{:.2}x", serial_seconds / seconds)
            }
            None => "1.00x".into(),
        };
        println!(
            "| {backend} | {seconds:.3} | {:.0} | {versus} |",
            iterations as f64 / seconds
        );
        if reference.is_none() {
            reference = Some((bodies, seconds));
        }
    }
    Ok(())
}
