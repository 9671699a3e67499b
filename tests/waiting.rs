//! The waiting policy: workers and the caller cross the spin/park boundary
//! over and over, under every policy, and no fork is lost or doubled.
#![cfg(not(loom))]

mod support;

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;
use support::within;
use tine::{ThreadPool, WaitPolicy};

/// A small deterministic generator, so a failure can be replayed.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// Forks `rounds` times with random pauses between forks (up to
/// `max_pause_us`), checking every task of every fork ran exactly once.
fn stress(pool: &ThreadPool, rounds: usize, max_pause_us: u64, seed: u64) {
    let mut rng = XorShift(seed);
    let hits: Vec<AtomicU8> = (0..257).map(|_| AtomicU8::new(0)).collect();
    for round in 0..rounds {
        let n = 1 + rng.below(257) as usize;
        let visit = |prong: tine::Prong| {
            hits[prong.task_index].fetch_add(1, Relaxed);
        };
        match round % 3 {
            0 => pool.for_n(n, visit),
            1 => pool.for_n_dynamic(n, visit),
            _ => pool.for_threads(|thread_index, _| {
                hits[thread_index].fetch_add(1, Relaxed);
            }),
        }
        let expected = if round % 3 == 2 { pool.threads() } else { n };
        for (index, hit) in hits.iter().enumerate() {
            let want = u8::from(index < expected);
            assert_eq!(
                hit.swap(0, Relaxed),
                want,
                "round {round}, task {index}, seed {seed}"
            );
        }
        let pause = rng.below(max_pause_us + 1);
        if pause > 0 {
            std::thread::sleep(Duration::from_micros(pause));
        }
    }
}

#[test]
fn thousands_of_forks_across_the_spin_park_boundary() {
    // A 20 µs spin budget against pauses of 0-400 µs: most forks find some
    // workers spinning and some parked, and the caller's join parks too.
    for threads in [2, 3, 5] {
        let pool = ThreadPool::builder()
            .threads(threads)
            .spin_budget(Duration::from_micros(20))
            .build()
            .unwrap();
        stress(&pool, 1500, 400, 0x5EED + threads as u64);
    }
}

#[test]
fn every_policy_completes_forks() {
    for policy in [
        WaitPolicy::Adaptive,
        WaitPolicy::AlwaysSpin,
        WaitPolicy::AlwaysPark,
        WaitPolicy::SpinThenPark(Duration::from_micros(1)),
    ] {
        let pool = ThreadPool::builder()
            .threads(3)
            .wait_policy(policy)
            .build()
            .unwrap();
        stress(&pool, 300, 50, 7);
    }
}

#[test]
fn oversubscribed_parking_pool_completes_forks() {
    // 8 threads on however few cores: everyone parks and wakes constantly.
    let pool = ThreadPool::try_spawn(8).unwrap();
    stress(&pool, 500, 20, 11);
}

/// Parked workers do not poll: a fork after `sleep` must wake them, or it
/// never ends. The watchdog turns that hang into a failure.
#[test]
fn a_fork_after_sleep_wakes_the_parked_workers() {
    within(Duration::from_secs(60), || {
        for policy in [WaitPolicy::Adaptive, WaitPolicy::AlwaysSpin] {
            let pool = ThreadPool::builder()
                .threads(4)
                .wait_policy(policy)
                .build()
                .unwrap();
            for _ in 0..20 {
                pool.sleep(1000);
                // Time for the workers to park, so that the fork finds them
                // parked (if one has not yet, the fork still must end).
                std::thread::sleep(Duration::from_millis(2));
                let count = AtomicUsize::new(0);
                pool.for_threads(|_, _| {
                    count.fetch_add(1, Relaxed);
                });
                assert_eq!(count.load(Relaxed), 4);
            }
        }
    });
}
