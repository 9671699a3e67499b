//! The driver: one call of a consumer over a producer, with at most one
//! fork.
//!
//! # Plan
//!
//! - `used = min(threads, len / min_len)` threads take part (at least 1).
//! - Static (`ranges.rs`): thread `t` owns `split(len, used, t)`. It runs its range in
//!   blocks: thread 0's end at 1, 4, 16, ... (so that the caller can decide
//!   the cutoff early, `cutoff.rs`), the others' are whole; every block is
//!   at most `max_len`, and at most [`STOP_BLOCK`] when the consumer can
//!   stop early, so a stop is seen within one block; and at least
//!   `min_len`, probe blocks included, as rayon promises (`min_len` wins
//!   over both; `walk.rs`, `Blocks`). The blocks depend only on `len`,
//!   `used` and the settings, never on timing.
//! - Dynamic and guided: threads claim blocks from a counter on the
//!   caller's stack (`schedule/dynamic.rs`); the caller claims alone until
//!   the cutoff decides.
//! - Each thread folds its blocks into one partial, left to right; the
//!   partials combine in thread order. Run alone, the caller goes through
//!   the same ranges and blocks in the same order, so the result is the
//!   same as the fork's.
//! - A consumer whose result does not depend on the split (`for_each`,
//!   `count`) and that the cutoff sends to the caller before any block ran
//!   skips all of this: one walk over every position (`alone.rs`).
//! - Any other static call that a trusted cost sends to the caller before
//!   any block ran skips the plan (no cutoff to ask, no schedule to
//!   pick): the pool's thread count, then the fork's ranges and blocks
//!   folded alone (`serial_on_trust`).
//!
//! # Every position once
//!
//! Each position is either folded or dropped unseen (`drop_range`), once,
//! whatever happens: a block the consumer skips (early stop), that comes
//! after a panic (`halt`) or that the producer finds dead
//! (`Producer::live_from`: a bridge whose items ran out) is dropped, the rest of a range after a stop is
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

mod alone;
mod block;
mod claims;
pub(crate) mod consumer;
mod guards;
mod ranges;
mod route;
mod walk;

use super::cutoff::{Cutoff, Decision};
use super::producer::Producer;
use super::settings::{Config, Schedule};
use crate::nest::stop;
use crate::nest::worker::Worker;
use crate::pool::edge;
use crate::schedule::dynamic::{GrainClaims, GuidedClaims};
use crate::schedule::split::Shares;
use crate::schedule::ForkJoin;
use crate::sync::AtomicBool;
use alone::run_alone;
use consumer::Consumer;
use crossbeam_utils::CachePadded;
use guards::{CollectGuard, Slots};
use route::{route, Route};
use walk::{Blocks, Record};

/// The largest block a thread runs between two checks for an early stop.
pub const STOP_BLOCK: usize = 4096;

/// Runs `consumer` over `producer` with `config`'s settings; returns the
/// combined partial. A call with no positions returns the consumer's start
/// value; any other takes the [`Route`] that [`route`] chooses.
///
/// Inlined into the caller, so that a small call the cutoff keeps on the
/// caller costs a thread-local compare and the loop (a reduction: the
/// compare, the pool's thread count and the fork's blocks); asking the
/// clock, planning and forking live in functions of their own.
#[inline]
pub(crate) fn drive<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
) -> C::Acc {
    let n = producer.len();
    if n == 0 {
        return consumer.start();
    }
    if stop::is_watched() {
        return drive_unwatched(producer, config, consumer);
    }
    // A pool in rayon's model runs calls from outside on its own threads.
    if config.pool.is_none() && edge::calls_may_go_elsewhere() {
        let unpooled = config.unpooled();
        return edge::run_where_calls_go(move || {
            drive_here(producer, &unpooled.config(), consumer, n)
        });
    }
    drive_here(producer, config, consumer, n)
}

/// [`drive`] of a call made inside a heavy block of another call (from a
/// closure of that call): with no hook, so that its inner walks answer to
/// its own stops only (`nest/stop.rs`).
#[cold]
#[inline(never)]
fn drive_unwatched<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
) -> C::Acc {
    stop::unwatched(|| drive(producer, config, consumer))
}

/// [`drive`] on this thread: the [`Route`] that [`route`] chooses.
#[inline(always)]
fn drive_here<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
    n: usize,
) -> C::Acc {
    // One key for every ask: each use of `site` in another function may
    // name another copy of `drive` (a key made in the plan was not the
    // one asked with here), so the key travels with the call.
    let key = site::<P, C>();
    match route::<P, C>(config, n, key) {
        Route::Alone => run_alone(producer, Blocks::of::<P, C>(config), consumer, n),
        Route::AskCutoff => decide_split_free(producer, config, consumer, n, key),
        Route::SerialOnTrust => serial_on_trust(producer, config, consumer, n),
        Route::Plan => plan(producer, config, consumer, n, None, key),
    }
}

/// [`drive`] for a call whose result depends on the split and that a
/// trusted cost keeps on the caller: the fork's ranges on the pool's
/// thread count, run alone (`Call::run_serial`), with no cutoff to ask and
/// no schedule to pick.
#[inline(never)]
fn serial_on_trust<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
    n: usize,
) -> C::Acc {
    with_pool(config, |_, threads| {
        Call::new(threads, producer, config, consumer, n).run_serial()
    })
}

/// [`drive`] for a split-free call that no trusted cost kept alone: asks
/// the full cutoff (which may read the clock), then plans if it may fork.
#[inline(never)]
fn decide_split_free<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
    n: usize,
    key: usize,
) -> C::Acc {
    let first = Cutoff::new(key, n);
    if first.decision() == Decision::Serial {
        return run_alone(producer, Blocks::of::<P, C>(config), consumer, n);
    }
    plan(producer, config, consumer, n, Some(first), key)
}

/// [`drive`] past the shortcuts: finds the pool and runs the call's plan
/// on it, with the cutoff `drive` made, else a new one for site `key`.
fn plan<P: Producer, C: Consumer<P::Item>>(
    producer: &P,
    config: &Config,
    consumer: &C,
    n: usize,
    cutoff: Option<Cutoff>,
    key: usize,
) -> C::Acc {
    with_pool(config, |pool, threads| {
        let cutoff = cutoff.unwrap_or_else(|| {
            if P::HEAVY && C::STOPS {
                Cutoff::fork_now(key, n)
            } else {
                Cutoff::new(key, n)
            }
        });
        let call = Call::new(threads, producer, config, consumer, n);
        run(pool, &call, config, cutoff)
    })
}

/// Runs `f` with the pool a call of `config` runs on and its thread
/// count: the iterator's own pool (`with_pool`), else the current one
/// (whose count is read without a virtual call); `None` and 1 inside a
/// task, where every call runs inline (and the global pool is not started
/// for it).
#[inline]
fn with_pool<R>(config: &Config, f: impl FnOnce(Option<&dyn ForkJoin>, usize) -> R) -> R {
    if crate::team::in_task() {
        return in_task(f);
    }
    match config.pool {
        Some(pool) => {
            // SAFETY: `ParallelIterator::with_pool` stored it, and the
            // iterator's type keeps it from outliving the pool (`Pooled`).
            let pool = unsafe { pool.0.as_ref() };
            f(Some(pool), pool.threads())
        }
        None => crate::pool::current::with_current_pool(|pool| f(Some(pool), pool.threads())),
    }
}

/// [`with_pool`] inside a task: on a thread of a pool that runs queued
/// work (a resident thread of a pool in rayon's model, or a thread of a
/// serving region), the call runs on that pool, through its region's joins
/// (its nest's `ForkJoin`); in any other task (a plain fork's, a caller's
/// region), inline.
#[cold]
#[inline(never)]
fn in_task<R>(f: impl FnOnce(Option<&dyn ForkJoin>, usize) -> R) -> R {
    Worker::with_current(|worker| match worker {
        Some(worker) if worker.takes_queued() => {
            let nest = worker.nest();
            f(Some(nest), nest.threads())
        }
        _ => f(None, 1),
    })
}

/// The cutoff's key for calls of this producer and consumer: the address
/// of their instance of `drive`.
#[inline]
fn site<P: Producer, C: Consumer<P::Item>>() -> usize {
    drive::<P, C> as fn(&P, &Config, &C) -> C::Acc as usize
}

/// Everything a call's threads share.
struct Call<'a, P, C, A> {
    producer: &'a P,
    consumer: &'a C,
    n: usize,
    used: usize,
    /// The static split of the `n` positions among the `used` threads.
    shares: Shares<usize>,
    blocks: Blocks,
    /// Set when a share panics: the others stop as at an early stop.
    halt: CachePadded<AtomicBool>,
    _acc: core::marker::PhantomData<fn() -> A>,
}

/// Runs `call` on `pool`, or alone on the caller if `None`, with the call
/// site's cutoff.
fn run<P: Producer, C: Consumer<P::Item>>(
    pool: Option<&dyn ForkJoin>,
    call: &Call<'_, P, C, C::Acc>,
    config: &Config,
    cutoff: Cutoff,
) -> C::Acc {
    let (n, used, blocks) = (call.n, call.used, call.blocks);
    // A boundless producer (`par_bridge`) hands out its items dynamically
    // by itself; static ranges let the walks skip its dead positions.
    let schedule = if C::STATIC_ONLY || P::BOUNDLESS || used == 1 {
        Schedule::Static
    } else {
        config.schedule
    };
    match schedule {
        Schedule::Dynamic { grain } => {
            match GrainClaims::new(n, grain.max(blocks.min).min(blocks.max), used) {
                Some(claims) => call.run_claims(
                    pool,
                    cutoff,
                    |counter, _| claims.claim(counter),
                    |c| c.min(n),
                ),
                None => call.run_static(pool, cutoff),
            }
        }
        Schedule::Guided { min } => match GuidedClaims::new(n, min.max(blocks.min), used) {
            Some(claims) => call.run_claims(
                pool,
                cutoff,
                |counter, cursor| claims.claim(counter, cursor),
                |c| claims.unclaimed_from(c),
            ),
            None => call.run_static(pool, cutoff),
        },
        _ => call.run_static(pool, cutoff),
    }
}

impl<'a, P: Producer, C: Consumer<P::Item>> Call<'a, P, C, C::Acc> {
    /// The call of `consumer` over the `n > 0` positions of `producer`, on
    /// a pool of `threads` (1: alone): `min(threads, n / min_len)` threads
    /// take part, at least 1.
    #[inline]
    fn new(threads: usize, producer: &'a P, config: &Config, consumer: &'a C, n: usize) -> Self {
        let used = if config.min_len <= 1 {
            // No division for the default `min_len` of 1.
            threads.min(n)
        } else {
            threads.min(n / config.min_len).max(1)
        };
        Call {
            producer,
            consumer,
            n,
            used,
            shares: Shares::new(n, used),
            blocks: Blocks::of::<P, C>(config),
            halt: CachePadded::new(AtomicBool::new(false)),
            _acc: core::marker::PhantomData,
        }
    }

    /// Forks the call on `pool`: slot 0 starts as `first` (the caller's
    /// record so far) and slot `t` as `untouched(t)`; each thread `t <
    /// used` runs `share(t, its record, the slots)`; after the join the
    /// slots combine in thread order.
    fn fork_slots(
        &self,
        pool: Option<&dyn ForkJoin>,
        first: Record<C::Acc>,
        untouched: impl Fn(usize) -> Record<C::Acc>,
        share: impl Fn(usize, Record<C::Acc>, &Slots<'_, Record<C::Acc>>) + Sync,
    ) -> C::Acc {
        let pool = pool.expect("a call with several threads has a pool");
        let slots: Slots<'_, Record<C::Acc>> = Slots::new(pool, self.used);
        // SAFETY: the slots are ours until the fork; each share takes its
        // own back.
        unsafe {
            slots.ptr(0).write(first);
            for thread in 1..self.used {
                slots.ptr(thread).write(untouched(thread));
            }
        }
        let collect = CollectGuard {
            call: self,
            slots: &slots,
        };
        pool.fork_join(&|thread, _| {
            if thread < self.used {
                // SAFETY: written above; each thread index runs once.
                share(thread, unsafe { slots.ptr(thread).read() }, &slots);
            }
        });
        collect.combine()
    }
}

/// The trusted shortcut (`serial_on_trust`) against the fork: the same
/// ranges and blocks, so the same bits, whichever way the pool is found.
#[cfg(test)]
mod tests {
    use super::consumer::Consumer;
    use super::{drive, serial_on_trust};
    use crate::par::cutoff::{set_override, Override};
    use crate::par::producer::{Producer, SliceProducer};
    use crate::par::settings::{Config, PoolRef};
    use crate::pool::ThreadPool;
    use crate::schedule::ForkJoin;
    use core::ptr::NonNull;
    use std::vec::Vec;

    /// A float sum shaped as `sum`'s consumer: each block summed on its own,
    /// then added to the partial (so the bits depend on the blocks).
    struct BlockSum;

    impl<'a> Consumer<&'a f32> for BlockSum {
        type Acc = f32;
        fn start(&self) -> f32 {
            -0.0
        }
        fn fold<I: Iterator<Item = &'a f32>>(&self, acc: f32, _first: usize, items: I) -> f32 {
            let block: f32 = items.sum();
            acc + block
        }
        fn combine(&self, left: f32, right: f32) -> f32 {
            left + right
        }
    }

    #[test]
    fn the_trusted_shortcut_folds_the_forks_blocks() {
        // 301 positions: uneven ranges on 3 threads (101, 100, 100).
        let data: Vec<f32> = (0..301).map(|i| (i as f32).sin() * 1e3).collect();
        let pool = ThreadPool::try_spawn(3).expect("a pool");
        // The pool as `with_pool` keeps it in the settings.
        let own: &(dyn ForkJoin + 'static) = &pool;
        let own = PoolRef(NonNull::from(own));
        for (max, min) in [(usize::MAX, 1), (7, 1), (usize::MAX, 5), (40, 3)] {
            // `data.par_iter().with_max_len(max).with_min_len(min)`: the
            // slice's producer and those settings.
            let products = || SliceProducer(&data[..]);
            let config = Config {
                max_len: max.max(1),
                min_len: min.max(1),
                ..Config::default()
            };
            let pooled = Config {
                pool: Some(own),
                ..config
            };
            let forked = {
                let before = set_override(Override::AlwaysFork);
                let forked = drive(&products(), &pooled, &BlockSum);
                set_override(before);
                forked
            };
            // The iterator's own pool (its count through the `ForkJoin` trait).
            let producer = products();
            let alone = serial_on_trust(&producer, &pooled, &BlockSum, producer.len());
            assert_eq!(alone.to_bits(), forked.to_bits(), "max {max} min {min}");
            // The installed pool (its count read directly).
            let installed = pool.install(|| {
                let producer = products();
                serial_on_trust(&producer, &config, &BlockSum, producer.len())
            });
            assert_eq!(installed.to_bits(), forked.to_bits(), "max {max} min {min}");
        }
    }
}
