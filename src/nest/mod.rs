//! Nested fork-join on a pool's own threads: [`join`], [`join_context`] and
//! [`scope`], rayon's primitives, scheduled by demand-driven promotion
//! (after heartbeat scheduling: a fork point costs about a function call
//! until an idle thread asks for work).
//!
//! # Regions
//!
//! Each thread of a region has a [`Worker`](worker::Worker) on its stack,
//! which a thread-local points to while the region runs; calls made inside
//! find it there. Which region a call enters, and how, is the pool's edge's
//! choice (`pool/edge.rs`), by the pool's model:
//!
//! - in tine's, a call from outside a region takes the whole team with one
//!   fork (`region.rs`): thread 0, the caller, runs the root closure; every
//!   other thread of the team runs the idle loop until the root has
//!   finished. If the team is busy, the call is handed to the pool's
//!   serving thread (`hand.rs`), whose region runs queued work; from inside
//!   a plain fork's task, the root runs on the calling thread alone
//!   (`alone.rs`), with a worker that has no slots: every `join` then runs
//!   both sides inline;
//! - in rayon's, the pool's threads stay in one region for the pool's life
//!   (`pool/resident.rs`), and every call from outside is handed to them.
//!
//! What a thread does with the work of other callers is its worker's
//! [`Role`](worker::Role): a caller's region takes none (its caller would
//! wait for it), the serving thread's region and a resident thread take
//! any.
//!
//! # State (per pool, allocated when the pool is built: [`Nest`])
//!
//! One cache-padded [`Slot`] per team thread: `shared` (a promoted job
//! others may take, or null), `wanted` (an idle thread asks the owner to
//! promote), and on a line of its own `mail` (jobs for the owner alone:
//! `broadcast.rs`). Beside them, `done` (the region's root has finished,
//! and the region's count) and a [`Doorbell`] on which idle threads park.
//!
//! # One join (`join.rs`)
//!
//! 0. A join whose frame lies deeper in the stack than its worker's linked
//!    zone (`worker/zone.rs`), as nearly every join of a recursion does, only
//!    loads its own `wanted` (Relaxed) and runs A, then B, on this thread,
//!    as the 1-thread join does. If `wanted` is set, it promotes the oldest
//!    pending job as in step 2; if the slot is empty and no linked join is
//!    pending, it moves the zone deeper and goes on as a linked join from
//!    step 1, so that its own B is the job promoted. Its B is offered only
//!    then, never later. On a resident worker (rayon's model), an empty
//!    slot counts as a request: there every join that finds its slot empty
//!    offers.
//! 1. The joiner puts B in a job on its own stack frame and links it in
//!    front of its worker's chain of open joins (owner-only, no atomics:
//!    three stores, see `worker.rs`).
//! 2. It loads its own `wanted` (Relaxed). If set, it promotes the OLDEST
//!    pending job (an open join's job not yet promoted, among its 64
//!    newest open linked joins, else the oldest spawned one): marks it and
//!    stores it in its `shared` slot (Release), then rings the doorbell.
//!    Open joins come before spawned jobs, however old: at a join's own
//!    check its just-opened job is pending, so a spawned job is offered
//!    only from the waits (`scope`'s, a latch's) and from `spawn` itself,
//!    which run their own spawned jobs meanwhile.
//! 3. It runs A, with a guard armed that finishes B (step 4) if A unwinds;
//!    no `catch_unwind` on the fast path.
//! 4. It closes the join (unlinks its job). If B was never promoted,
//!    it runs B inline. If it was, it tries to take it back: a
//!    compare-exchange of `shared` from B to null. If that fails, a thief
//!    claimed B, and the joiner waits for B's latch, running its own
//!    spawned jobs and stealing promoted ones meanwhile, then parking
//!    until a ring (`worker/wait.rs`).
//! 5. A's panic, else B's, resumes once both sides have finished (B's own
//!    panic is dropped while A's unwinds; B run inline unwinds directly).
//!
//! # Invariants
//!
//! - Only a slot's owner stores a non-null job in it, and only when it is
//!   null; thieves (and the owner) take a job out with a compare-exchange
//!   to null (Acquire, pairing with the promotion's Release store), so every
//!   promoted job is run exactly once, by whoever wins the exchange.
//! - A stack job stays in its joiner's frame until the joiner has taken it
//!   back or seen its latch (Acquire, pairing with the runner's Release
//!   store). The latch store is the runner's last touch of the job, made
//!   through a raw pointer from a function holding no reference into the
//!   job, so the joiner may free the frame the moment it sees it.
//! - A worker's chain holds exactly its open linked joins' jobs, newest
//!   first (an unlinked join touches neither the chain nor a job): a
//!   join links its job in front when it opens and puts the previous head
//!   back when it closes, after every join opened inside it has closed.
//!   Promotion takes only a job in the chain, only if unmarked, and marks
//!   it: no job is offered twice, and none after its join closed.
//! - The take-back compare-exchange fails exactly when B was claimed: the
//!   slot is filled only when empty, a job is offered at most once, and no
//!   other live job shares B's address, so B is in the slot until a thief
//!   claims it (whatever the slot holds afterwards, an outer join's job or
//!   a spawned one, is not B).
//! - Spawned jobs (`scope.rs`) are boxed; a scope counts them and waits for
//!   the count to reach zero (Acquire, pairing with each job's Release
//!   decrement, its last touch of the scope). A thread drains its own
//!   pending spawned jobs and its own slot before it leaves a region, so
//!   every slot is null when a region ends.
//! - `done` is reset before the region's fork is published (the team's
//!   Release/Acquire generation orders it) and set by thread 0 (Release,
//!   pairing with the idle loop's Acquire) only after the root and its
//!   leftover jobs have finished. Idle threads leave only on `done`, so the
//!   team's join ends the region.
//! - A request (`wanted`) is cleared only by a promotion or when the slot
//!   already holds a job. An idle thread asks before it spins and again
//!   once announced on the doorbell, after its fence; the promoter's
//!   Acquire fence pairs with that fence, so the promotion answering the
//!   request sees the announcement and rings. So a parked idle thread
//!   always has a request outstanding, even when the job that answered its
//!   previous one was taken back before it looked. A region starts with
//!   thread 0 already asked (`region.rs`, `reset`), on behalf of the idle
//!   threads its fork starts: a request that no thread made only offers a
//!   job early.
//! - Waits for a latch or a scope run jobs, spin, and then park on the
//!   doorbell, with the Dekker handshake of `wait/`; every event they wait
//!   for rings it after it happens (a job's end, an offer, a post, a push,
//!   the end of the region: `worker/wait.rs`), so no wait sleeps through
//!   its end and no cycle of parked waits can form. Idle threads park on
//!   it too.
//!
//! # Files
//!
//! - `mod.rs`: [`Nest`]; `slot.rs`: a thread's exchange point.
//! - `job.rs`: jobs on the stack and on the heap, and the latch.
//! - `worker.rs`: a thread's worker: its role, open joins, spawned jobs,
//!   promotion, stealing; `worker/zone.rs`: the linked zone, which joins
//!   record their job; `worker/wait.rs`: the waits that run jobs and then
//!   park.
//! - `looks.rs`: how idle threads pace their looks for work.
//! - `region.rs`: entering a region in tine's model, and its idle loop;
//!   `alone.rs`: a root alone on its thread; `hand.rs`: a call handed to a
//!   pool's threads, and the forks that go that way.
//! - `broadcast.rs`: a thread's mail, and the per-thread jobs sent
//!   through it (`broadcast` from a task, `Scope::spawn_broadcast`).
//! - `join.rs`, `scope.rs`, `yielding.rs`: one join, one scope and one
//!   yield on a region's worker; the public calls that find the worker of
//!   the current pool are in `pool/entry.rs`.
//! - `model.rs` (loom only): the promotion/claim/take-back/latch handshake
//!   as a loom model.

pub(crate) mod alone;
pub(crate) mod broadcast;
pub(crate) mod hand;
pub(crate) mod inject;
mod job;
pub(crate) mod join;
pub(crate) mod looks;
#[cfg(loom)]
pub mod model;
pub(crate) mod region;
pub(crate) mod scope;
mod slot;
pub(crate) mod stop;
pub(crate) mod worker;
pub(crate) mod yielding;

pub use broadcast::BroadcastContext;
pub use join::FnContext;
pub use scope::Scope;
pub use yielding::Yield;

/// Hides this thread's region worker while `nest`'s pool is installed, if
/// the worker belongs to another pool; the guard puts it back.
#[inline]
pub(crate) fn hide_worker_unless_of(nest: &Nest) -> Option<impl Drop> {
    worker::Worker::hide_unless_of(nest)
}

use crate::schedule::{ForkJoin, Partials};
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use crate::team::Share;
use crate::wait::{Doorbell, Waiter};
use core::time::Duration;
use crossbeam_utils::CachePadded;
use inject::spawned::PanicHandler;
use inject::Injector;
use slot::Slot;
use std::boxed::Box;
use std::sync::{Arc, Weak};

/// The end of the current region, and which region it is.
struct Ending {
    /// The region's root has finished (see the invariants).
    flag: AtomicBool,
    /// Regions entered so far (wrapping), written by the thread that
    /// holds the team as it enters one: what a closed mail names
    /// (`broadcast.rs`).
    epoch: AtomicUsize,
}

/// A pool's nested-parallelism state, built with the pool.
pub(crate) struct Nest {
    slots: Box<[CachePadded<Slot>]>,
    /// The region's end flag and its count, on the line idle threads poll.
    done: CachePadded<Ending>,
    /// Where idle threads park: rung by new work (an offer, a post, a
    /// push, the end of a region).
    bell: Doorbell,
    /// Where waits park (`worker/wait.rs`): rung by new work, and by the
    /// end of any job a thread of the pool runs; shared with the calls
    /// this pool's threads hand to other pools, whose runners ring it when
    /// done (`inject/call.rs`).
    waits: Arc<Doorbell>,
    waiter: Waiter,
    /// Calls handed over by callers that found the team busy, and
    /// spawned jobs (`inject.rs`).
    pub(crate) injector: Injector,
    /// How long a handed-over call waits to be taken before its caller
    /// takes it back and runs it itself (the pool's busy-wait bound).
    busy_wait: Duration,
    /// Where a spawned job's panic goes; none: the process aborts.
    panic_handler: Option<std::sync::Arc<PanicHandler>>,
    /// The pool is dropping: its serving or resident threads leave once
    /// the injector is empty.
    stopping: AtomicBool,
    /// Which of a thread's own spawned jobs it runs first.
    spawn_order: SpawnOrder,
    /// The `Arc` this nest lives in, for the tasks that keep it alive
    /// (`inject/task.rs`): empty for a nest built outside one.
    myself: Weak<Nest>,
    /// Slots for the partial results of parallel-iterator calls on the
    /// pool, whichever way they reach it (its handle, or a task on one of
    /// its threads: see the `ForkJoin` impl below).
    partials: Partials,
}

/// Which spawned job a thread of a pool runs first among those spawned
/// from inside the pool: rayon's per-thread order, or its `breadth_first`
/// ([`Builder::spawn_order`](crate::pool::Builder::spawn_order)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpawnOrder {
    /// The newest first (LIFO), as rayon's threads pop their own deque:
    /// the job whose data is likeliest still in the cache.
    #[default]
    NewestFirst,
    /// The oldest first (FIFO), as rayon's deprecated `breadth_first`.
    OldestFirst,
}

impl core::fmt::Debug for Nest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Nest")
            .field("threads", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl Nest {
    /// The state for a team of `threads` threads whose idle threads wait
    /// by `waiter`.
    pub(crate) fn new(threads: usize, waiter: Waiter) -> Self {
        Nest {
            slots: (0..threads)
                .map(|_| CachePadded::new(Slot::new()))
                .collect(),
            done: CachePadded::new(Ending {
                flag: AtomicBool::new(false),
                epoch: AtomicUsize::new(0),
            }),
            bell: Doorbell::new(),
            waits: Arc::new(Doorbell::new()),
            waiter,
            injector: Injector::new(),
            busy_wait: crate::team::DEFAULT_BUSY_WAIT,
            panic_handler: None,
            stopping: AtomicBool::new(false),
            spawn_order: SpawnOrder::NewestFirst,
            myself: Weak::new(),
            partials: Partials::new(threads),
        }
    }

    /// This nest in an `Arc`, which [`Nest::arc`] can hand out.
    pub(crate) fn into_arc(self) -> Arc<Nest> {
        Arc::new_cyclic(move |myself| Nest {
            myself: myself.clone(),
            ..self
        })
    }

    /// A new reference to the `Arc` this nest lives in.
    ///
    /// # Panics
    /// If the nest was not made by [`Nest::into_arc`] (every pool's is).
    pub(crate) fn arc(&self) -> Arc<Nest> {
        self.myself
            .upgrade()
            .expect("a pool's nest lives in the Arc that made it")
    }

    /// Sets which spawned job a thread runs first.
    pub(crate) fn set_spawn_order(&mut self, order: SpawnOrder) {
        self.spawn_order = order;
    }

    /// Which spawned job a thread runs first.
    pub(crate) fn spawn_order(&self) -> SpawnOrder {
        self.spawn_order
    }

    /// Sets how long a handed-over call waits to be taken (see
    /// [`Nest::busy_wait`]).
    pub(crate) fn set_busy_wait(&mut self, limit: Duration) {
        self.busy_wait = limit;
        self.injector.set_busy_wait(limit);
    }

    /// Sets how long a handed-over call may wait behind newer ones
    /// (`inject/order.rs`; `None`: scaled by the calls' run time).
    pub(crate) fn set_call_patience(&mut self, patience: Option<Duration>) {
        self.injector.set_call_patience(patience);
    }

    /// Sets where spawned jobs' panics go.
    pub(crate) fn set_panic_handler(&mut self, handler: Option<std::sync::Arc<PanicHandler>>) {
        self.panic_handler = handler;
    }

    /// Whether some slot holds a job, or (`queued`: for a thread that takes
    /// queued work) the injector holds one (a hint: Relaxed loads).
    pub(crate) fn has_work(&self, queued: bool) -> bool {
        (queued && !self.injector.is_empty()) || self.has_offers()
    }

    /// Whether some slot holds a job (a hint: Relaxed loads).
    pub(crate) fn has_offers(&self) -> bool {
        self.slots.iter().any(|slot| !slot.is_empty())
    }

    /// A spawned job panicked: to the panic handler, else abort, as rayon
    /// does (a detached job has no caller to resume on).
    pub(crate) fn spawned_panicked(&self, payload: Box<dyn core::any::Any + Send>) {
        match &self.panic_handler {
            Some(handler) => {
                // A panicking handler aborts, as rayon's does.
                let handled =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(payload)));
                if handled.is_err() {
                    std::process::abort();
                }
            }
            None => std::process::abort(),
        }
    }

    /// Rings every parked thread of the pool, idle or waiting: for work any
    /// may take (an offer, a post to a thread's mail, the end of a region,
    /// the pool's stop).
    pub(crate) fn ring_work(&self) {
        self.bell.ring();
        self.waits.ring();
    }

    /// A spawned job (or an awaited task) has ended: counted off, and, once
    /// the pool is dropped, its idle threads rung, which may now leave
    /// (`pool/resident.rs`, `pool/serve.rs`).
    pub(crate) fn spawned_done(&self) {
        self.injector.spawned_done();
        if self.is_stopping() {
            self.injector.serve_bell.ring();
            self.ring_work();
        }
    }

    /// Rings the parked waits: a job one of them may be waiting for has
    /// ended (its latch or count is set).
    #[inline]
    pub(crate) fn ring_done(&self) {
        self.waits.ring();
    }

    /// Rings the threads that may take injected work after a push of a job
    /// any of them may run (a call, a detached job): the serving thread,
    /// and one parked thread of the pool, an idle one if there is one
    /// (resident threads and a serving thread's region take queued work; a
    /// caller's region, which takes none, holds the team only while no
    /// serving region does, and the serving thread's own bell rings for
    /// it), else a wait, which takes queued work once it has spun.
    pub(crate) fn ring_injected(&self) {
        self.injector.serve_bell.ring();
        if !self.bell.ring_one() {
            self.waits.ring_one();
        }
    }

    /// [`Nest::ring_injected`] for a scope's task, which the scope's own
    /// wait may be parked for, besides the threads that take queued work:
    /// every parked thread.
    pub(crate) fn ring_injected_all(&self) {
        self.injector.serve_bell.ring();
        self.ring_work();
    }

    /// The pool is dropping: its serving or resident threads leave once
    /// the injector is empty.
    pub(crate) fn stop_serving(&self) {
        // Release: pairs with the Acquire load in `is_stopping`.
        self.stopping.store(true, Ordering::Release);
        self.injector.serve_bell.ring();
        self.ring_work();
    }

    /// Whether [`Nest::stop_serving`] was called.
    pub(crate) fn is_stopping(&self) -> bool {
        // Acquire: pairs with the Release store in `stop_serving`.
        self.stopping.load(Ordering::Acquire)
    }

    /// The current region's count: read by threads in the region, which
    /// the fork's generation ordered after its write (`reset`).
    pub(crate) fn epoch(&self) -> usize {
        // Relaxed: as just said.
        self.done.epoch.load(Ordering::Relaxed)
    }

    /// The number of threads of the team.
    pub(crate) fn threads(&self) -> usize {
        self.slots.len()
    }

    /// The doorbell on which idle threads park (see [`Nest::ring_work`]).
    pub(crate) fn bell(&self) -> &Doorbell {
        &self.bell
    }

    /// The doorbell on which waits park (see [`Nest::ring_done`]).
    pub(crate) fn waits(&self) -> &Doorbell {
        &self.waits
    }

    /// The waits' doorbell, shared: for a call handed to another pool,
    /// whose runner rings it (`inject/call.rs`).
    pub(crate) fn shared_waits(&self) -> Arc<Doorbell> {
        Arc::clone(&self.waits)
    }

    /// The pool's slots for partial results.
    pub(crate) fn partials(&self) -> &Partials {
        &self.partials
    }

    /// The pool's waiting policy.
    pub(crate) fn waiter(&self) -> &Waiter {
        &self.waiter
    }
}

// SAFETY: `fork_join` runs the share once per index of `0..threads()`
// (through the current region's joins, which run every index once and
// return only when all have, unwinding included; else inline, in order),
// as the contract asks.
unsafe impl ForkJoin for Nest {
    /// The pool's thread count.
    fn threads(&self) -> usize {
        self.slots.len()
    }

    /// A fork of the pool from one of its own threads that takes queued
    /// work (a resident thread, a thread of the serving region): a
    /// parallel call made inside a task the pool runs, which runs on the
    /// pool through the region's joins, as a busy pool's fork does
    /// (`hand.rs`); on any other thread, every share inline, in order.
    fn fork_join(&self, share: &Share<'_>) {
        hand::fork_in_region(self, share);
    }

    fn partials(&self) -> Option<&Partials> {
        Some(&self.partials)
    }
}
