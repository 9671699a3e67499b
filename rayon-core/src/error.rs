//! [`ThreadPoolBuildError`]: why a pool could not be built, with rayon's
//! messages.

use core::fmt;
use std::error::Error;
use std::io;

/// Why a pool could not be built.
#[derive(Debug)]
pub enum ThreadPoolBuildError {
    /// The global pool exists already.
    #[doc(hidden)]
    GlobalPoolAlreadyInitialized,
    /// `use_current_thread` on a thread that is already a pool's.
    #[doc(hidden)]
    CurrentThreadAlreadyInPool,
    /// Starting a thread failed.
    #[doc(hidden)]
    IOError(io::Error),
}

impl ThreadPoolBuildError {
    pub(crate) fn from_tine(error: tine::Error) -> Self {
        match error {
            tine::Error::GlobalPoolAlreadyInitialized => Self::GlobalPoolAlreadyInitialized,
            tine::Error::CurrentThreadAlreadyInPool => Self::CurrentThreadAlreadyInPool,
            tine::Error::Spawn { source, .. } => Self::IOError(source),
            other => Self::IOError(io::Error::other(other.to_string())),
        }
    }
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            Self::CurrentThreadAlreadyInPool => {
                f.write_str("The current thread is already part of another thread pool.")
            }
            Self::IOError(error) => error.fmt(f),
        }
    }
}

impl Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::IOError(error) => Some(error),
            _ => None,
        }
    }
}
