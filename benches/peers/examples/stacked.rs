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
//!
//! A second table asks whether a pair can be kept from stacking at all:
//! beside a busy process (`sh -c 'while :; do :; done'`, started here),
//! two unpinned threads hand the token over, each waiting either with
//! `sched_yield` (a yielding thread stays runnable, as tine's waits do) or
//! by blocking (`thread::park`, a futex wait: the blocked thread leaves the
//! run queue, so the scheduler may move its partner). Each side notes its
//! CPU every round; the table gives the mean round trip and the share of
//! rounds both sides ran on one CPU, over 5 samples of
//! `STACKED_ROUNDS / 10` round trips.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The CPU the calling thread runs on.
fn cpu() -> i32 {
    // SAFETY: no arguments, no memory.
    unsafe { libc::sched_getcpu() }
}

/// How a side waits for the token.
#[derive(Clone, Copy)]
enum Wait {
    /// `sched_yield` between polls.
    Yield,
    /// A short spin, then `thread::park` until the partner unparks it.
    Block,
}

/// One side's loop: waits for odd (`first`) or even tokens and passes the
/// token on, noting its CPU each round.
fn side(
    token: &AtomicU64,
    partner: &std::thread::Thread,
    first: bool,
    rounds: u64,
    wait: Wait,
) -> Vec<i32> {
    let mut cpus = Vec::with_capacity(rounds as usize);
    for round in 0..rounds {
        let (mine, next) = if first {
            (2 * round, 2 * round + 1)
        } else {
            (2 * round + 1, 2 * round + 2)
        };
        let mut polls = 0u32;
        // Acquire: pairs with the partner's Release store of the token.
        while token.load(Ordering::Acquire) != mine {
            match wait {
                Wait::Yield => std::thread::yield_now(),
                Wait::Block if polls < 64 => std::hint::spin_loop(),
                // A spurious return only polls again.
                Wait::Block => std::thread::park(),
            }
            polls += 1;
        }
        cpus.push(cpu());
        // Release: pairs with the partner's Acquire load.
        token.store(next, Ordering::Release);
        if let Wait::Block = wait {
            partner.unpark();
        }
    }
    cpus
}

/// Mean ns per round trip and the share of rounds on one CPU, for two
/// unpinned threads handing the token over `rounds` times.
fn unpinned(rounds: u64, wait: Wait) -> (f64, f64) {
    let token = Arc::new(AtomicU64::new(0));
    let caller = std::thread::current();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let theirs = Arc::clone(&token);
    let other = std::thread::spawn(move || {
        started_tx
            .send(std::thread::current())
            .expect("the caller waits");
        side(&theirs, &caller, false, rounds, wait)
    });
    let partner = started_rx.recv().expect("the other thread starts");
    let start = Instant::now();
    let mine = side(&token, &partner, true, rounds, wait);
    let ns = start.elapsed().as_nanos() as f64 / rounds as f64;
    let theirs = other.join().expect("the other thread");
    let same = mine.iter().zip(&theirs).filter(|(a, b)| a == b).count();
    (ns, same as f64 / rounds as f64)
}

/// A busy process, killed when dropped.
struct Busy(std::process::Child);

impl Drop for Busy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

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

/// Lets the calling thread run on CPUs `0..cpus` again (the pinned rows
/// pin the main thread, and new threads and processes inherit its mask).
fn unpin(cpus: usize) {
    // SAFETY: as in `pin`.
    let status = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in 0..cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    assert_eq!(status, 0, "unpinning");
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

    unpin(cpus);
    let busy = Busy(
        std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("a busy shell"),
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    println!();
    println!("| beside a busy process, unpinned | mean round trip per sample | rounds on one CPU per sample |");
    println!("|---|---|---|");
    for (name, wait) in [("sched_yield", Wait::Yield), ("block (futex)", Wait::Block)] {
        let (ns, same): (Vec<f64>, Vec<f64>) = (0..5).map(|_| unpinned(rounds / 10, wait)).unzip();
        let ns: Vec<String> = ns.iter().map(|ns| format!("{ns:.0} ns")).collect();
        let same: Vec<String> = same.iter().map(|s| format!("{:.0}%", s * 100.0)).collect();
        println!("| {name} | {} | {} |", ns.join(", "), same.join(", "));
    }
    drop(busy);
}
