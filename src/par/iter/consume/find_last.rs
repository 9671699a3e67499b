//! The searches from the end: `find_last`, `find_map_last` and
//! `position_last`, the answer of the highest position that has one.
//!
//! The positions are searched in segments from the end, each a parallel
//! call of its own: the last position, then the 4 before it, then 16, and
//! so on, until one has a hit; the positions below it are dropped unseen.
//! So a search whose answer lies near the end (over a range of 2^63 values,
//! or 10^27) ends there, and one with no answer makes about `log4(len)`
//! calls, most of them too small to fork.
//!
//! Within a segment, a thread's blocks go up, and the blocks of one call
//! never overlap, so a block that starts below the start of a block with a
//! hit lies wholly below it: its own hits would lose. The threads share the
//! highest such start ([`Above`]) and skip every block below it; the thread
//! whose range holds the answer walks its blocks to their end, keeping the
//! last hit.
//!
//! A heavy producer's one position may hold more items than a walk from
//! its front could reach (a `flat_map` of 10^9 inner items each, a run of
//! 2^64 values of a 128-bit range). Its positions are searched one by one,
//! each from its end ([`Producer::rfind_map`]: `flat_map` searches each
//! inner iterator from its end, and the adaptors in between pass the
//! search on), as a search from the front over the positions reversed
//! ([`Backward`]): no thread searches a position below one it has not
//! searched, and a thread on a lower position stops once a higher one has
//! an answer.

use super::{find, run, Wanted};
use crate::par::drive::consumer::Consumer;
use crate::par::drive::drive;
use crate::par::iter::par::Par;
use crate::par::producer::{Producer, Unreached};
use crate::par::settings::Config;
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
    // A boundless producer (`par_bridge`) hands out its items from its
    // first position on: one call, as any other consumer's.
    if P::BOUNDLESS {
        let find = FindLast {
            test,
            above: Above::new(),
        };
        return run(par, &find).map(|(_, found)| found);
    }
    if P::HEAVY {
        // Heavy positions are searched one by one, each from its end, in
        // the order of a search from the front over the positions
        // reversed: each thread goes down its positions, and a thread on a
        // lower one stops once a higher one has an answer.
        return find(
            par.wrap(|base| Backward { base, test }),
            Some,
            Wanted::First,
        );
    }
    let (producer, config) = par.into_parts();
    in_segments(&producer, &config, test)
}

/// Searches `producer`'s positions in segments from the end.
fn in_segments<P, R, F>(producer: &P, config: &Config, test: F) -> Option<R>
where
    P: Producer,
    R: Send,
    F: Fn(P::Item) -> Option<R> + Sync,
{
    let find = FindLast {
        test,
        above: Above::new(),
    };
    let mut unreached = Unreached {
        producer,
        begin: 0,
        end: producer.len(),
    };
    let mut size = 1usize;
    while unreached.end > 0 {
        let begin = unreached.end.saturating_sub(size);
        let segment = Segment {
            base: producer,
            offset: begin,
            len: unreached.end - begin,
        };
        // The segment's positions are its call's to fold or drop.
        unreached.end = begin;
        if let Some((_, found)) = drive(&segment, config, &find) {
            return Some(found);
        }
        size = size.saturating_mul(4);
    }
    None
}

/// A heavy producer's positions in reverse (position `i` is the base's
/// `len - 1 - i`), each block yielding one item at most: the answer of its
/// search from the end ([`Producer::rfind_map`]).
struct Backward<P, F> {
    base: P,
    test: F,
}

impl<P: Producer, F> Backward<P, F> {
    /// The base's positions of block `begin..end`.
    fn base_range(&self, begin: usize, end: usize) -> (usize, usize) {
        let len = self.base.len();
        (len - end, len - begin)
    }
}

/// The iterator of one block of [`Backward`]: searches the block when asked
/// for its item.
struct Searched<'a, P: Producer, F> {
    from: &'a Backward<P, F>,
    begin: usize,
    end: usize,
    done: bool,
}

impl<P: Producer, R, F: Fn(P::Item) -> Option<R>> Iterator for Searched<'_, P, F> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        if self.done {
            return None;
        }
        self.done = true;
        let test = &self.from.test;
        // SAFETY: the block was handed to this iterator alone, which hands
        // it on once (`done`).
        unsafe { (self.from.base).rfind_map(self.begin, self.end, &mut |item| test(item)) }
    }
}

impl<P: Producer, F> Drop for Searched<'_, P, F> {
    fn drop(&mut self) {
        if !self.done {
            // SAFETY: the block was never handed on.
            unsafe { self.from.base.drop_range(self.begin, self.end) }
        }
    }
}

// SAFETY: block `begin..end` is the base's positions `len - end..len -
// begin`, handed on once, to its search or to `drop_range`: distinct
// blocks are distinct base positions. Never `EXACT`.
unsafe impl<P, R, F> Producer for Backward<P, F>
where
    P: Producer,
    F: Fn(P::Item) -> Option<R> + Sync,
{
    type Item = R;
    type Iter<'a>
        = Searched<'a, P, F>
    where
        Self: 'a;
    const EXACT: bool = false;
    const HEAVY: bool = P::HEAVY;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Searched<'_, P, F> {
        let (begin, end) = self.base_range(begin, end);
        Searched {
            from: self,
            begin,
            end,
            done: false,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let (begin, end) = self.base_range(begin, end);
        // SAFETY: forwarded from the caller, reversed.
        unsafe { self.base.drop_range(begin, end) }
    }
}

/// Positions `offset..offset + len` of a producer, as a producer of their
/// own (position `i` is the base's `offset + i`).
struct Segment<'a, P> {
    base: &'a P,
    offset: usize,
    len: usize,
}

// SAFETY: every range is the base's same range moved up by `offset`, inside
// `offset..offset + len`, which the search hands to this segment alone; so
// each base position is handed out at most once, and one item per position
// exactly when the base's are.
unsafe impl<'a, P: Producer> Producer for Segment<'a, P> {
    type Item = P::Item;
    type Iter<'b>
        = P::Iter<'a>
    where
        Self: 'b;
    const EXACT: bool = P::EXACT;
    const HEAVY: bool = P::HEAVY;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> P::Iter<'a> {
        // SAFETY: forwarded from the caller, moved into this segment.
        unsafe { self.base.range(self.offset + begin, self.offset + end) }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: as in `range`.
        unsafe { self.base.drop_range(self.offset + begin, self.offset + end) }
    }

    unsafe fn rfind_map<A, T: FnMut(P::Item) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut T,
    ) -> Option<A> {
        // SAFETY: as in `range`.
        unsafe { (self.base).rfind_map(self.offset + begin, self.offset + end, test) }
    }
}
