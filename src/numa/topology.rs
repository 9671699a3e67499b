//! The machine as tine plans for it: NUMA nodes, the colocations that get
//! workers, cores and hardware threads.
//!
//! hwloc describes NUMA nodes as memory attached somewhere in the CPU tree,
//! so a node's cpuset is the set of CPUs near it, not CPUs it "owns". Memory
//! that has no CPUs of its own (GPU memory, MCDRAM, CXL expanders, a node
//! with an empty cpuset) usually carries the cpuset of its nearest package.
//! So tine groups workers by distinct, minimal, non-empty cpusets, which it
//! calls colocations, and binds memory by a node's own nodeset, never
//! through a cpuset. Each colocation has one primary node, the one its
//! memory goes to; every other node is memory-only and never gets workers.

use crate::error::Error;
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::ObjectType;
use hwlocality::object::TopologyObject;
use hwlocality::topology::builder::TopologyBuilder;
use std::string::{String, ToString};
use std::sync::Arc;
use std::vec::Vec;

/// What kind of memory a NUMA node holds, from hwloc's subtype.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MemoryKind {
    /// Ordinary DRAM (no subtype).
    Dram,
    /// On-package high-bandwidth memory (`MCDRAM`, `HBM`).
    HighBandwidth,
    /// A GPU's memory exposed as a node (`GPUMemory`).
    Gpu,
    /// Any other subtype hwloc reports, such as `NVM` or `CXL-DRAM`.
    Other(String),
}

impl MemoryKind {
    fn from_subtype(subtype: Option<&str>) -> Self {
        match subtype {
            None => MemoryKind::Dram,
            Some("MCDRAM" | "HBM") => MemoryKind::HighBandwidth,
            Some("GPUMemory") => MemoryKind::Gpu,
            Some(other) => MemoryKind::Other(other.to_string()),
        }
    }
}

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    os_index: usize,
    cpus: Vec<usize>,
    nodeset: Vec<usize>,
    local_memory: u64,
    subtype: Option<String>,
    kind: MemoryKind,
    colocation: Option<usize>,
}

impl Node {
    /// The node's OS index (as in `numactl` and `/sys/devices/system/node`).
    pub fn os_index(&self) -> usize {
        self.os_index
    }

    /// The OS indices of the hardware threads near this node that this
    /// process may use. A memory-only node often lists its package's CPUs
    /// here; see [`Node::has_cpus`].
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// The node's nodeset: the OS indices that bind memory to it (normally
    /// just [`Node::os_index`]).
    pub fn nodeset(&self) -> &[usize] {
        &self.nodeset
    }

    /// Bytes of memory local to the node (0 if hwloc does not know).
    pub fn local_memory(&self) -> u64 {
        self.local_memory
    }

    /// hwloc's subtype string (`"GPUMemory"`, `"MCDRAM"`, ...), if any.
    pub fn subtype(&self) -> Option<&str> {
        self.subtype.as_deref()
    }

    /// The kind of memory, from the subtype.
    pub fn kind(&self) -> &MemoryKind {
        &self.kind
    }

    /// Whether the node gets workers: it is the primary node of a
    /// colocation. False for memory-only nodes.
    pub fn has_cpus(&self) -> bool {
        self.colocation.is_some()
    }

    /// The colocation this node is the primary node of, if any.
    pub fn colocation(&self) -> Option<usize> {
        self.colocation
    }
}

/// A group of hardware threads that share one nearest NUMA node: the unit
/// that gets one pool in a [`crate::numa::DistributedPool`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colocation {
    node: usize,
    memory_nodes: Vec<usize>,
    cpus: Vec<usize>,
    cores: Vec<Vec<usize>>,
}

impl Colocation {
    /// The OS index of the primary node: where this colocation's memory is
    /// bound.
    pub fn node(&self) -> usize {
        self.node
    }

    /// The OS indices of every node with this cpuset, the primary first;
    /// the others are memory-only.
    pub fn nodes(&self) -> &[usize] {
        &self.memory_nodes
    }

    /// The usable hardware threads, by OS index.
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// The usable cores, each as the OS indices of its hardware threads.
    pub fn cores(&self) -> &[Vec<usize>] {
        &self.cores
    }

    /// The hardware threads round-robin over the cores: the first thread of
    /// every core, then the second, and so on. Pinning in this order puts
    /// each worker on its own core for as long as there are cores.
    pub fn cpus_round_robin(&self) -> Vec<usize> {
        let deepest = self.cores.iter().map(Vec::len).max().unwrap_or(0);
        (0..deepest)
            .flat_map(|level| self.cores.iter().filter_map(move |core| core.get(level)))
            .copied()
            .collect()
    }
}

/// A machine's topology, as hwloc sees it: discovered, or loaded from an
/// XML export or a synthetic description for tests and planning.
///
/// Cloning is cheap (the hwloc topology is shared).
///
/// ```
/// // Two packages of two cores of two hardware threads, one node each.
/// let topology = tine::numa::Topology::from_synthetic("pack:2 numa:1 core:2 pu:2")?;
/// assert_eq!(topology.nodes().len(), 2);
/// assert_eq!(topology.colocations().len(), 2);
/// assert_eq!(topology.cores(), 4);
/// assert_eq!(topology.hardware_threads(), 8);
/// # Ok::<(), tine::Error>(())
/// ```
#[derive(Clone)]
pub struct Topology {
    inner: Arc<Inner>,
}

struct Inner {
    hwloc: hwlocality::Topology,
    nodes: Vec<Node>,
    colocations: Vec<Colocation>,
    cores: usize,
    hardware_threads: usize,
    this_system: bool,
}

impl core::fmt::Debug for Topology {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Topology")
            .field("nodes", &self.inner.nodes)
            .field("colocations", &self.inner.colocations)
            .field("this_system", &self.inner.this_system)
            .finish_non_exhaustive()
    }
}

fn hwloc_error(operation: &'static str) -> impl FnOnce(String) -> Error {
    move |message| Error::Hwloc { operation, message }
}

impl Topology {
    /// Discovers the machine this process runs on.
    ///
    /// # Errors
    /// [`Error::Hwloc`] if hwloc fails.
    pub fn discover() -> Result<Self, Error> {
        let hwloc = hwlocality::Topology::new()
            .map_err(|e| hwloc_error("discover the topology")(e.to_string()))?;
        Ok(Self::from_hwloc(hwloc))
    }

    /// Loads a topology exported by hwloc (`lstopo --of xml`). Binding
    /// through it does nothing: hwloc fakes binding on a machine it did not
    /// discover, so it is for tests and planning.
    ///
    /// # Errors
    /// [`Error::Hwloc`] if the file cannot be read or parsed.
    pub fn from_xml_file(path: impl AsRef<std::path::Path>) -> Result<Self, Error> {
        // Read it ourselves: hwlocality panics on some I/O errors.
        let path = path.as_ref();
        let xml = std::fs::read_to_string(path).map_err(|e| {
            hwloc_error("load an XML topology")(std::format!("{}: {e}", path.display()))
        })?;
        Self::from_xml(&xml)
    }

    /// Loads a topology from hwloc XML text; see [`Topology::from_xml_file`].
    ///
    /// # Errors
    /// [`Error::Hwloc`] if the text cannot be parsed.
    pub fn from_xml(xml: &str) -> Result<Self, Error> {
        Self::load("load an XML topology", |builder| builder.from_xml(xml))
    }

    /// Builds a topology from hwloc's synthetic description, such as
    /// `"pack:2 numa:1 core:4 pu:2"`. Binding through it does nothing.
    ///
    /// # Errors
    /// [`Error::Hwloc`] if the description is invalid.
    pub fn from_synthetic(description: &str) -> Result<Self, Error> {
        Self::load("build a synthetic topology", |builder| {
            builder.from_synthetic(description)
        })
    }

    /// Builds a topology from a source that `source` sets on hwloc's
    /// builder, naming `operation` in any error.
    fn load<E: core::fmt::Display>(
        operation: &'static str,
        source: impl FnOnce(TopologyBuilder) -> Result<TopologyBuilder, E>,
    ) -> Result<Self, Error> {
        let builder = source(hwlocality::Topology::builder())
            .map_err(|e| hwloc_error(operation)(e.to_string()))?;
        let hwloc = builder
            .build()
            .map_err(|e| hwloc_error(operation)(e.to_string()))?;
        Ok(Self::from_hwloc(hwloc))
    }

    /// Wraps a topology built with hwlocality directly. Whether binding
    /// through it is real is hwloc's own verdict
    /// ([`hwlocality::Topology::is_this_system`]): false for XML and
    /// synthetic topologies, including those that `HWLOC_XMLFILE` or
    /// `HWLOC_SYNTHETIC` in the environment substitute for discovery.
    pub fn from_hwloc(hwloc: hwlocality::Topology) -> Self {
        let this_system = hwloc.is_this_system();
        let allowed: Vec<usize> = hwloc.allowed_cpuset().iter_set().map(usize::from).collect();
        let usable = |object: &TopologyObject| -> Vec<usize> {
            object.cpuset().map_or_else(Vec::new, |set| {
                set.iter_set()
                    .map(usize::from)
                    .filter(|cpu| allowed.binary_search(cpu).is_ok())
                    .collect()
            })
        };

        let mut nodes: Vec<Node> = hwloc
            .objects_with_type(ObjectType::NUMANode)
            .map(|object| {
                let subtype = object
                    .subtype()
                    .map(|text| text.to_string_lossy().into_owned());
                let local_memory = match object.attributes() {
                    Some(ObjectAttributes::NUMANode(numa)) => {
                        numa.local_memory().map_or(0, |bytes| bytes.get())
                    }
                    _ => 0,
                };
                let os_index = object.os_index().unwrap_or(0);
                let nodeset = object.nodeset().map_or_else(
                    || std::vec![os_index],
                    |set| set.iter_set().map(usize::from).collect(),
                );
                Node {
                    os_index,
                    cpus: usable(object),
                    nodeset,
                    local_memory,
                    kind: MemoryKind::from_subtype(subtype.as_deref()),
                    subtype,
                    colocation: None,
                }
            })
            .collect();

        let mut cores: Vec<Vec<usize>> = hwloc
            .objects_with_type(ObjectType::Core)
            .map(usable)
            .filter(|cpus| !cpus.is_empty())
            .collect();
        if cores.is_empty() {
            // No core level (some synthetic topologies): each hardware
            // thread is its own core.
            cores = allowed.iter().map(|&cpu| std::vec![cpu]).collect();
        }

        let colocations = group_colocations(&mut nodes, &cores);
        let hardware_threads = colocations.iter().map(|c| c.cpus.len()).sum();
        let core_count = colocations.iter().map(|c| c.cores.len()).sum();
        Topology {
            inner: Arc::new(Inner {
                hwloc,
                nodes,
                colocations,
                cores: core_count,
                hardware_threads,
                this_system,
            }),
        }
    }

    /// Every NUMA node, memory-only ones included, in hwloc's order.
    pub fn nodes(&self) -> &[Node] {
        &self.inner.nodes
    }

    /// The node with this OS index.
    ///
    /// # Errors
    /// [`Error::NoSuchNode`] if there is none.
    pub fn node(&self, os_index: usize) -> Result<&Node, Error> {
        self.inner
            .nodes
            .iter()
            .find(|node| node.os_index == os_index)
            .ok_or_else(|| Error::NoSuchNode {
                node: os_index,
                nodes: self.inner.nodes.iter().map(|n| n.os_index).collect(),
            })
    }

    /// The colocations (groups of hardware threads with one nearest node),
    /// ordered by their first hardware thread.
    pub fn colocations(&self) -> &[Colocation] {
        &self.inner.colocations
    }

    /// Usable cores, over all colocations.
    pub fn cores(&self) -> usize {
        self.inner.cores
    }

    /// Usable hardware threads, over all colocations.
    pub fn hardware_threads(&self) -> usize {
        self.inner.hardware_threads
    }

    /// Whether this topology describes the running machine, so that binding
    /// through it is real (false for XML and synthetic topologies).
    pub fn is_this_system(&self) -> bool {
        self.inner.this_system
    }

    /// The hwloc topology, for anything tine does not wrap.
    pub fn hwloc(&self) -> &hwlocality::Topology {
        &self.inner.hwloc
    }
}

/// Marks each node's colocation and returns the colocations.
///
/// hwloc attaches memory to objects of one tree, so two nodes' cpusets are
/// either nested or disjoint; that is what makes the minimal ones disjoint.
///
/// A node gets CPUs if its usable cpuset is non-empty and minimal: no other
/// node's non-empty cpuset lies strictly inside it (memory attached above
/// several nodes, such as a package-wide CXL node, covers their CPUs but is
/// nearest to none of them). Nodes with equal minimal cpusets form one
/// colocation; its primary node is the first DRAM node among them (by OS
/// index), or the first node if none is DRAM.
fn group_colocations(nodes: &mut [Node], cores: &[Vec<usize>]) -> Vec<Colocation> {
    let contains =
        |outer: &[usize], inner: &[usize]| inner.iter().all(|cpu| outer.binary_search(cpu).is_ok());
    let minimal: Vec<bool> = nodes
        .iter()
        .map(|node| {
            !node.cpus.is_empty()
                && !nodes.iter().any(|other| {
                    !other.cpus.is_empty()
                        && other.cpus.len() < node.cpus.len()
                        && contains(&node.cpus, &other.cpus)
                })
        })
        .collect();

    // Distinct minimal cpusets, ordered by their first CPU.
    let mut cpusets: Vec<&[usize]> = nodes
        .iter()
        .zip(&minimal)
        .filter(|(_, &is_minimal)| is_minimal)
        .map(|(node, _)| node.cpus.as_slice())
        .collect();
    cpusets.sort_unstable();
    cpusets.dedup();
    let cpusets: Vec<Vec<usize>> = cpusets.into_iter().map(<[usize]>::to_vec).collect();

    let mut colocations = Vec::with_capacity(cpusets.len());
    for (index, cpus) in cpusets.into_iter().enumerate() {
        let mut members: Vec<usize> = (0..nodes.len())
            .filter(|&n| minimal[n] && nodes[n].cpus == cpus)
            .collect();
        // The primary first: DRAM before other kinds, then by OS index.
        members.sort_by_key(|&n| (nodes[n].kind != MemoryKind::Dram, nodes[n].os_index));
        let primary = members[0];
        nodes[primary].colocation = Some(index);
        let colocation_cores = cores
            .iter()
            .filter(|core| contains(&cpus, core))
            .cloned()
            .collect();
        colocations.push(Colocation {
            node: nodes[primary].os_index,
            memory_nodes: members.iter().map(|&n| nodes[n].os_index).collect(),
            cpus,
            cores: colocation_cores,
        });
    }
    colocations
}
