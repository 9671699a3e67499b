//! The N-body physics, and one step of it on any parallel backend.
//!
//! Shared by tine's `examples/nbody` and by the peer comparison in
//! `benches/peers` (which includes this file with `#[path]`), so that every
//! backend runs the very same arithmetic.

/// Gravitational constant.
const G: f32 = 6.674e-11;
/// Time step.
const DT: f32 = 0.01;
/// Added to squared distances so that close encounters stay finite.
const SOFTENING: f32 = 1e-9;

/// A 3-vector of `f32`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// The x component.
    pub x: f32,
    /// The y component.
    pub y: f32,
    /// The z component.
    pub z: f32,
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

/// One body: where it is, how fast it moves, how heavy it is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Body {
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Mass.
    pub mass: f32,
}

/// A deterministic cloud of bodies (xorshift, no dependency).
pub fn initial_bodies(count: usize) -> Vec<Body> {
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
pub fn acceleration(bodies: &[Body], i: usize) -> Vec3 {
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

/// Moves `body` one time step under `acceleration`.
pub fn advance(body: &mut Body, acceleration: Vec3) {
    body.velocity = body.velocity.add(acceleration.scale(DT));
    body.position = body.position.add(body.velocity.scale(DT));
}

/// A backend that runs a step's two passes. Each pass calls `task(i)` once
/// for every `i` in `0..n` and returns when all calls have finished; a task
/// writes only element `i`, so the calls may run in parallel.
///
/// # Safety
/// [`step`]'s tasks write element `i` through a shared raw pointer, so an
/// implementation must call `task(i)` for each `i` in `0..n` exactly once
/// (never an `i` out of range, never one twice), and return only after
/// every call has finished.
pub unsafe trait Passes {
    /// The acceleration pass: task `i` computes body `i`'s acceleration.
    fn accelerations<F: Fn(usize) + Sync>(&mut self, n: usize, task: F);
    /// The move pass: task `i` moves body `i`.
    fn moves<F: Fn(usize) + Sync>(&mut self, n: usize, task: F);
}

/// Both passes as plain loops on the calling thread.
pub struct Serial;

// SAFETY: plain loops over 0..n, each index once, all done on return.
unsafe impl Passes for Serial {
    fn accelerations<F: Fn(usize) + Sync>(&mut self, n: usize, task: F) {
        (0..n).for_each(task);
    }
    fn moves<F: Fn(usize) + Sync>(&mut self, n: usize, task: F) {
        (0..n).for_each(task);
    }
}

/// Both passes on a tine pool: the acceleration pass with `for_n_dynamic`
/// when `dynamic`, else with `for_n`; the cheap move pass always with
/// `for_n`.
pub struct Tine<'a> {
    /// The pool.
    pub pool: &'a tine::ThreadPool,
    /// Whether the acceleration pass uses the dynamic schedule.
    pub dynamic: bool,
}

// SAFETY: tine's for_n and for_n_dynamic run each task index in 0..n once
// and return only after every task has finished.
unsafe impl Passes for Tine<'_> {
    fn accelerations<F: Fn(usize) + Sync>(&mut self, n: usize, task: F) {
        let task = |prong: tine::Prong| task(prong.task_index);
        if self.dynamic {
            self.pool.for_n_dynamic(n, task);
        } else {
            self.pool.for_n(n, task);
        }
    }
    fn moves<F: Fn(usize) + Sync>(&mut self, n: usize, task: F) {
        self.pool.for_n(n, |prong| task(prong.task_index));
    }
}

/// A pointer that tasks share to write disjoint elements of one slice.
#[derive(Clone, Copy)]
struct Disjoint<T>(*mut T);

// SAFETY: tasks only write distinct indices through it (one task per index),
// and every pass returns only after all its tasks have finished.
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

/// One time step: every body's acceleration from the current positions,
/// then every body moved. Every backend does the same arithmetic in the same
/// order per body, so all give bit-identical results.
pub fn step(passes: &mut impl Passes, bodies: &mut [Body], accelerations: &mut [Vec3]) {
    let n = bodies.len();
    assert_eq!(accelerations.len(), n, "one acceleration per body");
    let out = Disjoint(accelerations.as_mut_ptr());
    let shared: &[Body] = bodies;
    passes.accelerations(n, |i| {
        // SAFETY: `Passes` promises each i in 0..n once, all joined.
        unsafe { *out.get(i) = acceleration(shared, i) };
    });
    let moved = Disjoint(bodies.as_mut_ptr());
    let accelerations: &[Vec3] = accelerations;
    passes.moves(n, |i| {
        // SAFETY: `Passes` promises each i in 0..n once, all joined.
        advance(unsafe { moved.get(i) }, accelerations[i]);
    });
}
