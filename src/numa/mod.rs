//! NUMA (feature `numa`): topology, pinned pools, a distributed pool, and
//! node-local memory, through hwloc (the `hwlocality` crate).
//!
//! On a machine with several NUMA nodes, memory on another node costs more
//! to reach, and threads the OS moves around lose their caches. This module
//! gives you the pieces to keep threads and their data together:
//!
//! - [`Topology`]: the machine's NUMA nodes, their memory kind, and the
//!   colocations (groups of CPUs with one nearest node) that get workers.
//!   Memory-only nodes (GPU memory, MCDRAM, CXL) are reported but never get
//!   workers. Loadable from hwloc XML or a synthetic description, for tests
//!   and planning.
//! - [`Pin`], through [`crate::pool::Builder::pin`]: pin a [`crate::pool::ThreadPool`]'s
//!   workers to one node, one per core, or one per hardware thread. The
//!   caller's thread is left alone unless [`crate::pool::Builder::pin_caller`]
//!   asks.
//! - [`DistributedPool`]: one pinned team per colocation; calls span them
//!   all, and the caller's share runs alongside the remote nodes'.
//! - [`PinnedVec`] and [`RoundRobinVec`]: memory bound to a node before its
//!   first touch, and an array sharded over the pool's nodes so that each
//!   thread works on local memory.
//!
//! ```
//! use tine::numa::{DistributedPool, RoundRobinVec, Topology};
//!
//! let topology = Topology::discover()?;
//! let pool = DistributedPool::try_spawn(&topology)?;
//! let data = RoundRobinVec::from_fn(&pool, 1 << 16, |i| i as f32)?;
//! data.par_for_each(&pool, |i, &x| assert_eq!(x, i as f32));
//! # Ok::<(), tine::Error>(())
//! ```
//!
//! Building needs hwloc's development files: `scripts/install-deps.sh`
//! installs them on Debian and Ubuntu. In the repository,
//! `cargo test --features numa` runs the tests and
//! `cargo run --release --features numa --example search` compares a
//! NUMA-aware nearest-neighbour search with a naive one.
//!
//! # What it guarantees
//!
//! - **Colocations, not nodes, get workers.** hwloc attaches memory-only
//!   nodes to the CPUs nearest to them, so they carry a package's cpuset;
//!   workers are grouped by distinct, minimal, non-empty cpusets, and memory
//!   is bound by a node's own nodeset, never through a cpuset.
//! - **The caller's share runs alongside the remote nodes'.** A distributed
//!   fork publishes the job to every node's team, runs share 0, then joins
//!   them all. A dynamic schedule drains the node's own block first, then
//!   steals from the other nodes.
//! - **The caller's thread is left alone** unless `pin_caller(true)`; its
//!   old affinity is then restored when the pool drops.
//! - **Binding fails loudly.** Memory is mapped fresh and bound with hwloc's
//!   `STRICT` flag before anything touches it; a binding that cannot be
//!   honoured is an `Err`, and a topology loaded from XML (on which hwloc
//!   only pretends to bind) is refused for memory.
//! - **Impossible requests are errors:** a node that does not exist, a
//!   memory-only node, or strict pinning of more threads than CPUs.
//!
//! # With MPI
//!
//! On a machine with several nodes, either run one process with a
//! [`DistributedPool`] (shared memory, node-local shards), or one MPI rank
//! per node with a plain pool in each (the repository's `examples-mpi/`):
//! ranks make locality explicit and suit work that splits into blocks with
//! bulk exchanges. Inside a bound rank, leave the team unpinned: its threads
//! inherit the rank's mask, whereas [`Pin::Cores`] chooses among the whole
//! machine's cores. Bind ranks with Open MPI's `--map-by numa --bind-to
//! numa` (one rank per node, a team over its cores) and keep ranks times
//! threads at or below the cores.

mod distributed;
mod distributed_builder;
mod pin;
mod pinned_vec;
mod round_robin_vec;
mod topology;

pub use distributed::DistributedPool;
pub use distributed_builder::DistributedBuilder;
pub(crate) use pin::{CallerPin, Placement};
pub use pin::{Pin, ThreadPlacement};
pub use pinned_vec::PinnedVec;
pub use round_robin_vec::RoundRobinVec;
pub use topology::{Colocation, MemoryKind, Node, Topology};
