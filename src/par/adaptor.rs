//! Adaptors: producers that wrap producers, one per rayon adaptor. Each
//! range of an adaptor is the same range of the producer it wraps, run
//! through the matching `std::iter` adaptor, so a thread's loop stays one
//! plain serial iterator chain.

use super::producer::Producer;
use core::marker::PhantomData;

/// A producer whose positions each yield exactly one item, so that
/// `enumerate`, `zip`, `position_*` and `collect_into_vec` apply.
///
/// # Safety
/// `Producer::EXACT` must be true.
pub unsafe trait Indexed: Producer {}

// SAFETY (for every `unsafe impl Producer` below): each adaptor's range
// hands the same positions to the producers it wraps, once, and yields
// exactly one item per position when it says `EXACT`.

/// `map`.
#[derive(Debug)]
pub struct Map<P, F> {
    pub(super) base: P,
    pub(super) f: F,
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P: Producer, F: Fn(P::Item) -> R + Sync, R> Producer for Map<P, F> {
    type Item = R;
    type Iter<'a>
        = core::iter::Map<P::Iter<'a>, &'a F>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }.map(&self.f)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<P: Indexed, F: Fn(P::Item) -> R + Sync, R> Indexed for Map<P, F> {}

/// `map_init`: `init` makes one state per range.
#[derive(Debug)]
pub struct MapInit<P, I, F> {
    pub(super) base: P,
    pub(super) init: I,
    pub(super) f: F,
}

/// The iterator of one range of [`MapInit`], holding its state.
#[derive(Debug)]
pub struct MapInitIter<'a, It, S, F> {
    base: It,
    state: S,
    f: &'a F,
}

impl<It: Iterator, S, F: Fn(&mut S, It::Item) -> R, R> Iterator for MapInitIter<'_, It, S, F> {
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        let item = self.base.next()?;
        Some((self.f)(&mut self.state, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P, I, S, F, R> Producer for MapInit<P, I, F>
where
    P: Producer,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, P::Item) -> R + Sync,
{
    type Item = R;
    type Iter<'a>
        = MapInitIter<'a, P::Iter<'a>, S, F>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        MapInitIter {
            // SAFETY: forwarded from the caller.
            base: unsafe { self.base.range(begin, end) },
            state: (self.init)(),
            f: &self.f,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<P, I, S, F, R> Indexed for MapInit<P, I, F>
where
    P: Indexed,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, P::Item) -> R + Sync,
{
}

/// `map_with`: a clone of `value` per range as the state.
#[derive(Debug)]
pub struct MapWith<P, S, F> {
    pub(super) base: P,
    pub(super) value: S,
    pub(super) f: F,
}

// SAFETY: hands its positions to the wrapped producer once each.
unsafe impl<P, S, F, R> Producer for MapWith<P, S, F>
where
    P: Producer,
    S: Clone + Sync,
    F: Fn(&mut S, P::Item) -> R + Sync,
{
    type Item = R;
    type Iter<'a>
        = MapInitIter<'a, P::Iter<'a>, S, F>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        MapInitIter {
            // SAFETY: forwarded from the caller.
            base: unsafe { self.base.range(begin, end) },
            state: self.value.clone(),
            f: &self.f,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<P, S, F, R> Indexed for MapWith<P, S, F>
where
    P: Indexed,
    S: Clone + Sync,
    F: Fn(&mut S, P::Item) -> R + Sync,
{
}

/// `inspect`: each item passes `f` by reference on its way.
#[derive(Debug)]
pub struct Inspect<P, F> {
    pub(super) base: P,
    pub(super) f: F,
}

// SAFETY: hands its positions to the wrapped producer once each.
unsafe impl<P: Producer, F: Fn(&P::Item) + Sync> Producer for Inspect<P, F> {
    type Item = P::Item;
    type Iter<'a>
        = core::iter::Inspect<P::Iter<'a>, &'a F>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }.inspect(&self.f)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<P: Indexed, F: Fn(&P::Item) + Sync> Indexed for Inspect<P, F> {}

/// `filter`.
#[derive(Debug)]
pub struct Filter<P, F> {
    pub(super) base: P,
    pub(super) f: F,
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P: Producer, F: Fn(&P::Item) -> bool + Sync> Producer for Filter<P, F> {
    type Item = P::Item;
    type Iter<'a>
        = core::iter::Filter<P::Iter<'a>, &'a F>
    where
        Self: 'a;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }.filter(&self.f)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}

/// `filter_map`.
#[derive(Debug)]
pub struct FilterMap<P, F> {
    pub(super) base: P,
    pub(super) f: F,
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P: Producer, F: Fn(P::Item) -> Option<R> + Sync, R> Producer for FilterMap<P, F> {
    type Item = R;
    type Iter<'a>
        = core::iter::FilterMap<P::Iter<'a>, &'a F>
    where
        Self: 'a;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }.filter_map(&self.f)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}

/// `flat_map_iter`: each item becomes a serial iterator, run in place.
#[derive(Debug)]
pub struct FlatMapIter<P, F> {
    pub(super) base: P,
    pub(super) f: F,
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P, F, I> Producer for FlatMapIter<P, F>
where
    P: Producer,
    F: Fn(P::Item) -> I + Sync,
    I: IntoIterator,
{
    type Item = I::Item;
    type Iter<'a>
        = core::iter::FlatMap<P::Iter<'a>, I, &'a F>
    where
        Self: 'a;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }.flat_map(&self.f)
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}

/// `enumerate`: each item with its position.
#[derive(Debug)]
pub struct Enumerate<P>(pub(super) P);

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P: Indexed> Producer for Enumerate<P> {
    type Item = (usize, P::Item);
    type Iter<'a>
        = core::iter::Zip<core::ops::Range<usize>, P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        (begin..end).zip(unsafe { self.0.range(begin, end) })
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.drop_range(begin, end) }
    }
}
// SAFETY: one item per position of an indexed base.
unsafe impl<P: Indexed> Indexed for Enumerate<P> {}

/// `zip`: pairs, as long as the shorter side.
#[derive(Debug)]
pub struct Zip<A: Producer, B: Producer> {
    pub(super) a: A,
    pub(super) b: B,
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<A: Indexed, B: Indexed> Producer for Zip<A, B> {
    type Item = (A::Item, B::Item);
    type Iter<'a>
        = core::iter::Zip<A::Iter<'a>, B::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller; both sides are at least `len`.
        unsafe { self.a.range(begin, end).zip(self.b.range(begin, end)) }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.a.drop_range(begin, end);
            self.b.drop_range(begin, end);
        }
    }
}
// SAFETY: one pair per position.
unsafe impl<A: Indexed, B: Indexed> Indexed for Zip<A, B> {}

impl<A: Producer, B: Producer> Drop for Zip<A, B> {
    /// The longer side's tail is never handed out by the driver, which
    /// stops at the shorter length: drop it here.
    fn drop(&mut self) {
        let len = self.a.len().min(self.b.len());
        // SAFETY: positions from `len` on were never handed out.
        unsafe {
            self.a.drop_range(len, self.a.len());
            self.b.drop_range(len, self.b.len());
        }
    }
}

/// `copied`.
#[derive(Debug)]
pub struct Copied<P>(pub(super) P);

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<'t, P: Producer<Item = &'t T>, T: Copy + 't> Producer for Copied<P> {
    type Item = T;
    type Iter<'a>
        = core::iter::Copied<P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.range(begin, end) }.copied()
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.drop_range(begin, end) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<'t, P: Indexed<Item = &'t T>, T: Copy + 't> Indexed for Copied<P> {}

/// `cloned`.
#[derive(Debug)]
pub struct Cloned<P>(pub(super) P);

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<'t, P: Producer<Item = &'t T>, T: Clone + 't> Producer for Cloned<P> {
    type Item = T;
    type Iter<'a>
        = core::iter::Cloned<P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.range(begin, end) }.cloned()
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.drop_range(begin, end) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<'t, P: Indexed<Item = &'t T>, T: Clone + 't> Indexed for Cloned<P> {}

/// `fold`: each range folds into one partial, which is the range's only
/// item (one partial per block, as rayon gives one per split).
#[derive(Debug)]
pub struct Fold<P, I, F> {
    pub(super) base: P,
    pub(super) identity: I,
    pub(super) f: F,
}

/// The iterator of one range of [`Fold`]: folds the range when asked for
/// its one item.
#[derive(Debug)]
pub struct FoldIter<'a, It, I, F> {
    base: Option<It>,
    identity: &'a I,
    f: &'a F,
}

impl<It: Iterator, I: Fn() -> T, F: Fn(T, It::Item) -> T, T> Iterator for FoldIter<'_, It, I, F> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let base = self.base.take()?;
        Some(base.fold((self.identity)(), self.f))
    }
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P, I, F, T> Producer for Fold<P, I, F>
where
    P: Producer,
    I: Fn() -> T + Sync,
    F: Fn(T, P::Item) -> T + Sync,
{
    type Item = T;
    type Iter<'a>
        = FoldIter<'a, P::Iter<'a>, I, F>
    where
        Self: 'a;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        FoldIter {
            // SAFETY: forwarded from the caller.
            base: Some(unsafe { self.base.range(begin, end) }),
            identity: &self.identity,
            f: &self.f,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}

/// A producer bound to a pool for `'p` (`with_pool`): the pool is kept in
/// the call's settings, and this wrapper keeps the iterator from outliving
/// it.
#[derive(Debug)]
pub struct Pooled<'p, P> {
    pub(super) base: P,
    pub(super) _pool: PhantomData<&'p ()>,
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P: Producer> Producer for Pooled<'_, P> {
    type Item = P::Item;
    type Iter<'a>
        = P::Iter<'a>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;

    fn len(&self) -> usize {
        self.base.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.drop_range(begin, end) }
    }
}
// SAFETY: as its base.
unsafe impl<P: Indexed> Indexed for Pooled<'_, P> {}
