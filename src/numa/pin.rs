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
use crate::threads::WorkerSetup;
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
        let slots = self.slots(pin, threads, strict)?;
        if slots.is_empty() {
            // Pin::None: unbound.
            let unbound = ThreadPlacement {
                colocation: 0,
                cpus: Vec::new(),
            };
            return Ok(std::vec![unbound; threads]);
        }
        Ok(spread(&slots, threads))
    }

    /// The distinct places of a plan: thread `t` goes to slot
    /// `t % slots.len()`, and no slots means unbound. Checks everything
    /// [`Topology::plan`] checks without making one entry per thread.
    pub(crate) fn slots(
        &self,
        pin: Pin,
        threads: usize,
        strict: bool,
    ) -> Result<Vec<ThreadPlacement>, Error> {
        Error::check_threads(threads)?;
        let slots: Vec<ThreadPlacement> = match pin {
            Pin::None => return Ok(Vec::new()),
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
                return Ok(std::vec![ThreadPlacement {
                    colocation,
                    cpus: cpus.to_vec(),
                }]);
            }
            Pin::Cores | Pin::HardwareThreads => (0..self.colocations().len())
                .flat_map(|c| self.colocation_slots(c, pin))
                .collect(),
        };
        enough(slots, threads, strict)
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

/// `slots`, if they can take `threads` threads: at least one slot, and with
/// `strict` one slot per thread.
fn enough(
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
    Ok(slots)
}

/// One entry per thread: thread `t` takes slot `t % slots.len()`.
fn spread(slots: &[ThreadPlacement], threads: usize) -> Vec<ThreadPlacement> {
    (0..threads)
        .map(|t| slots[t % slots.len()].clone())
        .collect()
}

/// The first `threads` of `slots`, wrapping around unless `strict`.
pub(crate) fn take_slots(
    slots: Vec<ThreadPlacement>,
    threads: usize,
    strict: bool,
) -> Result<Vec<ThreadPlacement>, Error> {
    enough(slots, threads, strict).map(|slots| spread(&slots, threads))
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

/// The plan of a pinned [`crate::pool::ThreadPool`], made by its builder: the
/// distinct slots, thread `t` taking slot `t % slots.len()`.
#[derive(Debug)]
pub(crate) struct Placement {
    topology: Topology,
    slots: Vec<ThreadPlacement>,
    pin_caller: bool,
}

impl Placement {
    /// Checks the request and makes the plan.
    pub(crate) fn new(
        topology: &Topology,
        pin: Pin,
        threads: usize,
        strict: bool,
        pin_caller: bool,
    ) -> Result<Self, Error> {
        Ok(Placement {
            topology: topology.clone(),
            slots: topology.slots(pin, threads, strict)?,
            pin_caller,
        })
    }

    fn cpus(&self, thread: usize) -> &[usize] {
        match self.slots.len() {
            0 => &[],
            len => &self.slots[thread % len].cpus,
        }
    }

    /// What worker `index` runs first: pinning itself to its CPUs.
    pub(crate) fn worker_setup(&self, index: usize) -> Option<WorkerSetup> {
        worker_setup(&self.topology, self.cpus(index))
    }

    /// Pins the calling thread if asked to; the guard puts its affinity back.
    pub(crate) fn pin_caller(&self) -> Result<Option<CallerPin>, Error> {
        if !self.pin_caller {
            return Ok(None);
        }
        CallerPin::pin(&self.topology, self.cpus(0))
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
/// that thread's previous affinity back, on that thread. (fork_union
/// "unpinned" whichever thread happened to drop the pool.)
///
/// Dropped on the pinned thread, it restores through hwloc. Dropped on
/// another thread (Linux only), it restores the pinned thread by its kernel
/// id, after checking through `/proc` that the id still names the same
/// thread (same start time), so a reused id is left alone. Elsewhere, a drop
/// on another thread cannot restore and leaves the affinity as it is.
#[derive(Debug)]
pub(crate) struct CallerPin {
    topology: Topology,
    thread: std::thread::ThreadId,
    #[cfg(target_os = "linux")]
    tid: libc::pid_t,
    /// The pinned thread's start time, in clock ticks since boot.
    #[cfg(target_os = "linux")]
    started: Option<u64>,
    previous: CpuSet,
}

/// Field 22 (`starttime`) of a `/proc/.../stat` file.
#[cfg(target_os = "linux")]
fn start_time(stat: &str) -> Option<u64> {
    let text = std::fs::read_to_string(stat).ok()?;
    // The name (field 2) may contain spaces and parentheses; the fields
    // after its closing parenthesis start at field 3.
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

impl CallerPin {
    /// Pins the calling thread to `cpus`. `None` when there is nothing to
    /// do: no CPUs (unpinned), or a topology on which hwloc only pretends
    /// to bind (restoring through it would write a made-up set).
    pub(crate) fn pin(topology: &Topology, cpus: &[usize]) -> Result<Option<Self>, Error> {
        if cpus.is_empty() || !topology.is_this_system() {
            return Ok(None);
        }
        let previous = topology
            .hwloc()
            .cpu_binding(CpuBindingFlags::THREAD)
            .map_err(|e| Error::Hwloc {
                operation: "read the caller's affinity",
                message: e.to_string(),
            })?;
        // SAFETY: gettid has no preconditions.
        #[cfg(target_os = "linux")]
        let tid = unsafe { libc::gettid() };
        bind_current_thread(topology, cpus)?;
        Ok(Some(CallerPin {
            topology: topology.clone(),
            thread: std::thread::current().id(),
            #[cfg(target_os = "linux")]
            tid,
            #[cfg(target_os = "linux")]
            started: start_time(&std::format!("/proc/self/task/{tid}/stat")),
            previous,
        }))
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
        #[cfg(target_os = "linux")]
        {
            let now = start_time(&std::format!("/proc/self/task/{}/stat", self.tid));
            if self.started.is_none() || now != self.started {
                return; // exited, or the id now names another thread
            }
            // A mask as long as the highest CPU needs: sched_setaffinity
            // takes any length, so no CPU is cut off at CPU_SETSIZE.
            let cpus: Vec<usize> = self.previous.iter_set().map(usize::from).collect();
            let words = cpus.iter().max().map_or(1, |&max| max / 64 + 1);
            let mut mask = std::vec![0u64; words];
            for cpu in cpus {
                mask[cpu / 64] |= 1 << (cpu % 64);
            }
            // SAFETY: `mask` is `words * 8` readable bytes laid out as the
            // kernel reads a CPU mask on 64-bit Linux (a bit per CPU in
            // native 64-bit words); the kernel reads only that many bytes.
            let _ = unsafe {
                libc::sched_setaffinity(
                    self.tid,
                    words * 8,
                    mask.as_ptr().cast::<libc::cpu_set_t>(),
                )
            };
        }
    }
}
