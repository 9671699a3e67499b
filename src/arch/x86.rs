//! x86 micro-yields: `PAUSE`, and `TPAUSE` where the CPU has WAITPKG.

use super::{MicroYield, TIMED_WAIT_NANOS};
use crate::sync::UnmodeledAtomicU64;
use core::arch::asm;
#[cfg(target_arch = "x86")]
use core::arch::x86 as intrinsics;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64 as intrinsics;
use core::sync::atomic::Ordering::Relaxed;

/// The `PAUSE` instruction: a spin-loop hint on every x86 CPU since the
/// Pentium 4 (older ones decode it as `REP NOP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pause;

impl MicroYield for Pause {
    #[inline(always)]
    fn micro_yield(&self) {
        // SAFETY: PAUSE exists on every x86 CPU (a NOP on the oldest), reads
        // and writes no memory and no flags.
        unsafe { asm!("pause", options(nomem, nostack, preserves_flags)) };
    }
}

/// `TPAUSE`: waits in the light C0.1 state until the TSC passes a deadline.
///
/// Only [`Tpause::detect`] builds one, and only on a CPU that reports WAITPKG
/// (CPUID leaf 7, ECX bit 5). The deadline is [`TIMED_WAIT_NANOS`] converted
/// to TSC ticks with a rate measured once per process, never assumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tpause {
    ticks: u64,
}

impl Tpause {
    /// Returns a `Tpause` if this CPU has WAITPKG and the TSC rate is known.
    pub fn detect() -> Option<Self> {
        if !has_waitpkg() {
            return None;
        }
        let per_micro = tsc_ticks_per_microsecond()?;
        Some(Tpause {
            ticks: (per_micro * TIMED_WAIT_NANOS / 1000).max(1),
        })
    }

    /// The deadline of one wait, in TSC ticks.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

impl MicroYield for Tpause {
    #[inline(always)]
    fn micro_yield(&self) {
        let deadline = read_tsc().wrapping_add(self.ticks);
        // The bytes encode `tpause ecx` (66 0F AE /6, ModRM F1); ECX = 1
        // selects C0.1, EDX:EAX is the TSC deadline. It touches no memory; it
        // writes CF, so flags are not preserved.
        // SAFETY: a `Tpause` exists only if CPUID reported WAITPKG.
        unsafe {
            asm!(
                ".byte 0x66, 0x0f, 0xae, 0xf1",
                in("ecx") 1u32,
                in("edx") (deadline >> 32) as u32,
                in("eax") deadline as u32,
                options(nomem, nostack)
            );
        }
    }
}

/// Whether CPUID reports WAITPKG (`TPAUSE`, `UMONITOR`, `UMWAIT`).
pub fn has_waitpkg() -> bool {
    // SAFETY: CPUID is available on every x86-64 CPU and every x86 CPU Rust
    // targets; reading leaf 0 and, when it exists, leaf 7 has no side effects.
    #[allow(unused_unsafe)]
    let (max_leaf, leaf7_ecx) = unsafe {
        let max_leaf = intrinsics::__get_cpuid_max(0).0;
        let ecx = if max_leaf >= 7 {
            intrinsics::__cpuid_count(7, 0).ecx
        } else {
            0
        };
        (max_leaf, ecx)
    };
    max_leaf >= 7 && leaf7_ecx & (1 << 5) != 0
}

#[inline(always)]
fn read_tsc() -> u64 {
    // SAFETY: RDTSC exists on every x86 CPU Rust targets; user-mode access is
    // only disabled by CR4.TSD, which no mainstream OS sets.
    unsafe { intrinsics::_rdtsc() }
}

/// TSC ticks per microsecond, measured once and cached; 0 means "not yet".
static TSC_PER_MICRO: UnmodeledAtomicU64 = UnmodeledAtomicU64::new(0);

/// TSC ticks per microsecond, or `None` if the rate cannot be established.
///
/// With `std`, measured against the monotonic clock over about a millisecond.
/// Without it, read from CPUID leaf 0x15 (TSC/crystal ratio) or 0x16 (base
/// frequency). A TPAUSE deadline built on a guessed rate would be wrong by
/// the guess, so no rate means no TPAUSE.
pub fn tsc_ticks_per_microsecond() -> Option<u64> {
    let cached = TSC_PER_MICRO.load(Relaxed);
    if cached != 0 {
        return Some(cached);
    }
    let rate = measure_tsc_rate()?;
    TSC_PER_MICRO.store(rate, Relaxed);
    Some(rate)
}

#[cfg(feature = "std")]
fn measure_tsc_rate() -> Option<u64> {
    use std::time::{Duration, Instant};
    let start = Instant::now();
    let tsc_start = read_tsc();
    let mut elapsed;
    loop {
        elapsed = start.elapsed();
        if elapsed >= Duration::from_millis(1) {
            break;
        }
        core::hint::spin_loop();
    }
    let ticks = read_tsc().wrapping_sub(tsc_start);
    let micros = elapsed.as_nanos() as u64 / 1000;
    let rate = ticks / micros.max(1);
    (rate > 0).then_some(rate).or_else(cpuid_tsc_rate)
}

#[cfg(not(feature = "std"))]
fn measure_tsc_rate() -> Option<u64> {
    cpuid_tsc_rate()
}

fn cpuid_tsc_rate() -> Option<u64> {
    // SAFETY: CPUID has no side effects; each leaf is read only if the max
    // basic leaf reports it.
    #[allow(unused_unsafe)]
    let (max_leaf, leaf15, leaf16) = unsafe {
        let max_leaf = intrinsics::__get_cpuid_max(0).0;
        let leaf15 = (max_leaf >= 0x15).then(|| intrinsics::__cpuid(0x15));
        let leaf16 = (max_leaf >= 0x16).then(|| intrinsics::__cpuid(0x16));
        (max_leaf, leaf15, leaf16)
    };
    let _ = max_leaf;
    if let Some(l) = leaf15 {
        // TSC Hz = crystal Hz * EBX / EAX.
        if l.eax != 0 && l.ebx != 0 && l.ecx != 0 {
            let per_micro = u64::from(l.ecx) * u64::from(l.ebx) / u64::from(l.eax) / 1_000_000;
            if per_micro != 0 {
                return Some(per_micro);
            }
        }
    }
    // Leaf 0x16 EAX: processor base frequency in MHz, which is the TSC rate
    // on the Intel parts that have WAITPKG but no crystal figure in 0x15.
    leaf16
        .map(|l| u64::from(l.eax & 0xffff))
        .filter(|&mhz| mhz != 0)
}
