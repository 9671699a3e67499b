//! `flat_map` and `flatten` with a parallel inner iterator, as rayon has
//! them.
//!
//! A call is one fork over the outer items, so an inner parallel iterator
//! made inside an item runs serially on the thread that made it: the outer
//! items already spread over every thread (rayon can also split a large
//! inner iterator; here, split the outer side finer instead). [`Serial`]
//! runs any producer as a plain serial iterator, position by position, and
//! keeps the producer contract: every position is handed out once, and the
//! ones it never reaches are dropped with it. A boundless producer
//! (`par_bridge`) is asked after each empty position where its live
//! positions resume (`Producer::live_from`), so a walk that stops early
//! (`any`, `find_*`, `try_*`, `take_any`) ends once its items run out.

use super::super::iter::{IntoParallelIterator, ParallelIterator};
use super::{clone_parts, Producer};
use crate::nest::stop::stopped;
use std::collections::VecDeque;

/// A producer's items, in order, as a serial iterator that owns the
/// producer. A position that yields more than one item (after a
/// `flat_map_iter`) keeps the rest in a buffer; every other position goes
/// straight through, without allocating.
pub struct Serial<P: Producer> {
    producer: P,
    next: usize,
    len: usize,
    rest: VecDeque<P::Item>,
}

/// The items of `inner`, a parallel iterator, run here (its pool and
/// schedule are not used).
fn serial<I: IntoParallelIterator>(inner: I) -> Serial<<I::Iter as ParallelIterator>::Producer> {
    let (producer, _config) = inner.into_par_iter().into_par().into_parts();
    let len = producer.len();
    Serial {
        producer,
        next: 0,
        len,
        rest: VecDeque::new(),
    }
}

impl<P: Producer> Iterator for Serial<P> {
    type Item = P::Item;

    #[inline]
    fn next(&mut self) -> Option<P::Item> {
        if !P::EXACT {
            if let Some(item) = self.rest.pop_front() {
                return Some(item);
            }
        }
        while self.next < self.len {
            // Inside a heavy block of a search that has stopped, this walk
            // ends here; `Drop` drops the positions left.
            if stopped() {
                return None;
            }
            let position = self.next;
            self.next += 1;
            // SAFETY: in bounds, and `next` only grows, so each position is
            // handed out once; `Drop` drops only the ones after it.
            let mut items = unsafe { self.producer.range(position, position + 1) };
            if let Some(first) = items.next() {
                if !P::EXACT {
                    self.rest.extend(items);
                }
                return Some(first);
            }
            drop(items);
            // An empty position of a boundless producer (`par_bridge`,
            // whose length is a bound it never reaches) may mean that its
            // items ran out: skip the positions it says are dead, or this
            // walk would go on to its length, position by position.
            if P::BOUNDLESS {
                let live = self.producer.live_from(self.next).min(self.len);
                if live > self.next {
                    let dead = self.next;
                    self.next = live;
                    // SAFETY: positions `dead..live` were never handed out,
                    // and `next` has moved past them.
                    unsafe { self.producer.drop_range(dead, live) };
                }
            }
        }
        None
    }

    /// The rest in one go: the buffer, then every position left as one
    /// range of the producer, so that its loop runs whole (and vectorizes)
    /// instead of position by position.
    #[inline(always)]
    fn fold<B, G: FnMut(B, P::Item) -> B>(mut self, init: B, mut g: G) -> B {
        let mut acc = init;
        if !P::EXACT {
            while let Some(item) = self.rest.pop_front() {
                acc = g(acc, item);
            }
        }
        let (begin, end) = (self.next, self.len);
        // Handed out before the range runs: if `g` panics, the range drops
        // its own rest, and `Drop` has nothing left to drop.
        self.next = end;
        if begin == end {
            return acc;
        }
        // SAFETY: positions `begin..end` were never handed out, and `next`
        // has moved past them.
        unsafe { self.producer.range(begin, end) }.fold(acc, g)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len - self.next;
        if P::EXACT {
            (left, Some(left))
        } else {
            (self.rest.len(), None)
        }
    }
}

impl<P: Producer> Drop for Serial<P> {
    fn drop(&mut self) {
        // SAFETY: positions `next..len` were never handed out.
        unsafe { self.producer.drop_range(self.next, self.len) }
    }
}

/// `flat_map(f)` with `f` returning a parallel iterator; `flatten` is
/// `flat_map` by the identity.
#[derive(Debug)]
pub struct FlatMap<P, F> {
    pub(in crate::par) base: P,
    pub(in crate::par) f: F,
}

impl<P: Producer + Clone, F: Clone> Clone for FlatMap<P, F> {
    fn clone(&self) -> Self {
        let (base, f) = clone_parts(&self.base, || self.f.clone());
        FlatMap { base, f }
    }
}

/// The iterator of one range of [`FlatMap`]: each outer item's inner
/// iterator in turn.
pub struct FlatMapItems<'a, It, F, Q: Producer> {
    base: It,
    f: &'a F,
    front: Option<Serial<Q>>,
}

impl<It, F, I> Iterator for FlatMapItems<'_, It, F, <I::Iter as ParallelIterator>::Producer>
where
    It: Iterator,
    F: Fn(It::Item) -> I,
    I: IntoParallelIterator,
{
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        loop {
            if let Some(item) = self.front.as_mut().and_then(Iterator::next) {
                return Some(item);
            }
            // A stopped search takes no more outer items either (a heavy
            // base's one position may hold many).
            if self.front.is_some() && stopped() {
                return None;
            }
            self.front = Some(serial((self.f)(self.base.next()?)));
        }
    }

    /// Each inner iterator folded whole ([`Serial::fold`]): what `sum`,
    /// `count`, `for_each` and `collect` run.
    #[inline]
    fn fold<B, G: FnMut(B, I::Item) -> B>(mut self, init: B, mut g: G) -> B {
        let mut acc = init;
        if let Some(front) = self.front.take() {
            acc = front.fold(acc, &mut g);
        }
        let f = self.f;
        self.base
            .fold(acc, |acc, outer| serial(f(outer)).fold(acc, &mut g))
    }
}

// SAFETY: hands its positions to the wrapped producer once each (each range
// is the base's same range); never `EXACT`.
unsafe impl<P, F, I> Producer for FlatMap<P, F>
where
    P: Producer,
    F: Fn(P::Item) -> I + Sync,
    I: IntoParallelIterator,
{
    type Item = I::Item;
    type Iter<'a>
        = FlatMapItems<'a, P::Iter<'a>, F, <I::Iter as ParallelIterator>::Producer>
    where
        Self: 'a;
    const EXACT: bool = false;
    // An outer item's inner parallel iterator may hold any number of
    // items: a search looks for its stop inside the inner walks
    // (`nest/stop.rs`).
    same_positions!(base, P, HEAVY = true);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        FlatMapItems {
            // SAFETY: forwarded from the caller.
            base: unsafe { self.base.range(begin, end) },
            f: &self.f,
            front: None,
        }
    }
}
