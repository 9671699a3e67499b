//! An async server's handlers awaiting a CPU pool: tine's `spawn_async`
//! against the two usual ways to reach rayon from async code. A tokio
//! multi-threaded runtime with 2 worker threads runs K handler tasks; each
//! awaits, back to back, `par_iter().map(|x| x * 1.5).sum::<f64>()` over
//! its own 256K `f64` on a 2-thread CPU pool, while a ticker task asks to
//! wake every millisecond and records how late the executor runs it.
//!
//! - `tine`: `pool.spawn_async(|| ..).await` on a tine pool in rayon's
//!   model (its own threads run every call).
//! - `blocking`: `tokio::task::spawn_blocking(|| pool.install(..)).await`
//!   on a rayon pool: a thread of tokio's blocking pool waits for each
//!   call.
//! - `oneshot`: a oneshot channel around `pool.spawn(..)` on a rayon pool
//!   (what the `tokio-rayon` and `async-rayon` crates do).
//!
//! Each (backend, K) cell runs in a fresh child process, backends in turns
//! (alternating their order each round), and the table gives each cell's
//! median over the rounds. Besides the requests a second and the latency of
//! each request (from its submission to its answer), it gives the fewest
//! requests any one handler got answered: a runtime that serves a few
//! handlers over and over while the others wait keeps those few handlers'
//! data in the cache, and its latency percentiles count the waiting ones
//! only once each. The `bare` row is the ceiling of a fair server: two
//! threads with no runtime that reduce the K handlers' vectors in turn,
//! each thread a whole vector at a time. A last row times an empty round
//! trip from one handler (`spawn_async(|| ()).await` and the peers'
//! equivalents).
//!
//! ```text
//! cargo run --release -p tine-peers --example async_server
//! ASYNC_CLIENTS=1,8,64 ASYNC_SECONDS=2 ASYNC_ROUNDS=5 cargo run --release -p tine-peers --example async_server
//! ```
//!
//! Environment: `ASYNC_CLIENTS` (`1,8,64`), `ASYNC_SECONDS` per cell (2),
//! `ASYNC_ROUNDS` (3), `ASYNC_BACKENDS` (`tine,blocking,oneshot`),
//! `ASYNC_TRIPS` (empty round trips a cell, 20,000).

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `q`-quantile of `sorted`, in ns.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let at = ((sorted.len() as f64 * q) as usize).min(sorted.len().saturating_sub(1));
    sorted.get(at).map_or(0.0, |d| d.as_nanos() as f64)
}

/// The CPU pool of one backend.
enum Pool {
    Tine(Arc<tine::ThreadPool>),
    Rayon(Arc<rayon::ThreadPool>),
}

/// One request's reduction.
fn reduce(data: &[f64]) -> f64 {
    use tine::prelude::*;
    data.par_iter().map(|x| x * 1.5).sum::<f64>()
}

/// The same on rayon.
fn reduce_rayon(data: &[f64]) -> f64 {
    use rayon::prelude::*;
    data.par_iter().map(|x| x * 1.5).sum::<f64>()
}

/// Awaits `work` on `pool` the way `backend` reaches it.
async fn call<R: Send + 'static>(
    backend: &str,
    pool: &Pool,
    work: impl FnOnce() -> R + Send + 'static,
) -> R {
    match (backend, pool) {
        ("tine", Pool::Tine(pool)) => pool.spawn_async(work).await,
        ("blocking", Pool::Rayon(pool)) => {
            let pool = Arc::clone(pool);
            tokio::task::spawn_blocking(move || pool.install(work))
                .await
                .expect("the blocking task")
        }
        ("oneshot", Pool::Rayon(pool)) => {
            let (send, receive) = tokio::sync::oneshot::channel();
            pool.spawn(move || {
                let _ = send.send(work());
            });
            receive.await.expect("the pool's answer")
        }
        _ => unreachable!("a backend and its pool"),
    }
}

/// K handlers for `seconds`: requests a second, p50 and p99 of their
/// latency, and the ticker's lateness p99 (ns), on one line.
fn serve(runtime: &tokio::runtime::Runtime, backend: &str, pool: Pool, clients: usize) {
    let seconds = env_or("ASYNC_SECONDS", 2.0f64);
    let pool = Arc::new(pool);
    let backend: Arc<str> = backend.into();
    // Each handler's data, built before the clock starts.
    let mut data: Vec<Arc<Vec<f64>>> = (0..clients)
        .map(|client| Arc::new((0..1 << 18).map(|i| (i + client * 7 + 1) as f64).collect()))
        .collect();
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
            .map(|_| {
                let pool = Arc::clone(&pool);
                let backend = Arc::clone(&backend);
                let data = data.pop().expect("one vector a handler");
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    while Instant::now() < deadline {
                        let start = Instant::now();
                        let data = Arc::clone(&data);
                        let tine_side = &*backend == "tine";
                        let sum = call(&backend, &pool, move || {
                            if tine_side {
                                reduce(&data)
                            } else {
                                reduce_rayon(&data)
                            }
                        })
                        .await;
                        assert!(sum > 0.0);
                        latencies.push(start.elapsed());
                    }
                    latencies
                })
            })
            .collect();
        let mut latencies = Vec::new();
        let mut fewest = usize::MAX;
        for handler in handlers {
            let answered = handler.await.expect("a handler");
            fewest = fewest.min(answered.len());
            latencies.extend(answered);
        }
        let mut lateness = ticker.await.expect("the ticker");
        latencies.sort();
        lateness.sort();
        println!(
            "{} {} {} {} {fewest}",
            latencies.len() as f64 / seconds,
            quantile(&latencies, 0.5),
            quantile(&latencies, 0.99),
            quantile(&lateness, 0.99)
        );
    });
}

/// The fair ceiling: two threads, no runtime, reducing the `clients`
/// vectors in turn for `seconds`: requests a second.
fn bare(clients: usize) {
    let seconds = env_or("ASYNC_SECONDS", 2.0f64);
    let data: Vec<Vec<f64>> = (0..clients)
        .map(|client| (0..1 << 18).map(|i| (i + client * 7 + 1) as f64).collect())
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let done: usize = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = 0;
                    while Instant::now() < deadline {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let sum: f64 = data[at % clients].iter().map(|x| x * 1.5).sum();
                        assert!(sum > 0.0);
                        done += 1;
                    }
                    done
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("a thread"))
            .sum()
    });
    println!("{} 0 0 0 {}", done as f64 / seconds, done / clients);
}

/// Empty round trips from one handler: ns each (the median of 9 batches).
fn round_trip(runtime: &tokio::runtime::Runtime, backend: &str, pool: Pool) {
    let trips: usize = env_or("ASYNC_TRIPS", 20_000);
    let batch = (trips / 9).max(1);
    runtime.block_on(async {
        for _ in 0..batch / 10 {
            call(backend, &pool, || ()).await;
        }
        let mut each = Vec::new();
        for _ in 0..9 {
            let start = Instant::now();
            for _ in 0..batch {
                call(backend, &pool, || ()).await;
            }
            each.push(start.elapsed() / batch as u32);
        }
        each.sort();
        println!("{}", each[4].as_nanos());
    });
}

/// A child: one cell, `backend:k` (`k` 0: the round trip).
fn child(spec: &str) {
    let (backend, k) = spec.split_once(':').expect("backend:k");
    let k: usize = k.parse().expect("a handler count");
    if backend == "bare" {
        return bare(k);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let pool = match backend {
        "tine" => Pool::Tine(Arc::new(
            tine::ThreadPool::builder()
                .threads(2)
                .caller_runs(false)
                .build()
                .expect("a tine pool"),
        )),
        _ => Pool::Rayon(Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .expect("a rayon pool"),
        )),
    };
    if k == 0 {
        round_trip(&runtime, backend, pool);
    } else {
        serve(&runtime, backend, pool, k);
    }
}

/// Runs one cell in a child process: its numbers.
fn run(exe: &std::path::Path, backend: &str, k: usize) -> Vec<f64> {
    let out = Command::new(exe)
        .env("ASYNC_CHILD", format!("{backend}:{k}"))
        .output()
        .expect("a child process");
    assert!(
        out.status.success(),
        "{backend} with {k} handlers failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|x| x.parse().expect("a number"))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn show(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.0} µs", ns / 1e3)
    }
}

fn main() {
    if let Ok(spec) = std::env::var("ASYNC_CHILD") {
        return child(&spec);
    }
    let clients: Vec<usize> = std::env::var("ASYNC_CLIENTS")
        .unwrap_or_else(|_| "1,8,64".into())
        .split(',')
        .map(|k| k.trim().parse().expect("ASYNC_CLIENTS: numbers"))
        .collect();
    let backends: Vec<String> = std::env::var("ASYNC_BACKENDS")
        .unwrap_or_else(|_| "tine,blocking,oneshot,bare".into())
        .split(',')
        .map(|b| b.trim().to_string())
        .collect();
    let rounds: usize = env_or("ASYNC_ROUNDS", 3);
    let exe = std::env::current_exe().expect("this example's path");
    println!(
        "{} CPUs; 2 tokio workers, a 2-thread pool; {} s a cell, {rounds} rounds (medians)\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        env_or("ASYNC_SECONDS", 2.0f64),
    );
    println!("| handlers | backend | req/s | p50 | p99 | ticker late p99 | fewest answered |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    let mut cells: Vec<Vec<Vec<f64>>> = vec![Vec::new(); backends.len()];
    for &k in clients.iter().chain([0].iter()) {
        for cell in &mut cells {
            cell.clear();
        }
        for round in 0..rounds {
            let mut order: Vec<usize> = (0..backends.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for b in order {
                if k == 0 && backends[b] == "bare" {
                    continue;
                }
                cells[b].push(run(&exe, &backends[b], k));
            }
        }
        for (b, backend) in backends.iter().enumerate() {
            if cells[b].is_empty() {
                continue;
            }
            let column = |i: usize| median(cells[b].iter().map(|f| f[i]).collect());
            if k == 0 {
                println!(
                    "| empty round trip | {backend} | | {:.2} µs | | | |",
                    column(0) / 1e3
                );
            } else if backend == "bare" {
                println!(
                    "| {k} | bare loop, in turns | {:.0} | | | | {:.0} |",
                    column(0),
                    column(4)
                );
            } else {
                println!(
                    "| {k} | {backend} | {:.0} | {} | {} | {} | {:.0} |",
                    column(0),
                    show(column(1)),
                    show(column(2)),
                    show(column(3)),
                    column(4)
                );
            }
        }
    }
}
