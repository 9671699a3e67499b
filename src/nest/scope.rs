//! [`Scope`] and [`Scope::spawn`]: tasks that borrow the caller's stack,
//! all finished before the scope call returns ([`scope_on`]; the public
//! `tine::scope` is in `pool/entry.rs`).

use super::inject::call::Wake;
use super::inject::links::End;
use super::inject::scoped::ScopedJob;
use super::inject::task::cell::{ScopeCalls, ScopeLink};
use super::inject::task::spawn_scoped;
use super::job::{run, HeapJob, Spawned};
use super::worker::{Besides, Worker};
use super::{Nest, SpawnOrder};
use crate::sync::{AtomicPtr, AtomicUsize, Ordering};
use crate::wait::SpinLock;
use core::marker::PhantomData;
use std::any::Any;
use std::boxed::Box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

mod fifo;

use fifo::Fifo;

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
    /// Of those, the ones queued on the pool's injector that no thread has
    /// started ([`Scope::queue`]): the scope's own wait takes them too.
    queued: AtomicUsize,
    /// Tasks `spawn_fifo` gave a thread of the pool, oldest first (see
    /// [`Scope::spawn_fifo`]).
    fifo: SpinLock<Fifo>,
    /// The first panic of a spawned task (a boxed payload), or null.
    panic: AtomicPtr<Payload>,
    /// The threads of the pool the scope runs on (`spawn_broadcast`'s).
    threads: usize,
    /// The pool whose threads run the tasks spawned from a thread that has
    /// no worker of it: the scope's body outside the pool, or a thread the
    /// body started ([`Scope::spawn`]).
    home: *const Nest,
    /// A scope whose body runs outside its pool's regions
    /// ([`scope_outside`]): its owner's thread, unparked by the last
    /// task, and how `spawn_broadcast` reaches each thread.
    outside: Option<Outside>,
    /// Invariant in `'scope`, and `Send + Sync`, as rayon's.
    marker: ScopeMarker<'scope>,
}

/// What a scope whose body runs outside its pool keeps for its tasks.
struct Outside {
    /// How the last task wakes the owner: its thread, parked, or (a thread
    /// of another pool's region, running that pool's work meanwhile) its
    /// pool's doorbell.
    wake: Wake,
    /// How `spawn_broadcast` reaches each thread of the pool.
    broadcasts: Broadcasts,
}

/// How a scope whose body runs outside its pool sends a task to each of
/// the pool's threads (`Scope::spawn_broadcast`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Broadcasts {
    /// To each thread's mail: the pool's threads stay in one region for the
    /// pool's life (rayon's model), so each reads its mail.
    ToMail,
    /// Queued as plain tasks, which any thread of the pool may run: a pool
    /// whose threads are in a region only while a call holds its team
    /// (tine's model).
    Queued,
}

// SAFETY: `home` is only read (its injector and slots are `Sync`), and the
// pool outlives the scope call, which returns only after every task; the
// rest is `Send + Sync` (`outside`'s thread handle included).
unsafe impl Send for Scope<'_> {}
// SAFETY: as above.
unsafe impl Sync for Scope<'_> {}

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
    let scope = Scope::new(worker.nest(), None);
    let result = catch_unwind(AssertUnwindSafe(|| op(&scope)));
    // Acquire: pairs with each task's Release decrement in `complete`,
    // so their writes (and a stored panic) are ours.
    let done = || scope.pending.load(Ordering::Acquire) == 0;
    worker.wait_until(
        done,
        Besides::TasksOf {
            owner: (&scope as *const Scope<'_>).cast(),
            queued: &scope.queued,
        },
    );
    scope.end(result)
}

/// Runs `op` with a new [`Scope`] on this thread, which is outside every
/// region of `nest`'s pool, and returns its result once every task
/// spawned in it has finished: the tasks run on the pool's threads (queued
/// on its injector, or as `broadcasts` says), and this thread parks until
/// the last one ends (rayon's `in_place_scope` from outside the pool).
pub(crate) fn scope_outside<'scope, OP, R>(nest: &Nest, broadcasts: Broadcasts, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    Worker::with_current(|current| {
        // A thread of another pool's region waits running that pool's work
        // (as a call handed to another pool does, `hand.rs`).
        let waiter = current.filter(|worker| worker.in_region());
        let wake = match waiter {
            Some(worker) => Wake::Bell(worker.nest().shared_waits()),
            None => Wake::this_thread(),
        };
        let scope = Scope::new(nest, Some(Outside { wake, broadcasts }));
        let result = catch_unwind(AssertUnwindSafe(|| op(&scope)));
        // Acquire: pairs with each task's Release decrement in `complete`;
        // the last one wakes this thread after it.
        let done = || scope.pending.load(Ordering::Acquire) == 0;
        match waiter {
            Some(worker) => worker.wait_until(done, Besides::Nothing),
            None => {
                while !done() {
                    std::thread::park();
                }
            }
        }
        scope.end(result)
    })
}

impl<'scope> Scope<'scope> {
    fn new(home: &Nest, outside: Option<Outside>) -> Self {
        Scope {
            pending: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            fifo: SpinLock::new(Fifo::default()),
            panic: AtomicPtr::new(core::ptr::null_mut()),
            threads: home.threads(),
            home,
            outside,
            marker: PhantomData,
        }
    }

    /// The scope's result once every task has finished: `op`'s panic,
    /// else the first task's, else `op`'s value.
    fn end<R>(&self, result: std::thread::Result<R>) -> R {
        let spawned = self.take_panic();
        match result {
            Err(payload) => resume_unwind(payload),
            Ok(value) => match spawned {
                Some(payload) => resume_unwind(payload),
                None => value,
            },
        }
    }

    /// The pool whose threads run this scope's tasks.
    pub(super) fn home(&self) -> &Nest {
        // SAFETY: the pool outlives the scope call (see `Send` above).
        unsafe { &*self.home }
    }

    /// How `spawn_broadcast` reaches the pool's threads from a thread with
    /// no worker of it: `None` for a scope whose body runs in a region.
    pub(super) fn broadcasts(&self) -> Option<Broadcasts> {
        self.outside.as_ref().map(|outside| outside.broadcasts)
    }

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
        self.spawn_at(body, SpawnOrder::NewestFirst);
    }

    /// As [`Scope::spawn`], but the tasks spawned this way start in the
    /// order spawned (rayon's `ScopeFifo::spawn_fifo`), where `spawn`'s
    /// newest starts first. As in rayon, each such spawn also takes a turn
    /// in the thread's own newest-first order: the thread runs the scope's
    /// oldest `spawn_fifo` task when it reaches that turn, so that `spawn`
    /// and `spawn_fifo`, and nested FIFO scopes, interleave as they do in
    /// rayon. On one thread, in order:
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
        self.spawn_at(body, SpawnOrder::OldestFirst);
    }

    /// Spawns `body`, to start before this thread's pending jobs
    /// (`NewestFirst`) or, among the scope's FIFO tasks, after them.
    fn spawn_at<BODY>(&self, body: BODY, order: SpawnOrder)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let task = self.task_body(body);
        Worker::with_current(|worker| match worker {
            Some(worker) if worker.belongs_to(self.home()) => {
                let job = HeapJob::into_raw(task);
                if order == SpawnOrder::OldestFirst {
                    // The task waits in the scope's queue; its turn in this
                    // thread's order runs the oldest task there.
                    self.fifo.with(|queue| queue.push(job));
                    let scope = ScopePtr(self);
                    worker.push_spawned(HeapJob::into_raw(move || {
                        // SAFETY: the task this turn runs is counted, so the
                        // scope is alive until it ends.
                        unsafe { (*scope.get()).run_oldest_fifo() }
                    }));
                } else {
                    worker.push_spawned(job);
                }
                worker.tick();
            }
            // A thread with no worker of the scope's pool (the body outside
            // the pool, or a thread it started): to the pool's threads.
            _ => self.queue(task),
        })
    }

    /// Starts `future` as a task of this scope, polled on the pool's
    /// threads (each poll queued on the pool, as a spawned job is, when the
    /// future is woken); it may borrow what the scope's closures may. The
    /// scope returns only once it has finished, as its closures do, and a
    /// panic in it resumes after the scope, as theirs does. Allocates the
    /// task on the heap, once.
    ///
    /// A future here may await things of any runtime that need no reactor
    /// of their own (channels, locks, other tasks); one that needs a
    /// reactor tine lacks (a timer, a socket of tokio's) must run on that
    /// runtime.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let total = AtomicU64::new(0);
    /// tine::scope(|s| {
    ///     for chunk in [1..=50u64, 51..=100] {
    ///         let total = &total;
    ///         s.spawn_future(async move {
    ///             total.fetch_add(chunk.sum(), Ordering::Relaxed);
    ///         });
    ///     }
    /// });
    /// assert_eq!(total.into_inner(), 5050);
    /// ```
    pub fn spawn_future<F>(&self, future: F)
    where
        F: core::future::Future<Output = ()> + Send + 'scope,
    {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let link = ScopeLink {
            scope: (self as *const Self).cast(),
            calls: &Self::TASK_CALLS,
        };
        // SAFETY: the scope waits for its pending count, which this task's
        // `ended` call takes down, and `'scope` outlives the scope.
        unsafe { spawn_scoped(link, self.home().arc(), future) };
    }

    /// What a `spawn_future` task tells its scope (`inject/task.rs`). Each
    /// takes the scope as a `ScopeLink` erased it; the lifetime does not
    /// matter to these calls, which touch only counts and the panic.
    const TASK_CALLS: ScopeCalls = ScopeCalls {
        queued: |scope| {
            // SAFETY: a live scope, by `ScopeCalls`' contract.
            unsafe { (*scope.cast::<Scope<'_>>()).queued_one() }
        },
        started: |scope| {
            // SAFETY: as `queued`'s.
            unsafe { (*scope.cast::<Scope<'_>>()).started_queued() }
        },
        ended: |scope, panic| {
            // SAFETY: alive until this call, by `ScopeCalls`' contract.
            unsafe { Scope::complete(scope.cast::<Scope<'_>>(), panic) }
        },
    };

    /// A task of this scope counted as queued on the pool (`spawn_future`'s
    /// polls): the scope's own wait takes such tasks too.
    fn queued_one(&self) {
        // Relaxed: as in `queue`.
        self.queued.fetch_add(1, Ordering::Relaxed);
    }

    /// A task counted by [`Scope::queued_one`] has been popped to run.
    fn started_queued(&self) {
        // Relaxed: as in `queue`.
        self.queued.fetch_sub(1, Ordering::Relaxed);
    }

    /// A `spawn_fifo` turn: runs the scope's oldest FIFO task. There is one
    /// task for each turn, so one is always there.
    fn run_oldest_fifo(&self) {
        if let Some(job) = self.fifo.with(Fifo::pop) {
            // SAFETY: taken out of the queue: ours alone to run; it frees
            // itself.
            unsafe { run(Spawned::header(job)) };
        }
    }

    /// Queues `task` on the scope's pool, whose threads take it as they
    /// take spawned jobs, and the scope's own wait too.
    pub(super) fn queue(&self, task: impl FnOnce() + Send + 'scope) {
        let home = self.home();
        // Relaxed: a hint for the scope's wait (`Besides::TasksOf`); the
        // task is published by the queue's lock.
        self.queued.fetch_add(1, Ordering::Relaxed);
        let scope = ScopePtr(self);
        let started = move || {
            let this = scope.get();
            // SAFETY: the scope waits for this task, which is alive until
            // its `complete`.
            let queued = unsafe { &(*this).queued };
            // Relaxed: as above.
            queued.fetch_sub(1, Ordering::Relaxed);
            task();
        };
        let job = ScopedJob::into_raw(started, (self as *const Self).cast());
        // SAFETY: a boxed job, alive until its runner frees it.
        unsafe { home.injector.push(job, End::Back) };
        home.ring_injected_all();
    }

    /// `body` as a task of this scope, counted: a heap job that runs it,
    /// keeps its panic, and counts the scope down as its last touch.
    pub(super) fn task<BODY>(&self, body: BODY) -> *const Spawned
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        HeapJob::into_raw(self.task_body(body))
    }

    /// `body` as the closure of a task of this scope, counted from now:
    /// it runs `body`, keeps its panic, and counts the scope down as its
    /// last touch.
    pub(super) fn task_body<BODY>(&self, body: BODY) -> impl FnOnce() + Send + 'scope
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let scope = ScopePtr(self);
        move || {
            let this = scope.get();
            // SAFETY: the scope waits for this task's decrement, so it is
            // alive until `complete` below.
            let result = catch_unwind(AssertUnwindSafe(|| body(unsafe { &*this })));
            // SAFETY: as above; our last touch of the scope.
            unsafe { Scope::complete(this, result.err()) };
        }
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
        // Our own handle on an outside scope's owner, which may free the
        // scope as soon as the count reaches zero.
        // SAFETY: alive by the contract; this reference ends here.
        let owner = unsafe { (*this).outside.as_ref() }.map(|outside| outside.wake.clone());
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
        let left = unsafe { (*pending).fetch_sub(1, Ordering::Release) };
        if left == 1 {
            if let Some(owner) = owner {
                owner.wake();
            }
        }
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
