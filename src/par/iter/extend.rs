//! Collections other than `Vec`: `collect` into them, [`ParallelExtend`]
//! them, and `partition` and `unzip` into them.
//!
//! Each call gathers its items in input order into `Vec`s first, in one
//! fork (the static split, so thread order is input order), then moves them
//! into the target on the caller. So a hash map gets the entries a serial
//! `collect` would give it (a later duplicate key wins), a `String` its
//! pieces in order, and a `BinaryHeap` or `BTreeSet` the same contents
//! whatever the thread count. The `Vec`s are the allocations these
//! collections need anyway; `Vec` itself is collected in place
//! (`collect.rs`).

use super::convert::{FromParallelIterator, IntoParallelIterator};
use super::par::Par;
use crate::par::drive::consumer::Consumer;
use crate::par::drive::drive;
use crate::par::producer::Producer;
use either::Either;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::string::String;
use std::vec::Vec;

/// Extending a collection with a parallel iterator's items, in input order:
/// rayon's `par_extend`. Implemented for `Vec`, `VecDeque`, `LinkedList`,
/// `BinaryHeap`, `BTreeMap`, `BTreeSet`, `HashMap`, `HashSet` and `String`.
///
/// ```
/// use tine::prelude::*;
/// use std::collections::HashMap;
///
/// let mut squares: HashMap<u32, u32> = HashMap::new();
/// squares.par_extend((0..100u32).into_par_iter().map(|i| (i, i * i)));
/// assert_eq!(squares[&12], 144);
///
/// let mut v = vec![0u8];
/// v.par_extend(vec![1, 2, 3]);
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Appends `par_iter`'s items, in input order.
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I);

    /// Appends items already gathered in order (`partition`, `unzip`).
    #[doc(hidden)]
    fn extend_from_vec(&mut self, items: Vec<T>) {
        self.par_extend(items);
    }
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        self.extend_from_vec(Vec::from_par_iter(par_iter));
    }

    fn extend_from_vec(&mut self, mut items: Vec<T>) {
        if self.is_empty() && self.capacity() <= items.capacity() {
            // No copy: the gathered buffer becomes the vector (it has at
            // least the capacity this one had).
            *self = items;
        } else {
            self.append(&mut items);
        }
    }
}

/// `FromParallelIterator` and `ParallelExtend` for collections that are
/// filled from a `Vec` of the items in order.
macro_rules! via_vec {
    ($(impl[$($generics:tt)*] $collection:ty, $item:ty;)*) => {$(
        impl<$($generics)*> FromParallelIterator<$item> for $collection {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                Vec::from_par_iter(par_iter).into_iter().collect()
            }
        }

        impl<$($generics)*> ParallelExtend<$item> for $collection {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                self.extend(Vec::from_par_iter(par_iter));
            }

            fn extend_from_vec(&mut self, items: Vec<$item>) {
                self.extend(items);
            }
        }
    )*};
}

via_vec! {
    impl[T: Send] VecDeque<T>, T;
    impl[T: Send] LinkedList<T>, T;
    impl[T: Send + Ord] BinaryHeap<T>, T;
    impl[T: Send + Ord] BTreeSet<T>, T;
    impl[K: Send + Ord, V: Send] BTreeMap<K, V>, (K, V);
    impl[T: Send + Eq + Hash, S: BuildHasher + Default + Send] HashSet<T, S>, T;
    impl[K: Send + Eq + Hash, V: Send, S: BuildHasher + Default + Send] HashMap<K, V, S>, (K, V);
    impl[] String, char;
    impl['a] String, &'a str;
    impl[] String, String;
}

/// `ParallelExtend` with references to `Copy` items, as rayon has it.
macro_rules! copied_refs {
    ($(impl[$($generics:tt)*] $collection:ty, $item:ty, |$reference:pat_param| $value:expr;)*) => {$(
        impl<'a, $($generics)*> ParallelExtend<$item> for $collection {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                self.extend_from_vec(Vec::from_par_iter(par_iter));
            }

            fn extend_from_vec(&mut self, items: Vec<$item>) {
                self.extend(items.into_iter().map(|$reference| $value));
            }
        }
    )*};
}

copied_refs! {
    impl[T: 'a + Copy + Send + Sync] Vec<T>, &'a T, |item| *item;
    impl[T: 'a + Copy + Send + Sync] VecDeque<T>, &'a T, |item| *item;
    impl[T: 'a + Copy + Send + Sync] LinkedList<T>, &'a T, |item| *item;
    impl[T: 'a + Copy + Send + Sync + Ord] BinaryHeap<T>, &'a T, |item| *item;
    impl[T: 'a + Copy + Send + Sync + Ord] BTreeSet<T>, &'a T, |item| *item;
    impl[K: 'a + Copy + Send + Sync + Ord, V: 'a + Copy + Send + Sync] BTreeMap<K, V>, (&'a K, &'a V),
        |(key, value)| (*key, *value);
    impl[T: 'a + Copy + Send + Sync + Eq + Hash, S: BuildHasher + Default + Send] HashSet<T, S>,
        &'a T, |item| *item;
    impl[K: 'a + Copy + Send + Sync + Eq + Hash, V: 'a + Copy + Send + Sync, S: BuildHasher + Default + Send]
        HashMap<K, V, S>, (&'a K, &'a V), |(key, value)| (*key, *value);
    impl[] String, &'a char, |c| *c;
}

/// Appends `right` to `left` (both runs of consecutive positions).
fn joined<T>(mut left: Vec<T>, mut right: Vec<T>) -> Vec<T> {
    if left.is_empty() {
        return right;
    }
    left.append(&mut right);
    left
}

/// Gathers the items `predicate` accepts and those it rejects.
struct Split<F>(F);

impl<T: Send, F: Fn(&T) -> bool + Sync> Consumer<T> for Split<F> {
    type Acc = (Vec<T>, Vec<T>);
    const STATIC_ONLY: bool = true;

    fn start(&self) -> Self::Acc {
        (Vec::new(), Vec::new())
    }

    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, _first: usize, items: I) -> Self::Acc {
        let (mut accepted, mut rejected) = acc;
        for item in items {
            if (self.0)(&item) {
                accepted.push(item);
            } else {
                rejected.push(item);
            }
        }
        (accepted, rejected)
    }

    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        (joined(left.0, right.0), joined(left.1, right.1))
    }
}

/// Gathers the `Left`s and the `Right`s of a map to `Either`.
struct SplitMap<F>(F);

impl<T, L: Send, R: Send, F: Fn(T) -> Either<L, R> + Sync> Consumer<T> for SplitMap<F> {
    type Acc = (Vec<L>, Vec<R>);
    const STATIC_ONLY: bool = true;

    fn start(&self) -> Self::Acc {
        (Vec::new(), Vec::new())
    }

    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, _first: usize, items: I) -> Self::Acc {
        let (mut lefts, mut rights) = acc;
        for item in items {
            match (self.0)(item) {
                Either::Left(left) => lefts.push(left),
                Either::Right(right) => rights.push(right),
            }
        }
        (lefts, rights)
    }

    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        (joined(left.0, right.0), joined(left.1, right.1))
    }
}

/// Gathers the two halves of each pair.
struct Unzip;

impl<A: Send, B: Send> Consumer<(A, B)> for Unzip {
    type Acc = (Vec<A>, Vec<B>);
    const STATIC_ONLY: bool = true;

    fn start(&self) -> Self::Acc {
        (Vec::new(), Vec::new())
    }

    #[inline]
    fn fold<I: Iterator<Item = (A, B)>>(
        &self,
        acc: Self::Acc,
        _first: usize,
        items: I,
    ) -> Self::Acc {
        let (mut lefts, mut rights) = acc;
        for (left, right) in items {
            lefts.push(left);
            rights.push(right);
        }
        (lefts, rights)
    }

    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        (joined(left.0, right.0), joined(left.1, right.1))
    }
}

/// `partition`: the items `predicate` accepts, and the others, each in
/// input order.
pub(crate) fn partition<P, A, B, F>(par: Par<P>, predicate: F) -> (A, B)
where
    P: Producer,
    P::Item: Send,
    A: Default + ParallelExtend<P::Item>,
    B: Default + ParallelExtend<P::Item>,
    F: Fn(&P::Item) -> bool + Sync,
{
    let (producer, config) = par.into_parts();
    let (accepted, rejected) = drive(&producer, &config, &Split(predicate));
    let (mut left, mut right) = (A::default(), B::default());
    left.extend_from_vec(accepted);
    right.extend_from_vec(rejected);
    (left, right)
}

/// `partition_map`: the `Left`s and the `Right`s, each in input order.
pub(crate) fn partition_map<P, A, B, F, L, R>(par: Par<P>, predicate: F) -> (A, B)
where
    P: Producer,
    L: Send,
    R: Send,
    A: Default + ParallelExtend<L>,
    B: Default + ParallelExtend<R>,
    F: Fn(P::Item) -> Either<L, R> + Sync,
{
    let (mut left, mut right) = (A::default(), B::default());
    partition_map_into(par, predicate, &mut left, &mut right);
    (left, right)
}

/// `unzip`: the first and the second halves of the pairs, in input order.
pub(crate) fn unzip<P, A, B, FromA, FromB>(par: Par<P>) -> (FromA, FromB)
where
    P: Producer<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: Default + ParallelExtend<A>,
    FromB: Default + ParallelExtend<B>,
{
    let (mut left, mut right) = (FromA::default(), FromB::default());
    unzip_into(par, &mut left, &mut right);
    (left, right)
}

/// `unzip` onto two collections that may hold items already: each half
/// appended in input order.
pub(crate) fn unzip_into<P, A, B, FromA, FromB>(par: Par<P>, left: &mut FromA, right: &mut FromB)
where
    P: Producer<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: ParallelExtend<A>,
    FromB: ParallelExtend<B>,
{
    let (producer, config) = par.into_parts();
    let (lefts, rights) = drive(&producer, &config, &Unzip);
    left.extend_from_vec(lefts);
    right.extend_from_vec(rights);
}

/// `partition_map` onto two collections that may hold items already: the
/// `Left`s and the `Right`s appended, each in input order.
pub(crate) fn partition_map_into<P, A, B, F, L, R>(
    par: Par<P>,
    predicate: F,
    left: &mut A,
    right: &mut B,
) where
    P: Producer,
    L: Send,
    R: Send,
    A: ParallelExtend<L>,
    B: ParallelExtend<R>,
    F: Fn(P::Item) -> Either<L, R> + Sync,
{
    let (producer, config) = par.into_parts();
    let (lefts, rights) = drive(&producer, &config, &SplitMap(predicate));
    left.extend_from_vec(lefts);
    right.extend_from_vec(rights);
}
