//! [`ThreadPoolBuilder`]: rayon's builder on tine's [`tine::Builder`],
//! whose pools it builds in rayon's model (`caller_runs(false)`).

use crate::{ThreadBuilder, ThreadPool, ThreadPoolBuildError};
use core::fmt;
use std::io;

type PanicHandler = dyn Fn(Box<dyn std::any::Any + Send>) + Send + Sync;
type ThreadHandler = dyn Fn(usize) + Send + Sync;

mod spawn {
    /// The builder's `thread_name`: a thread's name, asked as the thread
    /// starts (so a panic in it stops the build there, as in rayon).
    pub type Names = Option<Box<dyn FnMut(usize) -> String>>;

    /// How a builder starts its threads (sealed, as rayon's).
    pub trait ThreadSpawn {
        /// Builds `builder`'s pool with this way of starting threads.
        fn build(
            self,
            builder: tine::Builder,
            names: Names,
        ) -> Result<tine::ThreadPool, tine::Error>;

        /// Builds it as the global pool.
        fn build_global(self, builder: tine::Builder, names: Names) -> Result<(), tine::Error>;
    }

    /// The threads are started by the pool.
    #[derive(Debug, Default)]
    pub struct DefaultSpawn;

    /// The threads are started by a spawn handler.
    pub struct CustomSpawn<F>(pub(super) F);

    /// Starts `start` on a new thread, named by `names`.
    fn start_thread(start: tine::ThreadStart, names: &mut Names) -> std::io::Result<()> {
        let mut thread = std::thread::Builder::new();
        if let Some(name) = names.as_mut().map(|name| name(start.index())) {
            thread = thread.name(name);
        }
        if let Some(bytes) = start.stack_size() {
            thread = thread.stack_size(bytes);
        }
        thread.spawn(move || start.run())?;
        Ok(())
    }

    impl ThreadSpawn for DefaultSpawn {
        fn build(
            self,
            builder: tine::Builder,
            mut names: Names,
        ) -> Result<tine::ThreadPool, tine::Error> {
            builder.build_with(|start| start_thread(start, &mut names))
        }

        fn build_global(self, builder: tine::Builder, mut names: Names) -> Result<(), tine::Error> {
            builder.build_global_with(|start| start_thread(start, &mut names))
        }
    }

    impl<F> ThreadSpawn for CustomSpawn<F>
    where
        F: FnMut(crate::ThreadBuilder) -> std::io::Result<()>,
    {
        fn build(
            mut self,
            builder: tine::Builder,
            mut names: Names,
        ) -> Result<tine::ThreadPool, tine::Error> {
            builder.build_with(|start| {
                let name = names.as_mut().map(|name| name(start.index()));
                (self.0)(crate::ThreadBuilder { start, name })
            })
        }

        fn build_global(self, builder: tine::Builder, names: Names) -> Result<(), tine::Error> {
            self.build(builder, names)?.set_as_global()
        }
    }
}

use spawn::{CustomSpawn, DefaultSpawn, ThreadSpawn};

/// Configures and builds a [`ThreadPool`], or the global pool.
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("solver-{i}"))
///     .build()
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("solver-"));
/// ```
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    num_threads: usize,
    use_current_thread: bool,
    panic_handler: Option<Box<PanicHandler>>,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    start_handler: Option<Box<ThreadHandler>>,
    exit_handler: Option<Box<ThreadHandler>>,
    spawn_handler: S,
    breadth_first: bool,
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            num_threads: 0,
            use_current_thread: false,
            panic_handler: None,
            thread_name: None,
            stack_size: None,
            start_handler: None,
            exit_handler: None,
            spawn_handler: DefaultSpawn,
            breadth_first: false,
        }
    }
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("use_current_thread", &self.use_current_thread)
            .field("stack_size", &self.stack_size)
            .field("breadth_first", &self.breadth_first)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    /// A builder with every setting at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a pool whose threads `wrapper` runs (each gets a
    /// [`ThreadBuilder`] to `run`) on scoped threads, calls `with_pool`
    /// with it, and returns once the pool is dropped and its threads have
    /// ended.
    ///
    /// ```
    /// let sum = rayon_core::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(|thread| thread.run(), |pool| pool.install(|| 1 + 1))
    ///     .unwrap();
    /// assert_eq!(sum, 2);
    /// ```
    ///
    /// # Errors
    /// As [`ThreadPoolBuilder::build`].
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        builder = builder.stack_size(size);
                    }
                    builder.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        })
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the pool.
    ///
    /// # Errors
    /// If the OS (or the spawn handler) fails to start a thread, or
    /// `use_current_thread` is asked on a thread that is already a pool's.
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let (builder, spawn, names) = self.into_tine();
        let pool = spawn
            .build(builder, names)
            .map_err(ThreadPoolBuildError::from_tine)?;
        Ok(ThreadPool::from_tine(pool))
    }

    /// Builds the pool and makes it the global one, which calls from
    /// outside every pool use.
    ///
    /// # Errors
    /// "The global thread pool has already been initialized." if it was
    /// (built, or made by a call), else as [`ThreadPoolBuilder::build`].
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let (builder, spawn, names) = self.into_tine();
        spawn
            .build_global(builder, names)
            .map_err(ThreadPoolBuildError::from_tine)
    }

    /// tine's builder with these settings, the way to start threads and
    /// their names: rayon's model (the pool's own threads run every call;
    /// unnamed threads but for `thread_name`'s; a drop that returns at
    /// once; an unhandled panic in a spawned job aborts with rayon's
    /// message).
    fn into_tine(self) -> (tine::Builder, S, spawn::Names) {
        let threads = match self.num_threads {
            0 => default_threads(),
            n => n,
        }
        .min(crate::max_num_threads());
        let mut builder = tine::ThreadPool::builder()
            .threads(threads)
            .name("")
            .caller_runs(false)
            .detach_on_drop();
        if self.use_current_thread {
            builder = builder.use_current_thread();
        }
        if self.breadth_first {
            builder = builder.spawn_order(tine::SpawnOrder::OldestFirst);
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
        builder = match self.panic_handler {
            Some(handler) => builder.panic_handler(handler),
            None => builder.panic_handler(abort_on_panic),
        };
        (builder, self.spawn_handler, self.thread_name)
    }
}

/// What rayon does with a spawned job's panic when the pool has no
/// handler (`unwind.rs`'s `AbortIfPanic`): says so, and aborts.
fn abort_on_panic(_payload: Box<dyn std::any::Any + Send>) {
    eprintln!("Rayon: detected unexpected panic; aborting");
    std::process::abort();
}

/// The global pool as the free functions build it on first use, from
/// outside every pool: rayon's defaults.
pub(crate) fn default_global() -> tine::Builder {
    ThreadPoolBuilder::new().into_tine().0
}

/// `RAYON_NUM_THREADS` if positive, else `RAYON_RS_NUM_CPUS` (deprecated)
/// if it is unset and that is positive, else one thread per CPU.
fn default_threads() -> usize {
    let var = |name| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
    };
    let cpus = || std::thread::available_parallelism().map_or(1, |n| n.get());
    match var("RAYON_NUM_THREADS") {
        Some(n) if n > 0 => n,
        Some(_) => cpus(),
        None => var("RAYON_RS_NUM_CPUS")
            .filter(|&n| n > 0)
            .unwrap_or_else(cpus),
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts the pool's threads with `spawn`, which must call
    /// [`ThreadBuilder::run`] on a new thread.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         std::thread::spawn(|| thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            num_threads: self.num_threads,
            use_current_thread: self.use_current_thread,
            panic_handler: self.panic_handler,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            spawn_handler: CustomSpawn(spawn),
            breadth_first: self.breadth_first,
        }
    }

    /// The number of threads; 0 (the default) asks `RAYON_NUM_THREADS`,
    /// else one per CPU.
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Makes the building thread the pool's thread 0: until the pool
    /// drops, `current_thread_index()` is `Some(0)` on it and free calls
    /// (`join`, `scope`) go to this pool; it runs the pool's work inside
    /// them, while the other threads serve the pool's other callers.
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// Names thread `index` `closure(index)`.
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(closure));
        self
    }

    /// The threads' stack size in bytes.
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.stack_size = Some(stack_size);
        self
    }

    /// Makes each thread run the jobs spawned on it (by `spawn` on a pool
    /// thread, or `Scope::spawn`) oldest first, rather than newest first:
    /// deprecated in rayon, and still honoured there.
    #[deprecated(note = "use a FIFO scope or spawn_fifo for breadth-first order")]
    pub fn breadth_first(mut self) -> Self {
        self.breadth_first = true;
        self
    }

    /// A panic in a spawned job calls `panic_handler` with the payload;
    /// without one, the process aborts.
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Self
    where
        H: Fn(Box<dyn std::any::Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Box::new(panic_handler));
        self
    }

    /// Each thread calls `start_handler` with its index as it starts.
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Box::new(start_handler));
        self
    }

    /// Each thread calls `exit_handler` with its index as it exits.
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Box::new(exit_handler));
        self
    }
}
