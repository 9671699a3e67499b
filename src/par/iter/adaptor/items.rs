//! Adaptors that pass, change or count items one by one: `update`,
//! `positions`, `try_fold` / `try_fold_with`, `take_any` and `skip_any`.
//! Each range of one of them is the same range of its base, run through a
//! small serial iterator of its own.

use super::{clone_parts, MakeState};
use crate::par::iter::convert::Try;
use crate::par::producer::{Indexed, Producer};
use crate::sync::{AtomicUsize, Ordering};
use core::marker::PhantomData;

/// `update(f)`: each item passes `f` by mutable reference on its way.
#[derive(Debug)]
pub struct Update<P, F> {
    pub(in crate::par) base: P,
    pub(in crate::par) f: F,
}

impl<P: Producer + Clone, F: Clone> Clone for Update<P, F> {
    fn clone(&self) -> Self {
        let (base, f) = clone_parts(&self.base, || self.f.clone());
        Update { base, f }
    }
}

/// The iterator of one range of [`Update`].
#[derive(Debug)]
pub struct UpdateIter<'a, It, F> {
    items: It,
    f: &'a F,
}

impl<It: Iterator, F: Fn(&mut It::Item)> Iterator for UpdateIter<'_, It, F> {
    type Item = It::Item;

    #[inline]
    fn next(&mut self) -> Option<It::Item> {
        let mut item = self.items.next()?;
        (self.f)(&mut item);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

// SAFETY: forwards its positions to the base, once each, one item per
// base item.
unsafe impl<P: Producer, F: Fn(&mut P::Item) + Sync> Producer for Update<P, F> {
    type Item = P::Item;
    type Iter<'a>
        = UpdateIter<'a, P::Iter<'a>, F>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        UpdateIter {
            // SAFETY: forwarded from the caller.
            items: unsafe { self.base.range(begin, end) },
            f: &self.f,
        }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<P: Indexed, F: Fn(&mut P::Item) + Sync> Indexed for Update<P, F> {}

/// `positions(f)`: the positions of the items for which `f` is true.
#[derive(Debug)]
pub struct Positions<P, F> {
    pub(in crate::par) base: P,
    pub(in crate::par) f: F,
}

impl<P: Producer + Clone, F: Clone> Clone for Positions<P, F> {
    fn clone(&self) -> Self {
        let (base, f) = clone_parts(&self.base, || self.f.clone());
        Positions { base, f }
    }
}

/// The iterator of one range of [`Positions`].
#[derive(Debug)]
pub struct PositionsIter<'a, It, F> {
    items: It,
    /// The position of the next item.
    next: usize,
    f: &'a F,
}

impl<It: Iterator, F: Fn(It::Item) -> bool> Iterator for PositionsIter<'_, It, F> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            let item = self.items.next()?;
            self.next += 1;
            if (self.f)(item) {
                return Some(self.next - 1);
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.items.size_hint().1)
    }
}

// SAFETY: forwards its positions to the base, once each; an indexed base's
// items are its positions in order.
unsafe impl<P: Indexed, F: Fn(P::Item) -> bool + Sync> Producer for Positions<P, F> {
    type Item = usize;
    type Iter<'a>
        = PositionsIter<'a, P::Iter<'a>, F>
    where
        Self: 'a;
    const EXACT: bool = false;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        PositionsIter {
            // SAFETY: forwarded from the caller.
            items: unsafe { self.base.range(begin, end) },
            next: begin,
            f: &self.f,
        }
    }
}

/// `try_fold(identity, f)` and `try_fold_with(init, f)`: each range folds
/// into one partial of type `R`, as `fold` does, but stops at the first
/// failure (`Err`, `None`), which becomes the partial. The rest of that
/// range is dropped; other ranges go on (reduce the partials with
/// `try_reduce` to stop the whole call at a failure).
pub struct TryFold<P, I, F, R> {
    base: P,
    identity: I,
    f: F,
    _r: PhantomData<fn() -> R>,
}

impl<P: core::fmt::Debug, I, F, R> core::fmt::Debug for TryFold<P, I, F, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TryFold")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// With no bound on `R`, which only names the partials' type.
impl<P: Producer + Clone, I: Clone, F: Clone, R> Clone for TryFold<P, I, F, R> {
    fn clone(&self) -> Self {
        let (base, (identity, f)) =
            clone_parts(&self.base, || (self.identity.clone(), self.f.clone()));
        TryFold::new(base, identity, f)
    }
}

impl<P, I, F, R> TryFold<P, I, F, R> {
    pub(in crate::par) fn new(base: P, identity: I, f: F) -> Self {
        TryFold {
            base,
            identity,
            f,
            _r: PhantomData,
        }
    }
}

/// `try_fold_with`: a clone of `init` starts each partial.
pub type TryFoldWith<P, T, F, R> = TryFold<P, super::CloneOf<T>, F, R>;

/// The iterator of one range of [`TryFold`]: folds the range when asked
/// for its one item.
#[derive(Debug)]
pub struct TryFoldIter<'a, It, I, F, R> {
    items: Option<It>,
    identity: &'a I,
    f: &'a F,
    _r: PhantomData<fn() -> R>,
}

impl<It, I, F, R, T> Iterator for TryFoldIter<'_, It, I, F, R>
where
    It: Iterator,
    I: MakeState<State = T>,
    F: Fn(T, It::Item) -> R,
    R: Try<Output = T>,
{
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let items = self.items.take()?;
        let mut acc = self.identity.make();
        // On a failure, `items` drops the rest of the range as it goes.
        for item in items {
            match (self.f)(acc, item).into_result() {
                Ok(next) => acc = next,
                Err(failure) => return Some(R::from_residual(failure)),
            }
        }
        Some(R::from_output(acc))
    }
}

// SAFETY: forwards its positions to the base, once each.
unsafe impl<P, I, F, R, T> Producer for TryFold<P, I, F, R>
where
    P: Producer,
    I: MakeState<State = T>,
    F: Fn(T, P::Item) -> R + Sync,
    R: Try<Output = T>,
{
    type Item = R;
    type Iter<'a>
        = TryFoldIter<'a, P::Iter<'a>, I, F, R>
    where
        Self: 'a;
    const EXACT: bool = false;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        TryFoldIter {
            // SAFETY: forwarded from the caller.
            items: Some(unsafe { self.base.range(begin, end) }),
            identity: &self.identity,
            f: &self.f,
            _r: PhantomData,
        }
    }
}

/// What [`AnyN`] does with the `n` items it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counted {
    /// The counted items are kept, the rest dropped: `take_any`.
    Kept,
    /// The counted items are dropped, the rest kept: `skip_any`.
    Dropped,
}

/// `take_any(n)` and `skip_any(n)`: the first `n` items to reach the
/// shared counter (in no set order) are taken (`take_any`: the rest are
/// dropped) or dropped (`skip_any`: the rest pass). The counter is one
/// atomic in the adaptor, fresh for the call that consumes it.
#[derive(Debug)]
pub struct AnyN<P> {
    pub(in crate::par) base: P,
    pub(in crate::par) n: usize,
    /// Whether the counted items are the ones kept (`take_any`).
    pub(in crate::par) take: bool,
    pub(in crate::par) counted: AtomicUsize,
}

/// The count so far goes with the clone: 0, since a producer is cloned only
/// before its call (`producer.rs`).
impl<P: Clone> Clone for AnyN<P> {
    fn clone(&self) -> Self {
        AnyN {
            base: self.base.clone(),
            n: self.n,
            take: self.take,
            // Relaxed: the count is the only data (as in `AnyNIter::full`).
            counted: AtomicUsize::new(self.counted.load(Ordering::Relaxed)),
        }
    }
}

impl<P> AnyN<P> {
    pub(in crate::par) fn new(base: P, n: usize, counted: Counted) -> Self {
        AnyN {
            base,
            n,
            take: counted == Counted::Kept,
            counted: AtomicUsize::new(0),
        }
    }
}

/// The iterator of one range of [`AnyN`].
#[derive(Debug)]
pub struct AnyNIter<'a, It> {
    items: It,
    n: usize,
    take: bool,
    counted: &'a AtomicUsize,
}

impl<It> AnyNIter<'_, It> {
    /// Whether the `n` items are all counted.
    #[inline]
    fn full(&self) -> bool {
        // Relaxed: the count is the only data; read-modify-writes on one
        // atomic are totally ordered, so at most `n` claims succeed.
        self.counted.load(Ordering::Relaxed) >= self.n
    }

    /// Counts one item, unless `n` are already counted.
    #[inline]
    // Nightly renames `fetch_update` to `try_update`, which the oldest
    // supported Rust (1.74) lacks.
    #[allow(deprecated)]
    fn claim(&self) -> bool {
        let n = self.n;
        // Relaxed: as in `full`.
        self.counted
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                (c < n).then_some(c + 1)
            })
            .is_ok()
    }
}

impl<It: Iterator> Iterator for AnyNIter<'_, It> {
    type Item = It::Item;

    #[inline]
    fn next(&mut self) -> Option<It::Item> {
        if self.take {
            // Once full, stop: the rest of the range drops with `items`,
            // without running the adaptors before it.
            if self.full() {
                return None;
            }
            let item = self.items.next()?;
            return self.claim().then_some(item);
        }
        loop {
            let item = self.items.next()?;
            if self.full() || !self.claim() {
                return Some(item);
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.items.size_hint().1)
    }
}

// SAFETY: forwards its positions to the base, once each.
unsafe impl<P: Producer> Producer for AnyN<P> {
    type Item = P::Item;
    type Iter<'a>
        = AnyNIter<'a, P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = false;
    const BOUNDLESS: bool = P::BOUNDLESS;
    const HEAVY: bool = P::HEAVY;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        AnyNIter {
            // SAFETY: forwarded from the caller.
            items: unsafe { self.base.range(begin, end) },
            n: self.n,
            take: self.take,
            counted: &self.counted,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }

    #[inline]
    fn live_from(&self, begin: usize) -> usize {
        // Relaxed: as in `AnyNIter::full`; once `take_any` has its `n`
        // items, the rest of the call yields nothing.
        if self.take && self.counted.load(Ordering::Relaxed) >= self.n {
            return self.base.len();
        }
        self.base.live_from(begin)
    }
}
