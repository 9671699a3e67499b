//! Calling a pool from async code: [`ThreadPool::spawn_async`] and
//! [`ThreadPool::spawn_future`] (and the free [`spawn_async`] and
//! [`spawn_future`], on the current pool), whose [`Task`] an async caller
//! awaits without blocking its executor; and [`block_on`], which waits for
//! a future on any thread, a pool's included.
//!
//! The work runs on the pool's threads, never on the thread that awaits it
//! (an executor's): each task is queued on the pool as a spawned job is,
//! and its end wakes the awaiting task's waker (`nest/inject/task.rs`). A
//! `Task` needs nothing of any runtime but the `Waker` it is polled with,
//! so it works with tokio, smol, async-std or a hand-made executor alike.

use super::current::with_current_pool;
use super::ThreadPool;
use crate::nest::inject::call::Wake;
use crate::nest::inject::task::{spawn_task, Task};
use crate::nest::worker::{Besides, Worker};
use crate::nest::Nest;
use crate::sync::{AtomicBool, Ordering};
use core::future::Future;
use core::pin::{pin, Pin};
use core::task::{Context, Poll};
use std::sync::Arc;

/// A closure as a future, ready at its first poll: what `spawn_async`
/// runs.
struct Call<F>(Option<F>);

impl<F> Unpin for Call<F> {}

impl<F: FnOnce() -> R, R> Future for Call<F> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<R> {
        let f = self.0.take().expect("a task's closure runs once");
        Poll::Ready(f())
    }
}

impl ThreadPool {
    /// Runs `f` on this pool's threads and returns a [`Task`], a future of
    /// its result: for async code (a server's handler on tokio, say) that
    /// must not block its executor's thread while the pool works. `f` runs
    /// on one of the pool's threads, never on the thread that awaits the
    /// task; inside it, `join`, `scope` and parallel iterators run on this
    /// pool as usual. Allocates once.
    ///
    /// A panic in `f` resumes where the task is awaited. Dropping the task
    /// detaches it: `f` still runs, and its panic then goes to the pool's
    /// [`panic_handler`](crate::pool::Builder::panic_handler), as a
    /// [`spawn`](ThreadPool::spawn)ed job's does. The pool's threads run
    /// every task to its end, even after the pool is dropped.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let pool = tine::ThreadPool::try_spawn(2)?;
    /// let data: Vec<f64> = (0..1 << 16).map(f64::from).collect();
    /// let task = pool.spawn_async(move || data.par_iter().map(|x| x * 1.5).sum::<f64>());
    /// // In an async handler: `let sum = task.await;`
    /// let sum = tine::block_on(task);
    /// assert_eq!(sum, 1.5 * 65535.0 * 65536.0 / 2.0);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn spawn_async<F, R>(&self, f: F) -> Task<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        spawn_task(Arc::clone(&self.nest), Call(Some(f)))
    }

    /// Polls `future` on this pool's threads and returns a [`Task`], a
    /// future of its output. When the future is woken, its next poll is
    /// queued on the pool like any other job; it never runs on the thread
    /// that awaits the task. Allocates once.
    ///
    /// The future may await things of another runtime that need no
    /// reactor of their own (channels, locks, other tasks, this pool's
    /// tasks); one that needs a reactor the pool lacks (tokio's timers or
    /// sockets) must run on its own runtime. Panics and dropping behave as
    /// for [`ThreadPool::spawn_async`].
    ///
    /// ```
    /// let pool = tine::ThreadPool::try_spawn(2)?;
    /// let inner = pool.spawn_async(|| 6);
    /// let outer = pool.spawn_future(async move { inner.await * 7 });
    /// assert_eq!(tine::block_on(outer), 42);
    /// # Ok::<(), tine::Error>(())
    /// ```
    pub fn spawn_future<F>(&self, future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn_task(Arc::clone(&self.nest), future)
    }
}

/// The nest of the pool a call on this thread belongs to: the pool of the
/// region or resident thread this is, else the installed or global pool.
fn current_nest() -> Arc<Nest> {
    Worker::with_current(|worker| match worker {
        Some(worker) => worker.nest().arc(),
        None => with_current_pool(|pool| Arc::clone(&pool.nest)),
    })
}

/// [`ThreadPool::spawn_async`] on the current pool: the pool whose thread
/// this is, else the one `install` made current, else the global pool.
///
/// ```
/// let task = tine::spawn_async(|| 2 + 2);
/// assert_eq!(tine::block_on(task), 4);
/// ```
pub fn spawn_async<F, R>(f: F) -> Task<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_task(current_nest(), Call(Some(f)))
}

/// [`ThreadPool::spawn_future`] on the current pool, as [`spawn_async`]
/// finds it.
///
/// ```
/// let task = tine::spawn_future(async { 40 + 2 });
/// assert_eq!(tine::block_on(task), 42);
/// ```
pub fn spawn_future<F>(future: F) -> Task<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_task(current_nest(), future)
}

/// What a [`block_on`] waker does: marks the future woken, and wakes the
/// blocked thread.
struct Signal {
    woken: AtomicBool,
    wake: Wake,
}

impl std::task::Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Release: pairs with the Acquire load in `block_on`'s wait, which
        // then polls again and sees what the wake published.
        self.woken.store(true, Ordering::Release);
        self.wake.clone().wake();
    }
}

/// Runs `future` to its end on this thread and returns its output: the
/// way to wait for a [`Task`] (or any future) from code that is not async.
///
/// On a thread of a pool (inside a `join`, a scope, a task, a pool in
/// rayon's model's `install`), it runs the pool's work while the future is
/// pending, and then parks until the future is woken: it never holds up
/// the pool, so a pool of one thread blocking on its own
/// [`spawn_async`](ThreadPool::spawn_async) returns. Elsewhere it parks.
/// Allocates its waker once a call.
///
/// ```
/// let pool = tine::ThreadPool::builder().threads(1).caller_runs(false).build()?;
/// // On the pool's one thread, waiting for a task of that pool.
/// let answer = pool.enter(|| tine::block_on(tine::spawn_async(|| 42)));
/// assert_eq!(answer, 42);
/// # Ok::<(), tine::Error>(())
/// ```
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    Worker::with_current(|current| {
        let worker = current.filter(|worker| worker.in_region());
        let wake = match worker {
            Some(worker) => Wake::Bell(worker.nest().shared_waits()),
            None => Wake::this_thread(),
        };
        let signal = Arc::new(Signal {
            woken: AtomicBool::new(false),
            wake,
        });
        let waker = std::task::Waker::from(Arc::clone(&signal));
        let mut context = Context::from_waker(&waker);
        loop {
            // Relaxed: a wake after this store sets it again (the poll
            // below may miss what it publishes, and the wait sees it).
            signal.woken.store(false, Ordering::Relaxed);
            if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return output;
            }
            // Acquire: pairs with the Release store in `wake_by_ref`.
            let woken = || signal.woken.load(Ordering::Acquire);
            match worker {
                Some(worker) => worker.wait_until(woken, Besides::Nothing),
                None => {
                    while !woken() {
                        std::thread::park();
                    }
                }
            }
        }
    })
}
