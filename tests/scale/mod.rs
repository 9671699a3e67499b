//! How big the tests run (`mod scale;`). Natively, at full size. Under Miri,
//! which interprets every instruction, sizes, rounds and proptest cases
//! shrink by a divisor, so the Miri step of `.ci/run` takes minutes, not
//! hours; the shapes (edge lengths, batch ranges) stay, and a suite that
//! tries many thread counts or cutoff overrides says which of them it
//! keeps under Miri.
//!
//! The divisor is `TINE_TEST_SCALE` when set (Miri sees it with
//! `MIRIFLAGS=-Zmiri-env-forward=TINE_TEST_SCALE`), else 100 under Miri
//! and 1 natively.
#![allow(dead_code)] // not every test binary uses every item

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The divisor: see the module docs.
pub fn divisor() -> usize {
    // A cache that threads may fill at once, all with the same value: an
    // atomic, not a `OnceLock`, whose uninstrumented std internals
    // ThreadSanitizer would report as a race.
    static DIVISOR: AtomicUsize = AtomicUsize::new(0);
    match DIVISOR.load(Relaxed) {
        0 => {
            let divisor = std::env::var("TINE_TEST_SCALE")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&d: &usize| d > 0)
                .unwrap_or(if cfg!(miri) { 100 } else { 1 });
            DIVISOR.store(divisor, Relaxed);
            divisor
        }
        divisor => divisor,
    }
}

/// `n` shrunk by the divisor, but never below `min(n, 2)`: an empty input
/// stays empty, and a non-trivial one keeps at least two items.
pub fn size(n: usize) -> usize {
    (n / divisor()).max(n.min(2))
}

/// A proptest configuration with `cases` cases shrunk by the divisor (at
/// least 2). Under Miri, failures are not persisted to files (Miri's
/// isolation forbids them): a failing seed is printed instead.
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    let shrunk = (cases as usize / divisor()).max(2) as u32;
    let mut config = proptest::test_runner::Config::with_cases(shrunk.min(cases));
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// A recursion depth `d` for work that doubles with each level, shrunk by
/// the divisor's log2 (so the work shrinks by about the divisor), but never
/// below `min(d, 2)`.
pub fn depth(d: u32) -> u32 {
    d.saturating_sub(divisor().ilog2()).max(d.min(2))
}
