//! The std thread pool: [`ThreadPool`] spawns a [`Team`]'s workers and
//! joins them when dropped.
//!
//! - `mod.rs`: [`ThreadPool`] and [`spawn`].
//! - `builder.rs`: [`Builder`].
//! - `current.rs`: the global pool, `install` and the pool a call on this
//!   thread belongs to.
//! - `broadcast.rs`: rayon's per-thread calls, [`broadcast`] and
//!   [`current_thread_index`], and the pool methods of the same names.
//! - `entry.rs`: [`join`], [`scope`] and the
//!   yields, which find the current pool and enter the nested engine
//!   (`nest`), and the same calls as methods of a pool.
//! - `serve.rs`: the pool's serving thread, which runs the calls handed
//!   over to a busy team and the detached jobs of [`spawn`].

mod broadcast;
mod builder;
pub(crate) mod current;
pub(crate) mod entry;
mod pace;
mod relief;
pub(crate) mod serve;

pub use broadcast::{broadcast, current_thread_index, fork_thread_index, max_num_threads};
pub use builder::{Builder, ThreadStart};
pub use current::{current_num_threads, global};
pub use entry::{
    current_thread_has_pending_tasks, in_place_scope, join, join_context, scope, yield_local,
    yield_now,
};
pub use serve::{spawn, spawn_fifo};

use crate::error::Error;
use crate::nest::Nest;
use crate::schedule::{forward_fork_join, ForkJoin, Partials};
use crate::team::{Share, Team};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::vec::Vec;

/// A pool of worker threads that run fork-join calls with the caller.
///
/// `ThreadPool::try_spawn(n)` starts `n - 1` workers; the thread that calls a
/// `for_*` method is thread 0 and runs its share too. Any number of threads
/// may call one pool at once: a caller that finds the team busy hands its
/// call over to it and waits, and the pool's serving thread (or an idle
/// thread of the running region) takes it, so callers neither queue for
/// the team nor fall back to running alone while it could help. Every call blocks until
/// all shares have finished, so closures may borrow from the caller's stack.
/// The method names follow fork_union's Rust crate.
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
/// the caller; the pool stays usable. Dropping the pool stops and joins every
/// worker.
pub struct ThreadPool {
    team: Arc<Team>,
    workers: Vec<JoinHandle<()>>,
    /// The serving thread (`serve.rs`); `None` only while building.
    server: Option<JoinHandle<()>>,
    /// Calls from outside the pool go to its threads
    /// ([`Builder::caller_runs`]); a copy of the nest's flag, beside the
    /// team on the fork's path.
    hand_over: bool,
    /// Slots for the partial results of parallel-iterator calls.
    partials: Partials,
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

    /// Whether calls from outside go to the pool's own threads
    /// ([`Builder::caller_runs`]`(false)`).
    pub(crate) fn hands_over(&self) -> bool {
        self.hand_over
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        if self.hand_over {
            entry::count_handing_over(false);
        }
        // The serving thread runs every queued and spawned job first.
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
        if on_own_thread {
            // Dropped by a job on one of its own threads (a spawned job held
            // the last `Arc` of the pool): joining them would wait for this
            // very job. The stop reaches them when the region ends, and the
            // serving thread leaves once the queue is empty; they are
            // detached, and own what they still use (the team and the nest).
            self.team.stop();
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
        self.team.stop();
        for worker in self.workers.drain(..) {
            // A worker catches every panic of its tasks, so it cannot have
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
        if !self.hand_over {
            if self.team.threads() == 1 {
                return share(0, 0);
            }
            if self.team.fork_if_idle(|| {}, share) {
                return;
            }
        }
        // The team is busy, or its callers hand over: a region's joins
        // (from inside a region of this team), the hand-over (from outside
        // every fork) or the inline run.
        crate::nest::region::busy_fork(&self.team, &self.nest, share);
    }

    fn partials(&self) -> Option<&Partials> {
        Some(&self.partials)
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
