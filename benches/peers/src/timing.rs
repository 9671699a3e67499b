//! Timing one call the way the examples report it: a median over batches.

use std::time::{Duration, Instant};

/// The shortest batch of calls a sample times, so that the clock's own cost
/// and resolution vanish in it.
pub const BATCH: Duration = Duration::from_micros(200);

/// Median seconds per call of `call` over `samples` batches of at least
/// [`BATCH`]. It first runs `call` for `warm_up`, sizing the batch from the
/// fastest call seen.
pub fn median_seconds(samples: usize, warm_up: Duration, mut call: impl FnMut()) -> f64 {
    let started = Instant::now();
    let mut fastest = Duration::MAX;
    while started.elapsed() < warm_up {
        let start = Instant::now();
        call();
        fastest = fastest.min(start.elapsed());
    }
    let batch = (BATCH.as_nanos() / fastest.as_nanos().max(1)).max(1) as u32;
    let mut times: Vec<f64> = (0..samples.max(1))
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                call();
            }
            start.elapsed().as_secs_f64() / f64::from(batch)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
