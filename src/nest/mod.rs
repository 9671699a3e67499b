//! Nested fork-join on a pool's own threads: [`join`], [`join_context`] and
//! [`scope`], rayon's primitives, scheduled by demand-driven promotion
//! (after heartbeat scheduling: a fork point costs about a function call
//! until an idle thread asks for work).
//!
//! # Regions
//!
//! A call from outside a region takes the whole team with one fork
//! (`region.rs`): thread 0, the caller, runs the root closure; every other
//! thread of the team runs the idle loop until the root has finished. Each
//! thread of a region has a [`Worker`](worker::Worker) on its stack, which a
//! thread-local points to while the region runs; calls made inside find it
//! there. If the team is busy (a call from inside a plain fork's task, or
//! another caller's region), the root runs on the calling thread alone,
//! with a worker that has no slots: every `join` then runs both sides
//! inline.
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
//!    then, never later. In a pool of rayon's model, an empty slot counts
//!    as a request: there every join that finds its slot empty offers.
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
//!    spawned jobs and stealing promoted ones meanwhile (never parking).
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
//! - Waits for a latch or a scope never park: they run jobs, spin and yield,
//!   so no cycle of waiting threads can form, however deep the nesting.
//!   Only idle threads park, on the doorbell, with the Dekker handshake of
//!   `wait/` (a promotion and the end of the region ring it).
//!
//! # Files
//!
//! - `mod.rs`: [`Nest`] and [`Slot`].
//! - `job.rs`: jobs on the stack and on the heap, and the latch.
//! - `worker.rs`: a thread's worker: open joins, spawned jobs,
//!   promotion, stealing, waiting; `worker/zone.rs`: the linked zone, which
//!   joins record their job.
//! - `looks.rs`: how idle threads pace their looks for work.
//! - `region.rs`: entering a region; the idle loop; a pool's fork made from
//!   inside a region of its own team.
//! - `broadcast.rs`: a thread's mail, and the per-thread jobs sent
//!   through it (`broadcast` from a task, `Scope::spawn_broadcast`).
//! - `join.rs`, `scope.rs`, `yielding.rs`: one join, one scope and one
//!   yield on a region's worker; the public calls that find the worker of
//!   the current pool are in `pool/entry.rs`.
//! - `model.rs` (loom only): the promotion/claim/take-back/latch handshake
//!   as a loom model.

pub(crate) mod broadcast;
pub(crate) mod inject;
mod job;
pub(crate) mod join;
pub(crate) mod looks;
#[cfg(loom)]
pub mod model;
pub(crate) mod region;
pub(crate) mod scope;
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

use crate::sync::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use crate::wait::{Doorbell, Waiter};
use core::time::Duration;
use crossbeam_utils::CachePadded;
use inject::spawned::PanicHandler;
use inject::Injector;
use job::Header;
use std::boxed::Box;

/// One team thread's exchange point.
pub(crate) struct Slot {
    /// A promoted job others may take, or null. Written non-null only by
    /// the owner (Release); emptied by a compare-exchange (Acquire).
    shared: AtomicPtr<Header>,
    /// Set by a thread that found nothing to do: promote at the next join.
    wanted: AtomicBool,
    /// Jobs for the owner alone, newest first, or closed (`broadcast.rs`),
    /// on a line of its own: only posters and the owner touch it.
    mail: CachePadded<AtomicPtr<Header>>,
}

impl Slot {
    fn new() -> Self {
        Slot {
            shared: AtomicPtr::new(core::ptr::null_mut()),
            wanted: AtomicBool::new(false),
            mail: CachePadded::new(AtomicPtr::new(core::ptr::null_mut())),
        }
    }

    /// Whether the slot is empty (a hint: Relaxed).
    #[inline]
    fn is_empty(&self) -> bool {
        self.shared.load(Ordering::Relaxed).is_null()
    }

    /// The owner publishes `job`. Only while the slot is empty.
    #[inline]
    fn offer(&self, job: *const Header) {
        // Release: publishes the job's contents; pairs with the Acquire
        // compare-exchange in `claim`.
        self.shared.store(job.cast_mut(), Ordering::Release);
    }

    /// Takes the job in the slot, if any; the winner runs it.
    #[inline]
    fn claim(&self) -> Option<*const Header> {
        let job = self.shared.load(Ordering::Relaxed);
        if job.is_null() {
            return None;
        }
        // Acquire: pairs with the Release store in `offer`.
        let (won, lost) = (Ordering::Acquire, Ordering::Relaxed);
        let taken = self
            .shared
            .compare_exchange(job, core::ptr::null_mut(), won, lost);
        taken.ok().map(|job| job.cast_const())
    }

    /// The owner takes `job` back if no one claimed it; false if someone
    /// did (then its latch will be set).
    #[inline]
    fn take_back(&self, job: *const Header) -> bool {
        // Relaxed: on success no one else touched the job.
        self.shared
            .compare_exchange(
                job.cast_mut(),
                core::ptr::null_mut(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// Asks the owner to promote, unless already asked (no write then, so
    /// idle threads do not bounce the owner's line).
    #[inline]
    fn ask(&self) {
        if !self.wanted.load(Ordering::Relaxed) {
            self.wanted.store(true, Ordering::Relaxed);
        }
    }
}

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
    bell: Doorbell,
    waiter: Waiter,
    /// Calls handed over by callers that found the team busy, and
    /// spawned jobs (`inject.rs`).
    pub(crate) injector: Injector,
    /// How long a handed-over call waits to be taken before its caller
    /// takes it back and runs it itself (the pool's busy-wait bound).
    busy_wait: Duration,
    /// Where a spawned job's panic goes; none: the process aborts.
    panic_handler: Option<std::sync::Arc<PanicHandler>>,
    /// The pool is dropping: its serving thread leaves once the injector
    /// is empty.
    stopping: AtomicBool,
    /// Calls from outside the pool always go to its threads (rayon's
    /// model), never run on their caller as thread 0.
    pub(crate) hand_over_always: bool,
    /// The serving thread runs queued jobs itself (else it only holds the
    /// team for the region's other threads to run them).
    pub(crate) server_runs_jobs: bool,
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
            waiter,
            injector: Injector::new(),
            busy_wait: crate::team::DEFAULT_BUSY_WAIT,
            panic_handler: None,
            stopping: AtomicBool::new(false),
            hand_over_always: false,
            server_runs_jobs: true,
        }
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

    /// Whether some slot holds a job, or the injector holds one a thread of
    /// this region may take (any job for the serving thread's region, else
    /// a call; a hint: Relaxed loads).
    pub(crate) fn has_work(&self, serving: bool) -> bool {
        let queued = if serving {
            !self.injector.is_empty()
        } else {
            !self.injector.has_no_calls()
        };
        queued || self.has_offers()
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

    /// Rings every thread that may take injected work: the serving thread
    /// and the regions' idle threads. After a push.
    pub(crate) fn ring_injected(&self) {
        self.injector.serve_bell.ring();
        self.bell.ring();
    }

    /// The pool is dropping: the serving thread leaves once the injector
    /// is empty.
    pub(crate) fn stop_serving(&self) {
        // Release: pairs with the Acquire load in `is_stopping`.
        self.stopping.store(true, Ordering::Release);
        self.injector.serve_bell.ring();
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

    /// The doorbell on which the region's idle threads park (a promotion,
    /// a push to the injector, the end of a region and of the last running
    /// injected job ring it).
    pub(crate) fn bell(&self) -> &Doorbell {
        &self.bell
    }

    /// The pool's waiting policy.
    pub(crate) fn waiter(&self) -> &Waiter {
        &self.waiter
    }
}
