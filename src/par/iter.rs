//! [`ParallelIterator`] and [`IndexedParallelIterator`]: rayon's method
//! names, argument shapes and bounds, over tine's one-fork driver.
//!
//! Every parallel iterator is a [`Par`]: a producer (the source and its
//! adaptors, `producer.rs` and `adaptor.rs`) and the call's settings
//! ([`Schedule`], length bounds, pool). Adaptors wrap the producer; a
//! consumer hands it to the driver (`drive.rs`), which forks once.
//!
//! The trait's methods are short forwards: the adaptors' here, each to an
//! adaptor (`adaptor/`); the consumers' in `iter/consuming.rs` (a macro
//! spliced into the trait, since a trait's methods cannot be spread over
//! files otherwise), each to a consumer (`consume.rs`, `collect.rs`,
//! `extend.rs`).

use super::adaptor::{
    AnyN, AnyWhile, Chain, CloneOf, Cloned, Copied, Filter, FilterMap, FlatMap, FlatMapIter, Fold,
    Inspect, Intersperse, Map, MapInit, MapWith, Pooled, TryFold, TryFoldWith, Update, WhileKind,
    WhileSome,
};
#[macro_use]
mod compare;
#[macro_use]
mod consuming;
mod convert;
mod indexed;
mod par;

pub use super::settings::Schedule;
pub(crate) use super::settings::{Config, PoolRef};

use super::consume;
use super::extend::{self, ParallelExtend};
use super::producer::Producer;
use crate::schedule::ForkJoin;
pub use convert::{FromParallelIterator, IntoParallelIterator, Try};
use core::cmp::Ordering;
use core::marker::PhantomData;
use core::ptr::NonNull;
pub use indexed::IndexedParallelIterator;
pub use par::Par;

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
        self.into_par().wrap(|base| AnyN::new(base, n, true))
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
        self.into_par().wrap(|base| AnyN::new(base, n, false))
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

    consuming_methods!();
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
