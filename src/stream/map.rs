//! [`ThreadPool::map_ordered`]: a lazy, ordered parallel map over any
//! iterator, one fork per refill of a bounded window of batches.
//!
//! # Protocol
//!
//! The iterator holds a queue of ready results. When it runs dry, `next`
//! forks the pool once: each thread takes the source's lock, claims the
//! next batch number (up to `window` per refill), pulls up to `size` items
//! into that batch's slot, lets go of the lock and maps them. Batch numbers
//! follow pull order, so after the join the slots' outputs, read in batch
//! order, are the results in input order. Nothing runs between calls to
//! `next`: dropping the iterator (or `.take(n)` finishing) stops the work,
//! and at most `window * size` items are pulled ahead of the consumer.
//!
//! # Sizing
//!
//! `size` starts at 1, so an expensive `f` behind `.take(3)` maps few items
//! too many, and doubles after every refill whose batches took less than
//! [`GROW_BELOW`] each (cheap items: bigger batches amortize the lock and
//! the fork), up to [`MAX_BATCH`]. It halves after a refill whose batches
//! took more than [`SHRINK_ABOVE`], so the consumer waits less.
//!
//! A panic in `f` or in the source resumes on the caller of `next`; the
//! iterator is then finished, and the pool stays usable.

use crate::pool::ThreadPool;
use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use std::vec::Vec;

/// Batches shorter than this grow.
pub const GROW_BELOW: Duration = Duration::from_micros(50);
/// Batches longer than this shrink.
pub const SHRINK_ABOVE: Duration = Duration::from_millis(2);
/// The most items per batch.
pub const MAX_BATCH: usize = 64 * 1024;

/// The source iterator and whether it has ended.
struct Source<I> {
    items: I,
    /// Batches claimed in this refill.
    claimed: usize,
    ended: bool,
}

/// One batch's items and results.
struct Slot<T, U> {
    input: Vec<T>,
    output: Vec<U>,
}

/// The iterator returned by [`ThreadPool::map_ordered`].
pub struct MapOrdered<'p, I: Iterator, U, F> {
    pool: &'p ThreadPool,
    source: Mutex<Source<I>>,
    slots: Vec<Mutex<Slot<I::Item, U>>>,
    ready: VecDeque<U>,
    f: F,
    size: usize,
    /// Set while a refill runs and left set if it panics.
    finished: bool,
}

impl<I: Iterator, U, F> core::fmt::Debug for MapOrdered<'_, I, U, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MapOrdered")
            .field("ready", &self.ready.len())
            .field("batch_size", &self.size)
            .field("window", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl ThreadPool {
    /// Maps `f` over `items` on every thread of the pool, yielding results
    /// in input order, lazily.
    ///
    /// Items are pulled in adaptive batches, at most a window of batches
    /// (four per thread) ahead of the consumer, so an endless iterator
    /// works and `.take(n)` stops it. Only `f` runs in parallel: the source
    /// is advanced by one thread at a time.
    ///
    /// ```
    /// let pool = tine::spawn_pool(4);
    /// let squares: Vec<u64> = pool.map_ordered(1u64.., |x| x * x).take(5).collect();
    /// assert_eq!(squares, [1, 4, 9, 16, 25]);
    /// ```
    ///
    /// # Panics
    /// A panic in `f` or in the source's `next` resumes on the caller of
    /// [`Iterator::next`]; the iterator yields nothing after it.
    pub fn map_ordered<I, U, F>(&self, items: I, f: F) -> MapOrdered<'_, I::IntoIter, U, F>
    where
        I: IntoIterator,
        I::IntoIter: Send,
        I::Item: Send,
        U: Send,
        F: Fn(I::Item) -> U + Sync,
    {
        let window = (4 * self.threads()).max(4);
        MapOrdered {
            pool: self,
            source: Mutex::new(Source {
                items: items.into_iter(),
                claimed: 0,
                ended: false,
            }),
            slots: (0..window)
                .map(|_| {
                    Mutex::new(Slot {
                        input: Vec::new(),
                        output: Vec::new(),
                    })
                })
                .collect(),
            ready: VecDeque::new(),
            f,
            size: 1,
            finished: false,
        }
    }
}

impl<I, U, F> MapOrdered<'_, I, U, F>
where
    I: Iterator + Send,
    I::Item: Send,
    U: Send,
    F: Fn(I::Item) -> U + Sync,
{
    /// Maps the next window of batches; false once the source has ended.
    fn refill(&mut self) -> bool {
        let source = self
            .source
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if source.ended {
            return false;
        }
        source.claimed = 0;
        self.finished = true; // until the fork returns
        let (slots, f, size) = (&self.slots, &self.f, self.size);
        let source = &self.source;
        let started = Instant::now();
        self.pool.for_threads(|_, _| loop {
            let mut guard = source.lock().unwrap_or_else(PoisonError::into_inner);
            if guard.ended || guard.claimed == slots.len() {
                return;
            }
            let batch = guard.claimed;
            guard.claimed += 1;
            let mut slot = slots[batch].lock().unwrap_or_else(PoisonError::into_inner);
            guard.ended = true; // stays set if `next` panics
            slot.input.extend(guard.items.by_ref().take(size));
            guard.ended = slot.input.len() < size;
            drop(guard);
            let Slot { input, output } = &mut *slot;
            output.extend(input.drain(..).map(f));
        });
        let elapsed = started.elapsed();
        self.finished = false;
        let source = self
            .source
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let batches = source.claimed.max(1) as u32;
        let per_batch = elapsed * self.pool.threads() as u32 / batches;
        if per_batch < GROW_BELOW && !source.ended {
            self.size = (self.size * 2).min(MAX_BATCH);
        } else if per_batch > SHRINK_ABOVE {
            self.size = (self.size / 2).max(1);
        }
        for slot in &mut self.slots {
            let slot = slot.get_mut().unwrap_or_else(PoisonError::into_inner);
            self.ready.extend(slot.output.drain(..));
        }
        true
    }
}

impl<I, U, F> Iterator for MapOrdered<'_, I, U, F>
where
    I: Iterator + Send,
    I::Item: Send,
    U: Send,
    F: Fn(I::Item) -> U + Sync,
{
    type Item = U;

    fn next(&mut self) -> Option<U> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            if self.finished || !self.refill() {
                return None;
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self
            .source
            .lock()
            .map(|source| {
                if source.ended {
                    (0, Some(0))
                } else {
                    source.items.size_hint()
                }
            })
            .unwrap_or((0, None));
        let ready = self.ready.len();
        (
            low.saturating_add(ready),
            high.and_then(|h| h.checked_add(ready)),
        )
    }
}
