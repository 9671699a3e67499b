//! [`Scope`] and [`Scope::spawn`]: tasks that borrow the caller's stack,
//! all finished before the scope call returns ([`scope_on`]; the public
//! `tine::scope` is in `pool/entry.rs`).

use super::job::{run, HeapJob, Spawned};
use super::worker::Worker;
use crate::sync::{AtomicPtr, AtomicUsize, Ordering};
use core::marker::PhantomData;
use std::any::Any;
use std::boxed::Box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

type Payload = Box<dyn Any + Send + 'static>;

/// What a scope's marker stands for: invariant in `'scope`, `Send + Sync`.
type ScopeMarker<'scope> = PhantomData<Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>>;

/// The tasks of one [`scope`](crate::pool::entry::scope) call: spawn more with [`Scope::spawn`].
///
/// Like rayon's, a scope's tasks may borrow anything that outlives the
/// `scope` call (`'scope`), and the call returns only once every task,
/// including tasks spawned by tasks, has finished.
pub struct Scope<'scope> {
    /// Spawned tasks not yet finished: incremented on spawn (Relaxed),
    /// decremented by each task as its last touch of the scope (Release,
    /// pairing with the Acquire load of the scope's wait).
    pending: AtomicUsize,
    /// The first panic of a spawned task (a boxed payload), or null.
    panic: AtomicPtr<Payload>,
    /// The threads of the pool the scope runs on (`spawn_broadcast`'s).
    threads: usize,
    /// Invariant in `'scope`, and `Send + Sync`, as rayon's.
    marker: ScopeMarker<'scope>,
}

impl core::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scope")
            .field("pending", &self.pending.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// A scope's address, sent to a task on another thread.
struct ScopePtr<'scope>(*const Scope<'scope>);

// SAFETY: a `Scope` is `Sync`, and the scope waits for every task that
// holds one of these before it ends.
unsafe impl Send for ScopePtr<'_> {}

impl<'scope> ScopePtr<'scope> {
    fn get(&self) -> *const Scope<'scope> {
        self.0
    }
}

/// Runs `op` with a new [`Scope`] on `worker` (this thread's), and
/// returns its result once every task spawned in it has finished: the
/// body of `tine::scope` (`pool/entry.rs`). A panic in `op` or in any task
/// resumes here after every task has finished (`op`'s first, else the
/// first task's).
pub(crate) fn scope_on<'scope, OP, R>(worker: &Worker, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let scope = Scope {
        pending: AtomicUsize::new(0),
        panic: AtomicPtr::new(core::ptr::null_mut()),
        threads: worker.nest().threads(),
        marker: PhantomData,
    };
    let result = catch_unwind(AssertUnwindSafe(|| op(&scope)));
    // Acquire: pairs with each task's Release decrement in `complete`,
    // so their writes (and a stored panic) are ours.
    worker.wait_until(|| scope.pending.load(Ordering::Acquire) == 0);
    let spawned = scope.take_panic();
    match result {
        Err(payload) => resume_unwind(payload),
        Ok(value) => match spawned {
            Some(payload) => resume_unwind(payload),
            None => value,
        },
    }
}

impl<'scope> Scope<'scope> {
    /// Starts `body` as a task of this scope; it gets the scope, to spawn
    /// more. It runs on this thread or on an idle one of the pool, before
    /// the [`scope`](crate::pool::entry::scope) call returns. Allocates the task on the heap.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let count = AtomicUsize::new(0);
    /// tine::scope(|s| {
    ///     s.spawn(|s| {
    ///         s.spawn(|_| {
    ///             count.fetch_add(1, Ordering::Relaxed);
    ///         });
    ///         count.fetch_add(1, Ordering::Relaxed);
    ///     });
    /// });
    /// assert_eq!(count.into_inner(), 2);
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_at(body, false);
    }

    /// As [`Scope::spawn`], but the tasks this thread spawns this way start
    /// in the order spawned (rayon's `ScopeFifo::spawn_fifo`), where
    /// `spawn`'s newest starts first. On one thread, in order:
    ///
    /// ```
    /// let pool = tine::spawn_pool(1);
    /// let order = std::sync::Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     for i in 0..4 {
    ///         let order = &order;
    ///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_at(body, true);
    }

    /// Spawns `body`, at the newest end of this thread's pending jobs, or
    /// at the oldest (`fifo`).
    fn spawn_at<BODY>(&self, body: BODY, fifo: bool)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let job = self.task(body);
        Worker::with_current(|worker| match worker {
            Some(worker) => {
                if fifo {
                    worker.push_spawned_oldest(job);
                } else {
                    worker.push_spawned(job);
                }
                worker.tick();
            }
            // A thread outside any region (say, one the caller started):
            // the task runs here and now.
            // SAFETY: ours alone: never published.
            None => unsafe { run(Spawned::header(job)) },
        })
    }

    /// `body` as a task of this scope, counted: a heap job that runs it,
    /// keeps its panic, and counts the scope down as its last touch.
    pub(super) fn task<BODY>(&self, body: BODY) -> *const Spawned
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let scope = ScopePtr(self);
        HeapJob::into_raw(move || {
            let this = scope.get();
            // SAFETY: the scope waits for this task's decrement, so it is
            // alive until `complete` below.
            let result = catch_unwind(AssertUnwindSafe(|| body(unsafe { &*this })));
            // SAFETY: as above; our last touch of the scope.
            unsafe { Scope::complete(this, result.err()) };
        })
    }

    /// The threads of the pool this scope runs on.
    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// A task's end: keeps its panic if it is the first, then counts down.
    ///
    /// # Safety
    /// `this` is alive until the decrement (the scope waits for it); no
    /// reference into it is held by the caller.
    unsafe fn complete(this: *const Self, panic: Option<Payload>) {
        if let Some(payload) = panic {
            // SAFETY: alive by the contract; this reference ends here.
            unsafe { (*this).keep_panic(payload) };
        }
        // SAFETY: as above; the field is reached through the raw pointer.
        let pending = unsafe { core::ptr::addr_of!((*this).pending) };
        // Release: pairs with the Acquire load in `scope`'s wait.
        // Sound because alive until the decrement lands (the contract). The
        // scope may end as soon as it sees the count reach zero, before
        // `fetch_sub` returns: the argument std's `Arc::drop` relies on. A
        // reference to a value in an `UnsafeCell` (an atomic) does not
        // promise that its memory stays allocated for the whole call
        // (rustc gives it no `dereferenceable` attribute), so only the
        // decrement itself needs the memory. Nothing after it touches the
        // scope.
        // SAFETY: as argued just above.
        unsafe { (*pending).fetch_sub(1, Ordering::Release) };
    }

    fn keep_panic(&self, payload: Payload) {
        let boxed = Box::into_raw(Box::new(payload));
        // Relaxed: the task's Release decrement publishes it.
        let kept = self.panic.compare_exchange(
            core::ptr::null_mut(),
            boxed,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
        if kept.is_err() {
            // SAFETY: not stored: still ours.
            crate::team::panic::drop_payload(*unsafe { Box::from_raw(boxed) });
        }
    }

    fn take_panic(&self) -> Option<Payload> {
        let kept = self.panic.swap(core::ptr::null_mut(), Ordering::Relaxed);
        // SAFETY: stored by `keep_panic` from `Box::into_raw`, taken once.
        (!kept.is_null()).then(|| *unsafe { Box::from_raw(kept) })
    }
}
