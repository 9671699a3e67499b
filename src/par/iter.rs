//! [`ParallelIterator`]: rayon's method names, argument shapes and bounds,
//! over tine's one-fork driver, in one trait; the folder holds what its
//! methods name.
//!
//! Every parallel iterator is a [`Par`]: a producer (the source and its
//! adaptors, `producer.rs` and `iter/adaptor.rs`) and the call's settings
//! ([`Schedule`], length bounds, pool). Adaptors wrap the producer; a
//! consumer hands it to the driver (`drive.rs`), which forks once.
//!
//! The trait's methods are short forwards: the adaptors' each to an
//! adaptor (`iter/adaptor/`), the consumers' each to a consumer
//! (`iter/consume.rs`, `iter/collect.rs`, `iter/extend.rs`). The trait is
//! one concept and stays whole in this file, as rayon's does.
//!
//! Its children, each importing only those after it: `indexed.rs`
//! ([`IndexedParallelIterator`](indexed::IndexedParallelIterator)),
//! `adaptor/`, `collect.rs`, `extend.rs`, `consume.rs` (with `consume/`),
//! `convert.rs` (the conversions in and out, and `Try`) and `par.rs`
//! ([`Par`]).

pub(super) mod adaptor;
mod collect;
mod consume;
pub(super) mod convert;
pub(super) mod extend;
pub(super) mod indexed;
pub(super) mod par;

use crate::par::producer::Producer;
use crate::par::settings::{PoolRef, Schedule};
use crate::schedule::ForkJoin;
use adaptor::any_while::{AnyWhile, WhileKind, WhileSome};
use adaptor::flatten::FlatMap;
use adaptor::intersperse::Intersperse;
use adaptor::items::{AnyN, Counted, TryFold, TryFoldWith, Update};
use adaptor::reshape::{Cloned, Copied, Fold, Pooled};
use adaptor::slicing::Chain;
use adaptor::{CloneOf, Filter, FilterMap, FlatMapIter, Inspect, Map, MapInit, MapWith};
use consume::{Extreme, Wanted};
use convert::{FromParallelIterator, IntoParallelIterator, Try};
use core::cmp::Ordering;
use core::marker::PhantomData;
use core::ptr::NonNull;
use extend::ParallelExtend;
use par::Par;

/// A parallel iterator, with rayon's methods. Implemented by [`Par`]; bring
/// it into scope with `use tine::prelude::*`.
///
/// Each consumer is one fork of the pool (see [`crate::par`] for the
/// execution model, the serial cutoff and the pool a call runs on).
pub trait ParallelIterator: Sized + Send {
    /// The items.
    type Item: Send;
    /// The producer behind the iterator (an implementation detail).
    #[doc(hidden)]
    type Producer: Producer<Item = Self::Item> + Send;

    /// The iterator as a [`Par`] (an implementation detail).
    #[doc(hidden)]
    fn into_par(self) -> Par<Self::Producer>;

    /// Applies `f` to each item.
    fn map<F, R>(self, f: F) -> Par<Map<Self::Producer, F>>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        self.into_par().wrap(|base| Map { base, f })
    }

    /// Applies `f` to each item with a state that `init` makes once per
    /// range a thread runs (rayon: once per split).
    fn map_init<I, S, F, R>(self, init: I, f: F) -> Par<MapInit<Self::Producer, I, F>>
    where
        I: Fn() -> S + Sync + Send,
        F: Fn(&mut S, Self::Item) -> R + Sync + Send,
        R: Send,
    {
        self.into_par().wrap(|base| MapInit { base, init, f })
    }

    /// Applies `f` to each item with a clone of `value` per range a thread
    /// runs (rayon's `map_with`).
    fn map_with<S, F, R>(self, value: S, f: F) -> Par<MapWith<Self::Producer, S, F>>
    where
        S: Clone + Send,
        F: Fn(&mut S, Self::Item) -> R + Sync + Send,
        R: Send,
    {
        self.into_par().wrap(|base| MapInit {
            base,
            init: CloneOf::new(value),
            f,
        })
    }

    /// Calls `f` on a reference to each item as it passes.
    fn inspect<F>(self, f: F) -> Par<Inspect<Self::Producer, F>>
    where
        F: Fn(&Self::Item) + Sync + Send,
    {
        self.into_par().wrap(|base| Inspect { base, f })
    }

    /// Keeps the items for which `f` is true.
    fn filter<F>(self, f: F) -> Par<Filter<Self::Producer, F>>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.into_par().wrap(|base| Filter { base, f })
    }

    /// Maps each item to an `Option` and keeps the `Some`s.
    fn filter_map<F, R>(self, f: F) -> Par<FilterMap<Self::Producer, F>>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.into_par().wrap(|base| FilterMap { base, f })
    }

    /// Maps each item to a serial iterator and yields its items in place.
    fn flat_map_iter<F, I>(self, f: F) -> Par<FlatMapIter<Self::Producer, F>>
    where
        F: Fn(Self::Item) -> I + Sync + Send,
        I: IntoIterator,
        I::Item: Send,
    {
        self.into_par().wrap(|base| FlatMapIter { base, f })
    }

    /// Maps each item to a parallel iterator (anything
    /// [`IntoParallelIterator`]) and yields its items in place, as rayon's
    /// `flat_map`. The outer items spread over the threads; each inner
    /// iterator runs serially on the thread of its outer item.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let pairs: Vec<(u32, u32)> =
    ///     (0..4u32).into_par_iter().flat_map(|i| (0..i).into_par_iter().map(move |j| (i, j))).collect();
    /// assert_eq!(pairs.len(), 6);
    /// ```
    fn flat_map<F, I>(self, f: F) -> Par<FlatMap<Self::Producer, F>>
    where
        F: Fn(Self::Item) -> I + Sync + Send,
        I: IntoParallelIterator,
    {
        self.into_par().wrap(|base| FlatMap { base, f })
    }

    /// Yields the items of each item, itself a parallel iterator, in place
    /// (rayon's `flatten`).
    #[allow(clippy::type_complexity)]
    fn flatten(self) -> Par<FlatMap<Self::Producer, fn(Self::Item) -> Self::Item>>
    where
        Self::Item: IntoParallelIterator,
    {
        self.flat_map(core::convert::identity as fn(Self::Item) -> Self::Item)
    }

    /// Yields the items of each item, a serial iterator, in place (rayon's
    /// `flatten_iter`).
    #[allow(clippy::type_complexity)]
    fn flatten_iter(self) -> Par<FlatMapIter<Self::Producer, fn(Self::Item) -> Self::Item>>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        self.flat_map_iter(core::convert::identity as fn(Self::Item) -> Self::Item)
    }

    /// Copies items out of references.
    fn copied<'a, T>(self) -> Par<Copied<Self::Producer>>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        self.into_par().wrap(Copied)
    }

    /// Clones items out of references.
    fn cloned<'a, T>(self) -> Par<Cloned<Self::Producer>>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        self.into_par().wrap(Cloned)
    }

    /// Folds each range a thread runs into one partial, starting from
    /// `identity()`: the result has one item per such range, to be reduced
    /// (`reduce`, `sum`, `collect`, ...), as in rayon.
    fn fold<T, I, F>(self, identity: I, f: F) -> Par<Fold<Self::Producer, I, F>>
    where
        I: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send,
    {
        self.into_par().wrap(|base| Fold { base, identity, f })
    }

    /// [`fold`](Self::fold) from a clone of `init` per range, as rayon's
    /// `fold_with`.
    fn fold_with<T, F>(self, init: T, f: F) -> Par<Fold<Self::Producer, CloneOf<T>, F>>
    where
        T: Clone + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        self.into_par().wrap(|base| Fold {
            base,
            identity: CloneOf::new(init),
            f,
        })
    }

    /// Calls `f` on a mutable reference to each item, then passes the item
    /// on (rayon's `update`).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<u32> = (0..4u32).into_par_iter().update(|x| *x *= 10).collect();
    /// assert_eq!(v, [0, 10, 20, 30]);
    /// ```
    fn update<F>(self, f: F) -> Par<Update<Self::Producer, F>>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        self.into_par().wrap(|base| Update { base, f })
    }

    /// [`fold`](Self::fold) that stops at a failure: each range a thread
    /// runs folds into one `R` (`Ok`/`Some` partial, or the first failure,
    /// after which that range's other items are dropped unseen), as rayon's
    /// `try_fold`. Reduce the partials with
    /// [`try_reduce`](Self::try_reduce) to stop the whole call.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let sum = (1..=100u8)
    ///     .into_par_iter()
    ///     .try_fold(|| 0u8, |a, x| a.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, None); // 5050 does not fit a u8
    /// ```
    fn try_fold<T, R, I, F>(self, identity: I, f: F) -> Par<TryFold<Self::Producer, I, F, R>>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        I: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        self.into_par().wrap(|base| TryFold::new(base, identity, f))
    }

    /// [`try_fold`](Self::try_fold) from a clone of `init` per range, as
    /// rayon's `try_fold_with`.
    fn try_fold_with<F, T, R>(self, init: T, f: F) -> Par<TryFoldWith<Self::Producer, T, F, R>>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        self.into_par()
            .wrap(|base| TryFold::new(base, CloneOf::new(init), f))
    }

    /// A clone of `separator` between every two items, as rayon's
    /// `intersperse`. Over an iterator with one item per position (a
    /// source, `map`, `enumerate`, `zip`, ...) the result is indexed too.
    /// Over one whose positions may yield no item or several (`filter`,
    /// `flat_map`, a bridge), the items are gathered into a `Vec` first,
    /// here, in one call with this iterator's settings; the interspersed
    /// iterator then has default settings.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v: Vec<i32> = (1..4).into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// let s: String = "a,b,c".par_split(',').intersperse("; ").collect();
    /// assert_eq!(s, "a; b; c");
    /// ```
    fn intersperse(self, separator: Self::Item) -> Par<Intersperse<Self::Producer>>
    where
        Self::Item: Clone,
    {
        let par = self.into_par();
        if <Self::Producer as Producer>::EXACT {
            par.wrap(|base| Intersperse::direct(base, separator))
        } else {
            let items: std::vec::Vec<Self::Item> = par.collect();
            Par::new(Intersperse::gathered(items, separator))
        }
    }

    /// The items while `predicate` holds, in no set order, as rayon's
    /// `take_any_while`: once a thread meets an item that fails it, no
    /// range yields more (items other threads reached before they saw it
    /// still pass).
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let small: Vec<u32> = (0..1000u32).into_par_iter().take_any_while(|&x| x < 100).collect();
    /// assert!(small.iter().all(|&x| x < 100));
    /// ```
    fn take_any_while<F>(self, predicate: F) -> Par<AnyWhile<Self::Producer, F>>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.into_par()
            .wrap(|base| AnyWhile::new(base, predicate, WhileKind::Take))
    }

    /// Drops items while `predicate` holds, in no set order, as rayon's
    /// `skip_any_while`: once a thread meets an item that fails it, every
    /// item from then on passes, that one included.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let rest: Vec<u32> = (0..1000u32).into_par_iter().skip_any_while(|&x| x < 100).collect();
    /// assert!(rest.contains(&999));
    /// ```
    fn skip_any_while<F>(self, predicate: F) -> Par<AnyWhile<Self::Producer, F>>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.into_par()
            .wrap(|base| AnyWhile::new(base, predicate, WhileKind::Skip))
    }

    /// The values of the `Some` items until a `None`, in no set order, as
    /// rayon's `while_some`: once a thread meets a `None`, no range yields
    /// more.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let all: Vec<u32> = (0..100u32).into_par_iter().map(Some).while_some().collect();
    /// assert_eq!(all.len(), 100);
    /// let cut: Vec<u32> = (0..100u32).into_par_iter().map(|x| (x != 50).then_some(x)).while_some().collect();
    /// assert!(!cut.contains(&50));
    /// ```
    fn while_some<T>(self) -> Par<WhileSome<Self::Producer>>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        self.into_par().wrap(WhileSome::new)
    }

    /// Any `n` of the items (all if there are fewer), in no set order, as
    /// rayon's `take_any`; the others are dropped unseen once `n` are
    /// taken. Works on every iterator, indexed or not.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let some: Vec<u32> = (0..100u32).into_par_iter().filter(|x| x % 2 == 0).take_any(5).collect();
    /// assert_eq!(some.len(), 5);
    /// assert!(some.iter().all(|x| x % 2 == 0));
    /// ```
    fn take_any(self, n: usize) -> Par<AnyN<Self::Producer>> {
        self.into_par()
            .wrap(|base| AnyN::new(base, n, Counted::Kept))
    }

    /// All but any `n` of the items (none if there are `n` or fewer), as
    /// rayon's `skip_any`: the first `n` items to be counted, in no set
    /// order, are dropped.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// assert_eq!((0..100u32).into_par_iter().skip_any(30).count(), 70);
    /// ```
    fn skip_any(self, n: usize) -> Par<AnyN<Self::Producer>> {
        self.into_par()
            .wrap(|base| AnyN::new(base, n, Counted::Dropped))
    }

    /// Runs at least `min` positions per piece, as rayon's `with_min_len`:
    /// fewer threads take part when the input is short, and no block (so
    /// no `fold` partial, no `map_init` state) covers fewer than `min`
    /// positions, except an input shorter than `min`. It wins over
    /// [`with_max_len`](Self::with_max_len): a piece may then reach
    /// `2 * min - 1`.
    fn with_min_len(self, min: usize) -> Par<Self::Producer> {
        self.into_par()
            .configure(|config| config.min_len = min.max(1))
    }

    /// Runs at most `max` positions between two checks of the schedule
    /// (blocks of a static range, claims of a dynamic one).
    fn with_max_len(self, max: usize) -> Par<Self::Producer> {
        self.into_par()
            .configure(|config| config.max_len = max.max(1))
    }

    /// Sets the schedule: [`Schedule::Static`] (the default),
    /// [`Schedule::Dynamic`] or [`Schedule::Guided`].
    fn schedule(self, schedule: Schedule) -> Par<Self::Producer> {
        self.into_par()
            .configure(|config| config.schedule = schedule)
    }

    /// Runs the call on `pool` rather than the current one.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let pool = tine::spawn_pool(2);
    /// let sum: u64 = (1..=100u64).into_par_iter().with_pool(&pool).sum();
    /// assert_eq!(sum, 5050);
    /// ```
    fn with_pool<'p, F: ForkJoin + 'p>(self, pool: &'p F) -> Par<Pooled<'p, Self::Producer>> {
        let pool: &'p (dyn ForkJoin + 'p) = pool;
        // SAFETY: only the lifetime is erased; `Pooled<'p, _>` keeps the
        // iterator, the only holder of this pointer, within `'p`.
        let pool: &'static dyn ForkJoin = unsafe { core::mem::transmute(pool) };
        self.into_par()
            .configure(|config| config.pool = Some(PoolRef(NonNull::from(pool))))
            .wrap(|base| Pooled {
                base,
                _pool: PhantomData,
            })
    }

    /// Calls `f` on each item.
    #[inline]
    fn for_each<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        consume::each::for_each(self.into_par(), f)
    }

    /// Calls `f` on each item with a state that `init` makes once per range
    /// a thread runs.
    fn for_each_init<I, S, F>(self, init: I, f: F)
    where
        I: Fn() -> S + Sync + Send,
        F: Fn(&mut S, Self::Item) + Sync + Send,
    {
        self.map_init(init, f).for_each(|()| {})
    }

    /// Calls `f` on each item with a clone of `value` per range a thread
    /// runs.
    fn for_each_with<S, F>(self, value: S, f: F)
    where
        S: Clone + Send,
        F: Fn(&mut S, Self::Item) + Sync + Send,
    {
        self.map_with(value, f).for_each(|()| {})
    }

    /// Reduces the items with `op`; `None` if there are none.
    fn reduce_with<F>(self, op: F) -> Option<Self::Item>
    where
        F: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        self.map(Some).reduce(
            || None,
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, b) => a.or(b),
            },
        )
    }

    /// Some item's `Some` result of `f`, stopping the call at the first.
    fn find_map_any<F, R>(self, f: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        consume::find(self.into_par(), f, Wanted::Any)
    }

    /// The first item's (in input order) `Some` result of `f`.
    fn find_map_first<F, R>(self, f: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        consume::find(self.into_par(), f, Wanted::First)
    }

    /// Sums the items. Partials combine in thread order; see the crate docs
    /// for when the bits are reproducible.
    fn sum<S>(self) -> S
    where
        S: Send + core::iter::Sum<Self::Item> + core::iter::Sum<S>,
    {
        consume::sum(self.into_par())
    }

    /// Multiplies the items.
    fn product<S>(self) -> S
    where
        S: Send + core::iter::Product<Self::Item> + core::iter::Product<S>,
    {
        consume::product(self.into_par())
    }

    /// Reduces the items with `op`, starting each partial from
    /// `identity()`.
    fn reduce<I, F>(self, identity: I, op: F) -> Self::Item
    where
        I: Fn() -> Self::Item + Sync + Send,
        F: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        consume::reduce(self.into_par(), identity, op)
    }

    /// The number of items.
    fn count(self) -> usize {
        consume::count(self.into_par())
    }

    /// The smallest item (the first of equals).
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        consume::best(self.into_par(), |a, b| a.cmp(b), Extreme::Min)
    }

    /// The largest item (the last of equals).
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        consume::best(self.into_par(), |a, b| a.cmp(b), Extreme::Max)
    }

    /// The smallest item by `f` (the first of equals).
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        consume::best(self.into_par(), f, Extreme::Min)
    }

    /// The largest item by `f` (the last of equals).
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        consume::best(self.into_par(), f, Extreme::Max)
    }

    /// The item with the smallest key (the first of equals).
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        consume::best(self.into_par(), |a, b| f(a).cmp(&f(b)), Extreme::Min)
    }

    /// The item with the largest key (the last of equals).
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        consume::best(self.into_par(), |a, b| f(a).cmp(&f(b)), Extreme::Max)
    }

    /// Whether `f` is true for some item; stops the call at the first.
    fn any<F>(self, f: F) -> bool
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        consume::find(self.into_par(), |item| f(item).then_some(()), Wanted::Any).is_some()
    }

    /// Whether `f` is true for every item; stops the call at the first
    /// `false`.
    fn all<F>(self, f: F) -> bool
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        consume::find(
            self.into_par(),
            |item| (!f(item)).then_some(()),
            Wanted::Any,
        )
        .is_none()
    }

    /// Some item for which `f` is true, stopping the call at the first
    /// found.
    fn find_any<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consume::find(
            self.into_par(),
            |item| f(&item).then_some(item),
            Wanted::Any,
        )
    }

    /// The first item (in input order) for which `f` is true. Threads skip
    /// work past the lowest hit found so far.
    fn find_first<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consume::find(
            self.into_par(),
            |item| f(&item).then_some(item),
            Wanted::First,
        )
    }

    /// Collects the items, in input order, into `C` (a `Vec`).
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// This iterator's items, then `other`'s, with `self`'s settings
    /// (`other`'s are ignored). Panics if the lengths overflow `usize`.
    fn chain<C>(
        self,
        other: C,
    ) -> Par<Chain<Self::Producer, <C::Iter as ParallelIterator>::Producer>>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        let (a, b) = (self.into_par(), other.into_par_iter().into_par());
        // Checked while both are still iterators: a panic drops their items.
        let fits = a.producer_len().checked_add(b.producer_len()).is_some();
        assert!(fits, "chained parallel iterators longer than usize::MAX");
        let (b, _) = b.into_parts();
        a.wrap(|a| Chain { a, b })
    }

    /// Splits the items by `predicate` into two collections, `(accepted,
    /// rejected)`, each in input order.
    fn partition<A, B, F>(self, predicate: F) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        extend::partition(self.into_par(), predicate)
    }

    /// Maps each item to [`Either`](crate::compat::iter::Either) and gathers the
    /// `Left`s and the `Right`s, each in input order.
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> either::Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        extend::partition_map(self.into_par(), predicate)
    }

    /// Splits pairs into two collections, each in input order.
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        extend::unzip(self.into_par())
    }

    /// Calls `f` on each item until one returns an error (`Err` or `None`),
    /// and returns the error of the lowest position that failed: threads
    /// skip work past the lowest failure found so far.
    fn try_for_each<F, R>(self, f: F) -> R
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
        R::Residual: Send,
    {
        consume::try_for_each(self.into_par(), f)
    }

    /// Reduces `Ok`/`Some` values with `op`, stopping at the first error:
    /// of the errors found among the items, the one of the lowest position
    /// (an error that `op` returns when combining two threads' partials
    /// counts as coming after them).
    fn try_reduce<T, I, F>(self, identity: I, op: F) -> Self::Item
    where
        I: Fn() -> T + Sync + Send,
        F: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
        <Self::Item as Try>::Residual: Send,
    {
        consume::try_reduce(self.into_par(), identity, op)
    }

    /// [`try_reduce`](Self::try_reduce) with no identity, as rayon's
    /// `try_reduce_with`: `None` if there are no items, else the
    /// reduction of the successes, or the failure of the lowest position.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let sum = (1..=100u32).into_par_iter().map(Some).try_reduce_with(|a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(Some(5050)));
    /// let none: Option<Option<u32>> = (0..0u32).into_par_iter().map(Some).try_reduce_with(|a, b| Some(a + b));
    /// assert_eq!(none, None);
    /// ```
    fn try_reduce_with<T, F>(self, op: F) -> Option<Self::Item>
    where
        F: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
        <Self::Item as Try>::Residual: Send,
    {
        let reduced = self
            .map(|item| Try::into_result(item).map(Some))
            .try_reduce(
                || None,
                |left, right| match (left, right) {
                    (Some(left), Some(right)) => Try::into_result(op(left, right)).map(Some),
                    (left, right) => Ok(left.or(right)),
                },
            );
        match reduced {
            Ok(None) => None,
            Ok(Some(output)) => Some(Try::from_output(output)),
            Err(residual) => Some(Try::from_residual(residual)),
        }
    }

    /// [`try_for_each`](Self::try_for_each) with a clone of `value` per
    /// range a thread runs, as rayon's `try_for_each_with`.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// use tine::prelude::*;
    ///
    /// let (sender, receiver) = channel();
    /// let sent = (0..5u32).into_par_iter().try_for_each_with(sender, |s, x| s.send(x));
    /// assert!(sent.is_ok());
    /// let mut got: Vec<u32> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn try_for_each_with<S, F, R>(self, value: S, f: F) -> R
    where
        S: Clone + Send,
        F: Fn(&mut S, Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
        R::Residual: Send,
    {
        self.map_with(value, f).try_for_each(|result| result)
    }

    /// [`try_for_each`](Self::try_for_each) with a state that `init` makes
    /// per range a thread runs, as rayon's `try_for_each_init`.
    fn try_for_each_init<I, S, F, R>(self, init: I, f: F) -> R
    where
        I: Fn() -> S + Sync + Send,
        F: Fn(&mut S, Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
        R::Residual: Send,
    {
        self.map_init(init, f).try_for_each(|result| result)
    }

    /// The item of the highest position for which `f` is true, as
    /// rayon's `find_last`: blocks below the highest found so far are
    /// skipped.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let v = vec![3, 8, 5, 8, 1];
    /// assert_eq!(v.par_iter().enumerate().find_last(|(_, &x)| x == 8), Some((3, &8)));
    /// ```
    fn find_last<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consume::find_last::find_last(self.into_par(), |item| f(&item).then_some(item))
    }

    /// The answer of `f` for the highest position it answers, as rayon's
    /// `find_map_last`.
    fn find_map_last<F, R>(self, f: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        consume::find_last::find_last(self.into_par(), f)
    }

    /// The items gathered into a list of `Vec`s, in input order, as
    /// rayon's `collect_vec_list`: one `Vec` per thread's share, so no
    /// items are moved to join them.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let list = (0..1000u32).into_par_iter().collect_vec_list();
    /// assert!(list.iter().flatten().copied().eq(0..1000));
    /// ```
    fn collect_vec_list(self) -> std::collections::LinkedList<std::vec::Vec<Self::Item>> {
        consume::vec_list(self.into_par())
    }

    /// Stops the call's other work soon after a panic anywhere in it, as
    /// rayon's `panic_fuse`: the blocks that have not started are
    /// skipped, and the first panic resumes on the caller once the fork
    /// has joined. Without it, a panic in `for_each` ends only its own
    /// block (at most `with_max_len` items), and every other block
    /// still runs, as in rayon; every other consumer's call already
    /// stops at its next blocks, its result being lost.
    ///
    /// ```
    /// use tine::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let ran = AtomicUsize::new(0);
    /// let each = |i: u32| {
    ///     assert!(i != 50, "boom");
    ///     ran.fetch_add(1, Ordering::Relaxed);
    /// };
    /// let pool = tine::spawn_pool(1);
    /// let caught = std::panic::catch_unwind(|| {
    ///     pool.install(|| (0..100u32).into_par_iter().with_max_len(1).for_each(each))
    /// });
    /// assert!(caught.is_err());
    /// assert_eq!(ran.load(Ordering::Relaxed), 99); // every other item ran
    /// ```
    fn panic_fuse(self) -> Par<Self::Producer> {
        self.into_par().configure(|config| config.panic_fuse = true)
    }
}

impl<P: Producer + Send> ParallelIterator for Par<P>
where
    P::Item: Send,
{
    type Item = P::Item;
    type Producer = P;

    fn into_par(self) -> Par<P> {
        self
    }
}
