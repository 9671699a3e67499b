//! A task: a future (or a closure, as a future ready at its first poll)
//! run on a pool's threads, queued on the pool's injector for each poll,
//! whose result an async caller awaits through a [`Task`] handle, or whose
//! end a scope waits for (`Scope::spawn_future`).
//!
//! It exists so that async code (a server's handlers on tokio, smol, any
//! executor) can await the pool without blocking its executor's threads:
//! the work runs on the pool's threads, and its end wakes the awaiting
//! task's `Waker` instead of a parked thread.
//!
//! # One allocation
//!
//! A task is one boxed cell: the queue's header, a count of references,
//! the scheduling state, the future, and the hand-off of its result to
//! the handle (`task/handoff.rs`). The handle, each `Waker` the future
//! keeps and the queue (while the task is queued or running) each hold
//! one reference; the last to let go frees the cell. The cell holds its
//! pool's nest (an `Arc`), so a task outlives a pool dropped before it
//! ends: the pool's threads stay until its spawned work is done, and a
//! pending future counts as such.
//!
//!
//! Its cell, and how wakes and polls move it from state to state, are
//! `task/cell.rs`'s.

use crate::nest::Nest;
use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::ptr::NonNull;
use core::task::{Context, Poll};
use std::panic::resume_unwind;
use std::sync::Arc;

pub(crate) mod cell;
pub(crate) mod handoff;

use cell::{release, Cell, Ending, ScopeLink, Shared};
use handoff::Handoff;

/// A task run on a pool's threads, awaited as a future: what
/// [`ThreadPool::spawn_async`](crate::pool::ThreadPool::spawn_async) and
/// [`ThreadPool::spawn_future`](crate::pool::ThreadPool::spawn_future)
/// return.
///
/// Awaiting it gives the task's result; a panic in the task resumes where
/// it is awaited. It works with any executor: it needs only the `Waker` of
/// the context it is polled in. Dropping it detaches the task: the task
/// still runs, and a panic in it then goes to the pool's
/// [`panic_handler`](crate::pool::Builder::panic_handler) (without one, the
/// process aborts), as a [`spawn`](crate::pool::serve::spawn)ed job's does.
///
/// ```
/// let pool = tine::ThreadPool::try_spawn(2)?;
/// let task = pool.spawn_async(|| (1..=100u64).sum::<u64>());
/// assert_eq!(tine::block_on(task), 5050);
/// # Ok::<(), tine::Error>(())
/// ```
#[must_use = "a task runs whether or not it is awaited; dropping its handle detaches it"]
pub struct Task<T> {
    shared: NonNull<Shared<T>>,
    /// Whether the first poll has been (and so its yielding wait).
    polled: bool,
    _owns: PhantomData<T>,
}

// The result is not stored in the handle, and nothing in it is pinned.
impl<T> Unpin for Task<T> {}

// SAFETY: the handle only polls the hand-off (under its lock) and lets go
// of its reference; the result, a `T: Send`, crosses threads through it.
unsafe impl<T: Send> Send for Task<T> {}

impl<T> core::fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Task").finish_non_exhaustive()
    }
}

impl<T> Task<T> {
    fn handoff(&self) -> &Handoff<T> {
        // SAFETY: the handle holds a reference: the cell is alive.
        match unsafe { &self.shared.as_ref().ending } {
            Ending::Awaited(handoff) => handoff,
            Ending::Scoped(_) => unreachable!("a handle is made only for an awaited task"),
        }
    }
}

impl<T> Future for Task<T> {
    type Output = T;

    /// The first poll of a task whose pool runs nothing else and whose
    /// recent runs took at most 10 µs first waits for it yielding its CPU,
    /// for twice their mean but at least 10 µs (`nest/inject/call_time.rs`):
    /// about what the executor's own wake-up would take.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        if !core::mem::replace(&mut this.polled, true) {
            #[cfg(not(loom))]
            {
                // SAFETY: the handle holds a reference: the cell is alive.
                let wait = unsafe { this.shared.as_ref() }
                    .home
                    .injector
                    .task_yielding_wait();
                if !wait.is_zero() {
                    this.handoff().wait_yielding(wait);
                }
            }
        }
        match this.handoff().poll(cx.waker()) {
            Poll::Ready(Ok(value)) => Poll::Ready(value),
            Poll::Ready(Err(payload)) => resume_unwind(payload),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        if let Some(Err(payload)) = self.handoff().detach() {
            // SAFETY: the handle's reference keeps the cell alive.
            unsafe { self.shared.as_ref() }
                .home
                .spawned_panicked(payload);
        }
        // SAFETY: the handle's reference, let go once.
        unsafe { release(self.shared.as_ptr().cast_const()) };
    }
}

/// Spawns `future` on `home`'s pool as a task whose [`Task`] handle awaits
/// its result: one allocation, counted as the pool's spawned work until it
/// ends.
pub(crate) fn spawn_task<T, F>(home: Arc<Nest>, future: F) -> Task<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    home.injector.spawned_one();
    let ending = Ending::Awaited(Handoff::new());
    let shared = Cell::spawn(home, future, ending, core::ptr::null(), 1);
    Task {
        // SAFETY: from `Box::into_raw`: not null.
        shared: unsafe { NonNull::new_unchecked(shared.cast_mut()) },
        polled: false,
        _owns: PhantomData,
    }
}

/// Spawns `future` on `home`'s pool as a task of the scope of `link`: it
/// counts the task, waits for it, and keeps its panic.
///
/// # Safety
/// `link`'s scope stays alive until its `ended` call, and what `future`
/// borrows outlives the scope.
pub(crate) unsafe fn spawn_scoped<'scope, F>(link: ScopeLink, home: Arc<Nest>, future: F)
where
    F: Future<Output = ()> + Send + 'scope,
{
    let _ = Cell::spawn(home, future, Ending::Scoped(link), link.scope, 0);
}
