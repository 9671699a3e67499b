//! Which queued call runs next ([`Calls`]): the newest, until the oldest
//! has waited the pool's patience ([`Patience`]); then the oldest.
//!
//! Calls handed over by many threads at once (a server's clients, say)
//! each bring their own data. Run oldest first, every call finds its data
//! gone from the cache once the waiting callers' data together outgrow it.
//! The newest call is the one whose caller ran last, its data likeliest
//! still cached: run first, the same few callers keep the cores busy while
//! their data stays warm (BENCHMARKS.md, "Many callers at once"). The
//! oldest call runs next once it has waited the patience, so no call waits
//! behind newer ones for longer than that: the patience bounds what the
//! order adds to the tail of the latency, and trades it for the cache.
//!
//! By default the patience scales with the calls (`call_time.rs`):
//! [`SCALED_PATIENCE`] times the mean run time of the pool's recent calls.
//! Calls of microseconds, whose data is small, run in nearly the order
//! they came; calls of hundreds of microseconds, which stream enough data
//! for the order to matter, wait a few milliseconds at most. A pool may
//! set a fixed patience instead
//! ([`Builder::call_patience`](crate::pool::Builder::call_patience)); zero
//! is arrival order.
//!
//! # Invariants
//!
//! - The list holds exactly the queued calls and tasks (`task.rs`: a
//!   task brings its awaiter's data as a call does), not other spawned
//!   jobs, in the order they were pushed, oldest first; it is changed only under the
//!   injector's lock, with the injector's own list.
//! - With a patience, a call's `queued_at` is the time read just before
//!   its push took the lock (so times and order may differ by a lock's
//!   wait); it is written under the lock. A call pushed while the patience
//!   was zero has none, and counts as having waited it.
//! - The patience is at most a quarter of the pool's busy wait, past which
//!   a caller takes its call back: the order alone never holds a call that
//!   long.

use super::header::Injected;
use super::links::{End, Ends};
use core::cell::Cell;
use core::time::Duration;
use std::time::Instant;

/// The default patience, in mean run times of the pool's recent calls.
const SCALED_PATIENCE: u32 = 16;

/// The calls' list's links in a job.
fn call_links(job: &Injected) -> (&Cell<*const Injected>, &Cell<*const Injected>) {
    (&job.call_prev, &job.call_next)
}

/// A pool's patience: set while the pool is built, read without the lock.
#[derive(Clone, Copy)]
pub(super) struct Patience {
    /// As set by the pool's builder; `None`: scaled ([`SCALED_PATIENCE`]).
    wanted: Option<Duration>,
    /// A quarter of the pool's busy wait.
    bound: Duration,
}

impl Patience {
    pub(super) fn new() -> Self {
        Patience {
            wanted: None,
            bound: crate::team::DEFAULT_BUSY_WAIT / 4,
        }
    }

    /// Sets the patience the pool asks for (`None`: scaled).
    pub(super) fn set(&mut self, patience: Option<Duration>) {
        self.wanted = patience;
    }

    /// Bounds the patience by a quarter of the pool's busy wait.
    pub(super) fn set_busy_wait(&mut self, busy_wait: Duration) {
        self.bound = busy_wait / 4;
    }

    /// The patience in force, given the mean run of the pool's recent
    /// calls (or tasks).
    pub(super) fn get(self, mean: Duration) -> Duration {
        let wanted = match self.wanted {
            Some(wanted) => wanted,
            None => mean.saturating_mul(SCALED_PATIENCE),
        };
        wanted.min(self.bound)
    }
}

/// The queued calls, oldest first; see the module head.
pub(super) struct Calls {
    /// Oldest first.
    list: Ends,
}

impl Calls {
    pub(super) fn new() -> Self {
        Calls { list: Ends::new() }
    }

    /// Links `call` as the newest, queued at `now` (`None`: the pool's
    /// patience is zero, and no clock was read).
    ///
    /// # Safety
    /// `call` is a call, alive and not in this list; under the lock.
    pub(super) unsafe fn push(&mut self, call: *const Injected, now: Option<Instant>) {
        // SAFETY: alive by the contract.
        unsafe { (*call).queued_at.set(now) };
        // SAFETY: as this function's.
        unsafe { self.list.push(call, End::Back, call_links) };
    }

    /// Unlinks `call`.
    ///
    /// # Safety
    /// `call` is in this list (so alive); under the lock.
    pub(super) unsafe fn unlink(&mut self, call: *const Injected) {
        // SAFETY: as this function's.
        unsafe { self.list.unlink(call, call_links) };
    }

    /// The call to run next, if any: the newest, unless the oldest has
    /// waited `patience` by `now`, the time read before the lock (`None`:
    /// no patience, or no second call seen then; the oldest runs).
    ///
    /// Under the lock.
    pub(super) fn pick(&self, now: Option<Instant>, patience: Duration) -> Option<*const Injected> {
        // SAFETY: linked calls are alive; read under the lock.
        let oldest = unsafe { self.list.first.as_ref() }?;
        let waited = match (now, oldest.queued_at.get()) {
            (Some(now), Some(at)) => now.saturating_duration_since(at) >= patience,
            _ => true,
        };
        Some(if waited {
            self.list.first
        } else {
            self.list.last
        })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::super::worker::Worker;
    use super::super::call::{CallJob, Wake};
    use super::super::header::Injected;
    use super::super::links::End;
    use super::super::Injector;
    use std::time::Duration;
    use std::vec::Vec;

    /// Pushes three calls and pops them with `pop`; returns the order
    /// popped, as indices into the calls.
    fn order(injector: &Injector, wait_after_first: Duration) -> Vec<usize> {
        let calls = [(); 3].map(|()| CallJob::new(|_: &Worker| (), Wake::this_thread()));
        let headers: Vec<*const Injected> = calls.iter().map(CallJob::header).collect();
        for (i, header) in headers.iter().enumerate() {
            // SAFETY: alive in this frame, which pops every one below.
            unsafe { injector.push(*header, End::Back) };
            if i == 0 {
                std::thread::sleep(wait_after_first);
            }
        }
        let popped: Vec<usize> = (0..3)
            .map(|_| {
                let job = injector.pop().expect("a call is queued");
                headers.iter().position(|h| *h == job).expect("one of ours")
            })
            .collect();
        assert!(injector.pop().is_none() && injector.is_empty());
        popped
    }

    /// The patiences whose order the tests check are long enough that a
    /// test thread held off its CPU for a while still sees the order it
    /// expects.
    #[test]
    fn newest_call_first_until_the_oldest_has_waited_the_patience() {
        let mut injector = Injector::new();
        injector.set_busy_wait(Duration::MAX);
        injector.set_call_patience(Some(Duration::from_millis(200)));
        assert_eq!(order(&injector, Duration::ZERO), [2, 1, 0]);
        // The first call waits the patience while the others are pushed:
        // it runs first, then the rest newest first.
        assert_eq!(order(&injector, Duration::from_millis(250)), [0, 2, 1]);
    }

    #[test]
    fn arrival_order_before_any_call_ran_and_with_a_patience_of_zero() {
        let mut injector = Injector::new();
        // Scaled, with no call timed yet: zero.
        assert_eq!(order(&injector, Duration::ZERO), [0, 1, 2]);
        injector.set_call_patience(Some(Duration::from_secs(3600)));
        injector.set_call_patience(Some(Duration::ZERO));
        assert_eq!(order(&injector, Duration::ZERO), [0, 1, 2]);
    }

    #[test]
    fn the_default_patience_scales_with_the_calls_run_time() {
        let mut injector = Injector::new();
        injector.set_busy_wait(Duration::MAX);
        // Calls of 12.5 ms: a patience of 200 ms.
        injector.note_call(Duration::from_micros(12_500));
        assert_eq!(injector.patience(), Duration::from_millis(200));
        assert_eq!(order(&injector, Duration::ZERO), [2, 1, 0]);
        assert_eq!(order(&injector, Duration::from_millis(250)), [0, 2, 1]);
        // Calls of 1 µs: about 16 µs.
        for _ in 0..200 {
            injector.note_call(Duration::from_micros(1));
        }
        let patience = injector.patience();
        assert!(
            (Duration::from_micros(16)..=Duration::from_nanos(16_200)).contains(&patience),
            "{patience:?}"
        );
    }

    #[test]
    fn the_busy_wait_bounds_the_patience() {
        let mut injector = Injector::new();
        injector.set_call_patience(Some(Duration::from_secs(3600)));
        // A quarter of the busy wait: 200 ms.
        injector.set_busy_wait(Duration::from_millis(800));
        assert_eq!(order(&injector, Duration::from_millis(250)), [0, 2, 1]);
        injector.set_busy_wait(Duration::ZERO);
        assert_eq!(order(&injector, Duration::ZERO), [0, 1, 2]);
    }

    #[test]
    fn calls_taken_back_or_popped_leave_the_order_consistent() {
        let mut injector = Injector::new();
        injector.set_busy_wait(Duration::MAX);
        injector.set_call_patience(Some(Duration::from_secs(3600)));
        let calls = [(); 4].map(|()| CallJob::new(|_: &Worker| (), Wake::this_thread()));
        let headers: Vec<*const Injected> = calls.iter().map(CallJob::header).collect();
        for header in &headers {
            // SAFETY: alive in this frame, which unlinks every one below.
            unsafe { injector.push(*header, End::Back) };
        }
        // SAFETY: pushed above, alive.
        let newest = unsafe { injector.take_back(headers[3]) };
        assert!(newest, "the newest, taken back");
        // SAFETY: as above.
        let middle = unsafe { injector.take_back(headers[1]) };
        assert!(middle, "a middle one, taken back");
        assert_eq!(injector.pop(), Some(headers[2]));
        assert_eq!(injector.pop(), Some(headers[0]));
        assert_eq!(injector.pop(), None);
        assert!(injector.is_empty());
    }
}
