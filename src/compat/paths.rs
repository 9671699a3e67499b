//! rayon's module paths for the iterator types of its sources
//! (`rayon::vec::IntoIter`, `rayon::vec::Drain`, `rayon::range::Iter`,
//! `rayon::option::IntoIter`, `rayon::collections::hash_map::Iter`,
//! `rayon::string::Drain`, ...), for programs that name them in
//! signatures or struct fields.
//!
//! Every tine parallel iterator is one type, [`Par`] over a producer, so
//! each name here is an alias of the type the source's `into_par_iter` (or
//! `par_iter`, `par_iter_mut`) returns: code that names rayon's type gets
//! tine's under the same path.

use crate::par::{IntoParallelIterator, Par};

/// rayon's `rayon::vec`: the iterators of `Vec::into_par_iter` and
/// `Vec::par_drain`.
pub mod vec {
    use super::{IntoParallelIterator, Par};
    use crate::par::VecDrainProducer;

    /// The items of a `Vec`, moved out (`vec.into_par_iter()`).
    pub type IntoIter<T> = <std::vec::Vec<T> as IntoParallelIterator>::Iter;
    /// A range of a `Vec`'s items, moved out (`vec.par_drain(range)`).
    pub type Drain<'a, T> = Par<VecDrainProducer<'a, T>>;
}

/// rayon's `rayon::string`: the iterator of `String::par_drain`.
pub mod string {
    use super::Par;
    use crate::par::StringDrainProducer;

    /// The characters of a range of a `String` (`string.par_drain(range)`).
    pub type Drain<'a> = Par<StringDrainProducer<'a>>;
}

/// rayon's `rayon::range`: the iterator of `(a..b).into_par_iter()`.
pub mod range {
    use super::IntoParallelIterator;

    /// The integers of a `Range<T>`.
    pub type Iter<T> = <core::ops::Range<T> as IntoParallelIterator>::Iter;
}

/// rayon's `rayon::range_inclusive`: the iterator of
/// `(a..=b).into_par_iter()`.
pub mod range_inclusive {
    use super::IntoParallelIterator;

    /// The integers of a `RangeInclusive<T>`.
    pub type Iter<T> = <core::ops::RangeInclusive<T> as IntoParallelIterator>::Iter;
}

/// rayon's `rayon::option`: the iterators of `Option`'s one value.
pub mod option {
    use super::IntoParallelIterator;

    /// The value, moved out.
    pub type IntoIter<T> = <Option<T> as IntoParallelIterator>::Iter;
    /// The value, by reference.
    pub type Iter<'a, T> = <&'a Option<T> as IntoParallelIterator>::Iter;
    /// The value, by mutable reference.
    pub type IterMut<'a, T> = <&'a mut Option<T> as IntoParallelIterator>::Iter;
}

/// rayon's `rayon::result`: the iterators of a `Result`'s `Ok` value.
pub mod result {
    use super::IntoParallelIterator;

    /// The `Ok` value, moved out.
    pub type IntoIter<T, E> = <Result<T, E> as IntoParallelIterator>::Iter;
    /// The `Ok` value, by reference.
    pub type Iter<'a, T, E> = <&'a Result<T, E> as IntoParallelIterator>::Iter;
    /// The `Ok` value, by mutable reference.
    pub type IterMut<'a, T, E> = <&'a mut Result<T, E> as IntoParallelIterator>::Iter;
}

/// rayon's `rayon::array`: the iterator of `[T; N]::into_par_iter`.
pub mod array {
    use super::IntoParallelIterator;

    /// The items of an array, moved out.
    pub type IntoIter<T, const N: usize> = <[T; N] as IntoParallelIterator>::Iter;
}

/// The iterators of a collection `$c<$($p),*>` in a module `$m`: owned
/// and by reference, and by mutable reference when given `mut`; items
/// after a `;` go in the module too (the `Drain` types).
macro_rules! collection_paths {
    ($(#[$doc:meta])* $m:ident, $c:ident<$($p:ident),*> $(; $($extra:item)*)?) => {
        $(#[$doc])*
        pub mod $m {
            use crate::par::IntoParallelIterator;
            use std::collections::$c;

            /// The items, moved out (gathered into a `Vec` first).
            pub type IntoIter<$($p),*> = <$c<$($p),*> as IntoParallelIterator>::Iter;
            /// The items, by reference.
            pub type Iter<'a, $($p),*> = <&'a $c<$($p),*> as IntoParallelIterator>::Iter;
            $($($extra)*)?
        }
    };
    ($(#[$doc:meta])* $m:ident, $c:ident<$($p:ident),*>, mut $(; $($extra:item)*)?) => {
        $(#[$doc])*
        pub mod $m {
            use crate::par::IntoParallelIterator;
            use std::collections::$c;
            $($($extra)*)?

            /// The items, moved out (gathered into a `Vec` first).
            pub type IntoIter<$($p),*> = <$c<$($p),*> as IntoParallelIterator>::Iter;
            /// The items, by reference.
            pub type Iter<'a, $($p),*> = <&'a $c<$($p),*> as IntoParallelIterator>::Iter;
            /// The items, by mutable reference.
            pub type IterMut<'a, $($p),*> = <&'a mut $c<$($p),*> as IntoParallelIterator>::Iter;
        }
    };
}

/// rayon's `rayon::collections`: the iterators of the standard
/// collections, one module each.
pub mod collections {
    collection_paths!(
        /// `HashMap`'s iterators.
        hash_map, HashMap<K, V>, mut;
        /// The entries, moved out (`map.par_drain()`, gathered into a `Vec`).
        pub type Drain<'a, K, V> = crate::par::Par<crate::par::VecProducer<(K, V)>>;
    );
    collection_paths!(
        /// `HashSet`'s iterators.
        hash_set, HashSet<T>;
        /// The items, moved out (`set.par_drain()`, gathered into a `Vec`).
        pub type Drain<'a, T> = crate::par::Par<crate::par::VecProducer<T>>;
    );
    collection_paths!(
        /// `BTreeMap`'s iterators.
        btree_map, BTreeMap<K, V>, mut
    );
    collection_paths!(
        /// `BTreeSet`'s iterators.
        btree_set, BTreeSet<T>
    );
    collection_paths!(
        /// `VecDeque`'s iterators.
        vec_deque, VecDeque<T>, mut;
        /// A range of the items, moved out (`deque.par_drain(range)`).
        pub type Drain<'a, T> =
            crate::par::Par<crate::par::TakenDrainProducer<'a, VecDeque<T>, T>>;
    );
    collection_paths!(
        /// `LinkedList`'s iterators.
        linked_list, LinkedList<T>, mut
    );
    collection_paths!(
        /// `BinaryHeap`'s iterators.
        binary_heap, BinaryHeap<T>;
        /// The items, moved out (`heap.par_drain()`).
        pub type Drain<'a, T> =
            crate::par::Par<crate::par::TakenDrainProducer<'a, BinaryHeap<T>, T>>;
    );
}

/// The iterators of the slice methods, for `rayon::slice`.
pub(super) mod slice_types {
    use super::{IntoParallelIterator, Par};
    use crate::par::{
        ChunksExactMutProducer, ChunksExactProducer, ChunksMutProducer, ChunksProducer,
        RChunksExactMutProducer, RChunksExactProducer, RChunksMutProducer, RChunksProducer,
        WindowsProducer,
    };

    /// `slice.par_chunk_by(f)`.
    pub type ChunkBy<'a, T, F> = Par<crate::par::ChunkByProducer<'a, T, F>>;
    /// `slice.par_chunk_by_mut(f)`. tine finds the runs before the call
    /// returns, so the predicate's type `F` is only named.
    pub type ChunkByMut<'a, T, F> = Par<crate::par::SplitMutProducer<'a, super::First<T, F>>>;
    /// `slice.par_array_windows::<N>()`.
    pub type ArrayWindows<'a, T, const N: usize> =
        Par<crate::par::Map<WindowsProducer<'a, T>, fn(&[T]) -> &[T; N]>>;

    /// `slice.par_iter()`.
    pub type Iter<'a, T> = <&'a [T] as IntoParallelIterator>::Iter;
    /// `slice.par_iter_mut()`.
    pub type IterMut<'a, T> = <&'a mut [T] as IntoParallelIterator>::Iter;
    /// `slice.par_chunks(n)`.
    pub type Chunks<'a, T> = Par<ChunksProducer<'a, T>>;
    /// `slice.par_chunks_mut(n)`.
    pub type ChunksMut<'a, T> = Par<ChunksMutProducer<'a, T>>;
    /// `slice.par_chunks_exact(n)`.
    pub type ChunksExact<'a, T> = Par<ChunksExactProducer<'a, T>>;
    /// `slice.par_chunks_exact_mut(n)`.
    pub type ChunksExactMut<'a, T> = Par<ChunksExactMutProducer<'a, T>>;
    /// `slice.par_rchunks(n)`.
    pub type RChunks<'a, T> = Par<RChunksProducer<'a, T>>;
    /// `slice.par_rchunks_mut(n)`.
    pub type RChunksMut<'a, T> = Par<RChunksMutProducer<'a, T>>;
    /// `slice.par_rchunks_exact(n)`.
    pub type RChunksExact<'a, T> = Par<RChunksExactProducer<'a, T>>;
    /// `slice.par_rchunks_exact_mut(n)`.
    pub type RChunksExactMut<'a, T> = Par<RChunksExactMutProducer<'a, T>>;
    /// `slice.par_windows(n)`.
    pub type Windows<'a, T> = Par<WindowsProducer<'a, T>>;
}

/// rayon's adaptor type names in `rayon::iter` (`Map<I, F>`, `Filter<I,
/// P>`, ...), for programs that name them in signatures: each is the type
/// the method of the same name returns on an `I` (tine's one type, [`Par`],
/// over the adaptor's producer).
pub(super) mod adaptor_types {
    use crate::par::{self, IndexedParallelIterator, IntoParallelIterator, Par, ParallelIterator};

    /// The producer of a parallel iterator `I`.
    type P<I> = <I as ParallelIterator>::Producer;
    /// The indexed producer of an indexed parallel iterator `I`.
    type X<I> = <I as IndexedParallelIterator>::Indexed;

    /// `iter.map(f)`.
    pub type Map<I, F> = Par<par::Map<P<I>, F>>;
    /// `iter.map_init(init, f)`.
    pub type MapInit<I, INIT, F> = Par<par::MapInit<P<I>, INIT, F>>;
    /// `iter.map_with(value, f)`.
    pub type MapWith<I, T, F> = Par<par::MapWith<P<I>, T, F>>;
    /// `iter.inspect(f)`.
    pub type Inspect<I, F> = Par<par::Inspect<P<I>, F>>;
    /// `iter.filter(f)`.
    pub type Filter<I, F> = Par<par::Filter<P<I>, F>>;
    /// `iter.filter_map(f)`.
    pub type FilterMap<I, F> = Par<par::FilterMap<P<I>, F>>;
    /// `iter.flat_map(f)`.
    pub type FlatMap<I, F> = Par<par::FlatMap<P<I>, F>>;
    /// `iter.flat_map_iter(f)`.
    pub type FlatMapIter<I, F> = Par<par::FlatMapIter<P<I>, F>>;
    /// `iter.copied()`.
    pub type Copied<I> = Par<par::Copied<P<I>>>;
    /// `iter.cloned()`.
    pub type Cloned<I> = Par<par::Cloned<P<I>>>;
    /// `iter.fold(identity, f)`.
    pub type Fold<I, ID, F> = Par<par::Fold<P<I>, ID, F>>;
    /// `iter.update(f)`.
    pub type Update<I, F> = Par<par::Update<P<I>, F>>;
    /// `iter.chain(other)`.
    pub type Chain<A, B> = Par<par::Chain<P<A>, P<B>>>;
    /// `iter.enumerate()`.
    pub type Enumerate<I> = Par<par::Enumerate<X<I>>>;
    /// `iter.zip(other)`.
    pub type Zip<A, B> = Par<par::Zip<X<A>, X<B>>>;
    /// `iter.skip(n)`.
    pub type Skip<I> = Par<par::Window<X<I>>>;
    /// `iter.take(n)`.
    pub type Take<I> = Par<par::Window<X<I>>>;
    /// `iter.rev()`.
    pub type Rev<I> = Par<par::Rev<X<I>>>;
    /// `iter.step_by(n)`.
    pub type StepBy<I> = Par<par::StepBy<X<I>>>;
    /// `iter.chunks(n)`.
    pub type Chunks<I> = Par<par::Chunks<X<I>>>;
    /// `iter.positions(f)`.
    pub type Positions<I, F> = Par<par::Positions<X<I>, F>>;
    /// `iter.with_min_len(n)`: the iterator itself, with a setting.
    pub type MinLen<I> = Par<P<I>>;
    /// `iter.with_max_len(n)`: the iterator itself, with a setting.
    pub type MaxLen<I> = Par<P<I>>;
    /// `iter.panic_fuse()`: the iterator itself (a panic already stops the
    /// call's other blocks).
    pub type PanicFuse<I> = Par<P<I>>;
    /// `iter.flatten()`.
    pub type Flatten<I> = Par<par::FlatMap<P<I>, fn(Item<I>) -> Item<I>>>;
    /// `iter.flatten_iter()`.
    pub type FlattenIter<I> = Par<par::FlatMapIter<P<I>, fn(Item<I>) -> Item<I>>>;
    /// `iter.fold_with(init, f)`.
    pub type FoldWith<I, U, F> = Par<par::Fold<P<I>, par::CloneOf<U>, F>>;
    /// `iter.try_fold(identity, f)`: `U` is the `Try` type `f` returns.
    pub type TryFold<I, U, ID, F> = Par<par::TryFold<P<I>, ID, F, U>>;
    /// `iter.take_any(n)`.
    pub type TakeAny<I> = Par<par::AnyN<P<I>>>;
    /// `iter.skip_any(n)`.
    pub type SkipAny<I> = Par<par::AnyN<P<I>>>;
    /// `iter.take_any_while(predicate)`.
    pub type TakeAnyWhile<I, Pred> = Par<par::AnyWhile<P<I>, Pred>>;
    /// `iter.skip_any_while(predicate)`.
    pub type SkipAnyWhile<I, Pred> = Par<par::AnyWhile<P<I>, Pred>>;
    /// `iter.while_some()`.
    pub type WhileSome<I> = Par<par::WhileSome<P<I>>>;
    /// `iter.intersperse(separator)`.
    pub type Intersperse<I> = Par<par::Intersperse<P<I>>>;
    /// `iter.zip_eq(other)`.
    pub type ZipEq<A, B> = Par<par::Zip<X<A>, X<B>>>;
    /// `iter.interleave(other)`.
    pub type Interleave<A, B> = Par<par::Interleave<X<A>, X<B>>>;
    /// `iter.fold_chunks(size, identity, f)`.
    pub type FoldChunks<I, ID, F> = Par<par::FoldChunks<X<I>, ID, F>>;
    /// `iter.fold_chunks_with(size, init, f)`.
    pub type FoldChunksWith<I, U, F> = Par<par::FoldChunksWith<X<I>, U, F>>;

    /// The items of a parallel iterator `I`.
    type Item<I> = <I as ParallelIterator>::Item;

    /// `(a, b, ..).into_par_iter()` on a tuple `T` of indexed parallel
    /// iterators: their items zipped, as tuples.
    pub type MultiZip<T> = <T as IntoParallelIterator>::Iter;
    /// `split(data, splitter)`: the pieces, in order. tine cuts before the
    /// call returns, so the splitter's type `S` is only named.
    pub type Split<D, S> = Par<par::VecProducer<super::First<D, S>>>;
    /// `walk_tree(root, children_of)`: the nodes (prefix order). tine
    /// walks before the call returns, so `B` is only named.
    pub type WalkTree<S, B> = Par<par::VecProducer<super::First<S, B>>>;
    /// `walk_tree_prefix(root, children_of)`: the nodes, each before its
    /// children.
    pub type WalkTreePrefix<S, B> = Par<par::VecProducer<super::First<S, B>>>;
    /// `walk_tree_postfix(root, children_of)`: the nodes, each after its
    /// children.
    pub type WalkTreePostfix<S, B> = Par<par::VecProducer<super::First<S, B>>>;
}

/// `A`, with `B` named too: rayon's type names carry type parameters
/// (a closure's type) that tine's iterator types do not, and an alias must
/// use each of its parameters.
type First<A, B> = <(A, B) as Pair>::First;

/// The first type of a pair. rayon's type names `Split<D, S>`,
/// `WalkTree<S, B>` and `ChunkByMut<'a, T, F>` carry a closure's type that
/// tine's iterator types do not hold; their aliases name it through this
/// trait (`<(A, B) as Pair>::First` is `A`).
pub trait Pair {
    /// The first type.
    type First;
}

impl<A, B> Pair for (A, B) {
    type First = A;
}
