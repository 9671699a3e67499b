//! A call's settings: its [`Schedule`], length bounds and pool.

use crate::schedule::ForkJoin;
use core::ptr::NonNull;

/// How a call hands its positions to threads.
///
/// ```
/// use tine::prelude::*;
/// use tine::par::Schedule;
///
/// // Uneven work: threads claim 64 positions at a time.
/// let total: u64 = (0..10_000u64)
///     .into_par_iter()
///     .schedule(Schedule::Dynamic { grain: 64 })
///     .map(|i| (0..i % 100).sum::<u64>())
///     .sum();
/// assert_eq!(total, (0..10_000u64).map(|i| (0..i % 100).sum::<u64>()).sum());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Schedule {
    /// One contiguous range per thread, split fairly (OpenMP's
    /// `schedule(static)`). With a fixed thread count and length, the
    /// ranges, and so the bits of a float reduction, are the same on every
    /// run. The default.
    #[default]
    Static,
    /// Threads claim `grain` positions at a time from a shared counter, one
    /// `fetch_add` per claim (`schedule(dynamic, grain)`). A grain of 0
    /// counts as 1.
    ///
    /// Each thread folds the blocks it claims, which interleave with other
    /// threads' blocks, and the partials combine in thread order: so
    /// `reduce`, `sum`, `product` and `fold` need an operation that is
    /// commutative as well as associative (as OpenMP's reductions do).
    /// `collect` keeps input order whatever the schedule (it runs static),
    /// and `min`, `max`, `find_first` and the like compare positions.
    Dynamic {
        /// Positions per claim.
        grain: usize,
    },
    /// Threads claim `max(ceil(remaining / threads), min)` positions at a
    /// time, one `fetch_add` per claim (`schedule(guided, min)`). As for
    /// `Dynamic`, reductions need a commutative operation.
    Guided {
        /// The smallest claim but the last.
        min: usize,
    },
}

/// The pool a call runs on, kept by address with its lifetime erased; the
/// [`Pooled`] wrapper in the producer's type keeps the iterator from
/// outliving it.
#[derive(Clone, Copy)]
pub(crate) struct PoolRef(pub(crate) NonNull<dyn ForkJoin>);

// A pool stays usable after a panic in a call it ran (the panic resumes on
// the caller once every thread has stopped), so an iterator that names one
// may cross `catch_unwind`, as rayon's iterators may.
impl core::panic::UnwindSafe for PoolRef {}
impl core::panic::RefUnwindSafe for PoolRef {}

/// A call's settings.
#[derive(Clone, Copy)]
pub(crate) struct Config {
    pub(crate) schedule: Schedule,
    pub(crate) min_len: usize,
    pub(crate) max_len: usize,
    pub(crate) pool: Option<PoolRef>,
    /// `panic_fuse`: a panic in `for_each` stops the other blocks too.
    pub(crate) panic_fuse: bool,
}

/// A call's settings but its pool, which is not `Send`: what a call takes
/// to another thread when it has no pool of its own.
#[derive(Clone, Copy)]
pub(crate) struct Unpooled(Schedule, usize, usize, bool);

impl Config {
    /// These settings, but the pool.
    pub(crate) fn unpooled(&self) -> Unpooled {
        Unpooled(self.schedule, self.min_len, self.max_len, self.panic_fuse)
    }
}

impl Unpooled {
    /// The settings back, with no pool.
    pub(crate) fn config(self) -> Config {
        let Unpooled(schedule, min_len, max_len, panic_fuse) = self;
        Config {
            schedule,
            min_len,
            max_len,
            pool: None,
            panic_fuse,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            schedule: Schedule::Static,
            min_len: 1,
            max_len: usize::MAX,
            pool: None,
            panic_fuse: false,
        }
    }
}
