//! Folding blocks: one block, a claimed chunk in blocks, and the rest of a
//! thread's walk, each dropping what it must not fold (an early stop, a
//! panic elsewhere) so that every position is folded or dropped once.

use super::consumer::Consumer;
use super::guards::DropRest;
use super::walk::Walk;
use super::Call;
use crate::nest::stop::watching;
use crate::par::producer::Producer;
use crate::sync::Ordering;

impl<P: Producer, C: Consumer<P::Item>> Call<'_, P, C, C::Acc> {
    /// Folds block `begin..end` into `acc`, or drops it if the consumer
    /// skips it or a share panicked. Returns whether to go on.
    #[inline]
    pub(super) fn block(&self, acc: &mut Option<C::Acc>, begin: usize, end: usize) -> bool {
        // Relaxed: a hint to stop early; nothing is published through it.
        if self.halt.load(Ordering::Relaxed) || self.consumer.skip(begin) {
            // SAFETY: the block was handed to this thread alone.
            unsafe { self.producer.drop_range(begin, end) };
            return false;
        }
        let folded = acc.take().expect("a partial");
        // SAFETY: as above.
        let items = unsafe { self.producer.range(begin, end) };
        *acc = Some(if P::HEAVY && C::STOPS {
            // The serial walks inside a heavy block look for the stop too.
            let stopped = || {
                // Relaxed: as above.
                self.halt.load(Ordering::Relaxed) || self.consumer.skip(begin)
            };
            watching(&stopped, || self.consumer.fold(folded, begin, items))
        } else {
            self.consumer.fold(folded, begin, items)
        });
        true
    }

    /// Folds a claimed chunk `begin..end` in blocks within the call's
    /// bounds; drops the rest of the chunk if a block is skipped.
    /// Returns whether to go on claiming.
    #[inline]
    pub(super) fn chunk(&self, acc: &mut Option<C::Acc>, begin: usize, end: usize) -> bool {
        let mut from = begin;
        while from < end {
            let left = end - from;
            let to = from + self.blocks.fit(left, self.blocks.max.min(left));
            if !self.guarded_block(acc, from, to, end) {
                return false;
            }
            from = to;
        }
        true
    }

    /// Folds block `begin..end` of a range that ends at `range_end`; if
    /// the block is skipped, drops the rest of the range, and if it panics,
    /// a guard does. Returns whether to go on.
    #[inline]
    pub(super) fn guarded_block(
        &self,
        acc: &mut Option<C::Acc>,
        begin: usize,
        end: usize,
        range_end: usize,
    ) -> bool {
        let guard = DropRest {
            call: self,
            from: end,
            to: range_end,
        };
        let went_on = self.block(acc, begin, end);
        core::mem::forget(guard);
        if !went_on {
            // SAFETY: handed to this thread, never handed out.
            unsafe { self.producer.drop_range(end, range_end) };
        }
        went_on
    }

    /// Runs the rest of `walk`'s range, folding into `acc`.
    pub(super) fn finish_walk(&self, walk: &mut Walk, acc: &mut Option<C::Acc>) {
        walk.skip_dead(self.producer);
        while let Some((begin, end)) = walk.next_block(self.blocks) {
            if !self.guarded_block(acc, begin, end, walk.end) {
                walk.cursor = walk.end;
                return;
            }
            walk.done = end;
            walk.skip_dead(self.producer);
        }
    }
}
