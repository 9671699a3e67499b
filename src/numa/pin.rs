//! Pinning: which CPUs each thread of a pool may run on, and binding a
//! thread to them.
//!
//! A plan is computed first, as plain data ([`Topology::plan`]), so that the
//! placement logic can be tested on any machine's topology; binding then
//! only applies the plan. The caller's thread is never touched unless the
//! user asks (`pin_caller`), and then its previous affinity is put back,
//! on that same thread, when the pool drops.

use super::topology::Topology;
use crate::error::Error;
use crate::pool::WorkerSetup;
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use std::boxed::Box;
use std::string::ToString;
use std::vec::Vec;

/// Where a pool's threads may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Pin {
    /// Anywhere: the OS decides (the default).
    #[default]
    None,
    /// Every thread on the CPUs of the NUMA node with this OS index.
    Node(usize),
    /// One thread per core, each on all hardware threads of its core:
    /// colocation by colocation, cores in order within each.
    Cores,
    /// One thread per hardware thread: colocation by colocation, and within
    /// each, round-robin over the cores (every core's first hardware thread,
    /// then every core's second), so threads share a core only once every
    /// core has one.
    HardwareThreads,
}

/// Where one thread of a plan runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPlacement {
    /// The colocation whose CPUs these are (for [`Pin::None`], 0).
    pub colocation: usize,
    /// The OS indices of the hardware threads it may run on; empty for
    /// [`Pin::None`] (unbound).
    pub cpus: Vec<usize>,
}

impl Topology {
    /// Where each of `threads` threads (thread 0 is the caller) runs under
    /// `pin`. With `strict`, [`Pin::Cores`] and [`Pin::HardwareThreads`]
    /// refuse to put two threads on one CPU, and [`Pin::Node`] refuses more
    /// threads than the node has hardware threads; without it, threads
    /// wrap around round-robin.
    ///
    /// ```
    /// use tine::numa::{Pin, Topology};
    ///
    /// let topology = Topology::from_synthetic("pack:2 numa:1 core:2 pu:2")?;
    /// let plan = topology.plan(Pin::Cores, 4, true)?;
    /// let colocations: Vec<usize> = plan.iter().map(|p| p.colocation).collect();
    /// assert_eq!(colocations, [0, 0, 1, 1]);
    /// assert!(topology.plan(Pin::Cores, 5, true).is_err()); // 4 cores
    /// # Ok::<(), tine::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::NoSuchNode`], [`Error::NodeWithoutCpus`] for a memory-only
    /// node, [`Error::NotEnoughCpus`] when strict pinning runs out of CPUs,
    /// [`Error::ZeroThreads`].
    pub fn plan(
        &self,
        pin: Pin,
        threads: usize,
        strict: bool,
    ) -> Result<Vec<ThreadPlacement>, Error> {
        if threads == 0 {
            return Err(Error::ZeroThreads);
        }
        let slots: Vec<ThreadPlacement> = match pin {
            Pin::None => {
                return Ok((0..threads)
                    .map(|_| ThreadPlacement {
                        colocation: 0,
                        cpus: Vec::new(),
                    })
                    .collect())
            }
            Pin::Node(os_index) => {
                let node = self.node(os_index)?;
                let colocation = node
                    .colocation()
                    .ok_or(Error::NodeWithoutCpus { node: os_index })?;
                let cpus = self.colocations()[colocation].cpus();
                if strict && threads > cpus.len() {
                    return Err(Error::NotEnoughCpus {
                        threads,
                        cpus: cpus.len(),
                    });
                }
                return Ok((0..threads)
                    .map(|_| ThreadPlacement {
                        colocation,
                        cpus: cpus.to_vec(),
                    })
                    .collect());
            }
            Pin::Cores => (0..self.colocations().len())
                .flat_map(|c| self.colocation_slots(c, Pin::Cores))
                .collect(),
            Pin::HardwareThreads => (0..self.colocations().len())
                .flat_map(|c| self.colocation_slots(c, Pin::HardwareThreads))
                .collect(),
        };
        take_slots(slots, threads, strict)
    }

    /// The CPU slots of colocation `c` in pinning order: its cores for
    /// [`Pin::Cores`], its hardware threads round-robin over the cores for
    /// [`Pin::HardwareThreads`], and the whole colocation once otherwise.
    pub(crate) fn colocation_slots(&self, c: usize, pin: Pin) -> Vec<ThreadPlacement> {
        let colocation = &self.colocations()[c];
        let slot = |cpus: Vec<usize>| ThreadPlacement {
            colocation: c,
            cpus,
        };
        match pin {
            Pin::Cores => colocation.cores().iter().cloned().map(slot).collect(),
            Pin::HardwareThreads => colocation
                .cpus_round_robin()
                .into_iter()
                .map(|cpu| slot(std::vec![cpu]))
                .collect(),
            Pin::None | Pin::Node(_) => std::vec![slot(colocation.cpus().to_vec())],
        }
    }
}

/// The first `threads` of `slots`, wrapping around unless `strict`.
pub(crate) fn take_slots(
    slots: Vec<ThreadPlacement>,
    threads: usize,
    strict: bool,
) -> Result<Vec<ThreadPlacement>, Error> {
    if slots.is_empty() || (strict && threads > slots.len()) {
        return Err(Error::NotEnoughCpus {
            threads,
            cpus: slots.len(),
        });
    }
    Ok((0..threads)
        .map(|t| slots[t % slots.len()].clone())
        .collect())
}

fn cpuset(cpus: &[usize]) -> CpuSet {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        set.set(cpu);
    }
    set
}

/// Binds the calling thread to `cpus`.
pub(crate) fn bind_current_thread(topology: &Topology, cpus: &[usize]) -> Result<(), Error> {
    topology
        .hwloc()
        .bind_cpu(&cpuset(cpus), CpuBindingFlags::THREAD)
        .map_err(|e| Error::Hwloc {
            operation: "pin a thread",
            message: std::format!("to CPUs {cpus:?}: {e}"),
        })
}

/// The plan of a pinned [`crate::ThreadPool`], kept by its builder.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    topology: Topology,
    pin: Pin,
    strict: bool,
    pin_caller: bool,
}

impl Placement {
    pub(crate) fn new(topology: Topology, pin: Pin, strict: bool, pin_caller: bool) -> Self {
        Placement {
            topology,
            pin,
            strict,
            pin_caller,
        }
    }

    /// Each thread's CPUs.
    pub(crate) fn plan(&self, threads: usize) -> Result<Vec<ThreadPlacement>, Error> {
        self.topology.plan(self.pin, threads, self.strict)
    }

    /// What worker `index` runs first: pinning itself to its CPUs.
    pub(crate) fn worker_setup(
        &self,
        plan: &[ThreadPlacement],
        index: usize,
    ) -> Option<WorkerSetup> {
        worker_setup(&self.topology, &plan[index].cpus)
    }

    /// Pins the calling thread if asked to; the guard puts its affinity back.
    pub(crate) fn pin_caller(&self, plan: &[ThreadPlacement]) -> Result<Option<CallerPin>, Error> {
        if !self.pin_caller || plan[0].cpus.is_empty() {
            return Ok(None);
        }
        CallerPin::pin(&self.topology, &plan[0].cpus).map(Some)
    }
}

/// A setup that binds the worker to `cpus`, or none if `cpus` is empty.
pub(crate) fn worker_setup(topology: &Topology, cpus: &[usize]) -> Option<WorkerSetup> {
    if cpus.is_empty() {
        return None;
    }
    let topology = topology.clone();
    let cpus = cpus.to_vec();
    Some(Box::new(move || bind_current_thread(&topology, &cpus)))
}

/// The caller's thread, pinned at the user's request: dropping this puts
/// that thread's previous affinity back, on that thread, whichever thread
/// drops it. (Not the dropping thread's: fork_union "unpinned" whichever
/// thread happened to drop the pool.)
#[derive(Debug)]
pub(crate) struct CallerPin {
    topology: Topology,
    thread: std::thread::ThreadId,
    /// The kernel's id of the pinned thread, to restore it from another.
    #[cfg(target_os = "linux")]
    tid: libc::pid_t,
    previous: CpuSet,
}

impl CallerPin {
    pub(crate) fn pin(topology: &Topology, cpus: &[usize]) -> Result<Self, Error> {
        let previous = topology
            .hwloc()
            .cpu_binding(CpuBindingFlags::THREAD)
            .map_err(|e| Error::Hwloc {
                operation: "read the caller's affinity",
                message: e.to_string(),
            })?;
        bind_current_thread(topology, cpus)?;
        Ok(CallerPin {
            topology: topology.clone(),
            thread: std::thread::current().id(),
            // SAFETY: gettid has no preconditions.
            #[cfg(target_os = "linux")]
            tid: unsafe { libc::gettid() },
            previous,
        })
    }
}

impl Drop for CallerPin {
    fn drop(&mut self) {
        if std::thread::current().id() == self.thread {
            let _ = self
                .topology
                .hwloc()
                .bind_cpu(&self.previous, CpuBindingFlags::THREAD);
            return;
        }
        // Another thread drops the pool: restore the pinned thread by its
        // kernel id. If it has exited, the call fails and nothing changes.
        #[cfg(target_os = "linux")]
        {
            // SAFETY: an all-zero cpu_set_t is the empty set.
            let mut mask: libc::cpu_set_t = unsafe { core::mem::zeroed() };
            for cpu in self.previous.iter_set().map(usize::from) {
                if cpu < libc::CPU_SETSIZE as usize {
                    // SAFETY: `cpu` is below CPU_SETSIZE, inside the mask.
                    unsafe { libc::CPU_SET(cpu, &mut mask) };
                }
            }
            // SAFETY: `mask` is a valid cpu_set_t of the size passed; a
            // stale tid only makes the call fail with ESRCH.
            let _ =
                unsafe { libc::sched_setaffinity(self.tid, core::mem::size_of_val(&mask), &mask) };
        }
    }
}
