//! The reader: fills large buffers from the input, cuts them at the last
//! delimiter, and publishes batches of whole records.
//!
//! It runs on a thread of its own for the length of one stream, so that a
//! read that blocks (a slow producer, a terminal) never holds up the
//! workers or the writer: every read's whole records are published as soon
//! as the read returns, so nothing waits for a batch to fill up.
//!
//! # Buffers
//!
//! - Records are cut at the last delimiter of what is read; the bytes after
//!   it (an unfinished record) are copied to the start of the next buffer.
//! - Batches borrow the buffer they were cut from through an `Arc`, so no
//!   byte is copied for a worker. A buffer is reused once no batch holds it
//!   (`Arc::get_mut` succeeds). Each published batch holds at most one
//!   buffer and at most `window` batches are unprocessed, so besides the
//!   one being filled at most `window + 1` buffers are ever allocated.
//! - The read size starts small and doubles while reads fill it, up to
//!   [`MAX_READ`]. A buffer holding no delimiter at all doubles, so a
//!   record longer than a buffer is read whole and never cut.

use super::error::StreamError;
use super::scan;
use super::sizing::{Sizer, Workers};
use super::state::{Shared, StopOnUnwind};
use std::io::{ErrorKind, Read};
use std::sync::Arc;
use std::vec::Vec;

/// The first read size. Under Miri, which interprets every byte a fresh
/// buffer is zeroed with, reads are 16 times smaller: the same paths
/// (growing, doubling, huge records) in a fraction of the steps.
const MIN_READ: usize = if cfg!(miri) { 4 * 1024 } else { 64 * 1024 };
/// The largest read size: big enough that reads and hand-offs cost little,
/// small enough that a window of buffers stays in cache-sized memory.
const MAX_READ: usize = if cfg!(miri) { 64 * 1024 } else { 1024 * 1024 };

/// What the reader saw, for [`super::StreamStats`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReadStats {
    pub(crate) records: u64,
    pub(crate) batches: u64,
    pub(crate) bytes: u64,
    pub(crate) final_batch: usize,
    pub(crate) peak_batch: usize,
}

/// The reader's settings.
pub(crate) struct Cutter {
    pub(crate) delimiter: u8,
    pub(crate) sizer: Sizer,
}

/// Reads `input` to the end (or until the stream stops), publishing
/// batches, then marks the input done.
pub(crate) fn read_all<R: Read, E>(shared: &Shared<E>, input: R, cutter: Cutter) -> ReadStats {
    let guard = StopOnUnwind(shared);
    let mut reader = Reader {
        shared,
        input,
        cutter,
        buffers: Vec::new(),
        read_size: MIN_READ,
        stats: ReadStats::default(),
        mean_record: 1,
        backlog: 0,
        workers: Workers::Fed,
    };
    let failure = reader.run().err().flatten();
    reader.stats.final_batch = reader.cutter.sizer.current();
    shared.finish_input(failure);
    drop(guard);
    reader.stats
}

struct Reader<'a, R, E> {
    shared: &'a Shared<E>,
    input: R,
    cutter: Cutter,
    /// Every buffer allocated; the ones with a strong count of 1 are free.
    buffers: Vec<Arc<Vec<u8>>>,
    read_size: usize,
    stats: ReadStats,
    /// The mean record length so far, in bytes (delimiter included).
    mean_record: usize,
    /// The backlog and starvation seen at the last publication.
    backlog: usize,
    workers: Workers,
}

/// `Err(None)`: the stream stopped for another role's reason.
type Step<E> = Result<(), Option<StreamError<E>>>;

impl<R: Read, E> Reader<'_, R, E> {
    fn run(&mut self) -> Step<E> {
        let mut current = self.fresh(None, 0);
        let mut filled = 0;
        loop {
            if self.shared.stopped() {
                return Err(None);
            }
            let buffer = Arc::get_mut(&mut self.buffers[current])
                .expect("the buffer being filled is shared with no batch yet");
            if buffer.len() - filled < self.read_size.min(buffer.len()) / 2 {
                // Room for less than half a read: grow. Only a buffer that
                // holds no delimiter at all is read into again, so this is
                // a record longer than the buffer: it is never cut.
                let grown = (buffer.len() * 2).max(filled + self.read_size);
                buffer.resize(grown, 0);
            }
            let room = buffer.len() - filled;
            let read = match self.input.read(&mut buffer[filled..]) {
                Ok(read) => read,
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(source) => {
                    let offset = self.stats.bytes;
                    return Err(Some(StreamError::Read { offset, source }));
                }
            };
            if read == 0 {
                // End of input: whatever is left is the last record.
                if filled > 0 {
                    self.publish(current, filled)?;
                }
                return Ok(());
            }
            self.stats.bytes += read as u64;
            if read == room && room >= self.read_size {
                self.read_size = (self.read_size * 2).min(MAX_READ);
            }
            let delimiter = self.cutter.delimiter;
            let fresh = &self.buffers[current][filled..filled + read];
            let last = scan::rfind(fresh, delimiter);
            filled += read;
            let Some(last) = last else { continue };
            let end = filled - read + last + 1;
            self.publish(current, end)?;
            let tail = filled - end;
            let next = self.fresh(Some(current), tail);
            let (source, target) = (Arc::clone(&self.buffers[current]), next);
            let buffer = Arc::get_mut(&mut self.buffers[target])
                .expect("a fresh buffer is shared with no batch");
            buffer[..tail].copy_from_slice(&source[end..filled]);
            current = next;
            filled = tail;
        }
    }

    /// Cuts `buffers[index][..end]` into batches of whole records and
    /// publishes them. The region ends with a delimiter, except at the end
    /// of input. Each byte is scanned once: a cut is found by counting
    /// delimiters up to the batch size, and the last batch of the region is
    /// the rest, counted by that same scan. The backlog the sizer sees is
    /// estimated from the mean record length so far.
    fn publish(&mut self, index: usize, end: usize) -> Step<E> {
        let buffer = Arc::clone(&self.buffers[index]);
        let delimiter = self.cutter.delimiter;
        let unterminated = usize::from(buffer[end - 1] != delimiter);
        if self.stats.records == 0 {
            // No mean yet: count this first region once.
            let records = scan::count(&buffer[..end], delimiter) + unterminated;
            self.mean_record = (end / records.max(1)).max(1);
        }
        let mut start = 0;
        while start < end {
            let estimate = (end - start).div_ceil(self.mean_record);
            let size = self
                .cutter
                .sizer
                .next(self.backlog + estimate, self.workers);
            let (take, cut) = match scan::nth_end(&buffer[start..end], delimiter, size) {
                Ok(cut) => (size, start + cut),
                Err(found) => (found + unterminated, end),
            };
            let first = self.stats.records;
            let (backlog, workers) = self
                .shared
                .publish(&buffer, start..cut, first, take)
                .ok_or(None)?;
            self.backlog = backlog;
            self.workers = workers;
            self.stats.records += take as u64;
            self.stats.batches += 1;
            self.stats.peak_batch = self.stats.peak_batch.max(take);
            start = cut;
        }
        self.mean_record = (self.stats.bytes / self.stats.records.max(1)).max(1) as usize;
        Ok(())
    }

    /// A buffer no batch holds, other than `busy`, with room for `keep`
    /// bytes plus one read. Allocates one if none is free.
    fn fresh(&mut self, busy: Option<usize>, keep: usize) -> usize {
        let need = keep + self.read_size;
        let found = (0..self.buffers.len())
            .find(|&i| Some(i) != busy && Arc::strong_count(&self.buffers[i]) == 1);
        let index = match found {
            Some(index) => index,
            None => {
                self.buffers.push(Arc::new(Vec::new()));
                self.buffers.len() - 1
            }
        };
        let buffer = Arc::get_mut(&mut self.buffers[index])
            .expect("a buffer with a strong count of 1 and no weak ones is unshared");
        if buffer.len() > 4 * need.max(MAX_READ) {
            // Grown for a huge record once: give the memory back.
            buffer.truncate(need);
            buffer.shrink_to_fit();
        }
        if buffer.len() < need {
            buffer.resize(need, 0);
        }
        index
    }
}
