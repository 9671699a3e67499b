//! [`Builder`]: a [`ThreadPool`]'s settings, and spawning it. The settings
//! and their documented examples make it a little over ~450 lines; how the
//! threads start is in `builder/start.rs`.

mod start;

pub use start::ThreadStart;

use super::ThreadPool;
use crate::error::Error;
use crate::nest::inject::spawned::PanicHandler;
use crate::threads::{WorkerHandler, WorkerSetup};
use crate::wait::WaitPolicy;
use std::boxed::Box;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

/// Configures a [`ThreadPool`] before spawning it.
///
/// ```
/// let pool = tine::ThreadPool::builder()
///     .threads(3)
///     .name("solver")
///     .stack_size(1 << 20)
///     .build()?;
/// assert_eq!(pool.threads(), 3);
/// # Ok::<(), tine::Error>(())
/// ```
#[derive(Clone)]
pub struct Builder {
    threads: usize,
    name: String,
    /// Whole names of workers `1..`, in order, from
    /// [`Builder::thread_names`]; workers past its end use `name`.
    thread_names: Vec<String>,
    stack_size: Option<usize>,
    wait_policy: WaitPolicy,
    busy_wait: core::time::Duration,
    /// `None`: scaled by the calls' run time (`nest/inject/order.rs`).
    call_patience: Option<core::time::Duration>,
    #[cfg(feature = "numa")]
    pin: Option<(crate::numa::Topology, crate::numa::Pin)>,
    #[cfg(feature = "numa")]
    strict_pinning: bool,
    #[cfg(feature = "numa")]
    pin_caller: bool,
    /// Called by each worker with its index as it starts, and as it
    /// exits.
    on_start: Option<WorkerHandler>,
    on_exit: Option<WorkerHandler>,
    /// Where spawned jobs' panics go.
    panic_handler: Option<Arc<PanicHandler>>,
    /// Whether callers run their calls as thread 0 (false: rayon's model).
    caller_runs: bool,
    /// Whether the serving thread runs queued jobs itself.
    server_runs_jobs: bool,
    #[cfg(test)]
    fail_spawn_at: Option<usize>,
}

impl core::fmt::Debug for Builder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Builder")
            .field("threads", &self.threads)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .field("wait_policy", &self.wait_policy)
            .field("busy_wait", &self.busy_wait)
            .field("call_patience", &self.call_patience)
            .field("on_start", &self.on_start.is_some())
            .field("on_exit", &self.on_exit.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            name: String::from("tine"),
            thread_names: Vec::new(),
            stack_size: None,
            wait_policy: WaitPolicy::Adaptive,
            busy_wait: crate::team::DEFAULT_BUSY_WAIT,
            call_patience: None,
            #[cfg(feature = "numa")]
            pin: None,
            #[cfg(feature = "numa")]
            strict_pinning: true,
            #[cfg(feature = "numa")]
            pin_caller: false,
            on_start: None,
            on_exit: None,
            panic_handler: None,
            caller_runs: true,
            server_runs_jobs: true,
            #[cfg(test)]
            fail_spawn_at: None,
        }
    }
}

impl Builder {
    /// Threads in the pool, counting the caller. Default: the CPUs this
    /// process may use (`available_parallelism`).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The worker names' prefix: workers are named `{name}:{index}`, the
    /// prefix cut so the whole name fits the OS limit. Default `"tine"`.
    pub fn name(mut self, name: &str) -> Self {
        self.name = String::from(name);
        self
    }

    /// Whole names for the workers, in order (worker 1 first; thread 0,
    /// the serving thread, first where [`Builder::caller_runs`] is false): rayon's
    /// `thread_name` calls a closure per index, which
    /// [`crate::compat::ThreadPoolBuilder`] turns into this list. Workers past the
    /// list's end are named by [`name`](Self::name)'s rule. A name longer
    /// than the OS keeps is cut by the OS.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder()
    ///     .threads(2)
    ///     .thread_names(vec!["solver-1".to_string()])
    ///     .build()?;
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn thread_names(mut self, names: Vec<String>) -> Self {
        self.thread_names = names;
        self
    }

    /// The workers' stack size in bytes. Default: std's.
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// How idle workers (and the caller, in the join) wait. Default:
    /// [`WaitPolicy::Adaptive`].
    pub fn wait_policy(mut self, policy: WaitPolicy) -> Self {
        self.wait_policy = policy;
        self
    }

    /// Spin for `spin` after each fork, then park: shorthand for
    /// [`WaitPolicy::SpinThenPark`].
    pub fn spin_budget(mut self, spin: core::time::Duration) -> Self {
        self.wait_policy = WaitPolicy::SpinThenPark(spin);
        self
    }

    /// How long a call that finds the pool busy, from a thread outside any
    /// of its tasks, waits (parked) for the fork in flight before it runs
    /// inline on its own thread instead. Default [`crate::team::DEFAULT_BUSY_WAIT`].
    /// It also bounds (at 1 ms or more) how long detached jobs wait for a
    /// team held by a region before a relief thread runs them (see
    /// [`spawn`](crate::pool::serve::spawn)); with `Duration::MAX` they
    /// wait for the region to end.
    ///
    /// The wait must be bounded: a task may spawn a helper thread and join
    /// it, and a helper that calls the same pool cannot be told apart from
    /// an independent caller. Raise it (even to `Duration::MAX`, which waits
    /// for as long as it takes) only if no task ever does that; lower it to
    /// favour latency over running every call on the workers.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let pool = tine::ThreadPool::builder().threads(2).busy_wait(Duration::from_secs(1)).build()?;
    /// # drop(pool);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn busy_wait(mut self, limit: core::time::Duration) -> Self {
        self.busy_wait = limit;
        self
    }

    /// How long a call handed over to the busy pool may wait while newer
    /// calls run first. Calls that many threads hand over at once run
    /// newest first, whose callers ran last and whose data is likeliest
    /// still in the cache, until the oldest has waited its patience; it
    /// runs next (and a spawned job queued behind a call waits as long).
    /// By default the patience is 16 times the mean run time of the pool's
    /// recent calls: calls of microseconds run in nearly the order they
    /// came, and a server whose callers' data together outgrow the cache
    /// serves more requests, for a tail of latency of some 16 calls' time.
    /// This sets a fixed patience instead; zero runs calls in the order
    /// they came. Either is capped at a quarter of [`Builder::busy_wait`],
    /// past which a caller stops waiting and runs its call itself.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// // The shortest tail: calls in the order they came.
    /// let pool = tine::ThreadPool::builder().call_patience(Duration::ZERO).build()?;
    /// # drop(pool);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn call_patience(mut self, patience: core::time::Duration) -> Self {
        self.call_patience = Some(patience);
        self
    }

    /// Pins the workers as `pin` says, on `topology` (feature `numa`). Each
    /// worker binds itself before it joins the team. The caller's thread,
    /// thread 0, is left alone unless [`Builder::pin_caller`] asks.
    ///
    /// ```
    /// use tine::numa::{Pin, Topology};
    ///
    /// let topology = Topology::discover()?;
    /// let pool = tine::ThreadPool::builder()
    ///     .threads(topology.cores().min(4))
    ///     .pin(&topology, Pin::Cores)
    ///     .build()?;
    /// pool.for_threads(|_, _| {});
    /// # Ok::<(), tine::Error>(())
    /// ```
    #[cfg(feature = "numa")]
    pub fn pin(mut self, topology: &crate::numa::Topology, pin: crate::numa::Pin) -> Self {
        self.pin = Some((topology.clone(), pin));
        self
    }

    /// Whether pinning is strict. Strict (`true`, the default) refuses to
    /// put two threads on one CPU: more threads than CPUs fails with
    /// [`Error::NotEnoughCpus`]. `false` lets threads wrap round-robin.
    #[cfg(feature = "numa")]
    pub fn strict_pinning(mut self, strict: bool) -> Self {
        self.strict_pinning = strict;
        self
    }

    /// Whether to pin the thread that builds the pool (thread 0) too.
    /// Default `false`. If set, dropping the pool gives that thread back
    /// the affinity it had, whichever thread drops it.
    #[cfg(feature = "numa")]
    pub fn pin_caller(mut self, pin_caller: bool) -> Self {
        self.pin_caller = pin_caller;
        self
    }

    /// Each worker calls `handler` with its thread index (`1..threads`)
    /// on its own thread when it starts, before it takes part in any fork:
    /// to set thread-local state, a priority, floating-point modes. The
    /// caller, thread 0, never calls it. If it panics, [`Builder::build`]
    /// fails with [`Error::Spawn`] and the pool is not made.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let seen = Arc::clone(&started);
    /// let pool = tine::ThreadPool::builder()
    ///     .threads(3)
    ///     .on_start(move |_index| {
    ///         seen.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .build()?;
    /// assert_eq!(started.load(Ordering::Relaxed), 2); // workers 1 and 2
    /// # drop(pool);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn on_start(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.on_start = Some(Arc::new(handler));
        self
    }

    /// Each worker calls `handler` with its thread index on its own thread
    /// as it exits, after the pool has stopped it (when the pool is
    /// dropped, whose drop waits for every worker, handler included).
    pub fn on_exit(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.on_exit = Some(Arc::new(handler));
        self
    }

    /// A panic in a job given to [`spawn`](crate::pool::serve::spawn) (or
    /// [`ThreadPool::spawn`]) on this pool calls `handler` with the payload,
    /// on the thread that ran the job; the pool goes on. Without a handler
    /// such a panic aborts the process, as rayon's does: a detached job has
    /// no caller to resume on. A panic in the handler aborts too. Panics in
    /// `join`, `scope` and parallel iterators are not its: they resume on
    /// the caller.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    ///
    /// let (sender, receiver) = channel();
    /// let sender = std::sync::Mutex::new(sender);
    /// let pool = tine::ThreadPool::builder()
    ///     .threads(2)
    ///     .panic_handler(move |payload| {
    ///         let message = payload.downcast_ref::<&str>().copied().unwrap_or("?");
    ///         sender.lock().unwrap().send(message.to_owned()).unwrap();
    ///     })
    ///     .build()?;
    /// pool.spawn(|| panic!("lost job"));
    /// assert_eq!(receiver.recv().unwrap(), "lost job");
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn panic_handler(
        mut self,
        handler: impl Fn(Box<dyn core::any::Any + Send>) + Send + Sync + 'static,
    ) -> Self {
        self.panic_handler = Some(Arc::new(handler));
        self
    }

    /// Whether a call from a thread outside the pool runs on its caller,
    /// as thread 0 of the team (true, the default: tine's model, with no
    /// hand-off on the way in or out), or goes to the pool's own threads
    /// while its caller blocks (false: rayon's model). With `false`, every
    /// closure of a call runs on a thread the pool started, as rayon
    /// promises: thread-local state, names and handlers are the pool's.
    /// Thread 0 is then the pool's serving thread, which takes the team for
    /// such calls: it is named as a worker of index 0 would be
    /// (`{name}:0`, or the first of [`Builder::thread_names`]), and
    /// [`Builder::on_start`] and [`Builder::on_exit`] run on it too. Each
    /// such call pays a hand-off (a wake-up, when the pool was idle); calls
    /// made on the pool's threads, the joins and splits inside, do not.
    /// After a call or a spawned job, the team stays ready for the next
    /// for the spin budget while work comes at shorter intervals than
    /// that, and for less (down to 20 µs, the team then parking at once)
    /// while it comes rarer: a pool fed a job now and then does not spin
    /// after each.
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).name("own").caller_runs(false).build()?;
    /// let name = || std::thread::current().name().map(str::to_owned);
    /// let (a, b) = pool.join(name, name);
    /// // Both on the pool's threads (`own:0` or `own:1`), never the caller's.
    /// assert!(a.is_some_and(|a| a.starts_with("own:")));
    /// assert!(b.is_some_and(|b| b.starts_with("own:")));
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn caller_runs(mut self, caller_runs: bool) -> Self {
        self.caller_runs = caller_runs;
        self
    }

    /// Whether the pool's serving thread runs the queued calls and
    /// spawned jobs itself (true, the default), or only takes the team for
    /// them and leaves them to the workers (false), so that every such job
    /// runs on a worker, index 1 or above: for a pool whose thread 0 is
    /// meant to be a thread of the program's own (rayon's
    /// `use_current_thread`). A pool of one thread has no worker to leave
    /// them to: its serving thread runs them whatever this says. Detached
    /// jobs queued while a region holds the team past the busy wait run on
    /// a relief thread (see [`spawn`](crate::pool::serve::spawn)).
    ///
    /// ```
    /// let pool = tine::ThreadPool::builder().threads(2).serving_thread_runs_jobs(false).build()?;
    /// let (send, receive) = std::sync::mpsc::channel();
    /// pool.spawn(move || send.send(tine::fork_thread_index()).unwrap());
    /// assert_eq!(receive.recv().unwrap(), Some(1));
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn serving_thread_runs_jobs(mut self, runs: bool) -> Self {
        self.server_runs_jobs = runs;
        self
    }

    /// Spawns the pool and makes it the global one ([`global`]), which
    /// calls from outside every pool use; otherwise the global pool is
    /// spawned with the default settings on first use.
    ///
    /// # Errors
    /// [`Error::GlobalPoolAlreadyInitialized`] if the global pool exists
    /// already (built, or spawned by a call), else as [`Builder::build`].
    ///
    /// [`global`]: crate::pool::current::global
    pub fn build_global(self) -> Result<(), Error> {
        if super::current::global_is_set() {
            return Err(Error::GlobalPoolAlreadyInitialized);
        }
        if super::current::set_global(self.build()?) {
            Ok(())
        } else {
            // Another thread set it between the check and now.
            Err(Error::GlobalPoolAlreadyInitialized)
        }
    }

    /// Spawns the pool.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`], [`Error::InvalidName`], or [`Error::Spawn`] if
    /// the OS refuses a thread; workers already started are then stopped and
    /// joined before this returns. With pinning (feature `numa`), also the
    /// errors of `numa::Topology::plan`, and `Error::Hwloc` if a thread
    /// cannot be bound.
    pub fn build(self) -> Result<ThreadPool, Error> {
        let mut pool = self.assemble()?;
        #[cfg(feature = "numa")]
        let placement = match &self.pin {
            Some((topology, pin)) => Some(crate::numa::Placement::new(
                topology,
                *pin,
                self.threads,
                self.strict_pinning,
                self.pin_caller,
            )?),
            None => None,
        };
        for index in 1..self.threads {
            #[cfg(feature = "numa")]
            let setup = placement
                .as_ref()
                .and_then(|placement| placement.worker_setup(index));
            #[cfg(not(feature = "numa"))]
            let setup: Option<WorkerSetup> = None;
            let setup = match (&self.on_start, setup) {
                (None, setup) => setup,
                (Some(on_start), setup) => {
                    let on_start = Arc::clone(on_start);
                    Some(Box::new(move || {
                        if let Some(setup) = setup {
                            setup()?;
                        }
                        on_start(index);
                        Ok(())
                    }) as WorkerSetup)
                }
            };
            // Dropping the pool on an error stops and joins the workers
            // started so far.
            pool.workers
                .push(self.spawn_worker(&pool.team, index, setup)?);
        }
        pool.server = Some(self.start_serving(&pool)?);
        #[cfg(feature = "numa")]
        if let Some(placement) = &placement {
            pool.caller_pin = placement.pin_caller()?;
        }
        Ok(pool)
    }
}

#[cfg(all(test, feature = "std", not(loom)))]
mod tests;
