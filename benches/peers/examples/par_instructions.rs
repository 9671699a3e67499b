//! Runs `PAR_CALLS` rounds of small parallel-iterator calls on the caller
//! alone (the cutoff forced serial), for counting the driver's
//! instructions with callgrind: the count per round does not depend on
//! timing, so two commits' drivers compare on a noisy host.
//!
//! ```text
//! valgrind --tool=callgrind target/release/examples/par_instructions
//! ```
//!
//! One round: scale 1536 `f32` in place, sum 16K `f32`, a zipped dot
//! product of 16K, and a `filter(..).collect()` of 4K `u32`; `PAR_ONLY`
//! (`scale`, `sum`, `dot` or `filter`) keeps one of them.

use std::hint::black_box;
use tine::par::cutoff::{set_override, Override};
use tine::prelude::*;

fn main() {
    let rounds: usize = std::env::var("PAR_CALLS")
        .ok()
        .map(|v| v.parse().expect("PAR_CALLS: a positive integer"))
        .unwrap_or(1000);
    let only = std::env::var("PAR_ONLY").unwrap_or_default();
    let run = |name: &str| only.is_empty() || only == name;
    let pool = tine::spawn_pool(2);
    set_override(Override::NeverFork);
    let mut scale = vec![1.0f32; 1536];
    let a = vec![0.5f32; 16 * 1024];
    let b = vec![2.0f32; 16 * 1024];
    let small: Vec<u32> = (0..4096).collect();
    let mut total = 0.0f32;
    let mut kept = 0usize;
    for _ in 0..rounds {
        if run("scale") {
            scale
                .par_iter_mut()
                .with_pool(&pool)
                .for_each(|x| *x *= 1.000_001);
        }
        if run("sum") {
            total += black_box(&a).par_iter().with_pool(&pool).sum::<f32>();
        }
        if run("dot") {
            total += black_box(&a)
                .par_iter()
                .zip(black_box(&b).par_iter())
                .with_pool(&pool)
                .map(|(x, y)| x * y)
                .sum::<f32>();
        }
        if run("filter") {
            let odd: Vec<u32> = black_box(&small)
                .par_iter()
                .with_pool(&pool)
                .copied()
                .filter(|x| x % 2 == 1)
                .collect();
            kept += odd.len();
        }
    }
    black_box((total, kept, &scale));
}
