//! Sources with no slice or range behind them, with rayon's names:
//! [`empty`], [`once`], [`repeat`], [`repeat_n`], and `into_par_iter` on
//! `Option`, `Result` and arrays (owned and borrowed).
//!
//! The owned ones hold their few items inline, in an [`InlineProducer`]:
//! no allocation, and each item is moved out (or dropped) by position,
//! exactly once, as a `Vec`'s are.

use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::par::Par;
use crate::par::producer::{Producer, VecRange};
use crate::wait::SpinLock;
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

/// Up to `N` owned items held inline: the producer of [`empty`] (`N = 0`),
/// [`once`] and `Option` (`N = 1`), and arrays.
pub struct InlineProducer<T, const N: usize> {
    /// Items `0..len` are initialized until their positions are handed
    /// out, which moves or drops them.
    items: UnsafeCell<MaybeUninit<[T; N]>>,
    len: usize,
}

impl<T, const N: usize> core::fmt::Debug for InlineProducer<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InlineProducer")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T, const N: usize> InlineProducer<T, N> {
    fn full(items: [T; N]) -> Self {
        InlineProducer {
            items: UnsafeCell::new(MaybeUninit::new(items)),
            len: N,
        }
    }

    fn none() -> Self {
        InlineProducer {
            items: UnsafeCell::new(MaybeUninit::uninit()),
            len: 0,
        }
    }
}

/// Clones the items, for `Par::clone`. They are all in place: a producer is
/// cloned only before any of its positions is handed out (`producer.rs`,
/// the contract), on one thread (`Par` is not `Sync`). A panicking
/// `T::clone` drops the clones made so far (`array::from_fn` does).
impl<T: Clone, const N: usize> Clone for InlineProducer<T, N> {
    fn clone(&self) -> Self {
        if self.len == 0 {
            return InlineProducer::none();
        }
        // `full` and `none` are the only constructors: with items, all `N`.
        assert_eq!(self.len, N, "an inline producer holds all its items");
        let items = self.items.get().cast::<T>().cast_const();
        InlineProducer::full(core::array::from_fn(|i| {
            // SAFETY: `i < N = len`, and items `0..len` are initialized and
            // not moved out (no position handed out, see above); no other
            // thread touches them while this shared borrow lives.
            unsafe { &*items.add(i) }.clone()
        }))
    }
}

// SAFETY: threads move disjoint positions out once each (the producer
// contract), moving `T` across threads, which `T: Send` allows.
unsafe impl<T: Send, const N: usize> Sync for InlineProducer<T, N> {}

// SAFETY: yields the items of positions `begin..end`, each moved out once
// by `VecRange`, which drops the ones it does not yield.
unsafe impl<T: Send, const N: usize> Producer for InlineProducer<T, N> {
    type Item = T;
    type Iter<'a>
        = VecRange<'a, T>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // The pointer comes from the `UnsafeCell`, so the range may move
        // items out and drop them through it.
        VecRange::new(self.items.get().cast::<T>(), begin, end)
    }
}

/// The parallel iterator of no items (rayon's `rayon::iter::empty`).
pub type Empty<T> = Par<InlineProducer<T, 0>>;
/// The parallel iterator of one item (rayon's `rayon::iter::once`).
pub type Once<T> = Par<InlineProducer<T, 1>>;

/// A parallel iterator of no items.
///
/// ```
/// let none: Vec<u8> = tine::iter::empty().collect();
/// assert!(none.is_empty());
/// # use tine::prelude::*;
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Par::new(InlineProducer::none())
}

/// A parallel iterator of one item.
///
/// ```
/// use tine::prelude::*;
///
/// let v: Vec<u32> = (0..3u32).into_par_iter().chain(tine::iter::once(9)).collect();
/// assert_eq!(v, [0, 1, 2, 9]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Par::new(InlineProducer::full([item]))
}

/// `n` clones of one value: [`repeat_n`], and [`repeat`] with `n` as
/// large as a `usize` goes. Each range clones the value once, one thread
/// at a time, and its items are clones of that copy (the last one the copy
/// itself), so the value need only be `Send`, as rayon asks.
pub struct RepeatProducer<T> {
    value: SpinLock<T>,
    len: usize,
}

impl<T> RepeatProducer<T> {
    fn new(value: T, len: usize) -> Self {
        RepeatProducer {
            value: SpinLock::new(value),
            len,
        }
    }
}

/// Clones the value, under its lock.
impl<T: Clone> Clone for RepeatProducer<T> {
    fn clone(&self) -> Self {
        RepeatProducer::new(self.value.with(|value| value.clone()), self.len)
    }
}

impl<T> core::fmt::Debug for RepeatProducer<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RepeatProducer")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// The items of one range of a [`RepeatProducer`]: `left` clones of its own
/// copy, the last being the copy.
pub struct Clones<T> {
    value: Option<T>,
    left: usize,
}

impl<T: Clone> Iterator for Clones<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self.left {
            0 => None,
            1 => {
                self.left = 0;
                self.value.take()
            }
            _ => {
                self.left -= 1;
                self.value.clone()
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

// SAFETY: yields `end - begin` clones for positions `begin..end`.
unsafe impl<T: Clone + Send> Producer for RepeatProducer<T> {
    type Item = T;
    type Iter<'a>
        = Clones<T>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.len
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let left = end - begin;
        Clones {
            value: (left > 0).then(|| self.value.with(|value| value.clone())),
            left,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The parallel iterator [`repeat_n`] returns (rayon's `RepeatN`).
pub type RepeatN<T> = Par<RepeatProducer<T>>;
/// The parallel iterator [`repeat`] returns (rayon's `Repeat`).
pub type Repeat<T> = Par<RepeatProducer<T>>;

/// Clones of `value` without end, as rayon's `repeat`: bound it with
/// `take`, or `zip` it with a finite iterator.
///
/// ```
/// use tine::prelude::*;
///
/// let pairs: Vec<(char, u32)> = tine::iter::repeat('x').zip(0..3u32).collect();
/// assert_eq!(pairs, [('x', 0), ('x', 1), ('x', 2)]);
/// ```
pub fn repeat<T: Clone + Send>(value: T) -> Repeat<T> {
    Par::new(RepeatProducer::new(value, usize::MAX))
}

/// `n` clones of `value`, as rayon's `repeat_n`.
///
/// ```
/// use tine::prelude::*;
///
/// let v: Vec<String> = tine::iter::repeat_n(String::from("ab"), 3).collect();
/// assert_eq!(v.concat(), "ababab");
/// ```
pub fn repeat_n<T: Clone + Send>(value: T, n: usize) -> RepeatN<T> {
    Par::new(RepeatProducer::new(value, n))
}

/// rayon's older name for [`repeat_n`].
pub fn repeatn<T: Clone + Send>(value: T, n: usize) -> RepeatN<T> {
    repeat_n(value, n)
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Iter = Par<InlineProducer<T, 1>>;
    type Item = T;

    /// The value, if any.
    fn into_par_iter(self) -> Self::Iter {
        Par::new(match self {
            Some(item) => InlineProducer::full([item]),
            None => InlineProducer::none(),
        })
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
    type Iter = Par<InlineProducer<&'a T, 1>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_ref().into_par_iter()
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
    type Iter = Par<InlineProducer<&'a mut T, 1>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_mut().into_par_iter()
    }
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Iter = Par<InlineProducer<T, 1>>;
    type Item = T;

    /// The `Ok` value, if any (an error is dropped), as rayon's.
    fn into_par_iter(self) -> Self::Iter {
        self.ok().into_par_iter()
    }
}

impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Iter = Par<InlineProducer<&'a T, 1>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_ref().ok().into_par_iter()
    }
}

impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Iter = Par<InlineProducer<&'a mut T, 1>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_mut().ok().into_par_iter()
    }
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = Par<InlineProducer<T, N>>;
    type Item = T;

    /// Moves the items out, as `Vec::into_par_iter` does.
    fn into_par_iter(self) -> Self::Iter {
        Par::new(InlineProducer::full(self))
    }
}

impl<'a, T: Sync, const N: usize> IntoParallelIterator for &'a [T; N] {
    type Iter = <&'a [T] as IntoParallelIterator>::Iter;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_slice().into_par_iter()
    }
}

impl<'a, T: Send, const N: usize> IntoParallelIterator for &'a mut [T; N] {
    type Iter = <&'a mut [T] as IntoParallelIterator>::Iter;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        self.as_mut_slice().into_par_iter()
    }
}

// SAFETY: one item per position (both are `EXACT`).
unsafe impl<T: Send, const N: usize> crate::par::producer::Indexed for InlineProducer<T, N> {}
// SAFETY: as above.
unsafe impl<T: Clone + Send> crate::par::producer::Indexed for RepeatProducer<T> {}
