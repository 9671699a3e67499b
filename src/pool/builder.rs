//! [`Builder`]: a [`ThreadPool`]'s settings, and spawning it. The settings
//! and their documented examples make it a little over ~450 lines; how the
//! threads start is in `builder/start.rs`.

mod model;
mod start;

pub use start::ThreadStart;

use super::edge::Model;
use super::ThreadPool;
use crate::error::Error;
use crate::nest::inject::spawned::PanicHandler;
use crate::nest::SpawnOrder;
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
    /// Who runs a call from outside the pool (`edge.rs`).
    model: Model,
    /// The building thread is the pool's thread 0 (rayon's model only).
    use_current_thread: bool,
    /// Which spawned job a thread runs first.
    spawn_order: SpawnOrder,
    /// The pool's drop returns at once, leaving its threads to end.
    detach_on_drop: bool,
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
            model: Model::CallerJoins,
            use_current_thread: false,
            spawn_order: SpawnOrder::NewestFirst,
            detach_on_drop: false,
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
    /// prefix cut so the whole name fits the OS limit. Default `"tine"`;
    /// an empty name leaves the threads unnamed (rayon's default), but for
    /// those [`Builder::thread_names`] names.
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

    /// In tine's model, how long a call that finds the pool busy, from a
    /// thread outside any of its tasks, waits (parked) for the pool to take
    /// it before it runs alone on its own thread instead. Default
    /// [`crate::team::DEFAULT_BUSY_WAIT`]. It also bounds (at 1 ms or more)
    /// how long detached jobs wait for a team held by a caller's region
    /// before a relief thread runs them (see
    /// [`spawn`](crate::pool::serve::spawn)); with `Duration::MAX` they
    /// wait for the region to end. A pool in rayon's model
    /// ([`Builder::caller_runs`]`(false)`) needs no bound: its threads are
    /// always there to take a call.
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

    /// Each worker calls `handler` with its thread index (`1..threads`;
    /// from 0 where the pool starts its thread 0 itself, see
    /// [`Builder::caller_runs`]) on its own thread when it starts, before it
    /// takes part in any fork: to set thread-local state, a priority,
    /// floating-point modes. The caller, thread 0, never calls it. If it
    /// panics, [`Builder::build`] fails with [`Error::Spawn`] and the pool
    /// is not made; on a pool with a [`Builder::panic_handler`], the build
    /// does not wait for it, and its panic goes to that handler (as do an
    /// exit handler's).
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
        for index in self.first_started()..self.threads {
            #[cfg(feature = "numa")]
            let setup = placement
                .as_ref()
                .and_then(|placement| placement.worker_setup(index));
            #[cfg(not(feature = "numa"))]
            let setup: Option<WorkerSetup> = None;
            // With no panic handler, the start handler is part of the
            // set-up the build waits for, so that its panic fails the
            // build; with one, it runs on the thread after the build, its
            // panic sent to the handler (rayon's rule).
            let (setup, on_start) = match (&self.on_start, &self.panic_handler) {
                (Some(on_start), None) => {
                    let on_start = Arc::clone(on_start);
                    let setup = Box::new(move || {
                        if let Some(setup) = setup {
                            setup()?;
                        }
                        on_start(index);
                        Ok(())
                    }) as WorkerSetup;
                    (Some(setup), None)
                }
                _ => (setup, self.routed(&self.on_start)),
            };
            // Dropping the pool on an error stops and joins the threads
            // started so far.
            let thread = self.spawn_thread(&pool, index, setup, on_start)?;
            pool.workers.push(thread);
        }
        if self.model == Model::CallerJoins {
            pool.server = Some(self.start_serving(&pool)?);
        }
        self.adopt_if_asked(&mut pool);
        #[cfg(feature = "numa")]
        if let Some(placement) = &placement {
            pool.caller_pin = placement.pin_caller()?;
        }
        Ok(pool)
    }
}

#[cfg(all(test, feature = "std", not(loom)))]
mod tests {
    // Unit tests of [`super::Builder`]: a spawn that fails midway stops and joins the workers already started.

    use super::*;
    use crate::pool::ThreadPool;
    use crate::sync::{AtomicUsize, Ordering};

    #[test]
    fn the_last_of_caller_runs_and_use_current_thread_wins() {
        let undone = Builder::default().use_current_thread().caller_runs(true);
        assert!(undone.model == Model::CallerJoins && !undone.use_current_thread);
        let pool = undone.threads(2).build().unwrap();
        // The builder is not adopted as thread 0: it is a caller, thread 0
        // only inside its calls.
        assert_eq!(pool.current_thread_index(), None);
        assert_eq!(pool.join(|| 1, || 2), (1, 2));
        let adopted = Builder::default().caller_runs(true).use_current_thread();
        assert!(adopted.model == Model::PoolRuns && adopted.use_current_thread);
    }

    #[test]
    fn a_spawn_failure_midway_stops_and_joins_the_started_workers() {
        let builder = Builder {
            fail_spawn_at: Some(3),
            ..Builder::default().threads(5).name("halfspawn")
        };
        match builder.build() {
            Err(Error::Spawn { index: 3, source }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::WouldBlock)
            }
            other => panic!("expected a spawn error at worker 3, got {other:?}"),
        }
        // Workers 1 and 2 had started; they must be joined, not left running.
        // A joined thread can stay listed in /proc for a moment (the kernel
        // wakes `pthread_join` before it releases the task), so look again
        // for up to a second before calling it a leak.
        #[cfg(target_os = "linux")]
        {
            let survivors = || -> std::vec::Vec<std::string::String> {
                std::fs::read_dir("/proc/self/task")
                    .unwrap()
                    .filter_map(|task| {
                        let comm = std::fs::read_to_string(task.ok()?.path().join("comm"));
                        Some(comm.ok()?).filter(|comm| comm.starts_with("halfspawn"))
                    })
                    .collect()
            };
            let mut left = survivors();
            for _ in 0..100 {
                if left.is_empty() {
                    break;
                }
                std::thread::sleep(core::time::Duration::from_millis(10));
                left = survivors();
            }
            assert!(
                left.is_empty(),
                "workers {left:?} outlived the failed spawn"
            );
        }
        // The pool built right after works: nothing was left half-started.
        let pool = ThreadPool::try_spawn(5).unwrap();
        let hits = AtomicUsize::new(0);
        pool.for_threads(|_, _| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 5);
    }
}
