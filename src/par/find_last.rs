//! The searches from the end: `find_last`, `find_map_last` and
//! `position_last`, the answer of the highest position that has one.
//!
//! A thread's blocks go up, and the blocks of one call never overlap, so a
//! block that starts below the start of a block with a hit lies wholly
//! below it: its own hits would lose. The threads share the highest such
//! start ([`Above`]) and skip every block below it; the thread whose range
//! holds the answer walks its blocks to their end, keeping the last hit.

use super::consume::run;
use super::drive::Consumer;
use super::iter::Par;
use super::producer::Producer;
use crate::sync::{AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// The highest start of a block with a hit so far, plus one (0: none).
struct Above(CachePadded<AtomicUsize>);

impl Above {
    fn new() -> Self {
        Above(CachePadded::new(AtomicUsize::new(0)))
    }

    /// Records a hit in the block starting at `first`.
    fn hit(&self, first: usize) {
        // Relaxed: only a hint for skipping; the answers travel in the
        // partials, through the join.
        self.0.fetch_max(first + 1, Ordering::Relaxed);
    }

    /// Whether the block starting at `first` lies below a block with a
    /// hit.
    fn skips(&self, first: usize) -> bool {
        // Relaxed: as in `hit`.
        first + 1 < self.0.load(Ordering::Relaxed)
    }
}

/// The consumer: `test` maps an item to its answer.
struct FindLast<F> {
    test: F,
    above: Above,
}

impl<T, R: Send, F: Fn(T) -> Option<R> + Sync> Consumer<T> for FindLast<F> {
    type Acc = Option<(usize, R)>;
    const STOPS: bool = true;
    fn start(&self) -> Self::Acc {
        None
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, first: usize, items: I) -> Self::Acc {
        // Every item of the block is asked: its last answer wins, and a
        // later block's over this one's.
        match items.filter_map(&self.test).last() {
            Some(found) => {
                self.above.hit(first);
                Some((first, found))
            }
            None => acc,
        }
    }
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        // By position: under a dynamic schedule a thread's blocks are not
        // one range, so thread order is not position order.
        match (left, right) {
            (Some(a), Some(b)) => Some(if a.0 > b.0 { a } else { b }),
            (left, right) => right.or(left),
        }
    }
    fn skip(&self, first: usize) -> bool {
        self.above.skips(first)
    }
}

/// The answer of the highest position that `test` answers.
pub(crate) fn find_last<P, R, F>(par: Par<P>, test: F) -> Option<R>
where
    P: Producer,
    R: Send,
    F: Fn(P::Item) -> Option<R> + Sync,
{
    let find = FindLast {
        test,
        above: Above::new(),
    };
    run(par, &find).map(|(_, found)| found)
}
