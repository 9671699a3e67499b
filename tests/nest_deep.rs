//! Joins far deeper than the window of open joins a promotion looks at
//! (64): branches far down a chain still reach idle threads, every branch runs
//! once, and a panic deep in the chain reaches the caller and leaves the
//! pool usable.
#![cfg(not(loom))]

mod scale;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
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

/// A chain of nested joins down to `leaf`. The deepest `a` keeps joining
/// (each join may answer a request for work) until a branch deeper than
/// `FAR` ran on another thread, or until `patience` ran out. Returns the
/// branches run, counting each once.
fn chain(depth: u32, leaf: u32, far_migrated: &AtomicBool, patience: Instant) -> u32 {
    if depth == leaf {
        // Acquire: pairs with the Release store of the migrated branch.
        while !far_migrated.load(Ordering::Acquire) && patience.elapsed() < Duration::from_secs(20)
        {
            tine::join(|| (), || ());
            std::thread::yield_now();
        }
        return 0;
    }
    let (below, here) = tine::join_context(
        |_| chain(depth + 1, leaf, far_migrated, patience),
        |context| {
            if context.migrated() && depth > FAR {
                // Release: pairs with the Acquire load at the leaf.
                far_migrated.store(true, Ordering::Release);
            }
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
