//! The std thread pool: [`ThreadPool`] spawns its threads, runs calls in
//! its model (tine's, the caller being thread 0; or rayon's, the pool's
//! threads running every call: `edge.rs`), and stops them when dropped.
//!
//! - `mod.rs`: [`ThreadPool`] and [`spawn_pool`].
//! - `builder.rs`: [`Builder`]; `builder/model.rs`: its model settings;
//!   `builder/start.rs`: starting the threads.
//! - `edge.rs`: the one place that reads the model, where every call from
//!   outside a pool's regions is routed.
//! - `current.rs`: the global pool, `install` and the pool a call on this
//!   thread belongs to.
//! - `broadcast.rs`: rayon's per-thread calls, [`broadcast`] and
//!   [`current_thread_index`], and the pool methods of the same names.
//! - `entry.rs`: [`join`], [`scope`] and the yields, which find the current
//!   pool and enter the nested engine (`nest`); `calls.rs`: the same calls
//!   as methods of a pool.
//! - `serve.rs`: in tine's model, the pool's serving thread, which runs the
//!   calls handed over to a busy team; and the detached jobs of [`spawn`].
//!   `relief.rs`: its relief threads; `pace.rs`: how long an idle serving
//!   or resident thread spins.
//! - `tasks.rs`: async callers: [`ThreadPool::spawn_async`],
//!   [`ThreadPool::spawn_future`] and [`block_on`].
//! - `resident.rs`: in rayon's model, the pool's threads, which stay in one
//!   region for the pool's life; `adopted.rs`: the building thread as
//!   thread 0 (`Builder::use_current_thread`).

mod adopted;
mod broadcast;
mod builder;
mod calls;
pub(crate) mod current;
pub(crate) mod edge;
pub(crate) mod entry;
mod pace;
mod relief;
mod resident;
pub(crate) mod serve;
mod tasks;

pub use broadcast::{
    broadcast, current_thread_index, fork_thread_index, max_num_threads, spawn_broadcast,
};
pub use builder::{Builder, ThreadStart};
pub use current::{current_num_threads, global, set_global_builder};
pub use entry::{
    current_thread_has_pending_tasks, in_place_scope, join, join_context, scope, yield_local,
    yield_now,
};
pub use serve::{spawn, spawn_fifo};
pub use tasks::{block_on, spawn_async, spawn_future};

use crate::error::Error;
use crate::nest::Nest;
use crate::schedule::{forward_fork_join, ForkJoin, Partials};
use crate::team::{Share, Team};
use edge::Model;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::vec::Vec;

/// A pool of worker threads that run fork-join calls with the caller.
///
/// `ThreadPool::try_spawn(n)` starts `n - 1` workers; the thread that calls a
/// `for_*` method is thread 0 and runs its share too. Any number of threads
/// may call one pool at once: a caller that finds the team busy hands its
/// call over to the pool's serving thread and waits, parked, while the
/// team finishes what holds it and then runs the call. Every call blocks
/// until all shares have finished, so closures may borrow from the caller's
/// stack. The method names follow fork_union's Rust crate.
/// [`Builder::caller_runs`]`(false)` builds a pool in rayon's model
/// instead, whose own threads run every call.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let pool = tine::ThreadPool::try_spawn(4)?;
/// let inputs: Vec<u64> = (0..1000).collect(); // borrowed by the tasks
/// let sum = AtomicU64::new(0);
/// pool.for_n(inputs.len(), |prong| {
///     sum.fetch_add(inputs[prong.task_index].pow(2), Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), (0..1000u64).map(|x| x * x).sum());
/// # Ok::<(), tine::Error>(())
/// ```
///
/// Dispatch takes `&self`, so a pool can live in an `Arc` or a `static`;
/// see [`Team`] for how concurrent and nested calls behave. The `for_*`
/// methods come from [`ForkJoin`], written once for every pool type. A panic in any
/// share is caught, the fork still joins, and the first payload resumes on
/// the caller; the pool stays usable. Dropping the pool lets its threads
/// finish the jobs spawned on it, then stops and joins them (or returns at
/// once, the threads ending on their own: [`Builder::detach_on_drop`]).
pub struct ThreadPool {
    team: Arc<Team>,
    /// The threads the pool started: its team's workers (tine's model) or
    /// its resident threads (rayon's, `resident.rs`).
    workers: Vec<JoinHandle<()>>,
    /// The serving thread (`serve.rs`), in tine's model once built.
    server: Option<JoinHandle<()>>,
    /// Who runs a call from outside the pool (`edge.rs`), beside the team
    /// on the fork's path.
    model: Model,
    /// The drop returns at once ([`Builder::detach_on_drop`]).
    detach_on_drop: bool,
    /// The thread that is the pool's thread 0 by adoption
    /// ([`Builder::use_current_thread`]), if any.
    adopter: Option<std::thread::ThreadId>,
    /// The state of `join` and `scope` regions on this pool's team, and
    /// its injector (shared with the serving thread).
    nest: Arc<Nest>,
    /// Puts the caller's affinity back after the workers are joined (fields
    /// drop after `Drop::drop`).
    #[cfg(feature = "numa")]
    caller_pin: Option<crate::numa::CallerPin>,
}

// As for `Team`: a panic in a task leaves the pool consistent (the fork
// joins, the lock and the partial slots are handed back), so observing a
// pool after a caught panic is fine.
impl core::panic::UnwindSafe for ThreadPool {}
impl core::panic::RefUnwindSafe for ThreadPool {}

impl core::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("threads", &self.team.threads())
            .finish_non_exhaustive()
    }
}

impl ThreadPool {
    /// Spawns a pool of `threads` threads, counting the caller: `threads - 1`
    /// workers named `tine:{index}`.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`] or [`Error::Spawn`].
    pub fn try_spawn(threads: usize) -> Result<Self, Error> {
        Builder::default().threads(threads).build()
    }

    /// Like [`ThreadPool::try_spawn`], with workers named `{name}:{index}`.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`], [`Error::InvalidName`] or [`Error::Spawn`].
    pub fn try_named_spawn(name: &str, threads: usize) -> Result<Self, Error> {
        Builder::default().threads(threads).name(name).build()
    }

    /// A [`Builder`] for setting names, stack size and more.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The number of threads in the pool, the caller included.
    pub fn threads(&self) -> usize {
        self.team.threads()
    }

    /// Parks idle workers at once until the next fork; see [`Team::sleep`].
    pub fn sleep(&self, microseconds: u64) {
        self.team.sleep(microseconds);
    }

    /// The pool's team.
    pub(crate) fn team(&self) -> &Team {
        &self.team
    }

    /// The pool's nested-parallelism state.
    pub(crate) fn nest(&self) -> &Nest {
        &self.nest
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        if self.model == Model::PoolRuns {
            edge::count_handing_over(edge::Count::Out);
        }
        if self.adopter == Some(std::thread::current().id()) {
            adopted::release(&self.nest);
        }
        // The serving or resident threads run every queued and spawned job
        // first, then leave.
        self.nest.stop_serving();
        let here = std::thread::current().id();
        // One of its threads: in a region or a fork of its team (threads a
        // spawn handler started have no handle here), or a handle's.
        let on_own_thread = crate::team::frames_contain(&self.team)
            || crate::nest::worker::Worker::with_current(|worker| {
                worker.is_some_and(|worker| worker.belongs_to(&self.nest))
            })
            || self
                .server
                .iter()
                .chain(&self.workers)
                .any(|thread| thread.thread().id() == here);
        if on_own_thread || self.detach_on_drop {
            // Dropped by a job on one of its own threads (a spawned job held
            // the last handle of the pool), where joining them would wait
            // for this very job; or asked to return at once. The threads
            // end on their own once the queue is empty (in tine's model the
            // serving thread stops the team as it leaves); they are
            // detached, and own what they still use (the team and the
            // nest).
            if on_own_thread && self.model == Model::CallerJoins {
                self.team.stop();
            }
            self.server = None;
            self.workers.clear();
            return;
        }
        if let Some(server) = self.server.take() {
            // The serving thread catches every job's panic.
            let _ = server.join();
        }
        // `&mut self`: no caller's fork is in flight; a region of a serving
        // thread a spawn handler started may be, and `stop` waits for it.
        // (A pool in rayon's model never forks its team.)
        self.team.stop();
        for worker in self.workers.drain(..) {
            // A thread catches every panic of its tasks, so it cannot have
            // panicked; if it somehow did, there is nothing left to clean up.
            let _ = worker.join();
        }
    }
}

// SAFETY: the pool's team forks every share once per thread and joins them
// all before returning (`Team`'s own `ForkJoin` contract).
unsafe impl ForkJoin for ThreadPool {
    #[inline]
    fn threads(&self) -> usize {
        self.team.threads()
    }

    #[inline]
    fn fork_join(&self, share: &Share<'_>) {
        self.fork_shares(share);
    }

    #[inline]
    fn fork_join_each_thread(&self, share: &Share<'_>) {
        self.fork_shares_each_thread(share);
    }

    fn partials(&self) -> Option<&Partials> {
        Some(self.nest.partials())
    }
}

forward_fork_join!(ThreadPool);

/// Spawns a [`ThreadPool`] of `threads` threads, panicking if that fails:
/// fork_union's `spawn(n)`, renamed so that [`spawn`] means what rayon's
/// does (run a detached job).
///
/// Use [`ThreadPool::try_spawn`] to handle the error instead.
///
/// ```
/// let pool = tine::spawn_pool(2);
/// assert_eq!(pool.threads(), 2);
/// ```
///
/// # Panics
/// If `threads` is 0 or the OS refuses to start a thread; the panic names
/// the caller's line.
#[track_caller]
pub fn spawn_pool(threads: usize) -> ThreadPool {
    match ThreadPool::try_spawn(threads) {
        Ok(pool) => pool,
        // In this function's body, not a closure, so that the location is
        // the caller's.
        Err(error) => panic!("tine::spawn_pool({threads}) failed: {error}"),
    }
}
