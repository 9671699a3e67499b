//! The conversions in and out of parallel iterators:
//! [`IntoParallelIterator`] (and, through it, `par_iter` and `par_iter_mut`:
//! [`IntoParallelRefIterator`], [`IntoParallelRefMutIterator`]),
//! [`FromParallelIterator`], and the [`Try`] protocol of `try_for_each`, `try_reduce` and `try_fold`, for every type
//! rayon accepts there: `Result`, `Option`, `ControlFlow`, and `Poll` of a
//! `Result` or of an `Option` of one.

use super::ParallelIterator;
use core::ops::ControlFlow;
use core::task::Poll;

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

/// `par_iter()`: a parallel iterator over references, for anything whose
/// reference converts (slices, `Vec`s).
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (references).
    type Item: Send + 'data;
    /// Iterates over `&self`'s items in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references.
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (mutable references).
    type Item: Send + 'data;
    /// Iterates over `&mut self`'s items in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// Collecting a parallel iterator, in input order: implemented for `Vec<T>`
/// (filled in place), the other standard collections and `String`
/// (`extend.rs`), `()`, and `Result` and `Option` of any of them.
pub trait FromParallelIterator<T: Send> {
    /// Collects `iter`'s items in input order.
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(iter: I) -> Self;
}

/// The `?`-like protocol of `try_for_each`, `try_reduce` and `try_fold`
/// (rayon's private `Try`): implemented for `Result`, `Option`,
/// `ControlFlow`, `Poll<Result<T, E>>` and `Poll<Option<Result<T, E>>>`.
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

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = B;
    fn into_result(self) -> Result<C, B> {
        match self {
            ControlFlow::Continue(output) => Ok(output),
            ControlFlow::Break(residual) => Err(residual),
        }
    }
    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }
    fn from_residual(residual: B) -> Self {
        ControlFlow::Break(residual)
    }
}

/// `Poll<Result>`: `Pending` and `Ready(Ok(_))` go on, `Ready(Err(_))`
/// stops, as with `?` on it.
impl<T, E> Try for Poll<Result<T, E>> {
    type Output = Poll<T>;
    type Residual = E;
    fn into_result(self) -> Result<Poll<T>, E> {
        match self {
            Poll::Ready(Ok(value)) => Ok(Poll::Ready(value)),
            Poll::Ready(Err(error)) => Err(error),
            Poll::Pending => Ok(Poll::Pending),
        }
    }
    fn from_output(output: Poll<T>) -> Self {
        output.map(Ok)
    }
    fn from_residual(residual: E) -> Self {
        Poll::Ready(Err(residual))
    }
}

/// `Poll<Option<Result>>`: only `Ready(Some(Err(_)))` stops, as with `?`
/// on it.
impl<T, E> Try for Poll<Option<Result<T, E>>> {
    type Output = Poll<Option<T>>;
    type Residual = E;
    fn into_result(self) -> Result<Poll<Option<T>>, E> {
        match self {
            Poll::Ready(Some(Ok(value))) => Ok(Poll::Ready(Some(value))),
            Poll::Ready(Some(Err(error))) => Err(error),
            Poll::Ready(None) => Ok(Poll::Ready(None)),
            Poll::Pending => Ok(Poll::Pending),
        }
    }
    fn from_output(output: Poll<Option<T>>) -> Self {
        output.map(|value| value.map(Ok))
    }
    fn from_residual(residual: E) -> Self {
        Poll::Ready(Some(Err(residual)))
    }
}
