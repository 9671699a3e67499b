//! Many OS threads calling one pool at once (a server, a GUI, a library
//! called from several threads): every call finishes with the right result,
//! and a call that finds the team busy is handed over to the team's threads
//! rather than run alone on its caller after a timeout. The pools here wait
//! 60 s before taking a call back (`busy_wait`), so a hand-over that no
//! thread served would hang, and the watchdog fails the test.
#![cfg(not(loom))]

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::{b_ran_while_a_waited, below, within};
use tine::prelude::*;
use tine::ThreadPool;

const LIMIT: Duration = Duration::from_secs(60);

fn patient_pool(threads: usize) -> ThreadPool {
    ThreadPool::builder()
        .threads(threads)
        .busy_wait(Duration::from_secs(60))
        .build()
        .expect("a pool")
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = tine::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn eight_callers_of_a_two_thread_pool_all_finish_with_the_right_results() {
    eight_callers(patient_pool(2));
}

/// The same with calls in the order they came (a `call_patience` of
/// zero; by default the newest run first for a while): every call still
/// finishes, none lost or run twice between the two orders.
#[test]
fn eight_callers_finish_with_calls_in_arrival_order() {
    let pool = ThreadPool::builder()
        .threads(2)
        .busy_wait(Duration::from_secs(60))
        .call_patience(Duration::ZERO)
        .build()
        .expect("a pool");
    eight_callers(pool);
}

fn eight_callers(pool: ThreadPool) {
    within(LIMIT, || {
        let pool = Arc::new(pool);
        let callers: Vec<_> = (0..8u64)
            .map(|client| {
                let pool = Arc::clone(&pool);
                std::thread::spawn(move || {
                    let data: Vec<u64> = (0..20_000).map(|i| i + client).collect();
                    let expected: u64 = data.iter().map(|x| x * 2).sum();
                    for _ in 0..60 {
                        let sum: u64 = pool.install(|| data.par_iter().map(|x| x * 2).sum());
                        assert_eq!(sum, expected);
                        assert_eq!(pool.install(|| fib(16)), 987);
                        let mut halves = [0u64; 2];
                        let (low, high) = halves.split_at_mut(1);
                        pool.scope(|s| {
                            s.spawn(|_| low[0] = data[..10_000].iter().sum());
                            s.spawn(|_| high[0] = data[10_000..].iter().sum());
                        });
                        assert_eq!(halves[0] + halves[1], expected / 2);
                        let count = AtomicUsize::new(0);
                        pool.for_n(10, |_| {
                            count.fetch_add(1, Ordering::Relaxed);
                        });
                        assert_eq!(count.into_inner(), 10);
                    }
                })
            })
            .collect();
        for caller in callers {
            caller.join().expect("a caller panicked");
        }
    });
}

/// Waits (yielding) until `flag` is set.
fn wait_for(flag: &AtomicBool) {
    // Acquire: pairs with the Release store of whoever sets the flag.
    while !flag.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
}

/// A number of this thread's own, never 0.
fn thread_number() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    std::thread_local! {
        static NUMBER: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    NUMBER.with(|number| *number)
}

/// A call made while another caller's region holds the team waits for
/// that region to end: no thread of the region takes it, for the region's
/// caller would then wait for it (if the call needed something that caller
/// holds, a lock say, neither would ever finish). The region's root here
/// finishes on its own; every item of the other call runs after it.
#[test]
fn a_call_made_during_anothers_region_never_runs_inside_it() {
    within(LIMIT, || {
        let pool = patient_pool(2);
        let (entered, calling, ended) = (
            AtomicBool::new(false),
            AtomicBool::new(false),
            AtomicBool::new(false),
        );
        support::scope(|s| {
            s.spawn(|| {
                // Holds the team in a region whose root waits; its other
                // thread is idle.
                pool.join(
                    || {
                        // Release: pairs with the Acquire in `wait_for`.
                        entered.store(true, Ordering::Release);
                        wait_for(&calling);
                        // Long enough for the other call to be queued (on
                        // a loaded host it may come later: the property
                        // holds either way).
                        std::thread::sleep(Duration::from_millis(50));
                        // Release: pairs with the items' Acquire loads.
                        ended.store(true, Ordering::Release);
                    },
                    || {},
                );
            });
            s.spawn(|| {
                wait_for(&entered);
                // Release: pairs with the Acquire in `wait_for`.
                calling.store(true, Ordering::Release);
                let after = AtomicUsize::new(0);
                pool.for_n(16, |_| {
                    // Acquire: pairs with the Release store above.
                    if ended.load(Ordering::Acquire) {
                        after.fetch_add(1, Ordering::Relaxed);
                    }
                });
                assert_eq!(
                    after.into_inner(),
                    16,
                    "items of a call ran inside another caller's region"
                );
            });
        });
    });
}

#[test]
fn a_call_made_during_a_plain_fork_runs_on_the_pool_once_it_ends() {
    within(LIMIT, || {
        let pool = patient_pool(2);
        let (entered, calling) = (AtomicBool::new(false), AtomicBool::new(false));
        support::scope(|s| {
            s.spawn(|| {
                pool.for_threads(|thread_index, _| {
                    if thread_index == 0 {
                        // Release: pairs with the Acquire in `wait_for`.
                        entered.store(true, Ordering::Release);
                        // Held until the other thread is about to call, and
                        // then long enough for its calls to be handed over
                        // (on a loaded host it may start late).
                        wait_for(&calling);
                        std::thread::sleep(Duration::from_millis(100));
                    }
                });
            });
            s.spawn(|| {
                wait_for(&entered);
                // Release: pairs with the Acquire in `wait_for`.
                calling.store(true, Ordering::Release);
                let caller = thread_number();
                // One call: it runs once the fork ends, and a second call
                // made after it may find the team idle and take it.
                let (a, b) = pool.join(thread_number, thread_number);
                assert!(
                    a != caller && b != caller,
                    "a handed-over call ran items on its caller"
                );
            });
        });
    });
}

#[test]
fn a_panic_in_a_handed_over_call_resumes_on_its_caller() {
    within(LIMIT, || {
        let pool = patient_pool(2);
        let (entered, calling) = (AtomicBool::new(false), AtomicBool::new(false));
        support::scope(|s| {
            s.spawn(|| {
                pool.join(
                    || {
                        // Release: pairs with the Acquire in `wait_for`.
                        entered.store(true, Ordering::Release);
                        wait_for(&calling);
                        // Long enough for the other call to be queued.
                        std::thread::sleep(Duration::from_millis(50));
                    },
                    || {},
                );
            });
            s.spawn(|| {
                wait_for(&entered);
                // Release: pairs with the Acquire in `wait_for`.
                calling.store(true, Ordering::Release);
                let caught = std::panic::catch_unwind(|| {
                    pool.install(|| {
                        (0..64).into_par_iter().for_each(|i| {
                            if i == 17 {
                                panic!("item 17");
                            }
                        })
                    })
                });
                let payload = caught.expect_err("the panic resumes on the caller");
                assert_eq!(payload.downcast_ref::<&str>(), Some(&"item 17"));
            });
        });
        // The pool is still usable.
        assert_eq!(pool.install(|| fib(12)), 144);
    });
}

/// How long a join's first closure waits for its second to run elsewhere.
const PATIENCE: Duration = Duration::from_secs(10);

/// Ten rounds of `round` on a 2-thread pool in rayon's model
/// (`caller_runs(false)`), each true if a join's `b` ran while its `a`
/// waited. Every other round first lets the pool's threads go idle, so
/// that those calls wake them.
fn rayon_model_rounds(what: &'static str, round: fn(&ThreadPool) -> bool) {
    within(LIMIT, move || {
        let pool = ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .busy_wait(Duration::from_secs(60))
            .build()
            .expect("a pool");
        for index in 0..10 {
            if index % 2 == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(
                round(&pool),
                "round {index}: {what}'s b never ran while a waited for it"
            );
        }
    });
}

/// In rayon's model, a join's second closure is offered at once, whichever
/// of the region's threads took the call: `a` may wait for `b` to run
/// elsewhere, as rayon code does.
#[test]
fn a_handed_over_join_runs_its_sides_on_two_threads() {
    rayon_model_rounds("a join", |pool| {
        b_ran_while_a_waited(PATIENCE, |a, b| pool.join(a, b).0)
    });
}

/// As [`a_handed_over_join_runs_its_sides_on_two_threads`], for a join far
/// below the linked zone: in rayon's model an empty offer slot counts as a
/// request, so such a join, which no idle thread asked, still offers its
/// `b` at once when no older join's is pending.
#[test]
fn a_deep_handed_over_join_runs_its_sides_on_two_threads() {
    rayon_model_rounds("a deep join", |pool| {
        pool.install(|| {
            below::<16384, _>(|| b_ran_while_a_waited(PATIENCE, |a, b| tine::join(a, b).0))
        })
    });
}
