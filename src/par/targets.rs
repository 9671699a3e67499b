//! The rest of rayon's `collect` and `par_extend` targets: boxed and shared
//! slices (`Box<[T]>`, `Rc<[T]>`, `Arc<[T]>`), strings from every piece
//! rayon accepts (`Box<str>`, `Cow<str>`), `Cow<B>`, `OsString`, pairs (as
//! `unzip` and `partition_map` fill them), `Either` and `()`.
//!
//! Each gathers its items in input order through the `Vec` and `String`
//! targets (`iter/collect.rs`, `iter/extend.rs`) and converts the result,
//! so it keeps their order and their one fork per call.

use super::iter::convert::{FromParallelIterator, IntoParallelIterator};
use super::iter::extend::{partition_map_into, unzip_into, ParallelExtend};
use super::iter::ParallelIterator;
use either::Either;
use std::borrow::{Cow, ToOwned};
use std::boxed::Box;
use std::ffi::{OsStr, OsString};
use std::rc::Rc;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

/// `collect::<Box<[T]>>()`.
impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into_boxed_slice()
    }
}

/// `collect::<Rc<[T]>>()`.
impl<T: Send> FromParallelIterator<T> for Rc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// `collect::<Arc<[T]>>()`.
impl<T: Send> FromParallelIterator<T> for Arc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

/// `collect::<String>()` and `par_extend` on a `String` from the pieces
/// `String`'s `FromIterator` takes that `iter/extend.rs` does not list.
macro_rules! more_string_pieces {
    ($(impl[$($generics:tt)*] $piece:ty;)*) => {$(
        impl<$($generics)*> FromParallelIterator<$piece> for String {
            fn from_par_iter<I: IntoParallelIterator<Item = $piece>>(par_iter: I) -> Self {
                Vec::from_par_iter(par_iter).into_iter().collect()
            }
        }

        impl<$($generics)*> ParallelExtend<$piece> for String {
            fn par_extend<I: IntoParallelIterator<Item = $piece>>(&mut self, par_iter: I) {
                self.extend(Vec::from_par_iter(par_iter));
            }

            fn extend_from_vec(&mut self, items: Vec<$piece>) {
                self.extend(items);
            }
        }
    )*};
}

more_string_pieces! {
    impl[] Box<str>;
    impl['a] Cow<'a, str>;
}

/// `collect::<String>()` from `&char`, as rayon has it.
impl<'a> FromParallelIterator<&'a char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a char>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into_iter().collect()
    }
}

/// `collect::<Box<str>>()` from any piece a `String` is collected from.
impl<T: Send> FromParallelIterator<T> for Box<str>
where
    String: FromParallelIterator<T>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        String::from_par_iter(par_iter).into_boxed_str()
    }
}

/// `collect::<Cow<B>>()`: the owned form, collected.
///
/// ```
/// use std::borrow::Cow;
/// use tine::prelude::*;
///
/// let cow: Cow<'_, [u32]> = (0..4u32).into_par_iter().collect();
/// assert_eq!(&*cow, [0, 1, 2, 3]);
/// ```
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

/// `collect` and `par_extend` of an `OsString` from its pieces, in order.
macro_rules! os_string_pieces {
    ($(impl[$($generics:tt)*] $piece:ty;)*) => {$(
        impl<$($generics)*> FromParallelIterator<$piece> for OsString {
            fn from_par_iter<I: IntoParallelIterator<Item = $piece>>(par_iter: I) -> Self {
                Vec::from_par_iter(par_iter).into_iter().collect()
            }
        }

        impl<$($generics)*> ParallelExtend<$piece> for OsString {
            fn par_extend<I: IntoParallelIterator<Item = $piece>>(&mut self, par_iter: I) {
                self.extend(Vec::from_par_iter(par_iter));
            }

            fn extend_from_vec(&mut self, items: Vec<$piece>) {
                self.extend(items);
            }
        }
    )*};
}

os_string_pieces! {
    impl['a] &'a OsStr;
    impl[] OsString;
    impl['a] Cow<'a, OsStr>;
}

/// `collect::<(A, B)>()` from pairs: `unzip`.
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        par_iter.into_par_iter().unzip()
    }
}

/// `par_extend` of a pair of collections with pairs: each half appended in
/// input order, as `unzip` fills them (so `unzip` nests: a pair of
/// collections is itself a target).
///
/// ```
/// use tine::prelude::*;
///
/// let (index, (squares, cubes)): (Vec<usize>, (Vec<u32>, Vec<u32>)) =
///     (1..4u32).into_par_iter().map(|x| (x * x, x * x * x)).enumerate().unzip();
/// assert_eq!((index, squares, cubes), (vec![0, 1, 2], vec![1, 4, 9], vec![1, 8, 27]));
/// ```
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        unzip_into(
            par_iter.into_par_iter().into_par(),
            &mut self.0,
            &mut self.1,
        );
    }

    fn extend_from_vec(&mut self, items: Vec<(A, B)>) {
        let (lefts, rights): (Vec<A>, Vec<B>) = items.into_iter().unzip();
        self.0.extend_from_vec(lefts);
        self.1.extend_from_vec(rights);
    }
}

/// `collect::<(A, B)>()` from `Either`s: the `Left`s and the `Right`s, as
/// `partition_map` gathers them.
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Either<L, R>>>(par_iter: I) -> Self {
        par_iter.into_par_iter().partition_map(|either| either)
    }
}

/// `par_extend` of a pair of collections with `Either`s: the `Left`s to the
/// first, the `Right`s to the second, each in input order.
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I: IntoParallelIterator<Item = Either<L, R>>>(&mut self, par_iter: I) {
        let par = par_iter.into_par_iter().into_par();
        partition_map_into(par, |either| either, &mut self.0, &mut self.1);
    }

    fn extend_from_vec(&mut self, items: Vec<Either<L, R>>) {
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        for item in items {
            match item {
                Either::Left(left) => lefts.push(left),
                Either::Right(right) => rights.push(right),
            }
        }
        self.0.extend_from_vec(lefts);
        self.1.extend_from_vec(rights);
    }
}

/// `par_extend` of an `Either` of collections: the one it holds.
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(left) => left.par_extend(par_iter),
            Either::Right(right) => right.par_extend(par_iter),
        }
    }

    fn extend_from_vec(&mut self, items: Vec<T>) {
        match self {
            Either::Left(left) => left.extend_from_vec(items),
            Either::Right(right) => right.extend_from_vec(items),
        }
    }
}

/// `collect::<()>()`: runs the iterator for its effects, as rayon allows.
impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter.into_par_iter().for_each(drop);
    }
}

/// `par_extend` of `()` with `()`s: runs the iterator for its effects.
impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, par_iter: I) {
        par_iter.into_par_iter().for_each(drop);
    }

    fn extend_from_vec(&mut self, _items: Vec<()>) {}
}
