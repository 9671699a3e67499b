//! The wait loop: how a thread waits for another one to flip a flag.
//!
//! Every wait in the crate (workers waiting for a fork, the caller waiting for
//! the join, a second caller waiting for a busy team) goes through
//! [`Waiter::wait_until`], so the policy lives in one place.
//!
//! Policy: poll, and between polls run the best micro-yield ([`crate::arch`])
//! for a bounded budget. Past the budget, with `std`, give the core away with
//! `std::thread::yield_now()` between polls, so that more threads than cores
//! still make progress; without `std` there is no scheduler to call, so the
//! wait keeps spinning. Under loom every poll yields the model thread instead.

#[cfg(not(loom))]
use crate::arch::MicroYield;
use crate::arch::Yielder;

/// Micro-yields a waiter spends before it starts yielding to the OS, when the
/// team fits on the CPUs the process may use (about 1-3 ms of `PAUSE`).
pub(crate) const SPIN_BUDGET: u32 = 1 << 16;

/// The budget when the team has more threads than usable CPUs: a waiter
/// likely waits for a thread that is not even scheduled, so yield early.
pub(crate) const OVERSUBSCRIBED_SPIN_BUDGET: u32 = 64;

/// A wait policy: which micro-yield to use, and how many before yielding the
/// core. Fixed when the team is built.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(loom, allow(dead_code))] // loom models yield the model thread instead
pub(crate) struct Waiter {
    yielder: Yielder,
    spin_budget: u32,
}

impl Waiter {
    /// A waiter with the best micro-yield and a budget fit for `threads`.
    pub(crate) fn for_threads(threads: usize) -> Self {
        let spin_budget = if threads > usable_cpus() {
            OVERSUBSCRIBED_SPIN_BUDGET
        } else {
            SPIN_BUDGET
        };
        Waiter {
            yielder: Yielder::best(),
            spin_budget,
        }
    }

    /// Returns once `ready` returns true. `ready` must be cheap: it runs once
    /// per poll.
    #[inline]
    pub(crate) fn wait_until(&self, mut ready: impl FnMut() -> bool) {
        #[cfg(loom)]
        {
            while !ready() {
                crate::sync::model_yield();
            }
        }
        #[cfg(not(loom))]
        {
            let mut spins = 0u32;
            while !ready() {
                if spins < self.spin_budget {
                    spins += 1;
                    self.yielder.micro_yield();
                } else {
                    self.give_way();
                }
            }
        }
    }

    /// The slow path, past the budget: yield the core to the OS.
    #[cfg(not(loom))]
    #[cold]
    fn give_way(&self) {
        #[cfg(feature = "std")]
        std::thread::yield_now();
        #[cfg(not(feature = "std"))]
        self.yielder.micro_yield();
    }
}

/// How many CPUs this process may run on; `usize::MAX` when unknown, so that
/// an unknown count never shrinks the budget.
fn usable_cpus() -> usize {
    #[cfg(feature = "std")]
    {
        std::thread::available_parallelism().map_or(usize::MAX, |n| n.get())
    }
    #[cfg(not(feature = "std"))]
    usize::MAX
}
