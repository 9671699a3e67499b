//! Starting a pool's threads: the team and nest a pool is assembled from,
//! the threads' names and handlers, and [`Builder::build_with`], which
//! hands each thread to a caller's spawn function (rayon's
//! `spawn_handler`) instead of starting it here.

use super::Builder;
use crate::error::Error;
use crate::nest::Nest;
use crate::pool::relief::Relief;
use crate::pool::ThreadPool;
use crate::schedule::Partials;
use crate::team::{Slots, Team};
use crate::threads::{spawn_worker_thread, thread_name, WorkerHandler, WorkerSetup};
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
        // `Slots::Spawned`: every worker slot is taken here, so `run_worker`
        // cannot be called on a pool's team.
        let waiter = Waiter::new(self.wait_policy, self.threads);
        let mut team = Team::build(self.threads, Slots::Spawned, waiter)?;
        team.set_busy_wait(self.busy_wait);
        let mut nest = Nest::new(self.threads, waiter);
        nest.set_busy_wait(self.busy_wait);
        nest.set_call_patience(self.call_patience);
        nest.set_panic_handler(self.panic_handler.clone());
        nest.hand_over_always = !self.caller_runs;
        // A one-thread team has no other thread to leave the jobs to.
        nest.server_runs_jobs = self.server_runs_jobs || self.threads == 1;
        if !self.caller_runs {
            // Counted out by the pool's drop.
            super::super::entry::count_handing_over(true);
        }
        Ok(ThreadPool {
            team: Arc::new(team),
            workers: Vec::with_capacity(workers),
            server: None,
            hand_over: !self.caller_runs,
            partials: Partials::new(self.threads),
            nest: Arc::new(nest),
            #[cfg(feature = "numa")]
            caller_pin: None,
        })
    }

    /// Starts the serving thread of `pool` here (`pool/serve.rs`).
    pub(super) fn start_serving(&self, pool: &ThreadPool) -> Result<JoinHandle<()>, Error> {
        let (name, on_start, on_exit) = self.serving_thread();
        super::super::serve::start(
            name,
            self.stack_size,
            &pool.team,
            &pool.nest,
            on_start,
            on_exit,
        )
    }

    /// The serving thread's name and handlers: it is thread 0, named and
    /// handled as the workers are, only where callers hand over.
    pub(super) fn serving_thread(&self) -> (String, Option<WorkerHandler>, Option<WorkerHandler>) {
        if self.caller_runs {
            (thread_name(&self.name, 0), None, None)
        } else {
            (
                self.worker_name(0),
                self.on_start.clone(),
                self.on_exit.clone(),
            )
        }
    }

    /// The name of thread `index`: from [`Builder::thread_names`] (which
    /// starts at index 1, or at 0 where callers hand over), else from the
    /// pool's name.
    pub(super) fn worker_name(&self, index: usize) -> String {
        let first = usize::from(self.caller_runs);
        match index
            .checked_sub(first)
            .and_then(|at| self.thread_names.get(at))
        {
            Some(name) => name.clone(),
            None => thread_name(&self.name, index),
        }
    }

    pub(super) fn spawn_worker(
        &self,
        team: &Arc<Team>,
        index: usize,
        setup: Option<WorkerSetup>,
    ) -> Result<JoinHandle<()>, Error> {
        #[cfg(test)]
        if self.fail_spawn_at == Some(index) {
            let source = std::io::Error::new(std::io::ErrorKind::WouldBlock, "refused by the test");
            return Err(Error::Spawn { index, source });
        }
        let name = self.worker_name(index);
        // SAFETY: this is the only thread ever given `index` for this team
        // (`build` runs each index once and `run_worker` has no free slot).
        unsafe {
            spawn_worker_thread(
                name,
                self.stack_size,
                team,
                index,
                setup,
                self.on_exit.clone(),
            )
        }
    }
}

/// A thread the pool asks [`Builder::build_with`]'s spawn function to
/// start: run [`ThreadStart::run`] on a new thread, with whatever set-up
/// around it (rayon's `ThreadBuilder`).
pub struct ThreadStart {
    index: usize,
    name: String,
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

    /// The name the pool's settings give the thread.
    pub fn name(&self) -> &str {
        &self.name
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
    ///         handles.push(std::thread::Builder::new().name(thread.name().to_owned()).spawn(|| thread.run())?);
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
        let pool = self.assemble()?;
        for index in 1..self.threads {
            let team = Arc::clone(&pool.team);
            let (on_start, on_exit) = (self.on_start.clone(), self.on_exit.clone());
            let run = move || {
                if let Some(on_start) = on_start {
                    // A panicking handler must not keep the worker from its
                    // team, whose forks count on it.
                    let _ =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_start(index)));
                }
                // SAFETY: the only thread ever given `index` for this team
                // (each index is handed out once, and `run` runs once).
                unsafe { team.worker_loop(index) };
                if let Some(on_exit) = on_exit {
                    on_exit(index);
                }
            };
            let start = ThreadStart {
                index,
                name: self.worker_name(index),
                stack_size: self.stack_size,
                run: std::boxed::Box::new(run),
            };
            spawn(start).map_err(|source| Error::Spawn { index, source })?;
        }
        let mut pool = pool;
        if self.caller_runs {
            // Not one of the pool's indices: started here, as by `build`.
            pool.server = Some(self.start_serving(&pool)?);
        } else {
            let (name, on_start, on_exit) = self.serving_thread();
            let relief = Relief::new(name.clone(), self.stack_size);
            let run = super::super::serve::run(&pool.team, &pool.nest, relief, on_start, on_exit);
            let start = ThreadStart {
                index: 0,
                name,
                stack_size: self.stack_size,
                run,
            };
            spawn(start).map_err(|source| Error::Spawn { index: 0, source })?;
        }
        Ok(pool)
    }
}
