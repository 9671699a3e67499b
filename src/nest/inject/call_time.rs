//! The mean run time of a pool's recent calls ([`CallTime`]), which the
//! runners time: it scales the default patience of the calls' order
//! (`order.rs`), and it tells a lone caller whether to wait for its call
//! yielding its CPU rather than parked ([`CallTime::yielding_wait`]).
//!
//! Why a caller yields: a caller parked on its call is woken by the runner
//! (a futex wake, an interrupt to the caller's CPU, and the scheduler's
//! delay before it runs there), tens of microseconds on a busy machine, as
//! much as a short call itself. A caller that yields between polls of its
//! call's done flag (`call.rs`) hands its CPU to the pool's threads
//! meanwhile, and gets it back as the call ends: the runner counts it as
//! woken (`wait/woken.rs`), and the spinner on its CPU gives way. It yields
//! only if no other call is queued as it pushes its own (many callers park,
//! so that the threads serving them keep their CPUs) and only for calls of
//! at most [`YIELD_UP_TO`], for twice the mean but at least
//! [`SHORTEST_YIELDING_WAIT`] (a park's round trip, which the shortest
//! calls would otherwise pay many times over); for longer calls the
//! wake-up is small beside the call.
//!
//! # Invariants
//!
//! - The mean is a hint: two runners that finish at once may lose one
//!   sample. A model under loom (whose calls take no time) keeps none.
//! - A call counts as at most eight times the mean, so one outlier (a cold
//!   first run, a call that blocked) at most doubles it, and the next calls
//!   bring it back.

#[cfg(not(loom))]
use crate::sync::{AtomicUsize, Ordering};
use core::time::Duration;

/// The shortest a lone caller of short calls waits yielding: about a
/// park's round trip.
#[cfg(not(loom))]
pub(crate) const SHORTEST_YIELDING_WAIT: Duration = Duration::from_micros(10);

/// The longest mean call for which a lone caller yields.
#[cfg(not(loom))]
pub(crate) const YIELD_UP_TO: Duration = Duration::from_micros(100);

/// The longest mean run of a task for which its lone awaiter waits
/// yielding: the wait holds an executor's thread, so it stays a few
/// microseconds, shorter than the executor's own wake-up.
#[cfg(not(loom))]
pub(crate) const TASK_YIELD_UP_TO: Duration = Duration::from_micros(10);

/// The mean run time of a pool's recent calls: a moving average that gives
/// each new call an eighth of the weight; see the module head.
pub(super) struct CallTime {
    /// Nanoseconds, saturated; zero until a call has run.
    #[cfg(not(loom))]
    nanos: AtomicUsize,
}

impl CallTime {
    /// No call timed yet.
    pub(super) fn new() -> Self {
        CallTime {
            #[cfg(not(loom))]
            nanos: AtomicUsize::new(0),
        }
    }

    /// A call ran for `took`.
    pub(super) fn note(&self, took: Duration) {
        #[cfg(not(loom))]
        {
            let took = usize::try_from(took.as_nanos()).unwrap_or(usize::MAX);
            // Relaxed: a hint (see the module head); no other data rides on it.
            let mean = self.nanos.load(Ordering::Relaxed);
            let mean = if mean == 0 {
                took
            } else {
                mean - mean / 8 + took.min(mean.saturating_mul(8)) / 8
            };
            // Relaxed: as above.
            self.nanos.store(mean, Ordering::Relaxed);
        }
        #[cfg(loom)]
        let _ = took;
    }

    /// The mean so far (zero before the first call, and under loom).
    pub(super) fn mean(&self) -> Duration {
        #[cfg(not(loom))]
        {
            // Relaxed: as in `note`.
            let nanos = self.nanos.load(Ordering::Relaxed);
            Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
        }
        #[cfg(loom)]
        Duration::ZERO
    }

    /// How long a lone caller waits for its call yielding its CPU before it
    /// parks: twice the mean, at least [`SHORTEST_YIELDING_WAIT`], if a
    /// call has run and the mean is at most [`YIELD_UP_TO`]; else zero.
    #[cfg(not(loom))]
    pub(super) fn yielding_wait(&self) -> Duration {
        self.yielding_wait_up_to(YIELD_UP_TO)
    }

    /// [`CallTime::yielding_wait`] for the awaiter of a task, whose runs
    /// this times: only for runs of at most [`TASK_YIELD_UP_TO`].
    #[cfg(not(loom))]
    pub(super) fn task_yielding_wait(&self) -> Duration {
        self.yielding_wait_up_to(TASK_YIELD_UP_TO)
    }

    #[cfg(not(loom))]
    fn yielding_wait_up_to(&self, longest: Duration) -> Duration {
        let mean = self.mean();
        if mean.is_zero() || mean > longest {
            Duration::ZERO
        } else {
            (mean * 2).max(SHORTEST_YIELDING_WAIT)
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{CallTime, SHORTEST_YIELDING_WAIT, YIELD_UP_TO};
    use std::time::Duration;

    #[test]
    fn the_mean_moves_an_eighth_of_the_way_to_each_call() {
        let time = CallTime::new();
        assert_eq!(time.mean(), Duration::ZERO);
        time.note(Duration::from_micros(800));
        assert_eq!(time.mean(), Duration::from_micros(800));
        time.note(Duration::ZERO);
        assert_eq!(time.mean(), Duration::from_micros(700));
        // An outlier counts as eight times the mean: 5.6 ms.
        time.note(Duration::from_secs(1));
        assert_eq!(time.mean(), Duration::from_nanos(612_500 + 700_000));
        let time = CallTime::new();
        time.note(Duration::from_secs(u64::MAX));
        assert!(
            time.mean() >= Duration::from_secs(1),
            "saturated, not wrapped"
        );
        time.note(Duration::from_secs(u64::MAX));
        assert!(time.mean() >= Duration::from_secs(1), "still saturated");
    }

    #[test]
    fn a_lone_caller_yields_for_twice_the_mean_of_short_calls_only_and_never_less_than_a_park() {
        let wait = |mean: Duration| {
            let time = CallTime::new();
            time.note(mean);
            time.yielding_wait()
        };
        assert_eq!(
            CallTime::new().yielding_wait(),
            Duration::ZERO,
            "no call yet"
        );
        assert_eq!(wait(Duration::from_nanos(300)), SHORTEST_YIELDING_WAIT);
        assert_eq!(wait(SHORTEST_YIELDING_WAIT), SHORTEST_YIELDING_WAIT * 2);
        assert_eq!(wait(Duration::from_micros(30)), Duration::from_micros(60));
        assert_eq!(wait(YIELD_UP_TO), YIELD_UP_TO * 2);
        assert_eq!(wait(YIELD_UP_TO * 2), Duration::ZERO);
    }
}
