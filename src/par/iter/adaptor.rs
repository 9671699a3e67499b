//! Adaptors: producers that wrap producers, one per rayon adaptor. Each
//! range of an adaptor is the same range of the producer it wraps, run
//! through the matching `std::iter` adaptor, so a thread's loop stays one
//! plain serial iterator chain.

use super::par::Par;
use crate::par::producer::{Indexed, Producer};
use crate::wait::SpinLock;

/// The items of an adaptor's `Producer` impl that pass straight through
/// to the producer it wraps, `self.$base` of type `$P`, position for
/// position: its length, its dropped ranges, where it is dead, and whether
/// it is boundless or heavy. Adaptors that keep their base's positions use it, so
/// that none forgets to pass `live_from` on (a `par_bridge` under one that
/// did would walk ~2^61 empty blocks).
macro_rules! same_positions {
    ($base:tt, $P:ident) => {
        same_positions!($base, $P, HEAVY = $P::HEAVY);
    };
    ($base:tt, $P:ident, HEAVY = $heavy:expr) => {
        const BOUNDLESS: bool = $P::BOUNDLESS;
        const HEAVY: bool = $heavy;

        fn len(&self) -> usize {
            self.$base.len()
        }

        unsafe fn drop_range(&self, begin: usize, end: usize) {
            // SAFETY: forwarded from the caller.
            unsafe { self.$base.drop_range(begin, end) }
        }

        #[inline]
        fn live_from(&self, begin: usize) -> usize {
            self.$base.live_from(begin)
        }
    };
}

pub(in crate::par) mod any_while;
pub(in crate::par) mod chunking;
pub(in crate::par) mod flatten;
pub(in crate::par) mod intersperse;
pub(in crate::par) mod items;
pub(in crate::par) mod order;
pub(in crate::par) mod reshape;
pub(in crate::par) mod serial;
pub(in crate::par) mod slicing;

/// Drops positions `begin..end` of a producer when it goes out of scope, on
/// unwinding too: an adaptor over two producers drops one side's part with
/// it, so that a panicking `Drop` on the other side leaks nothing.
pub(super) struct DropPart<'a, P: Producer> {
    producer: &'a P,
    begin: usize,
    end: usize,
}

impl<'a, P: Producer> DropPart<'a, P> {
    /// # Safety
    /// As for [`Producer::drop_range`]: the positions must never have been
    /// handed out, and must not be afterwards.
    pub(super) unsafe fn new(producer: &'a P, begin: usize, end: usize) -> Self {
        DropPart {
            producer,
            begin,
            end,
        }
    }
}

impl<P: Producer> Drop for DropPart<'_, P> {
    fn drop(&mut self) {
        // SAFETY: `new`'s contract.
        unsafe { self.producer.drop_range(self.begin, self.end) }
    }
}

/// Clones an adaptor's producer `base`, then its other parts with `rest`:
/// the adaptors' `Clone`, for `Par::clone` (so before any position is
/// handed out). The base's clone waits in a `Par`: if `rest` panics (a
/// closure's capture, a state or a second producer whose `clone` panics),
/// it drops its owned items, as an unconsumed iterator does, not leak them.
pub(super) fn clone_parts<P: Producer + Clone, R>(base: &P, rest: impl FnOnce() -> R) -> (P, R) {
    let base = Par::new(base.clone());
    let rest = rest();
    (base.into_parts().0, rest)
}

// SAFETY (for every `unsafe impl Producer` below): each adaptor's range
// hands the same positions to the producers it wraps, once, and yields
// exactly one item per position when it says `EXACT`.

/// An adaptor that runs each range of its base through the `std::iter`
/// adaptor `$method` with its closure `f`: the struct, its `Producer`
/// (lengths and dropped ranges forwarded to the base), and its `Indexed`
/// when given the bounds for one.
macro_rules! closure_adaptor {
    (
        $(#[$doc:meta])*
        $name:ident via $method:ident, [$($generics:tt)*] where [$($bounds:tt)*],
        Item = $item:ty, Iter<$a:lifetime> = $iter:ty, EXACT = $exact:expr,
        rfind = |$rf:ident, $rx:ident, $rtest:ident| $rbody:expr
        $(, Indexed [$($igenerics:tt)*] where [$($indexed:tt)*])?
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<P, F> {
            pub(super) base: P,
            pub(super) f: F,
        }

        impl<P: Producer + Clone, F: Clone> Clone for $name<P, F> {
            fn clone(&self) -> Self {
                let (base, f) = clone_parts(&self.base, || self.f.clone());
                $name { base, f }
            }
        }

        // SAFETY: hands its positions to the wrapped producer once each
        // (see the comment at the top of the file).
        unsafe impl<$($generics)*> Producer for $name<P, F>
        where
            $($bounds)*
        {
            type Item = $item;
            type Iter<$a>
                = $iter
            where
                Self: $a;
            const EXACT: bool = $exact;
            same_positions!(base, P);

            unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
                // SAFETY: forwarded from the caller.
                unsafe { self.base.range(begin, end) }.$method(&self.f)
            }

            unsafe fn rfind_map<Answer, Test: FnMut(Self::Item) -> Option<Answer>>(
                &self,
                begin: usize,
                end: usize,
                $rtest: &mut Test,
            ) -> Option<Answer> {
                let $rf = &self.f;
                // SAFETY: forwarded from the caller.
                unsafe { self.base.rfind_map(begin, end, &mut |$rx| $rbody) }
            }
        }

        $(
            // SAFETY: one item per position when the base has one.
            unsafe impl<$($igenerics)*> Indexed for $name<P, F> where $($indexed)* {}
        )?
    };
}

closure_adaptor! {
    /// `map`.
    Map via map, [P, F, R] where [P: Producer, F: Fn(P::Item) -> R + Sync],
    Item = R, Iter<'a> = core::iter::Map<P::Iter<'a>, &'a F>, EXACT = P::EXACT,
    rfind = |f, item, test| test(f(item)),
    Indexed [P, F, R] where [P: Indexed, F: Fn(P::Item) -> R + Sync]
}

/// What makes a [`MapInit`]'s state for each range: a closure
/// (`map_init`), or a value to clone ([`CloneOf`], `map_with`).
pub trait MakeState: Sync {
    /// The state.
    type State;
    /// A fresh state.
    fn make(&self) -> Self::State;
}

impl<S, I: Fn() -> S + Sync> MakeState for I {
    type State = S;
    fn make(&self) -> S {
        self()
    }
}

/// `map_with`'s state maker: clones the value it holds, one thread at a
/// time, so that the value need only be `Send`, as rayon asks (a thread
/// clones it once per range it runs, under a lock held for the clone).
pub struct CloneOf<S>(SpinLock<S>);

impl<S> CloneOf<S> {
    pub(in crate::par) fn new(value: S) -> Self {
        CloneOf(SpinLock::new(value))
    }
}

/// Clones the value, under its lock.
impl<S: Clone> Clone for CloneOf<S> {
    fn clone(&self) -> Self {
        CloneOf::new(self.0.with(|value| value.clone()))
    }
}

impl<S> core::fmt::Debug for CloneOf<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CloneOf").finish_non_exhaustive()
    }
}

impl<S: Clone + Send> MakeState for CloneOf<S> {
    type State = S;
    fn make(&self) -> S {
        self.0.with(|value| value.clone())
    }
}

/// `map_with`: a clone of a value per range as the state.
pub type MapWith<P, S, F> = MapInit<P, CloneOf<S>, F>;

/// `map_init` (and `map_with`): `init` makes one state per range.
#[derive(Debug)]
pub struct MapInit<P, I, F> {
    pub(super) base: P,
    pub(super) init: I,
    pub(super) f: F,
}

impl<P: Producer + Clone, I: Clone, F: Clone> Clone for MapInit<P, I, F> {
    fn clone(&self) -> Self {
        let (base, (init, f)) = clone_parts(&self.base, || (self.init.clone(), self.f.clone()));
        MapInit { base, init, f }
    }
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
unsafe impl<P, I, F, R> Producer for MapInit<P, I, F>
where
    P: Producer,
    I: MakeState,
    F: Fn(&mut I::State, P::Item) -> R + Sync,
{
    type Item = R;
    type Iter<'a>
        = MapInitIter<'a, P::Iter<'a>, I::State, F>
    where
        Self: 'a;
    const EXACT: bool = P::EXACT;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        MapInitIter {
            // SAFETY: forwarded from the caller.
            base: unsafe { self.base.range(begin, end) },
            state: self.init.make(),
            f: &self.f,
        }
    }

    unsafe fn rfind_map<A, T: FnMut(R) -> Option<A>>(
        &self,
        begin: usize,
        end: usize,
        test: &mut T,
    ) -> Option<A> {
        let mut state = self.init.make();
        // SAFETY: forwarded from the caller.
        unsafe { (self.base).rfind_map(begin, end, &mut |item| test((self.f)(&mut state, item))) }
    }
}
// SAFETY: one item per position when the base has one.
unsafe impl<P, I, F, R> Indexed for MapInit<P, I, F>
where
    P: Indexed,
    I: MakeState,
    F: Fn(&mut I::State, P::Item) -> R + Sync,
{
}

closure_adaptor! {
    /// `inspect`: each item passes `f` by reference on its way.
    Inspect via inspect, [P, F] where [P: Producer, F: Fn(&P::Item) + Sync],
    Item = P::Item, Iter<'a> = core::iter::Inspect<P::Iter<'a>, &'a F>, EXACT = P::EXACT,
    rfind = |f, item, test| {
        f(&item);
        test(item)
    },
    Indexed [P, F] where [P: Indexed, F: Fn(&P::Item) + Sync]
}

closure_adaptor! {
    /// `filter`.
    Filter via filter, [P, F] where [P: Producer, F: Fn(&P::Item) -> bool + Sync],
    Item = P::Item, Iter<'a> = core::iter::Filter<P::Iter<'a>, &'a F>, EXACT = false,
    rfind = |f, item, test| if f(&item) { test(item) } else { None }
}

closure_adaptor! {
    /// `filter_map`.
    FilterMap via filter_map, [P, F, R] where [P: Producer, F: Fn(P::Item) -> Option<R> + Sync],
    Item = R, Iter<'a> = core::iter::FilterMap<P::Iter<'a>, &'a F>, EXACT = false,
    rfind = |f, item, test| f(item).and_then(&mut *test)
}

closure_adaptor! {
    /// `flat_map_iter`: each item becomes a serial iterator, run in place.
    FlatMapIter via flat_map,
    [P, F, I] where [P: Producer, F: Fn(P::Item) -> I + Sync, I: IntoIterator],
    Item = I::Item, Iter<'a> = core::iter::FlatMap<P::Iter<'a>, I, &'a F>, EXACT = false,
    rfind = |f, item, test| f(item).into_iter().filter_map(&mut *test).last()
}

/// `enumerate`: each item with its position.
#[derive(Clone, Debug)]
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
