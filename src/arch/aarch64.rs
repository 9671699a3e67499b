//! AArch64 micro-yields: `YIELD`, and `WFET` where the CPU has FEAT_WFxT.

use super::{MicroYield, TIMED_WAIT_NANOS};
use core::arch::asm;

/// The `YIELD` hint: tells an SMT core that this thread is spinning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Yield;

impl MicroYield for Yield {
    #[inline(always)]
    fn micro_yield(&self) {
        // SAFETY: YIELD is a hint in the base A64 ISA; it has no effect on
        // memory, registers or flags.
        unsafe { asm!("yield", options(nomem, nostack, preserves_flags)) };
    }
}

/// `WFET`: waits for an event or until the virtual counter passes a deadline.
///
/// Only [`Wfet::detect`] builds one, and only where the kernel reports
/// FEAT_WFxT (`AT_HWCAP2` bit 31 on Linux). The deadline is
/// [`TIMED_WAIT_NANOS`] converted with `CNTFRQ_EL0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wfet {
    ticks: u64,
}

/// `HWCAP2_WFXT` from the Linux UAPI `asm/hwcap.h`.
#[cfg(any(target_os = "linux", target_os = "android"))]
const HWCAP2_WFXT: u64 = 1 << 31;

impl Wfet {
    /// Returns a `Wfet` if the CPU supports FEAT_WFxT.
    pub fn detect() -> Option<Self> {
        if !has_wfxt() {
            return None;
        }
        let frequency = counter_frequency();
        if frequency == 0 {
            return None;
        }
        Some(Wfet {
            ticks: (frequency * TIMED_WAIT_NANOS / 1_000_000_000).max(1),
        })
    }

    /// The deadline of one wait, in virtual-counter ticks.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

impl MicroYield for Wfet {
    #[inline(always)]
    fn micro_yield(&self) {
        let deadline = virtual_counter().wrapping_add(self.ticks);
        // SAFETY: a `Wfet` exists only if the OS reported FEAT_WFxT, so the
        // instruction is defined. `.inst 0xd5031000 | Rt` encodes `wfet xRt`;
        // the deadline is pinned to x0, so Rt = 0. It touches no memory.
        unsafe {
            asm!(
                ".inst 0xd5031000",
                in("x0") deadline,
                options(nomem, nostack, preserves_flags)
            );
        }
    }
}

/// Whether the OS reports FEAT_WFxT (`WFET`, `WFIT`).
pub fn has_wfxt() -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: getauxval only reads the auxiliary vector the kernel gave
        // the process; it returns 0 for an unknown type.
        let hwcap2 = unsafe { libc::getauxval(libc::AT_HWCAP2) };
        #[allow(clippy::unnecessary_cast)]
        return hwcap2 as u64 & HWCAP2_WFXT != 0;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    false
}

#[inline(always)]
fn virtual_counter() -> u64 {
    let value: u64;
    // SAFETY: CNTVCT_EL0 is readable at EL0 on Linux and every mainstream OS
    // (CNTKCTL_EL1.EL0VCTEN is set); reading it has no side effects.
    unsafe { asm!("mrs {}, cntvct_el0", out(reg) value, options(nomem, nostack, preserves_flags)) };
    value
}

fn counter_frequency() -> u64 {
    let value: u64;
    // SAFETY: CNTFRQ_EL0 is readable at EL0; reading it has no side effects.
    unsafe { asm!("mrs {}, cntfrq_el0", out(reg) value, options(nomem, nostack, preserves_flags)) };
    value
}
