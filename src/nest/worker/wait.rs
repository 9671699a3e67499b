//! A worker's waits: for a stolen half of a join, a scope's tasks, a
//! broadcast's indices, or a call handed to another pool.
//!
//! # The rule
//!
//! A wait runs the work it may take: this thread's own jobs first, then
//! jobs other threads of the region offer, and the waiting scope's own
//! queued tasks ([`Besides::TasksOf`]); then it spins for the pool's spin
//! budget. On a thread that takes queued work ([`Worker::takes_queued`]: a
//! resident or serving thread), a wait that has spun its budget with
//! nothing of its own coming takes work queued on its pool too, as rayon's
//! waits do: a pool whose every thread waits must still take a new
//! caller's call, and the thread that waits may be the only one free. A
//! wait that ends within its spin (the usual join) takes no other caller's
//! call, so queued calls run in the queue's order. Then it parks on the
//! pool's doorbell until a ring. Nothing it waits for ends without a ring:
//!
//! - a job this region's threads run (a stolen half, a scope's task, a
//!   thread's mail) rings the doorbell after its last touch
//!   ([`Worker::run_anchored`], `inject::run`): the latch or count it sets
//!   is what the wait's `done` reads;
//! - a call handed to another pool rings this pool's doorbell once its
//!   runner has set the call's flag (`inject/call.rs`, `Wake::Bell`);
//! - work it may take rings as it comes: an offer (`Worker::offer`), a
//!   post to its mail (`broadcast.rs`), a push to the queue
//!   (`Nest::ring_injected`).
//!
//! The doorbell's handshake (`wait/doorbell.rs`) makes each ring after the
//! event reach a waiter that checked before it, so a parked wait always
//! wakes for its end, and no cycle of waits can sleep through one.

use super::Worker;
use crate::sync::{AtomicUsize, Ordering};

/// What a wait takes besides its region's own work, on a thread that takes
/// no queued work.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Besides<'a> {
    /// Nothing else: a join's wait, or one for a call handed to another
    /// pool.
    Nothing,
    /// A scope's own tasks queued on its pool (spawned from a thread with no
    /// worker of the pool), found by their owner tag, while the scope
    /// counts some queued (`scope.rs`).
    TasksOf {
        /// The scope's address, the tasks' tag (`Injector::pop_owned`).
        owner: *const (),
        /// The scope's count of its tasks still queued.
        queued: &'a AtomicUsize,
    },
}

impl Worker {
    /// Returns once `done` holds, running jobs meanwhile and answering
    /// promotion requests, then spinning and parking (see the module head).
    pub(crate) fn wait_until(&self, mut done: impl FnMut() -> bool, besides: Besides<'_>) {
        let nest = self.nest();
        let queued = self.takes_queued();
        // Relaxed: a count the scope's tasks keep (`scope.rs`); a task seen
        // queued that another thread popped meanwhile is found gone.
        let own = |queued: &AtomicUsize| queued.load(Ordering::Relaxed) != 0;
        let region = self.in_region();
        // Queued work waits until this wait has spun its whole budget with
        // nothing of its own to run: a wait that ends soon (the usual join)
        // takes no other caller's call, so calls run in the queue's order.
        let mut spun = false;
        loop {
            if done() {
                return;
            }
            self.tick();
            if let Some(job) = self.find_work() {
                // SAFETY: claimed by `find_work`.
                unsafe { self.run_anchored(job) };
                continue;
            }
            if let Besides::TasksOf { owner, queued } = besides {
                if own(queued) {
                    if let Some(job) = nest.injector.pop_owned(owner) {
                        // SAFETY: popped by this thread.
                        unsafe { self.run_injected(job) };
                        continue;
                    }
                }
            }
            if queued && spun {
                if let Some(job) = nest.injector.pop() {
                    // SAFETY: popped by this thread.
                    unsafe { self.run_injected(job) };
                    continue;
                }
            }
            if region {
                self.ask_for_work();
            }
            let mut mine = || {
                done()
                    || (region && (nest.has_offers() || self.has_mail()))
                    || matches!(besides, Besides::TasksOf { queued, .. } if own(queued))
            };
            if !spun {
                if nest.waiter().spin(&mut mine) {
                    continue;
                }
                spun = true;
                if queued && !nest.injector.is_empty() {
                    continue;
                }
            }
            let ready = || mine() || (queued && !nest.injector.is_empty());
            // The spin ran: park at once.
            let parking = nest.waiter().spinning_at_most(0);
            nest.waits().wait(&parking, ready, || {
                if region {
                    self.ask_for_work();
                }
            });
        }
    }
}
