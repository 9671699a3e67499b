//! Async callers: tasks spawned on a pool (`spawn_async`, `spawn_future`,
//! `Scope::spawn_future`) awaited on two executors, tokio's and pollster's
//! (the smallest there is), and `tine::block_on`: the work runs on the
//! pool's threads, never on the awaiting thread; results, panics and
//! wake-ups cross back; a dropped task still runs; a pool dropped before
//! its tasks end still finishes them. Each test runs under a watchdog.
#![cfg(not(loom))]

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::Duration;
use support::within;
use tine::prelude::*;
use tine::ThreadPool;

const LIMIT: Duration = Duration::from_secs(30);

fn pools() -> Vec<ThreadPool> {
    vec![
        ThreadPool::try_spawn(2).unwrap(),
        ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .build()
            .unwrap(),
        ThreadPool::builder()
            .threads(1)
            .caller_runs(false)
            .build()
            .unwrap(),
    ]
}

#[test]
fn a_task_runs_on_the_pools_threads_and_its_result_reaches_pollster() {
    within(LIMIT, || {
        for pool in pools() {
            let here = std::thread::current().id();
            let data: Vec<u64> = (1..=10_000).collect();
            let task = pool.spawn_async(move || {
                let sum: u64 = data.par_iter().sum();
                (sum, std::thread::current().id())
            });
            let (sum, there) = pollster::block_on(task);
            assert_eq!(sum, 50_005_000);
            assert_ne!(there, here, "the task ran on the thread that awaited it");
        }
    });
}

#[test]
fn tasks_awaited_on_a_tokio_runtime_never_run_on_its_threads() {
    within(LIMIT, || {
        let pool = Arc::new(
            ThreadPool::builder()
                .threads(2)
                .caller_runs(false)
                .build()
                .unwrap(),
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("executor")
            .build()
            .unwrap();
        let names: Vec<Option<String>> = runtime.block_on(async {
            let handlers: Vec<_> = (0..16)
                .map(|_| {
                    let pool = Arc::clone(&pool);
                    tokio::spawn(async move {
                        pool.spawn_async(|| std::thread::current().name().map(str::to_owned))
                            .await
                    })
                })
                .collect();
            let mut names = Vec::new();
            for handler in handlers {
                names.push(handler.await.unwrap());
            }
            names
        });
        assert_eq!(names.len(), 16);
        for name in names {
            let name = name.expect("pool threads are named");
            assert!(name.starts_with("tine:"), "a task ran on {name}");
        }
    });
}

#[test]
fn a_panic_in_a_task_resumes_where_it_is_awaited() {
    within(LIMIT, || {
        support::serialize_panic_output();
        for pool in pools() {
            let task = pool.spawn_async(|| -> u32 { panic!("task boom") });
            let caught =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pollster::block_on(task)));
            let payload = caught.expect_err("the panic resumes");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"task boom"));
            // The pool goes on.
            assert_eq!(tine::block_on(pool.spawn_async(|| 5)), 5);
        }
    });
}

#[test]
fn a_dropped_task_still_runs_and_its_panic_goes_to_the_handler() {
    within(LIMIT, || {
        support::serialize_panic_output();
        let (panics, handled) = channel();
        let panics = std::sync::Mutex::new(panics);
        let pool = ThreadPool::builder()
            .threads(2)
            .panic_handler(move |payload| {
                let message = payload.downcast_ref::<&str>().copied().unwrap_or("?");
                panics.lock().unwrap().send(message.to_owned()).unwrap();
            })
            .build()
            .unwrap();
        let (ran, seen) = channel();
        drop(pool.spawn_async(move || ran.send(7).unwrap()));
        assert_eq!(seen.recv().unwrap(), 7);
        let (go, wait) = channel::<()>();
        drop(pool.spawn_async(move || {
            wait.recv().unwrap();
            panic!("detached boom");
        }));
        go.send(()).unwrap();
        assert_eq!(handled.recv().unwrap(), "detached boom");
    });
}

/// A future that is pending until a message comes, woken from another
/// thread by a runtime-agnostic channel.
#[test]
fn a_spawned_future_is_polled_again_when_another_thread_wakes_it() {
    within(LIMIT, || {
        for pool in pools() {
            let (send, receive) = tokio::sync::oneshot::channel::<u32>();
            let polls = Arc::new(AtomicUsize::new(0));
            let counted = Arc::clone(&polls);
            let task = pool.spawn_future(async move {
                counted.fetch_add(1, Ordering::Relaxed);
                let value = receive.await.unwrap();
                value * 2
            });
            std::thread::sleep(Duration::from_millis(5));
            std::thread::spawn(move || send.send(21).unwrap());
            assert_eq!(pollster::block_on(task), 42);
            assert_eq!(
                polls.load(Ordering::Relaxed),
                1,
                "the async block started once"
            );
        }
    });
}

#[test]
fn block_on_a_pools_own_task_on_its_one_thread_returns() {
    within(LIMIT, || {
        let resident = ThreadPool::builder()
            .threads(1)
            .caller_runs(false)
            .build()
            .unwrap();
        let value = resident.enter(|| tine::block_on(tine::spawn_async(|| 11)));
        assert_eq!(value, 11);
        // A task that itself waits for another of the same pool.
        let nested = resident.spawn_async(|| tine::block_on(tine::spawn_async(|| 12)));
        assert_eq!(tine::block_on(nested), 12);
        let native = ThreadPool::try_spawn(1).unwrap();
        assert_eq!(
            native.install(|| tine::block_on(tine::spawn_async(|| 13))),
            13
        );
    });
}

#[test]
fn a_scope_waits_for_the_futures_spawned_in_it_and_they_borrow_from_outside() {
    within(LIMIT, || {
        for pool in pools() {
            let mut totals = [0u64; 4];
            pool.scope(|s| {
                for (i, total) in totals.iter_mut().enumerate() {
                    s.spawn_future(async move {
                        let inner = tine::spawn_async(move || (0..=i as u64 * 100).sum::<u64>());
                        *total = inner.await;
                    });
                }
            });
            assert_eq!(totals, [0, 5050, 20100, 45150]);
            // From a thread outside the pool, through `in_place_scope`.
            let flag = AtomicBool::new(false);
            pool.in_place_scope(|s| {
                s.spawn_future(async {
                    flag.store(true, Ordering::Relaxed);
                });
            });
            assert!(flag.load(Ordering::Relaxed));
        }
    });
}

#[test]
fn a_panic_in_a_scoped_future_resumes_after_the_scope() {
    within(LIMIT, || {
        support::serialize_panic_output();
        for pool in pools() {
            let ran = AtomicUsize::new(0);
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.scope(|s| {
                    s.spawn_future(async { panic!("scoped boom") });
                    s.spawn_future(async {
                        ran.fetch_add(1, Ordering::Relaxed);
                    });
                })
            }));
            let payload = caught.expect_err("the panic resumes after the scope");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"scoped boom"));
            assert_eq!(ran.load(Ordering::Relaxed), 1, "every future ran");
        }
    });
}

#[test]
fn a_scoped_future_dropped_unfinished_is_dropped_before_its_scope_returns() {
    /// Borrows from the scope's caller and takes its time to drop.
    struct SlowDrop<'a>(&'a AtomicBool);
    impl Drop for SlowDrop<'_> {
        fn drop(&mut self) {
            std::thread::sleep(Duration::from_millis(50));
            self.0.store(true, Ordering::Relaxed);
        }
    }
    /// Pending for ever, keeping no waker, so its cell is freed unfinished
    /// by the thread that polled it; says it was polled.
    struct Never<'a> {
        _guard: SlowDrop<'a>,
        polled: &'a AtomicBool,
    }
    impl std::future::Future for Never<'_> {
        type Output = ();
        fn poll(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            // Release: pairs with the scope body's Acquire load.
            self.polled.store(true, Ordering::Release);
            std::task::Poll::Pending
        }
    }
    within(LIMIT, || {
        // Two threads, so that the other one polls (and frees) the future
        // while the scope's own thread still runs the body.
        for pool in pools()
            .into_iter()
            .filter(|pool| pool.current_num_threads() == 2)
        {
            let (dropped, polled) = (AtomicBool::new(false), AtomicBool::new(false));
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.scope(|s| {
                    s.spawn_future(Never {
                        _guard: SlowDrop(&dropped),
                        polled: &polled,
                    });
                    // Acquire: pairs with the poll's Release store.
                    while !polled.load(Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                });
            }));
            assert!(caught.is_err(), "the scope reports the lost future");
            // Relaxed: the scope's end is ordered after the drop it waited for.
            assert!(
                dropped.load(Ordering::Relaxed),
                "dropped before the scope returned"
            );
        }
    });
}

#[test]
fn a_task_of_a_pool_dropped_before_it_ends_still_completes() {
    within(LIMIT, || {
        for detach in [false, true] {
            let mut builder = ThreadPool::builder().threads(2).caller_runs(false);
            if detach {
                builder = builder.detach_on_drop();
            }
            let pool = builder.build().unwrap();
            let (go, wait) = tokio::sync::oneshot::channel::<u32>();
            let task = pool.spawn_future(async move { wait.await.unwrap() + 1 });
            if detach {
                drop(pool);
                go.send(41).unwrap();
            } else {
                // A drop that waits for the pool's work: the task's wake
                // comes from another thread meanwhile.
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(20));
                    go.send(41).unwrap();
                });
                drop(pool);
            }
            assert_eq!(pollster::block_on(task), 42);
        }
    });
}
