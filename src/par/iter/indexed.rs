//! [`IndexedParallelIterator`], and the conversions in and out of parallel
//! iterators: [`IntoParallelIterator`], [`FromParallelIterator`], and the
//! [`Try`] protocol of `try_for_each` and `try_reduce`.

use super::{consume, Par, ParallelIterator};
use crate::par::adaptor::{Enumerate, Indexed, Window, Zip};

/// A parallel iterator with exactly one item per position: the sources,
/// and `map`, `enumerate`, `zip`, `copied` and `cloned` over them.
pub trait IndexedParallelIterator: ParallelIterator {
    /// The producer, known to be indexed (an implementation detail).
    #[doc(hidden)]
    type Indexed: Indexed<Item = Self::Item> + Send;

    /// The iterator as a [`Par`] over an indexed producer (an
    /// implementation detail).
    #[doc(hidden)]
    fn into_indexed(self) -> Par<Self::Indexed>;

    /// The number of items.
    fn len(&self) -> usize;

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pairs each item with its position.
    fn enumerate(self) -> Par<Enumerate<Self::Indexed>> {
        self.into_indexed().wrap(Enumerate)
    }

    /// Pairs items with `other`'s, as long as the shorter of the two. The
    /// call runs with `self`'s settings (schedule, pool, lengths); `other`'s
    /// are ignored.
    fn zip<Z>(
        self,
        other: Z,
    ) -> Par<Zip<Self::Indexed, <Z::Iter as IndexedParallelIterator>::Indexed>>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let (b, _) = other.into_par_iter().into_indexed().into_parts();
        self.into_indexed().wrap(|a| Zip { a, b })
    }

    /// The items after the first `n` (none if there are fewer). The skipped
    /// ones are dropped unseen.
    fn skip(self, n: usize) -> Par<Window<Self::Indexed>> {
        self.into_indexed()
            .wrap(|base| Window::new(base, n, usize::MAX))
    }

    /// The first `n` items (all if there are fewer). The rest are dropped
    /// unseen.
    fn take(self, n: usize) -> Par<Window<Self::Indexed>> {
        self.into_indexed().wrap(|base| Window::new(base, 0, n))
    }

    /// Collects into `target`, replacing its contents, with one allocation
    /// at most (none if it has the capacity).
    fn collect_into_vec(self, target: &mut std::vec::Vec<Self::Item>) {
        crate::par::collect::collect_into_vec(self.into_indexed(), target)
    }

    /// The position of some item for which `f` is true, stopping the call
    /// at the first found.
    fn position_any<F>(self, f: F) -> Option<usize>
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = |(i, item)| f(item).then_some(i);
        consume::find(self.enumerate(), found, false)
    }

    /// The lowest position of an item for which `f` is true.
    fn position_first<F>(self, f: F) -> Option<usize>
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = |(i, item)| f(item).then_some(i);
        consume::find(self.enumerate(), found, true)
    }
}

impl<P: Indexed + Send> IndexedParallelIterator for Par<P>
where
    P::Item: Send,
{
    type Indexed = P;

    fn into_indexed(self) -> Par<P> {
        self
    }

    fn len(&self) -> usize {
        self.producer.as_ref().map_or(0, |p| p.len())
    }
}

/// Conversion into a parallel iterator: `into_par_iter()` on `Vec<T>`,
/// ranges, and references to slices and `Vec`s.
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Converts `self`.
    fn into_par_iter(self) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;
    fn into_par_iter(self) -> T {
        self
    }
}

/// Collecting a parallel iterator, in input order: implemented for `Vec<T>`
/// (filled in place), the other standard collections and `String`
/// (`extend.rs`), `()`, and `Result` and `Option` of any of them.
pub trait FromParallelIterator<T: Send> {
    /// Collects `iter`'s items in input order.
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(iter: I) -> Self;
}

/// The `?`-like protocol of `try_for_each` and `try_reduce`, implemented
/// for `Result` and `Option` (rayon's private `Try`).
pub trait Try: Sized {
    /// The value of success.
    type Output;
    /// What a failure carries.
    type Residual;
    /// Splits into success or failure.
    fn into_result(self) -> Result<Self::Output, Self::Residual>;
    /// A success.
    fn from_output(output: Self::Output) -> Self;
    /// A failure.
    fn from_residual(residual: Self::Residual) -> Self;
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = E;
    fn into_result(self) -> Result<T, E> {
        self
    }
    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn from_residual(residual: E) -> Self {
        Err(residual)
    }
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = ();
    fn into_result(self) -> Result<T, ()> {
        self.ok_or(())
    }
    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn from_residual((): ()) -> Self {
        None
    }
}
