//! [`DistributedBuilder`]: a [`DistributedPool`]'s settings, how its threads
//! are shared out over the colocations, and spawning it.

use super::distributed::DistributedPool;
use super::pin::{take_slots, worker_setup, CallerPin, Pin, ThreadPlacement};
use super::topology::Topology;
use crate::error::Error;
use crate::sync::AtomicUsize;
use crate::team::{Slots, Team};
use crate::threads::{spawn_pool_thread, thread_name};
use crate::wait::{WaitPolicy, Waiter};
use crossbeam_utils::CachePadded;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

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
    busy_wait: core::time::Duration,
}

impl DistributedBuilder {
    /// The defaults: every hardware thread, unpinned, strict, caller left
    /// alone, workers named `tine:{index}`, adaptive waiting.
    pub(super) fn new(topology: &Topology) -> Self {
        DistributedBuilder {
            topology: topology.clone(),
            threads: None,
            pin: Pin::None,
            strict: true,
            pin_caller: false,
            name: String::from("tine"),
            wait_policy: WaitPolicy::Adaptive,
            busy_wait: crate::team::DEFAULT_BUSY_WAIT,
        }
    }

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

    /// The workers' name prefix, as [`crate::pool::Builder::name`]. Default
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

    /// How long a call that finds the pool busy waits before it runs inline;
    /// see [`crate::pool::Builder::busy_wait`].
    pub fn busy_wait(mut self, limit: core::time::Duration) -> Self {
        self.busy_wait = limit;
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
        Error::check_threads(threads)?;
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

        // Every worker slot is taken (`Slots::Spawned`); the others' slot 0
        // is the caller's stand-in.
        let team = |threads: usize, colocation: usize| {
            let waiter = Waiter::new(self.wait_policy, total);
            let mut team = Team::build_colocated(threads, Slots::Spawned, waiter, colocation)?;
            // Only the lead's matters: only it is ever found busy.
            team.set_busy_wait(self.busy_wait);
            Ok(Arc::new(team))
        };
        let lead = team(per_colocation[0], 0)?;
        let mut others = Vec::with_capacity(per_colocation.len() - 1);
        for (c, &count) in per_colocation.iter().enumerate().skip(1) {
            others.push(team(count + 1, c)?);
        }

        let mut pool = DistributedPool {
            lead,
            others,
            workers: Vec::with_capacity(total),
            offsets,
            colocation_of,
            partials: crate::schedule::Partials::new(total),
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
                let worker = Arc::clone(&team);
                let life = move || {
                    // SAFETY: each team gets one thread, running this once,
                    // per worker slot it was built with: `count - 1` for the
                    // lead, `count` for the others (slot 0 is the caller's).
                    unsafe { worker.worker_loop(global) };
                };
                let name = Some(thread_name(&self.name, global));
                let handle = spawn_pool_thread(name, None, global, setup, life)?;
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
