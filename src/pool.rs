//! The fork-join protocol ([`Team`]) and the std thread pool ([`ThreadPool`]).
//!
//! # State
//!
//! Four counters, each on its own cache line:
//! - `fork_generation`: bumped once per fork. Workers wait for it to change.
//!   The job slot (a pointer to the caller's closure and a trampoline) shares
//!   its cache line, so a worker that sees the bump has the job in the same
//!   transfer.
//! - `threads_to_sync`: the join countdown, which doubles as the team's lock.
//!   `0` means idle. A caller takes the team with one compare-exchange from `0`
//!   to `threads` (one count per worker plus one for its own hold). Workers
//!   count down as they finish; at `1` every worker is done, and the caller
//!   hands the team back by storing `0`.
//! - `dynamic_progress`: the next unclaimed index of a dynamic fork
//!   (see `dynamic.rs`).
//! - `stop`: the user's stop request. Workers never read it: the holder
//!   turns it into an exit job, once.
//!
//! Also on those lines: the job slot and the `sleep` request beside the
//! generation (workers poll that line anyway), and the dispatcher's fork
//! frame beside the countdown (the holder owns that line after taking the
//! team). Parking adds one line of announcements, read on every fork and
//! written only by threads about to park (`wait/parking.rs`).
//!
//! # One fork
//!
//! 1. The caller takes the team: `threads_to_sync` `0 -> threads` (Acquire).
//! 2. It writes the job slot with plain writes, then stores
//!    `fork_generation + 1` (Release), which publishes the slot.
//! 3. Each worker loads the generation (Acquire), sees it change, reads the
//!    slot and runs its share.
//! 4. Each worker decrements `threads_to_sync` (Release). That decrement is its
//!    last access to anything the caller owns: panic payloads are stored in
//!    the team and the share's captures are dropped before it.
//! 5. The caller runs share 0 itself, waits for `threads_to_sync == 1`
//!    (Acquire), takes any panic payload, and stores `0` (Release).
//!
//! # Invariants
//!
//! - The job slot is written only by the thread that holds the team, and only
//!   while every worker waits for the next generation; it is read only by
//!   workers between that generation's Acquire and their Release decrement.
//!   The countdown's Release/Acquire pair and the lock's Release/Acquire pair
//!   order every read of fork *k*'s slot before the write of fork *k+1*'s.
//! - Only the team holder writes `fork_generation`, and fork *k+1* cannot
//!   start before every worker has finished fork *k*; after the exit job it
//!   is never bumped again. So a worker only ever sees the generation it last
//!   saw or the one after it, and the counter may wrap: "changed" is all a
//!   worker tests, never "greater".
//! - The caller does not return, even when a share panics, before the
//!   countdown reaches 1. Closures may therefore borrow the caller's stack;
//!   no public call hands out a guard that `mem::forget` could skip.
//! - A thread inside a task never waits for a busy team (std builds run such
//!   a call inline), and no_std builds never wait for a lock at all, so
//!   dispatch cannot deadlock. `stop` waits only when the team's fork is not
//!   among those the thread runs inside (the fork frames say), so that its
//!   holder cannot be waiting for it.
//! - Workers leave their loop only on an exit job, which only the holder
//!   publishes (once), so a worker never skips a fork it is counted in. A
//!   `stop` from inside a task of this team's fork only sets a flag; the
//!   holder of that fork sees it when it releases, since every fork in
//!   between joins first.
//!
//! # Spread forks (the `numa` feature)
//!
//! A distributed pool forks several teams as one: it holds its first team
//! (the lock), takes the others (free whenever the first is held, as only
//! that pool uses them), publishes one job to each, runs share 0, and joins
//! them all. The other teams' slot 0 is a stand-in held by the caller that
//! runs nothing, and their workers pass the pool-wide thread index to the
//! share. Each team keeps every invariant above on its own.
//!
//! The dispatch and join paths take no lock other than the countdown itself,
//! allocate nothing, and make no syscall while workers are awake (spinning):
//! only a fork that finds workers parked wakes them, and then its caller
//! parks in the join instead of spinning. The
//! uncontended path is one compare-exchange; only a caller that finds the
//! team busy, outside any task, retries it after waiting.

use crate::error::Error;
use crate::sync::{
    AtomicBool, AtomicGeneration, AtomicU32, AtomicUsize, Generation, Ordering, UnsafeCell,
};
use crate::wait::Waiter;
#[cfg(feature = "std")]
use crate::wait::{Parking, WaitPolicy};
use crossbeam_utils::CachePadded;

#[cfg(feature = "std")]
use std::{any::Any, boxed::Box, string::String, sync::Arc, thread::JoinHandle, vec::Vec};

/// A share of a fork: called with the thread index and the dynamic counter.
pub(crate) trait Share: Fn(usize, &AtomicUsize) + Sync {}
impl<F: Fn(usize, &AtomicUsize) + Sync> Share for F {}

/// What the holder publishes with a generation: a type-erased pointer to the
/// caller's share closure, or (with a null `data`) the order to exit. Two
/// words, so publishing it costs two stores to the line workers poll. Only
/// the holder writes the exit job, so a worker can never skip a fork it was
/// counted in.
#[derive(Clone, Copy)]
struct Job {
    data: *const (),
    run: unsafe fn(*const (), usize, &AtomicUsize),
}

impl Job {
    fn new<F: Share>(share: &F) -> Self {
        Job {
            data: (share as *const F).cast(),
            run: run_erased::<F>,
        }
    }

    fn exit() -> Self {
        Job {
            data: core::ptr::null(),
            run: run_nothing,
        }
    }

    fn is_exit(&self) -> bool {
        self.data.is_null()
    }
}

/// # Safety
/// `data` must point to a live `F` that stays valid for the whole call.
unsafe fn run_erased<F: Share>(data: *const (), thread_index: usize, progress: &AtomicUsize) {
    // SAFETY: the caller guarantees `data` came from `&F` in `Job::new` and
    // that the `F` outlives this call (the fork does not return before the
    // countdown says every share has ended).
    let share = unsafe { &*data.cast::<F>() };
    share(thread_index, progress);
}

/// The trampoline of the exit job, which no worker runs.
unsafe fn run_nothing(_: *const (), _: usize, _: &AtomicUsize) {}

/// The join countdown, and what only the holder writes during a fork: on one
/// cache line, which the holder owns exclusively right after taking the team,
/// so its per-fork writes cost no extra transfer.
struct JoinLine {
    threads_to_sync: AtomicU32,
    /// The holder's fork frame, so a worker inside a task can tell which
    /// forks wait for it (see [`Frame`]). Written by the holder before each
    /// publish, read by workers only inside a share.
    #[cfg(feature = "std")]
    dispatcher_frame: UnsafeCell<*const Frame>,
}

/// The generation counter and the job it publishes, on one cache line.
struct Dispatch {
    generation: AtomicGeneration,
    job: UnsafeCell<Job>,
    /// The generation during which [`Team::sleep`] was last called: a worker
    /// waiting past exactly this generation parks without spinning. The
    /// next fork moves the generation on, which ends the request, so the
    /// fork path never has to touch this. Here because workers poll this
    /// line anyway.
    #[cfg(feature = "std")]
    sleep_generation: AtomicGeneration,
}

/// The fork-join protocol: a team of `threads` threads that run one closure
/// together and join.
///
/// `Team` owns no threads, so it works without `std`: another runtime runs
/// [`Team::run_worker`] on each of its own threads, and any thread that calls
/// the `for_*` methods acts as thread 0 and runs share 0 itself. With the
/// `std` feature, [`ThreadPool`] wraps a `Team` and spawns the workers.
///
/// ```
/// use tine::Team;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let team = Team::new(3).unwrap();
/// let visited = AtomicUsize::new(0);
/// std::thread::scope(|scope| {
///     for _ in 1..team.threads() {
///         scope.spawn(|| team.run_worker().unwrap());
///     }
///     team.for_n(1000, |_prong| {
///         visited.fetch_add(1, Ordering::Relaxed);
///     });
///     team.stop(); // lets the workers return, so the scope can end
/// });
/// assert_eq!(visited.into_inner(), 1000);
/// ```
///
/// # Calls from several threads and from inside tasks
///
/// One fork runs at a time. With `std`, a second thread that calls while a
/// fork is in flight waits for it (calls are serialized). A call made from
/// inside a task of any tine fork, including a fork of this team, never waits
/// for a busy team: it runs inline, serially, on the calling thread, every
/// share in thread order, like OpenMP with nesting off. Without `std` a
/// thread cannot tell the two cases apart, so every call that finds the team
/// busy runs inline.
pub struct Team {
    dispatch: CachePadded<Dispatch>,
    join: CachePadded<JoinLine>,
    dynamic_progress: CachePadded<AtomicUsize>,
    /// Set by [`Team::stop`]: the user's request. Workers never read it; the
    /// holder turns it into an exit job (once, `exit_published`).
    stop: CachePadded<AtomicBool>,
    /// Whether the exit job has been published. Read and written only by
    /// the holder.
    exit_published: AtomicBool,
    threads: usize,
    initial_generation: Generation,
    /// Worker slots handed out so far (cold; `run_worker` only).
    claimed: AtomicUsize,
    waiter: Waiter,
    #[cfg(feature = "std")]
    parking: Parking,
    #[cfg(feature = "std")]
    panic: PanicSlot,
}

// SAFETY: the non-Sync fields are the `UnsafeCell`s. The job slot holds a
// pointer to a `Sync` closure, is written only by the team holder while every
// worker waits, and is read only by workers between the generation's Acquire
// and their Release decrement (see the invariants at the top of this file).
// The dispatcher frame follows the same rule. The panic payload is written
// by the one share that wins `PanicSlot::taken`, before its Release
// decrement, and read by the holder after the join's Acquire.
unsafe impl Sync for Team {}
// SAFETY: as above; the slot's pointer is only dereferenced during a fork.
unsafe impl Send for Team {}

// A panic in a task leaves the team consistent: the fork still joins, the
// countdown and lock are restored, and the payload is handed over whole. So
// observing a team after a caught panic is fine.
impl core::panic::UnwindSafe for Team {}
impl core::panic::RefUnwindSafe for Team {}

impl core::fmt::Debug for Team {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Team")
            .field("threads", &self.threads)
            .field("stopped", &self.stop.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Team {
    /// A team of `threads` threads, counting the caller. The embedder must run
    /// [`Team::run_worker`] on `threads - 1` threads of its own.
    ///
    /// With `std`, idle threads wait by [`WaitPolicy::Adaptive`]: spin, then
    /// park. Without it they spin.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`] if `threads` is 0, [`Error::TooManyThreads`] if
    /// it does not fit in a `u32`.
    pub fn new(threads: usize) -> Result<Self, Error> {
        #[cfg(feature = "std")]
        return Self::with_policy(threads, WaitPolicy::Adaptive);
        #[cfg(not(feature = "std"))]
        return Self::build(threads, 0, 0, Waiter::spin_only());
    }

    /// A team whose idle threads wait by `policy`.
    ///
    /// # Errors
    /// As [`Team::new`].
    #[cfg(feature = "std")]
    pub fn with_policy(threads: usize, policy: WaitPolicy) -> Result<Self, Error> {
        Self::build(threads, 0, 0, Waiter::new(policy, threads))
    }

    /// A team whose generation counter starts at `start`, for loom models of
    /// the counter's wraparound.
    #[cfg(loom)]
    #[doc(hidden)]
    pub fn with_generation(threads: usize, start: u32) -> Result<Self, Error> {
        Self::build(
            threads,
            start,
            0,
            Waiter::new(WaitPolicy::Adaptive, threads),
        )
    }

    pub(crate) fn build(
        threads: usize,
        start: Generation,
        claimed: usize,
        waiter: Waiter,
    ) -> Result<Self, Error> {
        if threads == 0 {
            return Err(Error::ZeroThreads);
        }
        // The countdown holds `threads` while a fork runs.
        let Ok(countdown_max) = u32::try_from(threads) else {
            return Err(Error::TooManyThreads { threads });
        };
        let _ = countdown_max;
        Ok(Team {
            dispatch: CachePadded::new(Dispatch {
                generation: AtomicGeneration::new(start),
                job: UnsafeCell::new(Job::exit()),
                #[cfg(feature = "std")]
                // A generation no worker waits past for 2^32 forks.
                sleep_generation: AtomicGeneration::new(start.wrapping_sub(1)),
            }),
            join: CachePadded::new(JoinLine {
                threads_to_sync: AtomicU32::new(0),
                #[cfg(feature = "std")]
                dispatcher_frame: UnsafeCell::new(core::ptr::null()),
            }),
            dynamic_progress: CachePadded::new(AtomicUsize::new(0)),
            stop: CachePadded::new(AtomicBool::new(false)),
            exit_published: AtomicBool::new(false),
            threads,
            initial_generation: start,
            claimed: AtomicUsize::new(claimed),
            waiter,
            #[cfg(feature = "std")]
            parking: Parking::new(),
            #[cfg(feature = "std")]
            panic: PanicSlot::new(),
        })
    }

    /// The number of threads in the team, the caller included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Turns the calling thread into one of the team's workers until
    /// [`Team::stop`] is called.
    ///
    /// Each call takes the next free worker slot (thread indices `1..threads`,
    /// in call order). A fork waits until every slot has a thread, so run this
    /// on `threads - 1` threads before or while forking.
    ///
    /// # Errors
    /// [`Error::NoWorkerSlot`] if every slot is already taken.
    pub fn run_worker(&self) -> Result<(), Error> {
        let workers = self.threads - 1;
        let claimed = self
            .claimed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
                (taken < workers).then_some(taken + 1)
            })
            .map_err(|_| Error::NoWorkerSlot { workers })?;
        // SAFETY: the fetch_update above hands each index in 1..threads to
        // exactly one caller.
        unsafe { self.work(claimed + 1) };
        Ok(())
    }

    /// Tells the workers to leave [`Team::run_worker`] once the fork in flight,
    /// if any, has joined. Later forks run on the calling thread alone.
    ///
    /// Called from inside a task of this team's fork (std builds; nested
    /// forks count), it returns at once and the fork that runs the task
    /// passes the stop on when it joins. Otherwise it waits for the fork in
    /// flight, if any, and then stops the workers. Without `std`, a thread
    /// cannot tell whether it runs inside a task of this team: calling `stop`
    /// from one then never returns, as joining one's own thread would not;
    /// use [`Team::try_stop`] there.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        #[cfg(feature = "std")]
        if frames_contain(self) {
            // Every fork between here and the holder joins before the holder
            // releases, so its `release` sees the flag.
            return;
        }
        // We are not inside a fork of this team, so its holder does not wait
        // for us: waiting for it cannot deadlock.
        if !self.acquire(1) {
            while !self.try_acquire(1) {
                self.waiter
                    .spin_until(|| self.join.threads_to_sync.load(Ordering::Relaxed) == 0);
            }
        }
        self.release();
    }

    /// Stops the workers if the team is idle, and returns whether it did.
    /// Never waits: if a fork is in flight it returns `false` and changes
    /// nothing.
    pub fn try_stop(&self) -> bool {
        if !self.try_acquire(1) {
            return false;
        }
        self.stop.store(true, Ordering::Relaxed);
        self.release();
        true
    }

    /// Puts idle workers straight into the parked state, without spinning,
    /// until the next fork, which wakes them. Use it before a long serial
    /// phase so the workers stop using CPU at once rather than after their
    /// spin budget.
    ///
    /// `microseconds` exists so that fork_union code compiles unchanged. tine
    /// needs no wake period: parked workers do not poll, and the next fork
    /// wakes them directly.
    ///
    /// ```
    /// let pool = tine::spawn(2);
    /// pool.sleep(0);
    /// std::thread::sleep(std::time::Duration::from_millis(5)); // workers parked
    /// pool.for_threads(|_, _| {}); // wakes them
    /// ```
    #[cfg(feature = "std")]
    pub fn sleep(&self, microseconds: u64) {
        let _ = microseconds;
        let generation = self.dispatch.generation.load(Ordering::Relaxed);
        // A fork racing with this call may move the generation first; then
        // the request is simply over, as it would be at that fork anyway.
        self.dispatch
            .sleep_generation
            .store(generation, Ordering::Relaxed);
    }

    /// Whether [`Team::stop`] or a successful [`Team::try_stop`] has been
    /// called.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Runs `share(thread_index, progress)` once on each thread of the team and
    /// returns when all of them have. With `reset_progress`, the dynamic
    /// counter is set to 0 first.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn fork<F: Share>(&self, reset_progress: bool, share: &F) {
        let reset = || {
            if reset_progress {
                self.dynamic_progress.store(0, Ordering::Relaxed);
            }
        };
        if self.threads == 1 || !self.fork_spread(&[], reset, share) {
            run_inline(self.threads, share);
        }
    }

    /// One fork over this team and every team in `others` at once: this
    /// team's fork with the caller as its thread 0, and a fork of each other
    /// team whose thread 0 is a stand-in that runs nothing (the caller
    /// publishes and joins it). The other teams' workers pass their own
    /// thread indices to `share` (see [`Team::work`]), so one closure serves
    /// all teams. Every team is published before the caller runs its share,
    /// so all of them run concurrently.
    ///
    /// Returns false, having run nothing, when this team is busy or stopped
    /// and the call must run inline instead. The teams in `others` must be
    /// taken only through this team (a holder of this team is their only
    /// user), so they are always free once this team is held.
    ///
    /// `prepare` runs once the teams are held and before anything is
    /// published: the place to reset counters the shares will use, which
    /// the generations' Release stores then publish. It must not panic: the
    /// teams would stay held.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn fork_spread<F: Share>(
        &self,
        others: &[Arc<Team>],
        prepare: impl FnOnce(),
        share: &F,
    ) -> bool {
        // `build` checked that `threads` fits in a u32.
        if !self.acquire(self.threads as u32) {
            return false;
        }
        if self.stop.load(Ordering::Relaxed) {
            self.release(); // publishes the exit if no one has yet
            return false;
        }
        for other in others {
            // Free by the contract above; the loop only guards the contract.
            while !other.try_acquire(other.threads as u32) {
                core::hint::spin_loop();
            }
        }
        prepare();
        let frame = Frame::dispatcher(self);
        let job = Job::new(share);
        let mut woke_workers = false;
        // The remote teams first: their workers have the longest way to go.
        for team in others.iter().map(|other| &**other).chain([self]) {
            team.join.dispatcher_frame.with_mut(|slot| {
                // SAFETY: as for the job slot in `publish`: we hold the team
                // and no worker is inside a share.
                unsafe { *slot = &frame }
            });
            woke_workers |= team.publish(job);
        }

        let outer = enter_frame(&frame);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            share(0, &self.dynamic_progress)
        }));
        leave_frame(outer);
        if let Err(payload) = result {
            self.panic.offer(payload);
        }

        let mut payload = None;
        for team in [self]
            .into_iter()
            .chain(others.iter().map(|other| &**other))
        {
            team.join(woke_workers);
            match (payload.is_some(), team.panic.take()) {
                (false, found) => payload = found,
                (true, Some(later)) => drop_payload(later),
                (true, None) => {}
            }
        }
        for other in others {
            other.release();
        }
        self.release();
        if let Some(payload) = payload {
            std::panic::resume_unwind(payload);
        }
        true
    }

    /// Runs `share(thread_index, progress)` once on each thread of the team and
    /// returns when all of them have. With `reset_progress`, the dynamic
    /// counter is set to 0 first.
    #[cfg(not(feature = "std"))]
    pub(crate) fn fork<F: Share>(&self, reset_progress: bool, share: &F) {
        // `build` checked that `threads` fits in a u32.
        if self.threads == 1 || !self.acquire(self.threads as u32) {
            return run_inline(self.threads, share);
        }
        if self.stop.load(Ordering::Relaxed) {
            self.release(); // publishes the exit if no one has yet
            return run_inline(self.threads, share);
        }
        if reset_progress {
            self.dynamic_progress.store(0, Ordering::Relaxed);
        }
        self.publish(Job::new(share));
        /// Joins and releases even if share 0 unwinds, so workers never
        /// outlive the closure they borrow.
        struct JoinOnDrop<'a>(&'a Team);
        impl Drop for JoinOnDrop<'_> {
            fn drop(&mut self) {
                self.0.join(false);
                self.0.release();
            }
        }
        let _join = JoinOnDrop(self);
        share(0, &self.dynamic_progress);
    }

    /// Writes the job slot, bumps the generation and wakes parked workers.
    /// Only the holder calls this, with every worker waiting. Returns whether
    /// some worker was parked.
    fn publish(&self, job: Job) -> bool {
        // SAFETY: we hold the team and every worker has finished the previous
        // fork (the countdown we acquired was 0, or reached 1 in our join),
        // so no one reads the slot until the bump below.
        self.dispatch.job.with_mut(|slot| unsafe { *slot = job });
        let generation = &self.dispatch.generation;
        let next = generation.load(Ordering::Relaxed).wrapping_add(1);
        // Release: publishes the job slot and counters; pairs with the
        // Acquire load in `wait_for_fork`.
        generation.store(next, Ordering::Release);
        #[cfg(feature = "std")]
        return self.parking.wake_workers(generation);
        #[cfg(not(feature = "std"))]
        false
    }

    /// Takes the team: `threads_to_sync` from 0 to `count`. Returns false when
    /// the team is busy and the call must run inline instead of waiting.
    #[inline]
    fn acquire(&self, count: u32) -> bool {
        self.try_acquire(count) || self.acquire_contended(count)
    }

    /// One attempt to take the team.
    #[inline]
    fn try_acquire(&self, count: u32) -> bool {
        // The previous fork's reads of the job slot happen before our write.
        let countdown = &self.join.threads_to_sync;
        // Acquire: pairs with the Release store in `release`.
        let taken = countdown.compare_exchange(0, count, Ordering::Acquire, Ordering::Relaxed);
        taken.is_ok()
    }

    #[cold]
    fn acquire_contended(&self, count: u32) -> bool {
        #[cfg(feature = "std")]
        {
            // Inside any fork, this thread may be what the holder waits for.
            if in_fork() {
                return false;
            }
            loop {
                self.waiter
                    .spin_until(|| self.join.threads_to_sync.load(Ordering::Relaxed) == 0);
                if self.try_acquire(count) {
                    return true;
                }
            }
        }
        #[cfg(not(feature = "std"))]
        {
            let _ = count;
            false
        }
    }

    /// Hands the team back. A stop requested meanwhile is passed on to the
    /// workers first, once, while we still hold the team.
    fn release(&self) {
        if self.stop.load(Ordering::Relaxed) && !self.exit_published.load(Ordering::Relaxed) {
            self.exit_published.store(true, Ordering::Relaxed);
            self.publish(Job::exit());
        }
        // Release: pairs with the Acquire compare-exchange in `acquire`.
        self.join.threads_to_sync.store(0, Ordering::Release);
    }

    /// Waits until every worker has finished its share.
    fn join(&self, woke_workers: bool) {
        #[cfg(feature = "std")]
        self.parking
            .wait_for_join(&self.waiter, &self.join.threads_to_sync, woke_workers);
        #[cfg(not(feature = "std"))]
        let _ = woke_workers;
        #[cfg(not(feature = "std"))]
        self.waiter.spin_until(|| {
            // Acquire: pairs with each worker's Release decrement (Countdown).
            self.join.threads_to_sync.load(Ordering::Acquire) == 1
        });
    }

    /// The worker loop of one worker, which passes `thread_index` to every
    /// share it runs.
    ///
    /// # Safety
    /// At most `threads - 1` threads may run this on one team at a time (one
    /// more would count down twice for one fork and let the caller return
    /// while a share still runs). A plain team's workers pass their slot,
    /// `1..threads`; a team in a spread fork passes indices of the whole
    /// spread (see [`Team::fork_spread`]).
    pub(crate) unsafe fn work(&self, thread_index: usize) {
        // A worker runs user code only inside shares of this team's forks,
        // so its frame can stay entered for its whole life: set the
        // thread-local once here, not twice per share.
        #[cfg(feature = "std")]
        let frame = Frame::worker(self);
        #[cfg(feature = "std")]
        let outer = enter_frame(&frame);
        let mut seen = self.initial_generation;
        loop {
            seen = self.wait_for_fork(seen);
            // SAFETY: the holder wrote the slot before the generation store we
            // acquired and will not write it again before our decrement.
            let job = self.dispatch.job.with(|slot| unsafe { *slot });
            if job.is_exit() {
                break;
            }
            self.run_worker_share(job, thread_index);
        }
        #[cfg(feature = "std")]
        leave_frame(outer);
    }

    /// Waits for the generation to move past `seen`; returns the new one.
    #[inline]
    fn wait_for_fork(&self, seen: Generation) -> Generation {
        let generation = &self.dispatch.generation;
        #[cfg(feature = "std")]
        return self.parking.wait_for_fork(
            &self.waiter,
            generation,
            &self.dispatch.sleep_generation,
            seen,
        );
        #[cfg(not(feature = "std"))]
        {
            let mut now = seen;
            self.waiter.spin_until(|| {
                // Acquire: pairs with the Release store in `publish`,
                // so the job slot written before it is ours.
                now = generation.load(Ordering::Acquire);
                now != seen
            });
            now
        }
    }

    fn run_worker_share(&self, job: Job, thread_index: usize) {
        // Counts down on every way out, unwinding included.
        let countdown = Countdown(self);
        #[cfg(feature = "std")]
        {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: the job's closure outlives the fork, and the fork
                // cannot end before `countdown` drops below.
                unsafe { (job.run)(job.data, thread_index, &self.dynamic_progress) }
            }));
            if let Err(payload) = result {
                self.panic.offer(payload);
            }
        }
        #[cfg(not(feature = "std"))]
        {
            // Without std nothing can catch a panic, and a worker that
            // unwound out of its loop would leave every later fork waiting
            // for it forever. Reached only by unwinding, this guard panics
            // again, which aborts the process instead.
            struct AbortOnUnwind;
            impl Drop for AbortOnUnwind {
                fn drop(&mut self) {
                    panic!("a tine task panicked in a no_std build, where panics cannot be caught");
                }
            }
            let abort = AbortOnUnwind;
            // SAFETY: as above.
            unsafe { (job.run)(job.data, thread_index, &self.dynamic_progress) };
            core::mem::forget(abort);
        }
        drop(countdown);
    }
}

/// Decrements the join countdown when dropped: a worker's last touch of the
/// fork. The last worker then wakes the caller if it parked; that touches
/// only the team, never the caller's frame.
struct Countdown<'a>(&'a Team);

impl Drop for Countdown<'_> {
    fn drop(&mut self) {
        let countdown = &self.0.join.threads_to_sync;
        // Release: pairs with the Acquire load in the caller's join, publishing
        // this share's writes (and any panic payload) to the caller.
        let before = countdown.fetch_sub(1, Ordering::Release);
        #[cfg(feature = "std")]
        if before == 2 {
            self.0.parking.wake_caller(countdown);
        }
        #[cfg(not(feature = "std"))]
        let _ = before;
    }
}

/// Runs every share of a fork on the calling thread, in thread order, with a
/// private dynamic counter so an outer fork's counter is left alone.
fn run_inline<F: Share>(threads: usize, share: &F) {
    let progress = AtomicUsize::new(0);
    for thread_index in 0..threads {
        share(thread_index, &progress);
    }
}

/// One level of fork nesting: "this thread runs a share of `team`'s fork,
/// which runs inside `parent`". A dispatcher's frame lives on its stack for
/// the whole fork, and its parent is whatever fork the dispatcher itself
/// runs in. A worker's frame has no parent of its own: it runs inside the
/// fork of `team`'s current dispatcher, whose frame the team records. The
/// chain tells a thread which forks (transitively) wait for it.
#[cfg(feature = "std")]
pub(crate) struct Frame {
    team: *const Team,
    /// The enclosing fork; for a worker's frame, null (see above).
    parent: *const Frame,
    worker: bool,
}

#[cfg(feature = "std")]
impl Frame {
    /// The dispatcher's frame for a fork of `team`.
    fn dispatcher(team: &Team) -> Self {
        Frame {
            team,
            parent: CURRENT_FRAME.with(|current| current.get()),
            worker: false,
        }
    }

    /// A worker's frame: entered once for the worker's life, it stands for
    /// whichever fork of `team` the worker is running a share of.
    fn worker(team: &Team) -> Self {
        Frame {
            team,
            parent: core::ptr::null(),
            worker: true,
        }
    }

    /// The fork this frame's fork runs inside.
    fn enclosing(&self) -> *const Frame {
        if !self.worker {
            return self.parent;
        }
        // This worker frame is live, so its team's fork is running and its
        // holder wrote `dispatcher_frame` before publishing it (the
        // generation's Release/Acquire orders the write before our read).
        // SAFETY: the holder's frame lives until the fork joins, which waits
        // for us.
        unsafe {
            let team = &*self.team;
            team.join.dispatcher_frame.with(|slot| *slot)
        }
    }
}

#[cfg(all(feature = "std", not(loom)))]
std::thread_local! {
    /// The innermost fork this thread is running a share of; null outside
    /// every fork.
    static CURRENT_FRAME: core::cell::Cell<*const Frame> =
        const { core::cell::Cell::new(core::ptr::null()) };
}

#[cfg(all(feature = "std", loom))]
loom::thread_local! {
    static CURRENT_FRAME: core::cell::Cell<*const Frame> =
        core::cell::Cell::new(core::ptr::null());
}

/// Makes `frame` this thread's innermost fork; returns the previous one.
#[cfg(feature = "std")]
fn enter_frame(frame: &Frame) -> *const Frame {
    CURRENT_FRAME.with(|current| current.replace(frame))
}

#[cfg(feature = "std")]
fn leave_frame(outer: *const Frame) {
    CURRENT_FRAME.with(|current| current.set(outer));
}

/// Whether this thread is running a share of any fork.
#[cfg(feature = "std")]
fn in_fork() -> bool {
    CURRENT_FRAME.with(|current| !current.get().is_null())
}

/// Whether this thread runs (transitively) inside a fork of `team`.
#[cfg(feature = "std")]
fn frames_contain(team: &Team) -> bool {
    let mut frame = CURRENT_FRAME.with(|current| current.get());
    while !frame.is_null() {
        // SAFETY: every frame in the chain belongs to a fork that is still
        // running (it waits for this thread), so its stack slot is live.
        let this = unsafe { &*frame };
        if core::ptr::eq(this.team, team) {
            return true;
        }
        frame = this.enclosing();
    }
    false
}

/// Holds the first panic payload of a fork until the caller resumes it.
#[cfg(feature = "std")]
struct PanicSlot {
    taken: AtomicBool,
    payload: UnsafeCell<Option<Box<dyn Any + Send>>>,
}

#[cfg(feature = "std")]
impl PanicSlot {
    fn new() -> Self {
        PanicSlot {
            taken: AtomicBool::new(false),
            payload: UnsafeCell::new(None),
        }
    }

    /// Keeps `payload` if it is the fork's first, else drops it here.
    fn offer(&self, payload: Box<dyn Any + Send>) {
        // Relaxed: only the winner writes the slot, and the caller reads it
        // after the join's Acquire, which orders the winner's write first.
        if !self.taken.swap(true, Ordering::Relaxed) {
            // SAFETY: the swap made us the only writer in this fork; the
            // caller reads only after the join.
            self.payload
                .with_mut(|slot| unsafe { *slot = Some(payload) });
        } else {
            drop_payload(payload);
        }
    }

    /// Takes this fork's payload. Only the holder calls it, after the join.
    fn take(&self) -> Option<Box<dyn Any + Send>> {
        if !self.taken.load(Ordering::Relaxed) {
            return None;
        }
        self.taken.store(false, Ordering::Relaxed);
        // SAFETY: every share has ended (joined), so no one else touches it.
        self.payload.with_mut(|slot| unsafe { (*slot).take() })
    }
}

/// Drops a payload that lost the race to be resumed. A payload whose own
/// `Drop` panics is leaked rather than allowed to unwind out of a worker.
#[cfg(feature = "std")]
fn drop_payload(payload: Box<dyn Any + Send>) {
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(payload)));
    if let Err(second) = dropped {
        core::mem::forget(second);
    }
}

/// A pool of worker threads that run fork-join calls with the caller.
///
/// `ThreadPool::try_spawn(n)` starts `n - 1` workers; the thread that calls a
/// `for_*` method is thread 0 and runs its share too. Every call blocks until
/// all shares have finished, so closures may borrow from the caller's stack.
/// The method names follow fork_union's Rust crate.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let pool = tine::ThreadPool::try_spawn(4)?;
/// let inputs: Vec<u64> = (0..1000).collect(); // borrowed by the tasks
/// let sum = AtomicU64::new(0);
/// pool.for_n(inputs.len(), |prong| {
///     sum.fetch_add(inputs[prong.task_index].pow(2), Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), (0..1000u64).map(|x| x * x).sum());
/// # Ok::<(), tine::Error>(())
/// ```
///
/// Dispatch takes `&self`, so a pool can live in an `Arc` or a `static`;
/// see [`Team`] for how concurrent and nested calls behave. A panic in any
/// share is caught, the fork still joins, and the first payload resumes on
/// the caller; the pool stays usable. Dropping the pool stops and joins every
/// worker.
#[cfg(feature = "std")]
pub struct ThreadPool {
    team: Arc<Team>,
    workers: Vec<JoinHandle<()>>,
    /// Puts the caller's affinity back after the workers are joined (fields
    /// drop after `Drop::drop`).
    #[cfg(feature = "numa")]
    caller_pin: Option<crate::numa::CallerPin>,
}

#[cfg(feature = "std")]
impl core::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("threads", &self.team.threads)
            .finish_non_exhaustive()
    }
}

/// Configures a [`ThreadPool`] before spawning it.
///
/// ```
/// let pool = tine::ThreadPool::builder()
///     .threads(3)
///     .name("solver")
///     .stack_size(1 << 20)
///     .build()?;
/// assert_eq!(pool.threads(), 3);
/// # Ok::<(), tine::Error>(())
/// ```
#[cfg(feature = "std")]
#[derive(Debug, Clone)]
pub struct Builder {
    threads: usize,
    name: String,
    stack_size: Option<usize>,
    wait_policy: WaitPolicy,
    #[cfg(feature = "numa")]
    pin: Option<(crate::numa::Topology, crate::numa::Pin)>,
    #[cfg(feature = "numa")]
    strict_pinning: bool,
    #[cfg(feature = "numa")]
    pin_caller: bool,
    #[cfg(test)]
    fail_spawn_at: Option<usize>,
}

#[cfg(feature = "std")]
impl Default for Builder {
    fn default() -> Self {
        Builder {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            name: String::from("tine"),
            stack_size: None,
            wait_policy: WaitPolicy::Adaptive,
            #[cfg(feature = "numa")]
            pin: None,
            #[cfg(feature = "numa")]
            strict_pinning: true,
            #[cfg(feature = "numa")]
            pin_caller: false,
            #[cfg(test)]
            fail_spawn_at: None,
        }
    }
}

/// The longest thread name the OS keeps, in bytes (Linux: 16 with the NUL).
#[cfg(feature = "std")]
const MAX_THREAD_NAME: usize = if cfg!(any(target_os = "linux", target_os = "android")) {
    15
} else {
    63
};

#[cfg(feature = "std")]
impl Builder {
    /// Threads in the pool, counting the caller. Default: the CPUs this
    /// process may use (`available_parallelism`).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The worker names' prefix: workers are named `{name}:{index}`, the
    /// prefix cut so the whole name fits the OS limit. Default `"tine"`.
    pub fn name(mut self, name: &str) -> Self {
        self.name = String::from(name);
        self
    }

    /// The workers' stack size in bytes. Default: std's.
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// How idle workers (and the caller, in the join) wait. Default:
    /// [`WaitPolicy::Adaptive`].
    pub fn wait_policy(mut self, policy: WaitPolicy) -> Self {
        self.wait_policy = policy;
        self
    }

    /// Spin for `spin` after each fork, then park: shorthand for
    /// [`WaitPolicy::SpinThenPark`].
    pub fn spin_budget(mut self, spin: core::time::Duration) -> Self {
        self.wait_policy = WaitPolicy::SpinThenPark(spin);
        self
    }

    /// Pins the workers as `pin` says, on `topology` (feature `numa`). Each
    /// worker binds itself before it joins the team. The caller's thread,
    /// thread 0, is left alone unless [`Builder::pin_caller`] asks.
    ///
    /// ```
    /// use tine::numa::{Pin, Topology};
    ///
    /// let topology = Topology::discover()?;
    /// let pool = tine::ThreadPool::builder()
    ///     .threads(topology.cores().min(4))
    ///     .pin(&topology, Pin::Cores)
    ///     .build()?;
    /// pool.for_threads(|_, _| {});
    /// # Ok::<(), tine::Error>(())
    /// ```
    #[cfg(feature = "numa")]
    pub fn pin(mut self, topology: &crate::numa::Topology, pin: crate::numa::Pin) -> Self {
        self.pin = Some((topology.clone(), pin));
        self
    }

    /// Whether pinning is strict. Strict (`true`, the default) refuses to
    /// put two threads on one CPU: more threads than CPUs fails with
    /// [`Error::NotEnoughCpus`]. `false` lets threads wrap round-robin.
    #[cfg(feature = "numa")]
    pub fn strict_pinning(mut self, strict: bool) -> Self {
        self.strict_pinning = strict;
        self
    }

    /// Whether to pin the thread that builds the pool (thread 0) too.
    /// Default `false`. If set, dropping the pool gives that thread back
    /// the affinity it had, whichever thread drops it.
    #[cfg(feature = "numa")]
    pub fn pin_caller(mut self, pin_caller: bool) -> Self {
        self.pin_caller = pin_caller;
        self
    }

    /// Spawns the pool.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`], [`Error::InvalidName`], or [`Error::Spawn`] if
    /// the OS refuses a thread; workers already started are then stopped and
    /// joined before this returns. With pinning (feature `numa`), also the
    /// errors of `numa::Topology::plan`, and `Error::Hwloc` if a thread
    /// cannot be bound.
    pub fn build(self) -> Result<ThreadPool, Error> {
        if self.name.contains('\0') {
            return Err(Error::InvalidName);
        }
        let workers = self.threads.checked_sub(1).ok_or(Error::ZeroThreads)?;
        // Every worker slot is taken here, so `run_worker` cannot be called
        // on a pool's team.
        let waiter = Waiter::new(self.wait_policy, self.threads);
        let team = Arc::new(Team::build(self.threads, 0, workers, waiter)?);
        #[cfg(feature = "numa")]
        let placement = match &self.pin {
            Some((topology, pin)) => Some(crate::numa::Placement::new(
                topology,
                *pin,
                self.threads,
                self.strict_pinning,
                self.pin_caller,
            )?),
            None => None,
        };
        let mut pool = ThreadPool {
            team,
            workers: Vec::with_capacity(workers),
            #[cfg(feature = "numa")]
            caller_pin: None,
        };
        for index in 1..=workers {
            #[cfg(feature = "numa")]
            let setup = placement
                .as_ref()
                .and_then(|placement| placement.worker_setup(index));
            #[cfg(not(feature = "numa"))]
            let setup = None;
            // Dropping the pool on an error stops and joins the workers
            // started so far.
            pool.workers
                .push(self.spawn_worker(&pool.team, index, setup)?);
        }
        #[cfg(feature = "numa")]
        if let Some(placement) = &placement {
            pool.caller_pin = placement.pin_caller()?;
        }
        Ok(pool)
    }

    fn spawn_worker(
        &self,
        team: &Arc<Team>,
        index: usize,
        setup: Option<WorkerSetup>,
    ) -> Result<JoinHandle<()>, Error> {
        #[cfg(test)]
        if self.fail_spawn_at == Some(index) {
            let source = std::io::Error::new(std::io::ErrorKind::WouldBlock, "refused by the test");
            return Err(Error::Spawn { index, source });
        }
        // SAFETY: this is the only thread ever given `index` for this team
        // (`build` runs each index once and `run_worker` has no free slot).
        unsafe { spawn_worker(&self.name, self.stack_size, team, index, setup) }
    }
}

/// What a worker runs on its own thread before it joins its team, such as
/// pinning itself. If it fails, the worker never joins and the spawn fails.
#[cfg(feature = "std")]
pub(crate) type WorkerSetup = Box<dyn FnOnce() -> Result<(), Error> + Send>;

/// Starts a worker thread of `team`, named
/// `{prefix}:{thread_index}`, which runs `setup` and then the worker loop
/// with `thread_index` (see [`Team::work`]). With a setup, waits for it and
/// returns its error.
///
/// # Safety
/// As for [`Team::work`]: the team must not get more than `threads - 1`
/// workers in all.
#[cfg(feature = "std")]
pub(crate) unsafe fn spawn_worker(
    prefix: &str,
    stack_size: Option<usize>,
    team: &Arc<Team>,
    thread_index: usize,
    setup: Option<WorkerSetup>,
) -> Result<JoinHandle<()>, Error> {
    let mut builder = std::thread::Builder::new().name(thread_name(prefix, thread_index));
    if let Some(bytes) = stack_size {
        builder = builder.stack_size(bytes);
    }
    let team = Arc::clone(team);
    let spawn_error = |source| Error::Spawn {
        index: thread_index,
        source,
    };
    let Some(setup) = setup else {
        // SAFETY: guaranteed by the caller.
        return builder
            .spawn(move || unsafe { team.work(thread_index) })
            .map_err(spawn_error);
    };
    let (report, outcome) = std::sync::mpsc::sync_channel(1);
    let handle = builder
        .spawn(move || {
            let ready = setup();
            let joins = ready.is_ok();
            let _ = report.send(ready);
            if joins {
                // SAFETY: guaranteed by the caller.
                unsafe { team.work(thread_index) }
            }
        })
        .map_err(spawn_error)?;
    match outcome.recv() {
        Ok(Ok(())) => Ok(handle),
        Ok(Err(error)) => {
            let _ = handle.join();
            Err(error)
        }
        // The setup panicked before reporting; the thread has ended.
        Err(_) => {
            let _ = handle.join();
            let source = std::io::Error::other("the worker's set-up panicked");
            Err(spawn_error(source))
        }
    }
}

/// `{prefix}:{index}`, with the prefix cut on a char boundary so the whole
/// name fits in [`MAX_THREAD_NAME`] bytes.
#[cfg(feature = "std")]
fn thread_name(prefix: &str, index: usize) -> String {
    use core::fmt::Write;
    let mut suffix = String::new();
    let _ = write!(suffix, ":{index}");
    let mut keep = MAX_THREAD_NAME
        .saturating_sub(suffix.len())
        .min(prefix.len());
    while !prefix.is_char_boundary(keep) {
        keep -= 1;
    }
    let mut name = String::from(&prefix[..keep]);
    name.push_str(&suffix);
    name
}

#[cfg(feature = "std")]
impl ThreadPool {
    /// Spawns a pool of `threads` threads, counting the caller: `threads - 1`
    /// workers named `tine:{index}`.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`] or [`Error::Spawn`].
    pub fn try_spawn(threads: usize) -> Result<Self, Error> {
        Builder::default().threads(threads).build()
    }

    /// Like [`ThreadPool::try_spawn`], with workers named `{name}:{index}`.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`], [`Error::InvalidName`] or [`Error::Spawn`].
    pub fn try_named_spawn(name: &str, threads: usize) -> Result<Self, Error> {
        Builder::default().threads(threads).name(name).build()
    }

    /// A [`Builder`] for setting names, stack size and more.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The number of threads in the pool, the caller included.
    pub fn threads(&self) -> usize {
        self.team.threads
    }

    /// Parks idle workers at once until the next fork; see [`Team::sleep`].
    pub fn sleep(&self, microseconds: u64) {
        self.team.sleep(microseconds);
    }

    /// The pool's team. Not public: its `stop` must stay with the owner.
    pub(crate) fn team(&self) -> &Team {
        &self.team
    }
}

#[cfg(feature = "std")]
impl Drop for ThreadPool {
    fn drop(&mut self) {
        // `&mut self`: no fork is in flight, so this stops at once.
        self.team.stop();
        for worker in self.workers.drain(..) {
            // A worker catches every panic of its tasks, so it cannot have
            // panicked; if it somehow did, there is nothing left to clean up.
            let _ = worker.join();
        }
    }
}

/// Spawns a [`ThreadPool`] of `threads` threads, panicking if that fails.
///
/// Use [`ThreadPool::try_spawn`] to handle the error instead.
///
/// # Panics
/// If `threads` is 0 or the OS refuses to start a thread.
#[cfg(feature = "std")]
pub fn spawn(threads: usize) -> ThreadPool {
    ThreadPool::try_spawn(threads)
        .unwrap_or_else(|error| panic!("tine::spawn({threads}) failed: {error}"))
}

#[cfg(all(test, feature = "std", not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn thread_names_fit_the_os_limit_and_keep_the_index() {
        assert_eq!(thread_name("tine", 3), "tine:3");
        let long = thread_name("a-very-long-pool-name", 12);
        assert!(long.len() <= MAX_THREAD_NAME);
        assert!(long.ends_with(":12"), "{long}");
        // A multi-byte char straddling the cut is dropped whole.
        let utf8 = thread_name("ééééééééé", 7);
        assert!(
            utf8.len() <= MAX_THREAD_NAME && utf8.ends_with(":7"),
            "{utf8}"
        );
    }

    #[test]
    fn a_spawn_failure_midway_stops_and_joins_the_started_workers() {
        let builder = Builder {
            fail_spawn_at: Some(3),
            ..Builder::default().threads(5).name("halfspawn")
        };
        match builder.build() {
            Err(Error::Spawn { index: 3, source }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::WouldBlock)
            }
            other => panic!("expected a spawn error at worker 3, got {other:?}"),
        }
        // Workers 1 and 2 had started; they must be joined, not left running.
        #[cfg(target_os = "linux")]
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let comm = std::fs::read_to_string(task.unwrap().path().join("comm"));
            let comm = comm.unwrap_or_default();
            assert!(
                !comm.starts_with("halfspawn"),
                "worker {comm} outlived the failed spawn"
            );
        }
        // The pool built right after works: nothing was left half-started.
        let pool = ThreadPool::try_spawn(5).unwrap();
        let hits = AtomicUsize::new(0);
        pool.team.fork(false, &|_, _: &AtomicUsize| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 5);
    }
}
