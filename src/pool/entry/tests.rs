//! Unit tests of [`super::join_coarse`], and of the woken-caller count
//! (`wait/woken.rs`) and a lone caller's yielding wait
//! (`nest/inject/call_time.rs`) through calls handed over to a pool.

use super::join_coarse;
use crate::pool::ThreadPool;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// `b` of a coarse join reaches the idle thread while `a` runs without
/// joining again (a plain join would keep it until `a`'s next join).
#[test]
fn a_coarse_join_offers_b_at_once() {
    let pool = ThreadPool::try_spawn(2).expect("a pool");
    let flag = AtomicBool::new(false);
    let (seen, ()) = pool.install(|| {
        join_coarse(
            || {
                let start = Instant::now();
                // Acquire: pairs with the Release store in `b`.
                while !flag.load(Ordering::Acquire) {
                    if start.elapsed() > Duration::from_secs(20) {
                        return false;
                    }
                    std::thread::yield_now();
                }
                true
            },
            // Release: pairs with the Acquire load in `a`.
            || flag.store(true, Ordering::Release),
        )
    });
    assert!(seen, "b never ran while a waited for it");
}

/// Every caller counted as woken (`wait/woken.rs`) is counted off once
/// it has its result, a panic's included: after calls handed over from
/// several threads at once, the count reads zero again (other tests'
/// calls may hold it up for a moment, never for long). A caller left
/// counted would make every spinner in the process give way at each
/// poll from then on.
#[test]
fn every_woken_caller_is_counted_off() {
    let pool = ThreadPool::builder()
        .threads(2)
        .caller_runs(false)
        .build()
        .expect("a pool");
    std::thread::scope(|scope| {
        for client in 0..4 {
            let pool = &pool;
            scope.spawn(move || {
                for call in 0..200 {
                    let ran = std::panic::catch_unwind(|| {
                        pool.join(
                            || {
                                // Long enough to count its caller.
                                busy_for(Duration::from_micros(20));
                                assert!(call % 50 != client, "a call that panics");
                            },
                            || call,
                        )
                    });
                    assert_eq!(ran.is_ok(), call % 50 != client);
                }
            });
        }
    });
    assert!(
        crate::wait::woken::counted() > 0,
        "no call ran long enough to count its caller"
    );
    every_woken_caller_ends();
}

/// A lone caller of short calls waits for each yielding its CPU before it
/// parks (`nest/inject/call_time.rs`): every call still returns its own
/// result, its panic still reaches the caller, and every caller the runner
/// counted as woken is counted off, whichever way the caller waited.
#[test]
fn a_lone_caller_of_short_calls_waits_yielding_and_gets_every_result() {
    let pool = ThreadPool::builder()
        .threads(2)
        .caller_runs(false)
        .build()
        .expect("a pool");
    let before = crate::nest::inject::call::yielded_here();
    for call in 0..300u32 {
        let ran = std::panic::catch_unwind(|| {
            pool.join(
                || {
                    // Long enough for the yielding wait (2 µs or more).
                    busy_for(Duration::from_micros(20));
                    assert!(call % 100 != 99, "a call that panics");
                    call
                },
                || call + 1,
            )
        });
        match ran {
            Ok((a, b)) => assert_eq!((a, b), (call, call + 1)),
            Err(_) => assert_eq!(call % 100, 99),
        }
    }
    assert!(
        crate::nest::inject::call::yielded_here() > before,
        "this caller never waited yielding"
    );
    every_woken_caller_ends();
}

/// Spins for `span`: a call's work.
fn busy_for(span: Duration) {
    let start = Instant::now();
    while start.elapsed() < span {
        std::hint::spin_loop();
    }
}

/// Waits (20 s at most) until no caller counted as woken is left.
fn every_woken_caller_ends() {
    let start = Instant::now();
    while crate::wait::woken::Woken::pending() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "a woken caller was never counted off"
        );
        std::thread::yield_now();
    }
}
