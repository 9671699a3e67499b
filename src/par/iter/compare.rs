//! The comparisons of [`IndexedParallelIterator`](super::IndexedParallelIterator)
//! with another indexed iterator, as rayon has them: `cmp`, `partial_cmp`,
//! `eq`, `ne`, `lt`, `le`, `gt` and `ge`, each the lexicographic answer of
//! `std`'s `Iterator` methods of the same names; plus `zip_eq` and
//! `position_last`. The macro below is spliced into the trait in
//! `indexed.rs`, so that the trait, rayon's, holds them all.
//!
//! A comparison zips the two, compares pairs and stops at the first pair
//! that is not equal (`find_first`: blocks past it are skipped); if all
//! are, the lengths decide.

/// The comparison methods, as trait items: used once, inside
/// `IndexedParallelIterator`.
macro_rules! comparing_methods {
    () => {
        /// Compares the items with `other`'s, lexicographically, as
        /// `Iterator::cmp`.
        ///
        /// ```
        /// use std::cmp::Ordering;
        /// use tine::prelude::*;
        ///
        /// let a = vec![1, 2, 3];
        /// assert_eq!(a.par_iter().cmp(&vec![1, 2, 4]), Ordering::Less);
        /// assert_eq!(a.par_iter().cmp(&vec![1, 2]), Ordering::Greater);
        /// ```
        fn cmp<I>(self, other: I) -> core::cmp::Ordering
        where
            I: IntoParallelIterator<Item = Self::Item>,
            I::Iter: IndexedParallelIterator,
            Self::Item: Ord,
        {
            let other = other.into_par_iter();
            let lengths = self.len().cmp(&other.len());
            self.zip(other)
                .map(|(x, y)| Ord::cmp(&x, &y))
                .find_first(|&order| order != core::cmp::Ordering::Equal)
                .unwrap_or(lengths)
        }

        /// Compares the items with `other`'s, lexicographically, as
        /// `Iterator::partial_cmp`: `None` at the first pair that has no
        /// order.
        ///
        /// ```
        /// use std::cmp::Ordering;
        /// use tine::prelude::*;
        ///
        /// let a = vec![1.0, 2.0];
        /// assert_eq!(a.par_iter().partial_cmp(&vec![1.0, 3.0]), Some(Ordering::Less));
        /// assert_eq!(a.par_iter().partial_cmp(&vec![f64::NAN, 0.0]), None);
        /// ```
        fn partial_cmp<I>(self, other: I) -> Option<core::cmp::Ordering>
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialOrd<I::Item>,
        {
            let other = other.into_par_iter();
            let lengths = self.len().cmp(&other.len());
            self.zip(other)
                .map(|(x, y)| PartialOrd::partial_cmp(&x, &y))
                .find_first(|&order| order != Some(core::cmp::Ordering::Equal))
                .unwrap_or(Some(lengths))
        }

        /// Whether the items equal `other`'s, as `Iterator::eq`: the same
        /// length, and every pair equal.
        ///
        /// ```
        /// use tine::prelude::*;
        ///
        /// assert!((0..100).into_par_iter().eq(0..100));
        /// assert!(!(0..100).into_par_iter().eq(0..99));
        /// ```
        fn eq<I>(self, other: I) -> bool
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialEq<I::Item>,
        {
            let other = other.into_par_iter();
            self.len() == other.len() && self.zip(other).all(|(x, y)| x.eq(&y))
        }

        /// Whether the items differ from `other`'s: `!eq`.
        fn ne<I>(self, other: I) -> bool
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialEq<I::Item>,
        {
            !self.eq(other)
        }

        /// Whether the items sort before `other`'s, lexicographically.
        fn lt<I>(self, other: I) -> bool
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialOrd<I::Item>,
        {
            self.partial_cmp(other) == Some(core::cmp::Ordering::Less)
        }

        /// Whether the items sort before `other`'s or equal them.
        fn le<I>(self, other: I) -> bool
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialOrd<I::Item>,
        {
            let order = self.partial_cmp(other);
            order == Some(core::cmp::Ordering::Less) || order == Some(core::cmp::Ordering::Equal)
        }

        /// Whether the items sort after `other`'s, lexicographically.
        fn gt<I>(self, other: I) -> bool
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialOrd<I::Item>,
        {
            self.partial_cmp(other) == Some(core::cmp::Ordering::Greater)
        }

        /// Whether the items sort after `other`'s or equal them.
        fn ge<I>(self, other: I) -> bool
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            Self::Item: PartialOrd<I::Item>,
        {
            let order = self.partial_cmp(other);
            order == Some(core::cmp::Ordering::Greater) || order == Some(core::cmp::Ordering::Equal)
        }

        /// [`zip`](Self::zip) for two iterators that must be as long as each
        /// other, as rayon's `zip_eq`.
        ///
        /// # Panics
        /// If the lengths differ, before any item is produced.
        ///
        /// ```
        /// use tine::prelude::*;
        ///
        /// let sums: Vec<u32> = (0..4u32).into_par_iter().zip_eq(vec![10, 20, 30, 40]).map(|(a, b)| a + b).collect();
        /// assert_eq!(sums, [10, 21, 32, 43]);
        /// ```
        fn zip_eq<Z>(
            self,
            other: Z,
        ) -> Par<Zip<Self::Indexed, <Z::Iter as IndexedParallelIterator>::Indexed>>
        where
            Z: IntoParallelIterator,
            Z::Iter: IndexedParallelIterator,
        {
            let other = other.into_par_iter();
            let (left, right) = (self.len(), other.len());
            assert_eq!(left, right, "zip_eq: iterators of different lengths");
            self.zip(other)
        }

        /// The highest position of an item for which `f` is true, as
        /// rayon's `position_last`: blocks below the highest found so far
        /// are skipped.
        ///
        /// ```
        /// use tine::prelude::*;
        ///
        /// let v = vec![1, 2, 3, 2, 1];
        /// assert_eq!(v.par_iter().position_last(|&x| x == 2), Some(3));
        /// assert_eq!(v.par_iter().position_last(|&x| x == 9), None);
        /// ```
        fn position_last<F>(self, f: F) -> Option<usize>
        where
            F: Fn(Self::Item) -> bool + Sync + Send,
        {
            let found = |(i, item)| f(item).then_some(i);
            crate::par::find_last::find_last(self.enumerate().into_par(), found)
        }
    };
}
