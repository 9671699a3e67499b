//! [`DistributedPool`]: one pinned team per colocation, forked together.
//!
//! # Layout
//!
//! Threads are numbered colocation by colocation: colocation `c` owns the
//! global thread indices `offsets[c]..offsets[c + 1]`. The caller is thread
//! 0, in colocation 0. Each colocation has its own [`Team`], so each has its
//! own generation, countdown and counters on its own cache lines, polled
//! only by its own workers:
//! - colocation 0's team is the caller plus that colocation's workers;
//! - every other colocation's team has one more slot than it has workers:
//!   a slot 0 that the caller holds and publishes but that runs nothing.
//!
//! # One fork
//!
//! The caller takes colocation 0's team (the pool's lock), then the others
//! (free whenever the first is held: only this pool takes them), publishes
//! the job to every remote team and then its own, runs its share, and joins
//! every team. So the caller's share runs at the same time as the remote
//! nodes' (fork_union ran it only after every remote node had finished).
//! One closure serves every team: each worker reports its global thread
//! index.
//!
//! # Static and dynamic splits
//!
//! A static split of `0..n` over the global thread indices gives each
//! colocation one contiguous block in proportion to its threads. Dynamic
//! work keeps that block per colocation, behind a per-colocation counter on
//! its own cache line: each thread drains its own colocation's counter,
//! then steals from the others in ring order. Within a block the claim logic
//! is `dynamic.rs`'s (the last tasks are pre-assigned, one per local thread,
//! so a colocation's own claims never push its counter past the block). A
//! thief loads a counter before it claims and stops at the first failed
//! claim, so each counter ends at most `threads` past its block: it cannot
//! wrap unless `n` comes within `threads` of `usize::MAX`, and such an `n`
//! runs with the static split instead.

use super::distributed_builder::DistributedBuilder;
use super::pin::{CallerPin, ThreadPlacement};
use super::topology::Topology;
use crate::error::Error;
use crate::schedule::{dynamic, forward_fork_join, split, ForkJoin, Prong};
use crate::sync::{AtomicUsize, Ordering};
use crate::team::{run_inline, Share, Team};
use crossbeam_utils::CachePadded;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::vec::Vec;

/// A pool with one pinned team of threads per colocation (NUMA node with
/// CPUs), whose calls span all of them.
///
/// Every call blocks until every thread on every node has finished, as with
/// [`crate::pool::ThreadPool`]; [`Prong::colocation_index`] says which colocation
/// a task runs on. Static work is split in proportion to each colocation's
/// threads, so memory sharded the same way (see
/// [`crate::numa::RoundRobinVec`]) is touched only by its own node's threads.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use tine::numa::{DistributedPool, Topology};
///
/// let topology = Topology::discover()?;
/// let pool = DistributedPool::builder(&topology).build()?;
/// let per_colocation: Vec<AtomicUsize> =
///     (0..pool.colocations()).map(|_| AtomicUsize::new(0)).collect();
/// pool.for_n(1000, |prong| {
///     per_colocation[prong.colocation_index].fetch_add(1, Ordering::Relaxed);
/// });
/// let total: usize = per_colocation.iter().map(|c| c.load(Ordering::Relaxed)).sum();
/// assert_eq!(total, 1000);
/// # Ok::<(), tine::Error>(())
/// ```
pub struct DistributedPool {
    /// Colocation 0's team, with the caller as thread 0: the pool's lock.
    pub(super) lead: Arc<Team>,
    /// The other colocations' teams, each with an idle slot 0.
    pub(super) others: Vec<Arc<Team>>,
    pub(super) workers: Vec<JoinHandle<()>>,
    /// Colocation `c` owns global threads `offsets[c]..offsets[c + 1]`.
    pub(super) offsets: Vec<usize>,
    /// The colocation of each global thread.
    pub(super) colocation_of: Vec<usize>,
    /// Slots for the partial results of parallel-iterator calls.
    pub(super) partials: crate::schedule::Partials,
    /// Each colocation's dynamic counter, on its own cache line.
    pub(super) counters: Vec<CachePadded<AtomicUsize>>,
    /// Where each global thread runs.
    pub(super) placement: Vec<ThreadPlacement>,
    pub(super) topology: Topology,
    /// Dropped after the workers are joined (fields drop after `drop`).
    pub(super) caller_pin: Option<CallerPin>,
}

impl core::fmt::Debug for DistributedPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DistributedPool")
            .field("threads", &self.threads())
            .field("offsets", &self.offsets)
            .finish_non_exhaustive()
    }
}

impl DistributedPool {
    /// A builder for a pool on `topology`.
    pub fn builder(topology: &Topology) -> DistributedBuilder {
        DistributedBuilder::new(topology)
    }

    /// A pool with one thread per usable hardware thread of `topology`.
    ///
    /// # Errors
    /// As [`DistributedBuilder::build`].
    pub fn try_spawn(topology: &Topology) -> Result<Self, Error> {
        Self::builder(topology).build()
    }

    /// Threads in all, the caller included.
    pub fn threads(&self) -> usize {
        self.colocation_of.len()
    }

    /// The number of colocations (teams).
    pub fn colocations(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The threads of colocation `c`, or 0 if there is no such colocation.
    pub fn threads_in(&self, c: usize) -> usize {
        self.shape().threads_in(c)
    }

    /// The global thread indices of colocation `c` (empty if none).
    pub fn thread_range(&self, c: usize) -> core::ops::Range<usize> {
        self.shape().thread_range(c)
    }

    /// Parks every team's idle workers at once, until the next call wakes
    /// them; see [`crate::team::Team::sleep`].
    pub fn sleep(&self, microseconds: u64) {
        self.lead.sleep(microseconds);
        for team in &self.others {
            team.sleep(microseconds);
        }
    }

    /// The colocation of global thread `thread_index`.
    pub fn colocation_of(&self, thread_index: usize) -> Option<usize> {
        self.colocation_of.get(thread_index).copied()
    }

    /// Where each global thread runs.
    pub fn placement(&self) -> &[ThreadPlacement] {
        &self.placement
    }

    /// The topology the pool was built on.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The range of `0..n` that a static split gives colocation `c`: the
    /// union of its threads' ranges (empty if there is no such colocation).
    pub fn colocation_range(&self, n: usize, c: usize) -> core::ops::Range<usize> {
        self.shape().colocation_range(n, c)
    }

    /// The pool's layout, by value, for the closures that workers run: they
    /// read it from the closure itself, one cache line the caller writes
    /// once per call, rather than chase pointers into `self`.
    fn shape(&self) -> Shape<'_> {
        Shape {
            offsets: &self.offsets,
            colocation_of: &self.colocation_of,
            counters: &self.counters,
        }
    }

    /// One fork of every team, with `prepare` run once the teams are held
    /// (see `Team::fork_spread`). If the pool is busy and the call must not
    /// wait (a call from inside a task), runs `inline(thread_index)` for
    /// every thread on the caller instead: the fork in flight may be using
    /// whatever `prepare` would have reset.
    /// Like a real fork, the inline run runs every index even when one
    /// panics, and resumes the first payload at the end (`run_inline`).
    fn fork_prepared(&self, prepare: impl FnOnce(), share: &Share<'_>, inline: impl Fn(usize)) {
        if !self.lead.fork_spread(&self.others, prepare, share) {
            run_inline(self.threads(), inline);
        }
    }
}

// SAFETY: `Team::fork_spread` runs the share once on every thread of every
// team (the others' stand-in slot 0 runs nothing, and their workers report
// global indices that tile `1..threads` with the lead's), and joins them all
// before it returns or unwinds; the inline fallback runs each index once.
unsafe impl ForkJoin for DistributedPool {
    #[inline]
    fn threads(&self) -> usize {
        self.colocation_of.len()
    }

    fn partials(&self) -> Option<&crate::schedule::Partials> {
        Some(&self.partials)
    }

    #[inline]
    fn fork_join(&self, share: &Share<'_>) {
        let shape = self.shape();
        self.fork_prepared(
            || {},
            share,
            |thread_index| share(thread_index, shape.colocation_of[thread_index]),
        );
    }

    /// Runs `f` for every task in `0..n`, claimed one at a time: each thread
    /// drains its own colocation's block first, then steals from the other
    /// colocations (see the module docs).
    fn for_n_dynamic<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong) + Sync,
    {
        if n <= 1 || n > usize::MAX - self.threads() {
            // One task or none: the caller does it. Near usize::MAX a
            // counter could wrap (see the module docs): static split.
            return self.for_n(n, f);
        }
        let (f, shape) = (&f, self.shape());
        let prepare = || {
            for counter in shape.counters {
                // Published by the generations' Release stores in the fork.
                counter.store(0, Ordering::Relaxed);
            }
        };
        let share = move |thread_index: usize, home: usize| {
            let colocations = shape.counters.len();
            let block = shape.colocation_range(n, home);
            // Our own block, with the claim logic of every dynamic schedule.
            dynamic::run_share(
                block.len(),
                shape.threads_in(home),
                thread_index - shape.offsets[home],
                &*shape.counters[home],
                |i| f(shape.prong(block.start + i, thread_index)),
            );
            // Then steal from the others, in ring order.
            for step in 1..colocations {
                let victim = (home + step) % colocations;
                let block = shape.colocation_range(n, victim);
                let claimable = block.len() - block.len().min(shape.threads_in(victim));
                dynamic::steal(&*shape.counters[victim], claimable, |i| {
                    f(shape.prong(block.start + i, thread_index))
                });
            }
        };
        // Inline (the pool is busy with the fork this call runs inside, whose
        // counters are in use): the static split, on the caller.
        let inline = move |thread_index: usize| {
            let (begin, count) = split(n, shape.threads(), thread_index);
            for task_index in begin..begin + count {
                f(shape.prong(task_index, thread_index));
            }
        };
        self.fork_prepared(prepare, &share, inline);
    }
}

forward_fork_join!(DistributedPool);

/// A distributed pool's layout, borrowed by value into the closures that
/// its workers run (see [`DistributedPool::shape`]).
#[derive(Clone, Copy)]
struct Shape<'a> {
    offsets: &'a [usize],
    colocation_of: &'a [usize],
    counters: &'a [CachePadded<AtomicUsize>],
}

impl Shape<'_> {
    fn threads(&self) -> usize {
        self.colocation_of.len()
    }

    /// Colocation `c`'s global thread indices; empty past the last one.
    fn thread_range(&self, c: usize) -> core::ops::Range<usize> {
        let end = c.checked_add(1).and_then(|next| self.offsets.get(next));
        match (self.offsets.get(c), end) {
            (Some(&begin), Some(&end)) => begin..end,
            _ => 0..0,
        }
    }

    fn threads_in(&self, c: usize) -> usize {
        self.thread_range(c).len()
    }

    /// The part of `0..n` that the static split gives colocation `c`.
    fn colocation_range(&self, n: usize, c: usize) -> core::ops::Range<usize> {
        let threads_here = self.thread_range(c);
        if threads_here.is_empty() {
            return 0..0;
        }
        let begin = split(n, self.threads(), threads_here.start).0;
        let (last_begin, last_count) = split(n, self.threads(), threads_here.end - 1);
        begin..last_begin + last_count
    }

    #[inline]
    fn prong(&self, task_index: usize, thread_index: usize) -> Prong {
        Prong {
            task_index,
            thread_index,
            colocation_index: self.colocation_of[thread_index],
        }
    }
}

impl Drop for DistributedPool {
    fn drop(&mut self) {
        // `&mut self`: no fork is in flight, so each stop is immediate.
        self.lead.stop();
        for team in &self.others {
            team.stop();
        }
        for worker in self.workers.drain(..) {
            // Workers catch their tasks' panics; nothing is left to clean up.
            let _ = worker.join();
        }
    }
}
