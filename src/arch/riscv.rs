//! RISC-V micro-yield: `PAUSE` from Zihintpause.

use super::MicroYield;
use core::arch::asm;

/// The `PAUSE` hint (Zihintpause).
///
/// It is encoded as a `FENCE` with predecessor set W and empty successor set,
/// which cores without Zihintpause execute as a no-op, so it needs no
/// detection. Emitted with `.insn` so that assemblers without the extension
/// accept it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pause;

impl MicroYield for Pause {
    #[inline(always)]
    fn micro_yield(&self) {
        // SAFETY: the encoding is a FENCE hint, valid (a no-op at worst) on
        // every RISC-V core; it orders nothing that Rust relies on.
        unsafe {
            asm!(
                ".insn i 0x0F, 0, x0, x0, 0x010",
                options(nomem, nostack, preserves_flags)
            )
        };
    }
}
