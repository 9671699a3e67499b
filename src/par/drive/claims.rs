//! The dynamic and guided plans: the caller claims blocks from a counter
//! on its stack until the cutoff decides, then every thread claims from
//! it (`schedule/dynamic.rs`); what no one claimed is dropped after the
//! call (`DropTail`).

use super::consumer::Consumer;
use super::guards::{ClaimGuard, DropTail, UnsafeSync};
use super::walk::Record;
use super::Call;
use crate::par::cutoff::{Block, Cutoff, Decision};
use crate::par::producer::Producer;
use crate::schedule::dynamic::GuidedCursor;
use crate::schedule::ForkJoin;
use crate::sync::AtomicUsize;
use crossbeam_utils::CachePadded;

impl<P: Producer, C: Consumer<P::Item>> Call<'_, P, C, C::Acc> {
    /// The dynamic and guided plans: blocks claimed with `claim` from a
    /// counter whose final value `unclaimed` turns into the first position
    /// no one claimed.
    pub(super) fn run_claims(
        &self,
        pool: Option<&dyn ForkJoin>,
        mut cutoff: Cutoff,
        claim: impl Fn(&AtomicUsize, &mut GuidedCursor) -> Option<(usize, usize)> + Sync,
        unclaimed: impl Fn(usize) -> usize,
    ) -> C::Acc {
        let counter = CachePadded::new(AtomicUsize::new(0));
        let tail = DropTail {
            call: self,
            counter: &counter,
            unclaimed: &unclaimed,
        };
        let mut cursor = GuidedCursor::default();
        let mut acc = Some(self.consumer.start());
        let mut done = 0;
        let mut decision = cutoff.decision();
        let mut going = true;
        cutoff.begin();
        while decision != Decision::Fork && going {
            let Some((begin, end)) = claim(&counter, &mut cursor) else {
                break;
            };
            going = self.chunk(&mut acc, begin, end);
            done += end - begin;
            if decision == Decision::Undecided {
                decision = cutoff.after_block(done, Block::NotLast);
            }
        }
        if decision == Decision::Fork && going {
            let first = Record {
                acc,
                ..Record::untouched(0, 0)
            };
            let cursor0 = UnsafeSync(cursor);
            let untouched = |_| Record::untouched(0, 0);
            let total = self.fork_slots(pool, first, untouched, |thread, record, slots| {
                let mut share = ClaimGuard {
                    call: self,
                    slots,
                    thread,
                    acc: record.acc,
                    finished: false,
                };
                let mut cursor = if thread == 0 {
                    cursor0.0
                } else {
                    GuidedCursor::default()
                };
                if thread != 0 {
                    share.acc = Some(self.consumer.start());
                }
                while let Some((begin, end)) = claim(&counter, &mut cursor) {
                    if !self.chunk(&mut share.acc, begin, end) {
                        break;
                    }
                }
                share.finished = true;
            });
            drop(tail);
            return total;
        }
        drop(tail);
        acc.expect("a partial")
    }
}
