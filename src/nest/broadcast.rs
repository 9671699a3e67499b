//! Jobs for one thread of a region alone: [`broadcast_here`], which runs a
//! closure once on every thread of the caller's region, each index on its
//! own thread, and [`Scope::spawn_broadcast`], its detached form in a
//! scope; and [`BroadcastContext`], what such a closure learns.
//!
//! # The mail
//!
//! Each slot has a `mail` head, on a cache line of its own: null (no
//! mail), the newest of a chain of jobs for the slot's owner alone (linked
//! through their headers' `prev`, newest first), or a closed mark
//! ([`closed`]: the owner has left the region the mark names).
//!
//! - Any thread may post: it links the job to the head it read, then
//!   swaps it in with a compare-exchange (Release, so the job's contents
//!   and its link are published; retried while the head moves). Posting
//!   never waits for the owner.
//! - Only the owner takes mail out, one job at a time (a compare-exchange
//!   of the head to its `prev`, Acquire), in `Worker::find_work`, which
//!   its idle loop and every wait run: so each job posted runs exactly
//!   once, on its owner's thread. With one taker, the head it read stays
//!   in the chain until it takes it, so the exchange cannot succeed on a
//!   reused address (no ABA).
//! - An owner leaving its region closes its mail (a swap to the region's
//!   mark, Acquire) and runs what the swap returned. A poster that finds
//!   its own region's mark runs the job itself, at once (the owner left:
//!   the region is ending); a mark of an earlier region counts as empty,
//!   and the post replaces it. Marks differ per region, so a post can never
//!   mistake a new mark for an old one.
//! - A posted stack job's poster waits for its latch before its frame
//!   ends, as a join's joiner does; a posted heap job frees itself.
//! - A poster rings the doorbell after posting, and a parked idle thread
//!   checks its own mail after announcing itself (`Doorbell`'s
//!   handshake), so no posted job waits on a parked owner.

use super::job::{run, Header, Spawned, StackJob};
use super::scope::{Broadcasts, Scope};
use super::worker::{Besides, Worker};
use super::{Nest, Slot};
use crate::sync::{AtomicUsize, Ordering};
use core::marker::PhantomData;
use core::ptr;
use std::boxed::Box;
use std::panic::resume_unwind;
use std::vec::Vec;

/// The mail head of an owner that has left region `epoch` (the count of
/// regions its pool has entered, `Nest::epoch`): an odd address, which no
/// job has (a header is 8-aligned), never dereferenced. A mark of an
/// earlier region counts as empty, so a region's start writes no mail.
fn closed(epoch: usize) -> *mut Header {
    ptr::null_mut::<u8>()
        .wrapping_add((epoch << 1) | 1)
        .cast::<Header>()
}

/// Whether `head` is a closed mark, of any region.
fn is_closed(head: *const Header) -> bool {
    head as usize & 1 == 1
}

/// What a closure run on every thread learns about the thread it runs on:
/// rayon's `BroadcastContext`, for the pool layer's `broadcast`
/// and [`Scope::spawn_broadcast`].
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    _not_send: PhantomData<&'a *mut ()>,
}

impl BroadcastContext<'_> {
    /// The context of thread `index` of `num_threads`.
    pub(crate) fn new(index: usize, num_threads: usize) -> Self {
        BroadcastContext {
            index,
            num_threads,
            _not_send: PhantomData,
        }
    }

    /// This thread's index, `0..num_threads()`.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of threads the broadcast runs on (each runs it once).
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Where a post went.
pub(super) enum Posted {
    /// In the owner's mail.
    Mailed,
    /// The owner has left its region: the poster runs the job.
    Closed,
}

impl Slot {
    /// Posts `job` for this slot's owner in region `epoch` (see the module
    /// head).
    pub(super) fn post(&self, job: *const Header, epoch: usize) -> Posted {
        // Relaxed: the compare-exchange below publishes what matters, and
        // a mark's value alone says which region closed it.
        let mut head = self.mail.load(Ordering::Relaxed);
        loop {
            if head == closed(epoch) {
                return Posted::Closed;
            }
            // An earlier region's mark: the mail is empty.
            let older = if is_closed(head) {
                ptr::null_mut()
            } else {
                head
            };
            // SAFETY: not yet published: the job is this thread's alone.
            unsafe { (*job).prev.set(older) };
            match self.mail.compare_exchange(
                head,
                job.cast_mut(),
                // Release: publishes the job and its link; pairs with the
                // Acquire exchange in `take_mail` and swap in `close_mail`.
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Posted::Mailed,
                Err(now) => head = now,
            }
        }
    }

    /// Whether the owner has mail (a hint: Relaxed).
    #[inline]
    pub(super) fn has_mail(&self) -> bool {
        let head = self.mail.load(Ordering::Relaxed);
        !head.is_null() && !is_closed(head)
    }

    /// The owner takes its newest job, if any.
    pub(super) fn take_mail(&self) -> Option<*const Header> {
        if !self.has_mail() {
            return None;
        }
        // Acquire: pairs with the Release exchange in `post`, so the job
        // and its link are ours to read.
        let mut head = self.mail.load(Ordering::Acquire);
        loop {
            if head.is_null() || is_closed(head) {
                return None;
            }
            // SAFETY: a posted job, alive until it runs, which only we do.
            let older = unsafe { (*head).prev.get() };
            match self.mail.compare_exchange(
                head,
                older.cast_mut(),
                // Acquire: pairs with the Release exchange in `post`.
                Ordering::Acquire,
                // Acquire: as above, for a head that a new post put there.
                Ordering::Acquire,
            ) {
                Ok(job) => return Some(job.cast_const()),
                Err(now) => head = now,
            }
        }
    }

    /// The owner leaves region `epoch`: closes the mail and returns the
    /// jobs it held, newest first (null: none).
    pub(super) fn close_mail(&self, epoch: usize) -> *const Header {
        // Acquire: pairs with the Release exchange in `post`.
        let head = self.mail.swap(closed(epoch), Ordering::Acquire);
        if is_closed(head) {
            ptr::null()
        } else {
            head
        }
    }
}

impl Worker {
    /// Whether a job may wait for this thread (a hint): in a slot, in the
    /// queue (for a thread that takes queued work), or in its own mail. Every wait of a region's thread that parks asks this last,
    /// once announced: a job posted before the announcement rang no bell
    /// for it.
    pub(crate) fn has_work(&self) -> bool {
        self.nest().has_work(self.takes_queued()) || self.has_mail()
    }

    /// Whether this thread has mail (a hint): jobs for it alone.
    pub(crate) fn has_mail(&self) -> bool {
        self.slot().has_mail()
    }

    /// Closes this thread's mail as it leaves the region, running every
    /// job still in it. Out of line: the way out of a region stays as
    /// short as it was.
    #[inline(never)]
    pub(crate) fn close_mail(&self) {
        if !self.in_region() {
            return;
        }
        let mut job = self.slot().close_mail(self.nest().epoch());
        while !job.is_null() {
            // SAFETY: taken from our own mail, alive until it runs; its
            // link is read before it runs (a job may free itself).
            let older = unsafe { (*job).prev.get() };
            // SAFETY: ours alone: the mail held it and is closed now.
            unsafe { self.run_anchored(job) };
            job = older;
        }
    }

    /// Posts `job` to thread `index` of this region; runs it here if that
    /// thread has left the region.
    fn post_to(&self, index: usize, job: *const Header) {
        let nest = self.nest();
        match nest.slots[index].post(job, nest.epoch()) {
            Posted::Mailed => {}
            // SAFETY: not posted: ours alone to run.
            Posted::Closed => unsafe { self.run_anchored(job) },
        }
    }
}

impl Nest {
    /// Posts `job` to thread `index` from a thread outside the pool's
    /// regions, for a pool whose threads stay in one region for its life
    /// (rayon's model); runs it here if that thread has left it (the pool
    /// has stopped).
    pub(crate) fn post_outside(&self, index: usize, job: *const Header) {
        match self.slots[index].post(job, self.epoch()) {
            Posted::Mailed => {}
            // SAFETY: not posted: ours alone to run.
            Posted::Closed => unsafe { run(job) },
        }
    }
}

/// Runs `op(index)` for every thread `index` of `worker`'s region, each
/// on its own thread (this thread's own index right here), and returns
/// once all have finished. A panic resumes here after that (the lowest
/// index's). `worker` is this thread's, in a region.
pub(crate) fn broadcast_here(worker: &Worker, op: &(dyn Fn(usize) + Sync)) {
    let nest: &Nest = worker.nest();
    let threads = nest.slots.len();
    let jobs: Vec<StackJob<_, ()>> = (0..threads)
        .map(|index| StackJob::new(move |_migrated| op(index)))
        .collect();
    // The jobs stay where they are until every latch is seen: `jobs`
    // neither grows nor moves before the wait below ends.
    for (index, job) in jobs.iter().enumerate() {
        if index != worker.index() {
            worker.post_to(index, job.header());
        }
    }
    nest.ring_work();
    // SAFETY: this index's job was never posted: ours alone to run.
    unsafe { run(jobs[worker.index()].header()) };
    // SAFETY: alive in `jobs`; the latch is read through the header.
    worker.wait_until(
        || jobs.iter().all(|job| unsafe { (*job.header()).probe() }),
        Besides::Nothing,
    );
    let mut first = None;
    for job in &jobs {
        // SAFETY: every latch was seen set; each result is taken once.
        if let Err(payload) = unsafe { job.take_result() } {
            match first {
                None => first = Some(payload),
                Some(_) => crate::team::panic::drop_payload(payload),
            }
        }
    }
    if let Some(payload) = first {
        resume_unwind(payload);
    }
}

impl<'scope> Scope<'scope> {
    /// Starts `body` once on every thread of the scope's pool, as tasks of
    /// this scope, each on its own thread (rayon's
    /// `Scope::spawn_broadcast`): a thread runs its task when it next looks
    /// for work. On a scope whose team was busy (it runs on one thread),
    /// every index runs here, in order.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// let pool = tine::spawn_pool(3);
    /// let seen = Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     s.spawn_broadcast(|_, ctx| {
    ///         seen.lock().unwrap().push((ctx.index(), std::thread::current().id()))
    ///     })
    /// });
    /// let mut seen = seen.into_inner().unwrap();
    /// seen.sort_by_key(|&(index, _)| index);
    /// assert_eq!(seen.iter().map(|&(index, _)| index).collect::<Vec<_>>(), [0, 1, 2]);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let threads = self.threads();
        let shared = Shared::new(body, threads);
        // Index `index`'s task body, holding the shared body until it ends.
        let each = |index: usize| {
            let body = SharedRef(shared);
            move |scope: &Scope<'scope>| {
                // Lets go of the body when the task ends, unwinding too.
                let body = body;
                // SAFETY: alive until the last task lets go of it.
                let shared = unsafe { &*body.0 };
                (shared.body)(scope, BroadcastContext::new(index, threads));
            }
        };
        let home = self.home();
        Worker::with_current(|worker| match worker {
            Some(worker) if worker.is_region_of(home) => {
                for index in 0..threads {
                    worker.post_to(index, Spawned::header(self.task(each(index))));
                }
                home.ring_work();
            }
            // A thread of the pool alone on its thread (a serial worker):
            // every index here, in order.
            Some(worker) if worker.belongs_to(home) => {
                for index in 0..threads {
                    let job = Spawned::header(self.task(each(index)));
                    // SAFETY: never published: ours alone to run.
                    unsafe { run(job) };
                }
            }
            // From outside the pool's regions: as the scope says.
            _ => {
                if self.broadcasts() == Some(Broadcasts::ToMail) {
                    for index in 0..threads {
                        home.post_outside(index, Spawned::header(self.task(each(index))));
                    }
                    home.ring_work();
                } else {
                    for index in 0..threads {
                        self.queue(self.task_body(each(index)));
                    }
                }
            }
        });
    }
}

/// A `spawn_broadcast` body, boxed once and shared by its tasks: the last
/// to let go of it drops it, before that task counts its scope down (so a
/// body that borrows the scope's data is dropped while the scope lives).
struct Shared<B> {
    body: B,
    /// Tasks that have not let go yet.
    holders: AtomicUsize,
}

impl<B> Shared<B> {
    /// Boxes `body` for `holders` tasks (at least one).
    fn new(body: B, holders: usize) -> *const Shared<B> {
        Box::into_raw(Box::new(Shared {
            body,
            holders: AtomicUsize::new(holders),
        }))
    }
}

/// One task's hold on a [`Shared`] body; dropping it lets go.
struct SharedRef<B>(*const Shared<B>);

// SAFETY: the tasks only call the body through `&` (it is `Sync`), and the
// last of them drops it, on whichever thread (it is `Send`).
unsafe impl<B: Send + Sync> Send for SharedRef<B> {}

impl<B> Drop for SharedRef<B> {
    fn drop(&mut self) {
        // Another holder may free the box as soon as our decrement lands,
        // before `fetch_sub` returns: the argument std's `Arc::drop` relies
        // on (a reference to an atomic, in an `UnsafeCell`, does not
        // promise its memory stays allocated for the whole call); nothing
        // touches it after.
        // SAFETY: alive until the last holder's decrement below.
        let holders = unsafe { &(*self.0).holders };
        // AcqRel: each holder's use of the body happens before the last
        // holder drops it (Release by the others, Acquire by the last).
        if holders.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: the last holder: no task uses the body any more, and
            // it came from `Box::into_raw` in `Shared::new`.
            drop(unsafe { Box::from_raw(self.0.cast_mut()) });
        }
    }
}
