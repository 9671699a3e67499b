//! How long a pool's serving thread spins for more work once its queue has
//! emptied ([`Pace`]).
//!
//! The serving thread (`serve.rs`) holds the team in a region while calls
//! and spawned jobs come, and spins for more when the queue empties: a call
//! that arrives during the spin is taken at once, without waking a parked
//! thread. That pays while work comes at intervals shorter than the spin
//! budget (a loop of calls, a server under load). It does not when work
//! comes rarer: a pool fed one small job every millisecond (a GUI's events,
//! a timer's ticks, rayon's `noop` demo) would keep the serving thread and
//! the region's other threads spinning for the whole budget after each job,
//! and then the team's threads for their own budget after the region, for
//! nothing: over 100% of the 2-core AMD host's CPU, against rayon's 15%.
//!
//! # The rule
//!
//! - The interval that matters runs from the moment the serving thread
//!   last had nothing to do (its queue empty, no work offered) to the next
//!   job's arrival, or to any work its spin finds ([`Pace::emptied`],
//!   [`Pace::arrived`]). Work it helps with, or waits for on another
//!   thread, closes the interval ([`Pace::busy`]).
//! - If the whole spin budget would have covered it, the next spins get the
//!   whole budget; if not, the next spin gets half the current one, down
//!   to [`FLOOR`]. A run of rare jobs thus brings the spin down to the
//!   floor within a few jobs, and one job that comes sooner brings back
//!   the whole budget at once: a missed call costs a wake-up, a spin only
//!   CPU.
//! - A serving region that ends with less than the whole budget sends the
//!   team's other threads straight to their park (`Team::sleep`): their
//!   spin for the next fork would not pay either.
//! - The serving thread's own wait after a region does not spin: its drain
//!   just did.
//!
//! Only a pool in rayon's model adapts: all work from outside it comes
//! through its serving thread, which so sees every interval. A pool whose
//! callers are thread 0 of their own forks gets most of its work that way,
//! unseen, and its team's spin after a fork serves those callers: its
//! serving thread keeps the whole budget, and spins before it parks. So
//! does a pool whose policy is never to park (`WaitPolicy::AlwaysSpin`).

use crate::wait::Waiter;
use core::time::Duration;
use std::time::Instant;

/// The shortest spin: long enough for a job queued by the job just run
/// (a spawn that spawns, a caller's next call), short against a
/// millisecond.
const FLOOR: Duration = Duration::from_micros(20);

/// The serving thread's spin budget for more work (see the module head).
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
    /// The whole budget of `waiter` to start with; `adapts`: the budget
    /// follows the intervals between jobs, else it stays whole.
    pub(crate) fn new(waiter: &Waiter, adapts: bool) -> Self {
        let whole = waiter.spin_limit();
        Pace {
            waiter: *waiter,
            adapts,
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

    /// Whether the next spin gets the whole budget.
    pub(crate) fn is_whole(&self) -> bool {
        self.limit == self.whole
    }

    /// The serving thread has nothing to do from now on, unless it already
    /// had nothing since an earlier call.
    pub(crate) fn emptied(&mut self) {
        if self.emptied.is_none() {
            self.emptied = Some(Instant::now());
        }
    }

    /// The serving thread was not idle: it ran a job that did not come
    /// from its queue (work a call offered), or waited for one another
    /// thread popped.
    pub(crate) fn busy(&mut self) {
        self.emptied = None;
    }

    /// Work came (a job from the queue, or any within a spin): sizes the
    /// next spin from the interval since the serving thread last had
    /// nothing to do.
    pub(crate) fn arrived(&mut self) {
        if let Some(since) = self.emptied.take() {
            self.arrived_after(since.elapsed());
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

    fn pace(adapts: bool) -> Pace {
        Pace::new(&Waiter::new(WaitPolicy::SpinThenPark(SPIN), 1), adapts)
    }

    #[test]
    fn rare_jobs_halve_the_spin_down_to_the_floor_and_a_near_one_restores_it() {
        let mut pace = pace(true);
        assert!(pace.is_whole());
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
        assert!(!pace.is_whole());
        pace.arrived_after(SPIN / 2);
        assert!(pace.is_whole(), "a job within the budget brings it back");
    }

    #[test]
    fn a_pace_that_does_not_adapt_stays_whole() {
        let mut pace = pace(false);
        for _ in 0..4 {
            pace.arrived_after(SPIN * 2);
            assert!(pace.is_whole());
        }
    }

    #[test]
    fn only_an_idle_interval_counts() {
        let mut pace = pace(true);
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
        assert!(pace.is_whole() || pace.limit() == (shrunk / 2).max(pace.floor));
    }
}
