//! [`RoundRobinVec`]: one array sharded over a [`DistributedPool`]'s nodes,
//! each shard a [`PinnedVec`] on its colocation's node.

use super::distributed::DistributedPool;
use super::pinned_vec::PinnedVec;
use crate::error::Error;
use crate::schedule::split;
use crate::sync::{AtomicBool, Ordering};
use core::ops::Range;
use std::vec::Vec;

/// One array sharded over a [`DistributedPool`]'s colocations: shard `c`
/// lives on colocation `c`'s node and holds exactly the block of indices
/// that the pool's static split gives that colocation's threads.
///
/// So [`RoundRobinVec::par_for_each`] and its siblings have every thread
/// touch only memory on its own node, and the first touch of every page
/// (in [`RoundRobinVec::from_fn`]) is by a thread of that node.
///
/// ```
/// use tine::numa::{DistributedPool, RoundRobinVec, Topology};
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let topology = Topology::discover()?;
/// let pool = DistributedPool::try_spawn(&topology)?;
/// let mut squares = RoundRobinVec::from_fn(&pool, 10_000, |i| (i * i) as u64)?;
/// assert_eq!(squares.get(99), Some(&9801));
///
/// squares.fill_with(&pool, |i| i as u64);
/// let sum = AtomicU64::new(0);
/// squares.par_for_each(&pool, |_, &value| {
///     sum.fetch_add(value, Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 9_999 * 10_000 / 2);
/// # Ok::<(), tine::Error>(())
/// ```
pub struct RoundRobinVec<T> {
    shards: Vec<PinnedVec<T>>,
    /// Shard `s` holds indices `starts[s]..starts[s + 1]`.
    starts: Vec<usize>,
}

impl<T> core::fmt::Debug for RoundRobinVec<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RoundRobinVec")
            .field("starts", &self.starts)
            .finish_non_exhaustive()
    }
}

/// Raw access to the shards' elements from several threads, each on its
/// own indices.
struct SharedShards<T> {
    bases: *const PinnedVec<T>,
}

impl<T> Clone for SharedShards<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedShards<T> {}

// SAFETY: the threads that share it touch disjoint elements (each its own
// static range), and the fork joins before the owner uses the vector again.
unsafe impl<T: Send> Sync for SharedShards<T> {}

impl<T> SharedShards<T> {
    /// # Safety
    /// `shard` must be in bounds, `offset` below that shard's capacity, and
    /// no other thread may use that element meanwhile.
    unsafe fn element(self, shard: usize, offset: usize) -> *mut T {
        // SAFETY: guaranteed by the caller; the PinnedVec structs are only
        // read, their elements live in separate mappings.
        unsafe { (*self.bases.add(shard)).ptr.as_ptr().add(offset) }
    }
}

impl<T> RoundRobinVec<T> {
    /// `len` elements, element `i` being `f(i)`, each shard allocated on its
    /// colocation's node and filled by that colocation's threads.
    ///
    /// If `f` panics, the elements already made are dropped, the memory is
    /// freed, and the panic resumes on the caller.
    ///
    /// # Errors
    /// As [`PinnedVec::with_capacity`].
    pub fn from_fn<F>(pool: &DistributedPool, len: usize, f: F) -> Result<Self, Error>
    where
        T: Send,
        F: Fn(usize) -> T + Sync,
    {
        let topology = pool.topology();
        let mut shards: Vec<PinnedVec<T>> = Vec::with_capacity(pool.colocations());
        let mut starts = Vec::with_capacity(pool.colocations() + 1);
        for c in 0..pool.colocations() {
            let range = pool.colocation_range(len, c);
            starts.push(range.start);
            let node = topology.colocations()[c].node();
            shards.push(PinnedVec::with_capacity(topology, node, range.len())?);
        }
        starts.push(len);
        let mut vec = RoundRobinVec { shards, starts };

        let threads = pool.threads();
        let finished: Vec<AtomicBool> = (0..threads).map(|_| AtomicBool::new(false)).collect();
        let shared = SharedShards {
            bases: vec.shards.as_ptr(),
        };
        let starts = &vec.starts;
        let filled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.for_slices(len, |first, count| {
                let range = first.task_index..first.task_index + count;
                /// Drops this thread's elements made so far if `f` unwinds.
                struct Partial<'a, T> {
                    shared: SharedShards<T>,
                    starts: &'a [usize],
                    begin: usize,
                    made: usize,
                }
                impl<T> Drop for Partial<'_, T> {
                    fn drop(&mut self) {
                        for i in self.begin..self.begin + self.made {
                            let (shard, offset) = locate(self.starts, i);
                            // SAFETY: this thread made element `i` and no one
                            // else touches it.
                            unsafe { self.shared.element(shard, offset).drop_in_place() };
                        }
                    }
                }
                let mut partial = Partial {
                    shared,
                    starts,
                    begin: range.start,
                    made: 0,
                };
                for (shard, span) in segments(starts, range) {
                    for i in span {
                        let value = f(i);
                        // SAFETY: `i` is in this thread's range, so in shard
                        // `shard` below its capacity, and only we write it.
                        unsafe { shared.element(shard, i - starts[shard]).write(value) };
                        partial.made += 1;
                    }
                }
                core::mem::forget(partial);
                // Read by the caller after the join.
                finished[first.thread_index].store(true, Ordering::Relaxed);
            });
        }));
        if let Err(payload) = filled {
            for (thread_index, done) in finished.iter().enumerate() {
                if done.load(Ordering::Relaxed) {
                    let (begin, count) = split(len, threads, thread_index);
                    for (shard, span) in segments(&vec.starts, begin..begin + count) {
                        for i in span {
                            let offset = i - vec.starts[shard];
                            // SAFETY: a finished thread made every element of
                            // its range, and the fork has joined.
                            unsafe { shared.element(shard, offset).drop_in_place() };
                        }
                    }
                }
            }
            std::panic::resume_unwind(payload);
        }
        for (shard, vecs) in vec.shards.iter_mut().enumerate() {
            let count = vec.starts[shard + 1] - vec.starts[shard];
            // SAFETY: every thread finished its range, and the ranges tile
            // each shard's block.
            unsafe { vecs.set_len(count) };
        }
        Ok(vec)
    }

    /// Elements in all.
    pub fn len(&self) -> usize {
        self.starts[self.starts.len() - 1]
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of shards (the pool's colocations).
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// Shard `s`, on colocation `s`'s node; `None` past the last shard.
    pub fn shard(&self, s: usize) -> Option<&PinnedVec<T>> {
        self.shards.get(s)
    }

    /// The indices shard `s` holds; `None` past the last shard.
    pub fn shard_range(&self, s: usize) -> Option<Range<usize>> {
        let end = *self.starts.get(s.checked_add(1)?)?;
        Some(self.starts[s]..end)
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len() {
            return None;
        }
        let (shard, offset) = locate(&self.starts, i);
        self.shards[shard].get(offset)
    }

    /// Element `i`, mutably.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len() {
            return None;
        }
        let (shard, offset) = locate(&self.starts, i);
        self.shards[shard].get_mut(offset)
    }

    /// Calls `f(i, &element)` for every element, each thread on its own
    /// block: with the pool the vector was made for, only on its node.
    pub fn par_for_each<F>(&self, pool: &DistributedPool, f: F)
    where
        T: Sync,
        F: Fn(usize, &T) + Sync,
    {
        self.par_for_each_chunk(pool, |first, chunk| {
            for (offset, element) in chunk.iter().enumerate() {
                f(first.task_index + offset, element);
            }
        });
    }

    /// Calls `f(prong, chunk)` with each thread's contiguous run of elements,
    /// `prong.task_index` being the index of `chunk[0]`. With the pool the
    /// vector was made for, each thread gets one chunk, on its own node; with
    /// another pool, a thread's range may cross a shard boundary and come
    /// in two chunks.
    ///
    /// ```
    /// use tine::numa::{DistributedPool, RoundRobinVec, Topology};
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let topology = Topology::discover()?;
    /// let pool = DistributedPool::try_spawn(&topology)?;
    /// let data = RoundRobinVec::from_fn(&pool, 1000, |i| i as u64)?;
    /// let sum = AtomicU64::new(0);
    /// data.par_for_each_chunk(&pool, |_prong, chunk| {
    ///     sum.fetch_add(chunk.iter().sum::<u64>(), Ordering::Relaxed);
    /// });
    /// assert_eq!(sum.into_inner(), 999 * 1000 / 2);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn par_for_each_chunk<F>(&self, pool: &DistributedPool, f: F)
    where
        T: Sync,
        F: Fn(crate::schedule::Prong, &[T]) + Sync,
    {
        pool.for_slices(self.len(), |first, count| {
            for (shard, span) in segments(&self.starts, first.task_index..first.task_index + count)
            {
                let base = self.starts[shard];
                let chunk = &self.shards[shard][span.start - base..span.end - base];
                let prong = crate::schedule::Prong {
                    task_index: span.start,
                    ..first
                };
                f(prong, chunk);
            }
        });
    }

    /// Calls `f(i, &mut element)` for every element, as
    /// [`RoundRobinVec::par_for_each`].
    pub fn par_for_each_mut<F>(&mut self, pool: &DistributedPool, f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        let shared = SharedShards {
            bases: self.shards.as_ptr(),
        };
        let starts = &self.starts;
        pool.for_slices(self.len(), |first, count| {
            for (shard, span) in segments(starts, first.task_index..first.task_index + count) {
                for i in span {
                    // SAFETY: `i` is in this thread's range only, inside
                    // shard `shard`'s initialized elements; `&mut self` keeps
                    // everyone else out until the fork joins.
                    let element = unsafe { &mut *shared.element(shard, i - starts[shard]) };
                    f(i, element);
                }
            }
        });
    }

    /// Sets element `i` to `f(i)` for every `i`, in parallel, each thread on
    /// its own block. `f` is `Fn`, not `FnMut`: threads call it at once.
    pub fn fill_with<F>(&mut self, pool: &DistributedPool, f: F)
    where
        T: Send,
        F: Fn(usize) -> T + Sync,
    {
        self.par_for_each_mut(pool, |i, element| *element = f(i));
    }
}

/// The shard holding index `i`, and `i`'s offset in it.
fn locate(starts: &[usize], i: usize) -> (usize, usize) {
    // The last shard whose start is <= i (empty shards share a start).
    let shard = starts[..starts.len() - 1].partition_point(|&start| start <= i) - 1;
    (shard, i - starts[shard])
}

/// `range` cut at shard boundaries: (shard, the part of `range` in it).
fn segments(
    starts: &[usize],
    range: Range<usize>,
) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    (0..starts.len() - 1).filter_map(move |shard| {
        let begin = range.start.max(starts[shard]);
        let end = range.end.min(starts[shard + 1]);
        (begin < end).then_some((shard, begin..end))
    })
}
