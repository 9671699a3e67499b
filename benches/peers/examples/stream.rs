//! Streaming records through a pool: 10M lines counted and echoed, in
//! lines/s, against a serial loop and rayon's `par_bridge`.
//!
//! ```text
//! cargo run --release -p tine-peers --example stream
//! STREAM_LINES=1000000 STREAM_SAMPLES=3 cargo run --release -p tine-peers --example stream
//! ```
//!
//! Environment:
//! - `STREAM_LINES`: input lines, `seq 1 N` (default 10,000,000: 78.9 MB).
//! - `STREAM_SAMPLES`: runs per row; the table shows the median (default 5).
//! - `TINE_BENCH_THREADS`: threads per pool (default: available CPUs).
//!
//! Rows:
//! - *count*: every record is visited (its length summed, the records
//!   counted), nothing is written. This is forkrun's `-C p_count` workload.
//! - *parse*: every line parsed as a `u64`; the values summed in order
//!   (`map_ordered` over the lines as an iterator, against `par_bridge`,
//!   which sums in any order). `bytes` holds the sum here.
//! - *bridge collect*: `par_bridge().map(parse).collect::<Vec<u64>>()`
//!   over the lines as byte slices, and over `BufRead::lines()` (a `String`
//!   per line, as `stdin().lock().lines()` gives): tine's bridge (a lock
//!   per batch) against rayon's (a lock per item); both unordered, so the
//!   check sums the collected values. *pull only* walks the lines
//!   serially and does nothing else: no bridge can be faster than it,
//!   since one thread at a time walks the source.
//! - *echo*: every record is copied, with its newline, into the batch's
//!   output, which is written to a sink (`io::sink()`); ordered and
//!   unordered. forkrun's `-C p_echo`.
//!
//! tine reads from the in-memory input through `Read` (a copy into its read
//! buffers, as a pipe would be). rayon gets the lines as an iterator over
//! the input (no copy) and `par_bridge`s it: unordered by construction, with
//! a mutex per item. Every row checks its record and byte counts.

use rayon::iter::{ParallelBridge, ParallelIterator};
use std::convert::Infallible;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use tine::stream::{Batch, StreamOptions};

fn main() {
    let lines: usize = env_or("STREAM_LINES", 10_000_000);
    let samples: usize = env_or("STREAM_SAMPLES", 5).max(1);
    let threads = tine_peers::threads();
    let mut input = Vec::with_capacity(lines * 9);
    for i in 1..=lines {
        writeln!(input, "{i}").unwrap();
    }
    let want = Totals {
        records: lines as u64,
        bytes: (input.len() - lines) as u64,
    };
    println!(
        "{lines} lines ({:.1} MB), {threads} threads, median of {samples}",
        input.len() as f64 / 1e6
    );
    println!(
        "{:<34} {:>10} {:>12} {:>10}",
        "row", "median s", "lines/s", "vs serial"
    );

    let pool = tine::spawn_pool(threads);
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let rows: Vec<Row<'_>> = vec![
        ("serial count", Box::new(|| serial(&input, false))),
        (
            "tine stream_records count",
            Box::new(|| tine_count(&pool, &input)),
        ),
        (
            "rayon par_bridge count",
            Box::new(|| rayon.install(|| rayon_count(&input))),
        ),
        ("serial echo", Box::new(|| serial(&input, true))),
        (
            "tine stream_records echo ordered",
            Box::new(|| tine_echo(&pool, &input, true)),
        ),
        (
            "tine stream_records echo unordered",
            Box::new(|| tine_echo(&pool, &input, false)),
        ),
        (
            "rayon par_bridge echo (unordered)",
            Box::new(|| rayon.install(|| rayon_echo(&input))),
        ),
        ("serial parse", Box::new(|| serial_parse(&input))),
        (
            "tine map_ordered parse",
            Box::new(|| tine_parse(&pool, &input)),
        ),
        (
            "rayon par_bridge parse (unordered)",
            Box::new(|| rayon.install(|| rayon_parse(&input))),
        ),
        (
            "serial bridge collect",
            Box::new(|| bridged::serial(&input)),
        ),
        (
            "serial bridge collect: pull only",
            Box::new(|| bridged::pull_only(&input)),
        ),
        (
            "tine par_bridge collect",
            Box::new(|| pool.install(|| bridged::tine(&input))),
        ),
        (
            "rayon par_bridge collect",
            Box::new(|| rayon.install(|| bridged::rayon(&input))),
        ),
        (
            "serial bridge lines() collect",
            Box::new(|| bridged::serial_strings(&input)),
        ),
        (
            "tine par_bridge lines() collect",
            Box::new(|| pool.install(|| bridged::tine_strings(&input))),
        ),
        (
            "rayon par_bridge lines() collect",
            Box::new(|| rayon.install(|| bridged::rayon_strings(&input))),
        ),
    ];
    let mut serial_count = 0.0;
    let mut serial_echo = 0.0;
    let mut parse_base = 0.0;
    let mut collect_base = 0.0;
    let mut strings_base = 0.0;
    for (name, row) in &rows {
        let mut times = Vec::with_capacity(samples);
        for _ in 0..samples {
            let start = Instant::now();
            let got = row();
            times.push(start.elapsed().as_secs_f64());
            let n = lines as u64;
            let sum = Totals {
                records: n,
                bytes: n * (n + 1) / 2,
            };
            let parsed = name.contains("parse") || name.contains("collect");
            assert_eq!(got, if parsed { sum } else { want }, "{name}");
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        if *name == "serial count" {
            serial_count = median;
        }
        if *name == "serial echo" {
            serial_echo = median;
        }
        if *name == "serial parse" {
            parse_base = median;
        }
        if *name == "serial bridge collect" {
            collect_base = median;
        }
        if *name == "serial bridge lines() collect" {
            strings_base = median;
        }
        let base = if name.contains("lines()") {
            strings_base
        } else if name.contains("collect") {
            collect_base
        } else if name.contains("count") {
            serial_count
        } else if name.contains("echo") {
            serial_echo
        } else {
            parse_base
        };
        println!(
            "{name:<34} {median:>10.4} {:>11.1}M {:>9.2}x",
            lines as f64 / median / 1e6,
            base / median
        );
    }
}

/// A row: its name and one timed run.
type Row<'a> = (&'a str, Box<dyn Fn() -> Totals + 'a>);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    records: u64,
    bytes: u64,
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .map(|v| v.replace('_', "").trim().parse().expect("a whole number"))
        .unwrap_or(default)
}

fn lines_of(input: &[u8]) -> impl Iterator<Item = &[u8]> + Send {
    input
        .strip_suffix(b"\n")
        .unwrap_or(input)
        .split(|&b| b == b'\n')
}

fn serial(input: &[u8], echo: bool) -> Totals {
    let mut totals = Totals::default();
    let mut out = Vec::with_capacity(if echo { 1 << 20 } else { 0 });
    let mut sink = io::sink();
    for line in lines_of(input) {
        totals.records += 1;
        totals.bytes += line.len() as u64;
        if echo {
            out.extend_from_slice(line);
            out.push(b'\n');
            if out.len() >= 1 << 20 {
                sink.write_all(&out).unwrap();
                out.clear();
            }
        }
    }
    sink.write_all(&out).unwrap();
    totals
}

/// Visits every record of a batch: the work of both tine rows.
fn visit(batch: &Batch<'_>, out: Option<&mut Vec<u8>>, totals: &(AtomicU64, AtomicU64)) {
    let (mut records, mut bytes) = (0u64, 0u64);
    match out {
        Some(out) => {
            for record in batch.records() {
                records += 1;
                bytes += record.len() as u64;
                out.extend_from_slice(record);
                out.push(b'\n');
            }
        }
        None => {
            for record in batch.records() {
                records += 1;
                bytes += record.len() as u64;
            }
        }
    }
    totals.0.fetch_add(records, Ordering::Relaxed);
    totals.1.fetch_add(bytes, Ordering::Relaxed);
}

fn tine_count(pool: &tine::ThreadPool, input: &[u8]) -> Totals {
    let totals = (AtomicU64::new(0), AtomicU64::new(0));
    pool.stream_records(input, io::sink(), StreamOptions::default(), |batch, _| {
        visit(batch, None, &totals);
        Ok::<(), Infallible>(())
    })
    .unwrap();
    Totals {
        records: totals.0.into_inner(),
        bytes: totals.1.into_inner(),
    }
}

fn tine_echo(pool: &tine::ThreadPool, input: &[u8], ordered: bool) -> Totals {
    let totals = (AtomicU64::new(0), AtomicU64::new(0));
    let options = StreamOptions::default().ordered(ordered);
    pool.stream_records(input, io::sink(), options, |batch, out| {
        visit(batch, Some(out), &totals);
        Ok::<(), Infallible>(())
    })
    .unwrap();
    Totals {
        records: totals.0.into_inner(),
        bytes: totals.1.into_inner(),
    }
}

fn rayon_count(input: &[u8]) -> Totals {
    let (records, bytes) = lines_of(input)
        .par_bridge()
        .map(|line| (1u64, line.len() as u64))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    Totals { records, bytes }
}

fn rayon_echo(input: &[u8]) -> Totals {
    let sink = Mutex::new(io::sink());
    let (records, bytes) = lines_of(input)
        .par_bridge()
        .fold(
            || (0u64, 0u64, Vec::with_capacity(1 << 16)),
            |(records, bytes, mut out), line| {
                out.extend_from_slice(line);
                out.push(b'\n');
                if out.len() >= 1 << 16 {
                    sink.lock().unwrap().write_all(&out).unwrap();
                    out.clear();
                }
                (records + 1, bytes + line.len() as u64, out)
            },
        )
        .map(|(records, bytes, out)| {
            sink.lock().unwrap().write_all(&out).unwrap();
            (records, bytes)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    Totals { records, bytes }
}

fn parse(line: &[u8]) -> u64 {
    line.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0'))
}

fn serial_parse(input: &[u8]) -> Totals {
    let mut totals = Totals::default();
    for line in lines_of(input) {
        totals.records += 1;
        totals.bytes = totals.bytes.wrapping_add(parse(line));
    }
    totals
}

fn tine_parse(pool: &tine::ThreadPool, input: &[u8]) -> Totals {
    let mut totals = Totals::default();
    for value in pool.map_ordered(lines_of(input), parse) {
        totals.records += 1;
        totals.bytes = totals.bytes.wrapping_add(value);
    }
    totals
}

fn rayon_parse(input: &[u8]) -> Totals {
    let (records, bytes) = lines_of(input)
        .par_bridge()
        .map(|line| (1u64, parse(line)))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.wrapping_add(b.1)));
    Totals { records, bytes }
}

/// The `par_bridge().map(..).collect()` rows: lines as an iterator, parsed
/// and collected into a `Vec`.
mod bridged {
    use super::{lines_of, parse, Totals};
    use std::io::BufRead;

    fn totals(values: &[u64]) -> Totals {
        Totals {
            records: values.len() as u64,
            bytes: values.iter().fold(0u64, |a, &v| a.wrapping_add(v)),
        }
    }

    fn parse_str(line: std::io::Result<String>) -> u64 {
        parse(line.expect("in-memory input").as_bytes())
    }

    pub fn serial(input: &[u8]) -> Totals {
        totals(&lines_of(input).map(parse).collect::<Vec<u64>>())
    }

    /// Only the serial source's walk, which every bridge must make on one
    /// thread at a time: the bound on any bridge's speed. The sum is
    /// computed from the count, so that the row checks.
    pub fn pull_only(input: &[u8]) -> Totals {
        let n = lines_of(input).count() as u64;
        Totals {
            records: n,
            bytes: n * (n + 1) / 2,
        }
    }

    pub fn tine(input: &[u8]) -> Totals {
        use tine::prelude::*;
        totals(
            &lines_of(input)
                .par_bridge()
                .map(parse)
                .collect::<Vec<u64>>(),
        )
    }

    pub fn rayon(input: &[u8]) -> Totals {
        use rayon::prelude::*;
        totals(
            &lines_of(input)
                .par_bridge()
                .map(parse)
                .collect::<Vec<u64>>(),
        )
    }

    pub fn serial_strings(input: &[u8]) -> Totals {
        totals(&input.lines().map(parse_str).collect::<Vec<u64>>())
    }

    pub fn tine_strings(input: &[u8]) -> Totals {
        use tine::prelude::*;
        totals(
            &input
                .lines()
                .par_bridge()
                .map(parse_str)
                .collect::<Vec<u64>>(),
        )
    }

    pub fn rayon_strings(input: &[u8]) -> Totals {
        use rayon::prelude::*;
        totals(
            &input
                .lines()
                .par_bridge()
                .map(parse_str)
                .collect::<Vec<u64>>(),
        )
    }
}
