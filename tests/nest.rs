//! `join`, `join_context` and `scope`: results against serial code, panics,
//! borrowing, pools of 1 to 4 threads (more threads than cores), calls
//! from several threads, composition with parallel iterators, and deep
//! recursion on threads with a stack of known size. One suite (about 650
//! lines), so that the sanitizer and Miri steps of `.ci/run` cover all of
//! it by name.
#![cfg(not(loom))]

mod scale;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tine::prelude::*;
use tine::ThreadPool;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = tine::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

/// `fib` of `n` shrunk as a depth (`scale::depth`: under Miri, which
/// interprets every join), on the current pool, checked against serial.
fn checked_fib(n: u32) -> u64 {
    let value = fib(u64::from(scale::depth(n)));
    assert_eq!(value, fib_at(n));
    value
}

/// What [`checked_fib`] of `n` returns, computed serially.
fn fib_at(n: u32) -> u64 {
    fib_serial(u64::from(scale::depth(n)))
}

/// A balanced tree's node sum, with a `join` at every node.
struct Node {
    value: u64,
    children: Option<Box<(Node, Node)>>,
}

fn tree(depth: u32, next: &mut u64) -> Node {
    *next += 1;
    let value = *next;
    let children = (depth > 0).then(|| Box::new((tree(depth - 1, next), tree(depth - 1, next))));
    Node { value, children }
}

fn sum(node: &Node) -> u64 {
    match &node.children {
        None => node.value,
        Some(children) => {
            let (a, b) = tine::join(|| sum(&children.0), || sum(&children.1));
            node.value + a + b
        }
    }
}

fn pools() -> Vec<ThreadPool> {
    (1..=4).map(tine::spawn_pool).collect()
}

/// The watchdog's limit (`support::within`): far past what any test here
/// takes, far short of [`no_busy_wait_pool`]'s busy wait.
const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn fib_matches_serial_on_every_pool_and_the_global_one() {
    checked_fib(20);
    for pool in pools() {
        assert_eq!(pool.install(|| checked_fib(22)), fib_at(22), "{pool:?}");
        let pair = pool.join(|| checked_fib(15), || checked_fib(16));
        assert_eq!(pair, (fib_at(15), fib_at(16)));
    }
}

#[test]
fn tree_sums_match_serial_nested_past_depth_20() {
    let mut next = 0;
    let root = tree(scale::depth(16), &mut next);
    let expected = next * (next + 1) / 2;
    for pool in pools() {
        assert_eq!(pool.install(|| sum(&root)), expected, "{pool:?}");
    }
    // Depth 24 of nested joins, at most two live at each level.
    fn deep(depth: u32) -> u32 {
        if depth == 0 {
            return 1;
        }
        let (a, b) = tine::join(|| deep(depth - 1), || u32::from(depth % 7 == 0));
        a + b
    }
    let expected: u32 = 1 + (1..=24).filter(|d| d % 7 == 0).count() as u32;
    for pool in pools() {
        assert_eq!(pool.install(|| deep(24)), expected);
    }
}

#[test]
fn closures_borrow_the_callers_stack_mutably() {
    let pool = tine::spawn_pool(3);
    let mut data: Vec<u64> = (0..scale::size(10_000) as u64).rev().collect();
    fn sort(slice: &mut [u64]) {
        if slice.len() <= 16 {
            return slice.sort();
        }
        let pivot = slice[slice.len() / 2];
        let mut low = 0;
        for i in 0..slice.len() {
            if slice[i] < pivot {
                slice.swap(i, low);
                low += 1;
            }
        }
        let (left, right) = slice.split_at_mut(low.max(1));
        tine::join(|| sort(left), || sort(right));
    }
    pool.install(|| sort(&mut data));
    assert!(data.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn a_panic_on_either_side_resumes_after_both_finished() {
    support::serialize_panic_output();
    for pool in pools() {
        for side in 0..3 {
            let other_ran = AtomicUsize::new(0);
            let caught = catch_unwind(AssertUnwindSafe(|| {
                pool.join(
                    || {
                        if side != 1 {
                            panic!("left")
                        }
                        std::thread::sleep(Duration::from_millis(2));
                        other_ran.fetch_add(1, Relaxed);
                    },
                    || {
                        if side != 0 {
                            panic!("right")
                        }
                        std::thread::sleep(Duration::from_millis(2));
                        other_ran.fetch_add(1, Relaxed);
                    },
                )
            }));
            let payload = caught.expect_err("the panic resumes");
            let message = *payload.downcast::<&str>().unwrap();
            // Both panic: the left's resumes.
            assert_eq!(message, if side == 1 { "right" } else { "left" });
            assert_eq!(other_ran.load(Relaxed), usize::from(side != 2));
            // The pool is usable afterwards.
            assert_eq!(pool.install(|| checked_fib(12)), fib_at(12));
        }
    }
}

/// While `a` unwinds, `b` still runs; a panic from dropping `b`'s result
/// is caught with `b`'s own (a second panic during unwinding would abort
/// the test process), and `a`'s payload resumes.
#[test]
fn a_panicking_drop_of_bs_result_while_a_unwinds_is_caught() {
    struct PanicsOnDrop<'a>(&'a AtomicUsize);
    impl Drop for PanicsOnDrop<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Relaxed);
            panic!("drop of b's result");
        }
    }
    support::serialize_panic_output();
    for pool in pools() {
        let dropped = AtomicUsize::new(0);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            pool.join(|| panic!("left"), || PanicsOnDrop(&dropped))
        }));
        let payload = caught.err().expect("a's panic did not resume");
        assert_eq!(*payload.downcast::<&str>().unwrap(), "left", "{pool:?}");
        assert_eq!(
            dropped.load(Relaxed),
            1,
            "b ran once, its result dropped once"
        );
        assert_eq!(pool.install(|| checked_fib(12)), fib_at(12));
    }
}

#[test]
fn nested_panics_deep_in_the_tree_reach_the_caller() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(4);
    fn boom(depth: u32) -> u32 {
        if depth == 0 {
            panic!("leaf");
        }
        let (a, b) = tine::join(|| boom(depth - 1), || boom(depth - 1));
        a + b
    }
    for _ in 0..scale::size(5) {
        let caught = catch_unwind(|| pool.install(|| boom(scale::depth(8))));
        assert!(caught.is_err());
        assert_eq!(pool.install(|| checked_fib(15)), fib_at(15));
    }
}

#[test]
fn join_context_says_where_the_closures_ran() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::{current, ThreadId};
    /// Where a closure ran, and whether its context says it migrated.
    fn report(ctx: tine::FnContext) -> (ThreadId, bool) {
        (current().id(), ctx.migrated())
    }
    type Sides = ((ThreadId, bool), (ThreadId, bool));

    // One thread: both closures run on the caller, neither migrated.
    let ((a_on, a_moved), (b_on, b_moved)): Sides =
        tine::spawn_pool(1).install(|| tine::join_context(report, report));
    assert_eq!((a_on, b_on), (current().id(), current().id()));
    assert!(!a_moved && !b_moved, "nothing migrates on one thread");

    // Two threads: `a` runs on the caller; `b` says it migrated exactly
    // when it ran on another thread, whichever way each call went.
    let pool = tine::spawn_pool(2);
    for _ in 0..scale::size(20) {
        let ((a_on, a_moved), (b_on, b_moved)): Sides =
            pool.install(|| tine::join_context(report, report));
        assert_eq!(a_on, current().id());
        assert!(!a_moved);
        assert_eq!(b_moved, b_on != a_on);
    }

    // `a` waits until `b` has run, so `b` runs on the idle thread (a
    // region's first join offers its `b` at once): it migrated, `a` did
    // not. A join that did not offer `b` would hang; the watchdog fails it.
    let ((a_on, a_moved), (b_on, b_moved)) = support::within(LIMIT, move || {
        let b_ran = AtomicBool::new(false);
        pool.install(|| {
            tine::join_context(
                |ctx| {
                    // Acquire: pairs with the Release store in `b`.
                    while !b_ran.load(Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                    report(ctx)
                },
                |ctx| {
                    // Release: pairs with the Acquire load in `a`.
                    b_ran.store(true, Ordering::Release);
                    report(ctx)
                },
            )
        })
    });
    assert_ne!(a_on, b_on, "b ran on the idle thread");
    assert!(!a_moved && b_moved, "only b migrated");

    // A call from outside a pool whose threads run every call (rayon's
    // model): both closures run on the pool's threads, both migrated.
    let handed = ThreadPool::builder()
        .threads(2)
        .caller_runs(false)
        .build()
        .unwrap();
    let ((a_on, a_moved), (b_on, b_moved)): Sides =
        handed.install(|| tine::join_context(report, report));
    assert_ne!(a_on, current().id());
    assert_ne!(b_on, current().id());
    assert!(a_moved && b_moved, "a handed-over call migrates both");
}

#[test]
fn scope_runs_every_task_before_it_returns() {
    for pool in pools() {
        let mut results = vec![0u64; 100];
        let base = u64::from(scale::depth(10));
        pool.scope(|s| {
            for (i, slot) in results.iter_mut().enumerate() {
                s.spawn(move |_| *slot = fib_serial(base + (i as u64 % 5)));
            }
        });
        for (i, value) in results.iter().enumerate() {
            assert_eq!(*value, fib_serial(base + (i as u64 % 5)));
        }
        // Tasks spawning tasks, and joins inside tasks.
        let count = AtomicUsize::new(0);
        fn spread<'s>(s: &tine::Scope<'s>, depth: u32, count: &'s AtomicUsize) {
            count.fetch_add(1, Relaxed);
            if depth > 0 {
                s.spawn(move |s| spread(s, depth - 1, count));
                s.spawn(move |s| spread(s, depth - 1, count));
            }
        }
        let levels = scale::depth(8);
        let value = pool.scope(|s| {
            spread(s, levels, &count);
            checked_fib(10)
        });
        assert_eq!(value, fib_at(10));
        assert_eq!(count.load(Relaxed), (1 << (levels + 1)) - 1);
        // The global pool, and a scope inside a join inside a scope.
        let total = AtomicUsize::new(0);
        tine::scope(|s| {
            s.spawn(|_| {
                let (a, b) = tine::join(
                    || {
                        tine::scope(|s| {
                            s.spawn(|_| {
                                total.fetch_add(1, Relaxed);
                            })
                        })
                    },
                    || 2,
                );
                let ((), two) = (a, b);
                total.fetch_add(two, Relaxed);
            });
        });
        assert_eq!(total.load(Relaxed), 3);
    }
}

#[test]
fn a_panic_in_a_spawned_task_or_the_scope_resumes_after_all_finished() {
    support::serialize_panic_output();
    for pool in pools() {
        let finished = AtomicUsize::new(0);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..20 {
                    let finished = &finished;
                    s.spawn(move |_| {
                        if i % 7 == 3 {
                            panic!("task {i}");
                        }
                        std::thread::sleep(Duration::from_micros(200));
                        finished.fetch_add(1, Relaxed);
                    });
                }
            })
        }));
        assert!(caught.is_err());
        assert_eq!(finished.load(Relaxed), 20 - 3);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn(|_| {
                    std::thread::sleep(Duration::from_millis(2));
                    finished.fetch_add(1, Relaxed);
                });
                panic!("op");
            })
        }));
        assert_eq!(*caught.unwrap_err().downcast::<&str>().unwrap(), "op");
        assert_eq!(finished.load(Relaxed), 18);
        assert_eq!(pool.install(|| fib(10)), 55);
    }
}

#[test]
fn concurrent_callers_from_several_threads_all_get_right_answers() {
    let pool = tine::spawn_pool(3);
    support::scope(|threads| {
        for t in 0..4 {
            let pool = &pool;
            threads.spawn(move || {
                for round in 0..scale::size(10) {
                    let n = 12 + (t + round) as u32 % 5;
                    assert_eq!(pool.install(|| checked_fib(n)), fib_at(n));
                    checked_fib(n); // the global pool
                }
            });
        }
    });
}

/// A pool whose busy wait is far past the watchdog's limit: a nested call
/// that waited for the busy team would hang the test, and the watchdog
/// ([`watched`]) fails it instead.
fn no_busy_wait_pool(threads: usize) -> ThreadPool {
    ThreadPool::builder()
        .threads(threads)
        .busy_wait(Duration::from_secs(600))
        .build()
        .unwrap()
}

/// Runs `body` under the watchdog, natively. Under Miri, whose clock counts
/// interpreted steps, not waiting (a suite's worth of them may pass the
/// limit), `body` runs as it is.
fn watched(body: impl FnOnce() + Send + 'static) {
    if cfg!(miri) {
        body();
    } else {
        support::within(LIMIT, body);
    }
}

#[test]
fn par_iter_inside_join_and_join_inside_par_iter_match_serial() {
    // Under Miri, the 1-thread pool (every call inline) and the 4-thread
    // one.
    let sizes: &[usize] = if cfg!(miri) { &[1, 4] } else { &[1, 2, 3, 4] };
    for &threads in sizes {
        watched(move || nested_calls_match_serial(threads));
    }
}

/// The body of [`par_iter_inside_join_and_join_inside_par_iter_match_serial`]
/// on a pool of `threads` threads.
fn nested_calls_match_serial(threads: usize) {
    let pool = no_busy_wait_pool(threads);
    let data: Vec<u64> = (0..scale::size(20_000) as u64).collect();
    let expected: u64 = data.iter().map(|x| x * x).sum();
    let m = u64::from(scale::depth(16));
    let head = data.len().min(100);
    for _ in 0..scale::size(5) {
        // par_iter inside each branch of a join.
        let (a, b) = pool.join(
            || data.par_iter().map(|x| x * x).sum::<u64>(),
            || data[..head].par_iter().map(|x| x * x).sum::<u64>(),
        );
        assert_eq!(a, expected);
        assert_eq!(b, (0..head as u64).map(|x| x * x).sum());
        // join inside a par_iter closure inside a region.
        let fibs: Vec<u64> = pool.install(|| {
            tine::join(
                || (0..40u64).into_par_iter().map(|n| fib(n % m)).collect(),
                || (),
            )
            .0
        });
        let serial: Vec<u64> = (0..40u64).map(|n| fib_serial(n % m)).collect();
        assert_eq!(fibs, serial);
        // join inside a top-level par_iter closure (a plain fork: the
        // joins run inline).
        let top: Vec<u64> =
            pool.install(|| (0..40u64).into_par_iter().map(|n| fib(n % m)).collect());
        assert_eq!(top, serial);
        // A for_n inside a scope task, with every index once.
        let hits: Vec<AtomicUsize> = (0..scale::size(1000))
            .map(|_| AtomicUsize::new(0))
            .collect();
        pool.scope(|s| {
            s.spawn(|_| {
                pool.for_n(hits.len(), |prong| {
                    hits[prong.task_index].fetch_add(1, Relaxed);
                })
            });
        });
        assert!(hits.iter().all(|hit| hit.load(Relaxed) == 1));
    }
}

#[test]
fn a_join_inside_a_plain_fork_task_runs_inline_and_right() {
    watched(|| {
        let pool = no_busy_wait_pool(3);
        let sums: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        pool.for_threads(|thread_index, _| {
            let (a, b) = pool.join(|| checked_fib(12), || checked_fib(13));
            sums[thread_index].store((a + b) as usize, Relaxed);
        });
        let expected = (fib_at(12) + fib_at(13)) as usize;
        assert!(sums.iter().all(|sum| sum.load(Relaxed) == expected));
    });
}

#[test]
fn joins_inside_another_pools_install_use_that_pool() {
    let outer = tine::spawn_pool(2);
    let inner = tine::spawn_pool(3);
    let value = outer.install(|| {
        tine::join(
            || inner.install(|| checked_fib(15)),
            || inner.join(|| checked_fib(10), || checked_fib(11)),
        )
    });
    assert_eq!(value, (fib_at(15), (fib_at(10), fib_at(11))));
    assert_eq!(inner.install(tine::current_num_threads), 3);
}

#[test]
fn a_join_inside_another_pools_install_runs_on_that_pools_threads() {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Each pool's workers carry its name, so `b` tells by its thread's name
    // where it ran (no shared list: ThreadSanitizer does not see std's
    // uninstrumented `Mutex` order the pushes into one).
    let pool = |name: &str| tine::ThreadPool::builder().threads(2).name(name).build();
    let outer = pool("outer").expect("a pool");
    let inner = pool("inner").expect("a pool");
    let ran_on = outer.install(|| {
        let (ran_on, ()) = tine::join(
            || {
                inner.install(|| {
                    let done = AtomicBool::new(false);
                    let (_, ran_on) = tine::join(
                        || {
                            // Small joins answer the idle thread's request.
                            let start = Instant::now();
                            // Acquire: pairs with the Release store in `b`.
                            while !done.load(Ordering::Acquire)
                                && start.elapsed() < Duration::from_secs(20)
                            {
                                tine::join(|| (), || ());
                                std::thread::yield_now();
                            }
                        },
                        || {
                            // Release: pairs with the Acquire load in `a`.
                            done.store(true, Ordering::Release);
                            std::thread::current().name().map(str::to_owned)
                        },
                    );
                    ran_on
                })
            },
            || (),
        );
        ran_on
    });
    // The caller is neither pool's worker; an inner worker took `b`.
    let ran_on = ran_on.unwrap_or_default();
    assert!(
        ran_on.starts_with("inner:"),
        "b ran on {ran_on:?}, not on a worker of the installed pool"
    );
}

/// A chain of `depth` nested joins, each level's frame holding one job.
fn chain(depth: u32) -> u32 {
    if depth == 0 {
        return 0;
    }
    let (a, b) = tine::join(|| chain(depth - 1), || 1);
    a + b
}

#[test]
fn deep_recursion_fits_the_stack_of_the_serial_recursion() {
    // Debug builds spend a few hundred bytes to a few KiB per level; 64 MiB
    // over 10,000 levels allows 6.5 KiB each, and no per-level queue.
    const STACK: usize = 64 << 20;
    for threads in [1, 3] {
        let pool = ThreadPool::builder()
            .threads(threads)
            .stack_size(STACK)
            .build()
            .unwrap();
        let pool = std::sync::Arc::new(pool);
        let caller = std::sync::Arc::clone(&pool);
        // Joined with `pthread_join`, which ThreadSanitizer sees.
        let depth = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || caller.install(|| chain(scale::size(10_000) as u32)))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(depth, scale::size(10_000) as u32);
    }
}

#[test]
fn calls_from_outside_any_pool_use_the_global_pool() {
    assert_eq!(tine::join(|| 1, || 2), (1, 2));
    let threads = tine::join(tine::current_num_threads, || ()).0;
    assert_eq!(threads, tine::global().threads());
    let mut x = 0;
    tine::scope(|s| s.spawn(|_| x = 5));
    assert_eq!(x, 5);
    // A scope handed to a thread outside any pool: its task runs there.
    let count = AtomicUsize::new(0);
    tine::scope(|s| {
        support::scope(|threads| {
            threads.spawn(|| {
                s.spawn(|_| {
                    count.fetch_add(1, Relaxed);
                })
            });
        });
    });
    assert_eq!(count.load(Relaxed), 1);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "promotion follows the clock, which Miri makes virtual (steps, not time); covered natively and under TSan"
)]
fn idle_threads_take_promoted_branches() {
    // Every thread of a 3-thread pool ends up running some branch: the
    // promotion reaches the idle threads. Walks until it has (a woken
    // worker may take a while to get a CPU on a loaded host), under the
    // watchdog.
    // Threads are recorded with atomics, not a std Mutex: the standard
    // library is not instrumented, so ThreadSanitizer would not see a
    // Mutex's synchronization.
    use std::sync::atomic::AtomicU64;
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: u64 = NEXT_ID.fetch_add(1, Relaxed);
    }
    /// Up to 8 distinct thread ids, each in the first free slot.
    struct Seen([AtomicU64; 8]);
    impl Seen {
        fn insert(&self, id: u64) {
            for slot in &self.0 {
                match slot.compare_exchange(0, id, Relaxed, Relaxed) {
                    Ok(_) => return,
                    Err(held) if held == id => return,
                    Err(_) => {}
                }
            }
        }
        fn len(&self) -> usize {
            self.0.iter().filter(|slot| slot.load(Relaxed) != 0).count()
        }
    }
    fn walk(depth: u32, seen: &Seen) {
        if depth == 0 {
            seen.insert(ID.with(|id| *id));
            std::hint::black_box(fib_serial(12));
            return;
        }
        tine::join(|| walk(depth - 1, seen), || walk(depth - 1, seen));
    }
    watched(|| {
        let pool = tine::spawn_pool(3);
        let seen = Seen(Default::default());
        // One region for all the rounds.
        pool.join(
            || {
                while seen.len() < 3 {
                    walk(10, &seen);
                }
            },
            || (),
        );
    });
}

#[test]
fn branches_see_their_pools_thread_count() {
    for pool in pools() {
        let threads = pool.threads();
        let (a, b) = pool.join(tine::current_num_threads, tine::current_num_threads);
        assert_eq!((a, b), (threads, threads));
        let mut seen = vec![0; 8];
        pool.scope(|s| {
            for slot in seen.iter_mut() {
                s.spawn(move |_| *slot = tine::current_num_threads());
            }
        });
        assert!(seen.iter().all(|&n| n == threads), "{seen:?}");
    }
}

#[test]
fn yield_now_runs_a_pending_task_of_the_region() {
    use std::sync::atomic::Ordering::{Acquire, Release};
    use tine::Yield;
    assert_eq!(tine::yield_now(), None);
    assert_eq!(tine::yield_local(), None);
    // One thread: nothing else can take the spawned task.
    let pool = tine::spawn_pool(1);
    let ran = AtomicUsize::new(0);
    pool.scope(|s| {
        s.spawn(|_| {
            ran.fetch_add(1, Relaxed);
        });
        assert_eq!(tine::yield_now(), Some(Yield::Executed));
        assert_eq!(ran.load(Relaxed), 1);
        assert_eq!(tine::yield_now(), Some(Yield::Idle));
        s.spawn(|_| {
            ran.fetch_add(1, Relaxed);
        });
        assert_eq!(tine::yield_local(), Some(Yield::Executed));
        assert_eq!(tine::yield_local(), Some(Yield::Idle));
    });
    assert_eq!(ran.load(Relaxed), 2);
    // Several threads: a task waits for a flag another task sets, yielding
    // meanwhile, and never deadlocks however the tasks are placed.
    let pool = tine::spawn_pool(3);
    for _ in 0..20 {
        let flag = AtomicUsize::new(0);
        pool.scope(|s| {
            s.spawn(|_| {
                while flag.load(Acquire) == 0 {
                    if tine::yield_now() == Some(Yield::Idle) {
                        std::thread::yield_now();
                    }
                }
            });
            s.spawn(|_| flag.store(1, Release));
        });
    }
}
