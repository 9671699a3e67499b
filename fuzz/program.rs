//! A program of pool operations, read from bytes: the fuzz target
//! (`fuzz_targets/pool_program.rs`) runs it on the fuzzer's inputs, and
//! `tests/fuzz_regressions.rs` replays every input kept in
//! `fuzz/regressions/`.
//!
//! # Program
//!
//! Each operation takes one byte for its kind and a few more for its
//! arguments ([`Op::decode`]); a missing byte reads as 0 and the program
//! stops when the input ends or after [`MAX_OPS`] operations. To cover a new
//! call, add a [`Schedule`] variant (the parallel-iterator calls live in
//! `par_calls.rs`) or an [`Op`] variant, its decoding, and its oracle in
//! [`Runner::run_op`].
//!
//! # Oracle
//!
//! After every operation: each task index ran exactly once (at most once,
//! and the panicking one, when a panic was injected), the injected panic's
//! payload is the one that reached the caller, no task is still running once
//! the call returned or the pool was dropped, and a dropped pool left no
//! worker thread behind. A watchdog thread aborts the process with the
//! operation's name if one runs longer than [`HANG_LIMIT`] (`watch.rs`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;
use tine::{ThreadPool, WaitPolicy};

use crate::par_calls::ParCall;
use crate::watch::{self, assert_no_workers_left};

/// The longest one operation may take before the watchdog aborts.
pub const HANG_LIMIT: Duration = Duration::from_secs(20);
/// Operations per program, at most.
pub const MAX_OPS: usize = 48;
/// Tasks per call, at most.
const MAX_N: usize = 2048;
/// The worker-name prefix, to find leftover workers in `/proc/self/task`.
pub(crate) const NAME: &str = "fz";

/// The input, read one argument at a time; reads past its end give 0.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&first, rest)) => {
                self.0 = rest;
                first
            }
            None => 0,
        }
    }

    /// A number in `0..bound` from two bytes.
    fn below(&mut self, bound: usize) -> usize {
        let wide = usize::from(self.byte()) << 8 | usize::from(self.byte());
        wide % bound.max(1)
    }
}

/// Which call an operation makes.
#[derive(Clone, Copy, Debug)]
pub enum Schedule {
    Threads,
    N,
    Slices,
    Dynamic,
    /// A parallel-iterator call.
    Par(ParCall),
}

impl Schedule {
    fn decode(bytes: &mut Bytes<'_>) -> Self {
        // `% 8 == 7` is new: the inputs kept before it keep their meaning
        // unless they used it.
        match bytes.byte() % 8 {
            0 | 4 => Schedule::Threads,
            1 | 5 => Schedule::N,
            2 | 6 => Schedule::Slices,
            3 => Schedule::Dynamic,
            _ => Schedule::Par(ParCall::decode(bytes.byte(), bytes.byte())),
        }
    }

    /// Task indices the call visits on a pool of `threads`.
    fn tasks(self, n: usize, threads: usize) -> usize {
        match self {
            Schedule::Threads => threads,
            _ => n,
        }
    }

    /// Makes the call, with `visit(task_index)` for every task.
    fn call(self, pool: &ThreadPool, n: usize, visit: &(dyn Fn(usize) + Sync)) {
        match self {
            Schedule::Threads => pool.for_threads(|thread_index, _| visit(thread_index)),
            Schedule::N => pool.for_n(n, |prong| visit(prong.task_index)),
            Schedule::Slices => pool.for_slices(n, |first, count| {
                (first.task_index..first.task_index + count).for_each(visit)
            }),
            Schedule::Dynamic => pool.for_n_dynamic(n, |prong| visit(prong.task_index)),
            Schedule::Par(call) => call.call(pool, n, visit),
        }
    }

    /// Whether the call visits every task (no early stop).
    fn visits_all(self) -> bool {
        match self {
            Schedule::Par(call) => call.visits_all(),
            _ => true,
        }
    }
}

/// One operation of a program.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// Drop the pool, if any, and spawn a new one.
    Spawn {
        threads: usize,
        policy: WaitPolicy,
        busy_wait: Duration,
    },
    /// One call.
    Run { schedule: Schedule, n: usize },
    /// One call in which task `at` panics.
    Panic {
        schedule: Schedule,
        n: usize,
        at: usize,
    },
    /// Every share of a `for_threads` makes a nested call on the same pool.
    Nested { schedule: Schedule, n: usize },
    /// One share spawns a helper thread that calls the same (busy) pool,
    /// and joins it.
    Helper { schedule: Schedule, n: usize },
    /// Several threads call the pool at once.
    Concurrent {
        callers: usize,
        schedule: Schedule,
        n: usize,
    },
    /// `sleep`, then a pause, so workers cross the spin/park boundary.
    Sleep { micros: u64 },
    /// Drop the pool.
    Drop,
}

impl Op {
    fn decode(bytes: &mut Bytes<'_>) -> Self {
        match bytes.byte() % 8 {
            0 => Op::Spawn {
                threads: 1 + bytes.byte() as usize % 8,
                policy: match bytes.byte() % 4 {
                    0 => WaitPolicy::Adaptive,
                    1 => WaitPolicy::SpinThenPark(Duration::from_micros(bytes.below(300) as u64)),
                    2 => WaitPolicy::AlwaysSpin,
                    _ => WaitPolicy::AlwaysPark,
                },
                busy_wait: Duration::from_millis(1 + bytes.byte() as u64 % 32),
            },
            1 => Op::Run {
                schedule: Schedule::decode(bytes),
                n: bytes.below(MAX_N + 1),
            },
            2 => Op::Panic {
                schedule: Schedule::decode(bytes),
                n: 1 + bytes.below(MAX_N),
                at: bytes.below(MAX_N),
            },
            3 => Op::Nested {
                schedule: Schedule::decode(bytes),
                n: bytes.below(257),
            },
            4 => Op::Helper {
                schedule: Schedule::decode(bytes),
                n: bytes.below(MAX_N + 1),
            },
            5 => Op::Concurrent {
                callers: 2 + bytes.byte() as usize % 3,
                schedule: Schedule::decode(bytes),
                n: bytes.below(MAX_N + 1),
            },
            6 => Op::Sleep {
                micros: bytes.below(1500) as u64,
            },
            _ => Op::Drop,
        }
    }
}

/// A panic injected into a task; carries the task index.
#[derive(Debug)]
pub(crate) struct Injected(pub(crate) usize);

/// Tasks running right now, over every call.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Counts one visit per task index.
struct Hits(Vec<AtomicU8>);

impl Hits {
    fn new(tasks: usize) -> Self {
        Hits((0..tasks).map(|_| AtomicU8::new(0)).collect())
    }

    /// Records a visit of `task`, panicking with [`Injected`] if it is
    /// `panic_at`.
    fn visit(&self, task: usize, panic_at: Option<usize>) {
        RUNNING.fetch_add(1, Relaxed);
        let hit = self
            .0
            .get(task)
            .unwrap_or_else(|| panic!("task index {task} out of range 0..{}", self.0.len()));
        hit.fetch_add(1, Relaxed);
        RUNNING.fetch_sub(1, Relaxed);
        if panic_at == Some(task) {
            std::panic::panic_any(Injected(task));
        }
    }

    /// Every task ran exactly once, or at most once if `schedule` stops
    /// early.
    fn check(&self, schedule: Schedule, what: &dyn std::fmt::Debug) {
        for (task, hit) in self.0.iter().enumerate() {
            let hit = hit.load(Relaxed);
            if schedule.visits_all() {
                assert_eq!(hit, 1, "{what:?}: task {task} ran {hit} times");
            } else {
                assert!(hit <= 1, "{what:?}: task {task} ran {hit} times");
            }
        }
    }

    /// Every task ran at most once, and `task` ran.
    fn check_at_most_once_with(&self, task: usize, what: &dyn std::fmt::Debug) {
        for (index, hit) in self.0.iter().enumerate() {
            let hit = hit.load(Relaxed);
            assert!(hit <= 1, "{what:?}: task {index} ran {hit} times");
        }
        assert_eq!(
            self.0[task].load(Relaxed),
            1,
            "{what:?}: the panicking task"
        );
    }
}

/// The program's state: the pool, if one is up.
struct Runner {
    pool: Option<ThreadPool>,
}

impl Runner {
    fn pool(&mut self) -> &ThreadPool {
        self.pool
            .get_or_insert_with(|| spawn(2, WaitPolicy::Adaptive, Duration::from_millis(5)))
    }

    fn run_op(&mut self, op: Op) {
        match op {
            Op::Spawn {
                threads,
                policy,
                busy_wait,
            } => {
                self.drop_pool();
                self.pool = Some(spawn(threads, policy, busy_wait));
            }
            Op::Run { schedule, n } => call_once(self.pool(), schedule, n, &op),
            Op::Panic { schedule, n, at } => {
                let pool = self.pool();
                let tasks = schedule.tasks(n, pool.threads());
                let at = at % tasks;
                let hits = Hits::new(tasks);
                let result = catch_unwind(AssertUnwindSafe(|| {
                    schedule.call(pool, n, &|task| hits.visit(task, Some(at)))
                }));
                if result.is_ok() && !schedule.visits_all() {
                    // It stopped early, before task `at`.
                    assert_eq!(hits.0[at].load(Relaxed), 0, "{op:?}: task {at} ran");
                    hits.check(schedule, &op);
                    return self.check_idle(op);
                }
                let payload = result.expect_err("the injected panic must reach the caller");
                match payload.downcast::<Injected>() {
                    Ok(injected) => assert_eq!(injected.0, at, "{op:?}: the wrong payload"),
                    Err(other) => std::panic::resume_unwind(other),
                }
                hits.check_at_most_once_with(at, &op);
                if let Schedule::Threads = schedule {
                    hits.check(schedule, &op);
                }
            }
            Op::Nested { schedule, n } => {
                let pool = self.pool();
                let outer = pool.threads();
                let inner = schedule.tasks(n, outer);
                let hits: Vec<Hits> = (0..outer).map(|_| Hits::new(inner)).collect();
                pool.for_threads(|thread_index, _| {
                    let hits = &hits[thread_index];
                    schedule.call(pool, n, &|task| hits.visit(task, None));
                });
                hits.iter().for_each(|hits| hits.check(schedule, &op));
            }
            Op::Helper { schedule, n } => {
                let pool = self.pool();
                let hits = Hits::new(schedule.tasks(n, pool.threads()));
                let helper_share = n % pool.threads();
                pool.for_threads(|thread_index, _| {
                    if thread_index == helper_share {
                        std::thread::scope(|scope| {
                            let helper = scope
                                .spawn(|| schedule.call(pool, n, &|task| hits.visit(task, None)));
                            // Joined (pthread_join), not left for the scope
                            // to detach: a thread still exiting when the
                            // input ends looks like a leak to LeakSanitizer.
                            helper
                                .join()
                                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                        });
                    }
                });
                hits.check(schedule, &op);
            }
            Op::Concurrent {
                callers,
                schedule,
                n,
            } => {
                let pool = self.pool();
                std::thread::scope(|scope| {
                    let threads: Vec<_> = (0..callers)
                        .map(|caller| {
                            // Each caller its own call: they differ a little.
                            let (schedule, n) = (schedule, n + caller);
                            scope.spawn(move || call_once(pool, schedule, n, &op))
                        })
                        .collect();
                    // Joined, as for `Op::Helper`.
                    for thread in threads {
                        thread
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    }
                });
            }
            Op::Sleep { micros } => {
                self.pool().sleep(0);
                std::thread::sleep(Duration::from_micros(micros));
            }
            Op::Drop => self.drop_pool(),
        }
        self.check_idle(op);
    }

    /// No task is still running after the operation.
    fn check_idle(&self, op: Op) {
        let running = RUNNING.load(Relaxed);
        assert_eq!(
            running, 0,
            "{op:?}: {running} tasks still running after the call"
        );
    }

    fn drop_pool(&mut self) {
        if let Some(pool) = self.pool.take() {
            drop(pool);
            assert_no_workers_left();
        }
    }
}

fn spawn(threads: usize, policy: WaitPolicy, busy_wait: Duration) -> ThreadPool {
    ThreadPool::builder()
        .threads(threads)
        .name(NAME)
        .wait_policy(policy)
        .busy_wait(busy_wait)
        .build()
        .expect("spawning a small pool")
}

/// One call whose every task must run exactly once.
fn call_once(pool: &ThreadPool, schedule: Schedule, n: usize, op: &Op) {
    let hits = Hits::new(schedule.tasks(n, pool.threads()));
    schedule.call(pool, n, &|task| hits.visit(task, None));
    hits.check(schedule, op);
}

/// Runs the program that `data` encodes, checking the oracle after each
/// operation; panics (or aborts, for a hang) on a violation.
pub fn run(data: &[u8]) {
    watch::set_up();
    let mut bytes = Bytes(data);
    let mut runner = Runner { pool: None };
    for _ in 0..MAX_OPS {
        if bytes.0.is_empty() {
            break;
        }
        let op = Op::decode(&mut bytes);
        watch::started(&format!("{op:?}"));
        runner.run_op(op);
        watch::finished();
    }
    runner.drop_pool();
}
