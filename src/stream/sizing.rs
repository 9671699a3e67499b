//! The batch-size controller: follows the backlog, grows at once, shrinks
//! only when workers starve while input stalls.
//!
//! The cutter asks for a size before cutting each batch, passing the
//! backlog (records read and not yet claimed, the ones about to be cut
//! included) and whether, at its last hand-off, threads were waiting for
//! work while nothing was queued (they starve, and input is the bottleneck).
//!
//! - target = backlog / threads, clamped to `min..=max`: enough batches for
//!   every thread to take one.
//! - A target above the current size is taken at once (backlog builds up:
//!   bigger batches cut the hand-off cost).
//! - A target below it is ignored unless workers starve while input stalls;
//!   then the size halves, not below the target. A short dip in the
//!   backlog between two large reads does not shrink batches; a producer
//!   that slows down does, so its records are handed out as they come.

/// What the workers did at the cutter's last hand-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Workers {
    /// None waited for work, or work was queued for them: input keeps up.
    Fed,
    /// Some waited for work while nothing was queued: input stalls, and
    /// only this shrinks the batches.
    Starving,
}

/// The controller's state: the current size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizer {
    min: usize,
    max: usize,
    threads: usize,
    current: usize,
}

impl Sizer {
    /// Starts at `min`.
    pub(crate) fn new(min: usize, max: usize, threads: usize) -> Self {
        Self {
            min,
            max,
            threads: threads.max(1),
            current: min,
        }
    }

    /// The size of the next batch, given the backlog in records and whether
    /// workers starve while input stalls.
    #[inline]
    pub(crate) fn next(&mut self, backlog: usize, workers: Workers) -> usize {
        let target = backlog.div_ceil(self.threads).clamp(self.min, self.max);
        if target > self.current {
            self.current = target;
        } else if target < self.current && workers == Workers::Starving {
            self.current = (self.current / 2).max(target);
        }
        self.current
    }

    /// The current size.
    pub(crate) fn current(&self) -> usize {
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::{Sizer, Workers};

    #[test]
    fn grows_at_once_and_shrinks_only_when_starving() {
        let mut sizer = Sizer::new(1, 1000, 2);
        assert_eq!(sizer.next(10, Workers::Fed), 5);
        assert_eq!(sizer.next(100_000, Workers::Fed), 1000); // clamped, at once
        assert_eq!(sizer.next(10, Workers::Fed), 1000); // a dip: kept
        assert_eq!(sizer.next(10, Workers::Starving), 500); // starving: halves
        assert_eq!(sizer.next(10, Workers::Starving), 250);
        for _ in 0..20 {
            sizer.next(10, Workers::Starving);
        }
        assert_eq!(sizer.current(), 5); // not below backlog / threads
    }
}
