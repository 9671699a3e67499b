//! This thread's stacked mark, and its way off a shared CPU.
//!
//! A spin's `yield_now` that ran another thread for a short while shows a
//! partner queued on this thread's CPU ("Waiting for a thread on one's own
//! CPU" in `wait/mod.rs`). The mark makes the thread's next waits give way
//! at once, which keeps a stacked pair moving, at one CPU's speed.
//!
//! That alone can last: threads that never block are never placed again
//! by the kernel, whose load balancer leaves a thread that ran within the
//! last half millisecond (a "cache-hot" one) where it is. Two threads of a
//! team that the kernel started on one CPU, or that a burst of other work
//! pushed together, then share that CPU for as long as work comes within
//! their spin budget, while another CPU idles: a caller from outside the
//! pool, parked in each call, leaves its CPU idle for the whole call.
//! [`move_off`] is the way out: a short sleep, on whose wake-up the kernel
//! places the thread on an idle CPU that shares its cache, if there is
//! one.
//!
//! # Invariants
//!
//! - The state is thread-local: each thread learns about its own CPU.
//! - A try sleeps for a timer's slack (tens of microseconds), during which
//!   its thread does not see the event it waits for: each try may delay a
//!   stacked pair's hand-over by that much.
//! - Tries back off, whether they moved the thread or not (a move may land
//!   on a busy CPU, and nothing cheap tells): after a try, the thread's
//!   next one waits [`FIRST_BACKOFF`], doubling with each try up to
//!   [`LONGEST_BACKOFF`]; a try that comes more than that after its turn
//!   starts over. A pair that stays stacked so tries about once a second,
//!   and at most once a millisecond (a few percent of its time) at first.
//! - Teams with more threads than CPUs never try (`Waiter::moves`): there
//!   is no idle CPU to find, and their waits give way from the start.
//! - Nothing here runs on a hot fork's path: a spin reads the mark only
//!   past its grace, and tries to move only after a `yield_now` that ran a
//!   partner, while the event it waits for has not come.

#[cfg(all(feature = "std", not(loom)))]
use core::cell::Cell;
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
use core::time::Duration;
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
use std::time::Instant;

/// The wait between a thread's first try to move and its next one.
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
const FIRST_BACKOFF: Duration = Duration::from_millis(1);

/// The longest wait between two tries to move.
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
const LONGEST_BACKOFF: Duration = Duration::from_secs(1);

/// The sleep that lets the kernel place the thread again: as short as a
/// sleep goes (the timer's slack makes it longer).
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
const NAP: Duration = Duration::from_micros(1);

#[cfg(all(feature = "std", not(loom)))]
std::thread_local! {
    static MARK: Cell<bool> = const { Cell::new(false) };
}

#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
std::thread_local! {
    /// When this thread may next try to move (none yet: now), and the
    /// wait its last try set.
    static NEXT_TRY: Cell<Option<Instant>> = const { Cell::new(None) };
    static BACKOFF: Cell<Duration> = const { Cell::new(FIRST_BACKOFF) };
}

/// Whether this thread's last `yield_now` handed the CPU to a partner
/// queued on the same CPU; false where it cannot be measured.
#[inline]
#[cfg_attr(loom, allow(dead_code))] // loom models do not spin
pub(super) fn marked() -> bool {
    #[cfg(all(feature = "std", not(loom)))]
    return MARK.with(Cell::get);
    #[cfg(not(all(feature = "std", not(loom))))]
    false
}

/// Sets this thread's mark from what its last `yield_now` showed.
#[cfg(all(feature = "std", not(loom)))]
pub(super) fn mark(stacked: bool) {
    MARK.with(|mark| mark.set(stacked));
}

/// Clears this thread's mark (until the next `yield_now` shows a partner).
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
fn clear_mark() {
    MARK.with(|mark| mark.set(false));
}

/// Sleeps briefly, so that the kernel places this thread again (on an idle
/// CPU, if one shares its cache), unless its last try is too recent: for a
/// waiting thread that just found a partner queued on its CPU. Clears the
/// mark: the next `yield_now` tells whether the partner is still there.
/// Does nothing off Linux (where the kernel's placement on wake-up was not
/// measured), nor under Miri.
#[cfg(all(feature = "std", not(loom)))]
#[cold]
#[inline(never)]
pub(super) fn move_off() {
    #[cfg(all(not(miri), target_os = "linux"))]
    {
        let now = Instant::now();
        let overdue = match NEXT_TRY.with(Cell::get) {
            Some(next) if now < next => return,
            Some(next) => now - next,
            None => Duration::MAX,
        };
        std::thread::sleep(NAP);
        clear_mark();
        let backoff = next_backoff(BACKOFF.with(Cell::get), overdue);
        BACKOFF.with(|cell| cell.set(backoff));
        NEXT_TRY.with(|cell| cell.set(Instant::now().checked_add(backoff)));
    }
}

/// The wait after a try, given the wait the last try set and how long
/// after its turn this try came.
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
fn next_backoff(last: Duration, overdue: Duration) -> Duration {
    if overdue > LONGEST_BACKOFF {
        FIRST_BACKOFF
    } else {
        last.saturating_mul(2).min(LONGEST_BACKOFF)
    }
}

#[cfg(all(test, feature = "std", not(loom), not(miri), target_os = "linux"))]
mod tests {
    use super::{next_backoff, FIRST_BACKOFF, LONGEST_BACKOFF, NEXT_TRY};
    use core::cell::Cell;
    use core::time::Duration;
    use std::time::Instant;

    #[test]
    fn tries_back_off_up_to_a_second_and_start_over_after_a_quiet_second() {
        let mut backoff = next_backoff(FIRST_BACKOFF, Duration::MAX);
        assert_eq!(backoff, FIRST_BACKOFF);
        let mut waits = std::vec::Vec::new();
        for _ in 0..12 {
            backoff = next_backoff(backoff, Duration::ZERO);
            waits.push(backoff);
        }
        assert_eq!(waits[0], Duration::from_millis(2));
        assert_eq!(waits[8], Duration::from_millis(512));
        assert!(waits[9..].iter().all(|&wait| wait == LONGEST_BACKOFF));
        // A try just after its turn doubles on; one long after starts over.
        assert_eq!(
            next_backoff(Duration::from_millis(8), Duration::from_millis(5)),
            Duration::from_millis(16)
        );
        assert_eq!(
            next_backoff(LONGEST_BACKOFF, LONGEST_BACKOFF * 2),
            FIRST_BACKOFF
        );
    }

    #[test]
    fn a_try_sets_the_next_one_and_earlier_calls_do_nothing() {
        // The first try on this thread: its turn is `FIRST_BACKOFF` after
        // its nap, which lies between these two readings of the clock.
        let before = Instant::now();
        super::move_off();
        let after = Instant::now();
        let next = NEXT_TRY.with(Cell::get).expect("a try sets its next");
        assert!(before + FIRST_BACKOFF <= next && next <= after + FIRST_BACKOFF);
        // Calls before that turn leave it as it is.
        while Instant::now() < next {
            super::move_off();
            if Instant::now() < next {
                assert_eq!(NEXT_TRY.with(Cell::get), Some(next));
            }
        }
    }

    #[test]
    fn only_teams_with_no_more_threads_than_cpus_move() {
        use super::super::{WaitPolicy, Waiter};
        assert!(Waiter::new(WaitPolicy::Adaptive, 1).moves);
        assert!(!Waiter::new(WaitPolicy::Adaptive, usize::MAX).moves);
        assert!(!Waiter::spin_only().moves);
    }

    /// Lets this thread run on `cpu` only (below `CPU_SETSIZE`).
    fn pin_here(cpu: usize) {
        assert!(cpu < libc::CPU_SETSIZE as usize);
        // SAFETY: a zeroed `cpu_set_t` is an empty set.
        let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        // SAFETY: `cpu` is below the set's size (asserted above).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: `set` is a valid `cpu_set_t` of the size passed.
        let pinned = unsafe { libc::sched_setaffinity(0, core::mem::size_of_val(&set), &set) };
        assert_eq!(pinned, 0, "sched_setaffinity");
    }

    /// A waiter whose CPU it shares with a partner (both pinned to it)
    /// sees the partner run in its `yield_now`, and tries to move off.
    #[test]
    fn a_waiter_stacked_with_a_partner_tries_to_move() {
        use super::super::{WaitPolicy, Waiter};
        use std::sync::atomic::{AtomicBool, Ordering};
        // SAFETY: no arguments, no memory.
        let Ok(cpu) = usize::try_from(unsafe { libc::sched_getcpu() }) else {
            return; // the OS does not say
        };
        if cpu >= libc::CPU_SETSIZE as usize {
            return;
        }
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                // The partner: queued behind the waiter, each turn a short
                // one (a few µs, as a partner that only sees an event).
                pin_here(cpu);
                while !done.load(Ordering::Relaxed) {
                    let start = Instant::now();
                    while start.elapsed() < Duration::from_micros(5) {}
                    std::thread::yield_now();
                }
            });
            let waiter = scope.spawn(|| {
                pin_here(cpu);
                let waiter = Waiter::new(WaitPolicy::SpinThenPark(Duration::from_millis(20)), 1);
                // Waits that never see their event, until a try to move
                // has been made: the partner runs in their `yield_now`s.
                // The mark reads how long a `yield_now` took, so whether
                // one shows the partner is up to the kernel: the waits go
                // on until one does, the clock bounding them only as a
                // watchdog that fails rather than hangs.
                let start = Instant::now();
                while NEXT_TRY.with(Cell::get).is_none()
                    && start.elapsed() < Duration::from_secs(10)
                {
                    assert!(!waiter.spin(|| false));
                }
                NEXT_TRY.with(Cell::get)
            });
            let tried = waiter.join();
            // Before anything that may panic: the partner loops until then.
            done.store(true, Ordering::Relaxed);
            assert!(tried.unwrap().is_some(), "the waiter tried to move");
        });
    }
}
