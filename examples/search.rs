//! Brute-force nearest-neighbour search over f32 vectors, NUMA-aware against
//! naive: a memory-bound scan, where the node the data lives on decides the
//! speed.
//!
//! - NUMA-aware: a [`DistributedPool`] with one pinned team per node, and the
//!   vectors in a [`RoundRobinVec`], sharded so that each node's threads scan
//!   only the shard on their own node (and touched it first).
//! - Naive: one unpinned [`tine::ThreadPool`] with the same thread count,
//!   and the vectors in a plain `Vec` that the caller filled, so every page
//!   sits on the caller's node.
//!
//! ```text
//! cargo run --release --features numa --example search
//! SEARCH_SCOPE=1024 SEARCH_THREADS=32 cargo run --release --features numa --example search
//! ```
//!
//! - `SEARCH_SCOPE`: the data set in MiB (default 256).
//! - `SEARCH_THREADS`: threads for both variants (default: every usable
//!   hardware thread).
//! - `SEARCH_QUERIES`: queries per round (default 32).
//! - `SEARCH_PIN`: how the NUMA-aware pool pins threads within a node:
//!   `threads` (one per hardware thread, the default), `cores`, or `none`
//!   (anywhere on the node's CPUs).
//! - `SEARCH_ROUNDS`: rounds, each running every query on both variants in
//!   turn; the table gives the median round (default 5).
//!
//! Both variants must return the same nearest vector for every query; the
//! example checks that. On a one-node machine the two do the same work, so
//! expect a ratio near 1.

use std::sync::Mutex;
use std::time::Instant;
use tine::numa::{DistributedPool, Pin, RoundRobinVec, Topology};

/// Dimensions per vector: 512 bytes each.
const DIMENSIONS: usize = 128;

#[derive(Clone, Copy)]
#[repr(align(64))]
struct Vector([f32; DIMENSIONS]);

/// A deterministic pseudo-random vector (splitmix64 on the index).
fn vector(index: usize, salt: u64) -> Vector {
    let mut state = (index as u64) ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut values = [0f32; DIMENSIONS];
    for value in &mut values {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        *value = (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0;
    }
    Vector(values)
}

fn distance(a: &Vector, b: &Vector) -> f32 {
    // Eight partial sums, so the compiler can vectorize without reordering
    // one long dependency chain.
    let mut partial = [0f32; 8];
    for (x, y) in a.0.chunks_exact(8).zip(b.0.chunks_exact(8)) {
        for lane in 0..8 {
            let d = x[lane] - y[lane];
            partial[lane] += d * d;
        }
    }
    partial.iter().sum()
}

/// The nearest of `chunk` (whose first element has index `first`) to
/// `query`, as (distance, index).
fn nearest_in(chunk: &[Vector], first: usize, query: &Vector) -> (f32, usize) {
    let mut best = (f32::INFINITY, usize::MAX);
    for (offset, candidate) in chunk.iter().enumerate() {
        let d = distance(candidate, query);
        if d < best.0 {
            best = (d, first + offset);
        }
    }
    best
}

/// One slot per thread for its best match, merged after the fork.
struct Best(Vec<Mutex<(f32, usize)>>);

impl Best {
    fn new(threads: usize) -> Self {
        Best(
            (0..threads)
                .map(|_| Mutex::new((f32::INFINITY, usize::MAX)))
                .collect(),
        )
    }

    fn offer(&self, thread: usize, candidate: (f32, usize)) {
        let mut slot = self.0[thread].lock().unwrap();
        if candidate.0 < slot.0 || (candidate.0 == slot.0 && candidate.1 < slot.1) {
            *slot = candidate;
        }
    }

    /// The overall best, resetting every slot.
    fn take(&self) -> usize {
        let mut best = (f32::INFINITY, usize::MAX);
        for slot in &self.0 {
            let mut slot = slot.lock().unwrap();
            if slot.0 < best.0 || (slot.0 == best.0 && slot.1 < best.1) {
                best = *slot;
            }
            *slot = (f32::INFINITY, usize::MAX);
        }
        best.1
    }
}

fn env_usize(name: &str) -> Option<usize> {
    let text = std::env::var(name).ok()?;
    match text.trim().parse() {
        Ok(value) if value > 0 => Some(value),
        _ => {
            eprintln!("{name} must be a positive whole number, got {text:?}");
            std::process::exit(2);
        }
    }
}

fn main() -> Result<(), tine::Error> {
    let topology = Topology::discover()?;
    let scope_mib = env_usize("SEARCH_SCOPE").unwrap_or(256);
    let threads = env_usize("SEARCH_THREADS").unwrap_or(topology.hardware_threads());
    let queries = env_usize("SEARCH_QUERIES").unwrap_or(32);
    let rounds = env_usize("SEARCH_ROUNDS").unwrap_or(5);
    let count = scope_mib * (1 << 20) / std::mem::size_of::<Vector>();
    let queries: Vec<Vector> = (0..queries).map(|q| vector(q, 0xABCD)).collect();

    println!(
        "search: {count} vectors of {DIMENSIONS} f32 ({scope_mib} MiB), {} queries, \
         {threads} threads, {} NUMA node(s) with CPUs ({} in all)",
        queries.len(),
        topology.colocations().len(),
        topology.nodes().len(),
    );

    // NUMA-aware.
    let pin = match std::env::var("SEARCH_PIN").as_deref() {
        Ok("none") => Pin::None,
        Ok("cores") => Pin::Cores,
        Ok("threads") | Err(_) => Pin::HardwareThreads,
        Ok(other) => {
            eprintln!("SEARCH_PIN must be threads, cores or none, got {other:?}");
            std::process::exit(2);
        }
    };
    let aware_pool = DistributedPool::builder(&topology)
        .threads(threads.max(topology.colocations().len()))
        .pin(pin)
        .strict_pinning(false)
        .build()?;
    let sharded = RoundRobinVec::from_fn(&aware_pool, count, |i| vector(i, 1))?;
    let aware_best = Best::new(aware_pool.threads());
    let run_aware = |answers: &mut Vec<usize>| {
        for query in &queries {
            sharded.par_for_each_chunk(&aware_pool, |prong, chunk| {
                let found = nearest_in(chunk, prong.task_index, query);
                aware_best.offer(prong.thread_index, found);
            });
            answers.push(aware_best.take());
        }
    };

    // Naive: one pool, the data on the caller's node.
    let naive_pool = tine::ThreadPool::try_spawn(threads)?;
    let flat: Vec<Vector> = (0..count).map(|i| vector(i, 1)).collect();
    let naive_best = Best::new(naive_pool.threads());
    let run_naive = |answers: &mut Vec<usize>| {
        for query in &queries {
            naive_pool.for_slices(count, |first, n| {
                let chunk = &flat[first.task_index..first.task_index + n];
                let found = nearest_in(chunk, first.task_index, query);
                naive_best.offer(first.thread_index, found);
            });
            answers.push(naive_best.take());
        }
    };

    // Each round runs both variants, in turn, the first one alternating, so
    // drift on a shared machine and any order effect hit both alike.
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        let (mut aware_answers, mut naive_answers) = (Vec::new(), Vec::new());
        for variant in [round % 2, 1 - round % 2] {
            let start = Instant::now();
            if variant == 0 {
                run_aware(&mut aware_answers);
            } else {
                run_naive(&mut naive_answers);
            }
            times[variant].push(start.elapsed().as_secs_f64());
        }
        assert_eq!(
            aware_answers, naive_answers,
            "the two variants found different neighbours"
        );
    }
    let median = |samples: &mut Vec<f64>| {
        samples.sort_by(f64::total_cmp);
        samples[samples.len() / 2]
    };
    let (aware, naive) = (median(&mut times[0]), median(&mut times[1]));
    let gib = (scope_mib * queries.len()) as f64 / 1024.0;
    println!();
    println!("| variant (median of {rounds} rounds) | queries/s | GiB/s scanned | vs naive |");
    println!("|---|---:|---:|---:|");
    for (name, seconds) in [
        ("NUMA-aware (DistributedPool + RoundRobinVec)", aware),
        ("naive (one ThreadPool, memory on one node)", naive),
    ] {
        println!(
            "| {name} | {:.1} | {:.2} | {:.2}x |",
            queries.len() as f64 / seconds,
            gib / seconds,
            naive / seconds,
        );
    }
    Ok(())
}
