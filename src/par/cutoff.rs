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
//! monomorphized address), the last measured cost per position (`sites.rs`), and the
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

mod sites;

use core::cell::Cell;
use sites::{Memory, Site, NO_SITE, SITES, SITES_SEEN};
use std::time::Instant;

/// How long the caller runs alone before it trusts its rate estimate.
pub const PROBE_NS: u64 = 1_000;

/// The least estimated remaining work, in ns, that a fork must save.
pub const FORK_WORTH_NS: u64 = 4_000;

/// The site's measured work, in ns, that the calls decided from a
/// remembered rate between two measured ones cover: as many calls as fit
/// in it at the measured rate, from 63 to 255.
pub const TRUST_NS: u64 = 63_000;

/// A measuring call whose remembered cost, times this, stays below
/// [`FORK_WORTH_NS`] is measured whole instead of probed.
const QUIET_MARGIN: u64 = 8;

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

/// Whether the block a probe just ran is the caller's last before the
/// cutoff must decide ([`Cutoff::after_block`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// More blocks may follow: the cutoff may wait for them to decide.
    NotLast,
    /// No block follows to decide after: the cutoff decides now.
    Last,
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

    /// After a block: `done` positions have run. [`Block::Last`] says there
    /// is no later block to decide after, so the decision must be made now.
    #[inline]
    pub(crate) fn after_block(&mut self, done: usize, block: Block) -> Decision {
        if self.decision != Decision::Undecided {
            return self.decision;
        }
        debug_assert!(self.started.is_some(), "a probe that never began");
        let Some(started) = self.started else {
            return self.decision;
        };
        let elapsed = nanos_since(started);
        let more = block == Block::NotLast && done < self.positions;
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

/// The cutoff's rule, its trust and its override, on one thread's
/// remembered sites.
#[cfg(test)]
mod tests {
    use super::sites::TRUST_CALLS_MIN;
    use super::{set_override, Cutoff, Decision, Override, FORK_WORTH_NS, QUIET_MARGIN, TRUST_NS};

    /// Remembers `ps` per position for `key`, as a measuring call would.
    fn seed(key: usize, ps: u64) {
        let mut cutoff = Cutoff::new(key, 1);
        // A measuring call would also remember its own clock when dropped.
        cutoff.quiet = false;
        cutoff.remember(ps);
    }

    #[test]
    fn a_cheap_site_is_measured_whole_and_a_costly_one_is_probed() {
        // Keys of their own (their slots are theirs on this test thread).
        let (cheap, costly) = (0x1_0000, 0x2_0010);
        // 1 ns per position: 256 positions are far below the fork's worth.
        seed(cheap, 1_000);
        for _ in 0..Cutoff::trust_for(1_000, 1) {
            let trusted = Cutoff::new(cheap, 256);
            assert_eq!(trusted.decision(), Decision::Serial);
            assert!(trusted.started.is_none(), "a trusted call reads no clock");
        }
        let measured = Cutoff::new(cheap, 256);
        assert_eq!(measured.decision(), Decision::Serial);
        assert!(measured.quiet && measured.started.is_some());
        drop(measured); // remembers the rate, and trusts it again
        assert!(Cutoff::new(cheap, 256).started.is_none());

        // A site whose call would cost over an eighth of a fork's worth
        // (at its remembered rate) is probed block by block, as before.
        let ps = FORK_WORTH_NS * 1000 / QUIET_MARGIN / 256 + 1;
        seed(costly, ps);
        for _ in 0..Cutoff::trust_for(ps, 1) {
            drop(Cutoff::new(costly, 256));
        }
        let probed = Cutoff::new(costly, 256);
        assert_eq!(probed.decision(), Decision::Undecided);
        assert!(!probed.quiet);
    }

    /// A measuring call that the OS descheduled only looks slow: the site's
    /// cost at most doubles, so the calls that trust it next stay on the
    /// caller, and the next measuring call of a cheap site is still
    /// measured whole, so it cannot fork either. (`tests/par.rs` checks
    /// that expensive items fork; that cheap ones do not is this rule.)
    #[test]
    fn a_descheduled_measurement_keeps_a_cheap_sites_calls_on_the_caller() {
        let key = 0x4_0030;
        // 10 ns per position: calls of 4 positions, as a hot loop makes.
        let (cheap, positions) = (10_000, 4);
        seed(key, cheap);
        while Cutoff::trusted_serial(key, positions) {}
        let mut measuring = Cutoff::new(key, positions);
        assert_eq!(measuring.decision(), Decision::Serial);
        assert!(measuring.quiet, "a cheap site's call is measured whole");
        // A preemption stretched it to a millisecond per position.
        measuring.remember(1_000_000_000);
        measuring.quiet = false; // no second memory of its own clock
        drop(measuring);
        for call in 0..TRUST_CALLS_MIN {
            assert!(
                Cutoff::trusted_serial(key, positions),
                "trusted call {call} forks"
            );
        }
        assert!(!Cutoff::trusted_serial(key, positions), "then it measures");
        let next = Cutoff::new(key, positions);
        assert_eq!(next.decision(), Decision::Serial);
        assert!(next.quiet, "still measured whole, at double the cost");
    }

    #[test]
    fn trust_covers_a_fixed_stretch_of_work_within_63_to_255_calls() {
        // Calls of 1 µs and more: 63; of 247 ns and less: 255; between,
        // about `TRUST_NS` of work, fewer calls as they grow.
        assert_eq!(Cutoff::trust_for(1_000, 1_000), TRUST_CALLS_MIN);
        assert_eq!(Cutoff::trust_for(u64::MAX, usize::MAX), TRUST_CALLS_MIN);
        assert_eq!(Cutoff::trust_for(1_000, 247), u8::MAX);
        assert_eq!(Cutoff::trust_for(0, 256), u8::MAX);
        assert_eq!(Cutoff::trust_for(1_000, 500), (TRUST_NS / 500) as u8);
        let mut last = u8::MAX;
        for positions in (1..2_000).step_by(7) {
            let calls = Cutoff::trust_for(1_000, positions);
            assert!((TRUST_CALLS_MIN..=u8::MAX).contains(&calls));
            assert!(calls <= last, "fewer calls for longer ones");
            last = calls;
        }
    }

    #[test]
    fn the_trusted_compare_decides_as_the_rule() {
        for ps in [0, 1, 7, 999, 1_000, 15_625, 4_000_000, 4_000_001, u64::MAX] {
            let up_to = Cutoff::serial_up_to(ps);
            let edge = [up_to.saturating_sub(1), up_to, up_to.saturating_add(1)];
            for n in [0, 1, 2, 255, 256, 257, 4_000, 1 << 20, usize::MAX]
                .into_iter()
                .chain(edge)
            {
                assert_eq!(
                    Cutoff::judge(ps, n) == Decision::Serial,
                    n <= up_to,
                    "{ps} ps per position, {n} positions"
                );
            }
        }
    }

    #[test]
    fn a_trusted_site_spends_its_trust_and_an_override_clears_it() {
        let key = 0x3_0020;
        seed(key, 1_000);
        for _ in 0..Cutoff::trust_for(1_000, 1) {
            assert!(Cutoff::trusted_serial(key, 256));
        }
        assert!(!Cutoff::trusted_serial(key, 256), "the 256th call measures");
        seed(key, 1_000);
        assert!(!Cutoff::trusted_serial(key, 4_000), "a call worth a fork");
        assert!(!Cutoff::trusted_serial(key + 1, 256), "another site");
        assert!(Cutoff::trusted_serial(key, 256));
        let before = set_override(Override::AlwaysFork);
        assert!(!Cutoff::trusted_serial(key, 256), "an override is obeyed");
        assert_eq!(Cutoff::new(key, 256).decision(), Decision::Fork);
        set_override(before);

        // A call that began before the override and ends under it (its
        // closure set it) leaves no trusted site behind.
        let measuring = Cutoff::new(key, 256);
        let before = set_override(Override::AlwaysFork);
        measuring.remember(1_000);
        drop(measuring);
        assert!(
            !Cutoff::trusted_serial(key, 256),
            "the override still holds"
        );
        set_override(before);
    }
}
