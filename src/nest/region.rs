//! Entering a region (one fork of the whole team), the idle loop of the
//! team's other threads, and a pool's fork made from inside a region of its
//! own team. Which pool a call enters is the pool layer's choice
//! (`pool/entry.rs`).

use super::inject::call::CallJob;
use super::looks::Looks;
use super::worker::Worker;
use super::Nest;
use crate::sync::{Ordering, UnsafeCell};
use crate::team::{in_task, run_inline, Share, Team};
use core::cell::Cell;

impl Nest {
    /// Before a region's fork is published (the team's `prepare`): count
    /// the region (a closed mail names it), clear the end flag and stale
    /// requests, and ask thread 0 (the caller, which
    /// runs the root) for work on behalf of the idle threads about to
    /// start: the root's first join then offers its second closure at once,
    /// not after a request has crossed from a waking thread (a cache-line
    /// transfer each way). The generation's Release store publishes these
    /// writes.
    fn reset(&self) {
        self.done.flag.store(false, Ordering::Relaxed);
        // Only the thread that holds the team writes it.
        let epoch = self.done.epoch.load(Ordering::Relaxed);
        self.done
            .epoch
            .store(epoch.wrapping_add(1), Ordering::Relaxed);
        for (index, slot) in self.slots.iter().enumerate() {
            slot.wanted.store(index == 0, Ordering::Relaxed);
        }
    }

    /// Ends the region: the idle threads leave their loop.
    fn finish(&self) {
        // Release: pairs with the Acquire load in `idle`; everything the
        // root did happens before the idle threads leave.
        self.done.flag.store(true, Ordering::Release);
        self.bell.ring();
    }
}

/// The root closure and its result, touched only by thread 0 of the
/// region's fork, which is always the calling thread.
struct OnCaller<F, R> {
    root: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
}

// SAFETY: only share 0 touches the fields, and the fork runs share 0 on the
// thread that made the `OnCaller` (`Team::fork_spread`), or not at all.
unsafe impl<F, R> Sync for OnCaller<F, R> {}

/// How [`enter`] takes a busy team.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A caller: if the team is busy, hand the call over to it
    /// (`inject.rs`) from outside every fork, else (inside a task, which
    /// the holder may be waiting for) run it on this thread alone.
    Caller,
    /// The pool's serving thread: wait for the team, for the busy wait at
    /// most ([`enter_serving`]).
    Server,
    /// A root that must run on this thread (`in_place_scope`): never
    /// handed over; if the team is busy, wait a bounded time for its turn
    /// (from outside every fork), else run alone.
    Here,
}

/// Runs `root` with a worker of a region of `team` (thread 0, the caller),
/// the team's other threads idling until it returns; if the team is busy,
/// as `entry` says; if the team has one thread, with a serial worker on
/// this thread alone. A panic in `root` resumes here once the region has
/// ended.
pub(crate) fn enter<R: Send>(
    team: &Team,
    nest: &Nest,
    entry: Entry,
    root: impl FnOnce(&Worker) -> R + Send,
) -> R {
    enter_or(team, nest, entry, root, |root| hand_over(nest, root))
}

/// The serving thread's region ([`Entry::Server`]): `None`, having run
/// nothing, if the team stayed busy for its busy wait (queued detached
/// jobs then go to a relief thread, `pool/relief.rs`).
pub(crate) fn enter_serving<R: Send>(
    team: &Team,
    nest: &Nest,
    root: impl FnOnce(&Worker) -> R + Send,
) -> Option<R> {
    enter_or(
        team,
        nest,
        Entry::Server,
        |worker| Some(root(worker)),
        |_| None,
    )
}

/// [`enter`] with [`Entry::Here`], for a root that need not be `Send`.
pub(crate) fn enter_here<R>(team: &Team, nest: &Nest, root: impl FnOnce(&Worker) -> R) -> R {
    enter_or(team, nest, Entry::Here, root, |_| {
        unreachable!("a root entered here is never handed over")
    })
}

/// [`enter`], with `hand` to hand the root over (never called for
/// [`Entry::Here`]; for [`Entry::Server`], called when the team stayed
/// busy).
fn enter_or<R, F: FnOnce(&Worker) -> R>(
    team: &Team,
    nest: &Nest,
    entry: Entry,
    root: F,
    hand: impl FnOnce(F) -> R,
) -> R {
    let cell = OnCaller {
        root: UnsafeCell::new(Some(root)),
        result: UnsafeCell::new(None),
    };
    // Whether the root is handed over, having run nothing.
    let mut handed = false;
    if team.threads() > 1 {
        let cell = &cell; // the whole `Sync` cell, not its fields
        let share = |thread_index: usize, _colocation: usize| {
            let worker = Worker::new(nest, thread_index, true);
            let _entered = worker.enter();
            if thread_index != 0 {
                return idle(&worker, entry == Entry::Server);
            }
            // SAFETY: share 0 is the only one to touch the cell.
            let root = cell.root.with_mut(|root| unsafe { (*root).take() });
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                root.map(|root| root(&worker))
            }));
            worker.drain();
            nest.finish();
            // After the end flag, off the idle threads' way out: mail
            // posted meanwhile (by a job still running on one of them) runs
            // here as the mail closes.
            worker.close_mail();
            if let Ok(Some(value)) = result {
                // SAFETY: as above.
                cell.result
                    .with_mut(|slot| unsafe { *slot = Some(Ok(value)) });
            } else if let Err(payload) = result {
                // SAFETY: as above.
                cell.result
                    .with_mut(|slot| unsafe { *slot = Some(Err(payload)) });
            }
        };
        // `Some(forked)`: the team was taken, or the call runs alone below
        // (`forked` false: it was busy, or stopped); `None`: hand the root
        // over, having run nothing.
        let taken = match entry {
            Entry::Server => team.fork_serving(|| nest.reset(), &share),
            Entry::Here => Some(
                team.fork_if_idle(|| nest.reset(), &share)
                    || team.fork_spread::<&Team>(&[], || nest.reset(), &share),
            ),
            Entry::Caller => {
                if !nest.hand_over_always && team.fork_if_idle(|| nest.reset(), &share) {
                    Some(true)
                } else if !in_task() {
                    None
                } else {
                    Some(team.fork_spread::<&Team>(&[], || nest.reset(), &share))
                }
            }
        };
        match taken {
            Some(true) => {
                // SAFETY: the fork has joined; we are thread 0.
                match cell.result.with_mut(|slot| unsafe { (*slot).take() }) {
                    Some(Ok(value)) => return value,
                    Some(Err(payload)) => std::panic::resume_unwind(payload),
                    None => unreachable!("a region's root always runs"),
                }
            }
            Some(false) => {}
            None => handed = true,
        }
    }
    // A one-thread pool whose callers hand over: its serving thread runs
    // the call.
    handed |= team.threads() == 1 && entry == Entry::Caller && nest.hand_over_always && !in_task();
    // SAFETY: no fork ran: the cell is ours alone.
    let root = cell.root.with_mut(|root| unsafe { (*root).take() });
    match root {
        Some(root) if handed => hand(root),
        Some(root) => serial(nest, root),
        None => unreachable!("a region's root runs once"),
    }
}

/// Hands `root` to the busy team as an injected call and waits for it,
/// parked (after a short yielding wait, for a lone caller of short calls):
/// a thread of the team runs it with its own worker, inside the
/// region it runs (the pool's serving thread's, or a caller's). If no
/// thread has taken it when the pool's busy-wait bound passes, the team may
/// be held by a fork waiting for this very thread (a task's helper
/// thread): the caller takes it back and runs it alone.
fn hand_over<R: Send>(nest: &Nest, root: impl FnOnce(&Worker) -> R + Send) -> R {
    let job = CallJob::new(root);
    // SAFETY: `job` lives in this frame, which returns only once it is
    // done or taken back.
    unsafe { nest.injector.push(job.header(), false) };
    nest.ring_injected();
    #[cfg(not(loom))]
    let deadline = std::time::Instant::now().checked_add(nest.busy_wait);
    // A lone caller of short calls first waits yielding its CPU, which the
    // spinner there gives back as the call ends (`inject/call_time.rs`).
    #[cfg(not(loom))]
    {
        let wait = nest.injector.yielding_wait();
        if !wait.is_zero() {
            job.wait_yielding(wait);
        }
    }
    #[cfg(loom)]
    let deadline: Option<std::time::Instant> = None;
    let mut taken = false;
    while !job.is_done() {
        if !taken {
            let left = deadline
                .map(|deadline| deadline.saturating_duration_since(std::time::Instant::now()));
            if left.is_some_and(|left| left.is_zero()) {
                // SAFETY: pushed by this thread above, alive.
                if unsafe { nest.injector.take_back(job.header()) } {
                    // SAFETY: taken back: no runner touches the job.
                    let root = unsafe { job.take_func() };
                    return serial(nest, root);
                }
                taken = true;
                continue;
            }
            match left {
                Some(left) => std::thread::park_timeout(left),
                None => std::thread::park(),
            }
        } else {
            std::thread::park();
        }
    }
    // SAFETY: done, seen once.
    match unsafe { job.take_result() } {
        Ok(value) => value,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// The root on this thread alone, marked as inside a task (so calls that
/// find a team busy run inline at once rather than wait), with a worker
/// that never promotes: every join runs both sides here. Also a relief
/// thread's way to run a detached job, whatever holds the team
/// (`pool/relief.rs`).
pub(crate) fn serial<R>(nest: &Nest, root: impl FnOnce(&Worker) -> R) -> R {
    let root = Cell::new(Some(root));
    let result = Cell::new(None);
    run_inline(1, |_| {
        let worker = Worker::new(nest, 0, false);
        let _entered = worker.enter();
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            root.take().map(|root| root(&worker))
        }));
        worker.drain();
        result.set(Some(ran));
    });
    match result.take() {
        Some(Ok(Some(value))) => value,
        Some(Err(payload)) => std::panic::resume_unwind(payload),
        _ => unreachable!("the serial root runs once"),
    }
}

/// A team thread other than 0: run promoted jobs until the root finishes,
/// asking busy threads for work, spinning and then parking when there is
/// none; its looks for work paced by [`Looks`].
fn idle(worker: &Worker, serving: bool) {
    let nest = worker.nest();
    let mut looks = Looks::new(nest.waiter());
    loop {
        if let Some(job) = looks.find(worker) {
            // SAFETY: claimed by `find`.
            unsafe { looks.run(worker, job) };
            continue;
        }
        // Acquire: pairs with the Release store in `Nest::finish`.
        if nest.done.flag.load(Ordering::Acquire) {
            // Our list and slot are empty (`find` found nothing), and
            // only we fill them; mail posted since runs as we close it.
            // Queued work is left to the next region: a finished root's
            // caller waits for nothing more.
            worker.close_mail();
            return;
        }
        // Handed-over calls, and in the serving thread's region spawned
        // jobs too (a caller's region must not wait for a detached job).
        let queued = if serving {
            nest.injector.pop()
        } else {
            nest.injector.pop_call()
        };
        if let Some(job) = queued {
            // SAFETY: popped by this thread.
            unsafe { worker.run_injected(job) };
            looks.reset();
            continue;
        }
        // Ask before spinning, and again once announced: a request that
        // a promotion consumed while the job was taken back before we saw
        // it must not leave us parked with none outstanding.
        worker.ask_for_work();
        looks.wait(
            &nest.bell,
            || nest.done.flag.load(Ordering::Relaxed) || worker.has_work(serving),
            || worker.ask_for_work(),
        );
    }
}

/// A fork of a pool whose team is busy (`ThreadPool`'s `fork_join`): from
/// inside a region of that very team, every share runs through `join`
/// (binary splitting, each index once), so idle threads of the region take
/// them; from outside every fork, the call is handed over to the team
/// ([`hand_over`]), where it runs the same way; otherwise (inside a task,
/// which the holder may be waiting for) the team's turn is tried once,
/// else every share runs inline, in thread order, as the team would.
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
        Some(false) => hand_over(nest, |worker| {
            if worker.is_region_of(nest) {
                split(0, threads, share)
            } else {
                run_inline(threads, |thread_index| share(thread_index, 0))
            }
        }),
        None => {
            if !team.fork_spread::<&Team>(&[], || {}, share) {
                run_inline(threads, |thread_index| share(thread_index, 0));
            }
        }
    }
}

/// A fork of a pool with one share on the calling thread whatever the
/// team's state, never handed over: for work of which only the caller may
/// do a part (the stream's writer, which owns the caller's output). From
/// inside a region of this team, the region's joins (the first share of
/// each runs here); otherwise the team's own fork, with the caller as
/// thread 0, or every share inline here when the team stays busy.
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
    super::join::join_here(|| split(begin, middle, share), || split(middle, end, share));
}
