//! rayon-core 1.13: work on a custom pool never builds the global pool, so
//! a program that uses only its own pools may still call `build_global`
//! later. Its own test binary: the global pool is one per process, and no
//! other test may touch it first.
//!
//! rayon-core sources: `registry.rs` `Registry::current` and the free
//! `in_worker` (on a worker thread, the free functions use that worker's
//! registry; only off every pool do they reach `global_registry()`),
//! `registry.rs` `set_global_registry` (`build_global` fails only once a
//! global registry exists), `thread_pool/mod.rs` (each `ThreadPool` method
//! uses `self.registry`).

use rayon_core::{ThreadPoolBuilder, Yield};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(20);

/// On a pool thread: runs pending work until `count` messages came.
fn yield_until(received: &Receiver<usize>, count: usize) -> Vec<usize> {
    let mut got = Vec::new();
    while got.len() < count {
        match received.try_recv() {
            Ok(value) => got.push(value),
            Err(_) => {
                if rayon_core::yield_now() == Some(Yield::Idle) {
                    thread::yield_now();
                }
            }
        }
    }
    got
}

#[test]
fn using_only_a_custom_pool_leaves_the_global_pool_unbuilt() {
    let step = Arc::new(Mutex::new("started"));
    let (done, result) = channel();
    let body_step = Arc::clone(&step);
    thread::spawn(move || {
        let at = |name| *body_step.lock().unwrap() = name;
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .expect("a pool");

            at("the free functions inside the pool's install");
            pool.install(|| {
                assert_eq!(rayon_core::current_num_threads(), 2);
                assert!(rayon_core::current_thread_index().is_some());
                assert!(rayon_core::current_thread_has_pending_tasks().is_some());
                assert!(rayon_core::max_num_threads() >= 2);
                assert_eq!(rayon_core::join(|| 1, || 2), (1, 2));
                let (a, b) = rayon_core::join_context(|_| 1, |_| 2);
                assert_eq!(a + b, 3);
                let count = AtomicUsize::new(0);
                rayon_core::scope(|s| {
                    s.spawn(|_| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                    s.spawn_broadcast(|_, _| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                });
                rayon_core::scope_fifo(|s| {
                    s.spawn_fifo(|_| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                });
                rayon_core::in_place_scope(|s| {
                    s.spawn(|_| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                });
                rayon_core::in_place_scope_fifo(|s| {
                    s.spawn_fifo(|_| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                });
                assert_eq!(count.load(Ordering::Relaxed), 1 + 2 + 1 + 1 + 1);
                assert_eq!(rayon_core::broadcast(|ctx| ctx.index()), [0, 1]);

                let (sent, received) = channel();
                let s = sent.clone();
                rayon_core::spawn(move || s.send(1).unwrap());
                let s = sent.clone();
                rayon_core::spawn_fifo(move || s.send(2).unwrap());
                let s = Mutex::new(sent);
                rayon_core::spawn_broadcast(move |ctx| {
                    s.lock().unwrap().send(10 + ctx.index()).unwrap()
                });
                let mut got = yield_until(&received, 4);
                got.sort_unstable();
                assert_eq!(got, [1, 2, 10, 11]);
                let _ = rayon_core::yield_now();
                let _ = rayon_core::yield_local();
            });

            at("the pool's methods from outside it");
            assert_eq!(pool.join(|| 1, || 2), (1, 2));
            assert_eq!(
                pool.scope(|s| {
                    s.spawn(|_| ());
                    3
                }),
                3
            );
            pool.scope_fifo(|s| s.spawn_fifo(|_| ()));
            pool.in_place_scope(|s| s.spawn(|_| ()));
            pool.in_place_scope_fifo(|s| s.spawn_fifo(|_| ()));
            assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);
            let (sent, received) = channel();
            let s = sent.clone();
            pool.spawn(move || s.send(1).unwrap());
            let s = sent.clone();
            pool.spawn_fifo(move || s.send(2).unwrap());
            let s = Mutex::new(sent);
            pool.spawn_broadcast(move |ctx| s.lock().unwrap().send(10 + ctx.index()).unwrap());
            let mut got: Vec<usize> = received.iter().take(4).collect();
            got.sort_unstable();
            assert_eq!(got, [1, 2, 10, 11]);
            assert_eq!(pool.current_num_threads(), 2);
            assert_eq!(pool.current_thread_index(), None);
            assert_eq!(pool.current_thread_has_pending_tasks(), None);
            assert_eq!(pool.yield_now(), None);
            assert_eq!(pool.yield_local(), None);
            drop(pool);

            at("build_global after all that");
            ThreadPoolBuilder::new()
                .num_threads(3)
                .build_global()
                .expect("build_global failed: the custom pool's work built the global pool");
            assert_eq!(
                rayon_core::current_num_threads(),
                3,
                "the global pool is not the one built"
            );
        }));
        let _ = done.send(outcome);
    });
    match result.recv_timeout(LIMIT) {
        Ok(Ok(())) => {}
        Ok(Err(payload)) => panic::resume_unwind(payload),
        Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => panic!(
            "DEADLOCK: no result after {LIMIT:?}: using only a custom pool (last step reached: {})",
            step.lock().unwrap()
        ),
    }
}
