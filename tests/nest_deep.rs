//! Joins far deeper than the window of open joins a promotion looks at
//! (64) and than the linked zone (`src/nest/worker.rs`): a join far down a
//! chain still reaches idle threads, every branch runs once, and a panic
//! deep in the chain reaches the caller and leaves the pool usable.
#![cfg(not(loom))]

mod scale;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use support::{b_ran_while_a_waited, below, within};
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

/// The watchdog's limit (`support::within`): far past what a chain takes.
const LIMIT: Duration = Duration::from_secs(60);

/// Marks `far_migrated` if this branch, `depth` joins down, ran on a thread
/// other than its joiner's and lies deeper than `FAR`.
fn mark(context: &tine::FnContext, depth: u32, far_migrated: &AtomicBool) {
    if context.migrated() && depth > FAR {
        // Release: pairs with the Acquire loads at the leaf and after.
        far_migrated.store(true, Ordering::Release);
    }
}

/// Waits while this thread has an offered branch no thread has taken yet,
/// or an open join whose branch is pending: a join's `a` that waits so
/// leaves its `b`, if offered, to the idle thread, which takes it, however
/// long it takes to get a CPU. The small joins answer the idle thread's
/// requests with the pending branches, oldest first.
fn until_taken() {
    while tine::current_thread_has_pending_tasks() == Some(true) {
        tine::join(|| (), || ());
        std::thread::yield_now();
    }
}

/// A chain of nested joins down to `leaf`. The deepest `a` keeps joining
/// until a branch deeper than `FAR` ran on another thread. Each of those
/// joins that finds the idle thread's request offers the oldest pending
/// branch, else (the slot empty, no linked join pending) its own `b`; its
/// `a` ([`until_taken`]) then waits until the idle thread has taken what
/// was offered. The idle thread asks again after each branch it runs, so
/// whenever its requests come, a join at the leaf offers its own `b` once
/// the chain's pending branches are taken. Returns the branches of the
/// chain run, counting each once.
fn chain(depth: u32, leaf: u32, far_migrated: &AtomicBool) -> u32 {
    if depth == leaf {
        // Acquire: pairs with the Release store of the migrated branch.
        while !far_migrated.load(Ordering::Acquire) {
            tine::join_context(
                |_| until_taken(),
                |context| mark(&context, depth, far_migrated),
            );
            std::thread::yield_now();
        }
        return 0;
    }
    let (below, here) = tine::join_context(
        |_| chain(depth + 1, leaf, far_migrated),
        |context| {
            mark(&context, depth, far_migrated);
            1
        },
    );
    below + here
}

#[test]
#[cfg_attr(
    miri,
    ignore = "the linked zone follows stack addresses, which under Miri need not follow the stack: the chain's joins need not lie below it"
)]
fn branches_far_down_a_chain_reach_idle_threads() {
    within(LIMIT, || {
        let pool = pool(2);
        let leaf = 1_000;
        let far_migrated = AtomicBool::new(false);
        let branches = on_big_stack(|| pool.install(|| chain(0, leaf, &far_migrated)));
        assert_eq!(branches, leaf, "every branch runs once");
        // Acquire: as at the leaf.
        assert!(
            far_migrated.load(Ordering::Acquire),
            "no branch deeper than {FAR} joins ran on the idle thread"
        );
    });
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
/// on another thread meanwhile. Out of line, so that its join lies in a
/// frame of its own.
#[inline(never)]
fn b_runs_while_a_waits() -> bool {
    // A watchdog, not a pace: the idle thread takes an offered `b` as soon
    // as it gets a CPU.
    b_ran_while_a_waited(LIMIT, |a, b| tine::join(a, b).0)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "the linked zone follows stack addresses, which under Miri need not follow the stack: the join need not lie below it"
)]
fn a_join_below_the_linked_zone_still_offers_b_to_an_asking_thread() {
    let pool = pool(2);
    // A region asks its thread 0 for work on behalf of the idle thread it
    // starts, and a scope's root makes no join that would answer with its
    // own `b`: the first join, far below the region's base, finds the
    // request, no linked join pending and the slot empty, so it offers its
    // own `b`, which the idle thread takes while `a` waits. Each round is
    // a region of its own.
    for round in 0..10 {
        let offered = on_big_stack(|| pool.scope(|_| below::<16384, _>(b_runs_while_a_waits)));
        assert!(
            offered,
            "round {round}: a deep join kept b from an asking idle thread"
        );
    }
}
