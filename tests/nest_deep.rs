//! Joins far deeper than the window of open joins a promotion looks at
//! (64) and than the linked zone (`src/nest/worker.rs`): a join far down a
//! chain still reaches idle threads, every branch runs once, and a panic
//! deep in the chain reaches the caller and leaves the pool usable.
#![cfg(not(loom))]

mod scale;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::{b_ran_while_a_waited, below};
use tine::ThreadPool;

/// How far below the root a migrated branch must lie: well past the window.
const FAR: u32 = 200;

/// Stacks for chains of a thousand levels in debug builds.
const STACK: usize = 32 << 20;

fn pool(threads: usize) -> ThreadPool {
    ThreadPool::builder()
        .threads(threads)
        .stack_size(STACK)
        .build()
        .unwrap()
}

/// Runs `f` on a thread with a stack of `STACK` bytes.
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

/// Marks `far_migrated` if this branch, `depth` joins down, ran on a thread
/// other than its joiner's and lies deeper than `FAR`.
fn mark(context: &tine::FnContext, depth: u32, far_migrated: &AtomicBool) {
    if context.migrated() && depth > FAR {
        // Release: pairs with the Acquire load at the leaf.
        far_migrated.store(true, Ordering::Release);
    }
}

/// A chain of nested joins down to `leaf`. The deepest `a` keeps joining
/// (each join may answer a request for work) until a branch deeper than
/// `FAR` ran on another thread, or until `patience` ran out. Returns the
/// branches of the chain run, counting each once.
fn chain(depth: u32, leaf: u32, far_migrated: &AtomicBool, patience: Instant) -> u32 {
    if depth == leaf {
        // Acquire: pairs with the Release store of the migrated branch.
        while !far_migrated.load(Ordering::Acquire) && patience.elapsed() < Duration::from_secs(20)
        {
            // `a` gives an offered `b` a millisecond to be taken.
            let wait = || {
                let offered = Instant::now();
                // Acquire: as above.
                while !far_migrated.load(Ordering::Acquire)
                    && offered.elapsed() < Duration::from_millis(1)
                {
                    std::hint::spin_loop();
                }
            };
            tine::join_context(|_| wait(), |context| mark(&context, depth, far_migrated));
            std::thread::yield_now();
        }
        return 0;
    }
    let (below, here) = tine::join_context(
        |_| chain(depth + 1, leaf, far_migrated, patience),
        |context| {
            mark(&context, depth, far_migrated);
            1
        },
    );
    below + here
}

#[test]
#[cfg_attr(miri, ignore)] // waits on the clock for a steal; Miri's is virtual
fn branches_far_down_a_chain_reach_idle_threads() {
    let pool = pool(2);
    let leaf = 1_000;
    let far_migrated = AtomicBool::new(false);
    let branches = on_big_stack(|| pool.install(|| chain(0, leaf, &far_migrated, Instant::now())));
    assert_eq!(branches, leaf, "every branch runs once");
    assert!(
        far_migrated.load(Ordering::Relaxed),
        "no branch deeper than {FAR} joins ran on the idle thread"
    );
}

/// A chain whose every branch counts itself and whose branch at `boom`
/// panics.
fn chain_with_panic(depth: u32, leaf: u32, boom: u32, ran: &AtomicUsize) -> u32 {
    if depth == leaf {
        return 0;
    }
    let (below, here) = tine::join(
        || chain_with_panic(depth + 1, leaf, boom, ran),
        || {
            ran.fetch_add(1, Ordering::Relaxed);
            assert_ne!(depth, boom, "the branch at depth {boom} panics");
            1
        },
    );
    below + here
}

#[test]
fn a_panic_far_down_a_chain_reaches_the_caller_after_every_branch_ran() {
    let leaf = scale::size(1_000).max(FAR as usize) as u32;
    let boom = leaf * 2 / 3;
    for threads in [1, 2, 4] {
        let pool = pool(threads);
        let ran = AtomicUsize::new(0);
        let caught = on_big_stack(|| {
            catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| chain_with_panic(0, leaf, boom, &ran))
            }))
            .is_err()
        });
        assert!(caught, "the panic reaches the caller");
        assert_eq!(ran.into_inner(), leaf as usize, "every branch ran once");
        let ran = AtomicUsize::new(0);
        let branches = on_big_stack(|| pool.install(|| chain_with_panic(0, leaf, u32::MAX, &ran)));
        assert_eq!(branches, leaf, "the pool is usable after the panic");
    }
}

/// A join whose `a` waits for `b` without joining again: true if `b` ran
/// on another thread meanwhile (within 200 ms). Out of line, so that its
/// join lies in a frame of its own.
#[inline(never)]
fn b_runs_while_a_waits() -> bool {
    b_ran_while_a_waited(Duration::from_millis(200), |a, b| tine::join(a, b).0)
}

#[test]
#[cfg_attr(miri, ignore)] // waits on the clock for a steal; Miri's is virtual
fn a_join_below_the_linked_zone_still_offers_b_to_an_asking_thread() {
    let pool = pool(2);
    // The region starts at the outer join, whose `b` the idle thread takes
    // at once; it then asks again. An inner join far below the region's
    // base that finds the request, and no linked join pending, offers its
    // own `b`. Tries until one inner join began after the request (a slow
    // host may take a while to run the idle thread), for up to 20 s.
    let (offered, ()) = on_big_stack(|| {
        pool.install(|| {
            tine::join(
                || {
                    let patience = Instant::now();
                    while patience.elapsed() < Duration::from_secs(20) {
                        std::thread::sleep(Duration::from_millis(5));
                        if below::<16384, _>(b_runs_while_a_waits) {
                            return true;
                        }
                    }
                    false
                },
                || (),
            )
        })
    });
    assert!(offered, "a deep join kept b from an asking idle thread");
}
