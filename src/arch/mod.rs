//! Micro-yields: what a waiting thread does between two polls of a flag.
//!
//! A spin-wait that polls in a tight loop hammers the memory system and, on
//! SMT cores, steals issue slots from its sibling. Every architecture has an
//! instruction that tells the core "I am spinning": x86 `PAUSE`, AArch64
//! `YIELD`, RISC-V `PAUSE` (Zihintpause). Newer cores can also wait for a
//! bounded time in a low-power state, waking on a deadline: x86 `TPAUSE`
//! (WAITPKG) and AArch64 `WFET` (FEAT_WFxT). Those are faster to leave than an
//! OS sleep and cheaper than a `PAUSE` loop.
//!
//! Each wrapper here implements [`MicroYield`]. The optional instructions are
//! only reachable through a constructor that checks, at run time, that the CPU
//! has them: executing `TPAUSE` on a CPU without WAITPKG raises `SIGILL`.
//! [`Yielder::best`] picks the best one this CPU supports; the pool calls it
//! once when it is built.
//!
//! ```
//! use tine::arch::{MicroYield, Yielder};
//!
//! for yielder in Yielder::available() {
//!     yielder.micro_yield(); // every variant the host supports is safe to run
//! }
//! println!("best micro-yield here: {}", Yielder::best().name());
//! ```

#[cfg(target_arch = "aarch64")]
pub mod aarch64;
#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
pub mod riscv;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod x86;

/// One short wait inside a spin loop.
///
/// Implementations must return on their own after a short, bounded time
/// (nanoseconds to a microsecond or so): callers poll their flag between calls.
pub trait MicroYield {
    /// Waits briefly, hinting the CPU that this thread is spinning.
    fn micro_yield(&self);
}

/// The portable spin hint, [`core::hint::spin_loop`].
///
/// It exists so that code generic over [`MicroYield`] has a variant on every
/// target; on x86 it compiles to `PAUSE`, on AArch64 to `ISB` or `YIELD`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpinLoop;

impl MicroYield for SpinLoop {
    #[inline(always)]
    fn micro_yield(&self) {
        core::hint::spin_loop();
    }
}

/// Any micro-yield this crate knows, chosen at run time.
///
/// An enum rather than a trait object so the wait loop dispatches with one
/// predictable branch and no indirect call. Variants for other architectures
/// do not exist on this target; variants that need an optional CPU feature
/// can only be built by [`Yielder::best`] or [`Yielder::available`], which
/// check the feature first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Yielder {
    /// [`core::hint::spin_loop`].
    SpinLoop(SpinLoop),
    /// x86 `PAUSE`.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    X86Pause(x86::Pause),
    /// x86 `TPAUSE` with a calibrated deadline (WAITPKG).
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    X86Tpause(x86::Tpause),
    /// AArch64 `YIELD`.
    #[cfg(target_arch = "aarch64")]
    Aarch64Yield(aarch64::Yield),
    /// AArch64 `WFET` with a deadline on the virtual counter (FEAT_WFxT).
    #[cfg(target_arch = "aarch64")]
    Aarch64Wfet(aarch64::Wfet),
    /// RISC-V `PAUSE` (Zihintpause; a no-op FENCE hint on older cores).
    #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
    RiscvPause(riscv::Pause),
}

impl Yielder {
    /// The best micro-yield this CPU supports: a timed wait where the CPU has
    /// one, else the architecture's spin hint.
    pub fn best() -> Self {
        let mut best = Yielder::SpinLoop(SpinLoop);
        for candidate in Self::available() {
            best = candidate; // `available` lists from plainest to best
        }
        best
    }

    /// Every micro-yield this CPU supports, from the plainest to the best.
    ///
    /// Under Miri, which runs no inline assembly, only
    /// [`core::hint::spin_loop`].
    pub fn available() -> impl Iterator<Item = Yielder> {
        #[cfg(miri)]
        let candidates: [Option<Yielder>; 3] = [Some(Yielder::SpinLoop(SpinLoop)), None, None];
        #[cfg(not(miri))]
        let candidates: [Option<Yielder>; 3] = [
            Some(Yielder::SpinLoop(SpinLoop)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Some(Yielder::X86Pause(x86::Pause)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            x86::Tpause::detect().map(Yielder::X86Tpause),
            #[cfg(target_arch = "aarch64")]
            Some(Yielder::Aarch64Yield(aarch64::Yield)),
            #[cfg(target_arch = "aarch64")]
            aarch64::Wfet::detect().map(Yielder::Aarch64Wfet),
            #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
            Some(Yielder::RiscvPause(riscv::Pause)),
            #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
            None,
            #[cfg(not(any(
                target_arch = "x86",
                target_arch = "x86_64",
                target_arch = "aarch64",
                target_arch = "riscv32",
                target_arch = "riscv64"
            )))]
            None,
            #[cfg(not(any(
                target_arch = "x86",
                target_arch = "x86_64",
                target_arch = "aarch64",
                target_arch = "riscv32",
                target_arch = "riscv64"
            )))]
            None,
        ];
        candidates.into_iter().flatten()
    }

    /// A short name for logs and benchmark tables, e.g. `"x86-pause"`.
    pub fn name(&self) -> &'static str {
        match self {
            Yielder::SpinLoop(_) => "spin-loop",
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Yielder::X86Pause(_) => "x86-pause",
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Yielder::X86Tpause(_) => "x86-tpause",
            #[cfg(target_arch = "aarch64")]
            Yielder::Aarch64Yield(_) => "aarch64-yield",
            #[cfg(target_arch = "aarch64")]
            Yielder::Aarch64Wfet(_) => "aarch64-wfet",
            #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
            Yielder::RiscvPause(_) => "riscv-pause",
        }
    }
}

impl Default for Yielder {
    fn default() -> Self {
        Self::best()
    }
}

impl MicroYield for Yielder {
    #[inline(always)]
    fn micro_yield(&self) {
        match self {
            Yielder::SpinLoop(y) => y.micro_yield(),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Yielder::X86Pause(y) => y.micro_yield(),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Yielder::X86Tpause(y) => y.micro_yield(),
            #[cfg(target_arch = "aarch64")]
            Yielder::Aarch64Yield(y) => y.micro_yield(),
            #[cfg(target_arch = "aarch64")]
            Yielder::Aarch64Wfet(y) => y.micro_yield(),
            #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
            Yielder::RiscvPause(y) => y.micro_yield(),
        }
    }
}

/// How long the timed micro-yields (`TPAUSE`, `WFET`) wait at most, in
/// nanoseconds: about one cross-core cache-line transfer, so a waiter that
/// sleeps through a flag change loses little.
pub const TIMED_WAIT_NANOS: u64 = 200;
