//! Jobs: a join's second closure in the joiner's frame ([`StackJob`]), a
//! scope's spawned closure on the heap ([`HeapJob`]), both behind a
//! [`Header`] that the pending lists, the slots and the runners see.
//!
//! A runner reaches a job only through a raw `*const Header`, and the
//! functions it calls with it take raw pointers, never references: the
//! joiner frees a stack job's frame as soon as it sees the latch, which must
//! therefore be the very last access, with no reference argument into the
//! frame still live in the runner's call stack.

use crate::sync::{AtomicBool, Ordering, UnsafeCell};
use core::cell::Cell;
use std::boxed::Box;

/// What every job starts with (`repr(C)`: a job's address is its header's).
#[repr(C)]
pub(crate) struct Header {
    /// Runs the job on a thread that claimed it; never unwinds.
    execute: unsafe fn(*const Header),
    /// Set (Release) by the runner of a claimed stack job as its last touch.
    latch: AtomicBool,
    /// A spawned job: nobody waits for it by address.
    heap: bool,
    /// The owner moved it into its slot (owner-only).
    promoted: Cell<bool>,
    /// The owner's pending list (owner-only, while the job is in it).
    pub(super) prev: Cell<*const Header>,
    pub(super) next: Cell<*const Header>,
}

impl Header {
    fn new(execute: unsafe fn(*const Header), heap: bool) -> Self {
        Header {
            execute,
            latch: AtomicBool::new(false),
            heap,
            promoted: Cell::new(false),
            prev: Cell::new(core::ptr::null()),
            next: Cell::new(core::ptr::null()),
        }
    }

    /// Whether this is a spawned (heap) job.
    pub(super) fn is_heap(&self) -> bool {
        self.heap
    }

    /// Whether the owner promoted it (owner-only).
    pub(super) fn is_promoted(&self) -> bool {
        self.promoted.get()
    }

    /// Marks it promoted (owner-only, before it is offered).
    pub(super) fn mark_promoted(&self) {
        self.promoted.set(true);
    }

    /// Whether a runner has finished it.
    #[inline]
    pub(super) fn probe(&self) -> bool {
        // Acquire: pairs with the Release store in `set_latch`, so the
        // runner's result is ours.
        self.latch.load(Ordering::Acquire)
    }
}

/// Runs a claimed job.
///
/// # Safety
/// `job` was claimed (from a slot or the owner's own list) by this thread,
/// so no one else runs it, and it is still alive (a stack job's joiner
/// waits for its latch; a heap job frees itself).
pub(super) unsafe fn run(job: *const Header) {
    // SAFETY: alive by the caller's contract; `execute` was written before
    // the job was published and never changes.
    unsafe { ((*job).execute)(job) }
}

/// Sets a stack job's latch: the runner's last touch of the job.
///
/// # Safety
/// `job` is alive until this store lands; the caller holds no reference
/// into the job's frame.
unsafe fn set_latch(job: *const Header) {
    // SAFETY: by the contract; the field is reached through the raw pointer.
    let latch = unsafe { core::ptr::addr_of!((*job).latch) };
    // Release: pairs with the Acquire load in `Header::probe`.
    // SAFETY: as above; an atomic, so a shared reference is fine here.
    unsafe { (*latch).store(true, Ordering::Release) };
}

/// A join's B: the closure and the slot for its result, in the joiner's
/// frame. `F` receives whether it runs on a thread other than the joiner's.
#[repr(C)]
pub(crate) struct StackJob<F, R> {
    header: Header,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
}

impl<F: FnOnce(bool) -> R, R> StackJob<F, R> {
    /// A job for `func`; it must not move once its header is published.
    pub(crate) fn new(func: F) -> Self {
        StackJob {
            header: Header::new(Self::execute, false),
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
        }
    }

    /// The header, for the pending list and the slot. Derived from the
    /// whole job (`repr(C)`, header first), so a runner may reach the other
    /// fields through it.
    pub(crate) fn header(&self) -> *const Header {
        (self as *const Self).cast::<Header>()
    }

    /// Runs the closure on the joiner's own thread (never promoted, or
    /// taken back). Returns `None` if it already ran (never, by the
    /// protocol).
    pub(crate) fn run_inline(&self) -> Option<R> {
        // SAFETY: the joiner owns the job again: no runner touches it.
        let func = self.func.with_mut(|func| unsafe { (*func).take() })?;
        Some(func(false))
    }

    /// The result a runner left, once the latch is seen.
    pub(crate) fn take_result(&self) -> Option<std::thread::Result<R>> {
        // SAFETY: the latch's Acquire ordered the runner's write before this,
        // and the runner no longer touches the job.
        self.result.with_mut(|result| unsafe { (*result).take() })
    }

    /// The runner's side: call the closure, store its result or panic, set
    /// the latch.
    ///
    /// # Safety
    /// As [`run`]: `this` is the header of a live `StackJob<F, R>` that this
    /// thread claimed.
    unsafe fn execute(this: *const Header) {
        let job = this.cast::<Self>();
        // SAFETY: claimed, so ours until the latch; the fields are reached
        // through the raw pointer, with no reference outliving this block.
        let func = unsafe { (*job).func.with_mut(|func| (*func).take()) };
        if let Some(func) = func {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| func(true)));
            // SAFETY: as above.
            unsafe { (*job).result.with_mut(|slot| *slot = Some(result)) };
        }
        // SAFETY: the last touch, through the raw header pointer.
        unsafe { set_latch(this) };
    }
}

/// A spawned job: boxed, freed by whoever runs it (before the closure runs).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: Header,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Boxes `func`; the pointer is a job that frees itself when run. `func`
    /// must not unwind.
    pub(crate) fn into_raw(func: F) -> *const Header {
        let job = Box::new(HeapJob {
            header: Header::new(Self::execute, true),
            func,
        });
        Box::into_raw(job).cast_const().cast()
    }

    /// # Safety
    /// As [`run`]: `this` came from [`HeapJob::into_raw`] for this `F` and
    /// this thread claimed it.
    unsafe fn execute(this: *const Header) {
        // SAFETY: made by `into_raw` with the same type; claimed once.
        let job = unsafe { Box::from_raw(this.cast::<Self>().cast_mut()) };
        let HeapJob { func, .. } = *job;
        func();
    }
}
