//! `intersperse`: a clone of a separator between every two items, as
//! rayon's.
//!
//! Over a producer with one item per position (`EXACT`), output position
//! `2i` is the base's item `i` and every odd position a separator, so the
//! output is indexed too, of length `2n - 1`. A base whose positions may
//! yield no item or several (after `filter`, `flat_map`, a bridge) cannot
//! tell where the first item is from inside one range: its items are
//! gathered into a `Vec` first (one fork, in input order), which is then
//! the base.

use crate::par::producer::{Indexed, Producer, VecProducer, VecRange};
use crate::wait::SpinLock;
use either::Either;

/// `intersperse(separator)` over `P`.
pub struct Intersperse<P: Producer> {
    base: Base<P>,
    /// Cloned once per range (one thread at a time: the separator need only
    /// be `Send`), then per separator from that copy.
    separator: SpinLock<P::Item>,
}

/// What the output's even positions come from.
enum Base<P: Producer> {
    /// A base with one item per position.
    Direct(P),
    /// A base of any other kind, its items gathered in order.
    Gathered(VecProducer<P::Item>),
}

impl<P: Producer> core::fmt::Debug for Intersperse<P>
where
    P::Item: Send,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Intersperse")
            .field("base_len", &self.base_len())
            .finish_non_exhaustive()
    }
}

impl<P: Producer> Intersperse<P> {
    /// Over a base with one item per position.
    pub(in crate::par) fn direct(base: P, separator: P::Item) -> Self {
        debug_assert!(P::EXACT);
        Intersperse {
            base: Base::Direct(base),
            separator: SpinLock::new(separator),
        }
    }

    /// Over items already gathered in order.
    pub(in crate::par) fn gathered(items: std::vec::Vec<P::Item>, separator: P::Item) -> Self {
        Intersperse {
            base: Base::Gathered(VecProducer::new(items)),
            separator: SpinLock::new(separator),
        }
    }
}

impl<P: Producer> Intersperse<P>
where
    P::Item: Send,
{
    fn base_len(&self) -> usize {
        match &self.base {
            Base::Direct(base) => base.len(),
            Base::Gathered(items) => items.len(),
        }
    }
}

/// A clone clones the base (its items, for a gathered one) and the
/// separator; the base's clone is dropped, not leaked, if the separator's
/// `clone` panics.
impl<P> Clone for Intersperse<P>
where
    P: Producer + Clone,
    P::Item: Clone + Send,
{
    fn clone(&self) -> Self {
        let separator = || SpinLock::new(self.separator.with(|s| s.clone()));
        match &self.base {
            Base::Direct(base) => {
                let (base, separator) = super::clone_parts(base, separator);
                Intersperse {
                    base: Base::Direct(base),
                    separator,
                }
            }
            Base::Gathered(items) => {
                let (items, separator) = super::clone_parts(items, separator);
                Intersperse {
                    base: Base::Gathered(items),
                    separator,
                }
            }
        }
    }
}

/// Output positions `begin..end` need the base's positions from the first
/// even output position on: `(begin + 1) / 2 .. (end + 1) / 2`.
fn base_range(begin: usize, end: usize) -> (usize, usize) {
    (begin.div_ceil(2), end.div_ceil(2))
}

/// The items of one range: base items and separators, alternating.
pub struct IntersperseIter<I: Iterator> {
    base: I,
    separator: Option<I::Item>,
    /// Whether the next output position is odd (a separator).
    separator_next: bool,
    /// Output positions left.
    left: usize,
}

impl<I: Iterator> Iterator for IntersperseIter<I>
where
    I::Item: Clone,
{
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let separator = self.separator_next;
        self.separator_next = !separator;
        if separator {
            // The last position of the range takes the copy itself.
            if self.left == 0 {
                self.separator.take()
            } else {
                self.separator.clone()
            }
        } else {
            self.base.next()
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

// SAFETY: output position `p` is the base's position `p / 2` (even `p`)
// or a separator (odd `p`); a range hands the base the positions of its
// even output positions, once, and drops the others with them. Both bases
// yield one item per position, so the output does too.
unsafe impl<P> Producer for Intersperse<P>
where
    P: Producer,
    P::Item: Clone + Send,
{
    type Item = P::Item;
    type Iter<'a>
        = IntersperseIter<Either<P::Iter<'a>, VecRange<'a, P::Item>>>
    where
        Self: 'a;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        match self.base_len() {
            0 => 0,
            n => 2 * n - 1,
        }
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let (first, last) = base_range(begin, end);
        let base = match &self.base {
            // SAFETY: the caller hands out output positions once, so the
            // base's positions (two output positions never share one) too.
            Base::Direct(base) => Either::Left(unsafe { base.range(first, last) }),
            // SAFETY: as above.
            Base::Gathered(items) => Either::Right(unsafe { items.range(first, last) }),
        };
        let separators = (end - begin) - (last - first);
        IntersperseIter {
            base,
            separator: (separators > 0).then(|| self.separator.with(|s| s.clone())),
            separator_next: begin % 2 == 1,
            left: end - begin,
        }
    }

    unsafe fn drop_range(&self, begin: usize, end: usize) {
        let (first, last) = base_range(begin, end);
        match &self.base {
            // SAFETY: as in `range`.
            Base::Direct(base) => unsafe { base.drop_range(first, last) },
            // SAFETY: as in `range`.
            Base::Gathered(items) => unsafe { items.drop_range(first, last) },
        }
    }
}

// SAFETY: `EXACT` is true (see the `Producer` impl).
unsafe impl<P> Indexed for Intersperse<P>
where
    P: Producer,
    P::Item: Clone + Send,
{
}
