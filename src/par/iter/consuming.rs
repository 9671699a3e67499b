//! The consuming methods of [`ParallelIterator`](super::ParallelIterator)
//! (`for_each`, `sum`, `reduce`, `find_*`, `collect`, `try_*`, ...), each
//! a short forward to a consumer (`consume.rs`, `collect.rs`,
//! `extend.rs`). They are the trait's own methods: the macro below is
//! spliced into the trait in `iter.rs`, so that one trait, rayon's, holds
//! them all, in files of a readable length.

/// The consuming methods, as trait items: used once, inside
/// `ParallelIterator`.
macro_rules! consuming_methods {
    () => {
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
            consume::find(self.into_par(), f, false)
        }

        /// The first item's (in input order) `Some` result of `f`.
        fn find_map_first<F, R>(self, f: F) -> Option<R>
        where
            F: Fn(Self::Item) -> Option<R> + Sync + Send,
            R: Send,
        {
            consume::find(self.into_par(), f, true)
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
            consume::best(self.into_par(), |a, b| a.cmp(b), false)
        }

        /// The largest item (the last of equals).
        fn max(self) -> Option<Self::Item>
        where
            Self::Item: Ord,
        {
            consume::best(self.into_par(), |a, b| a.cmp(b), true)
        }

        /// The smallest item by `f` (the first of equals).
        fn min_by<F>(self, f: F) -> Option<Self::Item>
        where
            F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
        {
            consume::best(self.into_par(), f, false)
        }

        /// The largest item by `f` (the last of equals).
        fn max_by<F>(self, f: F) -> Option<Self::Item>
        where
            F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
        {
            consume::best(self.into_par(), f, true)
        }

        /// The item with the smallest key (the first of equals).
        fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
        where
            K: Ord + Send,
            F: Fn(&Self::Item) -> K + Sync + Send,
        {
            consume::best(self.into_par(), |a, b| f(a).cmp(&f(b)), false)
        }

        /// The item with the largest key (the last of equals).
        fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
        where
            K: Ord + Send,
            F: Fn(&Self::Item) -> K + Sync + Send,
        {
            consume::best(self.into_par(), |a, b| f(a).cmp(&f(b)), true)
        }

        /// Whether `f` is true for some item; stops the call at the first.
        fn any<F>(self, f: F) -> bool
        where
            F: Fn(Self::Item) -> bool + Sync + Send,
        {
            consume::find(self.into_par(), |item| f(item).then_some(()), false).is_some()
        }

        /// Whether `f` is true for every item; stops the call at the first
        /// `false`.
        fn all<F>(self, f: F) -> bool
        where
            F: Fn(Self::Item) -> bool + Sync + Send,
        {
            consume::find(self.into_par(), |item| (!f(item)).then_some(()), false).is_none()
        }

        /// Some item for which `f` is true, stopping the call at the first
        /// found.
        fn find_any<F>(self, f: F) -> Option<Self::Item>
        where
            F: Fn(&Self::Item) -> bool + Sync + Send,
        {
            consume::find(self.into_par(), |item| f(&item).then_some(item), false)
        }

        /// The first item (in input order) for which `f` is true. Threads skip
        /// work past the lowest hit found so far.
        fn find_first<F>(self, f: F) -> Option<Self::Item>
        where
            F: Fn(&Self::Item) -> bool + Sync + Send,
        {
            consume::find(self.into_par(), |item| f(&item).then_some(item), true)
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
            crate::par::find_last::find_last(self.into_par(), |item| f(&item).then_some(item))
        }

        /// The answer of `f` for the highest position it answers, as rayon's
        /// `find_map_last`.
        fn find_map_last<F, R>(self, f: F) -> Option<R>
        where
            F: Fn(Self::Item) -> Option<R> + Sync + Send,
            R: Send,
        {
            crate::par::find_last::find_last(self.into_par(), f)
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
            crate::par::consume::vec_list(self.into_par())
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
    };
}
