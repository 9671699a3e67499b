//! Handing work to a pool's own threads: a call queued on the pool's
//! injector, whose caller waits for it ([`hand_over`]), and the forks that
//! go that way when the caller cannot run the call as thread 0 (a busy team
//! in tine's model; every call from outside a pool in rayon's).
//!
//! # Who waits how
//!
//! The call is a [`CallJob`] on the caller's stack; a thread of the pool
//! pops it and runs it with its own worker, then sets the job's `done` flag
//! as its last touch and wakes the caller. The caller waits in one of two
//! ways, chosen before it queues the job:
//!
//! - a thread outside every region parks on its own thread handle
//!   (`Wake::Thread`), after a short yielding wait when it is a lone
//!   caller of short calls (`inject/call_time.rs`);
//! - a thread of another pool's region keeps running that pool's work
//!   while it waits (its own jobs, offers, mail, and work queued on its
//!   pool), then parks on its pool's doorbell, which the runner rings
//!   (`Wake::Bell`): so pool A's thread waiting for pool B never holds up
//!   A, whose work may be what B's job waits for (rayon's
//!   `in_worker_cross`).
//!
//! In tine's model the parked caller may take the job back once the
//! pool's busy wait has passed with no thread taking it, and run it alone
//! ([`Fallback::RunHereAfter`]): the team may be held by a fork that waits
//! for this very thread (a task's helper thread). A pool in rayon's model
//! never needs that: its threads are always there to take the job.

use super::alone::serial;
use super::inject::call::{CallJob, Wake};
use super::inject::links::End;
use super::join::join_here;
use super::worker::{Besides, Worker};
use super::Nest;
use crate::team::{in_task, run_inline, Share, Team};
use core::time::Duration;

/// What a parked caller does if no thread takes its call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// Waits: the pool's threads will take it (rayon's model).
    Never,
    /// Takes it back after this long and runs it alone (tine's model; see
    /// the module head).
    RunHereAfter(Duration),
}

/// Hands `root` to `nest`'s pool as a queued call and returns its result
/// once a thread of the pool has run it (see the module head); a panic in
/// `root` resumes here. Never called on a thread of `nest`'s own regions.
pub(crate) fn hand_over<R: Send>(
    nest: &Nest,
    root: impl FnOnce(&Worker) -> R + Send,
    fallback: Fallback,
) -> R {
    Worker::with_current(|current| match current {
        Some(worker) if worker.in_region() => {
            debug_assert!(
                !worker.belongs_to(nest),
                "a pool's own thread runs its call itself"
            );
            // A region's thread is in a fork, where no caller asks for a
            // take-back (`enter` and `busy_fork` check `in_task` first).
            debug_assert!(
                matches!(fallback, Fallback::Never),
                "a region's thread waits for its call without a take-back"
            );
            let job = CallJob::new(root, Wake::Bell(worker.nest().shared_waits()));
            queue(nest, &job);
            worker.wait_until(|| job.is_done(), Besides::Nothing);
            // SAFETY: done, seen once.
            finish(unsafe { job.take_result() })
        }
        _ => wait_parked(nest, root, fallback),
    })
}

/// Queues `job`, which stays in the caller's frame until it is done (or
/// taken back), and rings the pool's threads.
fn queue<F: FnOnce(&Worker) -> R + Send, R: Send>(nest: &Nest, job: &CallJob<F, R>) {
    // SAFETY: `job` lives in the caller's frame, which returns only once it
    // is done or taken back.
    unsafe { nest.injector.push(job.header(), End::Back) };
    nest.ring_injected();
}

/// The result, or the runner's panic resumed here.
fn finish<R>(result: std::thread::Result<R>) -> R {
    match result {
        Ok(value) => value,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// [`hand_over`] from a thread outside every region: parked, after a short
/// yielding wait for a lone caller of short calls.
fn wait_parked<R: Send>(
    nest: &Nest,
    root: impl FnOnce(&Worker) -> R + Send,
    fallback: Fallback,
) -> R {
    let job = CallJob::new(root, Wake::this_thread());
    queue(nest, &job);
    #[cfg(not(loom))]
    let deadline = match fallback {
        Fallback::Never => None,
        Fallback::RunHereAfter(wait) => std::time::Instant::now().checked_add(wait),
    };
    #[cfg(loom)]
    let deadline: Option<std::time::Instant> = {
        let _ = fallback;
        None
    };
    // A lone caller of short calls first waits yielding its CPU, which the
    // spinner there gives back as the call ends (`inject/call_time.rs`).
    #[cfg(not(loom))]
    {
        let wait = nest.injector.yielding_wait();
        if !wait.is_zero() {
            job.wait_yielding(wait);
        }
    }
    let mut deadline = deadline;
    while !job.is_done() {
        let Some(at) = deadline else {
            std::thread::park();
            continue;
        };
        let left = at.saturating_duration_since(std::time::Instant::now());
        if !left.is_zero() {
            std::thread::park_timeout(left);
            continue;
        }
        // SAFETY: pushed by this thread above, alive.
        if unsafe { nest.injector.take_back(job.header()) } {
            // SAFETY: taken back: no runner touches the job.
            let root = unsafe { job.take_func() };
            return serial(nest, root);
        }
        // A runner has it: wait for its flag alone.
        deadline = None;
    }
    // SAFETY: done, seen once.
    finish(unsafe { job.take_result() })
}

/// A fork of a pool in tine's model whose team is busy (`ThreadPool`'s
/// `fork_join`): from inside a region of that very team, every share runs
/// through `join` (binary splitting, each index once), so idle threads of
/// the region take them; from outside every fork, the call is handed over
/// to the team ([`hand_over`]), where it runs the same way; otherwise
/// (inside a task, which the holder may be waiting for) the team's turn is
/// tried once, else every share runs inline, in thread order, as the team
/// would.
#[cold]
#[inline(never)]
pub(crate) fn busy_fork(team: &Team, nest: &Nest, share: &Share<'_>) {
    let threads = team.threads();
    let here = Worker::with_current(|worker| match worker {
        Some(worker) if worker.is_region_of(nest) => Some(true),
        _ if !in_task() => Some(false),
        _ => None,
    });
    match here {
        Some(true) => split(0, threads, share),
        Some(false) => hand_over(
            nest,
            |worker| split_or_inline(worker, nest, threads, share),
            Fallback::RunHereAfter(nest.busy_wait),
        ),
        None => {
            if !team.fork_spread::<&Team>(&[], || {}, share) {
                run_inline(threads, |thread_index| share(thread_index, 0));
            }
        }
    }
}

/// A fork of a pool in rayon's model (`ThreadPool`'s `fork_join`): from a
/// thread of its region, every share through `join`; from anywhere else,
/// handed over to its threads, which run it that way.
pub(crate) fn resident_fork(nest: &Nest, share: &Share<'_>) {
    let threads = nest.threads();
    let inside =
        Worker::with_current(|worker| worker.is_some_and(|worker| worker.is_region_of(nest)));
    if inside {
        split(0, threads, share);
    } else {
        hand_over(
            nest,
            |worker| split_or_inline(worker, nest, threads, share),
            Fallback::Never,
        );
    }
}

/// A fork of `nest`'s pool from inside a region of it (its `ForkJoin`):
/// every share through the region's joins; on a thread of no region of it
/// (not reached through `par`, which asks only there), every share inline.
pub(crate) fn fork_in_region(nest: &Nest, share: &Share<'_>) {
    let inside =
        Worker::with_current(|worker| worker.is_some_and(|worker| worker.is_region_of(nest)));
    if inside {
        split(0, nest.threads(), share);
    } else {
        run_inline(nest.threads(), |thread_index| share(thread_index, 0));
    }
}

/// A handed-over fork's root: through the region's joins, or (a call taken
/// back, run on a serial worker) every share inline.
fn split_or_inline(worker: &Worker, nest: &Nest, threads: usize, share: &Share<'_>) {
    if worker.is_region_of(nest) {
        split(0, threads, share);
    } else {
        run_inline(threads, |thread_index| share(thread_index, 0));
    }
}

/// A fork with one share on the calling thread whatever the team's state,
/// never handed over: for work of which only the caller may do a part (the
/// stream's writer, which owns the caller's output), on a pool in tine's
/// model. From inside a region of this team, the region's joins (the first
/// share of each runs here); otherwise the team's own fork, with the caller
/// as thread 0, or every share inline here when the team stays busy.
pub(crate) fn fork_on_caller(team: &Team, nest: &Nest, share: &Share<'_>) {
    let inside =
        Worker::with_current(|worker| worker.is_some_and(|worker| worker.is_region_of(nest)));
    if inside {
        split(0, team.threads(), share);
    } else {
        team.fork(share);
    }
}

/// Runs `share(i, 0)` for every `i` in `begin..end` (non-empty) through
/// joins on the current region.
fn split(begin: usize, end: usize, share: &Share<'_>) {
    if end - begin == 1 {
        return share(begin, 0);
    }
    let middle = begin + (end - begin) / 2;
    join_here(|| split(begin, middle, share), || split(middle, end, share));
}
