//! rayon-core 1.13's threads wait without burning the cores: a thread with
//! nothing to do spins briefly, then sleeps until work or its latch comes
//! (rayon-core `sleep/README.md`; `sleep/mod.rs` `Sleep::no_work_found`
//! and `Sleep::sleep`; `registry.rs` `WorkerThread::wait_until_cold`).
//!
//! Each test measures the whole process's CPU time
//! (`CLOCK_PROCESS_CPUTIME_ID`) over about a second in which the only work
//! is a `thread::sleep` or a blocked `recv`: CPU-seconds per wall-second
//! should stay near 0 (rayon-core measures ~0.01). The bound, 0.3, is
//! generous. These tests depend on timing and on nothing else running in
//! the process, so they live in their own binary and take turns (one lock);
//! CI may choose to run them or not.
#![cfg(unix)]

use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// CPU-seconds per wall-second allowed while the only work sleeps.
const BOUND: f64 = 0.3;
const LIMIT: Duration = Duration::from_secs(20);

/// One measurement at a time: they measure the whole process.
static TURN: Mutex<()> = Mutex::new(());

fn process_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write to.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Runs `body` under a watchdog, measuring the process's CPU time over it:
/// fails if it deadlocks or burns more than [`BOUND`] CPU-s per wall-s.
fn measure<F>(behaviour: &'static str, body: F)
where
    F: FnOnce() + Send + 'static,
{
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let (done, result) = channel();
    thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (cpu, wall) = (process_cpu(), Instant::now());
            body();
            (process_cpu() - cpu, wall.elapsed())
        }));
        let _ = done.send(outcome);
    });
    match result.recv_timeout(LIMIT) {
        Ok(Ok((cpu, wall))) => {
            let rate = cpu.as_secs_f64() / wall.as_secs_f64();
            eprintln!("{behaviour}: {cpu:?} CPU over {wall:?}: {rate:.3} CPU-s/s");
            assert!(
                rate < BOUND,
                "{behaviour}: {rate:.3} CPU-s per wall-s (bound {BOUND}): {cpu:?} CPU in {wall:?}: \
                 a waiting thread spins"
            );
        }
        Ok(Err(payload)) => std::panic::resume_unwind(payload),
        Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
            panic!("DEADLOCK: no result after {LIMIT:?}: {behaviour}")
        }
    }
}

/// A 2-thread pool whose threads have started and gone idle.
fn settled_pool() -> Arc<rayon_core::ThreadPool> {
    let pool = rayon_core::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool");
    pool.broadcast(|_| ());
    thread::sleep(Duration::from_millis(200));
    Arc::new(pool)
}

/// rayon-core `join/mod.rs` `join_context` (after running `oper_a`, the
/// thread waits for the stolen `oper_b` in `WorkerThread::wait_until`,
/// which looks for other work and then sleeps: `registry.rs`
/// `wait_until_cold`, `sleep/mod.rs` `no_work_found`).
#[test]
fn a_thread_waiting_in_join_for_a_stolen_half_sleeps_instead_of_spinning() {
    let pool = settled_pool();
    measure("join whose stolen half sleeps 1 s", move || {
        pool.install(|| {
            let (started, b_started) = channel();
            rayon_core::join(
                // Returns once B runs elsewhere: B was stolen.
                move || b_started.recv().expect("the second half started"),
                move || {
                    started.send(()).unwrap();
                    thread::sleep(Duration::from_secs(1));
                },
            )
        });
    });
}

/// rayon-core `registry.rs` `Registry::in_worker_cold` (the caller blocks on
/// a `LockLatch`: a condition variable) and `main_loop` (the other worker,
/// out of work, sleeps).
#[test]
fn a_caller_waiting_in_install_and_the_idle_threads_sleep() {
    let pool = settled_pool();
    measure("install whose closure sleeps 1 s", move || {
        pool.install(|| thread::sleep(Duration::from_secs(1)));
    });
}

/// rayon-core `sleep/README.md`: idle workers go to sleep after a short
/// search for work.
#[test]
fn an_idle_pool_sleeps() {
    let pool = settled_pool();
    measure("an idle pool for 1 s", move || {
        thread::sleep(Duration::from_secs(1));
        drop(pool);
    });
}
