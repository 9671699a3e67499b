//! [`Route`]: the way one call goes, chosen before anything else is done,
//! from the consumer's kind and a thread-local compare at most.

use super::alone::serial_in_blocks;
use super::consumer::Consumer;
use crate::par::cutoff::Cutoff;
use crate::par::producer::Producer;
use crate::par::settings::{Config, Schedule};

/// The way one call goes, chosen by [`route`] before anything else is
/// done. Each is a shortcut past the next, for a call that needs less.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// A split-free consumer (`for_each`, `count`) whose remembered cost
    /// keeps it on the caller: one walk over every position (`alone.rs`).
    Alone,
    /// A split-free consumer with no trusted cost: ask the full cutoff
    /// (which may read the clock), then walk alone or plan.
    AskCutoff,
    /// A static call whose result depends on the split, kept on the caller
    /// by a trusted cost: the fork's ranges and blocks, folded alone, with
    /// no plan ([`serial_on_trust`]).
    SerialOnTrust,
    /// Everything else: find the pool, make the plan, ask the cutoff in it
    /// and fork if it says so ([`plan`]).
    Plan,
}

/// Chooses the [`Route`] of a call of consumer `C` over `n > 0` positions
/// of producer `P`, whose site is `key`: a thread-local compare at most,
/// for the shortcuts.
#[inline(always)]
pub(super) fn route<P: Producer, C: Consumer<P::Item>>(
    config: &Config,
    n: usize,
    key: usize,
) -> Route {
    // A consumer the split does not matter to asks the cutoff first: if
    // the call runs alone, it needs no pool and no plan, only one walk (as
    // the serial loop).
    if C::SPLIT_FREE {
        return if Cutoff::trusted_serial(key, n) {
            Route::Alone
        } else {
            Route::AskCutoff
        };
    }
    // Any other static call that a trusted cost keeps on the caller goes
    // through the ranges and blocks of a fork, but with no plan to make
    // (a dynamic or guided one claims its blocks alone, in its plan, as
    // when it measures); the rest ask in their plan. The schedule is
    // checked first: a call that `trusted_serial` passes on is counted
    // again in the plan.
    let static_plan = C::STATIC_ONLY || matches!(config.schedule, Schedule::Static);
    if static_plan && serial_in_blocks::<P, C>() && Cutoff::trusted_serial(key, n) {
        return Route::SerialOnTrust;
    }
    Route::Plan
}
