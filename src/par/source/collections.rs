//! `into_par_iter`, `par_iter` and `par_iter_mut` on the standard
//! collections other than `Vec` and slices: `HashMap`, `HashSet`,
//! `BTreeMap`, `BTreeSet`, `VecDeque`, `LinkedList` and `BinaryHeap`.
//!
//! None of them can be split by position without walking it, so each call
//! first gathers the items (or references to them) into a `Vec`, in the
//! collection's own iteration order, and runs over that: one allocation per
//! call, as rayon's sources for these collections make too. A `VecDeque`
//! and a `BinaryHeap` become a `Vec` without copying when owned.

use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::par::Par;
use crate::par::producer::VecProducer;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::vec::Vec;

/// `IntoParallelIterator` for a collection whose items, gathered by
/// `$gather`, form a `Vec` of `$item`.
macro_rules! gathered {
    ($(impl[$($generics:tt)*] $source:ty => $item:ty, |$collection:ident| $gather:expr;)*) => {$(
        impl<$($generics)*> IntoParallelIterator for $source {
            type Iter = Par<VecProducer<$item>>;
            type Item = $item;

            fn into_par_iter(self) -> Self::Iter {
                let $collection = self;
                let items: Vec<$item> = $gather;
                Par::new(VecProducer::new(items))
            }
        }
    )*};
}

gathered! {
    impl[K: Send, V: Send, S] HashMap<K, V, S> => (K, V), |map| map.into_iter().collect();
    impl['a, K: Sync, V: Sync, S] &'a HashMap<K, V, S> => (&'a K, &'a V),
        |map| map.iter().collect();
    impl['a, K: Sync, V: Send, S] &'a mut HashMap<K, V, S> => (&'a K, &'a mut V),
        |map| map.iter_mut().collect();
    impl[T: Send, S] HashSet<T, S> => T, |set| set.into_iter().collect();
    impl['a, T: Sync, S] &'a HashSet<T, S> => &'a T, |set| set.iter().collect();
    impl[K: Send, V: Send] BTreeMap<K, V> => (K, V), |map| map.into_iter().collect();
    impl['a, K: Sync, V: Sync] &'a BTreeMap<K, V> => (&'a K, &'a V), |map| map.iter().collect();
    impl['a, K: Sync, V: Send] &'a mut BTreeMap<K, V> => (&'a K, &'a mut V),
        |map| map.iter_mut().collect();
    impl[T: Send] BTreeSet<T> => T, |set| set.into_iter().collect();
    impl['a, T: Sync] &'a BTreeSet<T> => &'a T, |set| set.iter().collect();
    impl[T: Send] VecDeque<T> => T, |deque| Vec::from(deque);
    impl['a, T: Sync] &'a VecDeque<T> => &'a T, |deque| deque.iter().collect();
    impl['a, T: Send] &'a mut VecDeque<T> => &'a mut T, |deque| deque.iter_mut().collect();
    impl[T: Send] LinkedList<T> => T, |list| list.into_iter().collect();
    impl['a, T: Sync] &'a LinkedList<T> => &'a T, |list| list.iter().collect();
    impl['a, T: Send] &'a mut LinkedList<T> => &'a mut T, |list| list.iter_mut().collect();
    impl[T: Send] BinaryHeap<T> => T, |heap| heap.into_vec();
    impl['a, T: Sync] &'a BinaryHeap<T> => &'a T, |heap| heap.iter().collect();
}
