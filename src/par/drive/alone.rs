//! The caller alone: calls that the cutoff sends to the caller before any
//! block ran.
//!
//! - A consumer whose result does not depend on the split
//!   (`Consumer::SPLIT_FREE`: `for_each`, `count`) needs no pool, no plan
//!   and no probe blocks: it costs what the serial loop costs, plus the
//!   decision ([`run_alone`]).
//! - Any other consumer folds the very ranges and blocks a fork would
//!   (the walks' own `next_block` lays them out), so a float reduction's
//!   bits do not depend on the decision; but with one guard for the whole
//!   call instead of one per block, and none of the checks that only a
//!   fork needs ([`Call::run_serial`]).

use super::consumer::Consumer;
use super::guards::{SerialGuard, SerialRest};
use super::walk::{Blocks, Walk};
use super::Call;
use crate::par::producer::Producer;
use crate::schedule::split::Shares;
use crate::sync::AtomicBool;
use crossbeam_utils::CachePadded;

/// A call of `n > 0` positions that runs on the caller alone, for a
/// consumer that does not depend on the split (`Consumer::SPLIT_FREE`):
/// every position in one walk, in `blocks` only where `with_max_len` or
/// `with_min_len` asks for them.
#[inline]
pub(super) fn run_alone<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    blocks: Blocks,
    consumer: &C,
    n: usize,
) -> C::Acc {
    if !P::BOUNDLESS && !C::STOPS && blocks.min <= 1 && blocks.max >= n {
        // One block, no early stop: the serial loop itself. If it panics,
        // the items it has not reached are the iterator's to drop, as in
        // a block of a walk.
        let acc = consumer.start();
        // SAFETY: every position is handed out once, to this fold.
        let items = unsafe { producer.range(0, n) };
        return consumer.fold_whole(acc, items);
    }
    run_alone_in_blocks(producer, blocks, consumer, n)
}

/// [`run_alone`] in blocks: a walk over every position.
#[inline(never)]
fn run_alone_in_blocks<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    blocks: Blocks,
    consumer: &C,
    n: usize,
) -> C::Acc {
    let call = Call {
        producer,
        consumer,
        n,
        used: 1,
        shares: Shares::new(n, 1),
        blocks,
        halt: CachePadded::new(AtomicBool::new(false)),
        _acc: core::marker::PhantomData,
    };
    // Made before the partial: if `start` panics, the guard drops every
    // position.
    let mut serial = SerialGuard {
        call: &call,
        walk: Walk::empty(),
    };
    let mut acc = Some(consumer.start());
    serial.walk = Walk::whole(n);
    call.finish_walk(&mut serial.walk, &mut acc);
    core::mem::forget(serial);
    acc.expect("a partial")
}

/// Whether [`Call::run_serial`] can run a call of `P` and `C`: no early
/// stop (whose blocks are checked one by one) and no dead positions to
/// skip (a bridge's).
#[inline]
pub(super) const fn serial_in_blocks<P: Producer, C: Consumer<P::Item>>() -> bool {
    !C::STOPS && !P::BOUNDLESS
}

impl<P: Producer, C: Consumer<P::Item>> Call<'_, P, C, C::Acc> {
    /// Whether [`Call::run_serial`] can run this call
    /// ([`serial_in_blocks`]).
    #[inline]
    pub(super) fn can_run_serial(&self) -> bool {
        serial_in_blocks::<P, C>()
    }

    /// Runs every range in thread order, each in the blocks of its walk,
    /// folding each range into a partial and combining them in order: the
    /// fork's result, computed alone. The caller checks
    /// [`Call::can_run_serial`]. Always inlined: a small reduction that a
    /// trusted cost keeps on the caller runs nothing else, and a call here
    /// (which the compiler chose in some builds) cost its `dot` of 256
    /// `f32` 3% (`par.rs`).
    #[inline(always)]
    pub(super) fn run_serial(&self) -> C::Acc {
        debug_assert!(self.can_run_serial());
        let mut rest = SerialRest {
            call: self,
            folded: 0,
            handed: 0,
        };
        let mut total = None;
        for thread in 0..self.used {
            let mut acc = self.consumer.start();
            let mut walk = Walk::new(self.shares, thread);
            while let Some((begin, end)) = walk.next_block(self.blocks) {
                rest.handed = end;
                // SAFETY: positions `begin..end` are handed out once, here;
                // `rest` drops every later one if this fold unwinds.
                let items = unsafe { self.producer.range(begin, end) };
                acc = self.consumer.fold(acc, begin, items);
                rest.folded = end;
            }
            total = Some(match total {
                None => acc,
                Some(total) => self.consumer.combine(total, acc),
            });
        }
        core::mem::forget(rest);
        total.expect("a call has at least one range")
    }
}
