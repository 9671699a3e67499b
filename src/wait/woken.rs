//! Callers the crate has woken that have not run yet, so that spinners give
//! them the CPU ([`Woken`]).
//!
//! Why it exists: a thread outside a pool that hands a call over parks
//! (or, a lone caller of short calls, first yields) until a thread of the
//! team has run it (`nest/region.rs`, `nest/inject/call_time.rs`). When the team
//! has as many threads as the CPUs, the runner and its partners go back to
//! spinning for more work as soon as the call ends, and the woken caller
//! (or one the scheduler preempted on its way to park) needs one of their
//! CPUs. The scheduler does not always preempt a spinner for it, so it
//! may wait for the next `yield_now` of a spin, up to [`GIVE_WAY_EVERY`]
//! on each CPU: for a call of some microseconds, longer than the call. While
//! the count is above zero, every spin past its grace (a hot fork's waits
//! end within it) gives its CPU away at each poll, each give-way charged
//! to its budget at the time it took.
//!
//! A call shorter than [`SHORT_CALL`] is not counted unless its caller
//! waits yielding: a parked caller of such a call is most likely still on
//! its CPU, on its way into the kernel to park, and a loop of such calls
//! would keep the spinners yielding to each other. A yielding caller has
//! handed its CPU to a spinner, which must give it back.
//!
//! # Protocol
//!
//! - The runner times the job ([`Runner::start`]) and, before it publishes
//!   the result (its Release store of the job's done flag), counts the
//!   caller if the job was long enough or the caller yields
//!   ([`Runner::finish`]), noting in the job whether it did; then it
//!   unparks the caller.
//! - The caller, once it has seen the result (its Acquire load of that
//!   flag), reads that note and, if set, calls [`Woken::end`].
//!
//! So each count is paired with one `end` that happens after it, and the
//! count never underflows. It is a hint: a spinner that reads it late gives
//! way one poll later, and a caller that ends before a spinner looks only
//! spares it a `yield_now`.
//!
//! [`GIVE_WAY_EVERY`]: super::GIVE_WAY_EVERY

use super::Waiter;
#[cfg(not(loom))]
use crate::sync::{AtomicUsize, Ordering};

/// Jobs shorter than this do not count their caller (see the module head).
#[cfg(all(feature = "std", not(loom)))]
const SHORT_CALL: core::time::Duration = core::time::Duration::from_micros(5);

/// The process's count of woken callers that have not run yet (not under
/// loom, whose atomics cannot be statics: its models never spin long enough
/// for a give-way to matter, and a count that follows the clock would make
/// them depend on it).
#[cfg(not(loom))]
static WOKEN: Padded = Padded(AtomicUsize::new(0));

/// The count on a line of its own: every spin in the process reads it,
/// so it must not share its line with data that other threads write.
#[cfg(not(loom))]
#[repr(align(128))]
struct Padded(AtomicUsize);

/// How many callers were ever counted, for the tests to check that the
/// counted path ran.
#[cfg(all(test, not(loom)))]
static COUNTED: AtomicUsize = AtomicUsize::new(0);

/// The count's readers and the caller's side.
pub(crate) struct Woken;

impl Woken {
    /// Counts an awaiter that waits yielding for a task that has just
    /// ended (`nest/inject/task/handoff.rs`): spinners give it its CPU back
    /// until its [`Woken::end`].
    #[inline]
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn count() {
        // Relaxed: as in `Woken::end`.
        WOKEN.0.fetch_add(1, Ordering::Relaxed);
    }

    /// The caller runs again: it has seen the result whose runner counted
    /// it ([`Runner::finish`] returned true).
    #[inline]
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // callers need `std`
    pub(crate) fn end() {
        // Relaxed: a hint; the pairing with the count comes through the
        // job's own Release/Acquire done flag.
        #[cfg(not(loom))]
        WOKEN.0.fetch_sub(1, Ordering::Relaxed);
    }

    /// Whether some woken caller has not run yet: spinners should give
    /// their CPU away.
    #[inline(always)]
    #[cfg_attr(loom, allow(dead_code))] // loom models do not spin
    pub(crate) fn pending() -> bool {
        // Relaxed: a hint, read at every poll of a spin.
        #[cfg(not(loom))]
        return WOKEN.0.load(Ordering::Relaxed) != 0;
        #[cfg(loom)]
        false
    }
}

/// How many callers were ever counted (tests only).
#[cfg(all(test, not(loom)))]
pub(crate) fn counted() -> usize {
    // Relaxed: read after the counting threads have joined.
    COUNTED.load(Ordering::Relaxed)
}

/// How the caller of a job waits for it, which decides whether its runner
/// counts it ([`Runner::finish`]).
#[cfg(feature = "std")]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Caller {
    /// Parked: counted only after a job long enough that it has parked.
    Parked,
    /// Yielding its CPU between polls: always counted, for a spinner on
    /// that CPU must give it back.
    Yielding,
}

/// The runner's side for one job: started as the job starts.
#[cfg(feature = "std")]
pub(crate) struct Runner {
    /// When the job started.
    #[cfg(not(loom))]
    started: std::time::Instant,
}

#[cfg(feature = "std")]
impl Runner {
    /// The job starts now.
    #[inline]
    pub(crate) fn start() -> Self {
        Runner {
            #[cfg(not(loom))]
            started: std::time::Instant::now(),
        }
    }

    /// How long the job has run (zero under loom), counting no caller.
    #[inline]
    pub(crate) fn took(self) -> core::time::Duration {
        #[cfg(not(loom))]
        return self.started.elapsed();
        #[cfg(loom)]
        core::time::Duration::ZERO
    }

    /// The job is done, its result not yet published: counts its caller as
    /// woken unless the job was short and the caller parked (see
    /// [`Caller`]). Returns whether it did, for the caller's
    /// [`Woken::end`], and how long the job ran (zero under loom).
    #[inline]
    pub(crate) fn finish(self, caller: Caller) -> (bool, core::time::Duration) {
        #[cfg(not(loom))]
        {
            let took = self.started.elapsed();
            if took < SHORT_CALL && caller == Caller::Parked {
                return (false, took);
            }
            // Relaxed: as in `Woken::end`.
            WOKEN.0.fetch_add(1, Ordering::Relaxed);
            // Relaxed: a test's tally, read after the calls have joined.
            #[cfg(test)]
            COUNTED.fetch_add(1, Ordering::Relaxed);
            (true, took)
        }
        #[cfg(loom)]
        {
            let _ = caller;
            (false, core::time::Duration::ZERO)
        }
    }
}

/// The most one give-way is charged to a spin's budget (see [`give_way`]).
#[cfg(all(feature = "std", not(loom)))]
const LONGEST_CHARGE: core::time::Duration = core::time::Duration::from_micros(1);

/// Gives the core away once, for a woken caller; returns how many
/// micro-yields of the spin budget to charge for it: the time it took, up
/// to [`LONGEST_CHARGE`]. A `yield_now` that ran nobody else took the
/// spinner's own time, so a spin that only yields still parks after about
/// its budget's time; one that ran another thread (the caller, most
/// likely) took that thread's time, not the spinner's, and the spin goes
/// on to take the next call without a wake-up.
#[cold]
#[cfg_attr(loom, allow(dead_code))] // loom models do not spin
pub(super) fn give_way(waiter: &Waiter) -> u32 {
    #[cfg(all(feature = "std", not(loom)))]
    {
        let start = std::time::Instant::now();
        super::give_way(waiter);
        waiter.yields_in(start.elapsed().min(LONGEST_CHARGE))
    }
    #[cfg(not(all(feature = "std", not(loom))))]
    {
        super::give_way(waiter);
        1
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Caller, Runner, Woken, SHORT_CALL};

    #[test]
    fn a_yielding_caller_is_counted_however_short_the_job() {
        let (woken, _) = Runner::start().finish(Caller::Yielding);
        assert!(woken, "a yielding caller is always counted");
        Woken::end();
        let (woken, took) = Runner::start().finish(Caller::Parked);
        assert_eq!(
            woken,
            took >= SHORT_CALL,
            "a parked caller from {SHORT_CALL:?}"
        );
        if woken {
            Woken::end();
        }
    }
}
