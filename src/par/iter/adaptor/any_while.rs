//! Adaptors that stop or start at the first item of a kind, in whatever
//! order the threads reach items, as rayon's: `take_any_while`,
//! `skip_any_while` and `while_some`.
//!
//! Each keeps one flag, fresh for the call that consumes it, set by the
//! first thread to meet the item that ends (or, for `skip_any_while`,
//! ends the skipping) and read before each item. Items that other threads
//! reached before they saw the flag still pass, so which items come out
//! depends on timing, as rayon documents; after the flag, a stopping range
//! yields nothing more, and what it did not yield drops with its iterator.

use crate::par::producer::Producer;
use crate::sync::{AtomicBool, Ordering};

/// What an [`AnyWhile`] does with the items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhileKind {
    /// `take_any_while`: items pass until one fails the predicate.
    Take,
    /// `skip_any_while`: items are dropped until one fails it; then all
    /// pass.
    Skip,
}

/// `take_any_while(predicate)` and `skip_any_while(predicate)`.
#[derive(Debug)]
pub struct AnyWhile<P, F> {
    pub(in crate::par) base: P,
    pub(in crate::par) predicate: F,
    pub(in crate::par) kind: WhileKind,
    /// An item failed the predicate.
    pub(in crate::par) failed: AtomicBool,
}

impl<P, F> AnyWhile<P, F> {
    pub(in crate::par) fn new(base: P, predicate: F, kind: WhileKind) -> Self {
        AnyWhile {
            base,
            predicate,
            kind,
            failed: AtomicBool::new(false),
        }
    }
}

/// A clone starts with a fresh flag: a producer is cloned only before its
/// call (`producer.rs`).
impl<P: Producer + Clone, F: Clone> Clone for AnyWhile<P, F> {
    fn clone(&self) -> Self {
        let (base, predicate) = super::clone_parts(&self.base, || self.predicate.clone());
        AnyWhile::new(base, predicate, self.kind)
    }
}

/// The items of one range of an [`AnyWhile`].
pub struct AnyWhileIter<'a, It, F> {
    items: It,
    predicate: &'a F,
    kind: WhileKind,
    failed: &'a AtomicBool,
}

impl<'a, It, F> AnyWhileIter<'a, It, F> {
    #[inline]
    fn failed(&self) -> bool {
        // Relaxed: the flag is only a hint to stop or start; no data
        // travels with it.
        self.failed.load(Ordering::Relaxed)
    }

    #[inline]
    fn fail(&self) {
        // Relaxed: as in `failed`.
        self.failed.store(true, Ordering::Relaxed);
    }
}

impl<It: Iterator, F: Fn(&It::Item) -> bool> Iterator for AnyWhileIter<'_, It, F> {
    type Item = It::Item;

    #[inline]
    fn next(&mut self) -> Option<It::Item> {
        match self.kind {
            WhileKind::Take => {
                if self.failed() {
                    return None;
                }
                let item = self.items.next()?;
                if (self.predicate)(&item) {
                    return Some(item);
                }
                self.fail();
                None
            }
            WhileKind::Skip => loop {
                let item = self.items.next()?;
                if self.failed() || !(self.predicate)(&item) {
                    self.fail();
                    return Some(item);
                }
            },
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.items.size_hint().1)
    }
}

// SAFETY: forwards its positions to the base, once each.
unsafe impl<P, F> Producer for AnyWhile<P, F>
where
    P: Producer,
    F: Fn(&P::Item) -> bool + Sync,
{
    type Item = P::Item;
    type Iter<'a>
        = AnyWhileIter<'a, P::Iter<'a>, F>
    where
        Self: 'a;
    const EXACT: bool = false;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        AnyWhileIter {
            // SAFETY: forwarded from the caller.
            items: unsafe { self.base.range(begin, end) },
            predicate: &self.predicate,
            kind: self.kind,
            failed: &self.failed,
        }
    }
}

/// `while_some()`: the values of the `Some`s, until a `None`.
#[derive(Debug)]
pub struct WhileSome<P> {
    pub(in crate::par) base: P,
    /// A `None` was met.
    pub(in crate::par) stopped: AtomicBool,
}

impl<P> WhileSome<P> {
    pub(in crate::par) fn new(base: P) -> Self {
        WhileSome {
            base,
            stopped: AtomicBool::new(false),
        }
    }
}

/// A clone starts with a fresh flag, as [`AnyWhile`]'s.
impl<P: Clone> Clone for WhileSome<P> {
    fn clone(&self) -> Self {
        WhileSome::new(self.base.clone())
    }
}

/// The values of one range of a [`WhileSome`].
pub struct WhileSomeIter<'a, It> {
    items: It,
    stopped: &'a AtomicBool,
}

impl<T, It: Iterator<Item = Option<T>>> Iterator for WhileSomeIter<'_, It> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        // Relaxed: the flag is only a hint to stop; no data travels with it.
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        match self.items.next()? {
            Some(value) => Some(value),
            None => {
                // Relaxed: as above.
                self.stopped.store(true, Ordering::Relaxed);
                None
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.items.size_hint().1)
    }
}

// SAFETY: forwards its positions to the base, once each.
unsafe impl<T, P: Producer<Item = Option<T>>> Producer for WhileSome<P> {
    type Item = T;
    type Iter<'a>
        = WhileSomeIter<'a, P::Iter<'a>>
    where
        Self: 'a;
    const EXACT: bool = false;
    same_positions!(base, P);

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        WhileSomeIter {
            // SAFETY: forwarded from the caller.
            items: unsafe { self.base.range(begin, end) },
            stopped: &self.stopped,
        }
    }
}
