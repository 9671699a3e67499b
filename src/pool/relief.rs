//! Relief threads: a pool's detached jobs run beside a region that holds
//! its team for long.
//!
//! Why they exist: only the serving thread's region runs spawned jobs, for
//! a caller's region must not wait for a detached job (`nest/inject.rs`).
//! A region that holds the team for long holds them back, and one whose
//! root waits for such a job (an `in_place_scope` called from outside the
//! pool that spawns a job and waits for its message) would wait forever.
//!
//! So when the serving thread has waited the pool's busy wait for the team
//! in vain while spawned jobs are queued, it calls [`Relief::relieve`] and
//! goes back to waiting for the team. A relief thread runs the queued
//! spawned jobs one after another, each alone (a serial worker of the
//! pool: its joins inline, as on a busy pool), and ends when none is left.
//! Not the serving thread itself: a job it ran could wait for a later one,
//! which only the serving thread would then be left to run.
//!
//! # How many
//!
//! A new relief thread starts only if none is alive, or if none of those
//! alive has finished a job since the last call: they are all blocked, or
//! in long jobs, and a job that blocks must hold up only its own thread.
//! So the count grows by at most one a busy wait, and only while jobs stay
//! queued and none finishes.
//!
//! A relief thread is not one of the pool's threads: it is started with
//! `std::thread` (not a pool's spawn handler), no start or exit handler
//! runs on it, and its jobs' calls see a pool of one thread (a free
//! `broadcast` goes to the installed or global pool). It holds the pool's
//! nest until it ends; the pool's drop waits for the jobs it runs, as for
//! every spawned job.

use crate::nest::alone::serial;
use crate::nest::inject::run_alone;
use crate::nest::Nest;
use crate::sync::{AtomicUsize, Ordering};
use crate::threads::thread_builder;
use std::string::String;
use std::sync::Arc;

/// A pool's relief threads: how they are started (the serving thread's
/// name and stack size), and their counts.
pub(crate) struct Relief {
    name: Option<String>,
    stack_size: Option<usize>,
    counts: Arc<Counts>,
    /// `counts.finished` when [`Relief::relieve`] last looked.
    finished_seen: usize,
}

/// What the relief threads tell the serving thread (hints: Relaxed).
struct Counts {
    alive: AtomicUsize,
    finished: AtomicUsize,
}

impl Relief {
    pub(crate) fn new(name: Option<String>, stack_size: Option<usize>) -> Self {
        Relief {
            name,
            stack_size,
            counts: Arc::new(Counts {
                alive: AtomicUsize::new(0),
                finished: AtomicUsize::new(0),
            }),
            finished_seen: 0,
        }
    }

    /// Spawned jobs of `nest` are queued while a region holds the team:
    /// starts a relief thread for them, unless one alive has finished a
    /// job since the last call (see "How many"). If no thread can be
    /// started, the next call tries again.
    pub(crate) fn relieve(&mut self, nest: &Arc<Nest>) {
        let finished = self.counts.finished.load(Ordering::Relaxed);
        let progress = core::mem::replace(&mut self.finished_seen, finished) != finished;
        if progress && self.counts.alive.load(Ordering::Relaxed) != 0 {
            return;
        }
        let builder = thread_builder(self.name.clone(), self.stack_size);
        let (nest, counts) = (Arc::clone(nest), Arc::clone(&self.counts));
        self.counts.alive.fetch_add(1, Ordering::Relaxed);
        let started = builder.spawn(move || {
            while let Some(job) = nest.injector.pop_spawned() {
                // SAFETY: popped by this thread, so no one else runs it.
                serial(&nest, |worker| unsafe { run_alone(job, worker) });
                counts.finished.fetch_add(1, Ordering::Relaxed);
                // The serving thread of a stopping pool waits for the last
                // spawned job to end, and a scope's wait for its task.
                nest.injector.serve_bell.ring();
                nest.ring_work();
            }
            counts.alive.fetch_sub(1, Ordering::Relaxed);
        });
        if started.is_err() {
            self.counts.alive.fetch_sub(1, Ordering::Relaxed);
        }
    }
}
