//! Behaviour of the std `ThreadPool` and the `Team` core: coverage of every
//! index, panics, nesting, concurrency, oversubscription and errors.
#![cfg(not(loom))]

mod scale;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier, OnceLock};
use tine::{Error, ForkJoin, Prong, Team, ThreadPool};

/// Which backend a coverage check runs.
#[derive(Clone, Copy, Debug)]
enum Schedule {
    Static,
    Slices,
    Dynamic,
}

/// Runs `n` tasks through `schedule` on `pool` and checks that each index is
/// visited exactly once by a valid thread.
fn check_coverage(pool: &ThreadPool, schedule: Schedule, n: usize) {
    let hits: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let threads = pool.threads();
    let visit = |prong: Prong| {
        assert!(prong.thread_index < threads, "{prong:?}");
        assert_eq!(prong.colocation_index, 0);
        hits[prong.task_index].fetch_add(1, Relaxed);
    };
    match schedule {
        Schedule::Static => pool.for_n(n, visit),
        Schedule::Dynamic => pool.for_n_dynamic(n, visit),
        Schedule::Slices => pool.for_slices(n, |first, count| {
            assert!(count > 0);
            for task_index in first.task_index..first.task_index + count {
                visit(Prong {
                    task_index,
                    ..first
                });
            }
        }),
    }
    for (index, hit) in hits.iter().enumerate() {
        assert_eq!(
            hit.load(Relaxed),
            1,
            "{schedule:?}: task {index} of {n} on {threads} threads"
        );
    }
}

#[test]
fn every_index_is_visited_exactly_once() {
    for threads in 1..=8 {
        let pool = ThreadPool::try_spawn(threads).unwrap();
        let mut sizes = vec![
            0,
            1,
            threads - 1,
            threads,
            threads + 1,
            scale::size(1000),
            scale::size(10007),
        ];
        sizes.dedup();
        for &n in &sizes {
            for schedule in [Schedule::Static, Schedule::Slices, Schedule::Dynamic] {
                check_coverage(&pool, schedule, n);
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(scale::proptest_config(48))]
    #[test]
    fn random_shapes_visit_each_index_once(threads in 1usize..=12, n in 0usize..scale::size(4000)) {
        let pool = ThreadPool::try_spawn(threads).unwrap();
        for schedule in [Schedule::Static, Schedule::Slices, Schedule::Dynamic] {
            check_coverage(&pool, schedule, n);
        }
    }
}

#[test]
fn for_threads_runs_each_thread_once_with_the_caller_as_thread_zero() {
    let pool = ThreadPool::try_spawn(5).unwrap();
    let hits: Vec<AtomicUsize> = (0..5).map(|_| AtomicUsize::new(0)).collect();
    let caller = std::thread::current().id();
    pool.for_threads(|thread_index, colocation_index| {
        assert_eq!(colocation_index, 0);
        assert_eq!(thread_index == 0, std::thread::current().id() == caller);
        hits[thread_index].fetch_add(1, Relaxed);
    });
    assert!(hits.iter().all(|hit| hit.load(Relaxed) == 1));
}

#[test]
fn slices_are_contiguous_fair_and_in_thread_order() {
    let pool = ThreadPool::try_spawn(4).unwrap();
    let ranges: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(usize::MAX)).collect();
    pool.for_slices(10, |first, count| {
        ranges[2 * first.thread_index].store(first.task_index, Relaxed);
        ranges[2 * first.thread_index + 1].store(count, Relaxed);
    });
    let ranges: Vec<usize> = ranges.iter().map(|r| r.load(Relaxed)).collect();
    // 10 over 4 threads: 3, 3, 2, 2.
    assert_eq!(ranges, [0, 3, 3, 3, 6, 2, 8, 2]);
}

/// The message of a caught panic payload.
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<&str>() {
        Ok(text) => text.to_string(),
        Err(payload) => *payload.downcast::<String>().expect("a string payload"),
    }
}

/// After a fork panicked, the pool must still run a full fork.
fn assert_usable(pool: &ThreadPool) {
    let count = AtomicUsize::new(0);
    pool.for_n(1000, |_| {
        count.fetch_add(1, Relaxed);
    });
    assert_eq!(count.load(Relaxed), 1000);
    let threads = AtomicUsize::new(0);
    pool.for_threads(|_, _| {
        threads.fetch_add(1, Relaxed);
    });
    assert_eq!(threads.load(Relaxed), pool.threads());
}

/// Share `panicking` of a `threads`-thread fork panics while the others
/// sleep 20 ms: the payload must resume only after every other share ran to
/// its end, and the pool must stay usable.
fn check_a_panicking_share(threads: usize, panicking: usize) {
    support::serialize_panic_output();
    let pool = ThreadPool::try_spawn(threads).unwrap();
    let finished = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool.for_threads(|thread_index, _| {
            if thread_index == panicking {
                panic!("share {panicking} failed");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            finished.fetch_add(1, Relaxed);
        });
    }));
    assert_eq!(
        message(result.unwrap_err()),
        format!("share {panicking} failed")
    );
    assert_eq!(finished.load(Relaxed), threads - 1);
    assert_usable(&pool);
}

#[test]
fn a_worker_panic_reaches_the_caller_after_the_join() {
    check_a_panicking_share(4, 2);
}

#[test]
fn a_caller_panic_waits_for_the_workers_before_unwinding() {
    check_a_panicking_share(3, 0);
}

#[test]
fn a_panic_in_a_dynamic_task_still_runs_the_rest() {
    let pool = ThreadPool::try_spawn(4).unwrap();
    let ran = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool.for_n_dynamic(1000, |prong| {
            if prong.task_index == 500 {
                panic!("task 500 failed");
            }
            ran.fetch_add(1, Relaxed);
        });
    }));
    assert_eq!(message(result.unwrap_err()), "task 500 failed");
    // The panicking share stops after its one claim; the others drain the
    // counter, so only task 500 is missing.
    assert_eq!(ran.load(Relaxed), 999);
    assert_usable(&pool);
}

/// A panic payload that counts its drops.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn when_every_share_panics_one_payload_resumes_and_the_rest_are_dropped() {
    support::serialize_panic_output();
    let pool = ThreadPool::try_spawn(4).unwrap();
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    for round in 1..=20 {
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.for_threads(|_, _| std::panic::panic_any(Counted(&DROPS)));
        }));
        let payload = result.unwrap_err();
        assert!(payload.is::<Counted<'static>>());
        // The three losing payloads were dropped before the call returned
        // (after the team was handed back)...
        assert_eq!(DROPS.load(Relaxed), 4 * round - 1);
        // ...and the winner is the caller's to drop.
        drop(payload);
        assert_eq!(DROPS.load(Relaxed), 4 * round);
    }
    assert_usable(&pool);
}

#[test]
fn nested_dispatch_from_a_task_runs_inline() {
    let pool = ThreadPool::try_spawn(4).unwrap();
    let inner = AtomicUsize::new(0);
    let inner_threads = AtomicUsize::new(0);
    pool.for_n(8, |outer| {
        let me = std::thread::current().id();
        pool.for_n(100, |_| {
            assert_eq!(std::thread::current().id(), me, "nested calls run inline");
            inner.fetch_add(1, Relaxed);
        });
        pool.for_n_dynamic(10, |_| {
            inner.fetch_add(1, Relaxed);
        });
        pool.for_threads(|_, _| {
            inner_threads.fetch_add(1, Relaxed);
        });
        let _ = outer;
    });
    assert_eq!(inner.load(Relaxed), 8 * 110);
    // Inline for_threads still calls every thread index once.
    assert_eq!(inner_threads.load(Relaxed), 8 * 4);
}

#[test]
fn a_second_pool_dispatched_from_a_task_runs_in_parallel() {
    let outer = ThreadPool::try_spawn(2).unwrap();
    let inner = ThreadPool::try_spawn(3).unwrap();
    let total = AtomicUsize::new(0);
    outer.for_threads(|_, _| {
        // Both outer threads race for `inner`: one gets it, the other runs
        // inline, and neither waits for the other.
        inner.for_n(300, |_| {
            total.fetch_add(1, Relaxed);
        });
    });
    assert_eq!(total.load(Relaxed), 600);
}

#[test]
fn concurrent_dispatch_from_four_threads_is_serialized() {
    // A busy wait long enough that no caller gives up and runs inline, even
    // on a loaded machine.
    let pool = ThreadPool::builder()
        .threads(3)
        .busy_wait(std::time::Duration::from_secs(60))
        .build()
        .unwrap();
    let pool = Arc::new(pool);
    let start = Arc::new(Barrier::new(4));
    let callers: Vec<_> = (0..4)
        .map(|caller| {
            let pool = Arc::clone(&pool);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                for round in 0..scale::size(200) {
                    let n = 50 + caller * 7 + round % 5;
                    let hits: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
                    let on_workers = AtomicUsize::new(0);
                    let visit = |prong: Prong| {
                        hits[prong.task_index].fetch_add(1, Relaxed);
                        if prong.thread_index > 0 {
                            on_workers.fetch_add(1, Relaxed);
                        }
                    };
                    if round % 2 == 0 {
                        pool.for_n(n, visit);
                        // Serialized, not inlined: the workers ran their
                        // static shares.
                        assert_eq!(on_workers.load(Relaxed), n - n.div_ceil(3));
                    } else {
                        pool.for_n_dynamic(n, visit);
                        // Each worker runs at least its pre-assigned task.
                        assert!(on_workers.load(Relaxed) >= 2);
                    }
                    assert!(hits.iter().all(|hit| hit.load(Relaxed) == 1));
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
}

/// The regression test of the aliasing bug Miri found: a worker counted its
/// share done inside a function that still held a reference into the
/// caller's fork, so the caller could free the fork's closure (here, a
/// `Box` dropped the moment the fork returns) while that reference was
/// protected. Natively it cannot fail; under Miri (Stacked and Tree
/// Borrows) it did, and must not again.
#[test]
fn a_forks_closure_may_be_freed_as_soon_as_the_fork_returns() {
    let pool = ThreadPool::try_spawn(3).unwrap();
    let total = AtomicUsize::new(0);
    support::scope(|scope| {
        for caller in 0..2 {
            let (pool, total) = (&pool, &total);
            scope.spawn(move || {
                for round in 0..scale::size(300) {
                    // State the closure borrows, freed right after the fork.
                    let state = Box::new([caller + round; 4]);
                    pool.for_threads(|thread_index, _| {
                        total.fetch_add(state[thread_index % 4] - caller - round + 1, Relaxed);
                    });
                    drop(state);
                }
            });
        }
    });
    assert_eq!(total.load(Relaxed), 2 * scale::size(300) * 3);
}

#[test]
fn sixteen_threads_on_two_cores_complete_a_thousand_forks() {
    let pool = ThreadPool::try_spawn(16).unwrap();
    let count = AtomicUsize::new(0);
    let forks = scale::size(1000);
    for _ in 0..forks {
        pool.for_threads(|_, _| {
            count.fetch_add(1, Relaxed);
        });
    }
    assert_eq!(count.load(Relaxed), 16 * forks);
}

#[test]
fn a_pool_can_live_in_a_static() {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    let pool = POOL.get_or_init(|| tine::spawn_pool(2));
    let count = AtomicUsize::new(0);
    pool.for_n(10, |_| {
        count.fetch_add(1, Relaxed);
    });
    assert_eq!(count.load(Relaxed), 10);
}

#[test]
fn zero_threads_is_an_error_with_a_clear_message() {
    let error = ThreadPool::try_spawn(0).unwrap_err();
    assert!(matches!(error, Error::ZeroThreads));
    assert!(error.to_string().contains("at least 1 thread"), "{error}");
    assert!(matches!(Team::new(0), Err(Error::ZeroThreads)));
}

#[test]
fn a_name_with_a_nul_byte_is_an_error() {
    let error = ThreadPool::try_named_spawn("bad\0name", 2).unwrap_err();
    assert!(matches!(error, Error::InvalidName), "{error:?}");
}

#[test]
#[cfg_attr(miri, ignore = "Miri maps no thread stacks, so it refuses none")]
fn an_os_refusal_to_spawn_is_an_error_not_a_panic() {
    // No machine can map a stack of a quarter of the address space.
    let error = ThreadPool::builder()
        .threads(3)
        .stack_size(1 << (usize::BITS - 2))
        .build()
        .unwrap_err();
    match &error {
        Error::Spawn { index: 1, .. } => {}
        other => panic!("expected a spawn error for worker 1, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .contains("refused to start worker thread 1"),
        "{error}"
    );
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
#[should_panic(expected = "tine::spawn_pool(0) failed")]
fn spawn_panics_with_a_clear_message() {
    let _ = tine::spawn_pool(0);
}

#[test]
fn workers_are_named_and_joined_on_drop() {
    let pool = ThreadPool::try_named_spawn("named", 3).unwrap();
    let names: Vec<OnceLock<String>> = (0..3).map(|_| OnceLock::new()).collect();
    pool.for_threads(|thread_index, _| {
        let name = std::thread::current()
            .name()
            .unwrap_or_default()
            .to_string();
        names[thread_index].set(name).unwrap();
    });
    assert_eq!(names[1].get().unwrap(), "named:1");
    assert_eq!(names[2].get().unwrap(), "named:2");
    drop(pool);
    // A joined thread leaves `/proc/self/task` a moment after `join` returns
    // (the join wakes as the thread exits, before it is reaped): look again
    // for up to 5 s. (Miri's isolation hides `/proc`.)
    #[cfg(all(target_os = "linux", not(miri)))]
    for attempt in 0.. {
        let left = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .flatten()
            .map(|task| std::fs::read_to_string(task.path().join("comm")).unwrap_or_default())
            .find(|comm| comm.starts_with("named:"));
        let Some(comm) = left else { break };
        assert!(attempt < 5000, "{comm} outlived its pool");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn a_team_runs_on_threads_the_embedder_owns() {
    let team = Team::new(4).unwrap();
    let (n, rounds, dynamic) = (scale::size(5000), scale::size(50), scale::size(100));
    let hits: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    support::scope(|scope| {
        for _ in 1..team.threads() {
            scope.spawn(|| team.run_worker().unwrap());
        }
        for _ in 0..rounds {
            team.for_n_dynamic(dynamic, |prong| {
                hits[prong.task_index].fetch_add(1, Relaxed);
            });
        }
        team.for_n(n, |prong| {
            hits[prong.task_index].fetch_add(1, Relaxed);
        });
        // Every slot is taken: a fourth worker is refused, not left hanging.
        assert!(matches!(
            team.run_worker(),
            Err(Error::NoWorkerSlot { workers: 3 })
        ));
        team.stop();
    });
    assert!(team.is_stopped());
    for (index, hit) in hits.iter().enumerate() {
        let expected = if index < dynamic { rounds + 1 } else { 1 };
        assert_eq!(usize::from(hit.load(Relaxed)), expected, "task {index}");
    }
    // After stop, calls still work: on the caller alone.
    let count = AtomicUsize::new(0);
    team.for_threads(|_, _| {
        count.fetch_add(1, Relaxed);
    });
    assert_eq!(count.load(Relaxed), 4);
}

/// `stop` from inside a task, from the caller's share, and from another
/// thread while a fork runs: the fork in flight still completes on every
/// thread, the workers then leave, and later calls run on the caller.
#[test]
fn stop_from_anywhere_lets_the_fork_finish_and_the_workers_leave() {
    for from in ["worker share", "caller share", "other thread"] {
        for _ in 0..scale::size(50) {
            let team = Team::new(4).unwrap();
            let ran = AtomicUsize::new(0);
            let in_fork = Barrier::new(2);
            support::scope(|scope| {
                for _ in 1..team.threads() {
                    scope.spawn(|| team.run_worker().unwrap());
                }
                if from == "other thread" {
                    scope.spawn(|| {
                        in_fork.wait();
                        team.stop();
                    });
                }
                team.for_threads(|thread_index, _| {
                    match (from, thread_index) {
                        ("worker share", 2) | ("caller share", 0) => team.stop(),
                        ("other thread", 0) => {
                            in_fork.wait();
                        }
                        _ => {}
                    }
                    ran.fetch_add(1, Relaxed);
                });
                assert_eq!(ran.load(Relaxed), 4, "stop from {from}");
                // The workers leave on their own: the scope can end.
            });
            assert!(team.is_stopped());
            team.for_threads(|_, _| {
                ran.fetch_add(1, Relaxed);
            });
            assert_eq!(ran.load(Relaxed), 8);
        }
    }
}

/// A stop that reaches a team through another pool's worker: a task of
/// team A forks on pool B, and B's worker stops A. B's worker is (through
/// B's dispatcher) inside A's fork, so it must not wait for A.
#[test]
fn stop_through_a_nested_pool_does_not_deadlock() {
    let team = Team::new(3).unwrap();
    let inner = ThreadPool::try_spawn(2).unwrap();
    let ran = AtomicUsize::new(0);
    support::scope(|scope| {
        for _ in 1..team.threads() {
            scope.spawn(|| team.run_worker().unwrap());
        }
        team.for_threads(|outer, _| {
            if outer == 1 {
                inner.for_threads(|thread_index, _| {
                    if thread_index == 1 {
                        team.stop();
                    }
                });
            }
            ran.fetch_add(1, Relaxed);
        });
    });
    assert_eq!(ran.load(Relaxed), 3);
    assert!(team.is_stopped());
}

#[test]
fn try_stop_only_stops_an_idle_team() {
    let team = Team::new(2).unwrap();
    support::scope(|scope| {
        scope.spawn(|| team.run_worker().unwrap());
        team.for_threads(|_, _| assert!(!team.try_stop(), "the team is busy"));
        assert!(!team.is_stopped());
        assert!(team.try_stop());
    });
    assert!(team.is_stopped());
}

#[test]
fn a_late_worker_is_waited_for_not_missed() {
    let team = Team::new(2).unwrap();
    let count = AtomicUsize::new(0);
    support::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            team.run_worker().unwrap();
        });
        // Dispatched before the worker exists: the fork waits for it.
        team.for_threads(|_, _| {
            count.fetch_add(1, Relaxed);
        });
        team.stop();
    });
    assert_eq!(count.load(Relaxed), 2);
}

#[test]
fn the_best_micro_yield_and_every_available_one_run() {
    use tine::arch::{MicroYield, Yielder};
    let available: Vec<Yielder> = Yielder::available().collect();
    assert!(!available.is_empty());
    for yielder in &available {
        for _ in 0..scale::size(1000) {
            yielder.micro_yield();
        }
    }
    assert_eq!(Yielder::best(), *available.last().unwrap());
    // Miri runs no inline assembly (CPUID, RDTSC).
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), not(miri)))]
    {
        // TPAUSE is offered exactly when CPUID reports WAITPKG.
        let has_tpause = available.iter().any(|y| y.name() == "x86-tpause");
        assert_eq!(has_tpause, tine::arch::x86::has_waitpkg());
        assert!(tine::arch::x86::tsc_ticks_per_microsecond().unwrap_or(1) > 0);
    }
    #[cfg(target_arch = "aarch64")]
    {
        // YIELD is always offered; WFET exactly when the kernel reports
        // FEAT_WFxT, with a deadline of at least one counter tick.
        assert!(available.iter().any(|y| y.name() == "aarch64-yield"));
        let has_wfet = available.iter().any(|y| y.name() == "aarch64-wfet");
        assert_eq!(has_wfet, tine::arch::aarch64::has_wfxt());
        if let Some(wfet) = tine::arch::aarch64::Wfet::detect() {
            assert!(wfet.ticks() >= 1);
        }
    }
}

/// A user's own `ForkJoin`: forks by running every share on the caller,
/// as the simplest valid implementation does.
struct Serial(usize);

// SAFETY: every index in `0..threads` runs once, on the caller, even if
// some panic, before `fork_join` returns or resumes the first panic.
unsafe impl ForkJoin for Serial {
    fn threads(&self) -> usize {
        self.0
    }

    fn fork_join(&self, share: &tine::Share<'_>) {
        let mut first_panic = None;
        for thread_index in 0..self.0 {
            let ran = catch_unwind(AssertUnwindSafe(|| share(thread_index, 0)));
            if let Err(payload) = ran {
                first_panic.get_or_insert(payload);
            }
        }
        if let Some(payload) = first_panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// Generic code over the trait: every schedule, checked for exact coverage.
fn check_every_schedule(pool: &impl ForkJoin, n: usize) {
    let hits: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let threads = pool.threads();
    let visit = |prong: Prong| {
        assert!(prong.thread_index < threads, "{prong:?}");
        hits[prong.task_index].fetch_add(1, Relaxed);
    };
    pool.for_n(n, visit);
    pool.for_n_dynamic(n, visit);
    pool.for_slices(n, |first, count| {
        for task_index in first.task_index..first.task_index + count {
            visit(Prong {
                task_index,
                ..first
            });
        }
    });
    assert!(hits.iter().all(|hits| hits.load(Relaxed) == 3), "n={n}");
    let ran = AtomicUsize::new(0);
    pool.for_threads(|_, _| {
        ran.fetch_add(1, Relaxed);
    });
    assert_eq!(ran.into_inner(), threads);
}

#[test]
fn every_pool_type_runs_the_schedules_written_once_in_the_trait() {
    for n in [0, 1, 2, 3, 7, 64, scale::size(1000)] {
        check_every_schedule(&ThreadPool::try_spawn(3).unwrap(), n);
        check_every_schedule(&Serial(4), n);
        let team = Team::new(3).unwrap();
        support::scope(|scope| {
            for _ in 1..team.threads() {
                scope.spawn(|| team.run_worker().unwrap());
            }
            check_every_schedule(&team, n);
            team.stop();
        });
    }
}

#[test]
fn code_written_for_fork_union_needs_no_trait_import() {
    // As a fork_union user would write it: inherent methods, no `use`.
    mod ported {
        use tine as fu;
        pub fn run() -> usize {
            let pool = fu::spawn_pool(2);
            let count = std::sync::atomic::AtomicUsize::new(0);
            pool.for_n(10, |_| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
            pool.for_n_dynamic(10, |_| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
            count.into_inner()
        }
    }
    assert_eq!(ported::run(), 20);
}
