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
//! - A sleep that finds no idle CPU (another process holds the others)
//!   costs its thread a timer's slack (tens of microseconds) while it
//!   waits anyway, and doubles the time to the thread's next attempt, from
//!   [`FIRST_BACKOFF`] up to [`LONGEST_BACKOFF`]; one that moves the thread
//!   resets it. A thread that keeps finding no idle CPU so tries about once
//!   a second.
//! - Nothing here runs on a hot fork's path: a spin reads the mark only
//!   past its grace, and tries to move only after a `yield_now` that ran a
//!   partner, while the event it waits for has not come.

#[cfg(all(feature = "std", not(loom)))]
use core::cell::Cell;
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
use core::time::Duration;
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
use std::time::Instant;

/// The wait between a failed attempt to move and the next one, at first.
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
const FIRST_BACKOFF: Duration = Duration::from_millis(1);

/// The longest wait between two attempts to move.
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
    /// When this thread may next try to move, and the wait after a failed
    /// try.
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

/// Sleeps briefly, so that the kernel places this thread again (on an idle
/// CPU, if one shares its cache), unless the last try is too recent: for a
/// waiting thread that just found a partner queued on its CPU. Does
/// nothing off Linux, where the move cannot be seen (so not backed off),
/// nor under Miri.
#[cfg(all(feature = "std", not(loom)))]
#[cold]
#[inline(never)]
pub(super) fn move_off() {
    #[cfg(all(not(miri), target_os = "linux"))]
    {
        let now = Instant::now();
        if NEXT_TRY.with(Cell::get).is_some_and(|next| now < next) {
            return;
        }
        let before = current_cpu();
        std::thread::sleep(NAP);
        let moved = before.is_some() && current_cpu() != before;
        let backoff = next_backoff(BACKOFF.with(Cell::get), moved);
        BACKOFF.with(|cell| cell.set(backoff));
        NEXT_TRY.with(|cell| cell.set(Instant::now().checked_add(backoff)));
    }
}

/// The wait before the next try to move, after a try that moved the thread
/// or not.
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
fn next_backoff(backoff: Duration, moved: bool) -> Duration {
    if moved {
        FIRST_BACKOFF
    } else {
        backoff.saturating_mul(2).min(LONGEST_BACKOFF)
    }
}

/// The CPU this thread runs on, if the OS says.
#[cfg(all(feature = "std", not(loom), not(miri), target_os = "linux"))]
fn current_cpu() -> Option<i32> {
    // SAFETY: `sched_getcpu` takes nothing and only returns a number.
    let cpu = unsafe { libc::sched_getcpu() };
    (cpu >= 0).then_some(cpu)
}

#[cfg(all(test, feature = "std", not(loom), not(miri), target_os = "linux"))]
mod tests {
    use super::{next_backoff, FIRST_BACKOFF, LONGEST_BACKOFF};
    use core::time::Duration;

    #[test]
    fn failed_tries_back_off_up_to_a_second_and_a_move_resets() {
        let mut backoff = FIRST_BACKOFF;
        let mut waits = std::vec::Vec::new();
        for _ in 0..12 {
            backoff = next_backoff(backoff, false);
            waits.push(backoff);
        }
        assert_eq!(waits[0], Duration::from_millis(2));
        assert_eq!(waits[8], Duration::from_millis(512));
        assert!(waits[9..].iter().all(|&wait| wait == LONGEST_BACKOFF));
        assert_eq!(next_backoff(LONGEST_BACKOFF, true), FIRST_BACKOFF);
    }

    /// Lets this thread run on `cpu` only.
    fn pin_here(cpu: usize) {
        // SAFETY: a zeroed `cpu_set_t` is an empty set.
        let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        // SAFETY: `cpu` is below the set's size (checked by the caller).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: `set` is a valid `cpu_set_t` of the size passed.
        let pinned = unsafe { libc::sched_setaffinity(0, core::mem::size_of_val(&set), &set) };
        assert_eq!(pinned, 0, "sched_setaffinity");
    }

    /// A waiter whose CPU it shares with a partner (both pinned to it, so
    /// that it cannot move) sees the partner run in its `yield_now`, tries
    /// to move off, cannot, and backs off.
    #[test]
    fn a_waiter_stacked_with_a_partner_tries_to_move_and_backs_off() {
        use super::super::{WaitPolicy, Waiter};
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::Instant;
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
                let waiter = Waiter::new(WaitPolicy::SpinThenPark(Duration::from_millis(20)), 2);
                // Waits that never see their event, until a try to move has
                // been made (its backoff doubled): the partner runs in
                // their `yield_now` calls.
                let start = Instant::now();
                while super::BACKOFF.with(core::cell::Cell::get) == FIRST_BACKOFF
                    && start.elapsed() < Duration::from_secs(10)
                {
                    assert!(!waiter.spin(|| false));
                }
                (super::BACKOFF.with(core::cell::Cell::get), super::marked())
            });
            let (backoff, marked) = waiter.join().unwrap();
            done.store(true, Ordering::Relaxed);
            assert!(marked, "the waiter saw its partner run in its yield_now");
            // Each try found the CPU it cannot leave, and doubled the wait.
            assert!(backoff > FIRST_BACKOFF, "the waiter tried to move");
        });
    }

    #[test]
    fn a_try_sleeps_once_then_waits_its_backoff() {
        // The first try sleeps; one right after it is too recent and
        // returns at once, whether or not the first moved the thread.
        super::move_off();
        let start = std::time::Instant::now();
        for _ in 0..1000 {
            super::move_off();
        }
        assert!(start.elapsed() < FIRST_BACKOFF * 100);
    }
}
