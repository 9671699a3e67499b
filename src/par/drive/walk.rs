//! A thread's walk through its static range, and the record each thread
//! leaves in its slot.

use crate::schedule::split;

/// One thread's result, left in its slot. The caller writes every slot
/// before the fork with nothing folded and nothing handed out, so a share
/// that never runs (or dies before its guard exists) still leaves a true
/// record.
pub(super) struct Record<A> {
    /// `None` if the thread's share unwound or never ran.
    pub(super) acc: Option<A>,
    /// Positions `begin..done` of its static range were folded.
    pub(super) begin: usize,
    pub(super) done: usize,
    /// Positions `handed..end` of its static range were never handed out.
    pub(super) handed: usize,
    pub(super) end: usize,
}

impl<A> Record<A> {
    /// The record of a static range (or, for claims, an empty one) that no
    /// share has touched yet.
    pub(super) fn untouched(begin: usize, end: usize) -> Self {
        Record {
            acc: None,
            begin,
            done: begin,
            handed: begin,
            end,
        }
    }
}

/// A thread's walk through its static range.
#[derive(Clone, Copy)]
pub(super) struct Walk {
    pub(super) begin: usize,
    /// Folded up to here.
    pub(super) done: usize,
    /// Handed out up to here (folded or dropped).
    pub(super) cursor: usize,
    pub(super) end: usize,
    /// The next geometric block size (thread 0), or `usize::MAX`.
    pub(super) grow: usize,
}

impl Walk {
    /// No range: what the caller's guard holds before its first partial.
    pub(super) fn empty() -> Self {
        Walk {
            begin: 0,
            done: 0,
            cursor: 0,
            end: 0,
            grow: usize::MAX,
        }
    }

    pub(super) fn new(n: usize, used: usize, thread: usize) -> Self {
        let (begin, count) = split(n, used, thread);
        Walk {
            begin,
            done: begin,
            cursor: begin,
            end: begin + count,
            grow: if thread == 0 { 1 } else { usize::MAX },
        }
    }

    pub(super) fn next_block(&mut self, max_block: usize) -> Option<(usize, usize)> {
        if self.cursor >= self.end {
            return None;
        }
        let size = self.grow.min(max_block).min(self.end - self.cursor);
        if self.grow != usize::MAX {
            self.grow = self.grow.saturating_mul(4);
        }
        let begin = self.cursor;
        self.cursor += size;
        Some((begin, self.cursor))
    }
}
