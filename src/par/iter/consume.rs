//! The consumers: each is a [`Consumer`] (a fold per thread and a combine)
//! handed to the driver. Early-stopping consumers share one cache-padded
//! atomic: a flag (`any`, `all`, `find_any`) or a bound that only goes
//! down (`find_first`, `position_first`, `try_*`: blocks past the lowest
//! hit so far are skipped, so the answer is the lowest position's).

use super::convert::Try;
use super::par::Par;
use crate::par::drive::consumer::Consumer;
use crate::par::drive::drive;
use crate::par::producer::Producer;
use crate::sync::{AtomicUsize, Ordering};
use core::cmp::Ordering as Order;
use core::iter::{Product, Sum};
use core::marker::PhantomData;
use crossbeam_utils::CachePadded;
use std::collections::LinkedList;
use std::vec::Vec;

pub(super) mod each;
pub(super) mod find_last;

/// Runs `consumer` over `par`.
#[inline]
pub(crate) fn run<P: Producer, C: Consumer<P::Item>>(par: Par<P>, consumer: &C) -> C::Acc {
    let (producer, config) = par.into_parts();
    drive(&producer, &config, consumer)
}

/// `sum` and `product`: a consumer that folds each block with `$trait`'s
/// `$method` and then folds that into the partial, and the call that runs
/// it.
macro_rules! accumulating {
    ($consumer:ident, $trait:ident, $method:ident) => {
        struct $consumer<S>(PhantomData<fn() -> S>);

        impl<T, S: Send + $trait<T> + $trait<S>> Consumer<T> for $consumer<S> {
            type Acc = S;
            fn start(&self) -> S {
                core::iter::empty::<S>().$method()
            }
            #[inline]
            fn fold<I: Iterator<Item = T>>(&self, acc: S, _first: usize, items: I) -> S {
                let block: S = items.$method();
                [acc, block].into_iter().$method()
            }
            fn combine(&self, left: S, right: S) -> S {
                [left, right].into_iter().$method()
            }
        }

        pub(crate) fn $method<P: Producer, S: Send + $trait<P::Item> + $trait<S>>(
            par: Par<P>,
        ) -> S {
            run(par, &$consumer(PhantomData))
        }
    };
}

accumulating!(Summing, Sum, sum);
accumulating!(Multiplying, Product, product);

struct Reducing<I, F> {
    identity: I,
    op: F,
}

impl<T: Send, I: Fn() -> T + Sync, F: Fn(T, T) -> T + Sync> Consumer<T> for Reducing<I, F> {
    type Acc = T;
    fn start(&self) -> T {
        (self.identity)()
    }
    #[inline]
    fn fold<It: Iterator<Item = T>>(&self, acc: T, _first: usize, items: It) -> T {
        items.fold(acc, &self.op)
    }
    fn combine(&self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

pub(crate) fn reduce<P, I, F>(par: Par<P>, identity: I, op: F) -> P::Item
where
    P: Producer,
    P::Item: Send,
    I: Fn() -> P::Item + Sync,
    F: Fn(P::Item, P::Item) -> P::Item + Sync,
{
    run(par, &Reducing { identity, op })
}

struct Counting;

impl<T> Consumer<T> for Counting {
    type Acc = usize;
    const SPLIT_FREE: bool = true;
    fn start(&self) -> usize {
        0
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: usize, _first: usize, items: I) -> usize {
        acc + items.count()
    }
    fn combine(&self, left: usize, right: usize) -> usize {
        left + right
    }
}

pub(crate) fn count<P: Producer>(par: Par<P>) -> usize {
    run(par, &Counting)
}

/// Which end of the order [`best`] looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extreme {
    /// The smallest item, the first (in input order) of equals: `min`.
    Min,
    /// The largest item, the last (in input order) of equals: `max`.
    Max,
}

/// `min`/`max` and their `_by`/`_by_key` forms: the best item with the
/// first position of the block it came from, so that ties go to the first
/// (`min`) or the last (`max`) in input order under any schedule.
struct Best<F> {
    cmp: F,
    /// `Max` keeps the later of equals, `Min` the earlier.
    extreme: Extreme,
}

impl<F> Best<F> {
    /// Whether `candidate` (at a later position than `kept`) replaces it.
    fn replaces<T>(&self, kept: &T, candidate: &T) -> bool
    where
        F: Fn(&T, &T) -> Order,
    {
        let max = self.extreme == Extreme::Max;
        match (self.cmp)(candidate, kept) {
            Order::Less => !max,
            Order::Greater => max,
            Order::Equal => max,
        }
    }
}

impl<T: Send, F: Fn(&T, &T) -> Order + Sync> Consumer<T> for Best<F> {
    type Acc = Option<(usize, T)>;
    fn start(&self) -> Self::Acc {
        None
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, first: usize, items: I) -> Self::Acc {
        let best = items.fold(None, |kept: Option<T>, item| match kept {
            Some(kept) if !self.replaces(&kept, &item) => Some(kept),
            _ => Some(item),
        });
        self.combine(acc, best.map(|item| (first, item)))
    }
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        match (left, right) {
            (None, right) => right,
            (left, None) => left,
            (Some(a), Some(b)) => {
                // Order by position, so "later" means later in the input.
                let (early, late) = if a.0 <= b.0 { (a, b) } else { (b, a) };
                if self.replaces(&early.1, &late.1) {
                    Some(late)
                } else {
                    Some(early)
                }
            }
        }
    }
}

pub(crate) fn best<P, F>(par: Par<P>, cmp: F, extreme: Extreme) -> Option<P::Item>
where
    P: Producer,
    P::Item: Send,
    F: Fn(&P::Item, &P::Item) -> Order + Sync,
{
    run(par, &Best { cmp, extreme }).map(|(_, item)| item)
}

/// The shared early-stop state: the lowest position with a hit so far
/// (`usize::MAX`: none). A flag is the same thing with "any hit" as the
/// test.
struct Bound(CachePadded<AtomicUsize>);

impl Bound {
    fn new() -> Self {
        Bound(CachePadded::new(AtomicUsize::new(usize::MAX)))
    }

    /// Records a hit in the block starting at `first`.
    fn hit(&self, first: usize) {
        // Relaxed: only a hint for skipping; the results travel in the
        // partials, through the join.
        self.0.fetch_min(first, Ordering::Relaxed);
    }

    /// Whether the block starting at `first` can be skipped: for the
    /// [`Wanted::First`] hit, only blocks past the lowest hit; for
    /// [`Wanted::Any`], every block once any hit.
    fn skips(&self, first: usize, wanted: Wanted) -> bool {
        // Relaxed: as in `hit`.
        let bound = self.0.load(Ordering::Relaxed);
        match wanted {
            Wanted::First => first > bound,
            Wanted::Any => bound != usize::MAX,
        }
    }
}

/// Which hit [`find`] answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// Any hit: the call stops at the first one found (`find_any`, `any`,
    /// `all`, `position_any`).
    Any,
    /// The hit at the lowest position: blocks past the lowest hit so far
    /// are skipped (`find_first`, `position_first`).
    First,
}

/// `any`, `all`, `find_*`, `position_*`: `test` maps an item to its answer.
struct Find<F> {
    test: F,
    wanted: Wanted,
    bound: Bound,
}

impl<T, R: Send, F: Fn(T) -> Option<R> + Sync> Consumer<T> for Find<F> {
    type Acc = Option<(usize, R)>;
    const STOPS: bool = true;
    fn start(&self) -> Self::Acc {
        None
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, first: usize, mut items: I) -> Self::Acc {
        if acc.is_some() {
            // A thread's blocks only go up: its own earlier hit wins.
            return acc;
        }
        let found = items.find_map(&self.test)?;
        self.bound.hit(first);
        Some((first, found))
    }
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        lowest(left, right)
    }
    fn skip(&self, first: usize) -> bool {
        self.bound.skips(first, self.wanted)
    }
}

/// Of two answers tagged with their positions, the lower one's (`left`'s
/// on a tie).
fn lowest<T>(left: Option<(usize, T)>, right: Option<(usize, T)>) -> Option<(usize, T)> {
    match (left, right) {
        (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
        (left, right) => left.or(right),
    }
}

pub(crate) fn find<P, R, F>(par: Par<P>, test: F, wanted: Wanted) -> Option<R>
where
    P: Producer,
    R: Send,
    F: Fn(P::Item) -> Option<R> + Sync,
{
    let find = Find {
        test,
        wanted,
        bound: Bound::new(),
    };
    run(par, &find).map(|(_, found)| found)
}

/// `try_for_each`: the failure of the lowest position.
struct TryEach<F, R> {
    f: F,
    bound: Bound,
    _r: PhantomData<fn() -> R>,
}

impl<T, R: Try<Output = ()>, F: Fn(T) -> R + Sync> Consumer<T> for TryEach<F, R>
where
    R::Residual: Send,
{
    type Acc = Option<(usize, R::Residual)>;
    const STOPS: bool = true;
    fn start(&self) -> Self::Acc {
        None
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, first: usize, mut items: I) -> Self::Acc {
        if acc.is_some() {
            return acc;
        }
        let failure = items.find_map(|item| (self.f)(item).into_result().err())?;
        self.bound.hit(first);
        Some((first, failure))
    }
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        lowest(left, right)
    }
    fn skip(&self, first: usize) -> bool {
        self.bound.skips(first, Wanted::First)
    }
}

pub(crate) fn try_for_each<P, F, R>(par: Par<P>, f: F) -> R
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
    R: Try<Output = ()>,
    R::Residual: Send,
{
    let each = TryEach {
        f,
        bound: Bound::new(),
        _r: PhantomData,
    };
    match run(par, &each) {
        Some((_, failure)) => R::from_residual(failure),
        None => R::from_output(()),
    }
}

/// `try_reduce`: values reduced while no failure is found; the failure of
/// the lowest position otherwise.
struct TryReduce<I, F> {
    identity: I,
    op: F,
    bound: Bound,
}

impl<T, R, I, F> Consumer<R> for TryReduce<I, F>
where
    R: Try<Output = T>,
    R::Residual: Send,
    T: Send,
    I: Fn() -> T + Sync,
    F: Fn(T, T) -> R + Sync,
{
    type Acc = Result<T, (usize, R::Residual)>;
    const STOPS: bool = true;
    fn start(&self) -> Self::Acc {
        Ok((self.identity)())
    }
    #[inline]
    fn fold<It: Iterator<Item = R>>(&self, acc: Self::Acc, first: usize, items: It) -> Self::Acc {
        let mut value = acc?;
        for item in items {
            let next = item
                .into_result()
                .and_then(|item| (self.op)(value, item).into_result());
            match next {
                Ok(next) => value = next,
                Err(failure) => {
                    self.bound.hit(first);
                    return Err((first, failure));
                }
            }
        }
        Ok(value)
    }
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        match (left, right) {
            (Ok(a), Ok(b)) => (self.op)(a, b)
                .into_result()
                .map_err(|failure| (usize::MAX, failure)),
            (Err(a), Err(b)) => Err(if b.0 < a.0 { b } else { a }),
            (Err(a), Ok(_)) | (Ok(_), Err(a)) => Err(a),
        }
    }
    fn skip(&self, first: usize) -> bool {
        self.bound.skips(first, Wanted::First)
    }
}

pub(crate) fn try_reduce<P, T, I, F>(par: Par<P>, identity: I, op: F) -> P::Item
where
    P: Producer,
    P::Item: Try<Output = T>,
    <P::Item as Try>::Residual: Send,
    T: Send,
    I: Fn() -> T + Sync,
    F: Fn(T, T) -> P::Item + Sync,
{
    let reduce = TryReduce {
        identity,
        op,
        bound: Bound::new(),
    };
    match run(par, &reduce) {
        Ok(value) => P::Item::from_output(value),
        Err((_, failure)) => P::Item::from_residual(failure),
    }
}

/// `collect_vec_list`: each thread's items in one `Vec`, the `Vec`s in
/// input order. Static only, so that thread order is input order.
struct VecList;

impl<T: Send> Consumer<T> for VecList {
    type Acc = LinkedList<Vec<T>>;
    const STATIC_ONLY: bool = true;
    fn start(&self) -> Self::Acc {
        LinkedList::new()
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(
        &self,
        mut acc: Self::Acc,
        _first: usize,
        items: I,
    ) -> Self::Acc {
        match acc.back_mut() {
            Some(last) => last.extend(items),
            None => {
                let first: Vec<T> = items.collect();
                // A share with no items leaves no `Vec` in the list.
                if !first.is_empty() {
                    acc.push_back(first);
                }
            }
        }
        acc
    }
    fn combine(&self, mut left: Self::Acc, mut right: Self::Acc) -> Self::Acc {
        left.append(&mut right);
        left
    }
}

pub(crate) fn vec_list<P: Producer>(par: Par<P>) -> LinkedList<Vec<P::Item>>
where
    P::Item: Send,
{
    run(par, &VecList)
}
