//! `flat_map` and `flatten` with a parallel inner iterator, as rayon has
//! them.
//!
//! A call is one fork over the outer items, so an inner parallel iterator
//! made inside an item runs serially on the thread that made it: the outer
//! items already spread over every thread (rayon can also split a large
//! inner iterator; here, split the outer side finer instead), as a
//! [`Serial`]. A search from the end (`find_last`) searches each inner
//! iterator from its end instead ([`Producer::rfind_map`]).

use super::clone_parts;
use super::serial::Serial;
use crate::nest::stop::stopped;
use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::ParallelIterator;
use crate::par::producer::Producer;

/// The items of `inner`, a parallel iterator, run here (its pool and
/// schedule are not used).
fn serial<I: IntoParallelIterator>(inner: I) -> Serial<<I::Iter as ParallelIterator>::Producer> {
    Serial::new(producer_of(inner))
}

/// The producer of `inner`, a parallel iterator.
fn producer_of<I: IntoParallelIterator>(inner: I) -> <I::Iter as ParallelIterator>::Producer {
    inner.into_par_iter().into_par().into_parts().0
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

    /// Each outer item's inner iterator searched from its end, the outer
    /// items from the last.
    unsafe fn rfind_map<A, T: FnMut(I::Item) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut T,
    ) -> Option<A> {
        let f = &self.f;
        // SAFETY: forwarded from the caller.
        unsafe {
            (self.base).rfind_map(begin, end, &mut |outer| {
                last_of(producer_of(f(outer)), test)
            })
        }
    }
}

/// The answer `test` gives to the last item of an inner iterator's
/// `producer` it answers, searched from the end (a boundless producer,
/// `par_bridge`'s, from its start: its length is only a bound).
fn last_of<P: Producer, A>(producer: P, test: &mut impl FnMut(P::Item) -> Option<A>) -> Option<A> {
    if P::BOUNDLESS {
        return Serial::new(producer).filter_map(test).last();
    }
    let len = producer.len();
    // SAFETY: a fresh producer, whose positions this one search takes.
    unsafe { producer.rfind_map(0, len, test) }
}
