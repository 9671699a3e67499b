//! Peer comparison for `tine`: the workloads and one adapter per backend,
//! shared by the criterion benches (`benches/peers.rs`) and the examples.
//!
//! Backends: tine, fork_union 2.3.1, rayon, chili, `std::thread::scope`
//! spawning per fork, and serial code. Workloads: an empty fork-join, the
//! reduction of an `f32` array, 10k tasks of uneven cost, and an N-body step
//! (the physics is tine's own `examples/nbody/physics.rs`, included here).
//! OpenMP (libgomp, through a small C file) is a peer for the empty
//! fork-join only: [`openmp::OpenMp`].
//! A cache-line ping-pong between two threads gives the physical floor.
//!
//! This crate is never published; it exists so that `cargo test` on `tine`
//! does not build fork_union's C++ core or pull rayon.
//!
//! Pools are made by [`Backend::with_team`] and dropped when it returns.
//! Never keep one alive while another backend is measured: idle fork_union
//! workers spin forever, and would take the cores the measured backend needs.

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod flat_map;
pub mod recursion;
pub mod timing;

use rayon::prelude::*;
use std::hint::spin_loop;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

pub mod nbody;
pub mod openmp;

use nbody::physics::Passes;

/// Threads per pool, the caller included: `TINE_BENCH_THREADS` if set, else
/// `available_parallelism()`.
pub fn threads() -> usize {
    match std::env::var("TINE_BENCH_THREADS") {
        Ok(text) => match text.trim().parse() {
            Ok(n) if n > 0 => n,
            _ => panic!("TINE_BENCH_THREADS={text:?}: expected a positive integer"),
        },
        Err(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// A value alone on its cache line. 128 bytes covers adjacent-line
/// prefetching on x86 and the 128-byte lines of some Arm cores.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct CachePadded<T>(pub T);

/// Share `thread` of `0..n` split over `threads`: contiguous, the first
/// `n % threads` shares one longer than the rest (the split tine uses).
pub fn share(n: usize, threads: usize, thread: usize) -> Range<usize> {
    let (quotient, remainder) = (n / threads, n % threads);
    let begin = quotient * thread + thread.min(remainder);
    begin..begin + quotient + usize::from(thread < remainder)
}

/// How `for_n` hands tasks to threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One contiguous share per thread, fixed up front.
    Static,
    /// Tasks claimed one at a time as threads free up (work stealing for
    /// rayon and chili).
    Dynamic,
}

/// A parallel backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain loops on the calling thread.
    Serial,
    /// This crate's subject.
    Tine,
    /// fork_union 2.3.1 (C++ core).
    ForkUnion,
    /// rayon, with a pool of its own, called from a thread outside it (as
    /// a program's main thread calls rayon): each call is handed to the
    /// pool, and the caller blocks until it is done.
    Rayon,
    /// rayon again, with the timed loop itself running on one of the
    /// pool's workers (inside `install`, see [`Team::enter`]), as code that
    /// already runs on rayon calls it: no hand-over per call.
    RayonInPool,
    /// chili, with a pool of its own: a heartbeat scheduler that shares
    /// queued `join` halves with idle threads only on a heartbeat (every
    /// 100 µs by default), so shorter regions run on the caller alone.
    Chili,
    /// `std::thread::scope`, spawning `threads - 1` threads per fork.
    Scope,
}

impl Backend {
    /// Every backend, serial first.
    pub const ALL: [Backend; 7] = [
        Backend::Serial,
        Backend::Tine,
        Backend::ForkUnion,
        Backend::Rayon,
        Backend::RayonInPool,
        Backend::Chili,
        Backend::Scope,
    ];

    /// A short name: `serial`, `tine`, `fork_union`, `rayon`,
    /// `rayon_in_pool`, `chili`, `scope`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Serial => "serial",
            Backend::Tine => "tine",
            Backend::ForkUnion => "fork_union",
            Backend::Rayon => "rayon",
            Backend::RayonInPool => "rayon_in_pool",
            Backend::Chili => "chili",
            Backend::Scope => "scope",
        }
    }

    /// The backend called `name` (see [`Backend::name`]).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Makes a team of `threads` (1 for `Serial`), runs `body` on it, and
    /// drops the pool before returning.
    pub fn with_team<R>(self, threads: usize, body: impl FnOnce(&mut Team<'_>) -> R) -> R {
        let threads = if self == Backend::Serial { 1 } else { threads };
        let chili_pool;
        let pool = match self {
            Backend::Serial => Pool::Serial,
            Backend::Tine => Pool::Tine(tine::ThreadPool::try_spawn(threads).expect("tine pool")),
            Backend::ForkUnion => Pool::ForkUnion(
                fork_union::ThreadPool::try_spawn(threads).expect("fork_union pool"),
            ),
            Backend::Rayon | Backend::RayonInPool => Pool::Rayon(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("rayon pool"),
            )),
            Backend::Chili => {
                chili_pool = chili::ThreadPool::with_config(chili::Config {
                    thread_count: std::num::NonZeroUsize::new(threads),
                    ..chili::Config::default()
                });
                Pool::Chili(chili_pool.scope())
            }
            Backend::Scope => Pool::Scope,
        };
        let mut team = Team {
            threads,
            in_pool: self == Backend::RayonInPool,
            pool,
            partials: (0..threads).map(|_| CachePadded::default()).collect(),
        };
        body(&mut team)
    }
}

/// A backend's pool, ready to fork.
// One per benchmark run, on the stack: boxing tine's pool would only add an
// indirection to the measured calls.
#[allow(clippy::large_enum_variant)]
enum Pool<'a> {
    Serial,
    Tine(tine::ThreadPool),
    ForkUnion(fork_union::ThreadPool),
    Rayon(Arc<rayon::ThreadPool>),
    /// A scope on a pool that [`Backend::with_team`] owns. Made once: making
    /// one takes a lock and registers a heartbeat.
    Chili(chili::Scope<'a>),
    Scope,
}

impl Pool<'_> {
    /// See [`Team::for_shares`].
    fn for_shares(&mut self, threads: usize, f: impl Fn(usize) + Sync) {
        match self {
            Pool::Serial => (0..threads).for_each(f),
            Pool::Tine(pool) => pool.for_threads(|thread, _| f(thread)),
            Pool::ForkUnion(pool) => pool.for_threads(|thread, _| f(thread)).join(),
            Pool::Rayon(pool) => pool.install(|| (0..threads).into_par_iter().for_each(&f)),
            Pool::Chili(scope) => chili_for(scope, 0..threads, 1, &f),
            Pool::Scope => spawn_per_fork(threads, &f),
        }
    }
}

/// A backend with its threads, ready to run the workloads; see
/// [`Backend::with_team`].
pub struct Team<'a> {
    threads: usize,
    /// Whether [`Team::enter`] moves onto one of rayon's workers.
    in_pool: bool,
    pool: Pool<'a>,
    /// One partial sum (`f32` bits) per thread, for [`Team::reduce`].
    partials: Box<[CachePadded<AtomicU32>]>,
}

impl<'a> Team<'a> {
    /// Threads in the team, the caller included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `body(self)` and returns its result: for
    /// [`Backend::RayonInPool`], on one of the rayon pool's workers (inside
    /// `install`), so that every call `body` makes comes from inside the
    /// pool; for every other backend, right here. Benches and examples run
    /// their timed loops through it.
    pub fn enter<R: Send>(&mut self, body: impl FnOnce(&mut Self) -> R + Send) -> R {
        let pool = match &self.pool {
            Pool::Rayon(pool) if self.in_pool => Arc::clone(pool),
            _ => return body(self),
        };
        let team = CrossToRayon(self);
        pool.install(move || {
            let team = team;
            body(team.0)
        })
    }

    /// Runs `f(thread)` once on every thread and returns when all have
    /// finished: tine's and fork_union's `for_threads`, rayon's `broadcast`,
    /// a chili `join` tree with one leaf per thread, one spawn per worker
    /// for `std::thread::scope`.
    pub fn broadcast(&mut self, f: impl Fn(usize) + Sync) {
        match &mut self.pool {
            Pool::Rayon(pool) => {
                pool.broadcast(|context| f(context.index()));
            }
            _ => self.for_shares(f),
        }
    }

    /// Runs `f(share)` once for every share in `0..threads`: like
    /// [`Team::broadcast`], but rayon runs the shares as a parallel
    /// iterator inside `install`, the way rayon code is written, rather
    /// than one call per worker.
    pub fn for_shares(&mut self, f: impl Fn(usize) + Sync) {
        self.pool.for_shares(self.threads, f);
    }

    /// Runs `f(i)` once for every `i` in `0..n` with `schedule`, and returns
    /// when all have finished.
    pub fn for_n(&mut self, n: usize, schedule: Schedule, f: impl Fn(usize) + Sync) {
        let threads = self.threads;
        match (&mut self.pool, schedule) {
            (Pool::Serial, _) => (0..n).for_each(f),
            (Pool::Tine(pool), Schedule::Static) => pool.for_n(n, |prong| f(prong.task_index)),
            (Pool::Tine(pool), Schedule::Dynamic) => {
                pool.for_n_dynamic(n, |prong| f(prong.task_index));
            }
            // fork_union runs the loop when the returned operation drops.
            (Pool::ForkUnion(pool), Schedule::Static) => {
                pool.for_n(n, |prong| f(prong.task_index));
            }
            (Pool::ForkUnion(pool), Schedule::Dynamic) => {
                pool.for_n_dynamic(n, |prong| f(prong.task_index));
            }
            (Pool::Rayon(pool), Schedule::Dynamic) => {
                pool.install(|| (0..n).into_par_iter().with_max_len(1).for_each(&f));
            }
            // chili has one schedule: work stealing over a join tree.
            (Pool::Chili(scope), _) => chili_for(scope, 0..n, 1, &f),
            (Pool::Scope, Schedule::Dynamic) => {
                let next = AtomicUsize::new(0);
                // Relaxed: the counter only hands out indices; the tasks'
                // writes reach the caller through the threads' joins.
                spawn_per_fork(threads, &|_| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    f(i);
                });
            }
            (pool @ (Pool::Rayon(_) | Pool::Scope), Schedule::Static) => {
                pool.for_shares(threads, |thread| share(n, threads, thread).for_each(&f));
            }
        }
    }

    /// The sum of `data`: one share per thread, each summed with
    /// [`sum_f32`] into its own cache-padded partial, then the partials
    /// added in thread order. Serial sums it all at once; chili, which gives
    /// no thread index, halves `data` with `join` down to one leaf per
    /// thread and adds the halves' sums.
    pub fn reduce(&mut self, data: &[f32]) -> f32 {
        match &mut self.pool {
            Pool::Serial => sum_f32(data),
            // One leaf per thread, as the other backends have one share.
            Pool::Chili(scope) => chili_sum(scope, data, data.len().div_ceil(self.threads)),
            pool => {
                let (n, threads, partials) = (data.len(), self.threads, &self.partials);
                pool.for_shares(threads, |thread| {
                    let sum = sum_f32(&data[share(n, threads, thread)]);
                    partials[thread].0.store(sum.to_bits(), Ordering::Relaxed);
                });
                // The fork's join ordered the Relaxed stores before these
                // loads.
                partials
                    .iter()
                    .map(|partial| f32::from_bits(partial.0.load(Ordering::Relaxed)))
                    .sum()
            }
        }
    }

    /// Runs the uneven tasks `0..results.len()` with a dynamic schedule,
    /// storing [`uneven_task`]`(i, n)` in `results[i]`.
    pub fn uneven(&mut self, results: &[AtomicU64]) {
        let n = results.len();
        self.for_n(n, Schedule::Dynamic, |i| {
            results[i].store(uneven_task(i, n), Ordering::Relaxed);
        });
    }

    /// This team as the N-body driver's backend (see
    /// [`nbody::harness::Simulation::run`]).
    pub fn passes(&mut self, schedule: Schedule) -> TeamPasses<'_, 'a> {
        TeamPasses {
            team: self,
            schedule,
        }
    }
}

/// A team lent to one of rayon's workers by [`Team::enter`].
struct CrossToRayon<'t, 'a>(&'t mut Team<'a>);

// SAFETY: `enter` builds this only for a team whose pool is rayon's, whose
// contents (an `Arc` of a rayon pool, atomics, counts) are all `Send`: the
// one thread-bound variant, chili's scope, never crosses. `install` blocks
// the lending thread until the worker is done with it, so one thread at a
// time uses the team. A `body` cannot swap in another team's chili scope:
// teams only exist inside `with_team`, each with its own lifetime.
// (SAFETY, in short: only rayon teams cross, used by one thread at a time.)
unsafe impl Send for CrossToRayon<'_, '_> {}

/// A [`Team`] running N-body passes: accelerations with `schedule`, moves
/// static.
pub struct TeamPasses<'t, 'a> {
    team: &'t mut Team<'a>,
    schedule: Schedule,
}

// SAFETY: `Team::for_n` runs each index in 0..n once on every backend
// (checked against serial by every bench and example before timing) and
// returns only after all have finished.
unsafe impl Passes for TeamPasses<'_, '_> {
    fn accelerations<F: Fn(usize) + Sync>(&mut self, n: usize, task: F) {
        self.team.for_n(n, self.schedule, task);
    }
    fn moves<F: Fn(usize) + Sync>(&mut self, n: usize, task: F) {
        self.team.for_n(n, Schedule::Static, task);
    }
}

/// Runs `f(0)` on the caller and `f(1..threads)` on fresh scoped threads.
fn spawn_per_fork(threads: usize, f: &(impl Fn(usize) + Sync)) {
    std::thread::scope(|scope| {
        for thread in 1..threads {
            scope.spawn(move || f(thread));
        }
        f(0);
    });
}

/// Runs `f(i)` for every `i` in `range`, halving it with chili's `join`
/// down to `leaf` indices.
fn chili_for(
    scope: &mut chili::Scope<'_>,
    range: Range<usize>,
    leaf: usize,
    f: &(impl Fn(usize) + Sync),
) {
    if range.len() <= leaf {
        range.for_each(f);
    } else {
        let middle = range.start + range.len() / 2;
        scope.join(
            |scope| chili_for(scope, range.start..middle, leaf, f),
            |scope| chili_for(scope, middle..range.end, leaf, f),
        );
    }
}

/// The sum of `data` through chili's `join`, halving it down to leaves of
/// at most `leaf` elements; see [`Team::reduce`].
fn chili_sum(scope: &mut chili::Scope<'_>, data: &[f32], leaf: usize) -> f32 {
    if data.len() <= leaf {
        return sum_f32(data);
    }
    let (left, right) = data.split_at(data.len() / 2);
    let (left, right) = scope.join(|s| chili_sum(s, left, leaf), |s| chili_sum(s, right, leaf));
    left + right
}

/// The sum of `data` in 16 independent lanes (so that it vectorizes), the
/// lanes then added in order, then the tail.
pub fn sum_f32(data: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut lanes = [0f32; LANES];
    let chunks = data.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (lane, x) in lanes.iter_mut().zip(chunk) {
            *lane += x;
        }
    }
    lanes.iter().sum::<f32>() + tail.iter().sum::<f32>()
}

/// `count` pseudo-random `f32`s in `[0, 1)`, the same every run.
pub fn reduction_input(count: usize) -> Vec<f32> {
    (0..count as u64)
        .map(|i| (mix(i) >> 40) as f32 / (1u64 << 24) as f32)
        .collect()
}

/// Whether a parallel sum `got` matches the serial sum `expected` within
/// `f32` rounding (a relative 1e-3): the two add in different orders.
pub fn sums_agree(got: f32, expected: f32) -> bool {
    (got - expected).abs() <= 1e-3 * expected.abs().max(1.0)
}

/// Tasks in the uneven-cost workload.
pub const UNEVEN_TASKS: usize = 10_000;

/// Mean rounds of xorshift per uneven task (about 0.2 µs; the 10k tasks
/// take about 2 ms serially on a Zen 3 core).
const UNEVEN_MEAN_ROUNDS: u64 = 128;

/// Task `i` of `n` uneven tasks: a chain of xorshift rounds, returning
/// its end. The chain's length is drawn from `[r/2, 3r/2]`, where `r` ramps
/// from about 0 at the first task to `2 * UNEVEN_MEAN_ROUNDS` at the last:
/// tasks average `UNEVEN_MEAN_ROUNDS`, and the second half of the tasks
/// holds three quarters of the work, which a static split would give to the
/// last threads.
pub fn uneven_task(i: usize, n: usize) -> u64 {
    let ramp = 2 * UNEVEN_MEAN_ROUNDS * (i as u64 + 1) / n as u64;
    let rounds = ramp / 2 + mix(i as u64) % (ramp + 1);
    let mut x = i as u64 | 1;
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

/// The sum (wrapping) of every uneven task's result, computed serially:
/// what [`Team::uneven`] must have stored.
pub fn uneven_checksum(n: usize) -> u64 {
    (0..n).fold(0, |sum, i| sum.wrapping_add(uneven_task(i, n)))
}

/// The wrapping sum of `results`.
pub fn checksum(results: &[AtomicU64]) -> u64 {
    results
        .iter()
        .fold(0, |sum, r| sum.wrapping_add(r.load(Ordering::Relaxed)))
}

/// SplitMix64's finalizer: a well-mixed hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The N-body backends, as `NBODY_BACKEND` names them.
pub const NBODY_BACKENDS: [&str; 11] = [
    "serial",
    "tine_static",
    "tine_dynamic",
    "fork_union_static",
    "fork_union_dynamic",
    "rayon_static",
    "rayon_dynamic",
    "rayon_in_pool_static",
    "rayon_in_pool_dynamic",
    "chili",
    "scope",
];

/// The backend and acceleration-pass schedule an [`NBODY_BACKENDS`] name
/// stands for. chili is a work-stealing (dynamic) scheduler; `scope` and
/// `serial` are static.
pub fn nbody_backend(name: &str) -> Option<(Backend, Schedule)> {
    let (backend, schedule) = match name.rsplit_once('_') {
        Some((backend, "static")) => (backend, Schedule::Static),
        Some((backend, "dynamic")) => (backend, Schedule::Dynamic),
        _ if name == "chili" => (name, Schedule::Dynamic),
        _ => (name, Schedule::Static),
    };
    Backend::from_name(backend).map(|backend| (backend, schedule))
}

/// A partner thread that answers every ping: see [`with_ping_pong`].
pub struct PingPong<'a> {
    ping: &'a CachePadded<AtomicUsize>,
    pong: &'a CachePadded<AtomicUsize>,
    sent: usize,
}

impl PingPong<'_> {
    /// One round trip of a counter to the partner and back: two cache-line
    /// transfers, the floor under any fork-join.
    #[inline]
    pub fn round_trip(&mut self) {
        self.sent += 1;
        // Release: pairs with the partner's Acquire load of `ping`.
        self.ping.0.store(self.sent, Ordering::Release);
        // Acquire: pairs with the partner's Release store to `pong`.
        while self.pong.0.load(Ordering::Acquire) != self.sent {
            spin_loop();
        }
    }
}

/// Runs `body` with a [`PingPong`] whose partner thread lives as long as
/// `body` runs, spinning on its own core.
pub fn with_ping_pong<R>(body: impl FnOnce(&mut PingPong<'_>) -> R) -> R {
    const STOP: usize = usize::MAX;
    /// Tells the partner to stop on every way out, so that a panicking
    /// `body` cannot leave the scope waiting for it forever.
    struct Stop<'a>(&'a CachePadded<AtomicUsize>);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            // Release: pairs with the partner's Acquire load of `ping`.
            self.0 .0.store(STOP, Ordering::Release);
        }
    }
    let ping = CachePadded(AtomicUsize::new(0));
    let pong = CachePadded(AtomicUsize::new(0));
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut seen = 0;
            loop {
                // Acquire: pairs with the Release stores to `ping` in
                // `round_trip` and in `Stop`.
                let next = ping.0.load(Ordering::Acquire);
                if next == STOP {
                    break;
                }
                if next == seen {
                    spin_loop();
                    continue;
                }
                // Release: pairs with `round_trip`'s Acquire load.
                pong.0.store(next, Ordering::Release);
                seen = next;
            }
        });
        let _stop = Stop(&ping);
        body(&mut PingPong {
            ping: &ping,
            pong: &pong,
            sent: 0,
        })
    })
}

/// A raw pointer shared with the threads of a hand-written loop, each of
/// which touches its own disjoint range.
pub struct SendPtr<T>(pub *mut T);

// SAFETY: users touch disjoint elements from each thread, and the pointee
// outlives the fork (every fork joins before returning).
unsafe impl<T: Send> Sync for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for SendPtr<T> {}
