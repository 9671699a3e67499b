//! The static split: `0..n` cut into one contiguous range per thread, fair,
//! with the first `n % threads` threads taking one task more than the rest.

use super::Prong;

/// Unsigned integers that [`split`] can divide work over.
///
/// The split is generic so that tests can check it exhaustively on `u8`,
/// where any overflow in the arithmetic would show up.
pub(crate) trait SplitIndex:
    Copy
    + Ord
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Rem<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
}

macro_rules! split_index {
    ($($t:ty),*) => {$(
        impl SplitIndex for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
        }
    )*};
}
split_index!(u8, u16, u32, u64, usize);

/// `0..n` split among `threads` threads: `q = n / threads` and `r = n %
/// threads`, computed once for every thread's range ([`Shares::of`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shares<I> {
    quotient: I,
    remainder: I,
}

impl<I: SplitIndex> Shares<I> {
    /// The split of `0..n` among `threads` (non-zero) threads.
    #[inline]
    pub(crate) fn new(n: I, threads: I) -> Self {
        Shares {
            quotient: n / threads,
            remainder: n % threads,
        }
    }

    /// Thread `thread`'s contiguous range, as `(begin, count)`: it starts
    /// at `q * thread + min(thread, r)` and takes `q + (thread < r)` tasks.
    /// No intermediate exceeds `n`, so it cannot overflow. `thread` must be
    /// below the thread count.
    #[inline]
    pub(crate) fn of(self, thread: I) -> (I, I) {
        let begin = self.quotient * thread + thread.min(self.remainder);
        let extra = if thread < self.remainder {
            I::ONE
        } else {
            I::ZERO
        };
        (begin, self.quotient + extra)
    }
}

/// Thread `thread`'s contiguous range of `0..n` among `threads` threads, as
/// `(begin, count)` ([`Shares`]). `threads` must be non-zero and `thread <
/// threads`.
#[inline]
pub(crate) fn split<I: SplitIndex>(n: I, threads: I, thread: I) -> (I, I) {
    Shares::new(n, threads).of(thread)
}

/// Turns a per-task closure into a per-range one for `for_slices`: the
/// range's tasks in order, each with its own index.
#[inline(always)]
pub(crate) fn each_task<F: Fn(Prong)>(f: &F) -> impl Fn(Prong, usize) + '_ {
    move |first: Prong, count: usize| {
        for task_index in first.task_index..first.task_index + count {
            f(Prong {
                task_index,
                ..first
            });
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::split;

    /// Every thread count 1..=255 times every task count 0..=255, in `u8`
    /// arithmetic: the ranges tile `0..n` in order, each task once, and
    /// their sizes differ by at most one.
    #[test]
    fn split_tiles_every_range_exhaustively_in_u8() {
        for threads in 1..=u8::MAX {
            for n in 0..=u8::MAX {
                let mut next = 0u16;
                let (mut smallest, mut largest) = (u8::MAX, 0u8);
                for thread in 0..threads {
                    let (begin, count) = split(n, threads, thread);
                    assert_eq!(
                        u16::from(begin),
                        next,
                        "n={n} threads={threads} thread={thread}"
                    );
                    next += u16::from(count);
                    smallest = smallest.min(count);
                    largest = largest.max(count);
                }
                assert_eq!(next, u16::from(n), "n={n} threads={threads}");
                assert!(largest - smallest <= 1, "n={n} threads={threads}");
            }
        }
    }

    #[test]
    fn split_does_not_overflow_near_usize_max() {
        let n = usize::MAX;
        let threads = 7;
        let mut next = 0usize;
        for thread in 0..threads {
            let (begin, count) = split(n, threads, thread);
            assert_eq!(begin, next);
            next = next.wrapping_add(count);
        }
        assert_eq!(next, n);
    }
}
