//! [`ThreadPoolBuilder`] and [`ThreadPoolBuildError`]: rayon's builder, on
//! tine's [`Builder`].
//!
//! It exists so that `rayon::ThreadPoolBuilder::new().num_threads(n)
//! .build()` compiles unchanged when `rayon` names tine. It keeps rayon's
//! meanings where they differ from [`Builder`]'s: `num_threads(0)` asks
//! for the default count, `thread_name` takes a closure per index, and
//! `build_global` sets the pool that calls outside any pool use.
//!
//! # Whose threads run a call
//!
//! A pool built with only a thread count (and a panic handler) is a tine
//! pool: the caller of each call is its thread 0, with no hand-off on the
//! way in or out. A setting about the pool's threads themselves (names,
//! stack size, start or exit handler) only means something if the work
//! runs on those threads, so such a pool runs in rayon's model
//! ([`Builder::caller_runs`]`(false)`): every closure of a call made from
//! outside runs on a thread the pool started, named, sized and set up as
//! asked, while the caller waits; `num_threads(n)` is then `n` started
//! threads, indexed `0..n`, as in rayon. [`use_current_thread`]
//! (ThreadPoolBuilder::use_current_thread) keeps tine's model whatever
//! else is set.

use crate::error::Error;
use crate::nest::inject::spawned::PanicHandler;
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
    use_current_thread: bool,
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
            .field("use_current_thread", &self.use_current_thread)
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

    /// Names thread `index` `thread_name(index)`, called once per thread
    /// while building: indices `0..n`, and the pool runs every call on
    /// its named threads (rayon's model, see the module docs). With
    /// [`use_current_thread`](Self::use_current_thread), thread 0 is each
    /// call's caller, which keeps its own name: indices `1..n`.
    pub fn thread_name<F>(mut self, thread_name: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(thread_name));
        self
    }

    /// The pool threads' stack size in bytes (default: std's); the pool
    /// then runs every call on those threads (rayon's model, see the
    /// module docs).
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.stack_size = Some(stack_size);
        self
    }

    /// Each thread the pool starts calls `start_handler` with its index as
    /// it starts, on its own thread, before it runs any task (tine's
    /// [`Builder::on_start`]); the pool then runs every call on those
    /// threads (rayon's model, see the module docs). As with
    /// `thread_name`, the indices are `0..n`, or `1..n` with
    /// [`use_current_thread`](Self::use_current_thread). If the handler
    /// panics, `build` returns an error (rayon aborts).
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Box::new(start_handler));
        self
    }

    /// Each thread the pool started calls `exit_handler` with its index as
    /// it exits, when the pool is dropped ([`Builder::on_exit`]); the drop
    /// waits for it. Like `start_handler`, it puts the pool in rayon's
    /// model.
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

    /// In rayon, makes the building thread the pool's thread 0. Here it
    /// keeps tine's model whatever else is set: the caller of every call
    /// is thread 0 of the pool it calls (the building thread among them),
    /// and `n` threads means the caller and `n - 1` started threads.
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// Whether the pool runs in rayon's model: a setting about its own
    /// threads asks that the work run on them (the module docs).
    fn rayon_model(&self) -> bool {
        !self.use_current_thread
            && (self.thread_name.is_some()
                || self.stack_size.is_some()
                || self.start_handler.is_some()
                || self.exit_handler.is_some())
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
        let rayon_model = self.rayon_model();
        let mut builder: Builder = ThreadPool::builder()
            .threads(threads)
            .caller_runs(!rayon_model);
        if let Some(name) = &mut self.thread_name {
            // Thread 0 is the pool's serving thread in rayon's model, and
            // each call's caller in tine's.
            let first = usize::from(!rayon_model);
            let names: Vec<String> = (first..threads).map(&mut *name).collect();
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
