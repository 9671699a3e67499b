//! Starting a pool's threads: the team and nest a pool is assembled from,
//! the threads' names and handlers, and [`Builder::build_with`], which
//! hands each thread to a caller's spawn function (rayon's
//! `spawn_handler`) instead of starting it here.

use super::Builder;
use crate::error::Error;
use crate::nest::worker::Worker;
use crate::nest::Nest;
use crate::pool::adopted::{adopt, is_adopted};
use crate::pool::current::global_is_set;
use crate::pool::edge::Model;
use crate::pool::edge::{count_handing_over, Count};
use crate::pool::resident::thread_body;
use crate::pool::ThreadPool;
use crate::team::{Slots, Team};
use crate::threads::{spawn_pool_thread, thread_name, WorkerHandler, WorkerSetup};
use crate::wait::Waiter;
use std::string::String;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::vec::Vec;

impl Builder {
    /// The pool with its team and nest, and no thread started yet.
    pub(super) fn assemble(&self) -> Result<ThreadPool, Error> {
        if self.name.contains('\0') || self.thread_names.iter().any(|n| n.contains('\0')) {
            return Err(Error::InvalidName);
        }
        let workers = self.threads.checked_sub(1).ok_or(Error::ZeroThreads)?;
        if self.use_current_thread && (is_adopted() || Worker::with_current(|w| w.is_some())) {
            return Err(Error::CurrentThreadAlreadyInPool);
        }
        // `Slots::Spawned`: every worker slot is taken here, so `run_worker`
        // cannot be called on a pool's team.
        let waiter = Waiter::new(self.wait_policy, self.threads);
        let mut team = Team::build(self.threads, Slots::Spawned, waiter)?;
        team.set_busy_wait(self.busy_wait);
        let mut nest = Nest::new(self.threads, waiter);
        nest.set_busy_wait(self.busy_wait);
        nest.set_call_patience(self.call_patience);
        nest.set_panic_handler(self.panic_handler.clone());
        nest.set_spawn_order(self.spawn_order);
        if self.model == Model::PoolRuns {
            // Counted out by the pool's drop.
            count_handing_over(Count::In);
        }
        Ok(ThreadPool {
            team: Arc::new(team),
            workers: Vec::with_capacity(workers),
            server: None,
            model: self.model,
            detach_on_drop: self.detach_on_drop,
            adopter: None,
            nest: nest.into_arc(),
            #[cfg(feature = "numa")]
            caller_pin: None,
        })
    }

    /// The first index of the threads the pool starts itself: 1 where the
    /// caller (tine's model) or the building thread
    /// ([`Builder::use_current_thread`]) is thread 0, else 0.
    pub(super) fn first_started(&self) -> usize {
        usize::from(self.model == Model::CallerJoins || self.use_current_thread)
    }

    /// Starts the serving thread of `pool` here (`pool/serve.rs`), in
    /// tine's model: not one of the pool's indices, named as index 0 would
    /// be, with no handlers.
    pub(super) fn start_serving(&self, pool: &ThreadPool) -> Result<JoinHandle<()>, Error> {
        let name = (!self.name.is_empty()).then(|| thread_name(&self.name, 0));
        super::super::serve::start(name, self.stack_size, &pool.team, &pool.nest)
    }

    /// The name of thread `index`: from [`Builder::thread_names`] (which
    /// starts at the first index the pool starts itself), else from the
    /// pool's name (none if it is empty).
    pub(super) fn worker_name(&self, index: usize) -> Option<String> {
        match index
            .checked_sub(self.first_started())
            .and_then(|at| self.thread_names.get(at))
        {
            Some(name) => Some(name.clone()),
            None => (!self.name.is_empty()).then(|| thread_name(&self.name, index)),
        }
    }

    /// Starts thread `index` of `pool`: a worker of its team (tine's model)
    /// or a resident thread (rayon's, `pool/resident.rs`), running `setup`
    /// (the build waits for it) and then its life ([`Builder::thread_life`])
    /// with `on_start` first.
    pub(super) fn spawn_thread(
        &self,
        pool: &ThreadPool,
        index: usize,
        setup: Option<WorkerSetup>,
        on_start: Option<WorkerHandler>,
    ) -> Result<JoinHandle<()>, Error> {
        #[cfg(test)]
        if self.fail_spawn_at == Some(index) {
            let source = std::io::Error::new(std::io::ErrorKind::WouldBlock, "refused by the test");
            return Err(Error::Spawn { index, source });
        }
        let life = self.thread_life(pool, index, on_start);
        spawn_pool_thread(self.worker_name(index), self.stack_size, index, setup, life)
    }

    /// What thread `index` of `pool` runs: `on_start`, its part in the
    /// pool until the pool stops it (the worker loop of its team, or a
    /// resident thread's life), then the exit handler (its panic sent to
    /// the panic handler where the pool has one).
    pub(super) fn thread_life(
        &self,
        pool: &ThreadPool,
        index: usize,
        on_start: Option<WorkerHandler>,
    ) -> std::boxed::Box<dyn FnOnce() + Send> {
        let on_exit = self.routed(&self.on_exit);
        match self.model {
            Model::CallerJoins => {
                let team = Arc::clone(&pool.team);
                std::boxed::Box::new(move || {
                    if let Some(on_start) = on_start {
                        on_start(index);
                    }
                    // SAFETY: the only thread ever given `index` for this
                    // team: a build hands out each index once, each life
                    // runs once, and `run_worker` has no free slot.
                    unsafe { team.worker_loop(index) };
                    if let Some(on_exit) = on_exit {
                        on_exit(index);
                    }
                })
            }
            Model::PoolRuns => std::boxed::Box::new(thread_body(
                Arc::clone(&pool.team),
                Arc::clone(&pool.nest),
                index,
                on_start,
                on_exit,
            )),
        }
    }

    /// `handler`, whose panic goes to the pool's panic handler where it has
    /// one (rayon's rule for its start and exit handlers; a panicking panic
    /// handler aborts, as rayon's does).
    pub(super) fn routed(&self, handler: &Option<WorkerHandler>) -> Option<WorkerHandler> {
        let handler = handler.clone()?;
        let Some(panics) = self.panic_handler.clone() else {
            return Some(handler);
        };
        Some(Arc::new(move |index| {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(index)));
            if let Err(payload) = ran {
                let handled =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panics(payload)));
                if handled.is_err() {
                    std::process::abort();
                }
            }
        }))
    }

    /// Makes the building thread `pool`'s thread 0, if asked
    /// ([`Builder::use_current_thread`]); last in a build, once nothing
    /// can fail.
    pub(super) fn adopt_if_asked(&self, pool: &mut ThreadPool) {
        if self.use_current_thread {
            adopt(&pool.team, &pool.nest);
            pool.adopter = Some(std::thread::current().id());
        }
    }
}

/// A thread the pool asks [`Builder::build_with`]'s spawn function to
/// start: run [`ThreadStart::run`] on a new thread, with whatever set-up
/// around it (rayon's `ThreadBuilder`).
pub struct ThreadStart {
    index: usize,
    name: Option<String>,
    stack_size: Option<usize>,
    run: std::boxed::Box<dyn FnOnce() + Send>,
}

impl core::fmt::Debug for ThreadStart {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadStart")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

impl ThreadStart {
    /// The thread's index in the pool.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name the pool's settings give the thread, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size the pool's settings ask for, if any.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the thread's part in the pool until the pool stops it; call it
    /// on the new thread.
    pub fn run(self) {
        (self.run)()
    }
}

impl Builder {
    /// Builds the pool, handing each thread it needs to `spawn` rather than
    /// starting it: `spawn` must run [`ThreadStart::run`] on a new thread
    /// (a scoped one, with thread-locals set, under a runtime's spawner),
    /// and return once it has started it. rayon's `spawn_handler`. The
    /// threads are not joined by the pool's drop (it cannot: it did not
    /// start them); they return from `run` once the pool is dropped and its
    /// spawned jobs are done. NUMA pinning does not apply to them.
    ///
    /// ```
    /// let mut handles = Vec::new();
    /// let pool = tine::ThreadPool::builder()
    ///     .threads(3)
    ///     .build_with(|thread| {
    ///         let mut builder = std::thread::Builder::new();
    ///         if let Some(name) = thread.name() {
    ///             builder = builder.name(name.to_owned());
    ///         }
    ///         handles.push(builder.spawn(|| thread.run())?);
    ///         Ok(())
    ///     })?;
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// drop(pool);
    /// for handle in handles {
    ///     handle.join().unwrap();
    /// }
    /// # Ok::<(), tine::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Builder::build`]; [`Error::Spawn`] carries an error `spawn`
    /// returned. Threads started before it then return from `run`.
    pub fn build_with(
        self,
        mut spawn: impl FnMut(ThreadStart) -> std::io::Result<()>,
    ) -> Result<ThreadPool, Error> {
        let mut pool = self.assemble()?;
        // A start handler's panic must not keep the thread from its pool,
        // whose work counts on it: it goes to the panic handler, or, with
        // none, is dropped.
        let on_start = match (&self.on_start, &self.panic_handler) {
            (Some(on_start), None) => {
                let on_start = Arc::clone(on_start);
                Some(Arc::new(move |index| {
                    let _ =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_start(index)));
                }) as WorkerHandler)
            }
            _ => self.routed(&self.on_start),
        };
        for index in self.first_started()..self.threads {
            let start = ThreadStart {
                index,
                name: self.worker_name(index),
                stack_size: self.stack_size,
                run: self.thread_life(&pool, index, on_start.clone()),
            };
            spawn(start).map_err(|source| Error::Spawn { index, source })?;
        }
        if self.model == Model::CallerJoins {
            // Not one of the pool's indices: started here, as by `build`.
            pool.server = Some(self.start_serving(&pool)?);
        }
        self.adopt_if_asked(&mut pool);
        Ok(pool)
    }

    /// [`Builder::build_with`], the pool made the global one: rayon's
    /// `build_global` with a spawn handler.
    ///
    /// # Errors
    /// [`Error::GlobalPoolAlreadyInitialized`] if the global pool exists
    /// already (nothing is started then), else as [`Builder::build_with`].
    pub fn build_global_with(
        self,
        spawn: impl FnMut(ThreadStart) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        if global_is_set() {
            return Err(Error::GlobalPoolAlreadyInitialized);
        }
        self.build_with(spawn)?.set_as_global()
    }
}
