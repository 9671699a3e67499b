//! How a region's idle threads pace their looks for work ([`Looks`]): the
//! idle loop (`region.rs`) and the serving thread's (`pool/serve.rs`).
//!
//! A look reads every thread's offer slot, a line that a working thread
//! writes at each join it offers, and a resident worker (rayon's model)
//! offers every join. A thread that looks at every micro-yield pulls the
//! line away between two joins, and each of the owner's next joins waits
//! for it to come back: a loop of empty joins then runs at the speed of
//! cache-line transfers, not of the joins. A look that finds a job is
//! worse when the job is tiny: the owner's take-back fails, and it waits
//! for the job's latch from the other core, a few transfers for a job of
//! nanoseconds. (BENCHMARKS.md, "The real rayon on tine's core", has the
//! empty joins' row.)
//!
//! # The rule
//!
//! - While a thread spins with nothing to do, it looks at gaps that double
//!   from one micro-yield up to [`IDLE_LOOK`] (`wait::at_gaps`).
//! - After a job that ran for less than `IDLE_LOOK`, it does not look again
//!   at once: its next wait starts at twice the gap the previous one started
//!   at, up to `IDLE_LOOK`'s. Offers that small come from a loop of tiny
//!   joins, whose owner is better off running them itself.
//! - A longer job, or a handed-over call, resets the first gap to one
//!   micro-yield: the next offer is likely as large, and is taken at once.
//!
//! So a thread that steals only tiny jobs takes at most one per
//! `IDLE_LOOK`, and a job is never missed: the looks only come later.

use super::job::Header;
use super::worker::Worker;
use crate::wait::{at_gaps, Doorbell, Waiter};
use core::time::Duration;
use std::time::Instant;

/// The longest gap between two looks for work of an idle thread of a
/// region while it spins (see the module head): short against a job worth
/// taking, long against the gap between two empty joins.
const IDLE_LOOK: Duration = Duration::from_micros(2);

/// One idle thread's pacing of its looks for work (see the module head).
pub(crate) struct Looks<'a> {
    waiter: &'a Waiter,
    /// Micro-yields before the next wait's first look.
    first: u32,
    /// [`IDLE_LOOK`] in micro-yields.
    every: u32,
    /// The last job ran for less than [`IDLE_LOOK`]: the next find looks
    /// only at this thread's own jobs.
    after_short: bool,
}

impl<'a> Looks<'a> {
    /// Looks paced for spins of `waiter`, starting with a look at once.
    pub(crate) fn new(waiter: &'a Waiter) -> Self {
        Looks {
            waiter,
            first: 1,
            every: waiter.yields_in(IDLE_LOOK),
            after_short: false,
        }
    }

    /// A job for this thread to run, claimed: right after a short job
    /// ([`Looks::run`]), only one of its own (its spawned jobs, its slot,
    /// its mail: the short job may have left some there, which no other
    /// thread runs); otherwise any ([`Worker::find_work`]). `None` means
    /// that this thread's own list, slot and mail are empty.
    pub(crate) fn find(&mut self, worker: &Worker) -> Option<*const Header> {
        if core::mem::take(&mut self.after_short) {
            worker.find_local_work()
        } else {
            worker.find_work()
        }
    }

    /// Runs `job` on `worker`, timed. Returns whether to look at other
    /// threads' offers at once (it ran for [`IDLE_LOOK`] or longer);
    /// otherwise the next [`Looks::find`] looks only at this thread's own
    /// jobs, and the next wait starts at a longer gap.
    ///
    /// # Safety
    /// As [`Worker::run_anchored`]: `job` was claimed by this thread.
    pub(crate) unsafe fn run(&mut self, worker: &Worker, job: *const Header) -> bool {
        let start = Instant::now();
        // SAFETY: as this function's.
        unsafe { worker.run_anchored(job) };
        if start.elapsed() >= IDLE_LOOK {
            self.reset();
            return true;
        }
        self.first = self.first.saturating_mul(2).min(self.every);
        self.after_short = true;
        false
    }

    /// The next look comes at once (after a handed-over call).
    pub(crate) fn reset(&mut self) {
        self.first = 1;
        self.after_short = false;
    }

    /// Spins until `ready`, asked at this pacing's gaps and once more at
    /// the end, for at most `limit` micro-yields of the waiter's spin
    /// budget (the serving thread's pace, `pool/pace.rs`); false once that
    /// is spent.
    pub(crate) fn spin_at_most(&self, limit: u32, mut ready: impl FnMut() -> bool) -> bool {
        self.waiter
            .spinning_at_most(limit)
            .spin(at_gaps(self.first, self.every, &mut ready))
            || ready()
    }

    /// Spins for the waiter's whole budget, looking at this pacing's gaps,
    /// then parks on `bell` once ([`Doorbell::wait_looking_every`]).
    pub(crate) fn wait(
        &self,
        bell: &Doorbell,
        ready: impl FnMut() -> bool,
        announced: impl FnOnce(),
    ) -> bool {
        bell.wait_looking_every(self.waiter, self.first, self.every, ready, announced)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::job::StackJob;
    use super::super::worker::{Role, Worker};
    use super::super::Nest;
    use super::{Looks, IDLE_LOOK};
    use crate::wait::{WaitPolicy, Waiter};

    /// Runs `f` as a claimed job through `looks`; returns `run`'s answer.
    fn run_through(looks: &mut Looks<'_>, worker: &Worker, f: impl FnOnce()) -> bool {
        let job = StackJob::new(|_| f());
        // SAFETY: never published, so this thread alone runs it; alive in
        // this frame.
        let at_once = unsafe { looks.run(worker, job.header()) };
        // SAFETY: the job ran above, on this thread; read once.
        unsafe { job.take_result() }.expect("the job does not panic");
        at_once
    }

    #[test]
    fn short_jobs_push_the_first_look_back_and_a_long_one_brings_it_forward() {
        let nest = Nest::new(1, Waiter::new(WaitPolicy::AlwaysPark, 1));
        let worker = Worker::new(&nest, 0, Role::Alone);
        let mut looks = Looks::new(nest.waiter());
        let mut pushed_back = 0;
        for _ in 0..64 {
            let before = looks.first;
            // An empty job: shorter than `IDLE_LOOK` unless the thread was
            // preempted right there, which the answer then says.
            if run_through(&mut looks, &worker, || ()) {
                assert_eq!(looks.first, 1, "a long job looks again at once");
            } else {
                assert_eq!(looks.first, (before * 2).min(looks.every));
                pushed_back += 1;
            }
        }
        assert!(pushed_back > 0, "64 empty jobs all took over {IDLE_LOOK:?}");
        let at_once = run_through(&mut looks, &worker, || std::thread::sleep(IDLE_LOOK * 2));
        assert!(
            at_once,
            "a job longer than the longest gap looks again at once"
        );
        assert_eq!(looks.first, 1);
        run_through(&mut looks, &worker, || ());
        looks.reset();
        assert_eq!(looks.first, 1, "a handed-over call looks again at once");
    }
}
