//! The pool's edge: the one place that reads a pool's [`Model`], and so
//! decides where a call made from outside the pool's regions runs. Below
//! it, the nested engine (`nest/`) knows nothing of models: it is told
//! which region to enter, whom to hand a call to, and what role each
//! thread plays ([`Role`](crate::nest::worker::Role)).
//!
//! - **tine's model** ([`Model::CallerJoins`], the default): the caller is
//!   thread 0 of its own call. A `join`, `scope` or fork takes the whole
//!   team with one fork, the caller running the root and its share; a
//!   caller that finds the team busy hands its call to the pool's serving
//!   thread (`serve.rs`), whose region runs queued work. The fastest path
//!   for one caller at a time: nothing is handed between threads.
//! - **rayon's model** ([`Model::PoolRuns`], `Builder::caller_runs(false)`):
//!   the pool's own threads run every call. They stay in one region for the
//!   pool's life (`resident.rs`); a caller outside them hands its call over
//!   and waits, parked, or, on another pool's thread, running that pool's
//!   work. So everything the pool runs runs on threads its start handler
//!   prepared, each with an index of its own.

use super::current::with_current_pool;
use super::ThreadPool;
use crate::nest::alone::serial;
use crate::nest::broadcast::broadcast_here;
use crate::nest::hand::{busy_fork, fork_on_caller, hand_over, resident_fork, Fallback};
use crate::nest::region::{enter, enter_if_idle};
use crate::nest::scope::{scope_on, scope_outside, Broadcasts, Scope};
use crate::nest::worker::Worker;
use crate::team::{in_task, run_inline, Share};
use core::cell::Cell;
// A process-wide static, outside any loom model (as `current.rs`'s).
use core::sync::atomic::{AtomicUsize, Ordering};

/// Who runs a call made from outside a pool's regions (see the module
/// head): fixed when the pool is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Model {
    /// tine's: the caller, as thread 0 of its call's fork.
    CallerJoins,
    /// rayon's: the pool's own threads, while the caller waits.
    PoolRuns,
}

impl ThreadPool {
    /// Runs `f` with a worker of this pool, for a call from a thread that
    /// runs in none of its regions: as thread 0 of a region of its own
    /// (tine's model; the pool's threads if its team is busy), or on the
    /// pool's threads (rayon's).
    pub(crate) fn enter_region<R: Send>(&self, f: impl FnOnce(&Worker) -> R + Send) -> R {
        match self.model {
            Model::CallerJoins => enter(self.team(), self.nest(), f),
            Model::PoolRuns => hand_over(self.nest(), f, Fallback::Never),
        }
    }

    /// The pool's fork ([`ForkJoin::fork_join`](crate::schedule::ForkJoin::fork_join)):
    /// tine's model forks the team with the caller as thread 0 (through the
    /// busy paths of `nest/hand.rs` when the team is busy); rayon's runs
    /// the shares on the pool's threads, through joins.
    #[inline]
    pub(crate) fn fork_shares(&self, share: &Share<'_>) {
        match self.model {
            Model::CallerJoins => {
                if self.team().threads() == 1 {
                    return share(0, 0);
                }
                if !self.team().fork_if_idle(|| {}, share) {
                    busy_fork(self.team(), self.nest(), share);
                }
            }
            Model::PoolRuns => resident_fork(self.nest(), share),
        }
    }

    /// [`ThreadPool::fork_each_thread`] for a fork's shares, with tine's
    /// fast path inline: an idle team's own fork.
    #[inline]
    pub(crate) fn fork_shares_each_thread(&self, share: &Share<'_>) {
        if self.model == Model::CallerJoins
            && self.team().threads() > 1
            && self.team().fork_if_idle(|| {}, share)
        {
            return;
        }
        self.fork_each_thread(&|index| share(index, 0));
    }

    /// A fork whose shares each run on a thread of their own, at once
    /// ([`ForkJoin::fork_join_each_thread`](crate::schedule::ForkJoin::fork_join_each_thread)):
    /// `each(index)` for every thread index. From a thread of a region of
    /// this pool, and in rayon's model from anywhere, each index goes to
    /// its thread's mail (`nest/broadcast.rs`); in tine's model from
    /// outside its regions, the team's own fork.
    #[cold]
    #[inline(never)]
    pub(crate) fn fork_each_thread(&self, each: &(dyn Fn(usize) + Sync)) {
        let nest = self.nest();
        let inside = Worker::with_current(|worker| match worker {
            Some(worker) if worker.is_region_of(nest) => {
                broadcast_here(worker, each);
                true
            }
            _ => false,
        });
        if inside {
            return;
        }
        let mailed = |worker: &Worker| {
            if worker.is_region_of(nest) {
                broadcast_here(worker, each);
            } else {
                run_inline(nest.threads(), each);
            }
        };
        match self.model {
            // The team's own fork, each index on its own thread: on a busy
            // team, the caller waits for it (parked, for the busy wait at
            // most; not at all from inside a task, which the holder may be
            // waiting for) and then runs every index inline. Not handed
            // over: a thread of the region that took it may be the one
            // this caller's holder waits for, and its index would never
            // run.
            Model::CallerJoins => self.team().fork(&|index, _| each(index)),
            Model::PoolRuns => hand_over(nest, mailed, Fallback::Never),
        }
    }

    /// rayon's `in_place_scope` from a thread outside this pool's regions:
    /// `op` runs here. In tine's model, as thread 0 of a region if the team
    /// is idle (alone here, inside a task whose team is busy); otherwise,
    /// and always in rayon's model, outside the pool, its tasks queued to
    /// the pool's threads while this thread waits, parked.
    pub(crate) fn scope_in_place<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        let nest = self.nest();
        match self.model {
            Model::CallerJoins => {
                // Taken by whichever way runs: the region's root, or the
                // fallback.
                let op = Cell::new(Some(op));
                let take = || op.take().expect("a scope's body runs once");
                enter_if_idle(
                    self.team(),
                    nest,
                    |worker| scope_on(worker, take()),
                    |root| {
                        if in_task() {
                            serial(nest, root)
                        } else {
                            scope_outside(nest, Broadcasts::Queued, take())
                        }
                    },
                )
            }
            Model::PoolRuns => scope_outside(nest, Broadcasts::ToMail, op),
        }
    }

    /// A fork with share 0 on this thread, whatever the pool's state, for
    /// work of which only the caller may do a part (the stream's writer,
    /// which owns the caller's output). In rayon's model, from outside the
    /// pool's threads, the other shares are queued to them as a scope's
    /// tasks.
    pub(crate) fn fork_with_caller(&self, share: &Share<'_>) {
        let nest = self.nest();
        match self.model {
            Model::CallerJoins => fork_on_caller(self.team(), nest, share),
            Model::PoolRuns => {
                let inside = Worker::with_current(|worker| {
                    worker.is_some_and(|worker| worker.is_region_of(nest))
                });
                if inside {
                    return resident_fork(nest, share);
                }
                scope_outside(nest, Broadcasts::Queued, |scope| {
                    for index in 1..nest.threads() {
                        scope.spawn(move |_| share(index, 0));
                    }
                    share(0, 0);
                });
            }
        }
    }
}

/// The live pools whose calls from outside go to their own threads
/// ([`Builder::caller_runs`](crate::pool::Builder::caller_runs)`(false)`).
/// While there are none, a parallel-iterator call needs no look at its
/// pool to know that its caller may run it. A process-wide count, outside
/// any loom model: core's atomic, not the `sync` shim's.
static HANDING_OVER: AtomicUsize = AtomicUsize::new(0);

/// Which way [`count_handing_over`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// A pool built with `caller_runs(false)`.
    In,
    /// Its drop.
    Out,
}

/// Counts a pool built with `caller_runs(false)` in or out.
pub(crate) fn count_handing_over(count: Count) {
    // Relaxed: a hint read by `calls_may_go_elsewhere`; a call that reads
    // a stale zero is one made before the pool was built or installed.
    match count {
        Count::In => HANDING_OVER.fetch_add(1, Ordering::Relaxed),
        Count::Out => HANDING_OVER.fetch_sub(1, Ordering::Relaxed),
    };
}

/// Whether some live pool hands its outside calls to its own threads: one
/// load, the only cost of [`run_where_calls_go`] to a process with none.
#[inline(always)]
pub(crate) fn calls_may_go_elsewhere() -> bool {
    // Relaxed: as in `count_handing_over`.
    HANDING_OVER.load(Ordering::Relaxed) != 0
}

/// Runs `f`, a parallel-iterator call on the current pool, where rayon's
/// model puts it: on the pool's own threads when the pool hands its
/// outside calls over and this thread is not one of its region's, else
/// right here (in a task, or on a pool whose caller is thread 0).
#[cold]
#[inline(never)]
pub(crate) fn run_where_calls_go<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if in_task() {
        return f();
    }
    with_current_pool(|pool| match pool.model {
        Model::PoolRuns => pool.enter(f),
        Model::CallerJoins => f(),
    })
}
