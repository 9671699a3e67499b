//! The linked zone: which of a thread's joins record their job.
//!
//! Only joins near the top of a thread's stack link their job: those whose
//! frame lies less than [`LINK_DEPTH`] bytes below where the thread's
//! current work began (its worker, for a region's root; the frame that ran
//! it, for a job taken from a slot or a list: [`Worker::run_anchored`]), or
//! above a limit that moves deeper as below. A join deeper than that runs
//! unlinked: it checks the request (one load) and then runs as the 1-thread
//! join does, `a` then `b` on this thread, with no job, no chain and no
//! flag. In a recursion nearly every join lies near the leaves, so nearly
//! every join takes that path, and a walk bound by memory keeps its loads
//! in flight without the linked joins' stores between them.
//!
//! Promotion offers the oldest linked pending job, the largest. When an
//! idle thread asks, the slot is empty and no linked join is pending, the
//! unlinked join that finds the request links itself (its `b` is offered
//! at once) and the limit moves [`LINK_STEP`] bytes deeper, so a recursion
//! whose askers keep finding nothing links more of its levels. A join that
//! opened unlinked is never offered, even if a request comes while its `a`
//! runs: its `b` runs on this thread after `a` (as a join beyond the
//! promotion's window may, `worker.rs`), so an `a` that waits for its own
//! `b` to run elsewhere can wait forever, as it would on a 1-thread pool.
//!
//! A pool in rayon's model (`Worker::eager`) treats an empty slot as a
//! request that is always outstanding ([`Worker::tick_deep_eager`]): a
//! join below the zone that finds its slot full runs unlinked (its `b`
//! would not be offered before the slot empties either way, and the
//! linked joins above hold the larger jobs); one that finds it empty
//! offers the oldest linked pending job, or links itself and offers its
//! own `b`. So such a pool still offers work at every join while a thread
//! could take it, and a recursion's deep joins cost what the 1-thread
//! join costs, plus one load.
//!
//! The stack address comes from a local's address; any answer is safe, as
//! both paths run both closures (under Miri, whose addresses need not
//! follow the stack, the choice is arbitrary, and still sound).
//!
//! # Invariants
//!
//! - `link_limit` is owner-only. It is set when the worker is entered and
//!   around each job the worker runs ([`Worker::run_anchored`], which puts
//!   the outer value back after), and otherwise only moves deeper.
//! - A join reads the limit once, when it opens; nothing else depends on
//!   it, so a limit that moves while joins are open changes nothing for
//!   them: a linked join closes as it opened, and the chain stays LIFO.

use super::super::inject;
use super::super::inject::header::Injected;
use super::super::job::{run, Header};
use super::super::stop::unwatched;
use super::{Oldest, Worker};
use crate::sync::Ordering;
use core::mem::MaybeUninit;

/// How far below where its work began (in bytes of stack) a thread's joins
/// start out unlinked (see the module head). In release builds the
/// region's own frames take about 800 bytes above the root's first join,
/// and a level of a tight recursion about 200 (192 for `fib` with a
/// `join`), so the first join or two of a region's root, and a few of a
/// stolen job's, start out linked; debug builds' larger frames link fewer.
/// A larger zone makes more joins pay for a link.
const LINK_DEPTH: usize = 1024;

/// How much deeper (in bytes of stack) joins link after a request found
/// no linked join to promote: about one level of a tight recursion.
const LINK_STEP: usize = 256;

impl Worker {
    /// Starts the zone at stack address `base`: joins less than
    /// [`LINK_DEPTH`] bytes below it link. Stacks grow down on every target
    /// this crate builds for; were one to grow up, every join would link,
    /// as before the zone existed.
    pub(super) fn anchor_zone_at(&self, base: usize) {
        self.link_limit.set(base.saturating_sub(LINK_DEPTH));
    }

    /// Whether a join whose frame is at stack address `here` lies below
    /// the linked zone (see the module head): it then runs unlinked, after
    /// [`Worker::tick_deep`].
    #[inline]
    pub(crate) fn is_deep(&self, here: usize) -> bool {
        here < self.link_limit.get()
    }

    /// An unlinked join's request check, one Relaxed load on the fast path.
    /// If an idle thread asked, promotes the oldest pending job; but if no
    /// linked join is pending and the slot is empty, moves the zone one
    /// step deeper and returns true: the join links itself instead, and its
    /// own request check then promotes it.
    #[inline]
    pub(crate) fn tick_deep(&self) -> bool {
        self.slot().wanted.load(Ordering::Relaxed) && self.promote_or_link()
    }

    /// [`Worker::tick_deep`] for a pool in rayon's model, where an empty
    /// slot counts as a request always outstanding: with the slot full, one
    /// Relaxed load, and the join runs unlinked; with it empty, the oldest
    /// linked pending job is offered, or (none pending) the join links
    /// itself and offers its own `b`, moving the zone deeper.
    #[inline]
    pub(crate) fn tick_deep_eager(&self) -> bool {
        self.slot().is_empty() && self.promote_or_link()
    }

    #[cold]
    fn promote_or_link(&self) -> bool {
        let slot = self.slot();
        if !slot.is_empty() {
            // A job already waits in the slot: the asker can take that one
            // (and re-asks before it parks, see `region.rs`). Clearing the
            // request spares the next joins this cold path.
            slot.wanted.store(false, Ordering::Relaxed);
            return false;
        }
        match self.oldest_pending() {
            Some(job) => {
                self.answer(Oldest::Join(job));
                false
            }
            None => {
                let limit = self.link_limit.get();
                self.link_limit.set(limit.saturating_sub(LINK_STEP));
                true
            }
        }
    }

    /// Runs `job`, which this thread claimed, with the linked zone
    /// anchored at this frame: the job's outermost joins link as a region
    /// root's do, however deep the wait that runs it. The zone of the
    /// frames outside comes back after (a job never unwinds).
    ///
    /// # Safety
    /// As [`run`].
    pub(crate) unsafe fn run_anchored(&self, job: *const Header) {
        let here = MaybeUninit::<u8>::uninit();
        let outside = self.link_limit.get();
        self.anchor_zone_at(here.as_ptr() as usize);
        // Another call's work: not under this thread's stop test.
        // SAFETY: as this function's.
        unwatched(|| unsafe { run(job) });
        self.link_limit.set(outside);
        // The job's latch or count is set: a wait parked for it wakes
        // (`worker/wait.rs`). One load while none is parked.
        self.nest().ring_done();
    }

    /// Runs a job popped from the injector, as [`Worker::run_anchored`]
    /// runs a claimed one.
    ///
    /// # Safety
    /// As [`inject::run`].
    pub(crate) unsafe fn run_injected(&self, job: *const Injected) {
        let here = MaybeUninit::<u8>::uninit();
        let outside = self.link_limit.get();
        self.anchor_zone_at(here.as_ptr() as usize);
        // Another call's work: not under this thread's stop test.
        // SAFETY: as this function's.
        unwatched(|| unsafe { inject::run(job, self) });
        self.link_limit.set(outside);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::super::inject::call::{CallJob, Wake};
    use super::super::super::inject::links::End;
    use super::super::super::job::StackJob;
    use super::super::super::stop::{stopped, watching};
    use super::super::super::Nest;
    use super::super::Role;
    use super::Worker;
    use crate::wait::{WaitPolicy, Waiter};

    /// A job this thread runs for others (a stolen share of another call,
    /// a queued call) does not see the stop test of the block it runs
    /// inside; the test is back after it.
    #[test]
    fn a_job_run_for_others_is_not_under_the_stop_test() {
        let nest = Nest::new(1, Waiter::new(WaitPolicy::AlwaysPark, 1));
        let worker = Worker::new(&nest, 0, Role::Alone);
        let job = StackJob::new(|_| stopped());
        watching(&|| true, || {
            assert!(stopped());
            // SAFETY: never published, so this thread alone runs it; alive
            // in this frame.
            unsafe { worker.run_anchored(job.header()) };
            assert!(stopped(), "the test is back after the job");
        });
        // SAFETY: the job ran above, on this thread; read once.
        let saw = unsafe { job.take_result() }.expect("no panic");
        assert!(!saw, "the job ran under the stop test");

        // A queued call, popped from the injector, likewise.
        let call = CallJob::new(|_: &Worker| stopped(), Wake::this_thread());
        // SAFETY: alive in this frame until it is done.
        unsafe { nest.injector.push(call.header(), End::Back) };
        let popped = nest.injector.pop().expect("the call is queued");
        watching(&|| true, || {
            // SAFETY: popped by this thread above; alive.
            unsafe { worker.run_injected(popped) };
            assert!(stopped(), "the test is back after the call");
        });
        assert!(call.is_done());
        // SAFETY: done, on this thread; read once.
        let saw = unsafe { call.take_result() }.expect("no panic");
        assert!(!saw, "the queued call ran under the stop test");
    }
}
