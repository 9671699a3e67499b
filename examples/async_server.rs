//! An async server's handlers awaiting a CPU pool without blocking their
//! executor: a tokio multi-threaded runtime (2 worker threads) whose K
//! handler tasks each await, back to back, a parallel reduction over their
//! own 256K `f64` on a 2-thread tine pool (`ThreadPool::spawn_async`),
//! while a ticker task asks to wake every millisecond and records how late
//! the executor runs it. A handler's `.await` frees its executor thread
//! while the pool works: the ticker stays on time.
//!
//! ```text
//! cargo run --release --example async_server
//! ASYNC_CLIENTS=1,8,64 ASYNC_SECONDS=3 cargo run --release --example async_server
//! ```
//!
//! `benches/peers/examples/async_server.rs` runs the same load on rayon, by
//! the two usual ways to reach it from async code, beside tine's.

use std::sync::Arc;
use std::time::{Duration, Instant};
use tine::prelude::*;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `q`-quantile of `sorted`, in µs.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let at = ((sorted.len() as f64 * q) as usize).min(sorted.len().saturating_sub(1));
    sorted.get(at).map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

/// K handlers for `seconds` on `runtime`, each request a reduction on
/// `pool`: requests a second, the requests' latencies and the ticker's
/// lateness, sorted.
fn serve(
    runtime: &tokio::runtime::Runtime,
    pool: &Arc<tine::ThreadPool>,
    clients: usize,
    seconds: f64,
) -> (f64, Vec<Duration>, Vec<Duration>) {
    runtime.block_on(async {
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        let ticker = tokio::spawn(async move {
            let mut lateness = Vec::new();
            let mut due = tokio::time::Instant::now();
            while Instant::now() < deadline {
                due += Duration::from_millis(1);
                tokio::time::sleep_until(due).await;
                lateness.push(tokio::time::Instant::now().saturating_duration_since(due));
            }
            lateness
        });
        let handlers: Vec<_> = (0..clients)
            .map(|client| {
                let pool = Arc::clone(pool);
                tokio::spawn(async move {
                    let data: Arc<Vec<f64>> =
                        Arc::new((0..1 << 18).map(|i| (i + client) as f64).collect());
                    let mut latencies = Vec::new();
                    while Instant::now() < deadline {
                        let start = Instant::now();
                        let data = Arc::clone(&data);
                        let sum = pool
                            .spawn_async(move || data.par_iter().map(|x| x * 1.5).sum::<f64>())
                            .await;
                        assert!(sum > 0.0);
                        latencies.push(start.elapsed());
                    }
                    latencies
                })
            })
            .collect();
        let mut latencies = Vec::new();
        for handler in handlers {
            latencies.extend(handler.await.expect("a handler"));
        }
        let mut lateness = ticker.await.expect("the ticker");
        latencies.sort();
        lateness.sort();
        (latencies.len() as f64 / seconds, latencies, lateness)
    })
}

fn main() {
    let clients: Vec<usize> = std::env::var("ASYNC_CLIENTS")
        .unwrap_or_else(|_| "1,8,64".into())
        .split(',')
        .map(|k| k.trim().parse().expect("ASYNC_CLIENTS: numbers"))
        .collect();
    let seconds = env_or("ASYNC_SECONDS", 1.0f64);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let pool = Arc::new(
        tine::ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .build()
            .expect("a pool"),
    );
    println!("| handlers | req/s | p50 | p99 | ticker late p99 |");
    println!("|---:|---:|---:|---:|---:|");
    for k in clients {
        let (rate, latencies, lateness) = serve(&runtime, &pool, k, seconds);
        println!(
            "| {k} | {rate:.0} | {:.0} µs | {:.0} µs | {:.0} µs |",
            quantile(&latencies, 0.5),
            quantile(&latencies, 0.99),
            quantile(&lateness, 0.99),
        );
    }
}
