//! The fork-join protocol: [`Team`]. It owns no threads and needs no `std`.
//!
//! # State
//!
//! Four words, each on its own cache line:
//! - `fork_generation`: bumped once per fork. Workers wait for it to change.
//!   The job slot (a pointer to the caller's share) and the fork's join
//!   target share its cache line, so a worker that sees the bump has the
//!   job in the same transfer.
//! - `done`: the shares workers have finished, counted up and never reset
//!   (it wraps). A fork of `threads` threads is joined when `done` reaches
//!   its target, the previous fork's target plus `threads - 1`.
//! - `held`: the team's lock, `0` when idle. A caller takes the team with one
//!   compare-exchange from `0` to `1` and hands it back by storing `0`, or
//!   `2` (idle, reserved for the callers parked waiting for it: `lock.rs`,
//!   `wait/parking.rs`) when such callers have announced themselves. Only
//!   callers touch this line, so a caller that forks again and again keeps
//!   it in its own cache: neither taking the team nor handing it back waits
//!   for another core, and the countdown that workers write is never reset.
//! - `stop_requested`: the user's stop request. Workers never read it: the
//!   holder turns it into an exit job, once.
//!
//! A dynamic schedule's progress counter (the fourth counter of
//! fork_union's protocol) lives on the caller's stack for the length of one
//! call, on a cache line of its own (`schedule/dynamic.rs`): a team needs no
//! state that a single call could keep.
//!
//! Also on those lines: the job slot, the join target and the `sleep`
//! request beside the generation (workers poll that line anyway), and the
//! dispatcher's fork frame beside the lock (only the holder writes it). With
//! `std`, parking adds one line of announcements, read on every fork and
//! written only by threads about to park (`wait/parking.rs`).
//!
//! # One fork (`fork.rs`)
//!
//! 1. The caller takes the team: `held` idle `-> held` (Acquire).
//! 2. It writes the job slot and the join target (the last one plus
//!    `threads - 1`) with plain writes, then stores `fork_generation + 1`
//!    (Release), which publishes both.
//! 3. Each worker loads the generation (Acquire), sees it change, reads the
//!    slot and the target, and runs its share (`worker.rs`).
//! 4. Each worker adds 1 to `done` (Release). That increment is its last
//!    access to anything the caller owns: panic payloads are stored in the
//!    team and the share's captures are dropped before it. The worker whose
//!    increment reaches the target wakes the caller if it parked.
//! 5. The caller runs share 0 itself, waits for `done == target` (Acquire),
//!    takes any panic payload, and stores `held` idle, or reserved for the
//!    callers parked waiting for it (Release; `lock.rs`).
//!
//! # Invariants
//!
//! - The job slot is written only by the thread that holds the team, and only
//!   while every worker waits for the next generation; it is read only by
//!   workers between that generation's Acquire and their Release decrement.
//!   Workers read the join target together with the slot, before their
//!   increment. The increments' Release/Acquire pair (the increments form
//!   one release sequence, so the join's Acquire load synchronizes with
//!   every one of them) and the lock's Release/Acquire pair order every read
//!   of fork *k*'s slot and target before the write of fork *k+1*'s.
//! - `done` is only ever incremented, once per worker share, and a fork's
//!   target is exactly the count it will reach: no fork can be joined
//!   early, since fork *k+1* is published only after `done` reached fork
//!   *k*'s target. It wraps, so the join tests equality, never "greater".
//! - Only the team holder writes `fork_generation`, and fork *k+1* cannot
//!   start before every worker has finished fork *k*; after the exit job it
//!   is never bumped again. So a worker only ever sees the generation it last
//!   saw or the one after it, and the counter may wrap: "changed" is all a
//!   worker tests, never "greater".
//! - The caller does not return, even when a share panics, before `done`
//!   reaches the fork's target. Closures may therefore borrow the caller's stack;
//!   no public call hands out a guard that `mem::forget` could skip.
//! - A thread inside a task never waits for a busy team (std builds run such
//!   a call inline), any other caller waits for a bounded time before it
//!   runs inline too (a helper thread of a task looks like any other
//!   caller), and no_std builds never wait for a lock at all, so dispatch
//!   cannot deadlock.
//! - Losing panic payloads are dropped only after the holder has handed
//!   every team back and left its frame (`panic.rs`), so their `Drop` may
//!   call the pool. `stop` waits only when the team's fork is not
//!   among those the thread runs inside (the fork frames say), so that its
//!   holder cannot be waiting for it.
//! - Workers leave their loop only on an exit job, which only the holder
//!   publishes (once), so a worker never skips a fork it is counted in. A
//!   `stop` from inside a task of this team's fork only sets a flag; the
//!   holder of that fork sees it when it hands the team back, since every
//!   fork in between joins first.
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
//! # Files
//!
//! - `mod.rs`: the state, construction, `stop` and `sleep`.
//! - `job.rs`: the job slot's contents.
//! - `lock.rs`: taking and handing back the team.
//! - `fork.rs`: one fork, from taking the team to the join.
//! - `worker.rs`: the worker loop.
//! - `std_env.rs` or `bare_env.rs`, chosen once below: what differs with
//!   `std` (catching panics, parking, nesting frames) behind one set of
//!   functions, so the protocol files above carry no `cfg`.
//! - `nesting.rs`, `panic.rs` (std): fork frames and the panic slot.
//!
//! The dispatch and join paths take no lock other than `held` itself,
//! allocate nothing, and make no syscall on a hot fork (waits yield the CPU
//! only after 50 µs, or when stacked on one CPU with their partner; see
//! `wait/mod.rs`): only a fork that finds workers parked wakes them, and then its caller parks in
//! the join instead of spinning. The uncontended path is one
//! compare-exchange; only a caller that finds the team busy, outside any
//! task, retries it after waiting (parked, and woken by the hand-back).
//!
//! One state machine, its invariants and every ordering that keeps them
//! stay in this one file (a little over the project's ~450 lines), so that
//! each ordering can be checked against its pair without leaving it.

mod fork;
mod job;
mod lock;
mod worker;

#[cfg(feature = "std")]
#[path = "std_env.rs"]
mod env;
#[cfg(not(feature = "std"))]
#[path = "bare_env.rs"]
mod env;
#[cfg(feature = "std")]
mod nesting;
#[cfg(feature = "std")]
pub(crate) mod panic;

#[cfg(feature = "std")]
pub use env::DEFAULT_BUSY_WAIT;
#[cfg_attr(not(feature = "numa"), allow(unused_imports))] // the distributed pool
pub(crate) use fork::run_inline;
pub use job::Share;
/// Whether this thread is running a share of some fork: a call it makes
/// would run inline.
#[cfg(feature = "std")]
pub(crate) use nesting::in_fork as in_task;
#[cfg(feature = "std")]
pub(crate) use nesting::{
    frames_contain, innermost_fork_threads, innermost_frame_id, innermost_thread_index, leave,
    Frame, Outer,
};

use crate::error::Error;
use crate::sync::UnsafeCell;
use crate::sync::{AtomicBool, AtomicGeneration, AtomicU32, AtomicUsize, Generation, Ordering};
use crate::wait::Waiter;
use crossbeam_utils::CachePadded;
use job::Job;

/// The generation counter and the job it publishes, on one cache line.
struct Dispatch {
    generation: AtomicGeneration,
    job: UnsafeCell<Job>,
    /// The value of [`DoneLine::done`] at which the published fork is
    /// joined. Written by the holder with the job; workers read it with the
    /// job, before their increment, to tell whether theirs is the last.
    join_target: UnsafeCell<u32>,
    /// The generation during which [`Team::sleep`] was last called: a worker
    /// waiting past exactly this generation parks without spinning. The
    /// next fork moves the generation on, which ends the request, so the
    /// fork path never has to touch this. Here because workers poll this
    /// line anyway.
    sleep_generation: AtomicGeneration,
}

/// The count of finished worker shares: written by workers, polled by the
/// holder in the join.
struct DoneLine {
    done: AtomicU32,
}

/// The lock, and what only the holder writes during a fork: on a line that
/// workers never write, so a caller that forks again and again keeps it in
/// its own cache.
struct LockLine {
    /// `LOCK_IDLE`, `LOCK_HELD` or `LOCK_RESERVED` (`lock.rs`).
    held: AtomicU32,
    /// The holder's fork frame, so a worker inside a task can tell which
    /// forks wait for it (`nesting.rs`; nothing without `std`). Workers read
    /// it only on the cold paths that ask.
    dispatcher_frame: env::FrameSlot,
}

/// Who may call [`Team::run_worker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slots {
    /// An embedder brings the workers: `run_worker` hands out the slots.
    Open,
    /// A pool spawned the workers itself: `run_worker` finds no free slot.
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // pools need std
    Spawned,
}

/// The fork-join protocol: a team of `threads` threads that run one closure
/// together and join.
///
/// `Team` owns no threads, so it works without `std`: another runtime runs
/// [`Team::run_worker`] on each of its own threads, and any thread that calls
/// the `for_*` methods acts as thread 0 and runs share 0 itself. With the
/// `std` feature, [`crate::pool::ThreadPool`] wraps a `Team` and spawns the
/// workers. The `for_*` methods come from [`crate::schedule::ForkJoin`].
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
/// fork is in flight waits for it, parked, for at most
/// [`crate::team::DEFAULT_BUSY_WAIT`] (100 ms; [`crate::pool::Builder::busy_wait`] sets
/// it for a pool); if the team is still busy then, the call runs inline.
/// The bound is what keeps a helper thread safe: a task may spawn a thread
/// and join it, and if that thread calls the same pool, the fork waits for
/// the task, the task for its helper, and an unbounded wait would close
/// the cycle. A call made from inside a task of any tine fork, including a
/// fork of this team, never waits for a busy team: it runs inline at once.
/// Inline means serially, on the calling thread, every share in thread
/// order, like OpenMP with nesting off; a panicking share does not stop the
/// others, and the first payload resumes at the end, as in a real fork.
/// Without `std` a thread cannot tell the cases apart, so every call that
/// finds the team busy runs inline.
pub struct Team {
    dispatch: CachePadded<Dispatch>,
    done_line: CachePadded<DoneLine>,
    lock_line: CachePadded<LockLine>,
    /// Set by [`Team::stop`]: the user's request. Workers never read it; the
    /// holder turns it into an exit job (once, `exit_published`).
    stop_requested: CachePadded<AtomicBool>,
    /// Whether the exit job has been published. Read and written only by
    /// the holder.
    exit_published: AtomicBool,
    threads: usize,
    /// The colocation every worker of this team reports (0 but in a
    /// distributed pool).
    colocation: usize,
    initial_generation: Generation,
    /// Worker slots handed out so far (cold; `run_worker` only).
    claimed: AtomicUsize,
    waiter: Waiter,
    /// Parking and the panic slot (nothing without `std`).
    env: env::Env,
}

// SAFETY: the non-Sync fields are the `UnsafeCell`s. The job slot holds a
// pointer to a `Sync` closure; it and the join target are written only by
// the team holder while every worker waits, and read only by workers between
// the generation's Acquire and their Release increment (see the invariants
// at the top of this file). The dispatcher frame follows the same rule. The
// panic payload is written by the one share that wins the panic slot, before
// its Release increment, and read by the holder after the join's Acquire; the
// losers' list likewise, each push under the slot's own spin lock.
unsafe impl Sync for Team {}
// SAFETY: as above; the slot's pointer is only dereferenced during a fork.
unsafe impl Send for Team {}

// A panic in a task leaves the team consistent: the fork still joins, the
// `done` count and the lock are restored, and the payload is handed over whole. So
// observing a team after a caught panic is fine.
impl core::panic::UnwindSafe for Team {}
impl core::panic::RefUnwindSafe for Team {}

impl core::fmt::Debug for Team {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Team")
            .field("threads", &self.threads)
            .field("stopped", &self.is_stopped())
            .finish_non_exhaustive()
    }
}

impl Team {
    /// A team of `threads` threads, counting the caller. The embedder must run
    /// [`Team::run_worker`] on `threads - 1` threads of its own.
    ///
    /// With `std`, idle threads wait by [`crate::wait::WaitPolicy::Adaptive`]:
    /// spin, then park. Without it they spin.
    ///
    /// # Errors
    /// [`Error::ZeroThreads`] if `threads` is 0, [`Error::TooManyThreads`] if
    /// it does not fit in a `u32`.
    pub fn new(threads: usize) -> Result<Self, Error> {
        Self::build(threads, Slots::Open, env::default_waiter(threads))
    }

    /// A team of `threads` threads whose workers take their slots as
    /// `slots` says and wait by `waiter`.
    pub(crate) fn build(threads: usize, slots: Slots, waiter: Waiter) -> Result<Self, Error> {
        Self::build_at(threads, 0, slots, waiter, 0)
    }

    /// As [`Team::build`], for one colocation of a distributed pool: its
    /// workers report `colocation`.
    #[cfg_attr(not(feature = "numa"), allow(dead_code))]
    pub(crate) fn build_colocated(
        threads: usize,
        slots: Slots,
        waiter: Waiter,
        colocation: usize,
    ) -> Result<Self, Error> {
        Self::build_at(threads, 0, slots, waiter, colocation)
    }

    /// The full constructor: the generation counter starts at `start` (loom
    /// models start it near `u32::MAX` to reach its wraparound).
    pub(crate) fn build_at(
        threads: usize,
        start: Generation,
        slots: Slots,
        waiter: Waiter,
        colocation: usize,
    ) -> Result<Self, Error> {
        let threads = Error::check_threads(threads)?;
        let claimed = match slots {
            Slots::Open => 0,
            Slots::Spawned => threads - 1,
        };
        Ok(Team {
            dispatch: CachePadded::new(Dispatch {
                generation: AtomicGeneration::new(start),
                job: UnsafeCell::new(Job::exit()),
                join_target: UnsafeCell::new(0),
                // A generation no worker waits past for 2^32 forks.
                sleep_generation: AtomicGeneration::new(start.wrapping_sub(1)),
            }),
            done_line: CachePadded::new(DoneLine {
                done: AtomicU32::new(0),
            }),
            lock_line: CachePadded::new(LockLine {
                held: AtomicU32::new(0),
                dispatcher_frame: env::FrameSlot::new(),
            }),
            stop_requested: CachePadded::new(AtomicBool::new(false)),
            exit_published: AtomicBool::new(false),
            threads,
            colocation,
            initial_generation: start,
            claimed: AtomicUsize::new(claimed),
            waiter,
            env: env::Env::new(),
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
    /// Called from inside a task of this team's own fork (nested forks and
    /// inline calls count), it returns [`Error::WorkerInsideOwnFork`] and
    /// takes no slot: that thread would become a worker inside its own
    /// share, and the fork, waiting for the share, would never end. Without
    /// `std` a thread cannot tell, so do not call it from a task there.
    ///
    /// # Errors
    /// [`Error::NoWorkerSlot`] if every slot is already taken,
    /// [`Error::WorkerInsideOwnFork`] as above.
    pub fn run_worker(&self) -> Result<(), Error> {
        if env::worker_inside_own_fork(self) {
            return Err(Error::WorkerInsideOwnFork);
        }
        let workers = self.threads - 1;
        // Nightly renames `fetch_update` to `try_update`, which the oldest
        // supported Rust (1.74) lacks.
        #[allow(deprecated)]
        let claimed = self
            .claimed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
                (taken < workers).then_some(taken + 1)
            })
            .map_err(|_| Error::NoWorkerSlot { workers })?;
        // SAFETY: the fetch_update above hands each index in 1..threads to
        // exactly one caller.
        unsafe { self.worker_loop(claimed + 1) };
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
        self.stop_requested.store(true, Ordering::Relaxed);
        if env::inside_fork_of(self) {
            // Every fork between here and the holder joins before the holder
            // hands the team back, so its `hand_back` sees the flag.
            return;
        }
        // We are not inside a fork of this team, so its holder does not wait
        // for us: waiting for it cannot deadlock.
        self.take_waiting();
        self.hand_back();
    }

    /// Stops the workers if the team is idle, and returns whether it did.
    /// Never waits: if a fork is in flight it returns `false` and changes
    /// nothing.
    pub fn try_stop(&self) -> bool {
        if !self.try_take() {
            return false;
        }
        self.stop_requested.store(true, Ordering::Relaxed);
        self.hand_back();
        true
    }

    /// Puts idle workers straight into the parked state, without spinning,
    /// until the next fork, which wakes them. Use it before a long serial
    /// phase so the workers stop using CPU at once rather than after their
    /// spin budget. Without `std` nothing parks, and this does nothing.
    ///
    /// `microseconds` exists so that fork_union code compiles unchanged. tine
    /// needs no wake period: parked workers do not poll, and the next fork
    /// wakes them directly.
    ///
    /// ```
    /// let pool = tine::spawn_pool(2);
    /// pool.sleep(0);
    /// std::thread::sleep(std::time::Duration::from_millis(5)); // workers parked
    /// pool.for_threads(|_, _| {}); // wakes them
    /// ```
    pub fn sleep(&self, microseconds: u64) {
        let _ = microseconds; // see above: nothing polls
        let generation = self.dispatch.generation.load(Ordering::Relaxed);
        // A fork racing with this call may move the generation first; then
        // the request is simply over, as it would be at that fork anyway.
        self.dispatch
            .sleep_generation
            .store(generation, Ordering::Relaxed);
    }

    /// Whether [`Team::stop`] or a successful [`Team::try_stop`] has been
    /// called.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.stop_requested.load(Ordering::Relaxed)
    }
}

/// A team whose generation counter starts at `start`, for loom models of
/// the counter's wraparound.
#[cfg(loom)]
impl Team {
    #[doc(hidden)]
    pub fn with_generation(threads: usize, start: u32) -> Result<Self, Error> {
        Self::build_at(threads, start, Slots::Open, env::default_waiter(threads), 0)
    }
}
