//! Ordered streaming: records from a reader in adaptive batches
//! ([`ThreadPool::stream_records`](crate::pool::ThreadPool::stream_records)), and
//! an ordered, lazy parallel map over any iterator
//! ([`ThreadPool::map_ordered`](crate::pool::ThreadPool::map_ordered)).
//!
//! This layer sits above the pool: each stream is one fork of the pool
//! (`for_threads`) for its whole length, plus one reader thread, and each
//! refill of a `map_ordered` iterator is one fork. The `prun` command-line
//! tool (the `prun/` crate of the repository) is built on it.
//!
//! # Batches, memory and errors
//!
//! - **Batches adapt.** A batch's size follows the backlog divided by the
//!   thread count, within [`StreamOptions::min_batch`] and
//!   [`StreamOptions::max_batch`]: it grows at once, and shrinks only when
//!   workers starve while the input stalls. Each read's whole records are
//!   handed out as soon as the read returns, so a slow producer
//!   (`tail -f`) sees every record processed at once.
//! - **Order is nearly free.** Ordered output costs about what unordered
//!   output does (measured in the repository's `BENCHMARKS.md`).
//! - **Memory is bounded** by [`StreamOptions::window`] (default: four
//!   batches per thread, at least 8), however fast the input and however
//!   slow the output. Read and output buffers are recycled, so nothing is
//!   allocated per record.
//! - **Errors stop the stream.** The callback's first `Err` stops intake;
//!   batches already claimed finish, and the error comes back with the
//!   record it was at ([`StreamError::Callback`]). Read and write errors
//!   come back with their byte offsets. A panic in the callback resumes on
//!   the caller, and the pool stays usable.
//!
//! # Invariants
//!
//! - Records are whole: a batch ends at a delimiter (or at the end of
//!   input), and a record longer than the read buffer grows the buffer.
//! - Output order is input order when ordered: the writer writes batch
//!   `k + 1` only after batch `k`.
//! - At most `window` batches are read and unwritten at once (`state.rs`),
//!   so memory is bounded by the window, not by the input.
//! - Hand-offs take a mutex once per batch and role, never per record;
//!   record bytes are never copied for a worker, and buffers are reused.
//! - Every wait is on a condition variable that some role is bound to
//!   signal: a finished batch, a freed slot, a publication, the end of
//!   input or a stop. A failure or panic in any role stops every other role,
//!   so nothing waits forever.
//!
//! # Files
//!
//! - `options.rs`: [`StreamOptions`]; `error.rs`: [`StreamError`];
//!   `batch.rs`: [`Batch`] and [`Records`];
//! - `scan.rs`: the byte scans; `sizing.rs`: the batch-size controller;
//! - `state.rs`: the slots and their hand-offs; `reader.rs`: reading and
//!   cutting; `records.rs`: `stream_records` and the threads' loop;
//!   `caller.rs`: keeping the writer on the caller's thread;
//! - `map.rs`: `map_ordered` and [`MapOrdered`].

mod batch;
mod caller;
mod error;
mod map;
mod options;
mod reader;
mod records;
mod scan;
mod sizing;
mod state;

pub use batch::{Batch, Records};
pub use error::StreamError;
pub use map::MapOrdered;
pub use options::{StreamOptions, DEFAULT_MAX_BATCH};

/// What a finished stream saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamStats {
    /// Records read (a final record without a delimiter included).
    pub records: u64,
    /// Batches handed to the callback.
    pub batches: u64,
    /// Bytes read.
    pub bytes: u64,
    /// The batch-size controller's size when the input ended, in records.
    pub final_batch: usize,
    /// The largest batch cut, in records.
    pub peak_batch: usize,
}
