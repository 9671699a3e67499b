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
//! - [`Pin`], through [`crate::Builder::pin`]: pin a [`crate::ThreadPool`]'s
//!   workers to one node, one per core, or one per hardware thread. The
//!   caller's thread is left alone unless [`crate::Builder::pin_caller`]
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
//! installs them on Debian and Ubuntu.

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
