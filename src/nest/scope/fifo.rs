//! A scope's queue of `spawn_fifo` tasks.
//!
//! It exists because a scope's FIFO tasks must run in the order they were
//! spawned whichever thread takes a turn: each spawn queues a turn on the
//! pool (`Scope::spawn_fifo`), and each turn runs the oldest task here,
//! not the one that queued it.

use super::super::job::Spawned;

/// A scope's `spawn_fifo` tasks, oldest first, linked through their
/// `next` (under the scope's lock; the tasks are in no thread's list).
pub(super) struct Fifo {
    first: *const Spawned,
    last: *const Spawned,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo {
            first: core::ptr::null(),
            last: core::ptr::null(),
        }
    }
}

// SAFETY: the tasks are `Send` (`spawn_fifo` requires it), and reached only
// under the scope's lock.
unsafe impl Send for Fifo {}

impl Fifo {
    pub(super) fn push(&mut self, job: *const Spawned) {
        // SAFETY: a new task, alive until it runs, in no other list; its
        // links are ours under the lock.
        unsafe { (*job).next.set(core::ptr::null()) };
        // SAFETY: as above, for the newest task in the queue.
        match unsafe { self.last.as_ref() } {
            Some(last) => last.next.set(job),
            None => self.first = job,
        }
        self.last = job;
    }

    pub(super) fn pop(&mut self) -> Option<*const Spawned> {
        // SAFETY: tasks in the queue are alive until run.
        let first = unsafe { self.first.as_ref() }?;
        let job = self.first;
        self.first = first.next.get();
        if self.first.is_null() {
            self.last = core::ptr::null();
        }
        Some(job)
    }
}
