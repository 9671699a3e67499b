//! [`ParallelBridge`]: any serial iterator as a parallel iterator,
//! `iter.par_bridge()`, pulled in batches under one lock per batch.
//!
//! # Why
//!
//! A source that only a serial iterator can walk (lines of a reader, a
//! channel, a directory walk) still has items worth spreading over the
//! threads. rayon's bridge takes a mutex for every item, which costs more
//! than a cheap item's work once two threads contend for it. Here a
//! thread takes the lock once per batch and works through the batch
//! without it.
//!
//! # Protocol
//!
//! A [`Bridge`] stands for [`BOUND`] positions, more than any source is
//! expected to yield. A position is not an item of the source: it is a
//! place for "one more item pulled" in the range the driver handed a
//! thread. So each range pulls at most its length in items, and the range
//! that holds the last position pulls until the source ends, so a longer
//! source loses nothing.
//!
//! A range pulls in batches: it takes the source's lock, moves up to a
//! batch of items into room on the thread's own stack ([`ROOM_BYTES`]),
//! lets go of the lock, and yields them. A range's batches start at one
//! item; the next batch doubles (up to [`MAX_BATCH`]) when the last one
//! took less than [`GROW_BELOW`] from pull to pull, and halves when it
//! took more than [`SHRINK_ABOVE`]. So cheap items amortize the lock over
//! hundreds, and a few expensive ones still spread over the threads (one
//! clock read per batch). Items too large for the room are pulled one per
//! lock.
//!
//! When the source returns `None` (or panics), `ended` is set, under the
//! lock. From then on [`Producer::live_from`] says so, and the driver drops
//! every later block unseen (there is nothing in them): the call ends with
//! the items, whatever its nominal length.
//!
//! # Invariants
//!
//! - Every item pulled out of the source is yielded or dropped exactly
//!   once: it sits in exactly one range's room from the pull until it is
//!   yielded, and a range dropped early drops what is left in its room.
//! - Items never pulled stay in the source and are dropped with it.
//! - Once `ended` is set, no thread pulls again.
//!
//! # Order
//!
//! Each thread sees its items in pull order, but which thread pulls which
//! batch is a matter of timing, so the order of the results (`collect`,
//! the item `find_first` finds) is unspecified, as with rayon's bridge.
//! For results in input order, use [`crate::pool::ThreadPool::map_ordered`].

mod lock;

use super::iter::par::Par;
use super::producer::Producer;
use crate::sync::{AtomicBool, Ordering};
use core::marker::PhantomData;
use core::mem::{align_of, size_of, MaybeUninit};
use crossbeam_utils::CachePadded;
use lock::{SourceGuard, SourceLock};
use std::time::{Duration, Instant};

/// The positions a bridge stands for: room for chains of a few bridges
/// (a chain's length is the sum of its parts').
pub const BOUND: usize = usize::MAX / 4;

/// The stack room of one range, in bytes: the batch of items it holds.
pub const ROOM_BYTES: usize = 4096;

/// The most items one range pulls under one lock.
pub const MAX_BATCH: usize = 256;

/// A batch that took less than this, from its pull to the next, doubles.
pub const GROW_BELOW: Duration = Duration::from_micros(50);

/// A batch that took more than this halves.
pub const SHRINK_ABOVE: Duration = Duration::from_millis(1);

/// The largest alignment the room offers.
const ROOM_ALIGN: usize = 64;

/// Turns a serial iterator into a parallel one: `iter.par_bridge()`, as
/// rayon's `ParallelBridge`. In the prelude.
///
/// ```
/// use tine::prelude::*;
///
/// let text = "3\n1\n4\n1\n5\n9\n2\n6";
/// let sum: u32 = text.lines().par_bridge().map(|l| l.parse::<u32>().unwrap()).sum();
/// assert_eq!(sum, 31);
///
/// // The order of the results is unspecified: sort them if it matters.
/// let mut squares: Vec<u64> = (1..=5u64).par_bridge().map(|x| x * x).collect();
/// squares.sort();
/// assert_eq!(squares, [1, 4, 9, 16, 25]);
/// ```
pub trait ParallelBridge: Sized {
    /// The iterator as a parallel iterator whose threads pull its items in
    /// batches (see [`crate::par::bridge`](self) for the protocol).
    fn par_bridge(self) -> IterBridge<Self>
    where
        Self: Iterator + Send,
        Self::Item: Send;
}

impl<I> ParallelBridge for I
where
    I: Iterator + Send,
    I::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        Par::new(Bridge {
            source: SourceLock::new(self),
            ended: CachePadded::new(AtomicBool::new(false)),
        })
    }
}

/// The parallel iterator [`ParallelBridge::par_bridge`] returns (rayon's
/// name for it).
pub type IterBridge<I> = Par<Bridge<I>>;

/// The producer behind `par_bridge`: the serial source under a lock, and
/// whether it has ended.
pub struct Bridge<I> {
    source: SourceLock<I>,
    /// Set under the lock when the source returns `None` or panics.
    ended: CachePadded<AtomicBool>,
}

/// A bridge over a clone of the serial source (rayon's `IterBridge` is
/// `Clone` when its iterator is). Only `Par::clone` clones a producer,
/// before its call, so nothing has been pulled yet: the clone yields what
/// the original would. The source is cloned under its lock all the same,
/// and the clone has ended if the original has.
impl<I: Clone> Clone for Bridge<I> {
    fn clone(&self) -> Self {
        Bridge {
            source: self.source.clone(),
            // Relaxed: a plain copy (false before any call).
            ended: CachePadded::new(AtomicBool::new(self.ended.load(Ordering::Relaxed))),
        }
    }
}

impl<I> core::fmt::Debug for Bridge<I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Bridge")
            // Relaxed: a report.
            .field("ended", &self.ended.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<I> Bridge<I> {
    /// The source's lock, or `None` once it has ended (a panic in the
    /// source's `next` ends it too: see `pull_batch`).
    fn lock(&self) -> Option<SourceGuard<'_, I>> {
        // Relaxed: a hint that saves the lock; it is read again under it.
        if self.ended.load(Ordering::Relaxed) {
            return None;
        }
        let guard = self.source.lock();
        // Relaxed: stores of `ended` happen under this lock, which orders
        // them before this load.
        (!self.ended.load(Ordering::Relaxed)).then_some(guard)
    }
}

/// Pulls up to `room.len()` items from `source` into `room`, under the
/// source's lock; returns how many. If the source runs out, sets `ended`. A
/// function of its own, so that the compiler sees `source` and `room` as
/// the distinct `&mut`s they are and keeps the source's state in registers
/// for the whole batch. If `next` panics, the items pulled so far are
/// dropped and `ended` is set.
#[inline]
fn pull_batch<I: Iterator>(
    source: &mut I,
    room: &mut [MaybeUninit<I::Item>],
    ended: &AtomicBool,
) -> usize {
    let mut batch = Batch {
        room,
        count: 0,
        ended,
    };
    while batch.count < batch.room.len() {
        match source.next() {
            Some(item) => {
                batch.room[batch.count].write(item);
                batch.count += 1;
            }
            None => {
                // Relaxed: under the lock (see `Bridge::lock`); readers
                // outside it only take it as a hint.
                batch.ended.store(true, Ordering::Relaxed);
                break;
            }
        }
    }
    let count = batch.count;
    core::mem::forget(batch);
    count
}

/// A batch being pulled: on unwind (a panicking `next`), drops what it
/// holds and ends the source.
struct Batch<'a, T> {
    room: &'a mut [MaybeUninit<T>],
    count: usize,
    ended: &'a AtomicBool,
}

impl<T> Drop for Batch<'_, T> {
    fn drop(&mut self) {
        // Relaxed: under the lock (see `Bridge::lock`).
        self.ended.store(true, Ordering::Relaxed);
        let pulled = &mut self.room[..self.count];
        // SAFETY: the first `count` slots were written and are owned by
        // this batch alone: the range never saw them.
        unsafe { core::ptr::drop_in_place(pulled as *mut [MaybeUninit<T>] as *mut [T]) };
    }
}

// SAFETY: `range` yields only items it pulled itself, each once, and the
// lock keeps the source to one thread at a time; never `EXACT`.
unsafe impl<I> Producer for Bridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;
    type Iter<'a>
        = BridgeRange<'a, I>
    where
        Self: 'a;
    const EXACT: bool = false;
    const BOUNDLESS: bool = true;

    fn len(&self) -> usize {
        BOUND
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        BridgeRange {
            bridge: self,
            room: Room::new(),
            head: 0,
            filled: 0,
            budget: if end >= BOUND {
                usize::MAX
            } else {
                end - begin
            },
            batch: 1,
            pulled_at: None,
            _items: PhantomData,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {
        // Nothing was pulled for these positions: there is nothing to drop.
    }

    #[inline]
    fn live_from(&self, begin: usize) -> usize {
        // Relaxed: a hint to stop; a range that misses it finds the source
        // ended under the lock.
        if self.ended.load(Ordering::Relaxed) {
            BOUND
        } else {
            begin
        }
    }
}

/// A batch's room: [`ROOM_BYTES`] on the stack, aligned to 64.
#[repr(C, align(64))]
struct Room([MaybeUninit<u8>; ROOM_BYTES]);

impl Room {
    fn new() -> Self {
        Room([MaybeUninit::uninit(); ROOM_BYTES])
    }
}

/// How many `T`s fit in a room (at most [`MAX_BATCH`]); 0 if a `T` is too
/// large or too aligned for it.
const fn room_for<T>() -> usize {
    let size = size_of::<T>();
    if align_of::<T>() > ROOM_ALIGN {
        0
    } else if size == 0 {
        MAX_BATCH
    } else if ROOM_BYTES / size < MAX_BATCH {
        ROOM_BYTES / size
    } else {
        MAX_BATCH
    }
}

/// One range of a bridge: pulls batches into its room and yields them.
pub struct BridgeRange<'a, I: Iterator> {
    bridge: &'a Bridge<I>,
    room: Room,
    /// Items `head..filled` of the room are pulled and not yet yielded.
    head: usize,
    filled: usize,
    /// How many more items this range may pull.
    budget: usize,
    /// The size of the next batch.
    batch: usize,
    /// When the last batch was pulled.
    pulled_at: Option<Instant>,
    /// The room holds items: `Send` and `Sync` follow theirs.
    _items: PhantomData<I::Item>,
}

impl<I: Iterator> core::fmt::Debug for BridgeRange<'_, I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BridgeRange")
            .field("held", &(self.filled - self.head))
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl<I: Iterator> BridgeRange<'_, I> {
    /// Slot `index` of the room, as a `T`.
    ///
    /// # Safety
    /// `index < room_for::<I::Item>()`.
    unsafe fn slot(&mut self, index: usize) -> *mut I::Item {
        debug_assert!(index < room_for::<I::Item>());
        // SAFETY: `index` is below `room_for` (the caller's contract), so
        // the slot lies within the room, whose alignment (64) is at least
        // the item's.
        unsafe { self.room.0.as_mut_ptr().cast::<I::Item>().add(index) }
    }

    /// Pulls the next batch into the room; false if there is nothing more.
    fn refill(&mut self) -> bool {
        let now = Instant::now();
        if let Some(pulled_at) = self.pulled_at {
            let took = now.saturating_duration_since(pulled_at);
            if took < GROW_BELOW {
                self.batch = (self.batch * 2).min(room_for::<I::Item>());
            } else if took > SHRINK_ABOVE {
                self.batch = (self.batch / 2).max(1);
            }
        }
        self.pulled_at = Some(now);
        let want = self.batch.min(self.budget);
        if want == 0 {
            return false;
        }
        let Some(mut source) = self.bridge.lock() else {
            return false;
        };
        self.head = 0;
        self.filled = 0;
        // Sound because `want` items fit the room (`0 < want <= batch <=
        // room_for`, so slot 0 is in it), whose alignment suits them, and
        // every slot is empty: items `head..filled` were all yielded before
        // this refill.
        // SAFETY: as argued just above.
        let room = unsafe {
            core::slice::from_raw_parts_mut(self.slot(0).cast::<MaybeUninit<I::Item>>(), want)
        };
        let pulled = pull_batch(&mut *source, room, &self.bridge.ended);
        drop(source);
        self.filled = pulled;
        self.budget -= pulled;
        pulled > 0
    }
}

impl<I: Iterator> Iterator for BridgeRange<'_, I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if room_for::<I::Item>() == 0 {
            // Too large for the room: one item per lock.
            if self.budget == 0 {
                return None;
            }
            let mut source = self.bridge.lock()?;
            let mut one = [MaybeUninit::uninit()];
            let pulled = pull_batch(&mut *source, &mut one, &self.bridge.ended);
            drop(source);
            if pulled == 0 {
                return None;
            }
            self.budget -= 1;
            let [item] = one;
            // SAFETY: `pull_batch` wrote the one slot.
            return Some(unsafe { item.assume_init() });
        }
        if self.head == self.filled && !self.refill() {
            return None;
        }
        // SAFETY: `head < filled <= room_for` (a refill pulls at most
        // `room_for` items).
        let slot = unsafe { self.slot(self.head) };
        self.head += 1;
        // SAFETY: slots `head..filled` hold pulled items not yet yielded;
        // moving `head` past this one hands it out once.
        Some(unsafe { slot.read() })
    }
}

impl<I: Iterator> Drop for BridgeRange<'_, I> {
    fn drop(&mut self) {
        while self.head < self.filled {
            // SAFETY: `head < filled <= room_for`, as in `next`.
            let slot = unsafe { self.slot(self.head) };
            self.head += 1;
            // SAFETY: as in `next`: each pulled item is read once. `head`
            // moves first, so a panicking `Drop` is not run twice.
            drop(unsafe { slot.read() });
        }
    }
}
