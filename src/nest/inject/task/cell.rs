//! A task's cell and its scheduling: the one allocation of a task
//! (`task.rs`), the states a wake and a poll move it through, its waker,
//! and the references that keep it alive.
//!
//! # Scheduling (`state`)
//!
//! - `SCHEDULED`: in the queue, which holds a reference; a thread that
//!   pops it sets `RUNNING` and polls.
//! - `RUNNING`: being polled. A wake meanwhile sets `WOKEN`.
//! - After a poll that returns `Pending`: `RUNNING` becomes `IDLE` (the
//!   run's reference is let go; wakers hold the others), or, from `WOKEN`,
//!   `SCHEDULED` again, queued with the run's reference.
//! - `IDLE`: a wake sets `SCHEDULED` (compare-exchange, so one wake queues
//!   it once), takes a reference for the queue and pushes it.
//! - `DONE`: the future finished (or panicked) and was dropped; wakes do
//!   nothing.
//!
//! Only the thread that popped the task touches the future, and the queue's
//! lock orders one run's writes before the next run's reads; the exchange
//! of `RUNNING` for `IDLE` (Release) pairs with the wake's exchange of
//! `IDLE` for `SCHEDULED` (Acquire), which happens before the push. A
//! wake's exchange also releases, so what the waker wrote before it
//! happens before the re-poll: the poll's failed exchange that finds
//! `WOKEN` acquires it (as for a wake before the push, through the queue).

use super::super::super::worker::Worker;
use super::super::header::{Injected, Kind};
use super::super::links::End;
use super::handoff::Handoff;
use crate::nest::Nest;
use crate::sync::{AtomicU8, AtomicUsize, Ordering, UnsafeCell};
use core::future::Future;
use core::mem::ManuallyDrop;
use core::pin::Pin;
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::boxed::Box;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Not queued, not running: a pending future waiting for a wake.
const IDLE: u8 = 0;
/// In the queue (which holds a reference).
const SCHEDULED: u8 = 1;
/// Being polled.
const RUNNING: u8 = 2;
/// Woken while being polled: queued again after the poll.
const WOKEN: u8 = 3;
/// Finished; the future is dropped.
const DONE: u8 = 4;

/// Where a task's end goes.
pub(super) enum Ending<T> {
    /// To a [`Task`] handle, through the hand-off; counted as spawned work
    /// of the pool until then.
    Awaited(Handoff<T>),
    /// To a scope, which counts it and waits for it.
    Scoped(ScopeLink),
}

/// The scope that a scoped task reports to, seen from the task: the task
/// is below the scope (`scope.rs` makes the link), so it calls the scope
/// through these functions rather than by name.
#[derive(Clone, Copy)]
pub(crate) struct ScopeLink {
    /// The scope, its lifetime erased: it waits for the task, and once the
    /// future has finished (and been dropped) the cell touches neither the
    /// scope nor what the future borrowed.
    pub(crate) scope: *const (),
    /// What the task tells it.
    pub(crate) calls: &'static ScopeCalls,
}

/// The calls of a [`ScopeLink`]. Each takes the link's `scope`, alive
/// until the task's end has been told (the scope waits for it).
pub(crate) struct ScopeCalls {
    /// The task was queued on the pool (the scope's wait may take it).
    pub(crate) queued: unsafe fn(*const ()),
    /// The task was popped from the queue to run.
    pub(crate) started: unsafe fn(*const ()),
    /// The task ended, with its panic if any: the last touch of the scope.
    pub(crate) ended: unsafe fn(*const (), Option<Box<dyn core::any::Any + Send>>),
}

/// The part of a task's cell that does not depend on its future's type
/// (`repr(C)`: the header first, so that the queue's job is the cell).
#[repr(C)]
pub(crate) struct Shared<T> {
    header: Injected,
    /// References: the handle, each waker, and the queue or the run.
    refs: AtomicUsize,
    state: AtomicU8,
    pub(super) home: Arc<Nest>,
    /// Frees the whole cell (its future's type known).
    free: unsafe fn(*const Shared<T>),
    pub(super) ending: Ending<T>,
}

/// A task's whole cell: the shared part and its future, which only the
/// thread that popped the task touches (see the module head).
#[repr(C)]
pub(super) struct Cell<T, F> {
    shared: Shared<T>,
    future: UnsafeCell<Option<F>>,
}

// SAFETY: the future (`Send`) is touched by one thread at a time, as the
// module head argues; the rest is atomics, the lock, an `Arc` of a `Sync`
// nest, and a scope pointer that the scope keeps alive (it waits for the
// task). A result of `T: Send` crosses threads through the hand-off.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T: Send, F: Future<Output = T> + Send> Cell<T, F> {
    /// A task of `home`'s pool for `future`, ending as `ending` says,
    /// queued (its references: the queue's, and `refs` more).
    pub(super) fn spawn(
        home: Arc<Nest>,
        future: F,
        ending: Ending<T>,
        owner: *const (),
        refs: usize,
    ) -> *const Shared<T> {
        let cell = Box::new(Cell {
            shared: Shared {
                header: Injected::owned(Self::execute, Kind::Task, owner),
                refs: AtomicUsize::new(refs + 1),
                state: AtomicU8::new(SCHEDULED),
                home,
                free: Self::free,
                ending,
            },
            future: UnsafeCell::new(Some(future)),
        });
        let cell: *const Shared<T> = Box::into_raw(cell).cast_const().cast();
        // SAFETY: new, alive until the last reference lets go; queued with
        // the queue's reference.
        unsafe { queue(cell) };
        cell
    }

    /// Frees the cell.
    ///
    /// # Safety
    /// `this` came from [`Cell::spawn`] for these types, and no reference
    /// to it is left.
    unsafe fn free(this: *const Shared<T>) {
        // SAFETY: by the contract.
        let cell = unsafe { Box::from_raw(this.cast::<Cell<T, F>>().cast_mut()) };
        // Relaxed: the last reference's AcqRel decrement ordered every
        // other use before this.
        let unfinished = cell.shared.state.load(Ordering::Relaxed) != DONE;
        if unfinished {
            // A pending future no waker can wake any more: dropped first
            // (it may borrow from its scope, which may return as soon as it
            // is told), then its count or its scope is settled as an end.
            // A panic of its drop is dropped: the settling reports the loss.
            drop(catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: no reference is left, so no run touches it.
                cell.future.with_mut(|future| unsafe { *future = None });
            })));
            cell.shared.settle_unfinished();
        }
        drop(cell);
    }

    /// The queue's job: one poll (see the module head).
    ///
    /// # Safety
    /// As [`run`](super::run): `this` is the header of a live cell of these
    /// types, popped by this thread with the queue's reference.
    unsafe fn execute(this: *const Injected, _worker: &Worker) {
        let cell = this.cast::<Cell<T, F>>();
        // SAFETY: alive: the run holds the queue's reference.
        let shared = unsafe { &(*cell).shared };
        // Relaxed: popped from the queue, whose lock ordered the push (and
        // the state store before it) before this.
        shared.state.store(RUNNING, Ordering::Relaxed);
        if let Ending::Scoped(link) = shared.ending {
            // SAFETY: the scope waits for this task.
            unsafe { (link.calls.started)(link.scope) };
        }
        // The run's reference stands for this waker: no count for it.
        let waker = ManuallyDrop::new(
            // SAFETY: the vtable's functions take a cell of these types.
            unsafe { Waker::from_raw(RawWaker::new(cell.cast(), &Self::VTABLE)) },
        );
        let mut context = Context::from_waker(&waker);
        // SAFETY: alive, as above.
        let future = unsafe { &(*cell).future };
        #[cfg(not(loom))]
        let started = std::time::Instant::now();
        let polled = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: only this thread touches the future now (RUNNING),
            // and the cell never moves (boxed): it is pinned.
            future.with_mut(|future| unsafe {
                match &mut *future {
                    Some(future) => Pin::new_unchecked(future).poll(&mut context),
                    None => unreachable!("a finished task is never queued"),
                }
            })
        }));
        // For an awaiter's yielding wait (`call_time.rs`); the run's
        // reference keeps the cell alive.
        #[cfg(not(loom))]
        shared.home.injector.note_task(started.elapsed());
        let result = match polled {
            Ok(Poll::Pending) => {
                match shared.state.compare_exchange(
                    RUNNING,
                    IDLE,
                    // AcqRel: its Release pairs with a wake's Acquire (the
                    // poll's writes happen before the next run).
                    Ordering::AcqRel,
                    // Acquire: pairs with the Release of the wake that set
                    // WOKEN (the waker's writes happen before the re-poll).
                    Ordering::Acquire,
                ) {
                    // SAFETY: the run's reference, let go once.
                    Ok(_) => unsafe { release::<T>(cell.cast()) },
                    Err(_) => {
                        // Woken meanwhile: queued again, with the run's
                        // reference as the queue's.
                        // Relaxed: published by the queue's lock.
                        shared.state.store(SCHEDULED, Ordering::Relaxed);
                        // SAFETY: alive (the reference just handed over).
                        unsafe { queue::<T>(cell.cast()) };
                    }
                }
                return;
            }
            Ok(Poll::Ready(value)) => Ok(value),
            Err(payload) => Err(payload),
        };
        // Dropped here, on the pool's thread, before the end is told.
        // SAFETY: still ours alone (RUNNING).
        future.with_mut(|future| unsafe { *future = None });
        // Release: pairs with the Acquire of a late wake, which then does
        // nothing.
        shared.state.store(DONE, Ordering::Release);
        shared.end(result);
        // SAFETY: the run's reference, let go once.
        unsafe { release::<T>(cell.cast()) };
    }

    const VTABLE: RawWakerVTable = RawWakerVTable::new(
        Self::clone_waker,
        Self::wake,
        Self::wake_by_ref,
        Self::drop_waker,
    );

    /// # Safety
    /// `this` is a live cell of these types, on whose reference the waker
    /// stands (so for every function of the vtable).
    unsafe fn clone_waker(this: *const ()) -> RawWaker {
        // SAFETY: alive by the contract.
        let shared = unsafe { &*this.cast::<Shared<T>>() };
        // Relaxed: a new reference made from a live one.
        shared.refs.fetch_add(1, Ordering::Relaxed);
        RawWaker::new(this, &Self::VTABLE)
    }

    unsafe fn wake(this: *const ()) {
        // SAFETY: as `clone_waker`'s.
        unsafe { Self::wake_by_ref(this) };
        // SAFETY: the waker's reference, let go once (`wake` consumes it).
        unsafe { release::<T>(this.cast()) };
    }

    unsafe fn wake_by_ref(this: *const ()) {
        // SAFETY: as `clone_waker`'s.
        unsafe { schedule(this.cast::<Shared<T>>()) };
    }

    unsafe fn drop_waker(this: *const ()) {
        // SAFETY: the waker's reference, let go once.
        unsafe { release(this.cast::<Shared<T>>()) };
    }
}

impl<T> Shared<T> {
    /// The future finished: the end goes to the handle (or the panic
    /// handler) or to the scope.
    fn end(&self, result: std::thread::Result<T>) {
        match &self.ending {
            Ending::Awaited(handoff) => {
                if let Some(Err(payload)) = handoff.end(result) {
                    self.home.spawned_panicked(payload);
                }
                self.home.spawned_done();
            }
            Ending::Scoped(link) => {
                // SAFETY: the scope waits for this task's count, so it is
                // alive until this call's last touch of it.
                unsafe { (link.calls.ended)(link.scope, result.err()) };
            }
        }
    }

    /// The cell is freed before its future finished (no waker left to wake
    /// it): an awaited task's count ends; a scope is told, with a panic, so
    /// that it does not wait for the task forever.
    fn settle_unfinished(&self) {
        match &self.ending {
            Ending::Awaited(_) => self.home.spawned_done(),
            Ending::Scoped(link) => {
                let payload: Box<dyn core::any::Any + Send> = Box::new(
                    "a future spawned in a tine scope was dropped unfinished: no waker was kept to wake it",
                );
                // SAFETY: as in `end`.
                unsafe { (link.calls.ended)(link.scope, Some(payload)) };
            }
        }
    }
}

/// Queues the task: pushes its header and rings the pool's threads.
///
/// # Safety
/// `this` is a live cell in state `SCHEDULED`, and the caller hands the
/// queue one reference.
unsafe fn queue<T>(this: *const Shared<T>) {
    // SAFETY: alive by the contract.
    let shared = unsafe { &*this };
    // What the ring needs is read from the cell before the push, the
    // queue's last touch of it: once pushed, the task may run on another
    // thread and the cell be freed. `home` points into the nest's own
    // allocation, which outlives the ring whoever calls: a wake's waker
    // reference keeps the cell (and its `Arc`) alive; a spawn's caller
    // holds the pool, or borrows it through the scope; a re-queue runs
    // on a thread of this nest, which holds it.
    let home: &Nest = &shared.home;
    let scoped = match shared.ending {
        Ending::Scoped(link) => {
            // SAFETY: the scope waits for this task.
            unsafe { (link.calls.queued)(link.scope) };
            true
        }
        Ending::Awaited(_) => false,
    };
    // SAFETY: the header is in no list (the task is not queued: SCHEDULED
    // was just set by this thread), alive while the queue's reference is.
    unsafe { home.injector.push(this.cast(), End::Back) };
    if scoped {
        // The scope's own wait may be parked for it too.
        home.ring_injected_all();
    } else {
        home.ring_injected();
    }
}

/// A wake: queues the task if it waits for one (see the module head).
///
/// # Safety
/// `this` is a live cell, on whose reference the caller stands.
unsafe fn schedule<T>(this: *const Shared<T>) {
    // SAFETY: alive by the contract.
    let shared = unsafe { &*this };
    // Acquire: pairs with the Release exchange of the last poll.
    let mut state = shared.state.load(Ordering::Acquire);
    loop {
        let next = match state {
            IDLE => SCHEDULED,
            RUNNING => WOKEN,
            // Queued, woken already, or finished.
            _ => return,
        };
        let exchanged = shared.state.compare_exchange(
            state,
            next,
            // AcqRel: Acquire pairs with the Release exchange of the last
            // poll; Release with the poll's failed exchange that sees WOKEN.
            Ordering::AcqRel,
            // Acquire: pairs with the last poll's Release, for the state
            // read instead.
            Ordering::Acquire,
        );
        match exchanged {
            Ok(_) if next == SCHEDULED => {
                // Relaxed: a new reference for the queue, made from the
                // caller's live one.
                shared.refs.fetch_add(1, Ordering::Relaxed);
                // SAFETY: SCHEDULED by this thread, with the queue's
                // reference just taken.
                unsafe { queue(this) };
                return;
            }
            Ok(_) => return,
            Err(now) => state = now,
        }
    }
}

/// Lets go of one reference; the last frees the cell.
///
/// # Safety
/// `this` is a live cell and the caller holds one reference, which it
/// gives up (it touches the cell no more).
pub(super) unsafe fn release<T>(this: *const Shared<T>) {
    // SAFETY: alive until this decrement lands; reached through the raw
    // pointer, as a reference to an atomic would promise its memory for
    // the whole call (the argument of std's `Arc::drop`).
    let refs = unsafe { core::ptr::addr_of!((*this).refs) };
    // AcqRel: each holder's uses happen before the last one frees the cell
    // (Release by the others, Acquire by the last).
    // SAFETY: as argued just above.
    if unsafe { (*refs).fetch_sub(1, Ordering::AcqRel) } == 1 {
        // SAFETY: the last reference: nobody touches the cell any more.
        unsafe { ((*this).free)(this) };
    }
}
