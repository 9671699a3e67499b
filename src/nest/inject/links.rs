//! The ends of an intrusive doubly linked list of injected jobs ([`Ends`]),
//! and how a job is linked into one and unlinked: written once for the
//! injector's two lists, the queue (`inject.rs`) and its calls in their own
//! list (`order.rs`), each through its own pair of link cells ([`Links`]).

use super::header::Injected;
use core::cell::Cell;
use core::ptr;

/// A list's pair of link cells in a job: its `prev` and `next`.
pub(super) type Links = fn(&Injected) -> (&Cell<*const Injected>, &Cell<*const Injected>);

/// A list's first and last jobs, or null. Every job in the list is alive,
/// and the list is changed only under the injector's lock.
pub(super) struct Ends {
    pub(super) first: *const Injected,
    pub(super) last: *const Injected,
}

/// Which end of the queue a job joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// In front: it runs next.
    Front,
    /// At the back: it runs after every job queued before it.
    Back,
}

// SAFETY: the jobs are `Send` (their constructors require it), and an
// `Ends` is reached only under its owner's lock.
unsafe impl Send for Ends {}

impl Ends {
    pub(super) const fn new() -> Self {
        Ends {
            first: ptr::null(),
            last: ptr::null(),
        }
    }

    /// Links `job` at `end`, through `links`.
    ///
    /// # Safety
    /// `job` is alive and not in this list; under the lock.
    pub(super) unsafe fn push(&mut self, job: *const Injected, end: End, links: Links) {
        // SAFETY: alive by the contract.
        let (prev, next) = links(unsafe { &*job });
        if end == End::Front {
            prev.set(ptr::null());
            next.set(self.first);
            // SAFETY: jobs in the list are alive.
            match unsafe { self.first.as_ref() } {
                Some(first) => links(first).0.set(job),
                None => self.last = job,
            }
            self.first = job;
        } else {
            next.set(ptr::null());
            prev.set(self.last);
            // SAFETY: as above.
            match unsafe { self.last.as_ref() } {
                Some(last) => links(last).1.set(job),
                None => self.first = job,
            }
            self.last = job;
        }
    }

    /// Unlinks `job`, through `links`.
    ///
    /// # Safety
    /// `job` is in this list (so alive); under the lock.
    pub(super) unsafe fn unlink(&mut self, job: *const Injected, links: Links) {
        // SAFETY: in the list, so alive.
        let (prev, next) = links(unsafe { &*job });
        let (prev, next) = (prev.get(), next.get());
        // SAFETY: jobs in the list are alive.
        match unsafe { prev.as_ref() } {
            Some(prev) => links(prev).1.set(next),
            None => self.first = next,
        }
        // SAFETY: as above.
        match unsafe { next.as_ref() } {
            Some(next) => links(next).0.set(prev),
            None => self.last = prev,
        }
    }
}
