//! rayon-core 1.13's API on tine's fork-join engine, so that one `[patch]`
//! line puts the real `rayon`, and every crate built on it, onto tine:
//!
//! ```toml
//! [patch.crates-io]
//! rayon-core = { path = "../tine/rayon-core" }   # or git = "..."
//! ```
//!
//! This crate is a face, not a scheduler: every call goes to tine's own
//! engine (`tine::join`, `tine::scope`, the pool's threads). Its pools are
//! built in rayon's model (`tine::Builder::caller_runs(false)`): the pool's
//! own threads run every call, in one standing region of tine's nested
//! engine, while a caller outside them waits (parked, or on another pool's
//! thread running that pool's work). So rayon-core's contract holds: a
//! pool's work runs on its threads, with the indices, names and thread-local
//! state they were given; `broadcast` runs each index on its own thread;
//! `current_thread_index()` is `None` off the pools; dropping a pool
//! returns at once. The global pool is built that way when a free function
//! first needs it from outside every pool, unless tine's own calls built
//! it first (then it is tine's, whose caller runs as thread 0: still one
//! pool per process).
//!
//! - `lib.rs`: the free functions.
//! - `pool.rs`: [`ThreadPool`].
//! - `builder.rs`: [`ThreadPoolBuilder`]; `thread.rs`: [`ThreadBuilder`];
//!   `error.rs`: [`ThreadPoolBuildError`]; `config.rs`: the deprecated
//!   [`Configuration`] and [`initialize`].
//! - `scope.rs`: [`ScopeFifo`] and the fifo scopes.
#![warn(missing_docs)]

mod builder;
mod config;
mod error;
mod pool;
mod scope;
mod thread;

pub use builder::ThreadPoolBuilder;
#[allow(deprecated)]
pub use config::{initialize, Configuration};
pub use error::ThreadPoolBuildError;
pub use pool::ThreadPool;
pub use scope::{in_place_scope_fifo, scope_fifo, ScopeFifo};
pub use thread::ThreadBuilder;
pub use tine::{BroadcastContext, FnContext, Scope, Yield};

use std::sync::atomic::{AtomicBool, Ordering};

/// Set (Release) once this crate has told tine how to build the global
/// pool.
static GLOBAL_SET_UP: AtomicBool = AtomicBool::new(false);

/// Makes sure tine builds the global pool in rayon's model when a call
/// first needs it (a free function called outside every pool), unless
/// something built it before. Nothing is built here: a call made inside a
/// pool leaves the global pool unbuilt, so a later `build_global` still
/// succeeds. Every call of this crate makes sure, so its fast path is one
/// load and a branch, inlined.
#[inline(always)]
fn ensure_global() {
    // Acquire: pairs with the Release store in `set_up_global`.
    if !GLOBAL_SET_UP.load(Ordering::Acquire) {
        set_up_global();
    }
}

#[cold]
#[inline(never)]
fn set_up_global() {
    // False if set before: by this crate on another thread, the only
    // caller.
    let _ = tine::set_global_builder(builder::default_global);
    // Release: pairs with the Acquire load in `ensure_global`.
    GLOBAL_SET_UP.store(true, Ordering::Release);
}

/// Runs `oper_a` and `oper_b`, potentially in parallel, and returns both
/// results; a panic in either resumes here once both have finished
/// (`oper_a`'s first). From outside every pool, both run on the global
/// pool's threads.
///
/// ```
/// let (a, b) = rayon_core::join(|| 1 + 1, || 2 + 2);
/// assert_eq!((a, b), (2, 4));
/// ```
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    ensure_global();
    tine::join(oper_a, oper_b)
}

/// As [`join`], each closure told through a [`FnContext`] whether it runs
/// on another thread than the one that made the call.
///
/// ```
/// let (a, b) = rayon_core::join_context(|_| 1, |_| 2);
/// assert_eq!(a + b, 3);
/// ```
pub fn join_context<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    ensure_global();
    tine::join_context(oper_a, oper_b)
}

/// Runs `op` with a [`Scope`] whose spawned tasks may borrow from the
/// caller's stack; returns once every task has finished.
///
/// ```
/// let mut a = 0;
/// rayon_core::scope(|s| s.spawn(|_| a = 5));
/// assert_eq!(a, 5);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    ensure_global();
    tine::scope(op)
}

/// As [`scope`], but `op` runs on the calling thread (it need not be
/// `Send`), whatever thread that is.
///
/// ```
/// let here = std::rc::Rc::new(1); // not Send: it stays on this thread
/// let mut a = 0;
/// rayon_core::in_place_scope(|s| {
///     let (one, a) = (*here, &mut a);
///     s.spawn(move |_| *a = one + 1);
/// });
/// assert_eq!(a, 2);
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    ensure_global();
    tine::in_place_scope(op)
}

/// Runs `func` on the current pool's threads (the pool this thread works
/// for, else the global pool), detached: returns at once. A panic in it
/// goes to the pool's panic handler, else aborts the process.
///
/// ```
/// let (send, receive) = std::sync::mpsc::channel();
/// rayon_core::spawn(move || send.send(7).unwrap());
/// assert_eq!(receive.recv().unwrap(), 7);
/// ```
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    ensure_global();
    tine::spawn(func)
}

/// As [`spawn`], but the jobs one thread spawns start in the order
/// spawned.
///
/// ```
/// let (send, receive) = std::sync::mpsc::channel();
/// rayon_core::spawn_fifo(move || send.send(7).unwrap());
/// assert_eq!(receive.recv().unwrap(), 7);
/// ```
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    ensure_global();
    tine::spawn_fifo(func)
}

/// Runs `op` once on every thread of the current pool and returns the
/// results in thread order.
///
/// ```
/// let indices = rayon_core::broadcast(|ctx| ctx.index());
/// assert_eq!(indices, (0..indices.len()).collect::<Vec<_>>());
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    ensure_global();
    tine::broadcast(op)
}

/// Runs `op` once on every thread of the current pool, detached: returns
/// at once.
///
/// ```
/// let (send, receive) = std::sync::mpsc::channel();
/// let send = std::sync::Mutex::new(send);
/// rayon_core::spawn_broadcast(move |ctx| send.lock().unwrap().send(ctx.index()).unwrap());
/// let mut seen: Vec<usize> = receive.iter().take(rayon_core::current_num_threads()).collect();
/// seen.sort();
/// assert_eq!(seen, (0..rayon_core::current_num_threads()).collect::<Vec<_>>());
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    ensure_global();
    tine::spawn_broadcast(op)
}

/// The number of threads of the pool this thread works for, else of the
/// global pool.
///
/// ```
/// assert!(rayon_core::current_num_threads() >= 1);
/// ```
pub fn current_num_threads() -> usize {
    ensure_global();
    tine::current_num_threads()
}

/// This thread's index in the pool it works for, or `None` on a thread
/// outside every pool.
///
/// ```
/// assert_eq!(rayon_core::current_thread_index(), None);
/// let (index, _) = rayon_core::join(rayon_core::current_thread_index, || ());
/// assert!(index.is_some());
/// ```
pub fn current_thread_index() -> Option<usize> {
    tine::fork_thread_index()
}

/// Whether this thread has pending tasks of its own; `None` off the
/// pools' threads.
///
/// ```
/// assert_eq!(rayon_core::current_thread_has_pending_tasks(), None);
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    tine::current_thread_has_pending_tasks()
}

/// The most threads a pool may have, as rayon's (`num_threads` is capped
/// at it).
///
/// ```
/// assert_eq!(rayon_core::max_num_threads(), 0xFFFF);
/// ```
pub fn max_num_threads() -> usize {
    // rayon's bound: what its workers' indices fit in.
    if cfg!(target_pointer_width = "64") {
        0xFFFF
    } else {
        0xFF
    }
}

/// Runs one pending job of the current pool, if there is one: `None` off
/// the pools' threads.
///
/// ```
/// assert_eq!(rayon_core::yield_now(), None);
/// ```
pub fn yield_now() -> Option<Yield> {
    tine::yield_now()
}

/// Runs one pending job of this thread's own, if there is one: `None` off
/// the pools' threads.
///
/// ```
/// assert_eq!(rayon_core::yield_local(), None);
/// ```
pub fn yield_local() -> Option<Yield> {
    tine::yield_local()
}
