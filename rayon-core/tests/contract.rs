//! rayon-core 1.13's contract about WHERE and WHEN work runs, tested
//! through its public API only, so that the same file runs on the real
//! rayon-core (the reference: `scripts/rayon-core-contract.sh real`) and on
//! tine's face (`scripts/rayon-core-contract.sh tine`, or `cargo test` in
//! `rayon-core/`).
//!
//! Each test names the behaviour it checks, and cites the rayon-core 1.13.0
//! source (file and function, under `src/`) that documents or implements
//! it. Each runs its body under a watchdog ([`guarded`]): a deadlock fails
//! the test, naming the behaviour and the last step the body reached, and
//! leaves the stuck thread behind (detached: the test process still exits
//! once the other tests end).
//!
//! The tests are deterministic: where one needs threads to be busy, it
//! waits for them to say so instead of sleeping and hoping, and none
//! depends on how many cores run it (pools have 1 to 4 threads, more than
//! the 2 cores of a small machine).
//!
//! Not here: the CPU a waiting thread burns (`tests/energy.rs`, timing
//! dependent, its own binary) and the global pool left unbuilt by a custom
//! pool's work (`tests/contract_global.rs`: the global pool is per
//! process).

use rayon_core::{ThreadPool, ThreadPoolBuilder, Yield};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Barrier, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------

/// How long a test body may take before it counts as a deadlock. Every
/// body needs well under 2 s on rayon-core, even on 2 busy cores.
const LIMIT: Duration = Duration::from_secs(20);

/// The last step a guarded body reached, for the deadlock message.
#[derive(Clone)]
struct Steps(Arc<Mutex<&'static str>>);

impl Steps {
    fn at(&self, step: &'static str) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = step;
    }
}

/// Runs `body` on a thread of its own and waits up to [`LIMIT`] for it.
/// A panic in the body fails the test with the body's message; no result
/// within the limit fails it as a deadlock of `behaviour`, naming the last
/// step, and leaves the stuck thread detached (the process exits without
/// it).
fn guarded<F>(behaviour: &'static str, body: F)
where
    F: FnOnce(&Steps) + Send + 'static,
{
    let steps = Steps(Arc::new(Mutex::new("started")));
    let (done, result) = channel();
    let body_steps = steps.clone();
    thread::Builder::new()
        .name("contract-body".into())
        .spawn(move || {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| body(&body_steps)));
            let _ = done.send(outcome);
        })
        .expect("the test body's thread");
    match result.recv_timeout(LIMIT) {
        Ok(Ok(())) => {}
        Ok(Err(payload)) => panic::resume_unwind(payload),
        Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
            let step = *steps.0.lock().unwrap_or_else(|e| e.into_inner());
            let message = format!(
                "DEADLOCK: no result after {LIMIT:?}: {behaviour} (last step reached: {step})"
            );
            eprintln!("{message}");
            panic!("{message}");
        }
    }
}

thread_local! {
    /// The tag of the pool whose `start_handler` ran on this thread (0: none).
    static PREPARED_BY: Cell<usize> = const { Cell::new(0) };
}

static NEXT_TAG: AtomicUsize = AtomicUsize::new(1);

/// The tag of the pool whose `start_handler` prepared this thread, 0 if none.
fn prepared_by() -> usize {
    PREPARED_BY.with(Cell::get)
}

/// A builder whose `start_handler` marks each of its threads with a fresh
/// tag, and that tag.
fn tagged(threads: usize) -> (ThreadPoolBuilder, usize) {
    let tag = NEXT_TAG.fetch_add(1, Ordering::Relaxed);
    let builder = ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(move |_| PREPARED_BY.with(|cell| cell.set(tag)));
    (builder, tag)
}

/// A pool of `threads` threads marked by its `start_handler`, and its tag.
fn tagged_pool(threads: usize) -> (ThreadPool, usize) {
    let (builder, tag) = tagged(threads);
    (builder.build().expect("a pool"), tag)
}

/// A binary tree of `join`s, `depth` deep, calling `leaf` at every node.
fn join_tree(depth: usize, leaf: &(dyn Fn() + Sync)) {
    leaf();
    if depth > 0 {
        rayon_core::join(|| join_tree(depth - 1, leaf), || join_tree(depth - 1, leaf));
    }
}

/// Keeps the current pool busy until `deadline`: trees of `join`s whose
/// nodes sleep a little (busy without burning the cores).
fn busy_until(deadline: Instant) {
    while Instant::now() < deadline {
        join_tree(3, &|| thread::sleep(Duration::from_millis(1)));
    }
}

/// Where a closure ran, as seen from inside it.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    index: Option<usize>,
    pool_index: Option<usize>,
    num_threads: usize,
    prepared_by: usize,
    thread: ThreadId,
    name: Option<String>,
}

fn seen(pool: &ThreadPool) -> Seen {
    Seen {
        index: rayon_core::current_thread_index(),
        pool_index: pool.current_thread_index(),
        num_threads: rayon_core::current_num_threads(),
        prepared_by: prepared_by(),
        thread: thread::current().id(),
        name: thread::current().name().map(str::to_owned),
    }
}

/// `seen` is a closure run on a thread of the pool of `threads` threads
/// tagged `tag`, not on `caller`.
fn assert_on_pool(seen: &Seen, tag: usize, threads: usize, caller: ThreadId, what: &str) {
    let index = seen.index.unwrap_or_else(|| {
        panic!("{what}: current_thread_index() is None: not a pool thread ({seen:?})")
    });
    assert!(
        index < threads,
        "{what}: index {index} >= {threads} ({seen:?})"
    );
    assert_eq!(
        seen.pool_index,
        Some(index),
        "{what}: pool.current_thread_index() disagrees with current_thread_index() ({seen:?})"
    );
    assert_eq!(
        seen.prepared_by, tag,
        "{what}: ran on a thread the pool's start_handler never prepared ({seen:?})"
    );
    assert_eq!(
        seen.num_threads, threads,
        "{what}: current_num_threads() ({seen:?})"
    );
    assert_ne!(
        seen.thread, caller,
        "{what}: ran on the caller's thread ({seen:?})"
    );
}

// ---------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------

/// rayon-core `thread_pool/mod.rs` `ThreadPool::install` ("Executes `op`
/// within the thread pool"), `registry.rs` `Registry::in_worker_cold` (off
/// the pool: the job is injected and the caller blocks on a latch until a
/// worker ran it), `registry.rs` `WorkerThread::find_work` (busy workers
/// take injected jobs once out of local work).
#[test]
fn install_runs_on_a_pool_thread_also_while_the_pool_is_busy() {
    guarded(
        "install runs its closure on a thread of the pool",
        |steps| {
            let (builder, tag) = tagged(2);
            let pool = Arc::new(
                builder
                    .thread_name(|i| format!("contract-install-{i}"))
                    .build()
                    .expect("a pool"),
            );
            let caller = thread::current().id();

            steps.at("install on an idle pool");
            let quiet = pool.install(|| seen(&pool));
            assert_on_pool(&quiet, tag, 2, caller, "install on an idle pool");
            assert!(quiet
                .name
                .as_deref()
                .unwrap_or("")
                .starts_with("contract-install-"));

            // Two other callers keep both threads busy for 400 ms; each says
            // so from inside its install.
            steps.at("starting the busy callers");
            let (started, busy) = channel();
            let busy_callers: Vec<_> = (0..2)
                .map(|_| {
                    let pool = Arc::clone(&pool);
                    let started = started.clone();
                    thread::spawn(move || {
                        pool.install(|| {
                            started.send(()).unwrap();
                            busy_until(Instant::now() + Duration::from_millis(400));
                        })
                    })
                })
                .collect();
            busy.recv().unwrap();
            busy.recv().unwrap();

            steps.at("install on a busy pool");
            let busy_seen = pool.install(|| seen(&pool));
            assert_on_pool(&busy_seen, tag, 2, caller, "install on a busy pool");
            assert!(busy_seen
                .name
                .as_deref()
                .unwrap_or("")
                .starts_with("contract-install-"));

            steps.at("joining the busy callers");
            for caller in busy_callers {
                caller.join().expect("a busy caller");
            }
        },
    );
}

/// rayon-core `registry.rs` `Registry::in_worker_cross` ("This thread is a
/// member of a different pool": the job is injected into the other pool,
/// whose worker runs it), `thread_pool/mod.rs`
/// `ThreadPool::current_thread_index` (`None` unless the caller is one of
/// this pool's threads).
#[test]
fn install_from_a_thread_of_another_pool_runs_on_that_pools_threads() {
    guarded(
        "a thread of pool A calling B.install runs on B's threads",
        |steps| {
            let (a, a_tag) = tagged_pool(3);
            let (b, b_tag) = tagged_pool(2);
            let a_threads: HashSet<ThreadId> = a
                .broadcast(|_| thread::current().id())
                .into_iter()
                .collect();
            let check = |what: &str, inside: (Seen, Option<usize>)| {
                let (seen, a_index) = inside;
                let index = seen
                    .index
                    .unwrap_or_else(|| panic!("{what}: not a pool thread: {seen:?}"));
                assert!(
                    index < b.current_num_threads(),
                    "{what}: index {index} not B's: {seen:?}"
                );
                assert_eq!(
                    seen.pool_index,
                    Some(index),
                    "{what}: B.current_thread_index(): {seen:?}"
                );
                assert_eq!(
                    a_index, None,
                    "{what}: A.current_thread_index() is Some on B's thread"
                );
                assert_eq!(
                    seen.prepared_by, b_tag,
                    "{what}: not prepared by B's start_handler: {seen:?}"
                );
                assert_ne!(seen.prepared_by, a_tag);
                assert_eq!(
                    seen.num_threads, 2,
                    "{what}: current_num_threads() is not B's"
                );
                assert!(
                    !a_threads.contains(&seen.thread),
                    "{what}: ran on one of A's threads"
                );
            };

            steps.at("A.install(|| B.install(..))");
            let inside = a.install(|| b.install(|| (seen(&b), a.current_thread_index())));
            check("A.install(B.install)", inside);

            steps.at("A.broadcast(|_| B.install(..)): three at once");
            for inside in a.broadcast(|_| b.install(|| (seen(&b), a.current_thread_index()))) {
                check("A.broadcast(B.install)", inside);
            }

            steps.at("both halves of a join on A call B.install");
            let (x, y) = a.install(|| {
                rayon_core::join(
                    || b.install(|| (seen(&b), a.current_thread_index())),
                    || b.install(|| (seen(&b), a.current_thread_index())),
                )
            });
            check("join on A, first half", x);
            check("join on A, second half", y);
        },
    );
}

/// rayon-core `lib.rs` `ThreadPoolBuilder::start_handler` ("a callback to
/// be invoked on thread start"), `registry.rs` `main_loop` (the handler runs
/// before the thread takes any job) and `Registry::in_worker_cold` (the
/// callers never run the pool's closures themselves).
#[test]
fn everything_a_pool_runs_for_any_caller_runs_on_threads_its_start_handler_prepared() {
    guarded(
        "every closure a pool runs, for every caller, runs on a prepared thread",
        |steps| {
            let (pool, tag) = tagged_pool(3);
            let pool = Arc::new(pool);
            let ran = Arc::new(AtomicUsize::new(0));
            let unprepared = Arc::new(AtomicUsize::new(0));
            let callers = 4;
            let rounds = 10;
            let go = Arc::new(Barrier::new(callers));

            steps
                .at("four callers at once: join, scope, in_place_scope, install, spawn, broadcast");
            let handles: Vec<_> = (0..callers)
                .map(|_| {
                    let (pool, ran, unprepared, go) = (
                        Arc::clone(&pool),
                        Arc::clone(&ran),
                        Arc::clone(&unprepared),
                        Arc::clone(&go),
                    );
                    thread::spawn(move || {
                        let check = || {
                            ran.fetch_add(1, Ordering::Relaxed);
                            if prepared_by() != tag {
                                unprepared.fetch_add(1, Ordering::Relaxed);
                            }
                        };
                        go.wait();
                        for _ in 0..rounds {
                            // 2
                            pool.join(check, check);
                            // 1 + 8 * 2
                            pool.scope(|s| {
                                check();
                                for _ in 0..8 {
                                    s.spawn(|s| {
                                        check();
                                        s.spawn(|_| check());
                                    });
                                }
                            });
                            // 8 * 2 (the body runs on the caller: not counted)
                            pool.in_place_scope(|s| {
                                for _ in 0..8 {
                                    s.spawn(|s| {
                                        check();
                                        s.spawn(|_| check());
                                    });
                                }
                            });
                            // 2^5 - 1
                            pool.install(|| join_tree(4, &check));
                            // 1
                            let (sent, received) = channel();
                            let (ran, unprepared) = (Arc::clone(&ran), Arc::clone(&unprepared));
                            pool.spawn(move || {
                                ran.fetch_add(1, Ordering::Relaxed);
                                if prepared_by() != tag {
                                    unprepared.fetch_add(1, Ordering::Relaxed);
                                }
                                sent.send(()).unwrap();
                            });
                            received.recv().unwrap();
                            // 3
                            pool.broadcast(|_| check());
                        }
                    })
                })
                .collect();
            for handle in handles {
                handle.join().expect("a caller");
            }
            let per_round = 2 + (1 + 8 * 2) + 8 * 2 + 31 + 1 + 3;
            assert_eq!(
                ran.load(Ordering::Relaxed),
                callers * rounds * per_round,
                "not every closure ran"
            );
            assert_eq!(
                unprepared.load(Ordering::Relaxed),
                0,
                "closures ran on threads the pool's start_handler never prepared"
            );
        },
    );
}

/// rayon-core `broadcast/mod.rs` `broadcast` and `thread_pool/mod.rs`
/// `ThreadPool::broadcast` ("Executes `op` within every thread in the
/// thread pool"; the results come in index order), `BroadcastContext::index`,
/// `registry.rs` `Registry::inject_broadcast` (one job per thread, on that
/// thread's own queue, taken before stealing: `WorkerThread::take_local_job`).
#[test]
fn broadcast_runs_once_on_each_thread_with_matching_indices_also_while_the_pool_is_busy() {
    guarded(
        "broadcast runs op once on each thread of the pool",
        |steps| {
            let threads = 4;
            let (pool, tag) = tagged_pool(threads);
            let pool = Arc::new(pool);
            let caller = thread::current().id();

            let run = |steps: &Steps, what: &'static str| -> Vec<ThreadId> {
                let calls = AtomicUsize::new(0);
                // Completes only if all the pool's threads run `op` at once.
                let barrier = Barrier::new(threads);
                steps.at(what);
                let results = pool.broadcast(|ctx| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    barrier.wait();
                    (ctx.index(), ctx.num_threads(), seen(&pool))
                });
                assert_eq!(
                    calls.load(Ordering::Relaxed),
                    threads,
                    "{what}: op did not run once per thread"
                );
                assert_eq!(results.len(), threads);
                let mut ids = HashSet::new();
                for (position, (index, num_threads, seen)) in results.iter().enumerate() {
                    assert_eq!(*index, position, "{what}: results not in index order");
                    assert_eq!(*num_threads, threads, "{what}: ctx.num_threads()");
                    assert_eq!(
                        seen.index,
                        Some(*index),
                        "{what}: ctx.index() != current_thread_index()"
                    );
                    assert_on_pool(seen, tag, threads, caller, what);
                    ids.insert(seen.thread);
                }
                assert_eq!(ids.len(), threads, "{what}: two indices ran on one thread");
                // Each index's thread, in index order.
                results.iter().map(|(_, _, seen)| seen.thread).collect()
            };

            let quiet = run(steps, "broadcast on an idle pool");

            steps.at("starting the busy caller");
            let (started, busy) = channel();
            let busy_caller = {
                let pool = Arc::clone(&pool);
                thread::spawn(move || {
                    pool.install(|| {
                        started.send(()).unwrap();
                        busy_until(Instant::now() + Duration::from_millis(400));
                    })
                })
            };
            busy.recv().unwrap();
            let busy = run(steps, "broadcast while another caller keeps the pool busy");
            assert_eq!(quiet, busy, "index i ran on another thread the second time");
            steps.at("joining the busy caller");
            busy_caller.join().expect("the busy caller");
        },
    );
}

/// rayon-core `scope/mod.rs` `in_place_scope` ("the closure runs on the
/// same thread that calls `in_place_scope()`. Only work that it spawns runs
/// in the thread pool") and `thread_pool/mod.rs`
/// `ThreadPool::in_place_scope`.
#[test]
fn in_place_scope_runs_its_body_on_the_caller_and_its_spawns_on_the_pool() {
    guarded(
        "in_place_scope's body on the caller, its tasks on the pool",
        |steps| {
            let (pool, tag) = tagged_pool(2);
            let caller = thread::current().id();
            let tasks = Mutex::new(Vec::new());
            steps.at("pool.in_place_scope");
            let body = pool.in_place_scope(|s| {
                for _ in 0..6 {
                    s.spawn(|s| {
                        tasks.lock().unwrap().push(seen(&pool));
                        s.spawn(|_| tasks.lock().unwrap().push(seen(&pool)));
                    });
                }
                (
                    rayon_core::current_thread_index(),
                    pool.current_thread_index(),
                    thread::current().id(),
                )
            });
            assert_eq!(
                body.0, None,
                "the body saw a thread index: it ran on a pool thread"
            );
            assert_eq!(body.1, None, "the body saw pool.current_thread_index()");
            assert_eq!(
                body.2, caller,
                "the body ran on another thread than the caller"
            );
            let tasks = tasks.into_inner().unwrap();
            assert_eq!(tasks.len(), 12);
            for task in &tasks {
                assert_on_pool(task, tag, 2, caller, "a task spawned in an in_place_scope");
            }

            steps.at("pool.in_place_scope_fifo");
            let tasks = Mutex::new(Vec::new());
            let index = pool.in_place_scope_fifo(|s| {
                for _ in 0..6 {
                    s.spawn_fifo(|_| tasks.lock().unwrap().push(seen(&pool)));
                }
                rayon_core::current_thread_index()
            });
            assert_eq!(index, None, "the fifo body saw a thread index");
            for task in &tasks.into_inner().unwrap() {
                assert_on_pool(
                    task,
                    tag,
                    2,
                    caller,
                    "a task spawned in an in_place_scope_fifo",
                );
            }
        },
    );
}

/// rayon-core `scope/mod.rs` `Scope::spawn` and `ScopeFifo::spawn_fifo`
/// ("Spawns a job into the fork-join scope"), which call
/// `registry.rs` `Registry::inject_or_push`: off the pool, `inject` (the
/// job goes on the pool's queue; the spawning thread goes on).
#[test]
fn scope_spawn_from_a_thread_outside_the_pool_queues_the_task_on_the_pool() {
    guarded(
        "Scope::spawn from outside queues the task on the pool",
        |steps| {
            let (pool, tag) = tagged_pool(2);
            let caller = thread::current().id();

            // The task waits for a message the body sends only after `spawn`
            // returned: run inline, it would wait forever.
            steps.at("in_place_scope: s.spawn of a task that waits for the body");
            let (go, wait) = channel::<()>();
            let task = Mutex::new(None);
            pool.in_place_scope(|s| {
                let (task, pool) = (&task, &pool);
                s.spawn(move |_| {
                    wait.recv().expect("the body's message");
                    *task.lock().unwrap() = Some(seen(pool));
                });
                steps.at("s.spawn returned; sending the task its message");
                go.send(()).unwrap();
                steps.at("the in_place_scope waits for its task");
            });
            let task = task.into_inner().unwrap().expect("the task ran");
            assert_on_pool(
                &task,
                tag,
                2,
                caller,
                "a task spawned from outside the pool",
            );

            steps.at("in_place_scope_fifo: s.spawn_fifo of a task that waits for the body");
            let (go, wait) = channel::<()>();
            let task = Mutex::new(None);
            pool.in_place_scope_fifo(|s| {
                let (task, pool) = (&task, &pool);
                s.spawn_fifo(move |_| {
                    wait.recv().expect("the body's message");
                    *task.lock().unwrap() = Some(seen(pool));
                });
                steps.at("s.spawn_fifo returned; sending the task its message");
                go.send(()).unwrap();
                steps.at("the in_place_scope_fifo waits for its task");
            });
            let task = task.into_inner().unwrap().expect("the task ran");
            assert_on_pool(
                &task,
                tag,
                2,
                caller,
                "a task spawn_fifo'd from outside the pool",
            );
        },
    );
}

/// rayon-core `thread_pool/mod.rs` `yield_now` ("looks for a single unit of
/// pending work in the pool, then executes it") and `registry.rs`
/// `WorkerThread::yield_now` (`find_work`: the local deque, where `spawn`
/// from a worker puts its job, then stealing, then injected jobs).
#[test]
fn yield_now_runs_pending_work_spawned_jobs_included() {
    guarded("yield_now runs pending spawned jobs", |steps| {
        let pool = ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool");

        // A closure on the pool's only thread spawns a job and yields
        // until the job ran: nothing but yield_now can run it.
        let spawn_and_yield = |fifo: bool, pool_yield: Option<&ThreadPool>| {
            let flag = Arc::new(AtomicBool::new(false));
            let set = Arc::clone(&flag);
            let job = move || set.store(true, Ordering::Release);
            if fifo {
                rayon_core::spawn_fifo(job);
            } else {
                rayon_core::spawn(job);
            }
            let mut executed = 0;
            while !flag.load(Ordering::Acquire) {
                let result = match pool_yield {
                    Some(pool) => pool.yield_now(),
                    None => rayon_core::yield_now(),
                };
                match result {
                    Some(Yield::Executed) => executed += 1,
                    Some(Yield::Idle) => {}
                    None => panic!("yield_now() is None on a pool thread"),
                }
            }
            assert!(
                executed >= 1,
                "the job ran, yet yield_now never said Executed"
            );
        };

        steps.at("install: spawn, then yield_now until the job ran");
        pool.install(|| spawn_and_yield(false, None));
        steps.at("install: spawn_fifo, then pool.yield_now until the job ran");
        pool.install(|| spawn_and_yield(true, Some(&pool)));

        steps.at("a spawned job: spawn, then yield_now until the job ran");
        let (done, finished) = channel();
        pool.spawn(move || {
            spawn_and_yield(false, None);
            done.send(()).unwrap();
        });
        finished.recv().expect("the spawned job finished");
    });
}

/// rayon-core `thread_pool/mod.rs` `ThreadPool` ("When the `ThreadPool` is
/// dropped ... the threads will complete executing any remaining work that
/// you have spawned") and `impl Drop for ThreadPool` (`terminate`, no
/// wait); `spawn/mod.rs` `spawn_job` (each spawned job holds the pool
/// until it ran); `registry.rs` `main_loop` (`exit_handler` after the last
/// job).
#[test]
fn dropping_a_pool_returns_at_once_and_its_threads_finish_the_queued_jobs_then_exit() {
    guarded(
        "dropping a ThreadPool returns at once; queued jobs still run",
        |steps| {
            let jobs_done = Arc::new(AtomicUsize::new(0));
            let (exited, exits) = channel();
            let exit_jobs_done = Arc::clone(&jobs_done);
            let exited = Mutex::new(exited);
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .exit_handler(move |index| {
                    let jobs = exit_jobs_done.load(Ordering::SeqCst);
                    exited.lock().unwrap().send((index, jobs)).unwrap();
                })
                .build()
                .expect("a pool");

            // Two jobs hold both threads until they get a message sent after
            // the drop; a third waits in the queue behind them.
            steps.at("spawning two blocking jobs");
            let (started, running) = channel();
            let mut messages = Vec::new();
            for _ in 0..2 {
                let (message, wait) = channel::<()>();
                messages.push(message);
                let (started, jobs_done) = (started.clone(), Arc::clone(&jobs_done));
                pool.spawn(move || {
                    started.send(()).unwrap();
                    wait.recv().expect("the message sent after the drop");
                    jobs_done.fetch_add(1, Ordering::SeqCst);
                });
            }
            running.recv().unwrap();
            running.recv().unwrap();
            steps.at("spawning a third job behind them");
            let (third_ran, third) = channel();
            let third_done = Arc::clone(&jobs_done);
            pool.spawn(move || {
                third_done.fetch_add(1, Ordering::SeqCst);
                third_ran.send(()).unwrap();
            });

            steps.at("dropping the pool while its jobs wait");
            let start = Instant::now();
            drop(pool);
            let took = start.elapsed();
            assert!(
                took < Duration::from_secs(2),
                "dropping the pool took {took:?}: it waited"
            );
            assert!(
                exits.try_recv().is_err(),
                "a thread exited while the pool's jobs were pending"
            );

            steps.at("sending the jobs their messages, after the drop returned");
            for message in messages {
                message.send(()).unwrap();
            }
            steps.at("waiting for the queued third job");
            third.recv().expect("the third job ran after the drop");

            steps.at("waiting for the exit handlers");
            let mut indices = Vec::new();
            for _ in 0..2 {
                let (index, jobs) = exits.recv().expect("an exit handler ran");
                assert_eq!(
                    jobs, 3,
                    "thread {index} exited before the pool's jobs all ran"
                );
                indices.push(index);
            }
            indices.sort_unstable();
            assert_eq!(indices, [0, 1], "exit_handler did not run once per thread");
        },
    );
}

/// rayon-core `lib.rs` `ThreadPoolBuilder::use_current_thread` ("The
/// current thread is guaranteed to be at index 0 ... the current thread
/// won't run the main work-stealing loop"), `registry.rs` `Registry::new`
/// (the builder becomes worker 0 of the pool) and `in_worker` (its free
/// calls go to that pool).
#[test]
fn use_current_thread_makes_the_builder_thread_zero_and_other_threads_serve_other_callers() {
    guarded(
        "use_current_thread: the builder is thread 0; others serve the rest",
        |steps| {
            // The guarded body's thread is the builder: it stays thread 0 of
            // this pool for good (rayon leaks the pool's registry).
            let (builder, tag) = tagged(3);
            steps.at("building with use_current_thread");
            let pool = Arc::new(builder.use_current_thread().build().expect("a pool"));

            assert_eq!(
                rayon_core::current_thread_index(),
                Some(0),
                "the builder is not index 0"
            );
            assert_eq!(
                pool.current_thread_index(),
                Some(0),
                "pool.current_thread_index() on the builder"
            );
            assert_eq!(
                rayon_core::current_num_threads(),
                3,
                "the builder's free calls use another pool"
            );

            steps.at("free join from the builder");
            let (a, b) = rayon_core::join(
                || {
                    (
                        rayon_core::current_num_threads(),
                        pool.current_thread_index(),
                    )
                },
                || {
                    (
                        rayon_core::current_num_threads(),
                        pool.current_thread_index(),
                    )
                },
            );
            assert_eq!(a.0, 3, "join's first half used another pool");
            assert_eq!(b.0, 3, "join's second half used another pool");
            assert!(
                a.1.is_some() && b.1.is_some(),
                "a half of the builder's join ran off this pool"
            );

            steps.at("pool.install from the builder");
            assert_eq!(pool.install(rayon_core::current_thread_index), Some(0));

            steps.at("other callers' installs");
            let callers: Vec<_> = (0..2)
                .map(|_| {
                    let pool = Arc::clone(&pool);
                    thread::spawn(move || {
                        pool.install(|| (rayon_core::current_thread_index(), prepared_by()))
                    })
                })
                .collect();
            for caller in callers {
                let (index, prepared) = caller.join().expect("another caller");
                assert!(
                matches!(index, Some(1) | Some(2)),
                "another caller's install ran on index {index:?}, not on the pool's own threads"
            );
                assert_eq!(
                    prepared, tag,
                    "another caller's install ran on an unprepared thread"
                );
            }

            steps.at("the builder spawns a job, then waits for it");
            let (sent, received) = channel();
            rayon_core::spawn(move || sent.send(rayon_core::current_thread_index()).unwrap());
            let index = received.recv().expect("the spawned job ran");
            assert!(
                matches!(index, Some(1) | Some(2)),
                "the builder's job ran on {index:?}"
            );

            steps.at("a job on the pool spawns a job, then waits for it");
            let other = {
                let pool = Arc::clone(&pool);
                thread::spawn(move || {
                    pool.install(|| {
                        let (sent, received) = channel();
                        rayon_core::spawn(move || {
                            sent.send(rayon_core::current_thread_index()).unwrap()
                        });
                        received.recv().expect("the inner job ran")
                    })
                })
            };
            let index = other.join().expect("the waiting job");
            assert!(
                matches!(index, Some(1) | Some(2)),
                "the inner job ran on {index:?}"
            );
        },
    );
}

/// rayon-core `registry.rs` `Registry::in_worker_cold`: each caller from
/// outside injects its own job and blocks on its own latch until that job
/// ran; any worker looking for work takes it (`WorkerThread::find_work`,
/// also from inside `wait_until`, e.g. a worker waiting for its scope's
/// tasks). Nothing ties one caller's wait to another caller's work, and
/// a caller waiting off the pool (on its `LockLatch`) runs no job at all.
#[test]
fn a_callers_install_or_scope_never_waits_for_an_unrelated_callers_work() {
    guarded(
        "a caller's install/scope does not wait for an unrelated caller's work",
        |steps| {
            let pool = Arc::new(
                ThreadPoolBuilder::new()
                    .num_threads(2)
                    .build()
                    .expect("a pool"),
            );
            let lock = Arc::new(Mutex::new(()));

            // X (this thread) holds L; one of the two threads runs an unrelated
            // caller's work, stuck on L until X's own calls returned.
            let x_calls = |steps: &Steps, phase: &'static [&'static str; 3]| {
                steps.at(phase[0]);
                assert_eq!(pool.install(|| 20 + 22), 42);
                steps.at(phase[1]);
                let count = AtomicUsize::new(0);
                pool.scope(|s| {
                    for _ in 0..4 {
                        s.spawn(|_| {
                            count.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
                assert_eq!(count.load(Ordering::Relaxed), 4);
                steps.at(phase[2]);
                assert_eq!(pool.join(|| 1, || 2), (1, 2));
            };

            // 1. Caller Y's install takes L.
            let held = lock.lock().unwrap();
            let (started, y_started) = channel();
            steps.at("caller Y: install whose closure takes L");
            let y = {
                let (pool, lock, started) = (Arc::clone(&pool), Arc::clone(&lock), started.clone());
                thread::spawn(move || {
                    pool.install(|| {
                        started.send(()).unwrap();
                        let _l = lock.lock().unwrap();
                        1
                    })
                })
            };
            y_started.recv().unwrap();
            x_calls(
                steps,
                &[
                    "X, holding L, Y's install on L: pool.install(short work)",
                    "X, holding L, Y's install on L: pool.scope with spawns",
                    "X, holding L, Y's install on L: pool.join",
                ],
            );
            drop(held);
            steps.at("X released L: Y finishes");
            assert_eq!(y.join().expect("caller Y"), 1);

            // 2. Caller Z's scope waits for its spawned task, which takes L.
            let held = lock.lock().unwrap();
            steps.at("caller Z: scope whose spawned task takes L");
            let z = {
                let (pool, lock, started) = (Arc::clone(&pool), Arc::clone(&lock), started.clone());
                thread::spawn(move || {
                    pool.scope(|s| {
                        s.spawn(|_| {
                            started.send(()).unwrap();
                            let _l = lock.lock().unwrap();
                        });
                    })
                })
            };
            y_started.recv().unwrap();
            x_calls(
                steps,
                &[
                    "X, holding L, Z's scope task on L: pool.install(short work)",
                    "X, holding L, Z's scope task on L: pool.scope with spawns",
                    "X, holding L, Z's scope task on L: pool.join",
                ],
            );
            drop(held);
            steps.at("X released L: Z finishes");
            z.join().expect("caller Z");

            // 3. While X waits for its install, caller Y2's install (which
            // takes L) queues behind it; Y1 holds the other thread on L.
            // X's wait must not take up Y2's work (X would then wait on L,
            // which it holds). Y2 calls once X's closure runs, which then
            // gives Y2 100 ms to queue: a worker runs X's closure either way.
            let held = lock.lock().unwrap();
            steps.at("caller Y1: install whose closure takes L");
            let y1 = {
                let (pool, lock, started) = (Arc::clone(&pool), Arc::clone(&lock), started.clone());
                thread::spawn(move || {
                    pool.install(|| {
                        started.send(()).unwrap();
                        let _l = lock.lock().unwrap();
                        1
                    })
                })
            };
            y_started.recv().unwrap();
            let (x_running, x_runs) = channel::<()>();
            let (y2_calling, y2_calls) = channel::<()>();
            let y2 = {
                let (pool, lock) = (Arc::clone(&pool), Arc::clone(&lock));
                thread::spawn(move || {
                    x_runs.recv().expect("X's closure runs");
                    y2_calling.send(()).unwrap();
                    pool.install(|| {
                        let _l = lock.lock().unwrap();
                        2
                    })
                })
            };
            steps.at("X, holding L, Y1's install on L: install while Y2's install queues");
            let x = pool.install(move || {
                x_running.send(()).unwrap();
                y2_calls.recv().expect("Y2 calls install");
                thread::sleep(Duration::from_millis(100));
                42
            });
            assert_eq!(x, 42);
            drop(held);
            steps.at("X released L: Y1 and Y2 finish");
            assert_eq!(y1.join().expect("caller Y1"), 1);
            assert_eq!(y2.join().expect("caller Y2"), 2);
        },
    );
}

/// rayon-core `lib.rs` `ThreadPoolBuilder::thread_name` (no name unless
/// set) and `registry.rs` `impl ThreadSpawn for DefaultSpawn` (names the
/// thread only when `ThreadBuilder::name` is `Some`).
#[test]
fn pool_threads_are_unnamed_unless_thread_name_is_given() {
    guarded(
        "pool threads are unnamed unless thread_name is given",
        |steps| {
            steps.at("a default pool");
            let pool = ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .expect("a pool");
            let name = pool.install(|| thread::current().name().map(str::to_owned));
            assert_eq!(name, None, "install ran on a named thread");
            for name in pool.broadcast(|_| thread::current().name().map(str::to_owned)) {
                assert_eq!(name, None, "a pool thread is named");
            }
            let names = pool.join(
                || thread::current().name().map(str::to_owned),
                || thread::current().name().map(str::to_owned),
            );
            assert_eq!(names, (None, None), "a join half ran on a named thread");

            steps.at("a pool with thread_name");
            let named = ThreadPoolBuilder::new()
                .num_threads(3)
                .thread_name(|i| format!("contract-named-{i}"))
                .build()
                .expect("a pool");
            for (index, name) in
                named.broadcast(|ctx| (ctx.index(), thread::current().name().map(str::to_owned)))
            {
                assert_eq!(name, Some(format!("contract-named-{index}")));
            }
        },
    );
}

/// The child mode of the abort test, set by the parent.
const CHILD: &str = "RAYON_CORE_CONTRACT_CHILD";

/// rayon-core `unwind.rs` `AbortIfPanic` (prints "Rayon: detected
/// unexpected panic; aborting", then `std::process::abort()`),
/// `registry.rs` `Registry::catch_unwind` (a spawned job's panic with no
/// `panic_handler`), `lib.rs` `ThreadPoolBuilder::panic_handler` ("If no
/// panic handler is set, the default is to abort the process"),
/// `spawn/mod.rs` `spawn` ("# Panic handling").
#[test]
fn a_panic_in_a_spawned_job_without_a_panic_handler_aborts_the_process() {
    const NAME: &str = "a_panic_in_a_spawned_job_without_a_panic_handler_aborts_the_process";
    if let Ok(mode) = std::env::var(CHILD) {
        // The child: a job that panics, and time for the pool to abort.
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        match mode.as_str() {
            "pool.spawn" => pool.spawn(|| panic!("contract: a spawned job panics")),
            "spawn" => {
                pool.install(|| rayon_core::spawn(|| panic!("contract: a spawned job panics")))
            }
            "spawn_fifo" => pool.spawn_fifo(|| panic!("contract: a spawned job panics")),
            other => panic!("unknown child mode {other}"),
        }
        thread::sleep(Duration::from_secs(5));
        eprintln!("contract child: still alive 5 s after the panic");
        std::process::exit(3);
    }
    guarded("a panic in a spawned job with no handler aborts", |steps| {
        for mode in ["pool.spawn", "spawn", "spawn_fifo"] {
            steps.at(mode);
            let output = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
                .env(CHILD, mode)
                .output()
                .expect("the child test process");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("Rayon: detected unexpected panic; aborting"),
                "{mode}: the child did not print rayon's abort message; status {:?}, stderr:\n{stderr}",
                output.status
            );
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                assert_eq!(
                    output.status.signal(),
                    Some(6),
                    "{mode}: the child was not killed by SIGABRT; status {:?}, stderr:\n{stderr}",
                    output.status
                );
            }
            #[cfg(not(unix))]
            assert!(
                !output.status.success(),
                "{mode}: the child exited normally"
            );
        }
    });
}

/// rayon-core `lib.rs` `ThreadPoolBuilder::breadth_first` (workers take
/// jobs from the bottom of their own deque) and `registry.rs`
/// `Registry::new` (each worker's deque is `Worker::new_fifo()` when it is
/// set, `Worker::new_lifo()` otherwise). Deprecated, still honoured.
#[test]
#[allow(deprecated)]
fn breadth_first_makes_a_threads_own_spawns_run_in_the_order_spawned() {
    guarded("breadth_first switches spawn order to FIFO", |steps| {
        let orders = |breadth_first: bool| {
            let mut builder = ThreadPoolBuilder::new().num_threads(1);
            if breadth_first {
                builder = builder.breadth_first();
            }
            let pool = builder.build().expect("a pool");
            // Ten spawns in a scope on the pool.
            let flat = Mutex::new(Vec::new());
            pool.scope(|s| {
                for i in 0..10 {
                    let flat = &flat;
                    s.spawn(move |_| flat.lock().unwrap().push(i));
                }
            });
            // Ten spawns each spawning ten.
            let nested = Mutex::new(Vec::new());
            pool.scope(|s| {
                for i in 0..10 {
                    let nested = &nested;
                    s.spawn(move |s| {
                        for j in 0..10 {
                            s.spawn(move |_| nested.lock().unwrap().push(i * 10 + j));
                        }
                    });
                }
            });
            // Ten free spawns from a closure on the pool.
            let (sent, received) = channel();
            pool.install(move || {
                for i in 0..10 {
                    let sent = sent.clone();
                    rayon_core::spawn(move || sent.send(i).unwrap());
                }
            });
            let free: Vec<i32> = received.iter().collect();
            (
                flat.into_inner().unwrap(),
                nested.into_inner().unwrap(),
                free,
            )
        };

        steps.at("a 1-thread pool with breadth_first");
        let (flat, nested, free) = orders(true);
        assert_eq!(
            flat,
            (0..10).collect::<Vec<_>>(),
            "breadth_first: scope spawns not FIFO"
        );
        assert_eq!(
            nested,
            (0..100).collect::<Vec<_>>(),
            "breadth_first: nested spawns not FIFO"
        );
        assert_eq!(
            free,
            (0..10).collect::<Vec<_>>(),
            "breadth_first: free spawns not FIFO"
        );

        steps.at("a 1-thread pool without it");
        let (flat, nested, free) = orders(false);
        assert_eq!(
            flat,
            (0..10).rev().collect::<Vec<_>>(),
            "default: scope spawns not LIFO"
        );
        assert_eq!(
            nested,
            (0..100).rev().collect::<Vec<_>>(),
            "default: nested spawns not LIFO"
        );
        assert_eq!(
            free,
            (0..10).rev().collect::<Vec<_>>(),
            "default: free spawns not LIFO"
        );
    });
}

/// rayon-core `thread_pool/mod.rs` `current_thread_index` ("The index for a
/// given thread will not change over the thread's lifetime. However,
/// multiple threads may share the same index if they are in distinct thread
/// pools") and `ThreadPool::current_thread_index`; `registry.rs`
/// `WorkerThread::index` ("ranges from `0..self.num_threads()`").
#[test]
fn current_thread_index_is_unique_among_running_threads_and_below_current_num_threads() {
    guarded(
        "current_thread_index unique among running threads, < num_threads",
        |steps| {
            let (a, a_tag) = tagged_pool(3);
            let (b, b_tag) = tagged_pool(2);
            let pools = Arc::new([(a, a_tag, 3), (b, b_tag, 2)]);

            /// Who holds each (pool, index) right now, how deeply.
            type Holders = HashMap<(usize, usize), (ThreadId, usize)>;
            struct Log {
                holders: Mutex<Holders>,
                /// Each thread's index in each pool, as first seen.
                indices: Mutex<HashMap<(usize, ThreadId), usize>>,
                problems: Mutex<Vec<String>>,
                observed: AtomicUsize,
            }
            let log = Arc::new(Log {
                holders: Mutex::new(HashMap::new()),
                indices: Mutex::new(HashMap::new()),
                problems: Mutex::new(Vec::new()),
                observed: AtomicUsize::new(0),
            });

            // On a thread of pool `p`: its index, checked, held for 300 µs.
            fn observe(log: &Log, pools: &[(ThreadPool, usize, usize); 2], p: usize) {
                let (pool, tag, threads) = &pools[p];
                let me = thread::current().id();
                let problem = |text: String| log.problems.lock().unwrap().push(text);
                log.observed.fetch_add(1, Ordering::Relaxed);
                let Some(index) = rayon_core::current_thread_index() else {
                    return problem(format!("pool {p}: current_thread_index() is None"));
                };
                if index >= *threads {
                    problem(format!("pool {p}: index {index} >= {threads}"));
                }
                if pool.current_thread_index() != Some(index) {
                    problem(format!(
                        "pool {p}: pool.current_thread_index() is {:?}, not {index}",
                        pool.current_thread_index()
                    ));
                }
                let other = &pools[1 - p].0;
                if other.current_thread_index().is_some() {
                    problem(format!("pool {p}'s thread has an index in the other pool"));
                }
                if rayon_core::current_num_threads() != *threads {
                    problem(format!(
                        "pool {p}: current_num_threads() {}",
                        rayon_core::current_num_threads()
                    ));
                }
                if prepared_by() != *tag {
                    problem(format!(
                        "pool {p}: index {index} on a thread the pool did not prepare"
                    ));
                }
                match log.indices.lock().unwrap().entry((p, me)) {
                    std::collections::hash_map::Entry::Occupied(first) if *first.get() != index => {
                        problem(format!(
                            "pool {p}: a thread's index changed from {} to {index}",
                            first.get()
                        ));
                    }
                    std::collections::hash_map::Entry::Occupied(_) => {}
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(index);
                    }
                }
                {
                    let mut holders = log.holders.lock().unwrap();
                    let holder = holders.entry((p, index)).or_insert((me, 0));
                    if holder.1 > 0 && holder.0 != me {
                        problem(format!("pool {p}: two threads hold index {index} at once"));
                    } else {
                        *holder = (me, holder.1 + 1);
                    }
                }
                thread::sleep(Duration::from_micros(300));
                let mut holders = log.holders.lock().unwrap();
                if let Some(holder) = holders.get_mut(&(p, index)) {
                    if holder.0 == me && holder.1 > 0 {
                        holder.1 -= 1;
                    }
                }
            }

            steps.at("four callers on two pools, with cross-pool installs and broadcasts");
            let callers: Vec<_> = (0..4)
                .map(|caller| {
                    let (pools, log) = (Arc::clone(&pools), Arc::clone(&log));
                    thread::spawn(move || {
                        let (pools, log) = (&*pools, &*log);
                        let (a, b) = (&pools[0].0, &pools[1].0);
                        for _ in 0..4 {
                            a.install(|| {
                                join_tree(3, &|| {
                                    observe(log, pools, 0);
                                    b.install(|| join_tree(1, &|| observe(log, pools, 1)));
                                })
                            });
                            a.broadcast(|_| {
                                observe(log, pools, 0);
                                b.install(|| observe(log, pools, 1));
                            });
                            b.broadcast(|_| observe(log, pools, 1));
                            if caller % 2 == 0 {
                                b.install(|| join_tree(3, &|| observe(log, pools, 1)));
                            }
                        }
                    })
                })
                .collect();
            for caller in callers {
                caller.join().expect("a caller");
            }
            let problems = log.problems.lock().unwrap();
            assert!(
                problems.is_empty(),
                "{} problems in {} observations, first: {:?}",
                problems.len(),
                log.observed.load(Ordering::Relaxed),
                &problems[..problems.len().min(10)]
            );
        },
    );
}
