//! The floor of a fork-join when the scheduler stacks the caller and its
//! worker on one CPU (as it does beside a busy process, see `waiting`'s
//! `contended` row): two threads pinned to one CPU hand a token back and
//! forth, each calling `sched_yield` until the token is its own. A
//! fork-join needs at least that one round trip, since each side must run
//! once. For scale, the same hand-off with the threads on two CPUs.
//!
//! ```text
//! cargo run --release -p tine-peers --example stacked
//! ```
//!
//! `STACKED_ROUNDS` sets the round trips per sample (default 100,000), and
//! the table gives the median and range of 5 samples. Linux only.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Pins the calling thread to `cpu`.
fn pin(cpu: usize) {
    // SAFETY: a zeroed `cpu_set_t` is an empty set, `CPU_SET` writes inside
    // it, and `sched_setaffinity` reads `size_of` bytes of it.
    let status = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    assert_eq!(status, 0, "pinning to CPU {cpu}");
}

/// Mean ns per round trip of `rounds` hand-offs, the caller on CPU 0 and
/// the other thread on `other_cpu`.
fn round_trip(other_cpu: usize, rounds: u64) -> f64 {
    let token = Arc::new(AtomicU64::new(0));
    let theirs = Arc::clone(&token);
    let other = std::thread::spawn(move || {
        pin(other_cpu);
        for round in 0..rounds {
            // Acquire: pairs with the caller's Release store of the token.
            while theirs.load(Ordering::Acquire) != 2 * round + 1 {
                std::thread::yield_now();
            }
            // Release: pairs with the caller's Acquire load.
            theirs.store(2 * round + 2, Ordering::Release);
        }
    });
    pin(0);
    let start = Instant::now();
    for round in 0..rounds {
        // Release: pairs with the other thread's Acquire load.
        token.store(2 * round + 1, Ordering::Release);
        // Acquire: pairs with the other thread's Release store.
        while token.load(Ordering::Acquire) != 2 * round + 2 {
            std::thread::yield_now();
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / rounds as f64;
    other.join().expect("the other thread");
    ns
}

fn main() {
    let rounds = std::env::var("STACKED_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("| placement | median | range |");
    println!("|---|---:|---:|");
    let placements: &[(&str, usize)] = if cpus > 1 {
        &[
            ("both threads on CPU 0 (stacked)", 0),
            ("CPU 0 and CPU 1", 1),
        ]
    } else {
        &[("both threads on CPU 0 (stacked)", 0)]
    };
    for &(name, other_cpu) in placements {
        let mut samples: Vec<f64> = (0..5).map(|_| round_trip(other_cpu, rounds)).collect();
        samples.sort_by(f64::total_cmp);
        println!(
            "| {name} | {:.0} ns | {:.0}-{:.0} ns |",
            samples[2], samples[0], samples[4]
        );
    }
}
