//! Loom models of the fork-join protocol. Run with
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom`.
//!
//! Each model spawns the team's workers as loom threads. Shared test data
//! lives in loom `UnsafeCell`s, so loom reports any read that is not ordered
//! after the write it should see: that is how the models check that the fork
//! publishes the job and the join publishes the results.
#![cfg(loom)]

use loom::cell;
use loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use loom::sync::Arc;
use loom::thread;
use tine::{Team, WaitPolicy};

/// A loom `UnsafeCell` that tasks on several threads may borrow. It is
/// `Sync` so the closures compile; loom itself reports every access that is
/// not ordered after the previous write, which is what the models test.
struct UnsafeCell<T>(cell::UnsafeCell<T>);

// SAFETY: test-only; every access goes through loom's checked `with` and
// `with_mut`, which fail the model on a data race.
unsafe impl<T> Sync for UnsafeCell<T> {}

impl<T> UnsafeCell<T> {
    fn new(value: T) -> Self {
        Self(cell::UnsafeCell::new(value))
    }
    fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        self.0.with(f)
    }
    fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        self.0.with_mut(f)
    }
}

/// Spawns `team.threads() - 1` loom threads running the worker loop.
fn start_workers(team: &Arc<Team>) -> Vec<thread::JoinHandle<()>> {
    (1..team.threads())
        .map(|_| {
            let team = Arc::clone(team);
            thread::spawn(move || team.run_worker().unwrap())
        })
        .collect()
}

/// One fork in which only worker 1 adds `amount` to `cell`: the worker's
/// write must be ordered after the caller's earlier accesses (the fork
/// publishes) and before the caller's later ones (the join publishes).
fn add_on_worker(team: &Team, cell: &UnsafeCell<usize>, amount: usize) {
    team.for_threads(|thread_index, _| {
        if thread_index == 1 {
            cell.with_mut(|p| unsafe { *p += amount });
        }
    });
}

/// Runs `body` in a loom model on a team built by `make`, with its workers
/// started before and stopped and joined after.
fn model_team(
    make: impl Fn() -> Team + Send + Sync + 'static,
    body: impl Fn(&Arc<Team>) + Send + Sync + 'static,
) {
    loom::model(move || {
        let team = Arc::new(make());
        let workers = start_workers(&team);
        body(&team);
        stop_and_join(&team, workers);
    });
}

fn stop_and_join(team: &Team, workers: Vec<thread::JoinHandle<()>>) {
    team.stop();
    for worker in workers {
        worker.join().unwrap();
    }
}

/// A value only written by the caller before the fork and read by the
/// worker, and one written by the worker and read by the caller after it.
#[test]
fn the_fork_publishes_the_job_and_the_join_publishes_the_results() {
    model_team(
        || Team::new(2).unwrap(),
        |team| {
            let input = UnsafeCell::new(0usize);
            let outputs = [UnsafeCell::new(0usize), UnsafeCell::new(0usize)];
            input.with_mut(|p| unsafe { *p = 21 });
            team.for_threads(|thread_index, _| {
                let read = input.with(|p| unsafe { *p });
                outputs[thread_index].with_mut(|p| unsafe { *p = read * 2 });
            });
            for output in &outputs {
                assert_eq!(output.with(|p| unsafe { *p }), 42);
            }
        },
    );
}

/// Two forks back to back: the second fork's job write must not race with
/// the first fork's job reads, and the worker must run both.
#[test]
fn consecutive_forks_reuse_the_job_slot_safely() {
    model_team(
        || Team::new(2).unwrap(),
        |team| {
            let cell = UnsafeCell::new(0usize);
            for round in 1..=2usize {
                add_on_worker(&team, &cell, round);
            }
            assert_eq!(cell.with(|p| unsafe { *p }), 3);
        },
    );
}

/// Dynamic claims: every index once, with the counter reset between forks.
#[test]
fn dynamic_claims_happen_exactly_once() {
    model_team(
        || Team::new(2).unwrap(),
        |team| {
            for _ in 0..2 {
                let slots: Vec<UnsafeCell<usize>> = (0..4).map(|_| UnsafeCell::new(0)).collect();
                // Concurrent writes to one slot would be reported by loom.
                team.for_n_dynamic(4, |prong| {
                    slots[prong.task_index].with_mut(|p| unsafe { *p += 1 });
                });
                for slot in &slots {
                    assert_eq!(slot.with(|p| unsafe { *p }), 1);
                }
            }
        },
    );
}

/// Stop before the worker has even started, and stop after a fork.
#[test]
fn stop_reaches_workers_in_any_state() {
    model_team(|| Team::new(2).unwrap(), |_team| {});
    loom::model(|| {
        let team = Arc::new(Team::new(2).unwrap());
        let workers = start_workers(&team);
        let count = AtomicUsize::new(0);
        team.for_threads(|_, _| {
            count.fetch_add(1, Relaxed);
        });
        stop_and_join(&team, workers);
        assert_eq!(count.load(Relaxed), 2);
        // A fork after stop runs on the caller alone and does not hang.
        team.for_threads(|_, _| {
            count.fetch_add(1, Relaxed);
        });
        assert_eq!(count.load(Relaxed), 4);
    });
}

/// With the generation starting at `u32::MAX - 1`, three forks cross the wrap
/// (`u32::MAX`, 0, 1); the worker must run each exactly once.
#[test]
fn generation_wraparound_cannot_fake_a_fork() {
    model_team(
        || Team::with_generation(2, u32::MAX - 1).unwrap(),
        |team| {
            let runs = UnsafeCell::new(0usize);
            for _ in 0..3 {
                add_on_worker(&team, &runs, 1);
            }
            assert_eq!(runs.with(|p| unsafe { *p }), 3);
        },
    );
}

/// A panicking worker share: the fork joins, the payload reaches the caller
/// after the other share's write is visible, and the next fork works.
#[test]
fn a_panicking_share_joins_and_leaves_the_team_usable() {
    model_team(
        || Team::new(2).unwrap(),
        |team| {
            let written = UnsafeCell::new(0usize);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                team.for_threads(|thread_index, _| {
                    if thread_index == 1 {
                        panic!("worker share");
                    }
                    written.with_mut(|p| unsafe { *p = 7 });
                });
            }));
            let payload = result.unwrap_err();
            assert_eq!(*payload.downcast::<&str>().unwrap(), "worker share");
            assert_eq!(written.with(|p| unsafe { *p }), 7);
            let count = AtomicUsize::new(0);
            team.for_threads(|_, _| {
                count.fetch_add(1, Relaxed);
            });
            assert_eq!(count.load(Relaxed), 2);
        },
    );
}

/// Workers and caller park at once (AlwaysPark): a parked worker must wake
/// for each generation bump, and the parked caller for the last decrement,
/// with the results published.
#[test]
fn parked_workers_and_a_parked_caller_are_always_woken() {
    model_team(
        || Team::with_policy(2, WaitPolicy::AlwaysPark).unwrap(),
        |team| {
            let cell = UnsafeCell::new(0usize);
            for round in 1..=2usize {
                add_on_worker(&team, &cell, round);
            }
            assert_eq!(cell.with(|p| unsafe { *p }), 3);
        },
    );
}

/// `sleep` sends a spinning worker to park; the next fork wakes it.
#[test]
fn a_fork_wakes_workers_put_to_sleep() {
    model_team(
        || Team::with_policy(2, WaitPolicy::AlwaysSpin).unwrap(),
        |team| {
            team.sleep(0);
            let cell = UnsafeCell::new(0usize);
            add_on_worker(&team, &cell, 5);
            assert_eq!(cell.with(|p| unsafe { *p }), 5);
        },
    );
}

/// Stop reaches a worker that is parked, not only a spinning one.
#[test]
fn stop_wakes_a_parked_worker() {
    model_team(
        || Team::with_policy(2, WaitPolicy::AlwaysPark).unwrap(),
        |_team| {},
    );
}

/// `stop` from inside a worker's share: the fork still joins with every
/// share run, and the workers leave without anyone else stopping them.
#[test]
fn stop_from_inside_a_task_is_passed_on_when_the_fork_joins() {
    loom::model(|| {
        let team = Arc::new(Team::new(2).unwrap());
        let workers = start_workers(&team);
        let count = AtomicUsize::new(0);
        team.for_threads(|thread_index, _| {
            if thread_index == 1 {
                team.stop();
            }
            count.fetch_add(1, Relaxed);
        });
        assert_eq!(count.load(Relaxed), 2);
        for worker in workers {
            worker.join().unwrap();
        }
    });
}

/// Two threads dispatch on one team at once: the calls are serialized and
/// each sees its own results.
#[test]
fn concurrent_callers_are_serialized() {
    model_team(
        || Team::with_policy(2, WaitPolicy::AlwaysPark).unwrap(),
        |team| {
            let other = {
                let team = Arc::clone(&team);
                thread::spawn(move || {
                    let cell = UnsafeCell::new(0usize);
                    add_on_worker(&team, &cell, 1);
                    assert_eq!(cell.with(|p| unsafe { *p }), 1);
                })
            };
            let cell = UnsafeCell::new(0usize);
            add_on_worker(&team, &cell, 2);
            assert_eq!(cell.with(|p| unsafe { *p }), 2);
            other.join().unwrap();
        },
    );
}

/// The busy-team handshake: a caller that finds the team busy parks on the
/// lock word (AlwaysPark: no spin first) and must be woken by the holder's
/// hand-back, whichever way the two race; here the waiter is `stop`, whose
/// wait has no bound, so a lost wake-up would hang the model.
#[test]
fn stop_parked_on_a_busy_team_is_woken_by_the_hand_back() {
    loom::model(|| {
        let team = Arc::new(Team::with_policy(2, WaitPolicy::AlwaysPark).unwrap());
        let workers = start_workers(&team);
        let stopper = {
            let team = Arc::clone(&team);
            thread::spawn(move || team.stop())
        };
        let cell = UnsafeCell::new(0usize);
        add_on_worker(&team, &cell, 1);
        // The fork ran on the worker, or inline after the stop: either way
        // exactly once, and published.
        assert_eq!(cell.with(|p| unsafe { *p }), 1);
        stopper.join().unwrap();
        for worker in workers {
            worker.join().unwrap();
        }
    });
}

/// Two shares panic: one payload resumes, the other is kept and dropped by
/// the caller after the hand-back; the team stays usable.
#[test]
fn a_losing_panic_is_dropped_after_the_hand_back() {
    model_team(
        || Team::new(2).unwrap(),
        |team| {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                team.for_threads(|thread_index, _| panic!("share {thread_index}"));
            }));
            let message = *result.unwrap_err().downcast::<String>().unwrap();
            assert!(message == "share 0" || message == "share 1", "{message}");
            let count = AtomicUsize::new(0);
            team.for_threads(|_, _| {
                count.fetch_add(1, Relaxed);
            });
            assert_eq!(count.load(Relaxed), 2);
        },
    );
}

/// Nested fork-join (`src/nest/model.rs`): the owner promotes a job and a
/// thief races to claim it; the owner takes it back or waits for its latch.
/// The job's input and result cross threads only through the handshake.
#[test]
fn a_promoted_job_is_run_once_by_its_owner_or_a_thief() {
    loom::model(tine::nest_model::promote_claim_take_back);
}

/// Two thieves race for one promoted job: exactly one runs it, or the owner
/// takes it back.
#[test]
fn two_thieves_never_run_one_job_twice() {
    loom::model(tine::nest_model::two_thieves);
}

/// An idle thread parked on the doorbell is woken by the promotion or by
/// the region's end, never left asleep.
#[test]
fn the_doorbell_never_loses_a_ring() {
    loom::model(tine::nest_model::doorbell_wakes_the_idle_thread);
}

/// A call handed to a pool's injector runs exactly once, on the pool or on
/// its caller after a take-back, and its result reaches the caller.
#[test]
fn a_handed_over_call_runs_once_and_returns_its_result() {
    loom::model(tine::nest_model::hand_over_or_take_back);
}

/// A thread's mail (`src/nest/broadcast.rs`): a poster of two jobs and
/// the owner, who takes its mail and then closes it; each job runs exactly
/// once, on the owner or (once closed) on its poster, and its result
/// reaches the poster.
#[test]
fn mail_runs_each_job_once_on_its_owner_or_its_poster() {
    loom::model(tine::nest_model::mail_runs_once_on_its_owner);
}

/// A task's end wakes its awaiter: no lost wake-up between the end storing
/// the result and the poll storing its waker.
#[test]
fn a_tasks_end_always_wakes_its_awaiter() {
    loom::model(tine::nest_model::task_end_wakes_its_awaiter);
}

/// A task's result goes to its handle, or (the handle dropped first) back
/// to the end, exactly once.
#[test]
fn a_detached_tasks_result_is_taken_exactly_once() {
    loom::model(tine::nest_model::a_detached_tasks_result_is_taken_once);
}
