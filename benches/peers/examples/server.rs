//! Many callers at once: a server-shaped load on one global pool. `K`
//! client threads share the pool; each request is
//! `v.par_iter().map(|x| x * 1.5).sum::<f64>()` over the client's own
//! vector, issued back to back for a fixed time. Reports requests per
//! second and the latency percentiles, tine against rayon, each run in a
//! fresh child process (so one pool's idle workers never share the CPUs
//! with the other's measurement); the same source for both, only the crate
//! differs.
//!
//! ```text
//! cargo run --release -p tine-peers --example server
//! SERVER_CLIENTS=8 SERVER_SECONDS=10 cargo run --release -p tine-peers --example server
//! ```
//!
//! Environment:
//! - `SERVER_CLIENTS`: comma-separated client counts (default `1,4,8`).
//! - `SERVER_SECONDS`: how long each (backend, clients) cell runs (default 3).
//! - `SERVER_LEN`: `f64` elements per request (default 262144).
//! - `SERVER_ROUNDS`: how many times each cell runs, alternating the
//!   backends' order (default 1); the table shows each run.
//! - `SERVER_BACKENDS`: comma-separated subset of `tine,rayon,tine-fifo`
//!   (default `tine,rayon`); `tine-fifo` is tine with a
//!   [`call_patience`](tine::Builder::call_patience) of zero (calls run in
//!   the order they came).
//!
//! Both pools have their default size (one thread per CPU; `TINE_NUM_THREADS`
//! and `RAYON_NUM_THREADS` change it).

use std::process::Command;
use std::time::{Duration, Instant};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One client's vector: distinct per client, so no two share a cache line.
fn vector(client: usize, len: usize) -> Vec<f64> {
    (0..len).map(|i| (i + client * 7 + 1) as f64).collect()
}

/// What one child measured.
struct Cell {
    requests: usize,
    seconds: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

/// Runs the load with `clients` threads for `seconds`, calling `request`
/// on each client's vector; the latencies of every request.
fn load(clients: usize, seconds: f64, len: usize, request: fn(&[f64]) -> f64) -> Cell {
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|client| {
                scope.spawn(move || {
                    let v = vector(client, len);
                    let mut mine = Vec::new();
                    while Instant::now() < deadline {
                        let t = Instant::now();
                        std::hint::black_box(request(std::hint::black_box(&v)));
                        mine.push(t.elapsed());
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a client thread"))
            .collect()
    });
    let elapsed = start.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    Cell {
        requests: latencies.len(),
        seconds: elapsed,
        p50: at(0.50),
        p99: at(0.99),
        max: *latencies.last().expect("at least one request"),
    }
}

fn tine_request(v: &[f64]) -> f64 {
    use tine::prelude::*;
    v.par_iter().map(|x| x * 1.5).sum()
}

fn rayon_request(v: &[f64]) -> f64 {
    use rayon::prelude::*;
    v.par_iter().map(|x| x * 1.5).sum()
}

/// The child: runs one cell and prints it as one line.
fn child(spec: &str) {
    let (backend, clients) = spec.split_once(':').expect("backend:clients");
    let clients: usize = clients.parse().expect("a client count");
    let seconds: f64 = env_or("SERVER_SECONDS", 3.0);
    let len: usize = env_or("SERVER_LEN", 262_144);
    let request = match backend {
        "tine" => tine_request as fn(&[f64]) -> f64,
        "tine-fifo" => {
            tine::ThreadPool::builder()
                .call_patience(Duration::ZERO)
                .build_global()
                .expect("the global pool, built first");
            tine_request
        }
        "rayon" => rayon_request,
        other => panic!("unknown backend {other}"),
    };
    // Check the answer once, and start the pool before the clock runs.
    let v = vector(0, len);
    let serial: f64 = v.iter().map(|x| x * 1.5).sum();
    let got = request(&v);
    assert!(
        (got - serial).abs() <= serial.abs() * 1e-9,
        "{backend}: {got} != {serial}"
    );
    let cell = load(clients, seconds, len, request);
    println!(
        "{} {} {} {} {}",
        cell.requests,
        cell.seconds,
        cell.p50.as_nanos(),
        cell.p99.as_nanos(),
        cell.max.as_nanos()
    );
}

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 1000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

fn main() {
    if let Ok(spec) = std::env::var("SERVER_CHILD") {
        return child(&spec);
    }
    let clients: Vec<usize> = std::env::var("SERVER_CLIENTS")
        .unwrap_or_else(|_| "1,4,8".into())
        .split(',')
        .map(|c| c.trim().parse().expect("SERVER_CLIENTS: numbers"))
        .collect();
    let backends: Vec<String> = std::env::var("SERVER_BACKENDS")
        .unwrap_or_else(|_| "tine,rayon".into())
        .split(',')
        .map(|b| b.trim().to_string())
        .collect();
    let rounds: usize = env_or("SERVER_ROUNDS", 1);
    let exe = std::env::current_exe().expect("this example's path");
    println!(
        "{} CPUs, {} f64 per request, {} s per cell\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        env_or("SERVER_LEN", 262_144usize),
        env_or("SERVER_SECONDS", 3.0f64)
    );
    println!("| clients | backend | req/s | p50 | p99 | max |");
    println!("|---:|---|---:|---:|---:|---:|");
    for &k in &clients {
        for round in 0..rounds {
            let mut order: Vec<&String> = backends.iter().collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for backend in order {
                let out = Command::new(&exe)
                    .env("SERVER_CHILD", format!("{backend}:{k}"))
                    .output()
                    .expect("a child process");
                assert!(
                    out.status.success(),
                    "{backend} with {k} clients failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let line = String::from_utf8_lossy(&out.stdout);
                let f: Vec<f64> = line
                    .split_whitespace()
                    .map(|x| x.parse().expect("a number"))
                    .collect();
                let ns = |x: f64| Duration::from_nanos(x as u64);
                println!(
                    "| {k} | {backend} | {:.0} | {} | {} | {} |",
                    f[0] / f[1],
                    show(ns(f[2])),
                    show(ns(f[3])),
                    show(ns(f[4]))
                );
            }
        }
    }
}
