//! The static plan: each thread folds its own range of the split. The
//! caller runs alone until the cutoff decides; then it forks, or runs the
//! other ranges alone, in order.

use super::alone::run_alone;
use super::consumer::Consumer;
use super::guards::{SerialGuard, ShareGuard, UnsafeSync};
use super::walk::{Record, Walk};
use super::Call;
use crate::par::cutoff::{Block, Cutoff, Decision};
use crate::par::producer::Producer;
use crate::schedule::ForkJoin;

impl<P: Producer, C: Consumer<P::Item>> Call<'_, P, C, C::Acc> {
    /// The static plan: see the module docs.
    pub(super) fn run_static(&self, pool: Option<&dyn ForkJoin>, mut cutoff: Cutoff) -> C::Acc {
        let mut decision = if self.used == 1 {
            Decision::Serial
        } else {
            cutoff.decision()
        };
        if decision == Decision::Serial {
            if C::SPLIT_FREE {
                // One thread (or no pool): `drive` did not know it yet.
                return run_alone(self.producer, self.blocks, self.consumer, self.n);
            }
            if self.can_run_serial() {
                return self.run_serial();
            }
        }
        // Made before the first partial: if `start` panics, the guard drops
        // every position.
        let mut serial = SerialGuard {
            call: self,
            walk: Walk::empty(),
        };
        let mut acc = Some(self.consumer.start());
        serial.walk = Walk::new(self.shares, 0);
        // The caller alone, until the cutoff decides.
        cutoff.begin();
        while decision == Decision::Undecided {
            let walk = &mut serial.walk;
            walk.skip_dead(self.producer);
            if P::BOUNDLESS && walk.cursor >= walk.end {
                // A bridge that ran out: a fork would find nothing.
                decision = Decision::Serial;
                break;
            }
            let Some((begin, end)) = walk.next_block(self.blocks) else {
                decision = cutoff.after_block(walk.done, Block::Last);
                break;
            };
            if !self.guarded_block(&mut acc, begin, end, walk.end) {
                walk.cursor = walk.end;
                decision = Decision::Serial; // the answer is known: no fork
                break;
            }
            walk.done = end;
            let block = if walk.cursor >= walk.end {
                Block::Last
            } else {
                Block::NotLast
            };
            decision = cutoff.after_block(end, block);
        }
        if decision == Decision::Fork {
            let walk = serial.walk;
            core::mem::forget(serial);
            return self.fork_static(pool, walk, acc);
        }
        // Alone: the caller's range, then every other range in order.
        self.finish_walk(&mut serial.walk, &mut acc);
        let mut total = acc.expect("a partial");
        for thread in 1..self.used {
            // `start` first: while it runs, the guard's walk is the range
            // just finished, so a panic drops this range and every later one.
            let mut acc = Some(self.consumer.start());
            serial.walk = Walk::new(self.shares, thread);
            self.finish_walk(&mut serial.walk, &mut acc);
            total = self.consumer.combine(total, acc.expect("a partial"));
        }
        core::mem::forget(serial);
        total
    }

    /// The fork of a static call, thread 0 going on from `walk` with
    /// `acc`.
    fn fork_static(
        &self,
        pool: Option<&dyn ForkJoin>,
        walk0: Walk,
        acc0: Option<C::Acc>,
    ) -> C::Acc {
        let first = Record {
            acc: acc0,
            begin: walk0.begin,
            done: walk0.done,
            handed: walk0.cursor,
            end: walk0.end,
        };
        let untouched = |thread| {
            let walk = Walk::new(self.shares, thread);
            Record::untouched(walk.begin, walk.end)
        };
        let walk0 = UnsafeSync(walk0);
        self.fork_slots(pool, first, untouched, |thread, record, slots| {
            let walk = if thread == 0 {
                walk0.0
            } else {
                Walk::new(self.shares, thread)
            };
            // The guard first: whatever happens next, it leaves a record.
            let mut share = ShareGuard::<P, C> {
                call: self,
                slots,
                thread,
                walk,
                acc: record.acc,
                started: false,
                finished: false,
            };
            if thread != 0 {
                share.acc = Some(self.consumer.start());
            }
            share.started = true;
            self.finish_walk(&mut share.walk, &mut share.acc);
            share.finished = true;
        })
    }
}
