//! The OpenMP peer: libgomp, driven through the C functions of `omp/omp.c`
//! (built by `build.rs` with `-fopenmp`).
//!
//! libgomp keeps one pool of threads per process and reuses it for every
//! parallel region with the same team size, so [`OpenMp`] holds no state of
//! its own: it names a team size, and each call enters one region of that
//! size. Its wait policy is libgomp's: spin `GOMP_SPINCOUNT` times (300,000
//! by default, far fewer when threads outnumber CPUs), then sleep on a futex;
//! `OMP_WAIT_POLICY` and `GOMP_SPINCOUNT` from the environment apply as to
//! any OpenMP program.

use std::os::raw::c_int;

extern "C" {
    fn tine_peers_omp_empty_fork_join(threads: c_int);
    fn tine_peers_omp_team_size(threads: c_int) -> c_int;
}

/// An OpenMP team of a fixed size.
#[derive(Clone, Copy, Debug)]
pub struct OpenMp {
    threads: c_int,
}

impl OpenMp {
    /// A team of `threads` threads, the caller included. Enters one region
    /// to start libgomp's threads, and panics if libgomp gives fewer
    /// threads than asked for (as it does under `OMP_THREAD_LIMIT`), since
    /// the comparison with other backends would then be meaningless.
    pub fn new(threads: usize) -> OpenMp {
        let threads = c_int::try_from(threads).expect("team size fits in a C int");
        // SAFETY: the function takes a plain int and touches only libgomp's
        // own state.
        let got = unsafe { tine_peers_omp_team_size(threads) };
        assert_eq!(got, threads, "libgomp ran a smaller team than asked for");
        OpenMp { threads }
    }

    /// Threads per region, the caller included.
    pub fn threads(&self) -> usize {
        self.threads as usize
    }

    /// One empty parallel region (`#pragma omp parallel num_threads(t)`):
    /// fork and join, nothing else.
    pub fn empty_fork_join(&self) {
        // SAFETY: as in `new`.
        unsafe { tine_peers_omp_empty_fork_join(self.threads) }
    }
}
