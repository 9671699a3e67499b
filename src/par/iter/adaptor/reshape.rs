//! The adaptors that are more than a `std::iter` adaptor per range: `zip`
//! (which drops the longer side's tail), `copied` and `cloned`, `fold` (one
//! partial per range) and `with_pool`'s lifetime marker.

use super::{clone_parts, DropPart, MakeState};
use crate::nest::stop::is_watched;
use crate::par::producer::{Indexed, Producer};
use core::marker::PhantomData;

/// `zip`: pairs, as long as the shorter side.
#[derive(Debug)]
pub struct Zip<A: Producer, B: Producer> {
    pub(in crate::par) a: A,
    pub(in crate::par) b: B,
}

impl<A: Producer + Clone, B: Producer + Clone> Clone for Zip<A, B> {
    fn clone(&self) -> Self {
        let (a, b) = clone_parts(&self.a, || self.b.clone());
        Zip { a, b }
    }
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
        // SAFETY: forwarded from the caller; `b`'s part goes even if a
        // `Drop` in `a`'s panics.
        let b = unsafe { DropPart::new(&self.b, begin, end) };
        // SAFETY: forwarded from the caller.
        unsafe { self.a.drop_range(begin, end) };
        drop(b);
    }
}
// SAFETY: one pair per position.
unsafe impl<A: Indexed, B: Indexed> Indexed for Zip<A, B> {}

impl<A: Producer, B: Producer> Drop for Zip<A, B> {
    /// The longer side's tail is never handed out by the driver, which
    /// stops at the shorter length: drop it here.
    fn drop(&mut self) {
        let len = self.a.len().min(self.b.len());
        // SAFETY: positions from `len` on were never handed out; `b`'s go
        // even if a `Drop` in `a`'s panics.
        let b = unsafe { DropPart::new(&self.b, len, self.b.len()) };
        // SAFETY: as above.
        unsafe { self.a.drop_range(len, self.a.len()) };
        drop(b);
    }
}

/// `copied` and `cloned`: references to `T` become `T`s, through the
/// `std::iter` adaptor `$method`, which needs `T: $bound`.
macro_rules! by_value {
    ($(#[$doc:meta])* $name:ident via $method:ident, $bound:ident, $iter:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<P>(pub(in crate::par) P);

        // SAFETY: hands its positions to the wrapped producer once each (see
        // the comment at the top of the file).
        unsafe impl<'t, P: Producer<Item = &'t T>, T: $bound + 't> Producer for $name<P> {
            type Item = T;
            type Iter<'a>
                = core::iter::$iter<P::Iter<'a>>
            where
                Self: 'a;
            const EXACT: bool = P::EXACT;
            same_positions!(0, P);

            unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
                // SAFETY: forwarded from the caller.
                unsafe { self.0.range(begin, end) }.$method()
            }
        }
        // SAFETY: one item per position when the base has one.
        unsafe impl<'t, P: Indexed<Item = &'t T>, T: $bound + 't> Indexed for $name<P> {}
    };
}

by_value!(
    /// `copied`.
    Copied via copied, Copy, Copied
);
by_value!(
    /// `cloned`.
    Cloned via cloned, Clone, Cloned
);

/// `fold`: each range folds into one partial, which is the range's only
/// item (one partial per block, as rayon gives one per split).
#[derive(Debug)]
pub struct Fold<P, I, F> {
    pub(in crate::par) base: P,
    pub(in crate::par) identity: I,
    pub(in crate::par) f: F,
}

impl<P: Producer + Clone, I: Clone, F: Clone> Clone for Fold<P, I, F> {
    fn clone(&self) -> Self {
        let (base, (identity, f)) =
            clone_parts(&self.base, || (self.identity.clone(), self.f.clone()));
        Fold { base, identity, f }
    }
}

/// The iterator of one range of [`Fold`]: folds the range when asked for
/// its one item. In a block of a heavy producer that a search folds
/// (`fold(..).find_any(..)` over a `flat_map`), it hands on a partial
/// after every 1024 items instead, so that the search sees
/// items before the block's great many are folded, as rayon's folds, one
/// per split of the inner iterators, let it.
#[derive(Debug)]
pub struct FoldIter<'a, It, I, F> {
    base: Option<It>,
    identity: &'a I,
    f: &'a F,
    /// Whether the base is heavy: then, under a search, a partial goes on
    /// every [`HEAVY_PARTIAL`] items.
    heavy: bool,
    /// Whether a partial has been handed on.
    handed: bool,
}

/// The items a heavy block's fold takes into one partial under a search.
const HEAVY_PARTIAL: usize = 1024;

impl<It, I, F, T> Iterator for FoldIter<'_, It, I, F>
where
    It: Iterator,
    I: MakeState<State = T>,
    F: Fn(T, It::Item) -> T,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        // The search's test is set around the block's fold, after `range`.
        if !(self.heavy && is_watched()) {
            let base = self.base.take()?;
            return Some(base.fold(self.identity.make(), self.f));
        }
        let base = self.base.as_mut()?;
        let mut partial = self.identity.make();
        let mut taken = 0;
        while taken < HEAVY_PARTIAL {
            let Some(item) = base.next() else {
                self.base = None;
                break;
            };
            partial = (self.f)(partial, item);
            taken += 1;
        }
        // An empty range still has its one partial, as without parts.
        let first = !core::mem::replace(&mut self.handed, true);
        (taken > 0 || first).then_some(partial)
    }
}

// SAFETY: hands its positions to the wrapped producers once each (see the
// comment at the top of the file).
unsafe impl<P, I, F, T> Producer for Fold<P, I, F>
where
    P: Producer,
    I: MakeState<State = T>,
    F: Fn(T, P::Item) -> T + Sync,
{
    type Item = T;
    type Iter<'a>
        = FoldIter<'a, P::Iter<'a>, I, F>
    where
        Self: 'a;
    const EXACT: bool = false;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        FoldIter {
            // SAFETY: forwarded from the caller.
            base: Some(unsafe { self.base.range(begin, end) }),
            identity: &self.identity,
            f: &self.f,
            heavy: P::HEAVY,
            handed: false,
        }
    }
}

/// A producer bound to a pool for `'p` (`with_pool`): the pool is kept in
/// the call's settings, and this wrapper keeps the iterator from outliving
/// it.
#[derive(Clone, Debug)]
pub struct Pooled<'p, P> {
    pub(in crate::par) base: P,
    pub(in crate::par) _pool: PhantomData<&'p ()>,
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
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.range(begin, end) }
    }

    unsafe fn rfind_map<A, T: FnMut(P::Item) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut T,
    ) -> Option<A> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.rfind_map(begin, end, test) }
    }
}
// SAFETY: as its base.
unsafe impl<P: Indexed> Indexed for Pooled<'_, P> {}
