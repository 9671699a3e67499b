//! The serial cutoff: whether a call is worth a fork, decided from how
//! long its first items take, so that `par_iter()` is never much slower
//! than the serial loop it replaces.
//!
//! # The rule
//!
//! A fork costs about a cache-line round trip per thread when the workers
//! spin (a fraction of a µs), and tens of µs when they are parked. So the caller starts alone: it runs its own first positions in
//! growing blocks (ending at positions 1, 4, 16, ...) and reads the clock
//! after each. The clock starts at the first block, not at the call: the
//! call's setup is paid once, so the rate must not spread it over the
//! positions still to run.
//! Once it has run for [`PROBE_NS`] over at least two positions (or for
//! [`FORK_WORTH_NS`] on the first alone), it estimates the rest of the call
//! from the rate so far: at least [`FORK_WORTH_NS`] left, and it forks the
//! rest; less, and it finishes alone, with no fork and no syscall. A loop of
//! expensive items forks after its first item; a loop that is cheap in all
//! never forks.
//!
//! Reading the clock costs tens of ns, too much for a loop of a few
//! hundred cheap items. So each thread remembers, per call site (the driver's
//! monomorphized address), the last measured cost per position, and the
//! next calls from that site decide from it without reading the clock:
//! one compare of the call's length with the longest call that cost keeps
//! on the caller (`Cutoff::trusted_serial`, inlined into the call site).
//! Then a call measures again. The trusted calls cover about
//! [`TRUST_NS`] of the site's measured work, at least 63 of them and at
//! most 255 (`Cutoff::trust_for`): a measuring call costs two clock reads
//! and a longer path, so the calls that take less than 250 ns, where that
//! shows, measure once in 256, and a change in a site's cost is still seen
//! within about 63 µs of calls as long as the measured one.
//!
//! A measured cost may at most double from one measurement of a site to the
//! next, so a probe that the OS descheduled does not make the next calls
//! fork; a real rise is followed within a few measurements, each held back
//! by that cap trusted for the fewest calls (63).
//!
//! A measuring call of a site whose remembered cost puts the whole call
//! below an eighth of [`FORK_WORTH_NS`] (even at double that cost) cannot
//! fork, so it does not probe: it runs as a call decided alone, reads the
//! clock at its start and end, and remembers the rate when it ends
//! (`Cutoff`'s `Drop`). Two clock reads instead of one per probe block,
//! and no fork when a VM exit or a preemption lands in the probe: a small
//! call from a hot loop then costs its loop, the decision, and 1/64 to
//! 1/256 of two clock reads.
//!
//! The cutoff decides only who runs the work, never how it is split: the
//! static ranges, and the blocks within them, are the same whether the
//! call forks or not, so a reduction's bits do not depend on the decision.

use core::cell::Cell;
use std::time::Instant;

/// How long the caller runs alone before it trusts its rate estimate.
pub const PROBE_NS: u64 = 1_000;

/// The least estimated remaining work, in ns, that a fork must save.
pub const FORK_WORTH_NS: u64 = 4_000;

/// The site's measured work, in ns, that the calls decided from a
/// remembered rate between two measured ones cover: as many calls as fit
/// in it at the measured rate, from 63 to 255.
pub const TRUST_NS: u64 = 63_000;

/// The fewest calls decided from a remembered rate between two measured
/// ones (a site whose calls take 1 µs or more).
const TRUST_CALLS_MIN: u8 = 63;

/// Remembered call sites per thread (direct-mapped).
const SITES: usize = 32;

/// A measuring call whose remembered cost, times this, stays below
/// [`FORK_WORTH_NS`] is measured whole instead of probed.
const QUIET_MARGIN: u64 = 8;

/// One remembered call site: its key, its cost per position in
/// picoseconds, the longest call that cost keeps on the caller (so that a
/// trusted call decides with one compare, [`Cutoff::trusted_serial`]), and
/// the calls it may still decide without measuring.
#[derive(Clone, Copy)]
struct Site {
    key: usize,
    ps_per_position: u64,
    serial_up_to: usize,
    trusted_calls: u8,
}

/// A site no call has: key 0 is no function's address.
const NO_SITE: Site = Site {
    key: 0,
    ps_per_position: 0,
    serial_up_to: 0,
    trusted_calls: 0,
};

/// [`NO_SITE`] in a cell, for the array below.
#[allow(clippy::declare_interior_mutable_const)] // only copied into the array below
const UNSEEN: Cell<Site> = Cell::new(NO_SITE);

/// An override of the cutoff for calls made on this thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Override {
    /// The rule above.
    #[default]
    Adaptive,
    /// Every call with more than one position forks (tests, benchmarks).
    AlwaysFork,
    /// No call forks.
    NeverFork,
}

/// Sets the cutoff's override for calls made on this thread, returning the
/// previous one. For tests and benchmarks that need one path for sure.
///
/// ```
/// use tine::par::cutoff::{set_override, Override};
/// use tine::prelude::*;
///
/// let before = set_override(Override::AlwaysFork);
/// let sum: u32 = (0..10u32).into_par_iter().sum(); // forks, tiny as it is
/// set_override(before);
/// assert_eq!(sum, 45);
/// ```
pub fn set_override(new: Override) -> Override {
    if new != Override::Adaptive {
        // [`Cutoff::trusted_serial`] does not read the override: it finds
        // no trusted site while one is set, since a forced call remembers
        // nothing.
        SITES_SEEN.with(|sites| sites.iter().for_each(|site| site.set(NO_SITE)));
    }
    OVERRIDE.with(|current| current.replace(new))
}

std::thread_local! {
    static OVERRIDE: Cell<Override> = const { Cell::new(Override::Adaptive) };
    static SITES_SEEN: [Cell<Site>; SITES] = const { [UNSEEN; SITES] };
}

/// What a thread remembers of a call site.
enum Memory {
    /// Nothing (or another site in its slot).
    None,
    /// A cost per position in ps, due to be measured again.
    Stale(u64),
    /// A cost per position in ps, trusted for this call.
    Trusted(u64),
}

/// What the cutoff says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Run on the caller alone.
    Serial,
    /// Fork the rest.
    Fork,
    /// Keep running alone and ask again after the next block.
    Undecided,
}

/// One call's cutoff.
pub(crate) struct Cutoff {
    key: usize,
    positions: usize,
    started: Option<Instant>,
    decision: Decision,
    /// Measured whole: remembered when dropped (see the module docs).
    quiet: bool,
}

impl Cutoff {
    /// Whether a call of `positions` positions from site `key` runs alone
    /// on a trusted remembered cost: the common case of a small call in a
    /// loop, decided with one thread-local compare and no clock. Counts
    /// the call against the site's trust as [`Cutoff::new`] would. False
    /// says only "ask [`Cutoff::new`]".
    #[inline]
    pub(crate) fn trusted_serial(key: usize, positions: usize) -> bool {
        SITES_SEEN.with(|sites| {
            let slot = &sites[(key >> 4) % SITES];
            let site = slot.get();
            let serial =
                site.key == key && site.trusted_calls != 0 && positions <= site.serial_up_to;
            if serial {
                slot.set(Site {
                    trusted_calls: site.trusted_calls - 1,
                    ..site
                });
            }
            serial
        })
    }

    /// The cutoff of a call that forks without a probe (unless told never
    /// to fork): a search over heavy positions, whose first position alone
    /// may never end.
    pub(crate) fn fork_now(key: usize, positions: usize) -> Self {
        let decision = match OVERRIDE.with(Cell::get) {
            Override::NeverFork => Decision::Serial,
            _ => Decision::Fork,
        };
        Cutoff {
            key,
            positions,
            started: None,
            decision,
            quiet: false,
        }
    }

    /// The cutoff of a call of `positions` positions from call site `key`.
    #[inline]
    pub(crate) fn new(key: usize, positions: usize) -> Self {
        let forced = match OVERRIDE.with(Cell::get) {
            Override::Adaptive => None,
            Override::AlwaysFork => Some(Decision::Fork),
            Override::NeverFork => Some(Decision::Serial),
        };
        if let Some(decision) = forced {
            return Cutoff {
                key,
                positions,
                started: None,
                decision,
                quiet: false,
            };
        }
        let slot = (key >> 4) % SITES;
        let remembered = SITES_SEEN.with(|sites| {
            let site = sites[slot].get();
            if site.key != key {
                return Memory::None;
            }
            if site.trusted_calls == 0 {
                return Memory::Stale(site.ps_per_position);
            }
            sites[slot].set(Site {
                trusted_calls: site.trusted_calls - 1,
                ..site
            });
            Memory::Trusted(site.ps_per_position)
        });
        let (started, decision, quiet) = match remembered {
            Memory::Trusted(ps) => (None, Self::judge(ps, positions), false),
            Memory::Stale(ps)
                if Self::judge(ps.saturating_mul(QUIET_MARGIN), positions) == Decision::Serial =>
            {
                (Some(Instant::now()), Decision::Serial, true)
            }
            // The probe's clock starts at its first block ([`Cutoff::begin`]).
            _ => (None, Decision::Undecided, false),
        };
        Cutoff {
            key,
            positions,
            started,
            decision,
            quiet,
        }
    }

    /// The decision so far.
    #[inline]
    pub(crate) fn decision(&self) -> Decision {
        self.decision
    }

    /// Starts the probe's clock, just before the caller's first block: the
    /// call's setup (finding the pool, making the plan) is paid once per
    /// call, not per position, so it must not be counted as the work that
    /// the rate extrapolates. Only an undecided call reads the clock.
    #[inline]
    pub(crate) fn begin(&mut self) {
        if self.decision == Decision::Undecided {
            self.started = Some(Instant::now());
        }
    }

    /// After a block: `done` positions have run. `last` says there is no
    /// later block to decide after, so the decision must be made now.
    #[inline]
    pub(crate) fn after_block(&mut self, done: usize, last: bool) -> Decision {
        if self.decision != Decision::Undecided {
            return self.decision;
        }
        debug_assert!(self.started.is_some(), "a probe that never began");
        let Some(started) = self.started else {
            return self.decision;
        };
        let elapsed = nanos_since(started);
        let more = !last && done < self.positions;
        // One item is a poor sample (a cold cache, a first allocation), so
        // it decides alone only if it took a whole fork's worth.
        if more && (elapsed < PROBE_NS || (done < 2 && elapsed < FORK_WORTH_NS)) {
            return Decision::Undecided;
        }
        let ps = ps_per_position(elapsed, done);
        self.remember(ps);
        let left = self.positions - done.min(self.positions);
        self.decision = Self::judge(ps, left);
        self.decision
    }

    #[inline]
    fn judge(ps_per_position: u64, positions: usize) -> Decision {
        let ns = ps_per_position.saturating_mul(positions as u64) / 1000;
        if ns >= FORK_WORTH_NS {
            Decision::Fork
        } else {
            Decision::Serial
        }
    }

    /// The most positions that [`Cutoff::judge`] keeps on the caller at
    /// `ps_per_position`: `judge(ps, n)` is `Serial` exactly when
    /// `n <= serial_up_to(ps)` (that is, when `n * ps` is below the fork's
    /// worth in ps).
    fn serial_up_to(ps_per_position: u64) -> usize {
        match ps_per_position {
            0 => usize::MAX,
            ps => usize::try_from((FORK_WORTH_NS * 1000 - 1) / ps).unwrap_or(usize::MAX),
        }
    }

    fn remember(&self, ps_per_position: u64) {
        if OVERRIDE.with(Cell::get) != Override::Adaptive {
            // A call that began before an override was set (its closure set
            // it) must not leave a trusted site behind: the trusted path
            // does not read the override.
            return;
        }
        let slot = (self.key >> 4) % SITES;
        SITES_SEEN.with(|sites| {
            let seen = sites[slot].get();
            // A probe the OS descheduled only looks slower: a site's cost
            // may at most double from one measurement to the next, so one
            // such probe cannot make the next trusted calls fork. A cost
            // that really grew is followed within a few measurements, each
            // trusted for the fewest calls while the cap holds it back.
            // (At least 1 ps: a clock that read no time at all must not
            // keep every length of call on the caller.)
            let cap = if seen.key == self.key {
                seen.ps_per_position.saturating_mul(2).max(1)
            } else {
                u64::MAX
            };
            let capped = ps_per_position > cap;
            let ps_per_position = ps_per_position.min(cap).max(1);
            sites[slot].set(Site {
                key: self.key,
                ps_per_position,
                serial_up_to: Self::serial_up_to(ps_per_position),
                trusted_calls: if capped {
                    TRUST_CALLS_MIN
                } else {
                    Self::trust_for(ps_per_position, self.positions)
                },
            })
        });
    }

    /// The calls that may decide from a rate of `ps_per_position` before
    /// the next measurement, for a site whose measured call had
    /// `positions` positions: enough to cover [`TRUST_NS`] of such calls,
    /// from 63 (calls of 1 µs or more) to 255 (of 247 ns or less).
    fn trust_for(ps_per_position: u64, positions: usize) -> u8 {
        let call_ns = ps_per_position.saturating_mul(positions as u64) / 1000;
        let calls = TRUST_NS / call_ns.max(1);
        calls.clamp(u64::from(TRUST_CALLS_MIN), u64::from(u8::MAX)) as u8
    }
}

/// Nanoseconds since `started`, saturating.
fn nanos_since(started: Instant) -> u64 {
    started.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64
}

/// The cost per position, in ps, of `positions` positions run in `nanos`.
fn ps_per_position(nanos: u64, positions: usize) -> u64 {
    nanos.saturating_mul(1000) / positions.max(1) as u64
}

impl Drop for Cutoff {
    /// A call measured whole remembers its rate when it ends (not when it
    /// unwinds: a panicking call's time says nothing about the next).
    fn drop(&mut self) {
        if !self.quiet || std::thread::panicking() {
            return;
        }
        if let Some(started) = self.started {
            self.remember(ps_per_position(nanos_since(started), self.positions));
        }
    }
}

#[cfg(test)]
mod tests;
