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

use super::pin::{take_slots, worker_setup, CallerPin, Pin, ThreadPlacement};
use super::topology::Topology;
use crate::broadcast::{each_task, split, Prong};
use crate::error::Error;
use crate::pool::{spawn_worker, Team};
use crate::sync::{AtomicUsize, Ordering};
use crate::wait::{WaitPolicy, Waiter};
use crossbeam_utils::CachePadded;
use std::string::String;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::vec::Vec;

/// A pool with one pinned team of threads per colocation (NUMA node with
/// CPUs), whose calls span all of them.
///
/// Every call blocks until every thread on every node has finished, as with
/// [`crate::ThreadPool`]; [`Prong::colocation_index`] says which colocation
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
    lead: Arc<Team>,
    /// The other colocations' teams, each with an idle slot 0.
    others: Vec<Arc<Team>>,
    workers: Vec<JoinHandle<()>>,
    /// Colocation `c` owns global threads `offsets[c]..offsets[c + 1]`.
    offsets: Vec<usize>,
    /// The colocation of each global thread.
    colocation_of: Vec<usize>,
    /// Each colocation's dynamic counter, on its own cache line.
    counters: Vec<CachePadded<AtomicUsize>>,
    /// Where each global thread runs.
    placement: Vec<ThreadPlacement>,
    topology: Topology,
    /// Dropped after the workers are joined (fields drop after `drop`).
    caller_pin: Option<CallerPin>,
}

impl core::fmt::Debug for DistributedPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DistributedPool")
            .field("threads", &self.threads())
            .field("offsets", &self.offsets)
            .finish_non_exhaustive()
    }
}

/// Configures a [`DistributedPool`].
#[derive(Clone, Debug)]
pub struct DistributedBuilder {
    topology: Topology,
    threads: Option<usize>,
    pin: Pin,
    strict: bool,
    pin_caller: bool,
    name: String,
    wait_policy: WaitPolicy,
}

impl DistributedBuilder {
    /// Threads in all, the caller included, shared out over the
    /// colocations in proportion to their hardware threads (at least one
    /// each). Default: one per usable hardware thread, or one per core with
    /// [`Pin::Cores`].
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// How threads are pinned within their colocation: [`Pin::Cores`] (one
    /// core each), [`Pin::HardwareThreads`] (one hardware thread each,
    /// round-robin over the cores), or [`Pin::None`] (the default: anywhere
    /// on the colocation's CPUs). [`Pin::Node`] makes no sense here and is
    /// refused by [`DistributedBuilder::build`].
    pub fn pin(mut self, pin: Pin) -> Self {
        self.pin = pin;
        self
    }

    /// Whether pinning is strict. Strict (`true`, the default) refuses to
    /// put two threads on one core or hardware thread, so asking for more
    /// threads than a colocation has CPUs for fails; `false` lets them wrap
    /// round-robin.
    pub fn strict_pinning(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether to pin the building thread (thread 0) to colocation 0 too.
    /// Default `false`. If set, dropping the pool gives that thread back its
    /// previous affinity, whichever thread drops it.
    pub fn pin_caller(mut self, pin_caller: bool) -> Self {
        self.pin_caller = pin_caller;
        self
    }

    /// The workers' name prefix, as [`crate::Builder::name`]. Default
    /// `"tine"`.
    pub fn name(mut self, name: &str) -> Self {
        self.name = String::from(name);
        self
    }

    /// How idle threads wait; see [`WaitPolicy`].
    pub fn wait_policy(mut self, policy: WaitPolicy) -> Self {
        self.wait_policy = policy;
        self
    }

    /// How many threads each colocation gets: in proportion to its hardware
    /// threads (largest remainder), at least one each.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`], [`Error::TooFewThreads`].
    pub fn threads_per_colocation(&self) -> Result<Vec<usize>, Error> {
        let colocations = self.topology.colocations();
        let threads = self.threads.unwrap_or(match self.pin {
            Pin::Cores => self.topology.cores(),
            _ => self.topology.hardware_threads(),
        });
        if threads == 0 {
            return Err(Error::ZeroThreads);
        }
        if u32::try_from(threads).is_err() {
            return Err(Error::TooManyThreads { threads });
        }
        if threads < colocations.len() || colocations.is_empty() {
            return Err(Error::TooFewThreads {
                threads,
                colocations: colocations.len(),
            });
        }
        let weights: Vec<usize> = colocations.iter().map(|c| c.cpus().len().max(1)).collect();
        Ok(apportion(threads, &weights))
    }

    /// Where each global thread runs, colocation by colocation.
    ///
    /// # Errors
    /// As [`DistributedBuilder::threads_per_colocation`], and
    /// [`Error::NotEnoughCpus`] when strict pinning runs out of CPUs.
    pub fn plan(&self) -> Result<Vec<ThreadPlacement>, Error> {
        self.plan_for(&self.threads_per_colocation()?)
    }

    /// [`DistributedBuilder::plan`] for threads already shared out.
    fn plan_for(&self, per_colocation: &[usize]) -> Result<Vec<ThreadPlacement>, Error> {
        if let Pin::Node(_) = self.pin {
            return Err(Error::InvalidPin {
                reason: "a distributed pool spans every node: pin within each one with \
                         Pin::Cores, Pin::HardwareThreads or Pin::None, not Pin::Node",
            });
        }
        let mut plan = Vec::new();
        for (c, &count) in per_colocation.iter().enumerate() {
            let slots = self.topology.colocation_slots(c, self.pin);
            let strict = self.strict && !matches!(self.pin, Pin::None);
            plan.extend(take_slots(slots, count, strict)?);
        }
        Ok(plan)
    }

    /// Spawns the pool: each worker binds itself to its CPUs before it
    /// joins its team.
    ///
    /// # Errors
    /// As [`DistributedBuilder::plan`], [`Error::InvalidName`],
    /// [`Error::Spawn`], and [`Error::Hwloc`] if a thread cannot be bound.
    /// Workers already started are stopped and joined first.
    pub fn build(self) -> Result<DistributedPool, Error> {
        if self.name.contains('\0') {
            return Err(Error::InvalidName);
        }
        let per_colocation = self.threads_per_colocation()?;
        let plan = self.plan_for(&per_colocation)?;
        let total = plan.len();
        let mut offsets = Vec::with_capacity(per_colocation.len() + 1);
        offsets.push(0);
        for &count in &per_colocation {
            offsets.push(offsets[offsets.len() - 1] + count);
        }
        let colocation_of = plan.iter().map(|p| p.colocation).collect();

        let team = |threads: usize, workers: usize| {
            let waiter = Waiter::new(self.wait_policy, total);
            Team::build(threads, 0, workers, waiter).map(Arc::new)
        };
        let lead = team(per_colocation[0], per_colocation[0] - 1)?;
        let mut others = Vec::with_capacity(per_colocation.len() - 1);
        for &count in &per_colocation[1..] {
            others.push(team(count + 1, count)?);
        }

        let mut pool = DistributedPool {
            lead,
            others,
            workers: Vec::with_capacity(total),
            offsets,
            colocation_of,
            counters: (0..per_colocation.len())
                .map(|_| CachePadded::new(AtomicUsize::new(0)))
                .collect(),
            placement: Vec::new(),
            topology: self.topology.clone(),
            caller_pin: None,
        };
        for (c, &count) in per_colocation.iter().enumerate() {
            let team = if c == 0 {
                Arc::clone(&pool.lead)
            } else {
                Arc::clone(&pool.others[c - 1])
            };
            // Colocation 0's workers are its slots 1..; the others' workers
            // fill slots 1..=count and report global indices.
            let first = if c == 0 { 1 } else { 0 };
            for local in first..count {
                let global = pool.offsets[c] + local;
                let setup = worker_setup(&self.topology, &plan[global].cpus);
                // SAFETY: each team gets exactly as many worker threads as
                // it was built with worker slots: `count - 1` for the lead,
                // `count` for the others (whose slot 0 is the caller's).
                let handle = unsafe { spawn_worker(&self.name, None, &team, global, setup) }?;
                pool.workers.push(handle);
            }
        }
        if self.pin_caller {
            pool.caller_pin = CallerPin::pin(&self.topology, &plan[0].cpus)?;
        }
        pool.placement = plan;
        Ok(pool)
    }
}

/// Splits `total` in proportion to `weights` (largest remainder), giving
/// every part at least 1. Needs `total >= weights.len()`.
pub(crate) fn apportion(total: usize, weights: &[usize]) -> Vec<usize> {
    // In u128: `spare * weight` cannot overflow for any usize inputs.
    let spare = (total - weights.len()) as u128; // one each first
    let sum: u128 = weights.iter().map(|&w| w.max(1) as u128).sum();
    let weight = |i: usize| weights[i].max(1) as u128;
    let mut shares: Vec<usize> = (0..weights.len())
        .map(|i| 1 + (spare * weight(i) / sum) as usize)
        .collect();
    let mut remainders: Vec<(u128, usize)> = (0..weights.len())
        .map(|i| (spare * weight(i) % sum, i))
        .collect();
    // Largest remainder first; ties to the lower index.
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let given: usize = shares.iter().sum();
    for &(_, i) in remainders.iter().take(total - given) {
        shares[i] += 1;
    }
    shares
}

impl DistributedPool {
    /// A builder for a pool on `topology`.
    pub fn builder(topology: &Topology) -> DistributedBuilder {
        DistributedBuilder {
            topology: topology.clone(),
            threads: None,
            pin: Pin::None,
            strict: true,
            pin_caller: false,
            name: String::from("tine"),
            wait_policy: WaitPolicy::Adaptive,
        }
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
    /// them; see [`crate::Team::sleep`].
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

    /// One fork of every team: `share(thread_index, _)` on every thread.
    /// Runs `inline(thread_index)` for every thread on the caller instead if
    /// the pool is busy and the call must not wait (a call from inside a
    /// task).
    fn fork<F, G>(&self, prepare: impl FnOnce(), share: &F, inline: G)
    where
        F: Fn(usize, &AtomicUsize) + Sync,
        G: Fn(usize),
    {
        if !self.lead.fork_spread(&self.others, prepare, share) {
            for thread_index in 0..self.threads() {
                inline(thread_index);
            }
        }
    }

    /// Runs `f(thread_index, colocation_index)` once on every thread of every
    /// colocation, the caller as thread 0.
    pub fn for_threads<F>(&self, f: F)
    where
        F: Fn(usize, usize) + Sync,
    {
        let (f, shape) = (&f, self.shape());
        let run = move |thread_index: usize| f(thread_index, shape.colocation_of[thread_index]);
        self.fork(
            || {},
            &move |thread_index, _: &AtomicUsize| run(thread_index),
            run,
        );
    }

    /// Calls `f(first, count)` once per thread with its contiguous range of
    /// `0..n`, split over every thread of every colocation (so each
    /// colocation gets a block in proportion to its threads).
    pub fn for_slices<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong, usize) + Sync,
    {
        let (f, shape) = (&f, self.shape());
        if n <= 1 {
            // Not worth waking anyone: the caller does it.
            if n == 1 {
                f(shape.prong(0, 0), 1);
            }
            return;
        }
        let run = move |thread_index: usize| {
            let (begin, count) = split(n, shape.threads(), thread_index);
            if count > 0 {
                f(shape.prong(begin, thread_index), count);
            }
        };
        self.fork(
            || {},
            &move |thread_index, _: &AtomicUsize| run(thread_index),
            run,
        );
    }

    /// Runs `f` for every task in `0..n` with the static split of
    /// [`DistributedPool::for_slices`].
    pub fn for_n<F>(&self, n: usize, f: F)
    where
        F: Fn(Prong) + Sync,
    {
        self.for_slices(n, each_task(&f));
    }

    /// Runs `f` for every task in `0..n`, claimed one at a time: each thread
    /// drains its own colocation's block first, then steals from the other
    /// colocations (see the module docs).
    pub fn for_n_dynamic<F>(&self, n: usize, f: F)
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
        let share = move |thread_index: usize, _: &AtomicUsize| {
            let colocations = shape.counters.len();
            let home = shape.colocation_of[thread_index];
            let block = shape.colocation_range(n, home);
            // Our own block, with dynamic.rs's claim logic.
            crate::dynamic::run_share(
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
                let counter = &shape.counters[victim];
                while counter.load(Ordering::Relaxed) < claimable {
                    let i = counter.fetch_add(1, Ordering::Relaxed);
                    if i >= claimable {
                        break;
                    }
                    f(shape.prong(block.start + i, thread_index));
                }
            }
        };
        let inline = move |thread_index: usize| {
            let (begin, count) = split(n, shape.threads(), thread_index);
            for task_index in begin..begin + count {
                f(shape.prong(task_index, thread_index));
            }
        };
        self.fork(prepare, &share, inline);
    }
}

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
