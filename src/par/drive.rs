//! The driver: one call of a consumer over a producer, with at most one
//! fork.
//!
//! # Plan
//!
//! - `used = min(threads, len / min_len)` threads take part (at least 1).
//! - Static: thread `t` owns `split(len, used, t)`. It runs its range in
//!   blocks: thread 0's grow 1, 4, 16, ... (so that the caller can decide
//!   the cutoff early, `cutoff.rs`), the others' are whole; every block is
//!   at most `max_len`, and at most [`STOP_BLOCK`] when the consumer can
//!   stop early, so a stop is seen within one block. The blocks depend
//!   only on `len`, `used` and the settings, never on timing.
//! - Dynamic and guided: threads claim blocks from a counter on the
//!   caller's stack (`schedule/dynamic.rs`); the caller claims alone until
//!   the cutoff decides.
//! - Each thread folds its blocks into one partial, left to right; the
//!   partials combine in thread order. Run alone, the caller goes through
//!   the same ranges and blocks in the same order, so the result is the
//!   same as the fork's.
//!
//! # Every position once
//!
//! Each position is either folded or dropped unseen (`drop_range`), once,
//! whatever happens: a block the consumer skips (early stop) or that comes
//! after a panic (`halt`) is dropped, the rest of a range after a stop is
//! dropped, a panicking block's iterator drops its own rest as it unwinds,
//! and after a dynamic call the caller drops what no one claimed. The
//! guards below do it on the unwinding paths too.
//!
//! # Partials
//!
//! Thread `t` leaves a `Record` (its partial, and how far it folded) in
//! slot `t` of the pool's [`crate::schedule::Partials`] when its share
//! ends, normally or not; the caller reads the slots after the join. A
//! caller that cannot have the pool's slots (another thread's call holds
//! them, or a partial too large) uses slots of its own.

use super::cutoff::{Cutoff, Decision};
use super::iter::{Config, Schedule};
use super::producer::Producer;
use crate::schedule::dynamic::{GrainClaims, GuidedClaims, GuidedCursor};
use crate::schedule::split;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use crate::ForkJoin;
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use crossbeam_utils::CachePadded;
use std::vec::Vec;

/// The largest block a thread runs between two checks for an early stop.
pub const STOP_BLOCK: usize = 4096;

/// What a call does with the items: a fold per thread, and a combine.
pub(crate) trait Consumer<T>: Sync {
    /// A thread's partial result.
    type Acc: Send;
    /// Whether `skip` can ever say yes (then static blocks are small).
    const STOPS: bool = false;
    /// Whether the call must use the static split (an exact `collect`,
    /// which needs each thread's output to be one contiguous run).
    const STATIC_ONLY: bool = false;

    /// A fresh partial.
    fn start(&self) -> Self::Acc;
    /// Folds the items of one block, whose first position is `first`.
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, first: usize, items: I) -> Self::Acc;
    /// Combines two partials, `left` from earlier positions (static) or a
    /// lower thread.
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc;
    /// Whether the block starting at `first` can be dropped unseen: the
    /// answer is known. Once true for a position, true for every later one.
    fn skip(&self, _first: usize) -> bool {
        false
    }
    /// After a panic: positions `begin..end` were folded in full, and the
    /// call will not return (an exact `collect` drops what it wrote).
    fn cleanup(&self, _begin: usize, _end: usize) {}
}

/// Runs `consumer` over `producer` with `config`'s settings; returns the
/// combined partial.
pub(crate) fn drive<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
) -> C::Acc {
    if crate::team::in_task() {
        // Inside a task every call runs inline: no pool is needed (and the
        // global one is not started for it).
        return run(None, producer, config, consumer);
    }
    match config.pool {
        // SAFETY: `with_pool` stored it, and the iterator's type keeps it
        // from outliving the pool (`Pooled`).
        Some(pool) => run(Some(unsafe { pool.0.as_ref() }), producer, config, consumer),
        None => super::global::with_current(|pool| run(Some(pool), producer, config, consumer)),
    }
}

/// One thread's result, left in its slot. The caller writes every slot
/// before the fork with nothing folded and nothing handed out, so a share
/// that never runs (or dies before its guard exists) still leaves a true
/// record.
struct Record<A> {
    /// `None` if the thread's share unwound or never ran.
    acc: Option<A>,
    /// Positions `begin..done` of its static range were folded.
    begin: usize,
    done: usize,
    /// Positions `handed..end` of its static range were never handed out.
    handed: usize,
    end: usize,
}

impl<A> Record<A> {
    /// The record of a static range (or, for claims, an empty one) that no
    /// share has touched yet.
    fn untouched(begin: usize, end: usize) -> Self {
        Record {
            acc: None,
            begin,
            done: begin,
            handed: begin,
            end,
        }
    }
}

/// Everything a call's threads share.
struct Call<'a, P, C, A> {
    producer: &'a P,
    consumer: &'a C,
    n: usize,
    used: usize,
    max_block: usize,
    /// Set when a share panics: the others stop as at an early stop.
    halt: CachePadded<AtomicBool>,
    _acc: core::marker::PhantomData<fn() -> A>,
}

/// Runs the call on `pool`, or alone on the caller if `None`.
fn run<P: Producer, C: Consumer<P::Item>>(
    pool: Option<&dyn ForkJoin>,
    producer: &P,
    config: &Config,
    consumer: &C,
) -> C::Acc {
    let n = producer.len();
    if n == 0 {
        return consumer.start();
    }
    let used = match pool {
        Some(pool) => pool.threads().min(n / config.min_len.max(1)).max(1),
        None => 1,
    };
    let mut max_block = config.max_len.max(1);
    if C::STOPS {
        max_block = max_block.min(STOP_BLOCK);
    }
    let schedule = if C::STATIC_ONLY || used == 1 {
        Schedule::Static
    } else {
        config.schedule
    };
    let call = Call {
        producer,
        consumer,
        n,
        used,
        max_block,
        halt: CachePadded::new(AtomicBool::new(false)),
        _acc: core::marker::PhantomData,
    };
    let key = run::<P, C> as fn(Option<&dyn ForkJoin>, &P, &Config, &C) -> C::Acc as usize;
    match schedule {
        Schedule::Dynamic { grain } => match GrainClaims::new(n, grain.min(max_block), used) {
            Some(claims) => {
                call.run_claims(pool, key, |counter, _| claims.claim(counter), |c| c.min(n))
            }
            None => call.run_static(pool, key),
        },
        Schedule::Guided { min } => match GuidedClaims::new(n, min, used) {
            Some(claims) => call.run_claims(
                pool,
                key,
                |counter, cursor| claims.claim(counter, cursor),
                |c| claims.unclaimed_from(c),
            ),
            None => call.run_static(pool, key),
        },
        _ => call.run_static(pool, key),
    }
}

/// A thread's walk through its static range.
#[derive(Clone, Copy)]
struct Walk {
    begin: usize,
    /// Folded up to here.
    done: usize,
    /// Handed out up to here (folded or dropped).
    cursor: usize,
    end: usize,
    /// The next geometric block size (thread 0), or `usize::MAX`.
    grow: usize,
}

impl Walk {
    /// No range: what the caller's guard holds before its first partial.
    fn empty() -> Self {
        Walk {
            begin: 0,
            done: 0,
            cursor: 0,
            end: 0,
            grow: usize::MAX,
        }
    }

    fn new(n: usize, used: usize, thread: usize) -> Self {
        let (begin, count) = split(n, used, thread);
        Walk {
            begin,
            done: begin,
            cursor: begin,
            end: begin + count,
            grow: if thread == 0 { 1 } else { usize::MAX },
        }
    }

    fn next_block(&mut self, max_block: usize) -> Option<(usize, usize)> {
        if self.cursor >= self.end {
            return None;
        }
        let size = self.grow.min(max_block).min(self.end - self.cursor);
        if self.grow != usize::MAX {
            self.grow = self.grow.saturating_mul(4);
        }
        let begin = self.cursor;
        self.cursor += size;
        Some((begin, self.cursor))
    }
}

impl<P: Producer, C: Consumer<P::Item>> Call<'_, P, C, C::Acc> {
    /// Folds block `begin..end` into `acc`, or drops it if the consumer
    /// skips it or a share panicked. Returns whether to go on.
    #[inline]
    fn block(&self, acc: &mut Option<C::Acc>, begin: usize, end: usize) -> bool {
        // Relaxed: a hint to stop early; nothing is published through it.
        if self.halt.load(Ordering::Relaxed) || self.consumer.skip(begin) {
            // SAFETY: the block was handed to this thread alone.
            unsafe { self.producer.drop_range(begin, end) };
            return false;
        }
        let folded = acc.take().expect("a partial");
        // SAFETY: as above.
        let items = unsafe { self.producer.range(begin, end) };
        *acc = Some(self.consumer.fold(folded, begin, items));
        true
    }

    /// Folds a claimed chunk `begin..end` in blocks of at most
    /// `max_block`; drops the rest of the chunk if a block is skipped.
    /// Returns whether to go on claiming.
    #[inline]
    fn chunk(&self, acc: &mut Option<C::Acc>, begin: usize, end: usize) -> bool {
        let mut from = begin;
        while from < end {
            let to = end.min(from.saturating_add(self.max_block));
            let guard = DropRest {
                call: self,
                from: to,
                to: end,
            };
            let went_on = self.block(acc, from, to);
            core::mem::forget(guard);
            if !went_on {
                // SAFETY: claimed by this thread, never handed out.
                unsafe { self.producer.drop_range(to, end) };
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
    fn guarded_block(
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
    fn finish_walk(&self, walk: &mut Walk, acc: &mut Option<C::Acc>) {
        while let Some((begin, end)) = walk.next_block(self.max_block) {
            if !self.guarded_block(acc, begin, end, walk.end) {
                walk.cursor = walk.end;
                return;
            }
            walk.done = end;
        }
    }

    /// The static plan: see the module docs.
    fn run_static(&self, pool: Option<&dyn ForkJoin>, key: usize) -> C::Acc {
        let mut cutoff = Cutoff::new(key, self.n);
        // Made before the first partial: if `start` panics, the guard drops
        // every position.
        let mut serial = SerialGuard {
            call: self,
            walk: Walk::empty(),
        };
        let mut acc = Some(self.consumer.start());
        serial.walk = Walk::new(self.n, self.used, 0);
        // The caller alone, until the cutoff decides.
        let mut decision = if self.used == 1 {
            Decision::Serial
        } else {
            cutoff.decision()
        };
        while decision == Decision::Undecided {
            let walk = &mut serial.walk;
            let Some((begin, end)) = walk.next_block(self.max_block) else {
                decision = cutoff.after_block(walk.done, true);
                break;
            };
            if !self.guarded_block(&mut acc, begin, end, walk.end) {
                walk.cursor = walk.end;
                decision = Decision::Serial; // the answer is known: no fork
                break;
            }
            walk.done = end;
            decision = cutoff.after_block(end, walk.cursor >= walk.end);
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
            serial.walk = Walk::new(self.n, self.used, thread);
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
        let pool = pool.expect("a call with several threads has a pool");
        let slots: Slots<'_, Record<C::Acc>> = Slots::new(pool, self.used);
        // SAFETY: the slots are ours until the fork; each share takes its
        // own back (slot 0: the caller's record so far).
        unsafe {
            slots.ptr(0).write(Record {
                acc: acc0,
                begin: walk0.begin,
                done: walk0.done,
                handed: walk0.cursor,
                end: walk0.end,
            });
            for thread in 1..self.used {
                let walk = Walk::new(self.n, self.used, thread);
                slots
                    .ptr(thread)
                    .write(Record::untouched(walk.begin, walk.end));
            }
        }
        let walk0 = UnsafeSync(walk0);
        let collect = CollectGuard {
            call: self,
            slots: &slots,
        };
        pool.fork_join(&|thread, _| {
            if thread >= self.used {
                return;
            }
            // SAFETY: written above; each thread index runs once.
            let record = unsafe { slots.ptr(thread).read() };
            let walk = if thread == 0 {
                walk0.0
            } else {
                Walk::new(self.n, self.used, thread)
            };
            // The guard first: whatever happens next, it leaves a record.
            let mut share = ShareGuard::<P, C> {
                call: self,
                slots: &slots,
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
        });
        collect.combine()
    }

    /// The dynamic and guided plans: blocks claimed with `claim` from a
    /// counter whose final value `unclaimed` turns into the first position
    /// no one claimed.
    fn run_claims(
        &self,
        pool: Option<&dyn ForkJoin>,
        key: usize,
        claim: impl Fn(&AtomicUsize, &mut GuidedCursor) -> Option<(usize, usize)> + Sync,
        unclaimed: impl Fn(usize) -> usize,
    ) -> C::Acc {
        let counter = CachePadded::new(AtomicUsize::new(0));
        let tail = DropTail {
            call: self,
            counter: &counter,
            unclaimed: &unclaimed,
        };
        let mut cutoff = Cutoff::new(key, self.n);
        let mut cursor = GuidedCursor::default();
        let mut acc = Some(self.consumer.start());
        let mut done = 0;
        let mut decision = cutoff.decision();
        let mut going = true;
        while decision != Decision::Fork && going {
            let Some((begin, end)) = claim(&counter, &mut cursor) else {
                break;
            };
            going = self.chunk(&mut acc, begin, end);
            done += end - begin;
            if decision == Decision::Undecided {
                decision = cutoff.after_block(done, false);
            }
        }
        if decision == Decision::Fork && going {
            let pool = pool.expect("a call with several threads has a pool");
            let slots: Slots<'_, Record<C::Acc>> = Slots::new(pool, self.used);
            // SAFETY: the slots are ours until the fork; each share takes
            // its own back (slot 0: the caller's partial so far).
            unsafe {
                slots.ptr(0).write(Record {
                    acc,
                    ..Record::untouched(0, 0)
                });
                for thread in 1..self.used {
                    slots.ptr(thread).write(Record::untouched(0, 0));
                }
            }
            let cursor0 = UnsafeSync(cursor);
            let collect = CollectGuard {
                call: self,
                slots: &slots,
            };
            pool.fork_join(&|thread, _| {
                if thread >= self.used {
                    return;
                }
                // SAFETY: written above; each thread index runs once.
                let record = unsafe { slots.ptr(thread).read() };
                let mut share = ClaimGuard {
                    call: self,
                    slots: &slots,
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
            let total = collect.combine();
            drop(tail);
            return total;
        }
        drop(tail);
        acc.expect("a partial")
    }
}

/// A `Copy` value shared with the shares, read only by share 0.
struct UnsafeSync<T>(T);
// SAFETY: only share 0 reads it, once, while the caller waits in the fork.
unsafe impl<T> Sync for UnsafeSync<T> {}

/// Drops positions `from..to` if a block panics (the panicking block's own
/// rest is dropped by its iterator as it unwinds), and halts the others.
struct DropRest<'c, 'a, P: Producer, C: Consumer<P::Item>> {
    call: &'c Call<'a, P, C, C::Acc>,
    from: usize,
    to: usize,
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
struct ShareGuard<'c, 'a, 's, P: Producer, C: Consumer<P::Item>> {
    call: &'c Call<'a, P, C, C::Acc>,
    slots: &'s Slots<'s, Record<C::Acc>>,
    thread: usize,
    walk: Walk,
    acc: Option<C::Acc>,
    /// Set once the share has its partial and walks its range: from then
    /// on every position of the range is folded or dropped by the walk (its
    /// `DropRest` guards included).
    started: bool,
    /// Set once the share's work returned: otherwise it is unwinding.
    finished: bool,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for ShareGuard<'_, '_, '_, P, C> {
    fn drop(&mut self) {
        if !self.finished {
            // Relaxed: a hint; the join orders the rest.
            self.call.halt.store(true, Ordering::Relaxed);
        }
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
        unsafe { self.slots.ptr(self.thread).write(record) };
    }
}

/// Leaves a claiming share's record in its slot, on every way out, and
/// halts the others if it unwinds.
struct ClaimGuard<'c, 'a, 's, P: Producer, C: Consumer<P::Item>> {
    call: &'c Call<'a, P, C, C::Acc>,
    slots: &'s Slots<'s, Record<C::Acc>>,
    thread: usize,
    acc: Option<C::Acc>,
    finished: bool,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for ClaimGuard<'_, '_, '_, P, C> {
    fn drop(&mut self) {
        if !self.finished {
            // Relaxed: a hint; the join orders the rest.
            self.call.halt.store(true, Ordering::Relaxed);
        }
        let record = Record {
            acc: if self.finished { self.acc.take() } else { None },
            ..Record::untouched(0, 0)
        };
        // SAFETY: slot `thread` is this share's alone during the fork.
        unsafe { self.slots.ptr(self.thread).write(record) };
    }
}

/// After a fork: takes every record, combining the partials in thread
/// order; if the fork unwinds, drops them and cleans up what was folded.
struct CollectGuard<'c, 'a, 's, P: Producer, C: Consumer<P::Item>> {
    call: &'c Call<'a, P, C, C::Acc>,
    slots: &'s Slots<'s, Record<C::Acc>>,
}

impl<P: Producer, C: Consumer<P::Item>> CollectGuard<'_, '_, '_, P, C> {
    fn combine(self) -> C::Acc {
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
struct SerialGuard<'c, 'a, P: Producer, C: Consumer<P::Item>> {
    call: &'c Call<'a, P, C, C::Acc>,
    walk: Walk,
}

impl<P: Producer, C: Consumer<P::Item>> Drop for SerialGuard<'_, '_, P, C> {
    fn drop(&mut self) {
        // Only on unwinding: the normal paths forget it.
        self.call.consumer.cleanup(0, self.walk.done);
        // SAFETY: the ranges after the current one were never handed out.
        unsafe { self.call.producer.drop_range(self.walk.end, self.call.n) };
    }
}

/// After a claiming call (or as it unwinds): drops what no one claimed.
struct DropTail<'c, 'a, 'u, P: Producer, C: Consumer<P::Item>, U: Fn(usize) -> usize> {
    call: &'c Call<'a, P, C, C::Acc>,
    counter: &'u AtomicUsize,
    unclaimed: &'u U,
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
enum Slots<'a, R> {
    /// The pool's, leased for the call.
    Pool(crate::schedule::partials::Lease<'a>),
    /// The call's own: the pool has none free, or `R` does not fit.
    Own(Vec<UnsafeCell<MaybeUninit<R>>>),
}

// SAFETY: each slot is written by one thread (its index) during the fork
// and read by the caller after the join.
unsafe impl<R: Send> Sync for Slots<'_, R> {}

impl<'a, R> Slots<'a, R> {
    fn new(pool: &'a dyn ForkJoin, used: usize) -> Self {
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
    fn ptr(&self, thread: usize) -> *mut R {
        match self {
            Slots::Pool(lease) => lease.slot::<R>(thread).expect("checked in `new`"),
            Slots::Own(own) => own[thread].get().cast(),
        }
    }
}
