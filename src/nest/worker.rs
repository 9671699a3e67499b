//! A thread's worker inside a region: its open joins (owner-only, a chain
//! from the newest open join's job through each job's `prev`, so a join
//! records and drops its job with three stores and no branch), its spawned
//! jobs (an owner-only intrusive doubly linked list), promotion on demand,
//! stealing, and the waits that run jobs instead of sleeping.
//!
//! # Open joins
//!
//! A join opens by linking its job in front of the chain (`prev` = the
//! newest open join's job, then `newest_join` = its own) and closes by
//! putting its `prev` back, so the chain holds exactly this thread's open
//! linked joins' jobs (see the linked zone below), newest first. The
//! head's new value at an open is the job's own address, which comes from
//! the stack pointer, not from a load, so an open never waits on the
//! previous join's store. The close restores a loaded value, which the
//! next open loads back: one store-to-load chain through the linked joins.
//!
//! # The linked zone (`worker/zone.rs`)
//!
//! Only joins near the top of a thread's work link their job; the many
//! deeper joins of a recursion only check the request and run both sides
//! here, as the 1-thread join does. The zone's rule, and what it gives up,
//! are at the head of `zone.rs`.
//!
//! A pending job is an open join's job not yet promoted (its owner-only
//! flag); promotion offers the oldest one among the newest `WINDOW` open
//! linked joins, found by a walk that only promotions make. A join more than
//! `WINDOW` below the newest is not offered while the deeper ones are open
//! (its `b` may run inline); nothing else depends on the window.
//!
//! The file stays whole (a little over ~450 lines): every method here
//! reads or writes the worker's owner-only chain and list, whose
//! invariants are the ones stated above.

use super::job::{Header, Spawned};
use super::{Nest, Slot, SpawnOrder};
use core::cell::Cell;
use core::ptr;

mod wait;
mod zone;

pub(crate) use wait::Besides;

/// How many of the newest open joins a promotion looks at.
const WINDOW: usize = 64;

/// What a worker's thread is to its pool: which of its jobs it offers, and
/// which queued work (`inject.rs`) it takes. Chosen where the worker is
/// made, by the pool's edge (`pool/edge.rs`) and the region it enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Alone on its thread (the team was busy, or has one thread): no slot,
    /// every join inline.
    Alone,
    /// A thread of a caller's region (tine's model, the caller being
    /// thread 0): offers a join's job when asked, and takes no queued
    /// work, for the region's caller would then wait for another caller's.
    Caller,
    /// A thread of the serving thread's region (tine's model): offers when
    /// asked, and takes queued calls and spawned jobs, whose callers wait
    /// for their own job's flag alone.
    Serving,
    /// A thread of a pool in rayon's model, in the region it stays in for
    /// the pool's life (`pool/resident.rs`): offers the oldest pending job
    /// whenever its slot is empty, as rayon code counts on, and takes any
    /// queued work.
    Resident,
}

/// One thread's state in a region (or in a serial stand-in for one). Lives
/// on that thread's stack (a pool's builder thread's, on the heap:
/// `pool/adopted.rs`); the thread-local points to it meanwhile.
pub(crate) struct Worker {
    /// A real region (false: [`Role::Alone`]; no slots, joins inline).
    region: bool,
    /// [`Role::Resident`]: every join that finds the slot empty offers the
    /// oldest pending job at once (`join.rs`). Kept apart from `role` for
    /// the join's fast path.
    eager: bool,
    role: Role,
    /// `nest.slots[index]`, kept for the join's request check.
    slot: *const Slot,
    /// The newest open join's job, or null (see the module head).
    newest_join: Cell<*const Header>,
    /// Joins whose frame lies below this stack address (deeper) run
    /// unlinked. Set when the worker is entered and for each job it runs
    /// ([`Worker::run_anchored`]); within one, it only moves deeper.
    link_limit: Cell<usize>,
    nest: *const Nest,
    /// This thread's slot index.
    index: usize,
    /// Spawned jobs not yet run: newest and oldest, or null.
    newest: Cell<*const Spawned>,
    oldest: Cell<*const Spawned>,
}

/// The oldest pending job, found by [`Worker::oldest`].
#[derive(Clone, Copy)]
enum Oldest {
    /// An open join's job, not yet promoted.
    Join(*const Header),
    /// The oldest spawned job.
    Spawned(*const Spawned),
}

std::thread_local! {
    /// The worker of the region this thread runs in; null outside.
    static CURRENT: Cell<*const Worker> = const { Cell::new(ptr::null()) };
}

/// Puts the previous worker back when a region's share ends, unwinding
/// included.
pub(crate) struct Entered(*const Worker);

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.0));
    }
}

impl Worker {
    /// Thread `index`'s worker for `nest`, in `role`.
    pub(crate) fn new(nest: &Nest, index: usize, role: Role) -> Self {
        Worker {
            nest,
            index,
            slot: &*nest.slots[index],
            region: role != Role::Alone,
            eager: role == Role::Resident,
            role,
            newest_join: Cell::new(ptr::null()),
            link_limit: Cell::new(0),
            newest: Cell::new(ptr::null()),
            oldest: Cell::new(ptr::null()),
        }
    }

    /// Makes this the thread's current worker until the guard drops.
    pub(crate) fn enter(&self) -> Entered {
        self.anchor_zone_at(self as *const Self as usize);
        Entered(CURRENT.with(|current| current.replace(self)))
    }

    /// Hides this thread's current worker, if it belongs to a pool other
    /// than `nest`'s, until the guard drops: for an `install` of that other
    /// pool, so that every call inside it finds either no worker (and
    /// enters the installed pool) or a worker of the installed pool. That
    /// lets `join`'s fast path trust the worker with one thread-local read.
    #[inline]
    pub(crate) fn hide_unless_of(nest: &Nest) -> Option<Entered> {
        let current = CURRENT.with(Cell::get);
        // SAFETY: as in `with_current`.
        let foreign = unsafe { current.as_ref() }.is_some_and(|worker| !worker.belongs_to(nest));
        foreign.then(|| Entered(CURRENT.with(|current| current.replace(ptr::null()))))
    }

    /// Runs `f` with the current worker, if this thread runs in a region.
    /// The reference lives only for the call of `f`, which the worker
    /// outlives: it is entered by a frame that encloses every call this
    /// thread makes while it is current.
    #[inline]
    pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Worker>) -> R) -> R {
        let worker = CURRENT.with(Cell::get);
        // Sound because set only by `enter` (and `hide_unless_of`, which puts
        // back what it found), whose guard resets it before the worker's
        // frame ends; that frame encloses this call, so the worker is alive
        // for as long as `f` runs.
        // SAFETY: as argued just above.
        f(unsafe { worker.as_ref() })
    }

    #[inline]
    pub(crate) fn nest(&self) -> &Nest {
        // The nest outlives the region: the pool owns it and drops only
        // after its regions end, and the serving thread holds an `Arc` of
        // it (a pool dropped on one of its own threads leaves it alive
        // until that thread is done).
        // SAFETY: as just said.
        unsafe { &*self.nest }
    }

    /// Whether this worker runs a real region of `nest`'s pool.
    pub(crate) fn is_region_of(&self, nest: &Nest) -> bool {
        self.region && ptr::eq(self.nest, nest)
    }

    /// Whether this worker belongs to `nest`'s pool (region or serial).
    pub(crate) fn belongs_to(&self, nest: &Nest) -> bool {
        ptr::eq(self.nest, nest)
    }

    /// Whether joins may be promoted (a real region of several threads).
    #[inline]
    pub(crate) fn in_region(&self) -> bool {
        self.region
    }

    /// Whether this worker is [`Role::Resident`]: there a join that finds
    /// its slot empty offers the oldest pending job at once, as rayon's
    /// deque does, since rayon code may run a long loop in `a` and count on
    /// `b` being taken meanwhile.
    #[inline]
    pub(crate) fn eager(&self) -> bool {
        self.eager
    }

    /// Whether this worker's idle loop and waits take queued work (calls
    /// and spawned jobs) from the injector: a serving or resident thread.
    pub(crate) fn takes_queued(&self) -> bool {
        matches!(self.role, Role::Serving | Role::Resident)
    }

    #[inline]
    pub(super) fn slot(&self) -> &Slot {
        // SAFETY: the slot belongs to the nest, which outlives the worker.
        unsafe { &*self.slot }
    }

    /// This thread's index in the team.
    pub(super) fn index(&self) -> usize {
        self.index
    }

    /// Opens a join whose job is `job`: links it in front of the open
    /// joins.
    ///
    /// # Safety
    /// `job` is a stack job of this thread that stays alive, unmoved, until
    /// [`Worker::close`] closes it on this worker, and that close comes on
    /// every path out of the join, unwinding included.
    #[inline]
    pub(crate) unsafe fn open(&self, job: *const Header) {
        // SAFETY: the caller's job, alive by the contract; `prev` is
        // owner-only.
        unsafe { (*job).prev.set(self.newest_join.get()) };
        self.newest_join.set(job);
    }

    /// Closes the join whose job is `job`.
    ///
    /// # Safety
    /// `job` was opened on this worker and is the newest open join (every
    /// join opened after it has closed), still alive; closed once.
    #[inline]
    pub(crate) unsafe fn close(&self, job: *const Header) {
        debug_assert!(
            ptr::eq(self.newest_join.get(), job),
            "a join closes only as the newest open one"
        );
        // SAFETY: alive by the contract; `prev` is owner-only.
        self.newest_join.set(unsafe { (*job).prev.get() });
    }

    /// The oldest open join's job not yet promoted, among the newest
    /// `WINDOW` (see the module head).
    fn oldest_pending(&self) -> Option<*const Header> {
        let mut job = self.newest_join.get();
        let mut oldest = None;
        for _ in 0..WINDOW {
            // SAFETY: the chain holds open joins' jobs, alive in their
            // frames; `prev` and the flag are owner-only.
            let Some(open) = (unsafe { job.as_ref() }) else {
                break;
            };
            if !open.is_promoted() {
                oldest = Some(job);
            }
            job = open.prev.get();
        }
        oldest
    }

    /// Whether this thread has jobs of its own that no other thread has
    /// taken: spawned ones, an open join's unpromoted job, or its slot's.
    pub(crate) fn has_pending(&self) -> bool {
        !self.newest.get().is_null()
            || self.oldest_pending().is_some()
            || (self.region && !self.slot().is_empty())
    }

    /// Pushes `job` as the newest spawned job.
    pub(crate) fn push_spawned(&self, job: *const Spawned) {
        // SAFETY: listed spawned jobs are alive until run, and only this
        // thread touches their links.
        unsafe {
            (*job).prev.set(self.newest.get());
            (*job).next.set(ptr::null());
            match self.newest.get().as_ref() {
                Some(newest) => newest.next.set(job),
                None => self.oldest.set(job),
            }
        }
        self.newest.set(job);
    }

    /// Removes `job`, which is in the list of spawned jobs.
    fn unlink(&self, job: *const Spawned) {
        // SAFETY: as in `push_spawned`.
        unsafe {
            let (prev, next) = ((*job).prev.get(), (*job).next.get());
            match prev.as_ref() {
                Some(prev) => prev.next.set(next),
                None => self.oldest.set(next),
            }
            match next.as_ref() {
                Some(next) => next.prev.set(prev),
                None => self.newest.set(prev),
            }
        }
    }

    /// Removes and returns this thread's next spawned job: the newest, or
    /// the oldest where the pool says so (`Nest::spawn_order`).
    fn pop_spawned(&self) -> Option<*const Header> {
        let next = match self.nest().spawn_order() {
            SpawnOrder::NewestFirst => self.newest.get(),
            SpawnOrder::OldestFirst => self.oldest.get(),
        };
        if next.is_null() {
            return None;
        }
        self.unlink(next);
        Some(Spawned::header(next))
    }

    /// The job to offer: the oldest pending join's job, else the oldest
    /// spawned job.
    fn oldest(&self) -> Option<Oldest> {
        if let Some(job) = self.oldest_pending() {
            return Some(Oldest::Join(job));
        }
        let spawned = self.oldest.get();
        (!spawned.is_null()).then_some(Oldest::Spawned(spawned))
    }

    /// Takes `job` (from [`Worker::oldest`], nothing changed since) out of
    /// the pending jobs: marks a join's job promoted, unlinks a spawned
    /// one.
    fn take(&self, job: Oldest) -> *const Header {
        match job {
            Oldest::Join(job) => {
                // SAFETY: an open join's job, alive; owner-only flag.
                unsafe { (*job).mark_promoted() };
                job
            }
            Oldest::Spawned(job) => {
                self.unlink(job);
                Spawned::header(job)
            }
        }
    }

    /// Promotes the oldest pending job if an idle thread asked: one
    /// Relaxed load of this thread's own slot line on the fast path.
    #[inline]
    pub(crate) fn tick(&self) {
        if self.region {
            self.tick_in_region();
        }
    }

    /// [`Worker::tick`] for a worker known to run a real region.
    #[inline]
    pub(crate) fn tick_in_region(&self) {
        if self.slot().wanted.load(crate::sync::Ordering::Relaxed) {
            self.promote();
        }
    }

    #[cold]
    fn promote(&self) {
        // Nothing to give yet: keep the request for the next join.
        if let Some(oldest) = self.oldest() {
            self.answer(oldest);
        }
    }

    /// Answers a request with `oldest`, the oldest pending job: clears the
    /// request and offers the job, unless one already waits in the slot.
    fn answer(&self, oldest: Oldest) {
        // Acquire fence: with the Relaxed load of the request (`tick`,
        // `tick_deep`), pairs with the asker's fence before its request
        // (`Doorbell::wait`), so the ring below sees the asker's
        // announcement.
        crate::sync::fence(crate::sync::Ordering::Acquire);
        let slot = self.slot();
        slot.wanted.store(false, crate::sync::Ordering::Relaxed);
        // A job already waits in the slot: the asker can take that one.
        if !slot.is_empty() {
            return;
        }
        self.offer(oldest);
    }

    /// Moves `job`, the oldest pending job, into the empty slot and rings
    /// for parked idle threads.
    fn offer(&self, job: Oldest) {
        let job = self.take(job);
        self.slot().offer(job);
        // The doorbell's Dekker handshake (its fence, then the sleepers
        // count) pairs with a parker's announcement, fence and `has_work`.
        self.nest().ring_work();
    }

    /// Offers the oldest pending job at once if the slot is empty, whether
    /// or not a thread asked: for joins known to be coarse (a parallel
    /// sort's parts), where waiting for the next join to answer a request
    /// could leave idle threads waiting for a whole part. Clears no request:
    /// an asker finds the job anyway.
    pub(crate) fn offer_now(&self) {
        if self.region && self.slot().is_empty() {
            if let Some(oldest) = self.oldest() {
                self.offer(oldest);
            }
        }
    }

    /// Takes `job` back from this thread's slot; false if it was claimed.
    #[inline]
    pub(crate) fn take_back(&self, job: *const Header) -> bool {
        self.slot().take_back(job)
    }

    /// A job to run: this thread's newest spawned job, else a promoted one
    /// from any slot (this thread's own last).
    pub(crate) fn find_work(&self) -> Option<*const Header> {
        if let Some(job) = self.pop_spawned() {
            return Some(job);
        }
        if !self.region {
            return None;
        }
        if let Some(job) = self.slot().take_mail() {
            return Some(job);
        }
        let slots = &self.nest().slots;
        (1..=slots.len())
            .map(|step| &slots[(self.index + step) % slots.len()])
            .find_map(|slot| slot.claim())
    }

    /// A job of this thread's own to run: its newest spawned job, else the
    /// job in its slot.
    pub(crate) fn find_local_work(&self) -> Option<*const Header> {
        self.pop_spawned().or_else(|| {
            let slot = self.slot();
            self.region
                .then(|| slot.take_mail().or_else(|| slot.claim()))
                .flatten()
        })
    }

    /// Asks every other thread of the region to promote a job.
    pub(crate) fn ask_for_work(&self) {
        for (index, slot) in self.nest().slots.iter().enumerate() {
            if index != self.index {
                slot.ask();
            }
        }
    }

    /// Runs this thread's leftover spawned jobs and the job in its own
    /// slot, until there are none: before it leaves a region.
    pub(crate) fn drain(&self) {
        loop {
            match self.find_local_work() {
                // SAFETY: claimed (popped from our list, or won from our slot).
                Some(job) => unsafe { self.run_anchored(job) },
                None => return,
            }
        }
    }
}
