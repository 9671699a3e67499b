//! [`ScopeFifo`]: rayon's scope whose tasks one thread spawns start in the
//! order spawned. It is tine's [`Scope`] seen through another type, so
//! that its `spawn_fifo` and the closures it passes have rayon's types;
//! the tasks go through tine's `Scope::spawn_fifo`.

use tine::{BroadcastContext, Scope};

/// A scope whose tasks start in the order each thread spawned them:
/// [`scope_fifo`]'s.
#[repr(transparent)]
pub struct ScopeFifo<'scope> {
    scope: Scope<'scope>,
}

impl core::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ScopeFifo").finish_non_exhaustive()
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// The FIFO view of `scope`.
    pub(crate) fn of<'a>(scope: &'a Scope<'scope>) -> &'a ScopeFifo<'scope> {
        let scope: *const Scope<'scope> = scope;
        // SAFETY: `ScopeFifo` is `repr(transparent)` over `Scope`, so the
        // pointer is to a valid `ScopeFifo` for the same lifetime.
        unsafe { &*scope.cast::<ScopeFifo<'scope>>() }
    }

    /// Starts `body` as a task of this scope, after the tasks this thread
    /// spawned before it (FIFO); it gets the scope, to spawn more.
    ///
    /// ```
    /// let mut a = 0;
    /// rayon_core::scope_fifo(|s| s.spawn_fifo(|_| a = 3));
    /// assert_eq!(a, 3);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        self.scope
            .spawn_fifo(move |scope| body(ScopeFifo::of(scope)));
    }

    /// Starts `body` once on every thread of the pool, each on its own
    /// thread, as tasks of this scope (tine's `Scope::spawn_broadcast`).
    ///
    /// ```
    /// let count = std::sync::atomic::AtomicUsize::new(0);
    /// rayon_core::scope_fifo(|s| {
    ///     s.spawn_broadcast(|_, _| {
    ///         count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///     })
    /// });
    /// assert_eq!(count.into_inner(), rayon_core::current_num_threads());
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.scope
            .spawn_broadcast(move |scope, context| body(ScopeFifo::of(scope), context));
    }
}

/// As [`scope`](crate::scope), with a [`ScopeFifo`].
///
/// ```
/// let mut a = 0;
/// rayon_core::scope_fifo(|s| s.spawn_fifo(|_| a = 4));
/// assert_eq!(a, 4);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    crate::scope(|scope| op(ScopeFifo::of(scope)))
}

/// As [`in_place_scope`](crate::in_place_scope), with a [`ScopeFifo`].
///
/// ```
/// let mut a = 0;
/// rayon_core::in_place_scope_fifo(|s| s.spawn_fifo(|_| a = 5));
/// assert_eq!(a, 5);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    crate::in_place_scope(|scope| op(ScopeFifo::of(scope)))
}
