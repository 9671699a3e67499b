//! [`ParallelString`]: rayon's parallel methods on `&str` (`par_chars`,
//! `par_split`, `par_lines`, ...), each a thin producer over the shared
//! text that gives `std`'s serial result, in `std`'s order, with no
//! allocation per call.
//!
//! Positions are the bytes of the text. A character (or a match) belongs
//! to the position where it starts, so a range of positions is the text
//! between the character boundaries at or after its two ends, run through
//! `std`'s own iterator. The splits are in `str_split.rs`.

use super::pattern::Pattern;
use super::str_split::{ceil_boundary, Cut, StrSplitProducer};
use crate::par::iter::par::Par;
use crate::par::producer::Indexed;
use crate::par::producer::Producer;

/// The characters that start in positions `begin..end` of `text`, and the
/// byte index where they begin.
fn chars_in(text: &str, begin: usize, end: usize) -> (usize, &str) {
    let from = ceil_boundary(text, begin);
    (from, &text[from..ceil_boundary(text, end).max(from)])
}

/// What `par_split_whitespace` and `par_split_ascii_whitespace` return:
/// the non-empty pieces between the characters a test matches.
pub type SplitWhitespace<'a> = Par<StrSplitProducer<'a, fn(char) -> bool>>;

/// Parallel methods on strings, with rayon's names: implemented for `str`,
/// so `String`s get them through deref. Each gives exactly what the `std`
/// method of the same name without `par_` gives, in the same order (under
/// `collect`, `find_first` and the other ordered consumers).
pub trait ParallelString {
    /// The text, as `&str` (rayon's name).
    fn as_parallel_string(&self) -> &str;

    /// The characters, as `str::chars`.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// assert_eq!("hello".par_chars().max(), Some('o'));
    /// ```
    fn par_chars(&self) -> Par<CharsProducer<'_>> {
        Par::new(CharsProducer(self.as_parallel_string()))
    }

    /// The characters with their byte indices, as `str::char_indices`.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let found = "añb".par_char_indices().find_first(|&(_, c)| c == 'b');
    /// assert_eq!(found, Some((3, 'b')));
    /// ```
    fn par_char_indices(&self) -> Par<CharIndicesProducer<'_>> {
        Par::new(CharIndicesProducer(self.as_parallel_string()))
    }

    /// The bytes, as `str::bytes`; an indexed iterator.
    fn par_bytes(&self) -> Par<BytesProducer<'_>> {
        Par::new(BytesProducer(self.as_parallel_string()))
    }

    /// The UTF-16 code units, as `str::encode_utf16`.
    fn par_encode_utf16(&self) -> Par<EncodeUtf16Producer<'_>> {
        Par::new(EncodeUtf16Producer(self.as_parallel_string()))
    }

    /// The pieces between the characters `separator` matches, as
    /// `str::split`: a leading or trailing separator gives an empty piece,
    /// and an empty text gives one empty piece.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let total: i32 = "1,2,,3".par_split(',').filter_map(|s| s.parse::<i32>().ok()).sum();
    /// assert_eq!(total, 6);
    /// let pieces: Vec<&str> = ",a,".par_split(',').collect();
    /// assert_eq!(pieces, ["", "a", ""]);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Par<StrSplitProducer<'_, P>> {
        Par::new(StrSplitProducer::new(
            self.as_parallel_string(),
            separator,
            Cut::Split,
        ))
    }

    /// The pieces, each ending with the character `separator` matched, as
    /// `str::split_inclusive` (no empty last piece).
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> Par<StrSplitProducer<'_, P>> {
        let text = self.as_parallel_string();
        Par::new(StrSplitProducer::new(text, separator, Cut::Inclusive))
    }

    /// The pieces before each character `terminator` matches, as
    /// `str::split_terminator`: as `par_split`, without the empty piece
    /// after a trailing terminator.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let pieces: Vec<&str> = "a;b;".par_split_terminator(';').collect();
    /// assert_eq!(pieces, ["a", "b"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> Par<StrSplitProducer<'_, P>> {
        let text = self.as_parallel_string();
        Par::new(StrSplitProducer::new(text, terminator, Cut::Terminator))
    }

    /// The lines, as `str::lines`: split after each `'\n'`, which is
    /// stripped with a `'\r'` just before it; no empty last line.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let text = "one\r\ntwo\n\nthree\n";
    /// let lines: Vec<&str> = text.par_lines().collect();
    /// assert_eq!(lines, ["one", "two", "", "three"]);
    /// assert_eq!(text.par_lines().filter(|l| !l.is_empty()).count(), 3);
    /// ```
    fn par_lines(&self) -> Par<StrSplitProducer<'_, char>> {
        Par::new(StrSplitProducer::new(
            self.as_parallel_string(),
            '\n',
            Cut::Lines,
        ))
    }

    /// The non-empty pieces between Unicode whitespace, as
    /// `str::split_whitespace`.
    ///
    /// ```
    /// use tine::prelude::*;
    ///
    /// let words: Vec<&str> = "  a\tbc \u{3000} d ".par_split_whitespace().collect();
    /// assert_eq!(words, ["a", "bc", "d"]);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        let text = self.as_parallel_string();
        Par::new(StrSplitProducer::new(
            text,
            char::is_whitespace,
            Cut::NonEmpty,
        ))
    }

    /// The non-empty pieces between ASCII whitespace, as
    /// `str::split_ascii_whitespace`.
    fn par_split_ascii_whitespace(&self) -> SplitWhitespace<'_> {
        let text = self.as_parallel_string();
        Par::new(StrSplitProducer::new(text, is_ascii_space, Cut::NonEmpty))
    }

    /// The characters `pattern` matches, as `str::matches` (each match is
    /// one character).
    fn par_matches<P: Pattern>(&self, pattern: P) -> Par<MatchesProducer<'_, P>> {
        Par::new(MatchesProducer(MatchIndicesProducer {
            text: self.as_parallel_string(),
            pattern,
        }))
    }

    /// The characters `pattern` matches with their byte indices, as
    /// `str::match_indices`.
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> Par<MatchIndicesProducer<'_, P>> {
        Par::new(MatchIndicesProducer {
            text: self.as_parallel_string(),
            pattern,
        })
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// ASCII whitespace as `str::split_ascii_whitespace` counts it.
fn is_ascii_space(c: char) -> bool {
    c.is_ascii_whitespace()
}

/// A producer of what the `str` method `$method` yields for the
/// characters that start in each range (`chars_in`): `par_chars` and
/// `par_encode_utf16`.
macro_rules! char_part_producer {
    ($(#[$doc:meta])* $name:ident, $item:ty, $iter:ident, $method:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<'a>(&'a str);

        // SAFETY: yields what the characters that start in `begin..end`
        // (`chars_in`) give, reading the shared text only; `EXACT` is false.
        unsafe impl<'a> Producer for $name<'a> {
            type Item = $item;
            type Iter<'b>
                = core::str::$iter<'a>
            where
                Self: 'b;
            const EXACT: bool = false;

            fn len(&self) -> usize {
                self.0.len()
            }

            unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
                chars_in(self.0, begin, end).1.$method()
            }

            unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
        }
    };
}

char_part_producer!(
    /// The characters of a string: `text.par_chars()`.
    CharsProducer, char, Chars, chars
);

/// The characters of a string and their indices: `text.par_char_indices()`.
#[derive(Clone, Debug)]
pub struct CharIndicesProducer<'a>(&'a str);

// SAFETY: as for `CharsProducer` (`char_part_producer`).
unsafe impl<'a> Producer for CharIndicesProducer<'a> {
    type Item = (usize, char);
    type Iter<'b>
        = CharIndicesFrom<'a>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let (from, part) = chars_in(self.0, begin, end);
        CharIndicesFrom {
            inner: part.char_indices(),
            from,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// `char_indices` of a part of a text, with indices into the whole text.
#[derive(Clone, Debug)]
pub struct CharIndicesFrom<'a> {
    inner: core::str::CharIndices<'a>,
    /// Where the part starts in the text.
    from: usize,
}

impl Iterator for CharIndicesFrom<'_> {
    type Item = (usize, char);

    #[inline]
    fn next(&mut self) -> Option<(usize, char)> {
        self.inner.next().map(|(i, c)| (self.from + i, c))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// The bytes of a string: `text.par_bytes()`. Position `i` is byte `i`.
#[derive(Clone, Debug)]
pub struct BytesProducer<'a>(&'a str);

// SAFETY: yields the bytes `begin..end`, one per position.
unsafe impl<'a> Producer for BytesProducer<'a> {
    type Item = u8;
    type Iter<'b>
        = core::iter::Copied<core::slice::Iter<'a, u8>>
    where
        Self: 'b;
    const EXACT: bool = true;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        self.0.as_bytes()[begin..end].iter().copied()
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

// SAFETY: one item per position (above).
unsafe impl Indexed for BytesProducer<'_> {}

char_part_producer!(
    /// The UTF-16 code units of a string: `text.par_encode_utf16()`.
    EncodeUtf16Producer, u16, EncodeUtf16, encode_utf16
);

/// The matches of a pattern and their indices: `text.par_match_indices(p)`.
#[derive(Clone, Debug)]
pub struct MatchIndicesProducer<'a, P> {
    text: &'a str,
    pattern: P,
}

// SAFETY: yields the matches (single characters) that start in
// `begin..end`, reading the shared text only; `EXACT` is false.
unsafe impl<'a, P: Pattern> Producer for MatchIndicesProducer<'a, P> {
    type Item = (usize, &'a str);
    type Iter<'b>
        = MatchIndicesRange<'a, 'b, P>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.text.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let (from, part) = chars_in(self.text, begin, end);
        MatchIndicesRange {
            part,
            from,
            next: 0,
            pattern: &self.pattern,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The matches in one range of a [`MatchIndicesProducer`].
#[derive(Debug)]
pub struct MatchIndicesRange<'a, 'b, P> {
    /// The characters of the range.
    part: &'a str,
    /// Where `part` starts in the text.
    from: usize,
    /// Where the search goes on in `part`.
    next: usize,
    pattern: &'b P,
}

impl<'a, P: Pattern> Iterator for MatchIndicesRange<'a, '_, P> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let rest = &self.part[self.next..];
        let at = self.pattern.find_in(rest)?;
        let width = rest[at..].chars().next().map_or(0, char::len_utf8);
        let index = self.next + at;
        self.next = index + width;
        Some((self.from + index, &self.part[index..self.next]))
    }
}

/// The matches of a pattern: `text.par_matches(p)`.
#[derive(Clone, Debug)]
pub struct MatchesProducer<'a, P>(MatchIndicesProducer<'a, P>);

// SAFETY: the matches of a `MatchIndicesProducer`, without the indices.
unsafe impl<'a, P: Pattern> Producer for MatchesProducer<'a, P> {
    type Item = &'a str;
    type Iter<'b>
        = MatchesRange<'a, 'b, P>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.0.len()
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        // SAFETY: forwarded from the caller.
        MatchesRange(unsafe { self.0.range(begin, end) })
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The matches in one range of a [`MatchesProducer`].
#[derive(Debug)]
pub struct MatchesRange<'a, 'b, P>(MatchIndicesRange<'a, 'b, P>);

impl<'a, P: Pattern> Iterator for MatchesRange<'a, '_, P> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        self.0.next().map(|(_, m)| m)
    }
}
