//! The driver's guards: what each path leaves behind on every way out,
//! unwinding included (see "Every position once" in `drive.rs`), and the
//! slots the records go to.

use super::consumer::Consumer;
use super::walk::{Record, Walk};
use super::Call;
use crate::par::producer::Producer;
use crate::schedule::ForkJoin;
use crate::sync::{AtomicUsize, Ordering};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use std::vec::Vec;

/// A `Copy` value shared with the shares, read only by share 0.
pub(super) struct UnsafeSync<T>(pub(super) T);
// SAFETY: only share 0 reads it, once, while the caller waits in the fork.
unsafe impl<T> Sync for UnsafeSync<T> {}

/// Drops positions `from..to` if a block panics (the panicking block's own
/// rest is dropped by its iterator as it unwinds), and halts the others.
pub(super) struct DropRest<'c, 'a, P: Producer, C: Consumer<P::Item>> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) from: usize,
    pub(super) to: usize,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for DropRest<'_, '_, P, C> {
    fn drop(&mut self) {
        // Relaxed: a hint; the fork's join orders everything else.
        self.call.halt.store(true, Ordering::Relaxed);
        // SAFETY: positions handed to this thread and never handed out.
        unsafe { self.call.producer.drop_range(self.from, self.to) };
    }
}

/// Leaves a static share's record in its slot, on every way out, and
/// halts the others if it unwinds.
pub(super) struct ShareGuard<'c, 'a, 's, P: Producer, C: Consumer<P::Item>> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) slots: &'s Slots<'s, Record<C::Acc>>,
    pub(super) thread: usize,
    pub(super) walk: Walk,
    pub(super) acc: Option<C::Acc>,
    /// Set once the share has its partial and walks its range: from then
    /// on every position of the range is folded or dropped by the walk (its
    /// `DropRest` guards included).
    pub(super) started: bool,
    /// Set once the share's work returned: otherwise it is unwinding.
    pub(super) finished: bool,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for ShareGuard<'_, '_, '_, P, C> {
    fn drop(&mut self) {
        let record = Record {
            acc: if self.finished { self.acc.take() } else { None },
            begin: self.walk.begin,
            done: self.walk.done,
            handed: if self.started {
                self.walk.end
            } else {
                self.walk.cursor
            },
            end: self.walk.end,
        };
        // SAFETY: slot `thread` is this share's alone during the fork.
        unsafe { leave(self.call, self.slots, self.thread, self.finished, record) };
    }
}

/// A share's last act: halts the others if it is unwinding (`!finished`),
/// and leaves `record` in its slot.
///
/// # Safety
/// Slot `thread` is the calling share's alone, as during its fork.
unsafe fn leave<P: Producer, C: Consumer<P::Item>>(
    call: &Call<'_, P, C, C::Acc>,
    slots: &Slots<'_, Record<C::Acc>>,
    thread: usize,
    finished: bool,
    record: Record<C::Acc>,
) {
    if !finished {
        // Relaxed: a hint; the join orders the rest.
        call.halt.store(true, Ordering::Relaxed);
    }
    // SAFETY: slot `thread` is ours alone, by the contract.
    unsafe { slots.ptr(thread).write(record) };
}

/// Leaves a claiming share's record in its slot, on every way out, and
/// halts the others if it unwinds.
pub(super) struct ClaimGuard<'c, 'a, 's, P: Producer, C: Consumer<P::Item>> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) slots: &'s Slots<'s, Record<C::Acc>>,
    pub(super) thread: usize,
    pub(super) acc: Option<C::Acc>,
    pub(super) finished: bool,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for ClaimGuard<'_, '_, '_, P, C> {
    fn drop(&mut self) {
        let record = Record {
            acc: if self.finished { self.acc.take() } else { None },
            ..Record::untouched(0, 0)
        };
        // SAFETY: slot `thread` is this share's alone during the fork.
        unsafe { leave(self.call, self.slots, self.thread, self.finished, record) };
    }
}

/// After a fork: takes every record, combining the partials in thread
/// order; if the fork unwinds, drops them and cleans up what was folded.
pub(super) struct CollectGuard<'c, 'a, 's, P: Producer, C: Consumer<P::Item>> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) slots: &'s Slots<'s, Record<C::Acc>>,
}

impl<P: Producer, C: Consumer<P::Item>> CollectGuard<'_, '_, '_, P, C> {
    pub(super) fn combine(self) -> C::Acc {
        let (call, slots) = (self.call, self.slots);
        core::mem::forget(self);
        let mut total: Option<C::Acc> = None;
        for thread in 0..call.used {
            // SAFETY: every slot holds a record (written before the fork,
            // rewritten by each share before the join, which has happened).
            let record = unsafe { slots.ptr(thread).read() };
            let Some(acc) = record.acc else {
                panic!("the pool's `ForkJoin::fork_join` returned without running thread {thread}");
            };
            total = Some(match total {
                None => acc,
                Some(left) => call.consumer.combine(left, acc),
            });
        }
        total.expect("at least one thread")
    }
}

impl<P: Producer, C: Consumer<P::Item>> Drop for CollectGuard<'_, '_, '_, P, C> {
    fn drop(&mut self) {
        for thread in 0..self.call.used {
            // SAFETY: the fork has joined (it is unwinding on the caller),
            // and every slot holds a record: written before the fork, and
            // rewritten by each share that ran.
            let record = unsafe { self.slots.ptr(thread).read() };
            drop(record.acc);
            self.call.consumer.cleanup(record.begin, record.done);
            // SAFETY: never handed out (a share that never ran, or died
            // before walking its range).
            unsafe { self.call.producer.drop_range(record.handed, record.end) };
        }
    }
}

/// The caller's guard while it runs alone: if a block panics, cleans up
/// what was folded (everything before the current range, and the current
/// range up to `walk.done`, for consumers that never skip) and drops the
/// ranges after the current one (the current range's rest is dropped by
/// its `DropRest`).
pub(super) struct SerialGuard<'c, 'a, P: Producer, C: Consumer<P::Item>> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) walk: Walk,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for SerialGuard<'_, '_, P, C> {
    fn drop(&mut self) {
        // Only on unwinding: the normal paths forget it.
        self.call.consumer.cleanup(0, self.walk.done);
        // SAFETY: the ranges after the current one were never handed out.
        unsafe { self.call.producer.drop_range(self.walk.end, self.call.n) };
    }
}

/// The guard of [`Call::run_serial`]: if a fold (or a `start`) unwinds,
/// cleans up positions `0..folded` (folded in full) and drops
/// `handed..n` (never handed out; the unwinding block's own rest is its
/// iterator's to drop).
pub(super) struct SerialRest<'c, 'a, P: Producer, C: Consumer<P::Item>> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) folded: usize,
    pub(super) handed: usize,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for SerialRest<'_, '_, P, C> {
    fn drop(&mut self) {
        // Only on unwinding: the normal path forgets it.
        self.call.consumer.cleanup(0, self.folded);
        // SAFETY: positions from `handed` on were never handed out.
        unsafe { self.call.producer.drop_range(self.handed, self.call.n) };
    }
}

/// After a claiming call (or as it unwinds): drops what no one claimed.
pub(super) struct DropTail<'c, 'a, 'u, P: Producer, C: Consumer<P::Item>, U: Fn(usize) -> usize> {
    pub(super) call: &'c Call<'a, P, C, C::Acc>,
    pub(super) counter: &'u AtomicUsize,
    pub(super) unclaimed: &'u U,
}

impl<P: Producer, C: Consumer<P::Item>, U: Fn(usize) -> usize> Drop
    for DropTail<'_, '_, '_, P, C, U>
{
    fn drop(&mut self) {
        // Relaxed: the fork's join (or this thread's own claims) ordered
        // every claim before this load.
        let claimed = self.counter.load(Ordering::Relaxed);
        let from = (self.unclaimed)(claimed).min(self.call.n);
        // SAFETY: positions from `from` on were never claimed.
        unsafe { self.call.producer.drop_range(from, self.call.n) };
    }
}

/// The slots a call's records go to.
pub(super) enum Slots<'a, R> {
    /// The pool's, leased for the call.
    Pool(crate::schedule::partials::Lease<'a>),
    /// The call's own: the pool has none free, or `R` does not fit.
    Own(Vec<UnsafeCell<MaybeUninit<R>>>),
}

// SAFETY: each slot is written by one thread (its index) during the fork
// and read by the caller after the join.
unsafe impl<R: Send> Sync for Slots<'_, R> {}

impl<'a, R> Slots<'a, R> {
    pub(super) fn new(pool: &'a dyn ForkJoin, used: usize) -> Self {
        if let Some(lease) = pool.partials().and_then(|partials| partials.lease()) {
            if lease.slot::<R>(used - 1).is_some() {
                return Slots::Pool(lease);
            }
        }
        Slots::Own(
            (0..used)
                .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
                .collect(),
        )
    }

    /// Slot `thread`'s storage.
    pub(super) fn ptr(&self, thread: usize) -> *mut R {
        match self {
            Slots::Pool(lease) => lease.slot::<R>(thread).expect("checked in `new`"),
            Slots::Own(own) => own[thread].get().cast(),
        }
    }
}
