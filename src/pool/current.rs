//! Which pool a parallel-iterator call runs on: the one given with
//! `with_pool`, else the one `install` made current on this thread, else
//! the global pool, spawned on first use.
//!
//! The current pool is a thread-local pointer that `install` sets for the
//! length of its closure and puts back on every way out, unwinding
//! included; a call reads it only on the thread that set it, while the
//! `install` frame (which borrows the pool) is live.

use super::builder::Builder;
use super::ThreadPool;
use crate::schedule::ForkJoin;
use core::cell::Cell;
use core::ptr::NonNull;
// A process-wide static, outside any loom model (as `wait/futex.rs`'s
// membarrier state): core's atomics, not the `sync` shim's.
use core::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// The environment variable that sizes the global pool.
pub const THREADS_VAR: &str = "TINE_NUM_THREADS";

static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();

/// How the global pool is built on first use, if set
/// ([`set_global_builder`]).
static GLOBAL_BUILDER: OnceLock<fn() -> Builder> = OnceLock::new();

/// Sets how the global pool is built when a call first needs it (a free
/// function such as [`join`](crate::pool::entry::join) called outside every
/// pool): `make`'s builder, in place of the default one ([`global`] says
/// what that is). The pool is not built here, and is never built by a call
/// made inside another pool, so a later [`Builder::build_global`] still
/// succeeds until something uses the global pool. Returns false, changing
/// nothing, if a way was set before. A face that gives the global pool its
/// own settings (this repository's `rayon-core`, in rayon's model) calls it
/// before its first call.
///
/// ```
/// fn rayon_like() -> tine::Builder {
///     tine::ThreadPool::builder().caller_runs(false)
/// }
/// // The first setting wins; the pool is built when first used.
/// let first = tine::set_global_builder(rayon_like);
/// assert!(!tine::set_global_builder(rayon_like));
/// # let _ = first;
/// ```
pub fn set_global_builder(make: fn() -> Builder) -> bool {
    GLOBAL_BUILDER.set(make).is_ok()
}

/// The global pool once the thread that made it has published it; null
/// before. Calls read the pool through this pointer, so that the pool's
/// construction happens before their use of it through an atomic that
/// ThreadSanitizer sees (std's `OnceLock` is not instrumented in CI).
static PUBLISHED: AtomicPtr<ThreadPool> = AtomicPtr::new(core::ptr::null_mut());

/// Publishes the pool in `GLOBAL`: called once, by the thread that put it
/// there.
fn publish(pool: &'static ThreadPool) -> &'static ThreadPool {
    let pointer = pool as *const ThreadPool as *mut ThreadPool;
    // Release: pairs with the Acquire loads in `global`.
    PUBLISHED.store(pointer, Ordering::Release);
    pool
}

/// A pool `install` made current, and the fork frame it was made in
/// ([`crate::team::innermost_frame_id`]).
type Installed = Option<(NonNull<ThreadPool>, usize)>;

std::thread_local! {
    /// The pool `install` made current on this thread, if any.
    static CURRENT: Cell<Installed> = const { Cell::new(None) };
}

/// The global pool, spawned on first use with `TINE_NUM_THREADS` threads
/// (a positive integer), else `RAYON_NUM_THREADS` (for programs ported from
/// rayon), else one per CPU this process may use (`available_parallelism`).
/// An unset, empty or invalid value falls back to the next, as rayon does
/// with `RAYON_NUM_THREADS`. [`crate::compat::ThreadPoolBuilder::build_global`]
/// can build it instead, before its first use.
///
/// ```
/// let pool = tine::global();
/// assert!(pool.threads() >= 1);
/// assert!(std::ptr::eq(pool, tine::global())); // one pool per process
/// ```
///
/// # Panics
/// If the OS refuses to start its threads (rayon's global pool panics
/// then too).
pub fn global() -> &'static ThreadPool {
    // Acquire: pairs with the Release store in `publish`.
    let published = PUBLISHED.load(Ordering::Acquire);
    if !published.is_null() {
        // SAFETY: a pointer to the pool in `GLOBAL`, a static that is
        // never emptied.
        return unsafe { &*published };
    }
    let mut made_here = false;
    let pool = GLOBAL.get_or_init(|| {
        made_here = true;
        let builder = match GLOBAL_BUILDER.get() {
            Some(make) => make(),
            None => {
                let builder = ThreadPool::builder().name("tine-global");
                match threads_from_env() {
                    Some(threads) => builder.threads(threads),
                    None => builder,
                }
            }
        };
        builder
            .build()
            .unwrap_or_else(|error| panic!("tine's global pool could not start: {error}"))
    });
    if made_here {
        return publish(pool);
    }
    // Another thread made it (or `build_global` set it) and publishes it
    // as soon as it has put it there.
    loop {
        // Acquire: as above.
        let published = PUBLISHED.load(Ordering::Acquire);
        if !published.is_null() {
            // SAFETY: as above.
            return unsafe { &*published };
        }
        std::thread::yield_now();
    }
}

/// `TINE_NUM_THREADS`, else `RAYON_NUM_THREADS`, as a positive count, if
/// one is.
pub(crate) fn threads_from_env() -> Option<usize> {
    let count = |var| {
        let value = std::env::var(var).ok()?;
        value.trim().parse::<usize>().ok().filter(|&n| n > 0)
    };
    count(THREADS_VAR).or_else(|| count("RAYON_NUM_THREADS"))
}

/// Makes `pool` the global pool; false (and `pool` dropped) if one is
/// already there.
pub(crate) fn set_global(pool: ThreadPool) -> bool {
    let mut set_here = false;
    let set = GLOBAL.get_or_init(|| {
        set_here = true;
        pool
    });
    if set_here {
        publish(set);
    }
    set_here
}

impl ThreadPool {
    /// Makes this pool the global one ([`global`]), which calls from
    /// outside every pool use: for a pool [`Builder::build`] cannot make
    /// with [`Builder::build_global`] (one built with
    /// [`Builder::build_with`]).
    ///
    /// # Errors
    /// [`Error::GlobalPoolAlreadyInitialized`] if the global pool exists
    /// already (this pool is dropped then).
    ///
    /// [`Builder::build`]: crate::pool::Builder::build
    /// [`Builder::build_global`]: crate::pool::Builder::build_global
    /// [`Builder::build_with`]: crate::pool::Builder::build_with
    /// [`Error::GlobalPoolAlreadyInitialized`]: crate::error::Error::GlobalPoolAlreadyInitialized
    pub fn set_as_global(self) -> Result<(), crate::error::Error> {
        if set_global(self) {
            Ok(())
        } else {
            Err(crate::error::Error::GlobalPoolAlreadyInitialized)
        }
    }
}

/// Whether the global pool has been spawned or set.
pub(crate) fn global_is_set() -> bool {
    GLOBAL.get().is_some()
}

/// The number of threads of the pool this thread works for, as rayon's
/// `current_num_threads`: the pool of an `install` made at this level of
/// nesting (see [`ThreadPool::install`]); else, inside a task, its fork's
/// thread count (though a parallel iterator called there runs inline);
/// else the pool of an outer `install`; else the global pool's. Code that
/// sizes its chunks by it gets the same answer as under rayon.
///
/// ```
/// use tine::ForkJoin;
///
/// let pool = tine::spawn_pool(3);
/// pool.install(|| assert_eq!(tine::current_num_threads(), 3));
/// // Inside a task: the team's size, without starting the global pool.
/// pool.for_threads(|_, _| assert_eq!(tine::current_num_threads(), 3));
/// // An `install` inside a task wins, as in rayon.
/// let other = tine::spawn_pool(2);
/// pool.for_threads(|_, _| other.install(|| assert_eq!(tine::current_num_threads(), 2)));
/// ```
pub fn current_num_threads() -> usize {
    if let Some((pool, frame)) = CURRENT.with(Cell::get) {
        if frame == crate::team::innermost_frame_id() {
            // SAFETY: as in `with_current`.
            return unsafe { pool.as_ref() }.threads();
        }
    }
    if let Some(threads) = crate::team::innermost_fork_threads() {
        return threads;
    }
    with_current(|pool| pool.threads())
}

/// Runs `f` with the pool a call on this thread uses by default.
#[inline]
pub(crate) fn with_current<R>(f: impl FnOnce(&dyn ForkJoin) -> R) -> R {
    with_current_pool(|pool| f(pool))
}

/// Runs `f` with the pool `install` made current on this thread, else the
/// global pool.
#[inline]
pub(crate) fn with_current_pool<R>(f: impl FnOnce(&ThreadPool) -> R) -> R {
    match CURRENT.with(Cell::get) {
        // SAFETY: set by `install`, whose frame borrows the pool and is
        // still live (it puts the previous value back before returning).
        Some((pool, _)) => f(unsafe { pool.as_ref() }),
        None => f(global()),
    }
}

/// Whether the pool `install` made current on this thread, if any, is
/// `pool` (or none is): one thread-local read, for the `join` fast path.
pub(crate) fn installed_is_none_or(pool: impl FnOnce(&ThreadPool) -> bool) -> bool {
    match CURRENT.with(Cell::get) {
        None => true,
        // SAFETY: as in `with_current_pool`.
        Some((installed, _)) => pool(unsafe { installed.as_ref() }),
    }
}

/// Runs `f` with the pool an `install` made current at this level of
/// fork nesting (as [`current_num_threads`] reads it), if any.
pub(crate) fn with_installed_here<R>(f: impl FnOnce(Option<&ThreadPool>) -> R) -> R {
    match CURRENT.with(Cell::get) {
        Some((pool, frame)) if frame == crate::team::innermost_frame_id() => {
            // SAFETY: as in `with_current_pool`.
            f(Some(unsafe { pool.as_ref() }))
        }
        _ => f(None),
    }
}

/// Runs `f` with `pool` as this thread's current pool.
#[inline]
pub(crate) fn install<R>(pool: &ThreadPool, f: impl FnOnce() -> R) -> R {
    /// Puts the previous current pool back, on every way out.
    struct Restore(Installed);
    impl Drop for Restore {
        #[inline]
        fn drop(&mut self) {
            CURRENT.with(|current| current.set(self.0));
        }
    }
    // SAFETY: only the lifetime is erased; `Restore` takes the pointer out
    // of the thread-local before `pool`'s borrow ends.
    let pool: &'static ThreadPool = unsafe { core::mem::transmute(pool) };
    let installed = (NonNull::from(pool), crate::team::innermost_frame_id());
    let _restore = Restore(CURRENT.with(|current| current.replace(Some(installed))));
    // A region of another pool is not this install's: its worker is hidden
    // meanwhile (see `nest::hide_worker_unless_of`).
    let _hidden = crate::nest::hide_worker_unless_of(pool.nest());
    f()
}

impl ThreadPool {
    /// Runs `f` on the calling thread with this pool as the current one:
    /// every parallel-iterator call made inside it on this thread (without
    /// its own `with_pool`) runs on this pool. rayon's `install` moves `f`
    /// onto a worker; tine's caller is thread 0 of the pool, so `f` runs
    /// right here.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let pool = tine::spawn_pool(2);
    /// let squares: Vec<u64> = pool.install(|| (0..100u64).into_par_iter().map(|x| x * x).collect());
    /// assert_eq!(squares[99], 9801);
    /// ```
    #[inline]
    pub fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        install(self, f)
    }
}
