//! `into_par_iter` on tuples of indexed parallel iterators (up to 12), as
//! rayon's `MultiZip`: the items of each, zipped, as tuples, as long as the
//! shortest. The tuple is the zips of its members, left to right, mapped
//! from nested pairs to a flat tuple by a plain `fn`.

use crate::par::iter::adaptor::reshape::Zip;
use crate::par::iter::adaptor::Map;
use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::indexed::IndexedParallelIterator;
use crate::par::iter::par::Par;

/// The indexed producer of tuple member `T`.
type X<T> = <<T as IntoParallelIterator>::Iter as IndexedParallelIterator>::Indexed;

/// The nested `Zip` producer of the members, left to right.
macro_rules! nested_zip {
    ([$acc:ty]) => { $acc };
    ([$acc:ty] $T:ident $($rest:ident)*) => { nested_zip!([Zip<$acc, X<$T>>] $($rest)*) };
}

/// The nested-pair pattern of the members' items, left to right.
macro_rules! nested_pattern {
    ([$acc:pat]) => { $acc };
    ([$acc:pat] $t:ident $($rest:ident)*) => { nested_pattern!([($acc, $t)] $($rest)*) };
}

/// The nested-pair type of the members' items, left to right.
macro_rules! nested_items {
    ([$acc:ty]) => { $acc };
    ([$acc:ty] $T:ident $($rest:ident)*) => { nested_items!([($acc, $T::Item)] $($rest)*) };
}

macro_rules! multizip {
    ($(($A:ident $a:ident $(, $T:ident $t:ident)*))+) => {$(
        /// The members' items zipped, as tuples, as long as the shortest
        /// member (rayon's `MultiZip`).
        impl<$A $(, $T)*> IntoParallelIterator for ($A, $($T,)*)
        where
            $A: IntoParallelIterator,
            $A::Iter: IndexedParallelIterator,
            $($T: IntoParallelIterator, $T::Iter: IndexedParallelIterator,)*
        {
            type Iter = Par<Map<
                nested_zip!([X<$A>] $($T)*),
                fn(nested_items!([$A::Item] $($T)*)) -> ($A::Item, $($T::Item,)*),
            >>;
            type Item = ($A::Item, $($T::Item,)*);

            fn into_par_iter(self) -> Self::Iter {
                #[allow(non_snake_case)]
                let ($a, $($t,)*) = self;
                let zipped = $a.into_par_iter().into_indexed()
                    $(.zip($t))*;
                let flat: fn(nested_items!([$A::Item] $($T)*)) -> ($A::Item, $($T::Item,)*) =
                    |nested_pattern!([$a] $($t)*)| ($a, $($t,)*);
                crate::par::iter::ParallelIterator::map(zipped, flat)
            }
        }
    )+};
}

multizip! {
    (A a)
    (A a, B b)
    (A a, B b, C c)
    (A a, B b, C c, D d)
    (A a, B b, C c, D d, E e)
    (A a, B b, C c, D d, E e, F f)
    (A a, B b, C c, D d, E e, F f, G g)
    (A a, B b, C c, D d, E e, F f, G g, H h)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l)
}
