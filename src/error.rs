//! The crate's error type.

use core::fmt;

/// Why a team or a pool could not be built or joined.
///
/// Every bad argument and every OS refusal comes back as an `Error`; the
/// library does not panic on them.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A team needs at least one thread: the caller.
    ZeroThreads,
    /// More threads than the countdown's 32 bits can count.
    TooManyThreads {
        /// The thread count asked for.
        threads: usize,
    },
    /// The worker name contains a NUL byte, which no OS accepts in a thread
    /// name.
    InvalidName,
    /// The OS refused to start a worker thread. Workers started before it
    /// have been stopped and joined.
    #[cfg(feature = "std")]
    Spawn {
        /// The thread index (1-based, as in [`crate::schedule::Prong::thread_index`]) of
        /// the worker that failed to start.
        index: usize,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The global pool exists already: it was built, or a call spawned it
    /// (`Builder::build_global`).
    #[cfg(feature = "std")]
    GlobalPoolAlreadyInitialized,
    /// [`Builder::use_current_thread`](crate::pool::Builder::use_current_thread)
    /// was asked on a thread that already works for a pool (one of a pool's
    /// threads, or one that built a pool this way).
    #[cfg(feature = "std")]
    CurrentThreadAlreadyInPool,
    /// [`crate::team::Team::run_worker`] was called after every worker slot of the
    /// team had been taken.
    NoWorkerSlot {
        /// The team's worker slots: its thread count minus the caller.
        workers: usize,
    },
    /// [`crate::team::Team::run_worker`] was called from inside a task of the
    /// same team's fork: the thread would become a worker inside its own
    /// share and wait for itself forever.
    WorkerInsideOwnFork,
    /// No NUMA node has this OS index.
    #[cfg(feature = "numa")]
    NoSuchNode {
        /// The OS index asked for.
        node: usize,
        /// The OS indices of the nodes there are.
        nodes: std::vec::Vec<usize>,
    },
    /// The NUMA node has no CPUs this process may use (a memory-only node,
    /// such as GPU memory or MCDRAM), so no thread can be pinned to it.
    #[cfg(feature = "numa")]
    NodeWithoutCpus {
        /// The node's OS index.
        node: usize,
    },
    /// Strict pinning asked for more threads than there are CPUs (cores or
    /// hardware threads) to give each its own.
    #[cfg(feature = "numa")]
    NotEnoughCpus {
        /// The threads to pin.
        threads: usize,
        /// The cores or hardware threads available to them.
        cpus: usize,
    },
    /// A distributed pool needs at least one thread per colocation.
    #[cfg(feature = "numa")]
    TooFewThreads {
        /// The threads asked for.
        threads: usize,
        /// The colocations (NUMA nodes with CPUs) to cover.
        colocations: usize,
    },
    /// This kind of pool cannot be pinned this way.
    #[cfg(feature = "numa")]
    InvalidPin {
        /// Why, and what to use instead.
        reason: &'static str,
    },
    /// hwloc failed: loading a topology, binding a thread, or binding or
    /// allocating memory.
    #[cfg(feature = "numa")]
    Hwloc {
        /// What tine asked hwloc to do.
        operation: &'static str,
        /// What hwloc said.
        message: std::string::String,
    },
}

impl Error {
    /// Checks a team's thread count: at least 1 (the caller), and few
    /// enough for the 32-bit countdown. Returns it unchanged.
    pub(crate) fn check_threads(threads: usize) -> Result<usize, Error> {
        if threads == 0 {
            return Err(Error::ZeroThreads);
        }
        if u32::try_from(threads).is_err() {
            return Err(Error::TooManyThreads { threads });
        }
        Ok(threads)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroThreads => f.write_str(
                "a tine team needs at least 1 thread (the caller counts as thread 0), got 0",
            ),
            Error::TooManyThreads { threads } => write!(
                f,
                "a tine team holds at most {} threads, got {threads}",
                u32::MAX
            ),
            Error::InvalidName => f.write_str("the thread name contains a NUL byte"),
            #[cfg(feature = "std")]
            Error::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            #[cfg(feature = "std")]
            Error::CurrentThreadAlreadyInPool => f.write_str(
                "the current thread already works for a pool: it cannot become thread 0 of another",
            ),
            #[cfg(feature = "std")]
            Error::Spawn { index, source } => {
                write!(f, "the OS refused to start worker thread {index}: {source}")
            }
            Error::NoWorkerSlot { workers } => write!(
                f,
                "every worker slot of this team is taken ({workers} workers); \
                 run_worker was called once too often"
            ),
            Error::WorkerInsideOwnFork => f.write_str(
                "run_worker was called from inside a task of the same team's fork; \
                 the thread would become a worker inside its own share and the fork \
                 would wait for it forever",
            ),
            #[cfg(feature = "numa")]
            Error::NoSuchNode { node, nodes } => {
                write!(f, "there is no NUMA node {node}; the nodes are {nodes:?}")
            }
            #[cfg(feature = "numa")]
            Error::NodeWithoutCpus { node } => write!(
                f,
                "NUMA node {node} has no CPUs this process may use (a memory-only node), \
                 so no thread can be pinned to it"
            ),
            #[cfg(feature = "numa")]
            Error::NotEnoughCpus { threads, cpus } => write!(
                f,
                "strict pinning of {threads} threads needs as many CPUs, but only {cpus} \
                 are available"
            ),
            #[cfg(feature = "numa")]
            Error::TooFewThreads {
                threads,
                colocations,
            } => write!(
                f,
                "a distributed pool needs at least one thread for each of its \
                 {colocations} colocations, got {threads}"
            ),
            #[cfg(feature = "numa")]
            Error::InvalidPin { reason } => f.write_str(reason),
            #[cfg(feature = "numa")]
            Error::Hwloc { operation, message } => {
                write!(f, "hwloc failed to {operation}: {message}")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}
