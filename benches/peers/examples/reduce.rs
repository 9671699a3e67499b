//! The sum of an `f32` array on every backend, in GB/s.
//!
//! ```text
//! cargo run --release -p tine-peers --example reduce -- 1000000
//! cargo run --release -p tine-peers --example reduce -- 1536
//! ```
//!
//! The argument is the element count (default 1,000,000). Environment:
//! - `TINE_BENCH_THREADS`: threads per pool (default: available CPUs).
//! - `REDUCE_SAMPLES`: timed samples per backend (default 101).
//!
//! Each backend splits the array into one share per thread, sums each share
//! into its own cache-padded partial and adds the partials (chili, which has
//! no thread index, halves the array with `join` instead; see
//! `Team::reduce`). A sample times a batch of calls long enough to dwarf the
//! clock (at least 200 µs); the table shows the median over samples. Each
//! backend's pool exists only while it is measured. Every sum is checked
//! against the serial one.

use std::hint::black_box;
use std::time::Duration;
use tine_peers::{reduction_input, sum_f32, sums_agree, Backend};

fn main() {
    let count: usize = match std::env::args().nth(1) {
        Some(arg) => arg.replace('_', "").parse().unwrap_or_else(|_| {
            eprintln!("usage: reduce [ELEMENTS], got {arg:?}");
            std::process::exit(2);
        }),
        None => 1_000_000,
    };
    let samples: usize = std::env::var("REDUCE_SAMPLES")
        .map(|v| v.trim().parse().expect("REDUCE_SAMPLES: a whole number"))
        .unwrap_or(101)
        .max(1);
    let threads = tine_peers::threads();
    let data = reduction_input(count);
    let expected = sum_f32(&data);
    let bytes = (count * std::mem::size_of::<f32>()) as f64;
    println!("sum of {count} f32 ({bytes} bytes), {threads} threads, {samples} samples\n");

    let mut rows = Vec::new();
    for backend in Backend::ALL {
        let seconds = backend.with_team(threads, |team| {
            team.enter(|team| {
                let call = || {
                    let sum = team.reduce(black_box(&data));
                    assert!(
                        sums_agree(sum, expected),
                        "{}: sum {sum} but serial gives {expected}",
                        backend.name()
                    );
                };
                tine_peers::timing::median_seconds(samples, Duration::from_millis(50), call)
            })
        });
        rows.push((backend.name(), seconds));
    }

    let tine = rows
        .iter()
        .find(|row| row.0 == "tine")
        .map_or(f64::NAN, |row| row.1);
    println!("| backend | median µs | GB/s | time vs tine |");
    println!("|---|---:|---:|---:|");
    for (name, seconds) in rows {
        println!(
            "| {name} | {:.2} | {:.2} | {:.2}x |",
            seconds * 1e6,
            bytes / seconds / 1e9,
            seconds / tine
        );
    }
}
