//! [`Pattern`]: what `par_split`, `par_split_terminator`,
//! `par_split_inclusive`, `par_matches` and `par_match_indices` accept as a
//! separator, with rayon's set of implementors: a `char`, a slice or array
//! of `char`s (any of them matches), or a closure `Fn(char) -> bool`.
//!
//! Every pattern matches one `char` at a time, so a match never spans two
//! characters; the search itself is `std`'s (`str::find`), which uses a
//! byte search for a single `char`.

/// Keeps [`Pattern`] closed to the implementors below, as rayon's is.
mod sealed {
    /// Implemented only in this module's parent.
    pub trait Sealed {}
}

/// A pattern that matches single characters: a `char`, `&[char]`,
/// `[char; N]`, `&[char; N]`, or a closure `Fn(char) -> bool + Sync +
/// Send`. Sealed: it cannot be implemented outside tine.
///
/// ```
/// use tine::prelude::*;
///
/// let text = "a,b;c d";
/// assert_eq!(text.par_split(',').count(), 2);
/// assert_eq!(text.par_split([',', ';']).count(), 3);
/// assert_eq!(text.par_split(&[',', ';', ' '][..]).count(), 4);
/// assert_eq!(text.par_split(|c: char| !c.is_alphabetic()).count(), 4);
/// ```
pub trait Pattern: sealed::Sealed + Sized + Sync + Send {
    /// The byte index of the first character of `haystack` that matches.
    #[doc(hidden)]
    fn find_in(&self, haystack: &str) -> Option<usize>;

    /// Whether `c` matches.
    #[doc(hidden)]
    fn matches_char(&self, c: char) -> bool;
}

impl sealed::Sealed for char {}

impl Pattern for char {
    #[inline]
    fn find_in(&self, haystack: &str) -> Option<usize> {
        haystack.find(*self)
    }

    #[inline]
    fn matches_char(&self, c: char) -> bool {
        c == *self
    }
}

impl sealed::Sealed for &[char] {}

impl Pattern for &[char] {
    #[inline]
    fn find_in(&self, haystack: &str) -> Option<usize> {
        haystack.find(*self)
    }

    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> sealed::Sealed for [char; N] {}

impl<const N: usize> Pattern for [char; N] {
    #[inline]
    fn find_in(&self, haystack: &str) -> Option<usize> {
        haystack.find(&self[..])
    }

    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> sealed::Sealed for &[char; N] {}

impl<const N: usize> Pattern for &[char; N] {
    #[inline]
    fn find_in(&self, haystack: &str) -> Option<usize> {
        haystack.find(&self[..])
    }

    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Sync + Send> sealed::Sealed for F {}

impl<F: Fn(char) -> bool + Sync + Send> Pattern for F {
    #[inline]
    fn find_in(&self, haystack: &str) -> Option<usize> {
        haystack.find(|c: char| self(c))
    }

    #[inline]
    fn matches_char(&self, c: char) -> bool {
        self(c)
    }
}
