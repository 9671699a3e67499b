//! [`ThreadPoolBuilder`] and [`ThreadPoolBuildError`]: rayon's builder, on
//! tine's [`Builder`].
//!
//! It exists so that `rayon::ThreadPoolBuilder::new().num_threads(n)
//! .build()` compiles unchanged when `rayon` names tine. It keeps rayon's
//! meanings where they differ from [`Builder`]'s: `num_threads(0)` asks
//! for the default count, `thread_name` takes a closure per index, and
//! `build_global` sets the pool that calls outside any pool use.

use crate::error::Error;
use crate::nest::inject::PanicHandler;
use crate::pool::current as global;
use crate::pool::Builder;
use crate::pool::ThreadPool;
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
    start_handler: Option<Box<dyn Fn(usize) + Send + Sync>>,
    exit_handler: Option<Box<dyn Fn(usize) + Send + Sync>>,
    panic_handler: Option<Box<PanicHandler>>,
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("thread_name", &self.thread_name.as_ref().map(|_| ".."))
            .field("stack_size", &self.stack_size)
            .field("start_handler", &self.start_handler.is_some())
            .field("exit_handler", &self.exit_handler.is_some())
            .field("panic_handler", &self.panic_handler.is_some())
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

    /// Each worker calls `start_handler` with its index as it starts, on
    /// its own thread, before it runs any task (tine's
    /// [`Builder::on_start`]). As with `thread_name`, the workers are
    /// indices `1..n`: thread 0 is the caller of each call, which is no
    /// worker. If the handler panics, `build` returns an error (rayon
    /// aborts).
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Box::new(start_handler));
        self
    }

    /// Each worker calls `exit_handler` with its index as it exits, when
    /// the pool is dropped ([`Builder::on_exit`]); the drop waits for it.
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Box::new(exit_handler));
        self
    }

    /// A panic in a detached job ([`spawn`](crate::pool::serve::spawn),
    /// [`ThreadPool::spawn`]) calls `panic_handler` with the payload
    /// ([`Builder::panic_handler`]); without one, the process aborts, as in
    /// rayon. Panics of every other call resume on its caller.
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Self
    where
        H: Fn(Box<dyn core::any::Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Box::new(panic_handler));
        self
    }

    /// Accepted for rayon's programs: in rayon it makes the building thread
    /// the pool's thread 0. In tine that is always so, for every call: the
    /// caller is thread 0 of the pool it calls, and `n` threads means the
    /// caller and `n - 1` workers.
    pub fn use_current_thread(self) -> Self {
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
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        self.builder().build().map_err(ThreadPoolBuildError::Build)
    }

    /// tine's [`Builder`] with these settings.
    fn builder(mut self) -> Builder {
        let threads = self.threads();
        let mut builder: Builder = ThreadPool::builder().threads(threads);
        if let Some(name) = &mut self.thread_name {
            let names: Vec<String> = (1..threads).map(&mut *name).collect();
            builder = builder.thread_names(names);
        }
        if let Some(bytes) = self.stack_size {
            builder = builder.stack_size(bytes);
        }
        if let Some(handler) = self.start_handler {
            builder = builder.on_start(handler);
        }
        if let Some(handler) = self.exit_handler {
            builder = builder.on_exit(handler);
        }
        if let Some(handler) = self.panic_handler {
            builder = builder.panic_handler(handler);
        }
        builder
    }

    /// Builds the pool and makes it the global one: the pool of calls made
    /// outside any pool, which is otherwise spawned on first use.
    ///
    /// # Errors
    /// If the global pool already exists (it was set, or a call already
    /// used it), as in rayon, or as [`build`](Self::build).
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        match self.builder().build_global() {
            Ok(()) => Ok(()),
            Err(Error::GlobalPoolAlreadyInitialized) => {
                Err(ThreadPoolBuildError::GlobalPoolAlreadyInitialized)
            }
            Err(error) => Err(ThreadPoolBuildError::Build(error)),
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
