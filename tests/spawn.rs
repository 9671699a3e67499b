//! Detached jobs: `tine::spawn`, `spawn_fifo` and the pool methods. Every
//! job runs, on the pool's threads, in rayon's orders; the pool drops only
//! after its jobs are done; a panic goes to the panic handler, or aborts
//! the process without one.
#![cfg(all(not(loom), unix))]

mod support;

use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::within;
use tine::ThreadPool;

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn every_job_runs_before_the_pool_drops() {
    within(LIMIT, || {
        for threads in [1, 2, 4] {
            let pool = ThreadPool::try_spawn(threads).unwrap();
            let ran = Arc::new(AtomicUsize::new(0));
            for i in 0..200 {
                let ran = Arc::clone(&ran);
                let job = move || {
                    if i % 50 == 0 {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    ran.fetch_add(1, Ordering::Relaxed);
                };
                if i % 2 == 0 {
                    pool.spawn(job);
                } else {
                    pool.spawn_fifo(job);
                }
            }
            drop(pool);
            assert_eq!(ran.load(Ordering::Relaxed), 200, "{threads} threads");
        }
    });
}

#[test]
fn jobs_spawned_by_jobs_run_too_and_on_the_pools_threads() {
    within(LIMIT, || {
        let pool = Arc::new(ThreadPool::try_spawn(2).unwrap());
        let ran = Arc::new(AtomicUsize::new(0));
        let caller = std::thread::current().id();
        let (sender, receiver) = channel();
        for _ in 0..10 {
            let (ran, sender) = (Arc::clone(&ran), sender.clone());
            pool.spawn(move || {
                for _ in 0..10 {
                    let (ran, sender) = (Arc::clone(&ran), sender.clone());
                    // The current pool: the one this job runs on.
                    tine::spawn(move || {
                        ran.fetch_add(1, Ordering::Relaxed);
                        sender.send(std::thread::current().id()).unwrap();
                    });
                }
            });
        }
        drop(sender);
        let threads: Vec<_> = receiver.iter().collect();
        assert_eq!(threads.len(), 100);
        assert!(threads.iter().all(|&thread| thread != caller));
        assert_eq!(ran.load(Ordering::Relaxed), 100);
    });
}

#[test]
fn fifo_jobs_start_in_order_and_jobs_spawned_inside_the_pool_newest_first() {
    within(LIMIT, || {
        let pool = ThreadPool::try_spawn(1).unwrap();
        let (sender, receiver) = channel();
        for i in 0..10 {
            let sender = sender.clone();
            pool.spawn_fifo(move || sender.send(i).unwrap());
        }
        let order: Vec<i32> = receiver.iter().take(10).collect();
        assert_eq!(order, (0..10).collect::<Vec<_>>());
        // From a job: the newest runs first once it returns (one thread).
        pool.spawn(move || {
            for i in 0..10 {
                let sender = sender.clone();
                tine::spawn(move || sender.send(i).unwrap());
            }
        });
        let order: Vec<i32> = receiver.iter().take(10).collect();
        assert_eq!(order, (0..10).rev().collect::<Vec<_>>());
    });
}

#[test]
fn the_global_pool_runs_spawned_jobs() {
    within(LIMIT, || {
        let (sender, receiver) = channel();
        for i in 0..4 {
            let sender = sender.clone();
            tine::spawn_fifo(move || sender.send(i * i).unwrap());
        }
        let mut squares: Vec<i32> = receiver.iter().take(4).collect();
        squares.sort_unstable();
        assert_eq!(squares, [0, 1, 4, 9]);
    });
}

#[test]
fn a_panic_goes_to_the_handler_and_the_pool_goes_on() {
    within(LIMIT, || {
        let (sender, receiver) = channel();
        let sender = Mutex::new(sender);
        let pool = ThreadPool::builder()
            .threads(2)
            .panic_handler(move |payload| {
                let message = payload.downcast_ref::<&str>().copied().unwrap_or("?");
                sender.lock().unwrap().send(message.to_owned()).unwrap();
            })
            .build()
            .unwrap();
        pool.spawn(|| panic!("first"));
        assert_eq!(receiver.recv().unwrap(), "first");
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&ran);
        pool.spawn(move || {
            counter.fetch_add(1, Ordering::Relaxed);
        });
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 1);
    });
}

#[test]
fn a_pool_dropped_by_its_own_job_does_not_wait_for_itself() {
    within(LIMIT, || {
        let pool = Arc::new(ThreadPool::try_spawn(2).unwrap());
        let (sender, receiver) = channel();
        let last = Arc::clone(&pool);
        drop(pool);
        let inner = Arc::clone(&last);
        inner.spawn(move || {
            drop(last); // one of two references; `inner` is the other
            sender.send(()).unwrap();
        });
        // The job may run before or after this drop; whichever drops the
        // last reference, the drop returns.
        drop(inner);
        receiver.recv().unwrap();
    });
}

const CHILD: &str = "TINE_SPAWN_ABORT_CHILD";

/// Run in a child only: a spawned job panics on a pool without a handler.
#[test]
fn child_a_panicking_spawned_job_without_a_handler() {
    if std::env::var_os(CHILD).is_none() {
        return; // only meaningful in the child
    }
    let pool = ThreadPool::try_spawn(2).unwrap();
    pool.spawn(|| panic!("no handler"));
    std::thread::sleep(Duration::from_secs(30));
    // Unreachable: the process is gone.
    std::process::exit(0);
}

#[test]
fn a_panicking_spawned_job_without_a_handler_aborts() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_a_panicking_spawned_job_without_a_handler",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGABRT),
        "status {:?}, stderr {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A job spawned during a caller's region, which waits for that caller to
/// do something after its call, must not hold the call up: no thread of
/// the caller's region runs spawned jobs (one that took it would keep the
/// region from ending).
#[test]
fn a_spawned_job_waiting_for_its_caller_does_not_hold_up_the_call() {
    within(LIMIT, || {
        let pool = ThreadPool::try_spawn(2).unwrap();
        let (sender, receiver) = channel::<()>();
        let receiver = Mutex::new(Some(receiver));
        pool.join(
            || {
                let receiver = receiver.lock().unwrap().take().unwrap();
                pool.spawn(move || receiver.recv().unwrap());
                // Time for the region's idle thread to look at the queue.
                std::thread::sleep(Duration::from_millis(50));
            },
            || {},
        );
        sender.send(()).unwrap();
        drop(pool); // waits for the job, which can now finish
    });
}

/// A one-thread pool whose one thread is the one that built it
/// (`use_current_thread`) runs a spawned job when that thread yields.
#[test]
fn a_pool_of_its_builder_alone_runs_a_spawned_job_when_its_builder_yields() {
    within(LIMIT, || {
        let pool = ThreadPool::builder()
            .threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        let (sender, receiver) = channel();
        pool.spawn(move || sender.send(7).unwrap());
        let got = loop {
            if let Ok(got) = receiver.try_recv() {
                break got;
            }
            assert_eq!(tine::yield_now(), Some(tine::Yield::Executed));
        };
        assert_eq!(got, 7);
        drop(pool);
    });
}

/// A spawned job that broadcasts while the serving thread waits for it to
/// end must reach the serving thread, whatever the point of its wait the
/// mail lands in: while it spins, or once it parks. Each round spawns two
/// jobs, one per thread; the one on thread 1 broadcasts a little after the
/// serving thread's job has ended (0 to 1.2 ms).
#[test]
fn a_broadcast_from_a_spawned_job_reaches_the_serving_thread_waiting_for_it() {
    // One flag per round, static: the jobs share it without an `Arc`,
    // whose last drop ThreadSanitizer misreads (std's `Arc` orders it with
    // a fence, which TSan does not model).
    static ENDED: [AtomicBool; 13] = [const { AtomicBool::new(false) }; 13];
    within(LIMIT, || {
        let pool = ThreadPool::try_spawn(2).unwrap();
        let mut broadcasts = 0;
        for (round, ended) in ENDED.iter().enumerate() {
            let (sender, receiver) = channel();
            for _ in 0..2 {
                let sender = sender.clone();
                pool.spawn(move || {
                    if tine::current_thread_index() == Some(0) {
                        std::thread::sleep(Duration::from_millis(5));
                        sender.send(None).unwrap();
                        // Release: pairs with the Acquire load below.
                        ended.store(true, Ordering::Release);
                        return;
                    }
                    // Acquire: pairs with the Release store above.
                    while !ended.load(Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                    let delay = Duration::from_micros(100 * round as u64);
                    let start = std::time::Instant::now();
                    while start.elapsed() < delay {
                        std::hint::spin_loop();
                    }
                    let seen = tine::broadcast(|ctx| ctx.index());
                    sender.send(Some(seen)).unwrap();
                });
            }
            for seen in receiver.iter().take(2).flatten() {
                assert_eq!(seen, [0, 1]);
                broadcasts += 1;
            }
        }
        assert!(broadcasts > 0, "no job ran on thread 1 in 13 rounds");
    });
}

/// A pool's thread 0 that is its builder (`use_current_thread`) takes its
/// part of a broadcast when it waits for the pool's work: a spawned job
/// that broadcasts waits for it, and the jobs queued behind it wait for
/// that job.
#[test]
fn a_builder_thread_takes_its_part_of_a_broadcast_while_it_yields() {
    within(LIMIT, || {
        for _ in 0..20 {
            let pool = ThreadPool::builder()
                .threads(2)
                .use_current_thread()
                .build()
                .unwrap();
            let (sender, receiver) = channel();
            for job in 0..4 {
                let sender = sender.clone();
                pool.spawn(move || {
                    if job % 2 == 0 {
                        sender.send(tine::broadcast(|ctx| ctx.index())).unwrap();
                    } else {
                        std::thread::sleep(Duration::from_millis(2));
                        sender.send(Vec::new()).unwrap();
                    }
                });
            }
            let mut seen = Vec::new();
            while seen.len() < 4 {
                match receiver.try_recv() {
                    Ok(one) => seen.push(one),
                    Err(_) => {
                        tine::yield_now();
                    }
                }
            }
            let broadcasts = seen.iter().filter(|seen| !seen.is_empty());
            assert!(
                broadcasts
                    .inspect(|seen| assert_eq!(**seen, [0, 1]))
                    .count()
                    == 2
            );
        }
    });
}

/// A 2-thread pool in the model `caller_runs` says, whose callers wait
/// `busy_wait` for a busy team, to share with its jobs.
fn shared_pool(caller_runs: bool, busy_wait: Duration) -> Arc<ThreadPool> {
    let pool = ThreadPool::builder()
        .threads(2)
        .caller_runs(caller_runs)
        .busy_wait(busy_wait)
        .build();
    Arc::new(pool.expect("a pool"))
}

/// A caller's `in_place_scope` that waits for a detached job of its own
/// pool, which itself waits for a job it spawns: the scope holds the team,
/// so once the team has stayed busy for the pool's busy wait, relief
/// threads run the jobs, each alone. In both models.
#[test]
fn an_in_place_scope_waiting_for_a_detached_job_gets_it() {
    within(LIMIT, || {
        for caller_runs in [true, false] {
            let pool = shared_pool(caller_runs, Duration::from_millis(20));
            for round in 0..3 {
                let (sender, receiver) = channel();
                let inner = Arc::clone(&pool);
                let got = pool.in_place_scope(|_| {
                    pool.spawn(move || {
                        // A nested call runs too (inline, the team being held).
                        let (a, b) = tine::join(|| round, || round + 1);
                        // And a job spawned from this one, which it waits for.
                        let (sender2, receiver2) = channel();
                        inner.spawn(move || sender2.send(10).unwrap());
                        sender.send(a + b + receiver2.recv().unwrap()).unwrap();
                    });
                    receiver.recv().unwrap()
                });
                assert_eq!(got, 2 * round + 11, "caller_runs({caller_runs})");
            }
            // The pool is usable after, and its drop returns.
            assert_eq!(pool.join(|| 1, || 2), (1, 2));
        }
    });
}

/// A detached job that waits for another one it spawns, while a caller's
/// region holds the team far past the busy wait: both run (on relief
/// threads), and the region is not held up by them.
#[test]
fn detached_jobs_waiting_for_each_other_run_beside_a_long_region() {
    within(LIMIT, || {
        let pool = shared_pool(true, Duration::from_millis(10));
        let (sender, receiver) = channel();
        let inner = Arc::clone(&pool);
        let outer = &*pool;
        pool.join(
            move || {
                outer.spawn(move || {
                    let (sender2, receiver2) = channel();
                    inner.spawn(move || sender2.send(5).unwrap());
                    sender.send(receiver2.recv().unwrap()).unwrap();
                });
                // The region outlasts several busy waits; the jobs finish
                // within it.
                assert_eq!(receiver.recv_timeout(LIMIT).unwrap(), 5);
            },
            || {},
        );
    });
}

/// A job run on a relief thread that drops the last handle of its pool,
/// after waiting for another job it spawned once the region that held the
/// team has ended: the drop returns (the serving thread's region does not
/// wait for a relief thread's job), and so does the job.
#[test]
fn a_relief_threads_job_may_drop_the_last_handle_of_its_pool() {
    within(LIMIT, || {
        let pool = shared_pool(true, Duration::from_millis(10));
        let (started, is_started) = channel();
        let (done, is_done) = channel();
        let inner = Arc::clone(&pool);
        let outer = &*pool;
        pool.join(
            move || {
                outer.spawn(move || {
                    started.send(()).unwrap();
                    // Time for the region to end and the caller's handle
                    // to go.
                    std::thread::sleep(Duration::from_millis(30));
                    let (sender, receiver) = channel();
                    inner.spawn(move || sender.send(3).unwrap());
                    assert_eq!(receiver.recv().unwrap(), 3);
                    drop(inner); // the last handle
                    done.send(()).unwrap();
                });
                // The region holds the team until a relief thread runs it.
                is_started.recv_timeout(LIMIT).unwrap();
            },
            || {},
        );
        drop(pool);
        is_done.recv_timeout(LIMIT).unwrap();
    });
}

/// A pool dropped while one of its detached jobs still runs on a relief
/// thread waits for the job without holding a CPU meanwhile: its serving
/// thread, which the drop joins, polls for the job's end with sleeps.
#[cfg(target_os = "linux")]
#[test]
fn a_pool_dropped_beside_a_running_job_waits_without_spinning() {
    /// This thread's CPU time (user and system), from procfs, in the
    /// kernel's clock ticks.
    fn thread_cpu_ticks() -> u64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("procfs");
        // The fields after the command's closing parenthesis: state is the
        // 3rd field of the line, utime the 14th, stime the 15th.
        let rest = &stat[stat.rfind(')').expect("a stat line") + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }
    within(LIMIT, || {
        // Both models: in tine's, the scope holds the team and the job runs
        // on a relief thread while the serving thread waits; in rayon's,
        // the job runs on one resident thread while the other waits.
        for caller_runs in [true, false] {
            let most_ticks = Arc::new(AtomicUsize::new(0));
            let exited = Arc::new(AtomicUsize::new(0));
            let (record, count) = (Arc::clone(&most_ticks), Arc::clone(&exited));
            let pool = ThreadPool::builder()
                .threads(2)
                .caller_runs(caller_runs)
                .busy_wait(Duration::from_millis(10))
                .on_exit(move |_| {
                    record.fetch_max(thread_cpu_ticks() as usize, Ordering::SeqCst);
                    count.fetch_add(1, Ordering::SeqCst);
                })
                .build()
                .expect("a pool");
            let (started, on_start) = channel();
            let finished = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&finished);
            pool.in_place_scope(|_| {
                pool.spawn(move || {
                    started.send(()).unwrap();
                    std::thread::sleep(Duration::from_millis(600));
                    flag.store(true, Ordering::SeqCst);
                });
                on_start.recv().unwrap();
            });
            drop(pool);
            assert!(
                finished.load(Ordering::SeqCst),
                "the drop waits for the job"
            );
            assert!(
                exited.load(Ordering::SeqCst) >= 1,
                "the pool's threads' exit handlers ran"
            );
            // Spinning through the job's 600 ms would cost about 60 ticks of
            // 10 ms; parked, about none.
            let ticks = most_ticks.load(Ordering::SeqCst);
            assert!(
                ticks < 15,
                "a thread of the pool (caller_runs {caller_runs}) spent {ticks} clock ticks of CPU during a 600 ms wait"
            );
        }
    });
}
