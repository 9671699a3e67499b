//! The header every injected job starts with ([`Injected`]): how the
//! queue runs it, its links in the queue and in the calls' list, and what
//! kind of job it is. The queue and its protocol are the parent module's
//! (`inject.rs`).

use super::super::worker::Worker;
use core::cell::Cell;
use core::ptr;
use std::time::Instant;

/// What an injected job is, for the order of the queue.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A blocked caller's call (`call.rs`).
    Call,
    /// A poll of a task (`task.rs`): spawned, but ordered as calls are,
    /// for it too brings its caller's data.
    Task,
    /// Anything else spawned: a detached job, a FIFO turn, a scope's
    /// closure.
    Spawned,
}

/// What every injected job starts with (`repr(C)`: a job's address is its
/// header's).
#[repr(C)]
pub(crate) struct Injected {
    /// Runs the job with the runner's worker; never unwinds.
    pub(super) execute: unsafe fn(*const Injected, &Worker),
    /// Links in the queue (under the lock, while linked).
    pub(super) prev: Cell<*const Injected>,
    pub(super) next: Cell<*const Injected>,
    /// Whether the job is linked (under the lock).
    pub(super) linked: Cell<bool>,
    /// A call, or not (a detached job, a FIFO turn or a scope's task,
    /// which a relief thread may also run); calls run in the order
    /// `order.rs` picks.
    pub(super) kind: Kind,
    /// A call's links in the list of queued calls (`order.rs`; under the
    /// lock, while linked).
    pub(super) call_prev: Cell<*const Injected>,
    pub(super) call_next: Cell<*const Injected>,
    /// When a call was queued (`order.rs`; under the lock).
    pub(super) queued_at: Cell<Option<Instant>>,
    /// The scope a queued scope task belongs to (`scoped.rs`), which its
    /// scope's wait looks for ([`Injector::pop_owned`]); null for others.
    pub(super) owner: *const (),
}

impl Injected {
    pub(super) fn new(execute: unsafe fn(*const Injected, &Worker), kind: Kind) -> Self {
        Injected::owned(execute, kind, ptr::null())
    }

    /// Whether the job is a call (not spawned).
    pub(super) fn is_call(&self) -> bool {
        self.kind == Kind::Call
    }

    /// Whether the job runs in the order of calls (`order.rs`): a call or
    /// a task.
    pub(super) fn is_ordered(&self) -> bool {
        self.kind != Kind::Spawned
    }

    pub(super) fn owned(
        execute: unsafe fn(*const Injected, &Worker),
        kind: Kind,
        owner: *const (),
    ) -> Self {
        Injected {
            owner,
            execute,
            prev: Cell::new(ptr::null()),
            next: Cell::new(ptr::null()),
            linked: Cell::new(false),
            kind,
            call_prev: Cell::new(ptr::null()),
            call_next: Cell::new(ptr::null()),
            queued_at: Cell::new(None),
        }
    }
}
