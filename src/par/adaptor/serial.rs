//! [`Serial`]: any producer run as a plain serial iterator, position by
//! position, the way `flat_map` walks the parallel iterator an outer item
//! returns.
//!
//! # Why
//!
//! A `flat_map`'s inner iterator runs on the thread of its outer item, as
//! an `Iterator` that the outer range's iterator hands items from; a
//! search pulls them one at a time (`find_any`), a reduction folds them
//! ([`Serial::fold`], one range of the producer, which vectorizes).
//!
//! # Invariants
//!
//! - The producer contract holds: positions `0..next` have been handed out
//!   (to a range, or dropped as dead), each once; `next..len` never, and
//!   `Drop` drops them.
//! - A position that yields more than one item keeps the rest: in `rest`
//!   (a buffer; after a `flat_map_iter`, a filter, a bridge), or, for a
//!   [`Producer::HEAVY`] producer (a `flat_map` in a `flat_map`, whose one
//!   position may hold more items than memory), as the position's own
//!   iterator in `walking`, which borrows the producer. A heavy producer
//!   therefore lives on the heap ([`Home::Heap`]), at an address that does
//!   not move with the `Serial`, and `walking` is dropped before it.
//! - A boundless producer (`par_bridge`) is asked after each empty position
//!   where its live positions resume (`Producer::live_from`), so a walk
//!   that stops early (`any`, `find_*`, `try_*`, `take_any`) ends once its
//!   items run out; and inside a block of a search that has stopped
//!   ([`stopped`]), the walk ends before its next position.

use super::Producer;
use crate::nest::stop::stopped;
use core::ptr::NonNull;
use std::boxed::Box;
use std::collections::VecDeque;

/// A producer's items, in order, as a serial iterator that owns the
/// producer. See the module docs.
pub struct Serial<P: Producer> {
    /// The iterator of the heavy position being walked, if any; it
    /// borrows the producer in `home` (its lifetime erased).
    walking: Option<Box<dyn Iterator<Item = P::Item>>>,
    home: Home<P>,
    next: usize,
    len: usize,
    rest: VecDeque<P::Item>,
}

/// Where a [`Serial`] keeps its producer.
enum Home<P> {
    /// In place: no iterator outlives a call of [`Serial`]'s.
    Here(P),
    /// On the heap, from a `Box` that [`Home`]'s `Drop` frees: a heavy
    /// producer, whose position's iterator [`Serial::walking`] keeps.
    Heap(NonNull<P>),
}

impl<P> Home<P> {
    #[inline(always)]
    fn get(&self) -> &P {
        match self {
            Home::Here(producer) => producer,
            // SAFETY: the box is alive until `Drop`, and nothing holds a
            // `&mut` to it.
            Home::Heap(producer) => unsafe { producer.as_ref() },
        }
    }
}

impl<P> Drop for Home<P> {
    fn drop(&mut self) {
        if let Home::Heap(producer) = self {
            // SAFETY: made by `Box::leak` in `Serial::new`, freed once,
            // here; `Serial`'s `Drop` dropped `walking` before.
            drop(unsafe { Box::from_raw(producer.as_ptr()) });
        }
    }
}

impl<P: Producer> Serial<P> {
    /// Every position of `producer`, none handed out yet.
    pub(super) fn new(producer: P) -> Self {
        let len = producer.len();
        let home = if P::HEAVY {
            Home::Heap(NonNull::from(Box::leak(Box::new(producer))))
        } else {
            Home::Here(producer)
        };
        Serial {
            walking: None,
            home,
            next: 0,
            len,
            rest: VecDeque::new(),
        }
    }
}

/// The rest of a heavy position, `items`, with its lifetime erased, for
/// [`Serial::walking`] to keep.
///
/// # Safety
/// `items` must borrow a producer on the heap ([`Home::Heap`]) of the
/// `Serial` that keeps it, which must drop it before that producer.
#[cold]
unsafe fn erased<'p, T>(items: impl Iterator<Item = T> + 'p) -> Box<dyn Iterator<Item = T>> {
    let items: Box<dyn Iterator<Item = T> + 'p> = Box::new(items);
    // SAFETY: only the lifetime changes; the producer that `items` borrows
    // stays put however its `Serial` moves, and outlives `items` (the
    // caller's contract); `walking` is private, so the iterator is never
    // handed out to outlive it.
    unsafe { core::mem::transmute(items) }
}

impl<P: Producer> Iterator for Serial<P> {
    type Item = P::Item;

    #[inline]
    fn next(&mut self) -> Option<P::Item> {
        if P::HEAVY {
            if let Some(walking) = &mut self.walking {
                if let Some(item) = walking.next() {
                    return Some(item);
                }
                self.walking = None;
            }
        } else if !P::EXACT {
            if let Some(item) = self.rest.pop_front() {
                return Some(item);
            }
        }
        while self.next < self.len {
            // Inside a heavy block of a search that has stopped, this walk
            // ends here; `Drop` drops the positions left.
            if stopped() {
                return None;
            }
            let position = self.next;
            self.next += 1;
            let producer = self.home.get();
            // SAFETY: in bounds, and `next` only grows, so each position is
            // handed out once; `Drop` drops only the ones after it.
            let mut items = unsafe { producer.range(position, position + 1) };
            if let Some(first) = items.next() {
                if P::HEAVY {
                    // SAFETY: a heavy producer lives on the heap
                    // (`Serial::new`), and `Drop` drops `walking` first.
                    self.walking = Some(unsafe { erased(items) });
                } else if !P::EXACT {
                    self.rest.extend(items);
                }
                return Some(first);
            }
            drop(items);
            // An empty position of a boundless producer (`par_bridge`,
            // whose length is a bound it never reaches) may mean that its
            // items ran out: skip the positions it says are dead, or this
            // walk would go on to its length, position by position.
            if P::BOUNDLESS {
                let live = producer.live_from(self.next).min(self.len);
                if live > self.next {
                    let dead = self.next;
                    self.next = live;
                    // SAFETY: positions `dead..live` were never handed out,
                    // and `next` has moved past them.
                    unsafe { producer.drop_range(dead, live) };
                }
            }
        }
        None
    }

    /// The rest in one go: the kept items, then every position left as one
    /// range of the producer, so that its loop runs whole (and vectorizes)
    /// instead of position by position.
    #[inline(always)]
    fn fold<B, G: FnMut(B, P::Item) -> B>(mut self, init: B, mut g: G) -> B {
        let mut acc = init;
        if P::HEAVY {
            if let Some(walking) = self.walking.take() {
                acc = walking.fold(acc, &mut g);
            }
        } else if !P::EXACT {
            while let Some(item) = self.rest.pop_front() {
                acc = g(acc, item);
            }
        }
        let (begin, end) = (self.next, self.len);
        // Handed out before the range runs: if `g` panics, the range drops
        // its own rest, and `Drop` has nothing left to drop.
        self.next = end;
        if begin == end {
            return acc;
        }
        // SAFETY: positions `begin..end` were never handed out, and `next`
        // has moved past them.
        unsafe { self.home.get().range(begin, end) }.fold(acc, g)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len - self.next;
        if P::EXACT {
            (left, Some(left))
        } else {
            (self.rest.len(), None)
        }
    }
}

impl<P: Producer> Drop for Serial<P> {
    fn drop(&mut self) {
        // First the iterator that borrows the producer (a panic in its
        // `Drop` leaves the rest to the fields' drops: no use after free).
        self.walking = None;
        // SAFETY: positions `next..len` were never handed out.
        unsafe { self.home.get().drop_range(self.next, self.len) }
    }
}
