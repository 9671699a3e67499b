//! How long a pool's idle thread spins for more work before it parks
//! ([`Pace`]): a resident thread of a pool in rayon's model
//! (`resident.rs`), and the serving thread once its queue has emptied
//! (`serve.rs`).
//!
//! A thread that spins when it runs out of work takes the next job at
//! once, without a wake-up. That pays while work comes at intervals
//! shorter than the spin budget (a loop of calls, a server under load). It
//! does not when work comes rarer: a pool fed one small job every
//! millisecond (a GUI's events, a timer's ticks, rayon's `noop` demo)
//! would keep its threads spinning for the whole budget after each job,
//! for nothing.
//!
//! # The rule
//!
//! - The interval that matters runs from the moment the thread last had
//!   nothing to do (no job queued, none offered) to the next job's
//!   arrival, or to any work its spin finds ([`Pace::emptied`],
//!   [`Pace::arrived`]). Work it helps with, or waits for on another
//!   thread, closes the interval ([`Pace::busy`]).
//! - If the whole spin budget would have covered it, the next spins get the
//!   whole budget; if not, the next spin gets half the current one, down
//!   to [`FLOOR`]; so does the spin after one that found nothing
//!   ([`Pace::missed`]). A run of rare jobs thus brings the spin down to
//!   the floor within a few jobs, and one job that comes sooner brings
//!   back the whole budget at once: a missed job costs a wake-up, a spin
//!   only CPU.
//!
//! Only resident threads adapt: all work from outside their pool comes
//! through its queue, so each sees the intervals. In tine's model the
//! callers are thread 0 of most forks, unseen by the serving thread, and
//! the team's spin after a fork serves them: the serving thread keeps the
//! whole budget. So does a pool whose policy is never to park
//! (`WaitPolicy::AlwaysSpin`).

use crate::wait::Waiter;
use core::time::Duration;
use std::time::Instant;

/// The shortest spin: long enough for a job queued by the job just run
/// (a spawn that spawns, a caller's next call), short against a
/// millisecond.
const FLOOR: Duration = Duration::from_micros(20);

/// An idle thread's spin budget for more work (see the module head).
pub(crate) struct Pace {
    /// The pool's waiter, which converts intervals to micro-yields.
    waiter: Waiter,
    /// Whether the budget follows the intervals (else it stays whole).
    adapts: bool,
    /// The waiter's whole spin budget, in micro-yields.
    whole: u32,
    /// [`FLOOR`] in micro-yields (at most `whole`).
    floor: u32,
    /// The next spin's budget, in micro-yields.
    limit: u32,
    /// Since when the serving thread has had nothing to do, if it has not
    /// had work since.
    emptied: Option<Instant>,
}

impl Pace {
    /// The whole budget of `waiter`, which follows the intervals between
    /// jobs (see the module head).
    pub(crate) fn adapting(waiter: &Waiter) -> Self {
        Pace {
            adapts: true,
            ..Pace::whole(waiter)
        }
    }

    /// The whole budget of `waiter`, always.
    pub(crate) fn whole(waiter: &Waiter) -> Self {
        let whole = waiter.spin_limit();
        Pace {
            waiter: *waiter,
            adapts: false,
            whole,
            floor: waiter.yields_in(FLOOR).min(whole),
            limit: whole,
            emptied: None,
        }
    }

    /// The next spin's budget, in micro-yields.
    pub(crate) fn limit(&self) -> u32 {
        self.limit
    }

    /// The thread has nothing to do from now on, unless it already had
    /// nothing since an earlier call.
    pub(crate) fn emptied(&mut self) {
        if self.emptied.is_none() {
            self.emptied = Some(Instant::now());
        }
    }

    /// The thread was not idle: it ran a job that did not come from the
    /// queue (work a call offered), or waited for one another thread
    /// popped.
    pub(crate) fn busy(&mut self) {
        self.emptied = None;
    }

    /// Work came (a job from the queue, or any within a spin): sizes the
    /// next spin from the interval since the thread last had nothing to
    /// do.
    pub(crate) fn arrived(&mut self) {
        if let Some(since) = self.emptied.take() {
            self.arrived_after(since.elapsed());
        }
    }

    /// A spin ran its whole budget and no work came (the thread now
    /// parks): the next spin gets half, down to the floor, as if work had
    /// come just after it. A thread woken for work another took first sees
    /// no arrival of its own, and would otherwise keep spinning whole.
    pub(crate) fn missed(&mut self) {
        if self.adapts {
            self.limit = (self.limit / 2).max(self.floor);
        }
    }

    /// Sizes the next spin for work that came after `idle` with nothing to
    /// do.
    fn arrived_after(&mut self, idle: Duration) {
        if !self.adapts {
            return;
        }
        self.limit = if self.waiter.yields_in(idle) <= self.whole {
            self.whole
        } else {
            (self.limit / 2).max(self.floor)
        };
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Pace;
    use crate::wait::{WaitPolicy, Waiter};
    use core::time::Duration;

    const SPIN: Duration = Duration::from_micros(200);

    fn waiter() -> Waiter {
        Waiter::new(WaitPolicy::SpinThenPark(SPIN), 1)
    }

    #[test]
    fn rare_jobs_halve_the_spin_down_to_the_floor_and_a_near_one_restores_it() {
        let mut pace = Pace::adapting(&waiter());
        assert_eq!(pace.limit(), pace.whole);
        let mut last = pace.limit();
        for _ in 0..16 {
            // Longer than the whole budget: a spin would not have caught it.
            pace.arrived_after(SPIN * 2);
            assert_eq!(pace.limit(), (last / 2).max(pace.floor));
            last = pace.limit();
        }
        assert_eq!(
            pace.limit(),
            pace.floor,
            "sixteen rare jobs reach the floor"
        );
        assert!(pace.limit() != pace.whole);
        pace.arrived_after(SPIN / 2);
        assert_eq!(
            pace.limit(),
            pace.whole,
            "a job within the budget brings it back"
        );
    }

    #[test]
    fn a_pace_that_does_not_adapt_stays_whole() {
        let mut pace = Pace::whole(&waiter());
        for _ in 0..4 {
            pace.arrived_after(SPIN * 2);
            assert_eq!(pace.limit(), pace.whole);
        }
    }

    #[test]
    fn only_an_idle_interval_counts() {
        let mut pace = Pace::adapting(&waiter());
        pace.arrived_after(SPIN * 2);
        let shrunk = pace.limit();
        // No interval open: an arrival changes nothing.
        pace.arrived();
        assert_eq!(pace.limit(), shrunk);
        // Work in between closes the interval.
        pace.emptied();
        pace.busy();
        pace.arrived();
        assert_eq!(pace.limit(), shrunk);
        // An open interval, however short, is measured.
        pace.emptied();
        pace.arrived();
        assert!(pace.limit() == pace.whole || pace.limit() == (shrunk / 2).max(pace.floor));
    }
}
