//! The micro-yield's length on this CPU, measured once per process, so
//! that budgets given as durations (a spin of 500 µs, a look for work
//! every 500 ns) become counts of micro-yields: a micro-yield lasts from a
//! few to over a hundred nanoseconds depending on the CPU.

#[cfg(not(loom))]
use crate::arch::MicroYield;
use crate::arch::Yielder;
use core::time::Duration;

/// How many micro-yields of `yielder` fit in `spin`, at least 1 unless
/// `spin` is zero.
pub(super) fn yields_in(yielder: Yielder, spin: Duration) -> u32 {
    if spin.is_zero() {
        return 0;
    }
    let per_ms = u128::from(calibrated_yields_per_ms(yielder));
    let yields = spin.as_nanos() * per_ms / 1_000_000;
    yields.clamp(1, u128::from(u32::MAX - 1)) as u32
}

/// Micro-yields per millisecond, measured once per process (a ~15 µs
/// calibration). Micro-yields last from a few to over a hundred
/// nanoseconds depending on the CPU, so a budget counted in yields alone
/// would mean very different times on different machines.
pub(super) fn calibrated_yields_per_ms(yielder: Yielder) -> u32 {
    use crate::sync::UnmodeledAtomicU32;
    use core::sync::atomic::Ordering::Relaxed;
    static PER_MS: UnmodeledAtomicU32 = UnmodeledAtomicU32::new(0);
    let cached = PER_MS.load(Relaxed);
    if cached != 0 {
        return cached;
    }
    // Several short rounds, keeping the fastest: a round in which the thread
    // was descheduled (common on a busy host) only looks slower, and taking
    // it would shrink every spin budget of the process for good.
    const ROUNDS: u32 = 8;
    const PROBES: u32 = 64;
    let mut fastest = u128::MAX;
    for _ in 0..ROUNDS {
        let start = std::time::Instant::now();
        for _ in 0..PROBES {
            #[cfg(not(loom))]
            yielder.micro_yield();
        }
        fastest = fastest.min(start.elapsed().as_nanos().max(1));
    }
    let per_ms = (u128::from(PROBES) * 1_000_000 / fastest).clamp(1, u128::from(u32::MAX)) as u32;
    let _ = yielder;
    PER_MS.store(per_ms, Relaxed);
    per_ms
}
