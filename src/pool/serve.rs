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
//! thread (it polls for their end, sleeping between polls: [`Backoff`]).

use super::current::with_current_pool;
use super::pace::Pace;
use super::relief::Relief;
use super::ThreadPool;
use crate::error::Error;
use crate::nest::inject::spawned::SpawnJob;
use crate::nest::looks::Looks;
use crate::nest::region::enter_serving;
use crate::nest::worker::Worker;
use crate::nest::Nest;
use crate::team::Team;
use crate::threads::{thread_builder, WorkerHandler};
use std::string::String;
use std::sync::Arc;
use std::thread::JoinHandle;

/// Starts the serving thread of the pool made of `team` and `nest`,
/// named `name`; `on_start` and `on_exit` get its index, 0.
pub(crate) fn start(
    name: String,
    stack_size: Option<usize>,
    team: &Arc<Team>,
    nest: &Arc<Nest>,
    on_start: Option<WorkerHandler>,
    on_exit: Option<WorkerHandler>,
) -> Result<JoinHandle<()>, Error> {
    let relief = Relief::new(name.clone(), stack_size);
    let builder = thread_builder(name, stack_size);
    let shared = Arc::clone(nest);
    let (team, nest) = (Arc::clone(team), Arc::clone(nest));
    let server = builder
        .spawn(move || {
            if let Some(on_start) = on_start {
                on_start(0);
            }
            nest.injector.mark_started();
            serve(&team, &nest, relief);
            if let Some(on_exit) = on_exit {
                on_exit(0);
            }
        })
        .map_err(|source| Error::Spawn { index: 0, source })?;
    // The thread's start (its own allocations included) is over when the
    // pool is returned: nothing of it lands in a caller's first calls.
    while !shared.injector.has_started() {
        if server.is_finished() {
            // Only a panicking `on_start` ends it before it starts.
            let _ = server.join();
            let source = std::io::Error::other("the serving thread's start handler panicked");
            return Err(Error::Spawn { index: 0, source });
        }
        std::thread::yield_now();
    }
    Ok(server)
}

/// The serving thread's whole life, for a thread someone else starts
/// (`Builder::build_with`): handlers around [`serve`]. Its relief threads
/// (`relief.rs`) get `relief`'s name and stack size.
pub(crate) fn run(
    team: &Arc<Team>,
    nest: &Arc<Nest>,
    relief: Relief,
    on_start: Option<WorkerHandler>,
    on_exit: Option<WorkerHandler>,
) -> std::boxed::Box<dyn FnOnce() + Send> {
    let (team, nest) = (Arc::clone(team), Arc::clone(nest));
    std::boxed::Box::new(move || {
        if let Some(on_start) = on_start {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_start(0)));
        }
        serve(&team, &nest, relief);
        if let Some(on_exit) = on_exit {
            on_exit(0);
        }
    })
}

/// The serving thread's loop: wait for queued work, run it in a region,
/// until the pool stops with nothing queued. How long it spins for more
/// work before it leaves a region is [`Pace`]'s.
fn serve(team: &Team, nest: &Arc<Nest>, mut relief: Relief) {
    let injector = &nest.injector;
    // In rayon's model the spin follows the work, unless the pool's policy
    // is never to park.
    let adapts = nest.hand_over_always && nest.waiter().parks();
    let mut pace = Pace::new(nest.waiter(), adapts);
    // Parks when idle whatever the pool's policy: waiting for work to be
    // handed over is not on a fork's path. Without a spin where the pace
    // adapts: the drain that ended the last region just spun.
    let waiter = if adapts {
        nest.waiter().parking().spinning_at_most(0)
    } else {
        nest.waiter().parking()
    };
    // Polls while the pool stops and a spawned job still runs elsewhere.
    let mut stopping = Backoff::default();
    loop {
        while injector.is_empty() {
            if nest.is_stopping() && injector.is_empty() {
                if !injector.has_spawned() {
                    return;
                }
                // A spawned job still runs elsewhere (on a relief thread,
                // for as long as it takes): poll for its end, or for the
                // jobs it spawns, without holding a CPU meanwhile.
                stopping.wait();
                continue;
            }
            injector.serve_bell.wait(
                &waiter,
                || !injector.is_empty() || nest.is_stopping(),
                || {},
            );
        }
        pace.arrived();
        let served = enter_serving(team, nest, |worker| {
            drain(nest, worker, &mut pace);
            if !pace.is_whole() {
                // Work comes rarer than the spin budget: the team's other
                // threads park as the region ends, rather than spin for a
                // fork that will not come within it.
                team.sleep(0);
            }
        });
        if served.is_none() && injector.has_queued_spawned() {
            // A region held the team for the whole busy wait. Its idle
            // threads take handed-over calls, not detached jobs, and its
            // root may be waiting for one (an `in_place_scope` from outside
            // the pool, say).
            relief.relieve(nest);
        }
    }
}

/// The serving thread's poll while its pool stops and a spawned job runs
/// elsewhere: `yield_now` for the first few polls (a job that is about to
/// end), then sleeps that double from 1 µs up to [`Backoff::LONGEST`]. A
/// poll, not a wake-up: the end of such a job rings no bell, and the pool's
/// drop may wait for the poll's last sleep after it.
#[derive(Default)]
struct Backoff {
    polls: u32,
}

impl Backoff {
    /// Polls that only `yield_now`.
    const YIELDS: u32 = 16;
    /// The longest sleep between two polls.
    const LONGEST: std::time::Duration = std::time::Duration::from_millis(1);

    fn wait(&mut self) {
        if self.polls < Self::YIELDS {
            std::thread::yield_now();
        } else {
            let doubling = (self.polls - Self::YIELDS).min(10);
            let sleep = std::time::Duration::from_micros(1 << doubling).min(Self::LONGEST);
            std::thread::sleep(sleep);
        }
        self.polls = self.polls.saturating_add(1);
    }
}

/// The serving region's root: runs queued jobs, and helps with the work
/// they offer, until none has come for the spin `pace` gives.
fn drain(nest: &Nest, worker: &Worker, pace: &mut Pace) {
    let injector = &nest.injector;
    if !nest.server_runs_jobs && worker.in_region() {
        // Only holds the team while work is queued: the region's other
        // threads take it (`Builder::serving_thread_runs_jobs`). It still
        // runs its mail (`drain`: it has no other jobs of its own), which
        // a job that broadcasts waits for.
        loop {
            worker.drain();
            if injector.is_empty()
                && !nest
                    .waiter()
                    .spin(|| !injector.is_empty() || worker.has_mail())
            {
                return;
            }
            std::thread::yield_now();
        }
    }
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
        if looks.spin_at_most(pace.limit(), || {
            !injector.is_empty() || worker.has_work(true)
        }) {
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
        || !injector.is_empty() || worker.has_work(true) || !injector.is_running(),
        || worker.ask_for_work(),
    );
}

/// Queues `job` on `nest`'s pool, in front (runs next) or at the back.
fn push_spawned<F: FnOnce() + Send + 'static>(nest: &Nest, job: F, front: bool) {
    let job = SpawnJob::into_raw(job, &nest.injector);
    // SAFETY: a boxed job, alive until its runner frees it.
    unsafe { nest.injector.push(job, front) };
    nest.ring_injected();
}

/// Runs `f` with the nest of the pool a call on this thread belongs to,
/// and whether this thread works for that pool (a region's thread, or
/// inside its `install`).
fn with_current_nest<R>(f: impl FnOnce(&Nest, bool) -> R) -> R {
    Worker::with_current(|worker| match worker {
        Some(worker) => f(worker.nest(), true),
        None => with_current_pool(|pool| {
            let inside = !super::current::installed_is_none_or(|_| false);
            f(pool.nest(), inside)
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
/// While a region holds the pool's threads (an `in_place_scope` called from
/// outside the pool, say), its jobs wait for them, for the pool's
/// [`busy_wait`](crate::pool::Builder::busy_wait) at most; then a relief
/// thread, started for them, runs them one at a time, each alone (their
/// joins inline, as on a busy pool), so that such a scope may wait for a
/// job it spawned.
///
/// No job is lost: the pool runs every one before it drops (the global
/// pool lives as long as the process). A panic in `job` goes to the pool's
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
    with_current_nest(|nest, inside| push_spawned(nest, job, inside));
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
    with_current_nest(|nest, _| push_spawned(nest, job, false));
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
        let inside = Worker::with_current(|worker| {
            worker.is_some_and(|worker| worker.belongs_to(self.nest()))
        }) || !super::current::installed_is_none_or(|pool| !core::ptr::eq(pool, self));
        push_spawned(self.nest(), job, inside);
    }

    /// [`spawn_fifo`] on this pool: `job` runs on its threads, detached,
    /// after the jobs spawned before it.
    pub fn spawn_fifo<F: FnOnce() + Send + 'static>(&self, job: F) {
        push_spawned(self.nest(), job, false);
    }
}
