//! [`ThreadPoolBuilder`] and [`ThreadPoolBuildError`]: rayon's builder, on
//! tine's [`Builder`].
//!
//! It exists so that `rayon::ThreadPoolBuilder::new().num_threads(n)
//! .build()` compiles unchanged when `rayon` names tine. It keeps rayon's
//! meanings where they differ from [`Builder`]'s: `num_threads(0)` asks
//! for the default count, `thread_name` takes a closure per index, and
//! `build_global` sets the pool that calls outside any pool use.

use crate::error::Error;
use crate::par::global;
use crate::pool::Builder;
use crate::ThreadPool;
use core::fmt;
use std::boxed::Box;
use std::string::String;
use std::vec::Vec;

/// rayon's `ThreadPoolBuilder`: configures a [`ThreadPool`] with rayon's
/// method names and meanings. tine's own [`ThreadPool::builder`] offers
/// more (wait policy, busy wait, NUMA pinning).
///
/// ```
/// let pool = tine::ThreadPoolBuilder::new()
///     .num_threads(3)
///     .thread_name(|i| format!("worker-{i}"))
///     .build()
///     .unwrap();
/// assert_eq!(pool.current_num_threads(), 3);
/// let sum: u64 = pool.install(|| {
///     use tine::prelude::*;
///     (0..1000u64).into_par_iter().sum()
/// });
/// assert_eq!(sum, 499_500);
/// ```
#[derive(Default)]
pub struct ThreadPoolBuilder {
    num_threads: usize,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("thread_name", &self.thread_name.as_ref().map(|_| ".."))
            .field("stack_size", &self.stack_size)
            .finish()
    }
}

impl ThreadPoolBuilder {
    /// A builder with every setting at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Threads in the pool, counting the caller. 0 (the default) means
    /// `TINE_NUM_THREADS`, else `RAYON_NUM_THREADS`, else one per CPU this
    /// process may use, as in rayon.
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Names thread `index` `thread_name(index)`. tine calls it once per
    /// worker (indices `1..n`) while building: thread 0 is the caller,
    /// which keeps its own name.
    pub fn thread_name<F>(mut self, thread_name: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(thread_name));
        self
    }

    /// The workers' stack size in bytes. Default: std's.
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.stack_size = Some(stack_size);
        self
    }

    /// The thread count `build` will use (`num_threads`, or the default).
    fn threads(&self) -> usize {
        match self.num_threads {
            0 => global::threads_from_env()
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            n => n,
        }
    }

    /// Spawns the pool.
    ///
    /// # Errors
    /// If a thread name holds a NUL byte, the count does not fit a team
    /// (`u32::MAX` threads), or the OS refuses a thread; the message says
    /// which.
    pub fn build(mut self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let threads = self.threads();
        let mut builder: Builder = ThreadPool::builder().threads(threads);
        if let Some(name) = &mut self.thread_name {
            let names: Vec<String> = (1..threads).map(&mut *name).collect();
            builder = builder.thread_names(names);
        }
        if let Some(bytes) = self.stack_size {
            builder = builder.stack_size(bytes);
        }
        builder.build().map_err(ThreadPoolBuildError::Build)
    }

    /// Builds the pool and makes it the global one: the pool of calls made
    /// outside any pool, which is otherwise spawned on first use.
    ///
    /// # Errors
    /// If the global pool already exists (it was set, or a call already
    /// used it), as in rayon, or as [`build`](Self::build).
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        if global::global_is_set() {
            return Err(ThreadPoolBuildError::GlobalPoolAlreadyInitialized);
        }
        if global::set_global(self.build()?) {
            Ok(())
        } else {
            // Another thread set it between the check and now.
            Err(ThreadPoolBuildError::GlobalPoolAlreadyInitialized)
        }
    }
}

/// Why [`ThreadPoolBuilder::build`] or
/// [`build_global`](ThreadPoolBuilder::build_global) failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ThreadPoolBuildError {
    /// The global pool exists already.
    GlobalPoolAlreadyInitialized,
    /// Spawning the pool failed; the tine error says why.
    Build(Error),
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThreadPoolBuildError::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            ThreadPoolBuildError::Build(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ThreadPoolBuildError::GlobalPoolAlreadyInitialized => None,
            ThreadPoolBuildError::Build(error) => Some(error),
        }
    }
}
