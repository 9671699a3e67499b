//! The liveness holes of issue 11, each as a scenario that used to hang (or
//! burn a core) and must now finish in seconds. Each runs under a watchdog
//! (`support::within`) so that a regression fails the test instead of hanging it.
#![cfg(not(loom))]

mod support;

use support::within;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{
    AtomicBool, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use std::sync::{Arc, Barrier};
use std::time::Duration;
use tine::{Error, Team, ThreadPool};

const LIMIT: Duration = Duration::from_secs(20);

/// The message of a caught panic payload.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    match payload.downcast_ref::<&str>() {
        Some(text) => text.to_string(),
        None => payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "<not a string>".into()),
    }
}

/// A panic payload whose `Drop` forks on the same pool.
struct ForksOnDrop {
    pool: Arc<ThreadPool>,
    forks: Arc<AtomicUsize>,
}

impl Drop for ForksOnDrop {
    fn drop(&mut self) {
        let forks = &self.forks;
        self.pool.for_threads(|_, _| {
            forks.fetch_add(1, Relaxed);
        });
    }
}

/// Hole 1: every share panics with a payload that forks on the same pool
/// when dropped. The losers are dropped after the team is handed back, so
/// their forks run for real; the winner's fork runs when the test drops it.
#[test]
fn a_losing_panic_payload_may_fork_on_the_same_pool() {
    support::serialize_panic_output();
    within(LIMIT, || {
        // A busy wait far past the watchdog: if a loser were dropped while
        // the pool is still held, its fork would wait, not run inline.
        let pool = ThreadPool::builder()
            .threads(4)
            .busy_wait(Duration::from_secs(600))
            .build()
            .unwrap();
        let pool = Arc::new(pool);
        let forks = Arc::new(AtomicUsize::new(0));
        for round in 1..=20 {
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool.for_threads(|_, _| {
                    std::panic::panic_any(ForksOnDrop {
                        pool: Arc::clone(&pool),
                        forks: Arc::clone(&forks),
                    })
                });
            }));
            // Three losers, each a full 4-thread fork, before the resume.
            assert_eq!(forks.load(Relaxed), (4 * round - 1) * 4);
            let payload = result.unwrap_err();
            assert!(payload.is::<ForksOnDrop>());
            drop(payload);
            assert_eq!(forks.load(Relaxed), 4 * round * 4);
        }
    });
}

/// Hole 2: a task spawns a helper thread that calls the same pool, and joins
/// it. The helper cannot be told apart from an independent caller; it waits
/// for the busy pool for the bounded busy wait, then runs its call inline.
#[test]
fn a_helper_thread_of_a_task_may_call_the_same_busy_pool() {
    within(LIMIT, || {
        let pool = ThreadPool::try_spawn(3).unwrap();
        let helper_tasks = AtomicUsize::new(0);
        pool.for_threads(|thread_index, _| {
            if thread_index == 1 {
                // A scoped helper, as libraries that use threads inside do.
                support::scope(|scope| {
                    scope.spawn(|| {
                        pool.for_n(100, |_| {
                            helper_tasks.fetch_add(1, Relaxed);
                        });
                    });
                });
            }
        });
        assert_eq!(helper_tasks.load(Relaxed), 100);
        // And a plain spawned helper joined by the caller's own share.
        let pool = Arc::new(pool);
        let count = Arc::new(AtomicUsize::new(0));
        pool.for_threads(|thread_index, _| {
            if thread_index == 0 {
                let (pool, count) = (Arc::clone(&pool), Arc::clone(&count));
                std::thread::spawn(move || {
                    pool.for_threads(|_, _| {
                        count.fetch_add(1, Relaxed);
                    })
                })
                .join()
                .unwrap();
            }
        });
        assert_eq!(count.load(Relaxed), 3);
    });
}

/// Hole 3: `run_worker` from inside a task of the team's own fork, while a
/// worker slot is still free, returns an error instead of turning the task
/// into a worker inside its own share.
#[test]
fn run_worker_from_inside_the_teams_own_task_is_an_error() {
    within(LIMIT, || {
        let team = Team::new(2).unwrap();
        let errors = AtomicUsize::new(0);
        support::scope(|scope| {
            scope.spawn(|| {
                // The real worker comes late, so the slot is free while the
                // caller's share runs.
                std::thread::sleep(Duration::from_millis(50));
                team.run_worker().unwrap();
            });
            team.for_threads(|thread_index, _| {
                if thread_index == 0 {
                    let error = team.run_worker().unwrap_err();
                    assert!(matches!(error, Error::WorkerInsideOwnFork), "{error:?}");
                    assert!(error.to_string().contains("inside a task"), "{error}");
                    errors.fetch_add(1, Relaxed);
                }
            });
            // A nested (inline) call counts as inside the fork too.
            team.for_threads(|_, _| {
                team.for_threads(|_, _| {
                    assert!(matches!(team.run_worker(), Err(Error::WorkerInsideOwnFork)));
                    errors.fetch_add(1, Relaxed);
                });
            });
            team.stop();
        });
        assert_eq!(errors.load(Relaxed), 1 + 2 * 2);
    });
}

/// CPU time this thread has used so far. Miri has no per-thread CPU
/// clock, so there it reads zero: under Miri these tests check that the
/// waits end and what they waited for, and native runs check the CPU bounds.
#[cfg(miri)]
fn thread_cpu_time() -> Duration {
    Duration::ZERO
}

/// CPU time this thread has used so far.
#[cfg(not(miri))]
fn thread_cpu_time() -> Duration {
    // SAFETY: getrusage writes one `rusage` into the zeroed value we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_THREAD, &mut usage), 0);
        usage
    };
    let micros = |time: libc::timeval| time.tv_sec as u64 * 1_000_000 + time.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

/// Runs a fork on `pool` whose every share runs `hold` and then counts
/// itself in the fork's finished shares; from a second thread, once the
/// fork is under way, runs `wait`, handed that count. Returns the CPU time
/// the second thread spent in `wait`.
fn wait_during_a_long_fork(
    pool: &(impl Fn(&(dyn Fn() + Sync)) + Sync),
    hold: &(dyn Fn() + Sync),
    wait: impl FnOnce(&AtomicUsize) + Send,
) -> Duration {
    let started = Barrier::new(2);
    let finished = AtomicUsize::new(0);
    support::scope(|scope| {
        let waiter = scope.spawn(|| {
            started.wait();
            let cpu = thread_cpu_time();
            wait(&finished);
            thread_cpu_time() - cpu
        });
        let first = AtomicUsize::new(0);
        pool(&|| {
            if first.fetch_add(1, Relaxed) == 0 {
                started.wait();
            }
            hold();
            finished.fetch_add(1, Relaxed);
        });
        waiter.join().unwrap()
    })
}

/// A fork's share that sleeps long enough for a waiter that spun through
/// it to show in its CPU time.
fn sleep_300_ms() {
    std::thread::sleep(Duration::from_millis(300));
}

/// Hole 4: a second caller waiting for a busy pool parks: its thread uses
/// almost no CPU over the other's 300 ms fork (it used to use all of it).
#[test]
fn a_second_caller_parks_while_the_pool_is_busy() {
    within(LIMIT, || {
        let pool = ThreadPool::builder()
            .threads(2)
            .busy_wait(Duration::from_secs(10))
            .build()
            .unwrap();
        let ran = AtomicUsize::new(0);
        let cpu = wait_during_a_long_fork(
            &|share| pool.for_threads(|_, _| share()),
            &sleep_300_ms,
            |finished| {
                let me = std::thread::current().id();
                pool.for_threads(|thread_index, _| {
                    // It waited: the long fork had ended, every share of it.
                    assert_eq!(finished.load(Relaxed), 2, "it waited for the fork");
                    if thread_index > 0 {
                        assert_ne!(std::thread::current().id(), me, "it forked");
                    }
                    ran.fetch_add(1, Relaxed);
                })
            },
        );
        assert_eq!(ran.load(Relaxed), 2, "every share ran");
        // CPU time is the property: a parked wait burns almost none of
        // the 300 ms, a spinning one nearly all of it.
        assert!(cpu < Duration::from_millis(50), "{cpu:?} of CPU");
    });
}

/// Hole 4: `stop` from another thread during a fork parks until the fork
/// joins.
#[test]
fn stop_during_a_fork_parks() {
    within(LIMIT, || {
        let team = Team::new(2).unwrap();
        support::scope(|scope| {
            scope.spawn(|| team.run_worker().unwrap());
            let cpu = wait_during_a_long_fork(
                &|share| team.for_threads(|_, _| share()),
                &sleep_300_ms,
                |finished| {
                    team.stop();
                    // It waited: `stop` returned after the fork joined.
                    assert_eq!(finished.load(Relaxed), 2, "stop waited for the fork");
                },
            );
            // CPU time is the property: a parked wait burns almost none of
            // the 300 ms, a spinning one nearly all of it.
            assert!(cpu < Duration::from_millis(50), "{cpu:?} of CPU");
        });
        assert!(team.is_stopped());
    });
}

/// The busy wait is bounded: past it, a second caller runs its call inline
/// on its own thread, while the long fork is still running. The long fork
/// lasts until that call has returned, so a caller that waited for the
/// team instead would never return (and the watchdog fails the test).
#[test]
fn past_the_busy_wait_a_second_caller_runs_inline() {
    within(LIMIT, || {
        let pool = ThreadPool::builder()
            .threads(3)
            .busy_wait(Duration::from_millis(20))
            .build()
            .unwrap();
        let ran = AtomicUsize::new(0);
        let returned = AtomicBool::new(false);
        let hold = || {
            // Acquire: pairs with the Release store below.
            while !returned.load(Acquire) {
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        wait_during_a_long_fork(
            &|share| pool.for_threads(|_, _| share()),
            &hold,
            |finished| {
                let me = std::thread::current().id();
                pool.for_threads(|_, _| {
                    assert_eq!(std::thread::current().id(), me, "inline");
                    ran.fetch_add(1, Relaxed);
                });
                assert_eq!(finished.load(Relaxed), 0, "the long fork still runs");
                // Release: pairs with the Acquire load in `hold`.
                returned.store(true, Release);
            },
        );
        assert_eq!(ran.load(Relaxed), 3, "every share ran");
    });
}

/// A nested call runs inline, and like a real fork it runs every share even
/// when some panic, then resumes the first payload (in thread order).
#[test]
fn a_nested_inline_call_runs_every_share_and_resumes_the_first_panic() {
    support::serialize_panic_output();
    within(LIMIT, || {
        let pool = ThreadPool::try_spawn(4).unwrap();
        let ran = AtomicUsize::new(0);
        let caught = AtomicUsize::new(0);
        pool.for_threads(|_, _| {
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool.for_threads(|thread_index, _| {
                    if thread_index == 1 || thread_index == 2 {
                        panic!("inner share {thread_index}");
                    }
                    ran.fetch_add(1, Relaxed);
                });
            }));
            assert_eq!(message(&*result.unwrap_err()), "inner share 1");
            caught.fetch_add(1, Relaxed);
        });
        assert_eq!(caught.load(Relaxed), 4);
        assert_eq!(
            ran.load(Relaxed),
            4 * 2,
            "shares 0 and 3 of each inner call"
        );
        // A panic in a nested dynamic call: every other task still runs.
        let tasks = AtomicUsize::new(0);
        pool.for_threads(|_, _| {
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool.for_n(40, |prong| {
                    if prong.task_index == 0 {
                        panic!("task 0");
                    }
                    tasks.fetch_add(1, Relaxed);
                });
            }));
            assert_eq!(message(&*result.unwrap_err()), "task 0");
        });
        // Share 0 of each inline for_n stops at its first task (task 0); the
        // other shares run all theirs: 30 of the 40 tasks, four times.
        assert_eq!(tasks.load(Relaxed), 4 * 30);
    });
}

/// Hole 1 on a distributed pool: the losers of every team of a spread fork
/// (not only the lead's) are dropped after all teams are handed back, and a
/// nested inline call there runs every share.
#[cfg(feature = "numa")]
mod distributed {
    use super::*;
    use tine::numa::{DistributedPool, Pin, Topology};

    struct ForksOnDrop(Arc<DistributedPool>, Arc<AtomicUsize>);

    impl Drop for ForksOnDrop {
        fn drop(&mut self) {
            let forks = &self.1;
            self.0.for_threads(|_, _| {
                forks.fetch_add(1, Relaxed);
            });
        }
    }

    /// With a busy wait far past the watchdog (see the plain pool's test).
    fn pool() -> DistributedPool {
        let path = format!(
            "{}/tests/topologies/amd-2s-epyc7451__AMD-17h-Zen-2xEpyc-7451.xml",
            env!("CARGO_MANIFEST_DIR")
        );
        let topology = Topology::from_xml_file(&path).unwrap();
        // 8 colocations of 2 threads (binding is faked on a fixture).
        DistributedPool::builder(&topology)
            .threads(16)
            .pin(Pin::Cores)
            .busy_wait(Duration::from_secs(600))
            .build()
            .unwrap()
    }

    #[test]
    fn losing_payloads_of_every_team_may_fork_on_the_same_pool() {
        support::serialize_panic_output();
        within(LIMIT, || {
            let pool = Arc::new(pool());
            let forks = Arc::new(AtomicUsize::new(0));
            for round in 1..=5 {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    pool.for_threads(|_, _| {
                        std::panic::panic_any(ForksOnDrop(Arc::clone(&pool), Arc::clone(&forks)))
                    });
                }));
                assert_eq!(forks.load(Relaxed), (16 * round - 1) * 16);
                drop(result.unwrap_err());
                assert_eq!(forks.load(Relaxed), 16 * round * 16);
            }
        });
    }

    #[test]
    fn a_nested_inline_call_runs_every_share() {
        support::serialize_panic_output();
        within(LIMIT, || {
            let pool = pool();
            let ran = AtomicUsize::new(0);
            pool.for_threads(|outer, _| {
                if outer == 3 {
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        pool.for_threads(|thread_index, _| {
                            if thread_index % 4 == 1 {
                                panic!("inner share {thread_index}");
                            }
                            ran.fetch_add(1, Relaxed);
                        })
                    }));
                    assert_eq!(message(&*result.unwrap_err()), "inner share 1");
                }
            });
            assert_eq!(ran.load(Relaxed), 12);
        });
    }
}
