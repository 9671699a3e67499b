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
//!   iterator, which borrows the producer. So the first `next` moves a
//!   heavy producer to the heap, into a block with that iterator
//!   ([`Heavy`]), at an address that does not move with the `Serial`, and
//!   the iterator is dropped before it; a `fold`, which keeps nothing,
//!   leaves it in place (no allocation).
//! - A boundless producer (`par_bridge`) is asked after each empty position
//!   where its live positions resume (`Producer::live_from`), so a walk
//!   that stops early (`any`, `find_*`, `try_*`, `take_any`) ends once its
//!   items run out; and inside a block of a search that has stopped
//!   ([`stopped`]), the walk ends before its next position.

use crate::nest::stop::stopped;
use crate::par::producer::Producer;
use core::mem::MaybeUninit;
use core::ptr::NonNull;
use std::boxed::Box;
use std::collections::VecDeque;

/// A producer's items, in order, as a serial iterator that owns the
/// producer. See the module docs.
pub struct Serial<P: Producer> {
    /// The producer, until a heavy one moves to the heap (then uninit).
    here: MaybeUninit<P>,
    /// A heavy producer, once the first `next` has moved it to the heap
    /// (a `fold` never does): freed by `Drop`. Always `None` for a
    /// producer that is not heavy.
    heavy: Option<NonNull<Heavy<P>>>,
    next: usize,
    len: usize,
    rest: VecDeque<P::Item>,
}

/// A heavy producer and the iterator of the position being walked, which
/// borrows it (its lifetime erased): at an address that does not move
/// with the [`Serial`]; the iterator is dropped first (field order).
struct Heavy<P: Producer> {
    walking: Option<Box<dyn Iterator<Item = P::Item>>>,
    producer: P,
}

impl<P: Producer> Serial<P> {
    /// Every position of `producer`, none handed out yet.
    #[inline(always)]
    pub(super) fn new(producer: P) -> Self {
        Serial {
            len: producer.len(),
            here: MaybeUninit::new(producer),
            heavy: None,
            next: 0,
            rest: VecDeque::new(),
        }
    }

    /// The producer on the heap, if it has moved there.
    #[inline(always)]
    fn on_heap(&self) -> Option<NonNull<Heavy<P>>> {
        if P::HEAVY {
            self.heavy
        } else {
            None
        }
    }

    /// The producer, wherever it lives. The reference does not borrow
    /// `self`, so a heavy position's iterator may be kept while the
    /// `Serial` moves.
    ///
    /// # Safety
    /// The reference must not outlive the `Serial`, nor, while the
    /// producer is in place, a move of it or of the producer to the heap:
    /// use it within the call that took it, or keep it only after
    /// [`Serial::move_to_heap`].
    #[inline(always)]
    unsafe fn producer<'p>(&self) -> &'p P {
        match self.on_heap() {
            // SAFETY: the block lives until `Drop` (the caller's contract
            // covers the rest); nothing takes a `&mut` to its producer.
            Some(heavy) => unsafe { &(*heavy.as_ptr()).producer },
            // SAFETY: in place and initialized until it moves to the heap
            // or `Drop` drops it; the caller's contract covers the rest.
            None => unsafe { &*self.here.as_ptr() },
        }
    }

    /// Moves a heavy producer to the heap, where a position's iterator
    /// may borrow it while the `Serial` moves (once).
    #[cold]
    fn move_to_heap(&mut self) {
        debug_assert!(P::HEAVY && self.heavy.is_none());
        // The allocation first: if it fails, the producer is still here.
        let block = Box::leak(Box::new(MaybeUninit::<Heavy<P>>::uninit()));
        // SAFETY: `here` is initialized while `heavy` is `None`, and is
        // read once: from here on only `heavy` is used (`on_heap`).
        let producer = unsafe { self.here.as_ptr().read() };
        self.heavy = Some(NonNull::from(block.write(Heavy {
            walking: None,
            producer,
        })));
    }

    /// The heavy position being walked, if any (`None` before the
    /// producer moves to the heap).
    #[inline(always)]
    fn walking(&mut self) -> Option<&mut Box<dyn Iterator<Item = P::Item>>> {
        let heavy = self.on_heap()?;
        // SAFETY: the block lives until `Drop`; this `&mut` covers its
        // `walking` field alone, which no other reference points into.
        unsafe { (*core::ptr::addr_of_mut!((*heavy.as_ptr()).walking)).as_mut() }
    }

    /// Drops the heavy position being walked, if any.
    #[inline(always)]
    fn end_walk(&mut self) -> Option<Box<dyn Iterator<Item = P::Item>>> {
        let heavy = self.on_heap()?;
        // SAFETY: as in `walking`.
        unsafe { (*core::ptr::addr_of_mut!((*heavy.as_ptr()).walking)).take() }
    }
}

/// The rest of a heavy position, `items`, with its lifetime erased, for
/// [`Heavy::walking`] to keep.
///
/// # Safety
/// `items` may borrow only the producer of the [`Heavy`] that keeps it,
/// which must drop it before that producer.
#[cold]
unsafe fn erased<'p, T>(items: impl Iterator<Item = T> + 'p) -> Box<dyn Iterator<Item = T>> {
    let items: Box<dyn Iterator<Item = T> + 'p> = Box::new(items);
    // `walking` is private: the iterator is never handed out to outlive
    // its producer.
    // SAFETY: only the lifetime changes; the producer `items` borrows stays
    // put however its `Serial` moves, and outlives `items` (the contract).
    unsafe { core::mem::transmute(items) }
}

impl<P: Producer> Iterator for Serial<P> {
    type Item = P::Item;

    #[inline]
    fn next(&mut self) -> Option<P::Item> {
        if P::HEAVY {
            if let Some(walking) = self.walking() {
                if let Some(item) = walking.next() {
                    return Some(item);
                }
                self.end_walk();
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
            if P::HEAVY && self.heavy.is_none() {
                // A position's iterator may be kept: the producer must not
                // move with the `Serial` from now on.
                self.move_to_heap();
            }
            // SAFETY: used within this call, or, for a heavy producer (on
            // the heap now), by the iterator kept in `walking`, which
            // `Drop` drops first.
            let producer = unsafe { self.producer() };
            // SAFETY: in bounds, and `next` only grows, so each position is
            // handed out once; `Drop` drops only the ones after it.
            let mut items = unsafe { producer.range(position, position + 1) };
            if let Some(first) = items.next() {
                if let Some(heavy) = self.on_heap() {
                    // SAFETY: `items` borrows the producer on the heap,
                    // which `Heavy` drops after `walking`; the `&mut`
                    // covers `walking` alone.
                    unsafe { (*heavy.as_ptr()).walking = Some(erased(items)) };
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
            if let Some(walking) = self.end_walk() {
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
        // has moved past them; the producer is used within this call.
        unsafe { self.producer().range(begin, end) }.fold(acc, g)
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
    #[inline(always)]
    fn drop(&mut self) {
        let (next, len) = (self.next, self.len);
        if let Some(heavy) = self.on_heap() {
            let heavy = heavy.as_ptr();
            // The guards run in reverse, on unwinding too: the positions
            // left, then the heap block.
            // SAFETY: made by `Box::leak` in `move_to_heap` (a `MaybeUninit`
            // of the same layout, written there), freed once, here, after
            // every reference into it is gone.
            let _free = Finally(|| drop(unsafe { Box::from_raw(heavy) }));
            // SAFETY: positions `next..len` were never handed out; the
            // block lives until `_free`.
            let _rest = Finally(|| unsafe { (*heavy).producer.drop_range(next, len) });
            // First the iterator that borrows the producer.
            // SAFETY: the block lives until `_free`; this `&mut` covers
            // `walking` alone.
            drop(unsafe { (*heavy).walking.take() });
        } else {
            let here = self.here.as_mut_ptr();
            // SAFETY: in place (never moved to the heap) and initialized
            // since `new`, dropped once, here, after its positions (on
            // unwinding too).
            let _free = Finally(|| unsafe { core::ptr::drop_in_place(here) });
            // SAFETY: positions `next..len` were never handed out.
            unsafe { (*here).drop_range(next, len) }
        }
    }
}

/// Runs its closure when it goes out of scope, on unwinding too.
struct Finally<F: FnMut()>(F);

impl<F: FnMut()> Drop for Finally<F> {
    #[inline(always)]
    fn drop(&mut self) {
        (self.0)()
    }
}
