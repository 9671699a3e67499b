//! Looks at gaps: a spin's `ready` test that reads lines other threads
//! write at a high rate, asked only at some of the spin's polls.
//!
//! Why it exists: a reader that polls such a line at every micro-yield
//! takes it away from its writer between two writes, and each of the
//! writer's next stores waits for the line to come back (a cache-line
//! transfer, tens to hundreds of nanoseconds). An idle thread of a region
//! reads every working thread's offer slot, which a resident worker
//! (rayon's model) writes at every join.
//!
//! The invariant: the first look comes at poll `first`, and the gap to the
//! next one doubles each time, up to `every` (or `first`, if larger); so a
//! test that turns true is seen at most `every` polls late. Waits that park
//! look once more, ungapped, before they block (`doorbell.rs`).

/// `ready`, asked at poll `first` (at least 1) and then at gaps that double
/// up to `every`; false at every other poll.
pub(crate) fn at_gaps(
    first: u32,
    every: u32,
    mut ready: impl FnMut() -> bool,
) -> impl FnMut() -> bool {
    let mut gap = first.max(1);
    let every = every.max(gap);
    let mut until = gap;
    move || {
        until -= 1;
        if until != 0 {
            return false;
        }
        gap = gap.saturating_mul(2).min(every);
        until = gap;
        ready()
    }
}

#[cfg(test)]
mod tests {
    use super::at_gaps;
    use core::cell::{Cell, RefCell};
    use std::vec::Vec;

    /// The polls (1-based) at which `at_gaps(first, every, ..)` looks.
    fn looks(first: u32, every: u32, polls: u32) -> Vec<u32> {
        let seen = RefCell::new(Vec::new());
        let poll = Cell::new(0);
        let mut test = at_gaps(first, every, || {
            seen.borrow_mut().push(poll.get());
            false
        });
        for _ in 0..polls {
            poll.set(poll.get() + 1);
            assert!(!test());
        }
        drop(test);
        seen.into_inner()
    }

    #[test]
    fn gaps_double_from_the_first_up_to_every() {
        assert_eq!(looks(1, 1, 4), [1, 2, 3, 4]);
        assert_eq!(looks(1, 8, 40), [1, 3, 7, 15, 23, 31, 39]);
        assert_eq!(looks(4, 8, 30), [4, 12, 20, 28]);
        assert_eq!(looks(0, 0, 3), [1, 2, 3]);
    }

    #[test]
    fn a_first_gap_above_every_stays() {
        assert_eq!(looks(10, 2, 30), [10, 20, 30]);
    }

    #[test]
    fn the_test_turning_true_is_reported_at_a_look() {
        let mut calls = 0;
        let mut test = at_gaps(2, 4, || {
            calls += 1;
            calls == 2
        });
        let polls: Vec<bool> = (0..6).map(|_| test()).collect();
        assert_eq!(polls, [false, false, false, false, false, true]);
    }
}
