//! A pool's serving thread, and detached [`spawn`]/[`spawn_fifo`].
//!
//! The serving thread exists because tine's caller is thread 0 of its own
//! fork: work that arrives without a caller to run it, a call handed over
//! by a caller that found the team busy (`nest/inject.rs`) or a spawned
//! job, needs a thread to take the team for it. The serving thread parks
//! on the injector's bell; when work is queued it takes the team as thread
//! 0 of a region (waiting for a busy team, which it may: no fork waits for
//! it; while a region holds the team past the busy wait, queued detached
//! jobs go to a relief thread, `relief.rs`), runs queued jobs until the
//! queue has stayed empty for a spin
//! (the pool's spin budget while work comes often, less while it comes
//! rarely: `pace.rs`), and hands the team back. The region's other
//! threads take queued jobs too (the idle loop, `nest/region.rs`), so
//! under a stream of calls from many threads every thread of the team
//! runs calls back to back, without a hand-off between them.
//!
//! # Lifetime
//!
//! Started with the pool; stopped by the pool's drop, which first lets it
//! run every queued and spawned job: it leaves only once the pool is
//! stopping and the queue is empty after a region (whose end means every
//! job it ran has finished), and no spawned job still runs on a relief
//! thread (whose every finished job rings its bell). As it leaves, it stops
//! the team, whose workers then end (the pool's drop may have returned at
//! once, `Builder::detach_on_drop`).

use super::current::with_current_pool;
use super::pace::Pace;
use super::relief::Relief;
use super::ThreadPool;
use crate::error::Error;
use crate::nest::inject::links::End;
use crate::nest::inject::spawned::{FifoTurn, SpawnJob};
use crate::nest::looks::Looks;
use crate::nest::region::enter_serving;
use crate::nest::worker::Worker;
use crate::nest::{Nest, SpawnOrder};
use crate::team::Team;
use crate::threads::thread_builder;
use std::string::String;
use std::sync::Arc;
use std::thread::JoinHandle;

/// Starts the serving thread of the pool made of `team` and `nest`,
/// named `name` (`None`: unnamed). It is not one of the pool's indices,
/// and runs no handler.
pub(crate) fn start(
    name: Option<String>,
    stack_size: Option<usize>,
    team: &Arc<Team>,
    nest: &Arc<Nest>,
) -> Result<JoinHandle<()>, Error> {
    let relief = Relief::new(name.clone(), stack_size);
    let builder = thread_builder(name, stack_size);
    let shared = Arc::clone(nest);
    let (team, nest) = (Arc::clone(team), Arc::clone(nest));
    let server = builder
        .spawn(move || {
            nest.injector.mark_started();
            serve(&team, &nest, relief);
            // The pool has stopped, and its drop may have returned at once
            // (`Builder::detach_on_drop`): its workers leave with the team.
            team.stop();
        })
        .map_err(|source| Error::Spawn { index: 0, source })?;
    // The thread's start (its own allocations included) is over when the
    // pool is returned: nothing of it lands in a caller's first calls.
    while !shared.injector.has_started() {
        std::thread::yield_now();
    }
    Ok(server)
}

/// The serving thread's loop: wait for queued work, run it in a region,
/// until the pool stops with nothing queued.
fn serve(team: &Team, nest: &Arc<Nest>, mut relief: Relief) {
    let injector = &nest.injector;
    // The team's spin after a fork serves the callers, who are thread 0 of
    // most of its forks, unseen here: the spin stays whole.
    let mut pace = Pace::whole(nest.waiter());
    // Parks when idle whatever the pool's policy: waiting for work to be
    // handed over is not on a fork's path.
    let waiter = nest.waiter().parking();
    loop {
        while injector.is_empty() {
            if nest.is_stopping() && injector.is_empty() {
                if !injector.has_spawned() {
                    return;
                }
                // A spawned job still runs elsewhere (on a relief thread,
                // which rings after each job): wait for its end, or for
                // the jobs it spawns.
                injector.serve_bell.wait(
                    &waiter,
                    || !injector.is_empty() || !injector.has_spawned(),
                    || {},
                );
                continue;
            }
            injector.serve_bell.wait(
                &waiter,
                || !injector.is_empty() || nest.is_stopping(),
                || {},
            );
        }
        pace.arrived();
        let served = enter_serving(team, nest, |worker| drain(nest, worker, &mut pace));
        if served.is_none() && injector.has_queued_spawned() {
            // A region held the team for the whole busy wait. Its idle
            // threads take no queued work, and its root may be waiting for
            // a detached job (an `in_place_scope` from outside the pool,
            // say).
            relief.relieve(nest);
        }
    }
}

/// The serving region's root: runs queued jobs, and helps with the work
/// they offer, until none has come for the spin `pace` gives.
fn drain(nest: &Nest, worker: &Worker, pace: &mut Pace) {
    let injector = &nest.injector;
    let mut looks = Looks::new(nest.waiter());
    loop {
        if let Some(job) = injector.pop() {
            pace.arrived();
            // SAFETY: popped by this thread.
            unsafe { worker.run_injected(job) };
            looks.reset();
            continue;
        }
        // A call another thread of the region took may have offered work:
        // help with it, as the region's idle threads do, at their pace.
        if let Some(job) = looks.find(worker) {
            pace.busy();
            // SAFETY: claimed by `find`.
            unsafe { looks.run(worker, job) };
            continue;
        }
        worker.ask_for_work();
        pace.emptied();
        if looks.spin_at_most(pace.limit(), || !injector.is_empty() || worker.has_work()) {
            // Work came within the spin: spinning pays.
            pace.arrived();
            continue;
        }
        if injector.is_idle() {
            return;
        }
        wait_for_running(nest, worker, &looks);
        // The job another thread popped has ended: the idle interval
        // starts again.
        pace.busy();
    }
}

/// The serving region's root found no work for its spin budget, but a job
/// popped by another thread of the region still runs: in rayon's model its
/// code may wait for the work it offers, so the region stays until it ends,
/// this thread parked on the region's bell (an offer, a push, a post to its
/// mail and the end of the last running job ring it) until there is work or
/// none runs.
fn wait_for_running(nest: &Nest, worker: &Worker, looks: &Looks<'_>) {
    let injector = &nest.injector;
    looks.wait(
        nest.bell(),
        || !injector.is_empty() || worker.has_work() || !injector.is_running(),
        || worker.ask_for_work(),
    );
}

/// Where a spawned job comes from, which decides where it queues.
#[derive(Clone, Copy, PartialEq, Eq)]
enum From {
    /// `spawn` on a thread working for the pool: the job runs next if the
    /// pool runs the newest spawned job first (rayon's per-thread LIFO),
    /// else last.
    Inside,
    /// `spawn_fifo` on such a thread: after the jobs spawned so before
    /// it, in a turn that comes next (as `Inside` would).
    InsideFifo,
    /// Elsewhere: after every job queued before it.
    Outside,
}

/// Queues `job` on `nest`'s pool, where `from` says.
fn push_spawned<F: FnOnce() + Send + 'static>(nest: &Nest, job: F, from: From) {
    let job = SpawnJob::into_raw(job, &nest.injector);
    let newest_first = nest.spawn_order() == SpawnOrder::NewestFirst;
    let (job, end) = match from {
        From::Inside if newest_first => (job, End::Front),
        From::InsideFifo if newest_first => {
            // SAFETY: a boxed job, alive until a turn runs it.
            unsafe { nest.injector.push_fifo(job) };
            (FifoTurn::into_raw(), End::Front)
        }
        _ => (job, End::Back),
    };
    // SAFETY: a boxed job, alive until its runner frees it.
    unsafe { nest.injector.push(job, end) };
    nest.ring_injected();
}

/// Queues `job` on the pool a call on this thread belongs to, as `from`
/// says if this thread works for that pool (a region's thread, or inside
/// its `install`), else as from outside.
fn push_on_current<F: FnOnce() + Send + 'static>(job: F, from: From) {
    Worker::with_current(|worker| match worker {
        Some(worker) => push_spawned(worker.nest(), job, from),
        None => with_current_pool(|pool| {
            let outside = super::current::installed_is_none_or(|_| false);
            let from = if outside { From::Outside } else { from };
            push_spawned(pool.nest(), job, from)
        }),
    })
}

/// Runs `job` on the current pool's threads, detached: this returns at
/// once. rayon's `spawn`, for work that outlives the call (it is
/// `'static`): the current pool is the one whose thread or `install` this
/// is, else the global pool. Spawned from inside that pool, the newest job
/// runs first (LIFO, as rayon's per-thread order); from outside, in the
/// order spawned.
///
/// In tine's model, while a caller's region holds the pool's threads, its
/// jobs wait for them, for the pool's
/// [`busy_wait`](crate::pool::Builder::busy_wait) at most; then a relief
/// thread, started for them, runs them one at a time, each alone (their
/// joins inline, as on a busy pool), so that such a region may wait for a
/// job it spawned.
///
/// No job is lost: the pool's threads run every one before they end (the
/// global pool lives as long as the process). A panic in `job` goes to the pool's
/// [`panic_handler`](crate::pool::Builder::panic_handler); without one, the
/// process aborts, as rayon's does.
///
/// To spawn a pool (fork_union's `spawn`), see
/// [`spawn_pool`](crate::pool::spawn_pool).
///
/// ```
/// use std::sync::mpsc::channel;
///
/// let (sender, receiver) = channel();
/// tine::spawn(move || sender.send(6 * 7).unwrap());
/// assert_eq!(receiver.recv().unwrap(), 42);
/// ```
pub fn spawn<F: FnOnce() + Send + 'static>(job: F) {
    push_on_current(job, From::Inside);
}

/// As [`spawn`], but jobs spawned from one thread start in the order
/// spawned (FIFO), wherever they are spawned from.
///
/// ```
/// let (sender, receiver) = std::sync::mpsc::channel();
/// let pool = tine::ThreadPool::try_spawn(1)?;
/// for i in 0..3 {
///     let sender = sender.clone();
///     pool.spawn_fifo(move || sender.send(i).unwrap());
/// }
/// let order: Vec<i32> = receiver.iter().take(3).collect();
/// assert_eq!(order, [0, 1, 2]);
/// # Ok::<(), tine::Error>(())
/// ```
pub fn spawn_fifo<F: FnOnce() + Send + 'static>(job: F) {
    push_on_current(job, From::InsideFifo);
}

impl ThreadPool {
    /// [`spawn`] on this pool: `job` runs on its threads, detached; LIFO
    /// when spawned from inside the pool, else in order.
    ///
    /// ```
    /// let pool = tine::ThreadPool::try_spawn(2)?;
    /// let (sender, receiver) = std::sync::mpsc::channel();
    /// pool.spawn(move || sender.send("ran").unwrap());
    /// assert_eq!(receiver.recv().unwrap(), "ran");
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn spawn<F: FnOnce() + Send + 'static>(&self, job: F) {
        let from = if self.works_here() {
            From::Inside
        } else {
            From::Outside
        };
        push_spawned(self.nest(), job, from);
    }

    /// [`spawn_fifo`] on this pool: `job` runs on its threads, detached,
    /// after the jobs spawned before it (from this thread, if it is one of
    /// the pool's).
    pub fn spawn_fifo<F: FnOnce() + Send + 'static>(&self, job: F) {
        let from = if self.works_here() {
            From::InsideFifo
        } else {
            From::Outside
        };
        push_spawned(self.nest(), job, from);
    }

    /// Whether this thread works for this pool: one of its region's or
    /// resident threads, or inside its `install`.
    fn works_here(&self) -> bool {
        Worker::with_current(|worker| worker.is_some_and(|worker| worker.belongs_to(self.nest())))
            || !super::current::installed_is_none_or(|pool| !core::ptr::eq(pool, self))
    }
}
