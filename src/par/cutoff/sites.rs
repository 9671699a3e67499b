//! What each thread remembers of the call sites it ran, for the cutoff.
//! Per site (the driver's monomorphized address): its last measured cost
//! per position, the longest call that cost keeps on the caller, and the
//! calls that may still decide from it without reading the clock (see "The
//! rule" in `cutoff.rs`).

use super::{Cutoff, Override, FORK_WORTH_NS, OVERRIDE, TRUST_NS};
use core::cell::Cell;

/// The fewest calls decided from a remembered rate between two measured
/// ones (a site whose calls take 1 µs or more).
pub(super) const TRUST_CALLS_MIN: u8 = 63;

/// Remembered call sites per thread (direct-mapped).
pub(super) const SITES: usize = 32;

/// One remembered call site: its key, its cost per position in
/// picoseconds, the longest call that cost keeps on the caller (so that a
/// trusted call decides with one compare, [`Cutoff::trusted_serial`]), and
/// the calls it may still decide without measuring.
#[derive(Clone, Copy)]
pub(super) struct Site {
    pub(super) key: usize,
    pub(super) ps_per_position: u64,
    pub(super) serial_up_to: usize,
    pub(super) trusted_calls: u8,
}

/// A site no call has: key 0 is no function's address.
pub(super) const NO_SITE: Site = Site {
    key: 0,
    ps_per_position: 0,
    serial_up_to: 0,
    trusted_calls: 0,
};

/// [`NO_SITE`] in a cell, for the array below.
#[allow(clippy::declare_interior_mutable_const)] // only copied into the array below
const UNSEEN: Cell<Site> = Cell::new(NO_SITE);

std::thread_local! {
    pub(super) static SITES_SEEN: [Cell<Site>; SITES] = const { [UNSEEN; SITES] };
}

/// What a thread remembers of a call site.
pub(super) enum Memory {
    /// Nothing (or another site in its slot).
    None,
    /// A cost per position in ps, due to be measured again.
    Stale(u64),
    /// A cost per position in ps, trusted for this call.
    Trusted(u64),
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

    /// The most positions that [`Cutoff::judge`] keeps on the caller at
    /// `ps_per_position`: `judge(ps, n)` is `Serial` exactly when
    /// `n <= serial_up_to(ps)` (that is, when `n * ps` is below the fork's
    /// worth in ps).
    pub(super) fn serial_up_to(ps_per_position: u64) -> usize {
        match ps_per_position {
            0 => usize::MAX,
            ps => usize::try_from((FORK_WORTH_NS * 1000 - 1) / ps).unwrap_or(usize::MAX),
        }
    }

    pub(super) fn remember(&self, ps_per_position: u64) {
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
    pub(super) fn trust_for(ps_per_position: u64, positions: usize) -> u8 {
        let call_ns = ps_per_position.saturating_mul(positions as u64) / 1000;
        let calls = TRUST_NS / call_ns.max(1);
        calls.clamp(u64::from(TRUST_CALLS_MIN), u64::from(u8::MAX)) as u8
    }
}
