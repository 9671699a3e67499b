//! The stress suite: long runs, ignored by default. Run it in release:
//!
//! ```sh
//! cargo test --release --test stress -- --ignored
//! ```
//!
//! `TINE_STRESS_SCALE` (a percentage, default 100) shrinks every loop, for
//! the ThreadSanitizer run in `.ci/run`; `TINE_STRESS_NO_RSS` skips the RSS
//! check, for an AddressSanitizer build (its quarantine keeps freed memory
//! on purpose). Threads are spawned with
//! `std::thread::spawn` and joined with `join` (never `thread::scope`), so
//! ThreadSanitizer sees every join.
#![cfg(not(loom))]

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tine::{ThreadPool, WaitPolicy};

/// `count` scaled by `TINE_STRESS_SCALE` percent, at least 1.
fn scaled(count: usize) -> usize {
    let percent: usize = std::env::var("TINE_STRESS_SCALE")
        .ok()
        .and_then(|scale| scale.parse().ok())
        .unwrap_or(100);
    (count * percent / 100).max(1)
}

/// Runs the tests of this file one at a time: the leak check counts the
/// threads and memory of the whole process, which a test running beside it
/// would change.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    // A failed test poisons the lock; the next test still runs.
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A small deterministic generator, so a failure can be replayed.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

/// One call of kind `kind % 4` with `n` tasks; checks every task ran once.
fn checked_call(pool: &ThreadPool, kind: u64, n: usize, hits: &[AtomicU8]) {
    let visit = |task: usize| {
        hits[task].fetch_add(1, Relaxed);
    };
    let tasks = match kind % 4 {
        0 => {
            pool.for_threads(|thread_index, _| visit(thread_index));
            pool.threads()
        }
        1 => {
            pool.for_n(n, |prong| visit(prong.task_index));
            n
        }
        2 => {
            pool.for_slices(n, |first, count| {
                (first.task_index..first.task_index + count).for_each(visit)
            });
            n
        }
        _ => {
            pool.for_n_dynamic(n, |prong| visit(prong.task_index));
            n
        }
    };
    for (task, hit) in hits.iter().enumerate() {
        let want = u8::from(task < tasks);
        assert_eq!(
            hit.swap(0, Relaxed),
            want,
            "kind {kind}, n {n}, task {task}"
        );
    }
}

/// `forks` forks of every kind on `pool`, with a pause now and then so the
/// workers and the caller cross the spin/park boundary.
fn mixed_forks(pool: &ThreadPool, forks: usize, seed: u64) {
    let mut rng = XorShift(seed);
    let hits: Vec<AtomicU8> = (0..128).map(|_| AtomicU8::new(0)).collect();
    for fork in 0..forks {
        let n = rng.below(128) as usize;
        checked_call(pool, rng.below(4), n, &hits);
        if fork % 64 == 0 {
            match rng.below(4) {
                0 => pool.sleep(0),
                1 => std::thread::sleep(Duration::from_micros(rng.below(300))),
                _ => {}
            }
        }
    }
}

#[test]
#[ignore = "stress: run with --ignored, in release"]
fn a_million_forks_of_every_kind_across_the_spin_park_boundary() {
    let _serial = one_at_a_time();
    // A million forks in all, most on the cheap paths. Two threads, so the
    // spinning policies do not starve a thread of its core on a 2-core
    // machine (oversubscription has its own test below).
    let runs = [
        (WaitPolicy::Adaptive, 400_000),
        (WaitPolicy::SpinThenPark(Duration::from_micros(20)), 250_000),
        (WaitPolicy::AlwaysPark, 150_000),
        (WaitPolicy::AlwaysSpin, 200_000),
    ];
    for (index, (policy, forks)) in runs.into_iter().enumerate() {
        let pool = ThreadPool::builder()
            .threads(2)
            .wait_policy(policy)
            .build()
            .unwrap();
        let (forks, start) = (scaled(forks), Instant::now());
        mixed_forks(&pool, forks, 0x5eed + index as u64);
        eprintln!("{policy:?}: {forks} forks in {:?}", start.elapsed());
    }
}

#[test]
#[ignore = "stress: run with --ignored, in release"]
fn sixty_four_threads_on_two_cores() {
    let _serial = one_at_a_time();
    let pool = ThreadPool::try_spawn(64).unwrap();
    let mut rng = XorShift(64);
    let hits: Vec<AtomicU8> = (0..1024).map(|_| AtomicU8::new(0)).collect();
    for _ in 0..scaled(3_000) {
        let n = rng.below(1024) as usize;
        checked_call(&pool, rng.below(4), n, &hits);
    }
}

#[test]
#[ignore = "stress: run with --ignored, in release"]
fn concurrent_dispatch_from_eight_external_threads() {
    let _serial = one_at_a_time();
    let pool = Arc::new(ThreadPool::try_spawn(3).unwrap());
    let calls = Arc::new(AtomicUsize::new(0));
    let callers: Vec<_> = (0..8u64)
        .map(|caller| {
            let (pool, calls) = (Arc::clone(&pool), Arc::clone(&calls));
            std::thread::spawn(move || {
                let mut rng = XorShift(caller + 1);
                let hits: Vec<AtomicU8> = (0..256).map(|_| AtomicU8::new(0)).collect();
                for _ in 0..scaled(10_000) {
                    let n = rng.below(256) as usize;
                    checked_call(&pool, rng.below(4), n, &hits);
                    calls.fetch_add(1, Relaxed);
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
    assert_eq!(calls.load(Relaxed), 8 * scaled(10_000));
}

/// A field of `/proc/self/status` (`Threads`, `VmRSS` in kB, ...).
fn status(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with(field) && line[field.len()..].starts_with(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    line[field.len() + 1..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
#[ignore = "stress: run with --ignored, in release"]
fn pools_created_and_dropped_in_a_loop_leak_no_threads_or_memory() {
    let _serial = one_at_a_time();
    let round = |size: usize| {
        let pool = ThreadPool::builder()
            .threads(size)
            .name(LEAK_CHECK)
            .build()
            .unwrap();
        let hits: Vec<AtomicU8> = (0..64).map(|_| AtomicU8::new(0)).collect();
        checked_call(&pool, 3, 64, &hits);
        checked_call(&pool, 0, 0, &hits);
    };
    // Warm up: the allocator's arenas and the first thread stacks.
    for size in 1..=8 {
        round(size);
    }
    let rss_kb = status("VmRSS");
    let rounds = scaled(2_000);
    for index in 0..rounds {
        round(1 + index % 8);
    }
    // Only this test's workers count (libtest's own threads come and go).
    // A joined thread leaves the kernel's list a moment after `join`
    // returns (the join wakes as the thread exits, before it is reaped).
    let deadline = Instant::now() + Duration::from_secs(5);
    while let Some(worker) = worker_left() {
        assert!(
            Instant::now() < deadline,
            "worker {worker} outlived its pool"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    if std::env::var_os("TINE_STRESS_NO_RSS").is_some() {
        // Under AddressSanitizer: its quarantine holds freed memory back on
        // purpose, and LeakSanitizer checks for leaks instead.
        return;
    }
    let grown = status("VmRSS").saturating_sub(rss_kb);
    // 2 000 pools of up to 7 workers: a leak of one stack or one team per
    // pool would grow the RSS by far more than this.
    assert!(
        grown < 16 * 1024,
        "RSS grew by {grown} kB over {rounds} pools"
    );
}

/// The name of the leak check's pools, whose workers are `lk:0`, `lk:1`...
const LEAK_CHECK: &str = "lk";

/// A worker of the leak check's pools that `/proc/self/task` still lists.
fn worker_left() -> Option<String> {
    let tasks = std::fs::read_dir("/proc/self/task").unwrap();
    tasks.flatten().find_map(|task| {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        comm.starts_with(&format!("{LEAK_CHECK}:"))
            .then(|| comm.trim().to_string())
    })
}
