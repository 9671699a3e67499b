//! Entering a region in tine's model: one fork of the whole team, the
//! caller being thread 0 and running the root, the team's other threads
//! running the idle loop until the root has finished; and the root alone on
//! its thread when the team cannot be had. Which pool a call enters, and in
//! which model, is the pool layer's choice (`pool/edge.rs`); a pool in
//! rayon's model never enters a region here (its threads stay in one for
//! the pool's life, `pool/resident.rs`).

use super::alone::serial;
use super::hand::{hand_over, Fallback};
use super::looks::Looks;
use super::worker::{Role, Worker};
use super::Nest;
use crate::sync::{Ordering, UnsafeCell};
use crate::team::{in_task, Team};

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
        self.ring_work();
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

/// How [`enter_or`] takes the team.
#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    /// A caller: the team if it is idle; if it is busy, the call is handed
    /// over to it from outside every fork, and from inside a task (which
    /// the holder may be waiting for) it takes the team's own busy rule
    /// (`Team::fork_spread`: the team, else the root alone here).
    Caller,
    /// The pool's serving thread: waits for the team, for the busy wait at
    /// most ([`enter_serving`]).
    Server,
    /// The team only if it is idle now; the caller's fallback otherwise.
    IfIdle,
}

/// Runs `root` with a worker of a region of `team` (thread 0, the caller),
/// the team's other threads idling until it returns; if the team is busy,
/// as [`How::Caller`] says; if the team has one thread, with a serial
/// worker on this thread alone. A panic in `root` resumes here once the
/// region has ended.
pub(crate) fn enter<R: Send>(
    team: &Team,
    nest: &Nest,
    root: impl FnOnce(&Worker) -> R + Send,
) -> R {
    enter_or(team, nest, How::Caller, root, |root| {
        hand_over(nest, root, Fallback::RunHereAfter(nest.busy_wait))
    })
}

/// The serving thread's region ([`How::Server`]): `None`, having run
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
        How::Server,
        |worker| Some(root(worker)),
        |_| None,
    )
}

/// [`enter`] for a root that need not be `Send` (it runs on this thread in
/// any case): a region if the team is idle now, a serial worker here if the
/// team has one thread, else `busy(root)`.
pub(crate) fn enter_if_idle<R, F: FnOnce(&Worker) -> R>(
    team: &Team,
    nest: &Nest,
    root: F,
    busy: impl FnOnce(F) -> R,
) -> R {
    enter_or(team, nest, How::IfIdle, root, busy)
}

/// [`enter`], with `hand` for a root that does not get the team (a caller
/// from outside every fork that found it busy; the serving thread that
/// waited in vain; [`How::IfIdle`] on a busy team).
fn enter_or<R, F: FnOnce(&Worker) -> R>(
    team: &Team,
    nest: &Nest,
    how: How,
    root: F,
    hand: impl FnOnce(F) -> R,
) -> R {
    let cell = OnCaller {
        root: UnsafeCell::new(Some(root)),
        result: UnsafeCell::new(None),
    };
    // Whether the root goes to `hand`, having run nothing.
    let mut handed = false;
    if team.threads() > 1 {
        let cell = &cell; // the whole `Sync` cell, not its fields
        let role = if how == How::Server {
            Role::Serving
        } else {
            Role::Caller
        };
        let share = |thread_index: usize, _colocation: usize| {
            let worker = Worker::new(nest, thread_index, role);
            let _entered = worker.enter();
            if thread_index != 0 {
                return idle(&worker);
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
        // (`forked` false: it was busy, or stopped); `None`: to `hand`,
        // having run nothing.
        let taken = match how {
            How::Server => team.fork_serving(|| nest.reset(), &share),
            How::IfIdle => team.fork_if_idle(|| nest.reset(), &share).then_some(true),
            How::Caller => {
                if team.fork_if_idle(|| nest.reset(), &share) {
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
    // SAFETY: no fork ran: the cell is ours alone.
    let root = cell.root.with_mut(|root| unsafe { (*root).take() });
    match root {
        Some(root) if handed => hand(root),
        Some(root) => serial(nest, root),
        None => unreachable!("a region's root runs once"),
    }
}

/// A team thread other than 0: run promoted jobs (and, in the serving
/// thread's region, queued calls and spawned jobs) until the root
/// finishes, asking busy threads for work, spinning and then parking when
/// there is none; its looks for work paced by [`Looks`]. A caller's region
/// takes no queued work: its caller would wait for another caller's.
fn idle(worker: &Worker) {
    let nest = worker.nest();
    let queued = worker.takes_queued();
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
        if queued {
            if let Some(job) = nest.injector.pop() {
                // SAFETY: popped by this thread.
                unsafe { worker.run_injected(job) };
                looks.reset();
                continue;
            }
        }
        // Ask before spinning, and again once announced: a request that
        // a promotion consumed while the job was taken back before we saw
        // it must not leave us parked with none outstanding.
        worker.ask_for_work();
        looks.wait(
            &nest.bell,
            || nest.done.flag.load(Ordering::Relaxed) || worker.has_work(),
            || worker.ask_for_work(),
        );
    }
}
