//! Jobs: a join's second closure in the joiner's frame ([`StackJob`]), a
//! scope's spawned closure on the heap ([`HeapJob`]), both behind a
//! [`Header`] that the chain of open joins, the slots and the runners
//! see.
//!
//! A runner reaches a job only through a raw `*const Header`, and the
//! functions it calls with it take raw pointers, never references: the
//! joiner frees a stack job's frame as soon as it sees the latch, which must
//! therefore be the very last access, with no reference argument into the
//! frame still live in the runner's call stack.

use crate::sync::{AtomicBool, Ordering, UnsafeCell};
use core::cell::Cell;
use core::mem::{ManuallyDrop, MaybeUninit};
use std::boxed::Box;

/// What every job starts with (`repr(C)`: a job's address is its header's).
#[repr(C)]
pub(crate) struct Header {
    /// Runs the job on a thread that claimed it; never unwinds.
    execute: unsafe fn(*const Header),
    /// Set (Release) by the runner of a claimed stack job as its last touch.
    latch: AtomicBool,
    /// The owner moved it into its slot (owner-only).
    promoted: Cell<bool>,
    /// A join's job: the next older open join's job on the owner's
    /// thread, or null (owner-only; `worker.rs`).
    pub(super) prev: Cell<*const Header>,
}

impl Header {
    fn new(execute: unsafe fn(*const Header)) -> Self {
        Header {
            execute,
            latch: AtomicBool::new(false),
            promoted: Cell::new(false),
            prev: Cell::new(core::ptr::null()),
        }
    }

    /// Whether the owner promoted it (owner-only).
    #[inline]
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
/// `job` was claimed (from a slot or its owner's spawned list) by this
/// thread, so no one else runs it, and it is still alive (a stack job's joiner
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
    // Sound because alive until the store lands (the contract). The store takes
    // a `&AtomicBool` for its call, and the joiner may free the frame as
    // soon as it sees the store, before that call returns: the argument
    // std's `Arc::drop` relies on for its `fetch_sub`. A reference to a
    // value in an `UnsafeCell` (an atomic) does not promise that its
    // memory stays allocated for the whole call (rustc gives it no
    // `dereferenceable` attribute), so only the store itself needs the
    // memory, and the store happens before the joiner can see it. Nothing
    // after the store touches the job.
    // SAFETY: as argued just above.
    unsafe { (*latch).store(true, Ordering::Release) };
}

/// Where a join's B ran: what `join_context` reports as `migrated`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Ran {
    /// On the joiner's thread.
    Inline,
    /// On the thread that claimed it.
    Stolen,
}

/// A join's B: the closure and the room for a runner's result, in the
/// joiner's frame. `F` receives where it runs ([`Ran`]). The closure is taken exactly once (by the joiner, or by the
/// thread that claimed the job), and the result is written only by such a
/// thread, so neither needs a flag or drop glue: a join's fast path neither
/// tests nor clears them.
#[repr(C)]
pub(crate) struct StackJob<F, R> {
    header: Header,
    func: UnsafeCell<ManuallyDrop<F>>,
    result: UnsafeCell<MaybeUninit<std::thread::Result<R>>>,
}

impl<F: FnOnce(Ran) -> R, R> StackJob<F, R> {
    /// A job for `func`; it must not move once its header is published.
    #[inline]
    pub(crate) fn new(func: F) -> Self {
        StackJob {
            header: Header::new(Self::execute),
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// The header, for the chain of open joins and the slot. Derived from the
    /// whole job (`repr(C)`, header first), so a runner may reach the other
    /// fields through it.
    #[inline]
    pub(crate) fn header(&self) -> *const Header {
        (self as *const Self).cast::<Header>()
    }

    /// Runs the closure on the joiner's own thread.
    ///
    /// # Safety
    /// The job was never claimed by another thread (never promoted, or
    /// taken back), and its closure was not taken before: call once.
    #[inline]
    pub(crate) unsafe fn run_inline(&self) -> R {
        let func = self.func.with_mut(|func| {
            // SAFETY: by the contract, the closure is still here, no runner
            // touches the job, and it is taken once.
            unsafe { ManuallyDrop::take(&mut *func) }
        });
        func(Ran::Inline)
    }

    /// The result the runner left.
    ///
    /// # Safety
    /// The latch was seen set (`Header::probe`), and the result was not
    /// taken before: call once.
    pub(crate) unsafe fn take_result(&self) -> std::thread::Result<R> {
        self.result.with_mut(|result| {
            // SAFETY: the latch's Acquire ordered the runner's write before
            // this; the runner no longer touches the job; read once.
            unsafe { (*result).assume_init_read() }
        })
    }

    /// The runner's side: call the closure, store its result or panic, set
    /// the latch.
    ///
    /// # Safety
    /// As [`run`]: `this` is the header of a live `StackJob<F, R>` that this
    /// thread claimed.
    unsafe fn execute(this: *const Header) {
        let job = this.cast::<Self>();
        // Claimed, so ours until the latch, and its closure is still there
        // (the joiner takes it only if no one claimed the job); the fields
        // are reached through the raw pointer, with no reference outliving
        // the statement.
        // SAFETY: as just said.
        let func = unsafe { (*job).func.with_mut(|func| ManuallyDrop::take(&mut *func)) };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| func(Ran::Stolen)));
        // SAFETY: as above.
        unsafe { (*job).result.with_mut(|slot| (*slot).write(result)) };
        // SAFETY: the last touch, through the raw header pointer.
        unsafe { set_latch(this) };
    }
}

/// A spawned job's header and its links in its owner's list of spawned
/// jobs (owner-only, while it is in the list; `repr(C)`, header first).
#[repr(C)]
pub(crate) struct Spawned {
    header: Header,
    pub(super) prev: Cell<*const Spawned>,
    pub(super) next: Cell<*const Spawned>,
}

impl Spawned {
    /// The header of the spawned job at `this`.
    pub(super) fn header(this: *const Spawned) -> *const Header {
        this.cast()
    }
}

/// A spawned job: boxed, freed by whoever runs it (before the closure runs).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    spawned: Spawned,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Boxes `func`; the pointer is a job that frees itself when run. `func`
    /// must not unwind.
    pub(crate) fn into_raw(func: F) -> *const Spawned {
        let job = Box::new(HeapJob {
            spawned: Spawned {
                header: Header::new(Self::execute),
                prev: Cell::new(core::ptr::null()),
                next: Cell::new(core::ptr::null()),
            },
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
