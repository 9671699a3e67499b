//! The producer behind `par_split`, `par_split_terminator`,
//! `par_split_inclusive`, `par_lines`, `par_split_whitespace` and
//! `par_split_ascii_whitespace`: pieces of a `&str` cut at the characters a
//! [`Pattern`] matches, in `std`'s order and with `std`'s edge cases.
//!
//! # Positions
//!
//! Position `i` is byte `i` of the text, plus one more position, `len`:
//! a piece may start there (the empty piece after a trailing separator,
//! and the one empty piece of an empty text). **Each piece belongs to the
//! position where it starts**: at 0, or right after a matched character.
//! So `range(begin, end)` finds the first piece start at or after `begin`
//! (rounding `begin` up to a character boundary, and looking at the
//! character before it), then yields pieces while they start before `end`.
//! The last one may run on past `end`: the text is shared and read-only.
//! Each piece is yielded by exactly one range, and ranges in position
//! order yield the pieces in `std`'s order.
//!
//! The search for the first start stops at `end`, so every byte is
//! scanned by at most two ranges (its own and the one whose last piece
//! runs over it): the work stays linear however small the blocks are.

use super::pattern::Pattern;
use crate::par::producer::Producer;

/// Which pieces a split yields, and how each is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// `split`: every piece, separators left out.
    Split,
    /// `split_terminator`: as `Split`, but an empty last piece is left out.
    Terminator,
    /// `split_inclusive`: each piece keeps its separator; an empty last
    /// piece is left out.
    Inclusive,
    /// `lines`: as `Inclusive` on `'\n'`, then a trailing `"\n"` or
    /// `"\r\n"` stripped off each piece.
    Lines,
    /// `split_whitespace`: as `Split`, with every empty piece left out.
    NonEmpty,
}

/// Pieces of a string cut at the characters `pattern` matches. See the
/// module docs for how positions map to pieces.
#[derive(Clone, Debug)]
pub struct StrSplitProducer<'a, P> {
    text: &'a str,
    pattern: P,
    cut: Cut,
}

impl<'a, P: Pattern> StrSplitProducer<'a, P> {
    pub(super) fn new(text: &'a str, pattern: P, cut: Cut) -> Self {
        StrSplitProducer { text, pattern, cut }
    }
}

/// The smallest character boundary of `text` at or after `i <= len`.
pub(super) fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The length in bytes of the character that starts at byte `at`.
fn char_len(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(0, char::len_utf8)
}

/// The first piece start in `begin..end` (`begin < end <= len + 1`).
fn first_start<P: Pattern>(text: &str, pattern: &P, begin: usize, end: usize) -> Option<usize> {
    if begin == 0 {
        return Some(0);
    }
    // `begin <= len`: it is below `end <= len + 1`.
    let from = ceil_boundary(text, begin);
    if from >= end {
        return None;
    }
    // `from >= begin > 0`, so a character precedes it.
    let before = text[..from].chars().next_back()?;
    if pattern.matches_char(before) {
        return Some(from);
    }
    // A later start `s < end` follows a matched character that lies in
    // `from..s`, inside the search window below.
    let stop = ceil_boundary(text, end.min(text.len()));
    let at = from + pattern.find_in(&text[from..stop])?;
    let start = at + char_len(text, at);
    (start < end).then_some(start)
}

/// `"\n"` or `"\r\n"` off the end of a line, as `str::lines` strips them.
fn strip_line_end(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => line,
    }
}

// SAFETY: `range` yields only the pieces that start in `begin..end` (see
// the module docs), and reads the shared text only; `EXACT` is false.
unsafe impl<'a, P: Pattern> Producer for StrSplitProducer<'a, P> {
    type Item = &'a str;
    type Iter<'b>
        = StrPieces<'a, 'b, P>
    where
        Self: 'b;
    const EXACT: bool = false;

    fn len(&self) -> usize {
        self.text.len() + 1
    }

    unsafe fn range(&self, begin: usize, end: usize) -> Self::Iter<'_> {
        let next = if begin < end {
            first_start(self.text, &self.pattern, begin, end)
        } else {
            None
        };
        StrPieces {
            text: self.text,
            pattern: &self.pattern,
            cut: self.cut,
            next,
            end,
        }
    }

    unsafe fn drop_range(&self, _begin: usize, _end: usize) {}
}

/// The pieces of one range of a [`StrSplitProducer`].
#[derive(Debug)]
pub struct StrPieces<'a, 'b, P> {
    text: &'a str,
    pattern: &'b P,
    cut: Cut,
    /// Where the next piece starts; `None` once the last piece is out.
    next: Option<usize>,
    /// Pieces starting here or later belong to another range.
    end: usize,
}

impl<'a, P: Pattern> Iterator for StrPieces<'a, '_, P> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let start = self.next.filter(|&start| start < self.end)?;
            let rest = &self.text[start..];
            let piece = match self.pattern.find_in(rest) {
                Some(at) => {
                    let after = at + char_len(rest, at);
                    self.next = Some(start + after);
                    match self.cut {
                        Cut::Inclusive | Cut::Lines => &rest[..after],
                        _ => &rest[..at],
                    }
                }
                None => {
                    // The last piece of the text.
                    self.next = None;
                    if rest.is_empty() && self.cut != Cut::Split {
                        return None;
                    }
                    rest
                }
            };
            match self.cut {
                Cut::Lines => return Some(strip_line_end(piece)),
                Cut::NonEmpty if piece.is_empty() => continue,
                _ => return Some(piece),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Cut, StrSplitProducer};
    use crate::par::producer::Producer;
    use std::vec::Vec;

    /// Every way of cutting the positions in two gives `std`'s pieces.
    #[test]
    fn two_ranges_at_every_cut_give_stds_pieces() {
        let texts = [
            "",
            ",",
            ",,",
            "a,b",
            ",a,,é,",
            "é,\u{1F600},",
            "a\r\nb\n\r\n\n",
        ];
        for text in texts {
            let cases: [(Cut, char, Vec<&str>); 4] = [
                (Cut::Split, ',', text.split(',').collect()),
                (Cut::Terminator, ',', text.split_terminator(',').collect()),
                (Cut::Inclusive, ',', text.split_inclusive(',').collect()),
                (Cut::Lines, '\n', text.lines().collect()),
            ];
            for (cut, separator, expected) in cases {
                let producer = StrSplitProducer::new(text, separator, cut);
                for middle in 0..=producer.len() {
                    // SAFETY: the two ranges cover the positions once.
                    let got: Vec<&str> = unsafe {
                        producer
                            .range(0, middle)
                            .chain(producer.range(middle, producer.len()))
                            .collect()
                    };
                    assert_eq!(got, expected, "{cut:?} {text:?} cut at {middle}");
                }
            }
        }
    }
}
