//! How a thread waits for another one: spin, then park.
//!
//! Every wait in the crate goes through this module: workers waiting for the
//! next fork ([`Parking::wait_for_fork`]), the caller waiting for the join
//! ([`Parking::wait_for_join`]), and a second caller waiting for a busy team
//! ([`Waiter::spin_until`]). The policy lives here; the OS backend that
//! actually blocks lives in one file per backend, chosen below by `cfg`.
//!
//! # Policy
//!
//! A waiter first polls with the best micro-yield ([`crate::arch`]) for a
//! bounded budget, measured in time and converted once per process to a count
//! of micro-yields. Hot forks never leave this phase, so they make no
//! syscall. Past the budget it calls `yield_now` a few times (a yielding
//! thread stays runnable, which is what more threads than cores need), then
//! parks in the kernel until woken, so an idle pool costs no CPU. When the
//! team has more threads than the CPUs this process may use, there is no
//! spin at all: a waiter then most likely waits for a thread that is not even
//! running, so it polls between `yield_now` calls from the start: any spin
//! there only delays the thread it waits for. Without `std` nothing can
//! park, and waits spin.
//!
//! By default ([`WaitPolicy::Adaptive`]) the spin lasts [`DEFAULT_SPIN`]
//! (500 µs), then come 8 `yield_now` calls, then a park: on Linux on a
//! private futex on the generation word (or the join countdown), elsewhere
//! on a mutex and condition variable. [`WaitPolicy`] picks another
//! trade-off per pool: `AlwaysSpin` for the lowest wake-up latency,
//! `AlwaysPark` for the lowest power, `SpinThenPark(d)` for a budget of
//! one's own. A join that had to wake parked workers parks at once instead
//! of spinning: the woken workers need a CPU, and the caller's own is the
//! fastest for them to get.
//!
//! # Waiting for a thread on one's own CPU
//!
//! The thread a waiter waits for may be queued behind it on the same CPU:
//! with a CPU-bound process beside a 2-thread pool on 2 CPUs, the scheduler
//! often puts the caller and its worker on one CPU and leaves the other to the
//! process, and its load balancing does not undo that (2 tasks against 1
//! either way). Every hand-over then waits for the spinner to give its CPU
//! away. A spin does so every [`GIVE_WAY_EVERY`], and remembers, per thread,
//! what the last `yield_now` showed: if the CPU went to another thread for a
//! short while (more than [`STACKED_MIN`], less than [`STACKED_MAX`]), a
//! partner is most likely queued on this CPU, and the thread's next waits
//! give way after a short grace ([`GRACE`]) and then between every two
//! polls. A quick `yield_now` (nobody else to run) or a long one (another
//! process took a whole time slice) clears the mark. Hot forks end their
//! waits within the grace and never read the mark. Without the mark, each
//! hand-over of a stacked pair would wait out one [`GIVE_WAY_EVERY`].
//!
//! Giving way keeps a stacked pair moving at one CPU's speed; it does not
//! unstack it. Threads that never block are never placed again by the
//! kernel, so two threads of a team stacked at its start could share one
//! CPU for as long as work keeps coming, while another CPU idles. A waiter
//! whose `yield_now` ran a partner, and whose event has not come, therefore
//! also sleeps for a moment, now and then, so that the kernel's wake-up
//! places it on an idle CPU if there is one (`stacked.rs`; not in a team
//! with more threads than CPUs).
//!
//! # No lost wakeup
//!
//! Parking races with the event the parker waits for. Both sides follow the
//! same Dekker pattern, with a `fence(SeqCst)` between a store and a load:
//!
//! | | waker | parker |
//! |---|---|---|
//! | 1 | store the event (new generation, last decrement) | announce itself (`sleepers += 1`, `caller_parked = true`) |
//! | 2 | `fence(SeqCst)` | `fence(SeqCst)` |
//! | 3 | load the announcement; if set, wake | load the event word; if unchanged, block on it |
//!
//! The two fences are totally ordered. If the waker's fence comes first, the
//! parker's load at step 3 sees the event and it does not block. If the
//! parker's fence comes first, the waker's load at step 3 sees the
//! announcement and it wakes. A wake that lands between the parker's step 3
//! and its block is not lost either: the backend blocks only while the word
//! still holds the value the parker saw (futex semantics; the condvar backend
//! checks the word under its mutex, which the waker takes to notify). So a
//! parker never sleeps through the event it waits for. A waker may wake a
//! parker that has already seen the event; the parker then re-checks and
//! returns, which is harmless.
//!
//! The fences are the backend's (`fast_fence` for the waker, `slow_fence`
//! for the parker). On Linux the parker's is `membarrier`, which lets the
//! waker's be a mere compiler fence (see `futex.rs`), so the hot path runs
//! no fence instruction; elsewhere both are `fence(SeqCst)`. Either way a
//! fork makes a syscall only when someone has announced that it is parked.
//!
//! The policy is one piece (spin budget, parking, the busy caller's wait),
//! kept whole here (a little over the project's ~450 lines, to keep the
//! no-lost-wakeup argument beside the code it covers); backends are apart.

/// The team's lock word (`team/lock.rs`), as the waits read it: idle, to
/// any caller.
pub(crate) const LOCK_IDLE: u32 = 0;
/// The lock word: held by a caller for its fork.
pub(crate) const LOCK_HELD: u32 = 1;
/// The lock word: idle, but handed back to the callers parked waiting for
/// it: a caller that has not waited its turn leaves it to them (see
/// [`parking::Parking::wait_for_idle`]).
pub(crate) const LOCK_RESERVED: u32 = 2;
/// What one attempt to take a busy team's lock may take (the `try_take` of
/// [`parking::Parking::wait_for_idle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Only an idle team ([`LOCK_IDLE`]): the caller has not parked yet.
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // no one parks without std
    Idle,
    /// An idle team, or one reserved for the parked callers
    /// ([`LOCK_RESERVED`]): the caller has parked at least once.
    IdleOrReserved,
}
/// How long a caller that has not parked yet sleeps on a team reserved for
/// the parked ones before it looks again: no hand-back wakes it then.
#[cfg(all(feature = "std", not(loom)))]
const RESERVED_NAP: Duration = Duration::from_millis(1);

#[cfg(not(loom))]
use crate::arch::MicroYield;
use crate::arch::Yielder;
#[cfg(feature = "std")]
use core::time::Duration;
#[cfg(not(loom))]
use woken::Woken;

#[cfg(feature = "std")]
mod calibrate;
#[cfg(feature = "std")]
mod doorbell;
#[cfg(feature = "std")]
mod gaps;
#[cfg(feature = "std")]
pub(crate) mod parking;
#[cfg(feature = "std")]
mod spin_lock;
mod stacked;
pub(crate) mod woken;
#[cfg(feature = "std")]
use calibrate::{calibrated_yields_per_ms, yields_in};
#[cfg(feature = "std")]
pub(crate) use doorbell::Doorbell;
#[cfg(feature = "std")]
pub(crate) use gaps::at_gaps;
#[cfg(feature = "std")]
pub(crate) use parking::Parking;
#[cfg(feature = "std")]
pub(crate) use spin_lock::SpinLock;

/// The OS backend that blocks a parked thread: a futex on Linux, a
/// mutex and condition variable elsewhere and under loom.
#[cfg(all(
    feature = "std",
    not(loom),
    any(target_os = "linux", target_os = "android")
))]
#[path = "futex.rs"]
mod backend;
#[cfg(all(
    feature = "std",
    any(loom, not(any(target_os = "linux", target_os = "android")))
))]
#[path = "condvar.rs"]
mod backend;

/// How idle threads of a pool wait for work.
///
/// ```
/// use std::time::Duration;
/// use tine::{ThreadPool, WaitPolicy};
///
/// // Latency first: never park, keep the cores.
/// let hot = ThreadPool::builder().threads(2).wait_policy(WaitPolicy::AlwaysSpin).build()?;
/// // Power first: park as soon as there is nothing to do.
/// let cold = ThreadPool::builder().threads(2).wait_policy(WaitPolicy::AlwaysPark).build()?;
/// // Spin 50 µs after each fork, then park.
/// let tuned = ThreadPool::builder().threads(2).spin_budget(Duration::from_micros(50)).build()?;
/// # let _ = (hot, cold, tuned);
/// # Ok::<(), tine::Error>(())
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitPolicy {
    /// Spin for [`DEFAULT_SPIN`], or for [`OVERSUBSCRIBED_SPIN`] when the
    /// pool has more threads than the CPUs this process may use, then call
    /// `yield_now` a few times (8, or 32 when oversubscribed), then park.
    #[default]
    Adaptive,
    /// Spin for this long, then call `yield_now` 8 times, then park,
    /// whatever the CPU count.
    SpinThenPark(Duration),
    /// Never park on their own. Waits spin with micro-yields, then yield the
    /// core to the OS in a loop: the lowest wake-up latency, but idle workers
    /// keep their cores busy. [`crate::team::Team::sleep`] still parks them.
    AlwaysSpin,
    /// Park as soon as a wait begins: the lowest power, but every fork pays
    /// the OS wake-up.
    AlwaysPark,
}

/// How long [`WaitPolicy::Adaptive`] spins before parking.
#[cfg(feature = "std")]
pub const DEFAULT_SPIN: Duration = Duration::from_micros(500);

/// How long [`WaitPolicy::Adaptive`] spins when the pool has more threads
/// than usable CPUs: not at all; waits go straight to `yield_now`.
#[cfg(feature = "std")]
pub const OVERSUBSCRIBED_SPIN: Duration = Duration::ZERO;

/// The longest a spin holds its core without a `yield_now`. It is also how a
/// thread first finds its partner queued behind it (see above): without it,
/// a stacked caller and worker would hand over once per spin budget, a
/// whole budget per fork-join. Hot forks never wait this long, so it costs
/// them nothing.
#[cfg(feature = "std")]
const GIVE_WAY_EVERY: Duration = Duration::from_micros(50);

/// How long a spin polls before it looks at whether its thread last found
/// its partner queued on its own CPU (see "Waiting for a thread on one's own
/// CPU" above). Longer than a hot fork's waits, so those never look.
#[cfg(feature = "std")]
const GRACE: Duration = Duration::from_nanos(50);

/// A `yield_now` shorter than this ran no other thread: on its own it costs
/// a few hundred nanoseconds, and switching to another thread and back at
/// least two context switches.
#[cfg(all(feature = "std", not(loom)))]
const STACKED_MIN: Duration = Duration::from_micros(1);

/// A `yield_now` longer than this ran something other than a partner that
/// only had to see an event: another process's time slice.
#[cfg(all(feature = "std", not(loom)))]
const STACKED_MAX: Duration = Duration::from_micros(100);

/// `yield_now` calls after the spin and before parking.
#[cfg(feature = "std")]
const DEFAULT_YIELDS: u32 = 8;

/// As [`DEFAULT_YIELDS`], with more threads than usable CPUs.
#[cfg(feature = "std")]
const OVERSUBSCRIBED_YIELDS: u32 = 32;

/// A wait policy resolved for one team: the micro-yield, and how many of them
/// to run before parking. Fixed when the team is built.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(loom, allow(dead_code))] // loom models yield the model thread instead
pub(crate) struct Waiter {
    yielder: Yielder,
    /// Micro-yields before parking (or, where parking is off, before yielding
    /// the core to the OS).
    spin_limit: u32,
    /// `yield_now` calls between spinning and parking. A yielding thread stays
    /// runnable, so with more threads than CPUs it hands its core to whoever
    /// needs it and still sees the next fork without a wake-up syscall.
    yield_limit: u32,
    /// Whether waits past the budget park (std only).
    parks: bool,
    /// Micro-yields between two `yield_now` calls within the spin, so a
    /// spinner never holds its core for more than about [`GIVE_WAY_EVERY`].
    give_way_every: u32,
    /// Micro-yields in [`GRACE`]: when a spin looks at the stacked mark.
    grace: u32,
    /// Whether a wait whose `yield_now` ran a partner queued on its CPU
    /// tries to move off it (`stacked.rs`): not with more threads than
    /// CPUs, where no CPU idles.
    #[cfg_attr(not(all(feature = "std", not(loom))), allow(dead_code))]
    moves: bool,
}

impl Waiter {
    /// A waiter that never parks: what a team without `std` uses.
    #[cfg_attr(feature = "std", allow(dead_code))]
    pub(crate) fn spin_only() -> Self {
        Waiter {
            yielder: Yielder::best(),
            spin_limit: u32::MAX,
            yield_limit: 0,
            parks: false,
            give_way_every: u32::MAX,
            grace: u32::MAX,
            moves: false,
        }
    }

    /// Resolves `policy` for a team of `threads` threads.
    #[cfg(feature = "std")]
    pub(crate) fn new(policy: WaitPolicy, threads: usize) -> Self {
        let yielder = Yielder::best();
        let oversubscribed = threads > usable_cpus();
        let (spin, yield_limit) = match policy {
            WaitPolicy::Adaptive if oversubscribed => {
                (Some(OVERSUBSCRIBED_SPIN), OVERSUBSCRIBED_YIELDS)
            }
            WaitPolicy::Adaptive => (Some(DEFAULT_SPIN), DEFAULT_YIELDS),
            WaitPolicy::SpinThenPark(spin) => (Some(spin), DEFAULT_YIELDS),
            WaitPolicy::AlwaysPark => (Some(Duration::ZERO), 0),
            WaitPolicy::AlwaysSpin => (None, 0),
        };
        let (spin_limit, yield_limit) = match spin {
            // Under loom, spin twice whatever the budget (none for
            // AlwaysPark), so models cover both the spinning and the parking
            // path in few steps.
            Some(spin) if cfg!(loom) => (2 * u32::from(!spin.is_zero()), 0),
            // Under Miri, which interprets every poll, spin and yield a few
            // times whatever the budget, then park: the same paths in a
            // fraction of the steps.
            Some(spin) if cfg!(miri) => (4 * u32::from(!spin.is_zero()), yield_limit.min(2)),
            Some(spin) => (yields_in(yielder, spin), yield_limit),
            None => (calibrated_yields_per_ms(yielder), 0),
        };
        Waiter {
            yielder,
            spin_limit,
            yield_limit,
            parks: spin.is_some(),
            give_way_every: yields_in(yielder, GIVE_WAY_EVERY).max(1),
            grace: yields_in(yielder, GRACE).max(1),
            moves: !oversubscribed,
        }
    }

    /// This waiter, made to park once its budget is spent whatever its
    /// policy: for a thread that waits for work to arrive rather than for a
    /// fork to start (a pool's serving thread).
    #[cfg(feature = "std")]
    pub(crate) fn parking(mut self) -> Self {
        self.parks = true;
        self
    }

    /// This waiter with its spin budget cut to at most `limit`
    /// micro-yields (its `yield_now` calls stay): for a wait whose caller
    /// knows that a longer spin is unlikely to pay (`pool/pace.rs`).
    #[cfg(feature = "std")]
    pub(crate) fn spinning_at_most(mut self, limit: u32) -> Self {
        self.spin_limit = self.spin_limit.min(limit);
        self
    }

    /// The spin budget, in micro-yields.
    #[cfg(feature = "std")]
    pub(crate) fn spin_limit(&self) -> u32 {
        self.spin_limit
    }

    /// Whether waits past the budget park.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn parks(&self) -> bool {
        self.parks
    }

    /// How many of this waiter's micro-yields fit in `span` (at least 1):
    /// for a caller that looks at something costly only now and then
    /// while it spins.
    #[cfg(feature = "std")]
    pub(crate) fn yields_in(&self, span: Duration) -> u32 {
        yields_in(self.yielder, span).max(1)
    }

    /// Polls `ready` with micro-yields for the spin budget, then with
    /// `yield_now` between polls for the yield budget. Returns whether it
    /// became true; `false` means the caller should park (if it can).
    #[inline]
    pub(crate) fn spin(&self, ready: impl FnMut() -> bool) -> bool {
        self.spin_for(self.spin_limit, ready)
    }

    #[inline]
    fn spin_for(&self, spin_limit: u32, mut ready: impl FnMut() -> bool) -> bool {
        #[cfg(loom)]
        for _ in 0..spin_limit {
            if ready() {
                return true;
            }
            crate::sync::model_yield();
        }
        #[cfg(not(loom))]
        {
            let mut left = spin_limit;
            let mut until_give_way = self.grace.min(left);
            let mut graced = false;
            while left > 0 {
                if ready() {
                    return true;
                }
                left -= 1;
                if graced && Woken::pending() {
                    // A caller this crate woke waits for a CPU: ours. Hot
                    // forks, which end within the grace, never get here.
                    left = left.saturating_sub(woken::give_way(self));
                    continue;
                }
                self.yielder.micro_yield();
                until_give_way -= 1;
                if until_give_way != 0 {
                    continue;
                }
                if !core::mem::replace(&mut graced, true) && !stacked::marked() {
                    // The common case: poll on, giving the core away now and
                    // then in case a partner (or another process) needs it.
                    until_give_way = self.give_way_every;
                    continue;
                }
                if give_way_watching(self, &mut ready) {
                    return true;
                }
                until_give_way = if stacked::marked() {
                    // The partner is queued behind us: every poll that finds
                    // nothing gives it the CPU. Count each such round as a
                    // whole give-way period of the budget, so the wait still
                    // parks after about the same time.
                    left = left.saturating_sub(self.give_way_every);
                    1
                } else {
                    self.give_way_every
                };
            }
        }
        for _ in 0..self.yield_limit {
            if ready() {
                return true;
            }
            if give_way_watching(self, &mut ready) {
                return true;
            }
        }
        ready()
    }

    /// Returns once `ready` returns true, spinning and then yielding the core
    /// between polls; never parks. For waits that have no wake-up partner.
    #[inline]
    pub(crate) fn spin_until(&self, mut ready: impl FnMut() -> bool) {
        if self.spin(&mut ready) {
            return;
        }
        while !ready() {
            give_way(self);
        }
    }
}

/// The slow path of a wait that cannot park: give the core away.
#[cold]
fn give_way(waiter: &Waiter) {
    #[cfg(loom)]
    {
        let _ = waiter;
        crate::sync::model_yield();
    }
    #[cfg(all(feature = "std", not(loom)))]
    {
        let _ = waiter;
        std::thread::yield_now();
    }
    #[cfg(not(feature = "std"))]
    waiter.yielder.micro_yield();
}

/// Gives the core away once, then polls `ready` and returns what it says,
/// updating this thread's stacked mark from what the `yield_now` showed (see
/// "Waiting for a thread on one's own CPU" above).
#[cold]
fn give_way_watching(waiter: &Waiter, ready: &mut impl FnMut() -> bool) -> bool {
    #[cfg(all(feature = "std", not(loom)))]
    {
        let start = std::time::Instant::now();
        give_way(waiter);
        let took = start.elapsed();
        let done = ready();
        let ran_partner = (STACKED_MIN..=STACKED_MAX).contains(&took);
        // Another thread ran briefly: a partner queued here, whether or not
        // the event we wait for is already in (in a larger team, it may take
        // several). Otherwise nobody ran, or another process had the CPU.
        stacked::mark(ran_partner);
        if ran_partner && !done && waiter.moves {
            // Two runnable threads on this CPU: another may idle.
            stacked::move_off();
        }
        done
    }
    #[cfg(not(all(feature = "std", not(loom))))]
    {
        give_way(waiter);
        ready()
    }
}

/// How many CPUs this process may run on (affinity mask and cgroup quota, as
/// `available_parallelism` reads them); `usize::MAX` when unknown, so that an
/// unknown count never shrinks the budget.
#[cfg(feature = "std")]
fn usable_cpus() -> usize {
    std::thread::available_parallelism().map_or(usize::MAX, |n| n.get())
}
