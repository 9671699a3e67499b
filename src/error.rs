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
        /// The thread index (1-based, as in [`crate::Prong::thread_index`]) of
        /// the worker that failed to start.
        index: usize,
        /// What the OS said.
        source: std::io::Error,
    },
    /// [`crate::Team::run_worker`] was called after every worker slot of the
    /// team had been taken.
    NoWorkerSlot {
        /// The team's worker slots: its thread count minus the caller.
        workers: usize,
    },
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
            Error::Spawn { index, source } => {
                write!(f, "the OS refused to start worker thread {index}: {source}")
            }
            Error::NoWorkerSlot { workers } => write!(
                f,
                "every worker slot of this team is taken ({workers} workers); \
                 run_worker was called once too often"
            ),
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
