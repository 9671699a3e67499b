//! [`ThreadPool::stream_records`]: one fork for the whole stream, a reader
//! thread beside it, and the caller's thread as the only writer.
//!
//! Roles:
//! - the reader thread (`reader.rs`) reads, cuts and publishes batches;
//! - every pool thread claims published batches and runs the callback;
//! - the share that runs on the caller's thread (thread 0) also writes
//!   finished outputs, in order or not. The writer is never moved to
//!   another thread, so it need not be `Send`.
//!
//! A fork called from inside a task runs its shares one after the other on
//! the caller: share 0 then does every batch itself and the others find
//! nothing left, so no role ever waits for a share that cannot run.

use super::batch::Batch;
use super::caller::CallerOnly;
use super::error::StreamError;
use super::options::StreamOptions;
use super::reader::{read_all, Cutter, ReadStats};
use super::sizing::Sizer;
use super::state::{Next, Shared, StopOnUnwind};
use super::StreamStats;
use crate::pool::ThreadPool;
use std::io::{Read, Write};
use std::vec::Vec;

impl ThreadPool {
    /// Streams records from `input` through `f` on every thread of the
    /// pool, writing each batch's output to `output`.
    ///
    /// Records end with `options`' delimiter (newline by default). They are
    /// cut from large read buffers into batches of whole records, without
    /// copying; `f` gets one [`Batch`] and an empty output buffer per call,
    /// and whatever it appends is written to `output`, in input order when
    /// the stream is ordered (the default) or in completion order.
    ///
    /// Batch sizes adapt to the backlog within the options' range, and at
    /// most `window` batches are read and unwritten at once, so memory stays
    /// bounded even on endless input with a slow `output`. Whole records are
    /// handed out as soon as a read returns them, so a slow producer's
    /// records are processed at once. No allocation happens per record;
    /// buffers are reused.
    ///
    /// ```
    /// use tine::stream::StreamOptions;
    ///
    /// let pool = tine::spawn_pool(2);
    /// let input = "apple\nbanana\ncherry\n".repeat(1000);
    /// let mut output = Vec::new();
    /// let stats = pool.stream_records(
    ///     input.as_bytes(),
    ///     &mut output,
    ///     StreamOptions::default(),
    ///     |batch, out| {
    ///         for record in batch.records() {
    ///             if record.contains(&b'n') {
    ///                 out.extend_from_slice(record);
    ///                 out.push(b'\n');
    ///             }
    ///         }
    ///         Ok::<(), std::convert::Infallible>(())
    ///     },
    /// )?;
    /// assert_eq!(stats.records, 3000);
    /// assert_eq!(output, "banana\n".repeat(1000).into_bytes()); // in order
    /// # Ok::<(), tine::stream::StreamError<std::convert::Infallible>>(())
    /// ```
    ///
    /// # Errors
    /// - [`StreamError::Options`] for inconsistent options;
    /// - [`StreamError::Callback`]: the first `Err` of `f` stops intake,
    ///   batches already claimed finish, and that error is returned;
    /// - [`StreamError::Read`] and [`StreamError::Write`] for I/O errors,
    ///   with the byte offset;
    /// - [`StreamError::Thread`] if the reader thread cannot start.
    ///
    /// After an error, the call returns once the reader's current `read`
    /// returns: a reader blocked forever keeps it waiting.
    ///
    /// # Panics
    /// A panic in `f`, in the reader or in the writer stops the stream and
    /// resumes on the caller once every thread has left; the pool stays
    /// usable.
    pub fn stream_records<R, W, E, F>(
        &self,
        input: R,
        output: W,
        options: StreamOptions,
        f: F,
    ) -> Result<StreamStats, StreamError<E>>
    where
        R: Read + Send,
        W: Write,
        E: Send,
        F: Fn(&Batch<'_>, &mut Vec<u8>) -> Result<(), E> + Sync,
    {
        options.check().map_err(StreamError::Options)?;
        let threads = self.threads();
        let (min, max) = options.get_batch_range();
        let shared = Shared::new(options.window_for(threads), options.is_ordered());
        let cutter = Cutter {
            delimiter: options.get_delimiter(),
            sizer: Sizer::new(min, max, threads),
        };
        let writer = CallerOnly::new(output);
        let delimiter = options.get_delimiter();
        let stats = std::thread::scope(|scope| {
            let reader = std::thread::Builder::new()
                .name("tine:stream-reader".into())
                .spawn_scoped(scope, || read_all(&shared, input, cutter))
                .map_err(StreamError::Thread)?;
            // Never handed over: the writer is the share on this thread.
            self.fork_with_caller(&|_, _| share(&shared, &writer, &f, delimiter));
            match reader.join() {
                Ok(stats) => Ok(stats),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        })?;
        match shared.into_failure() {
            Some(failure) => Err(failure),
            None => Ok(stream_stats(stats)),
        }
    }
}

fn stream_stats(stats: ReadStats) -> StreamStats {
    StreamStats {
        records: stats.records,
        batches: stats.batches,
        bytes: stats.bytes,
        final_batch: stats.final_batch,
        peak_batch: stats.peak_batch,
    }
}

/// One thread's part: process batches until none are left; on the
/// caller's thread, write outputs too.
fn share<W, E, F>(shared: &Shared<E>, writer: &CallerOnly<W>, f: &F, delimiter: u8)
where
    W: Write,
    F: Fn(&Batch<'_>, &mut Vec<u8>) -> Result<(), E> + Sync,
{
    let _guard = StopOnUnwind(shared);
    let is_writer = writer.is_owner();
    let mut state = shared.lock();
    loop {
        let next;
        (state, next) = shared.next(state, is_writer);
        match next {
            Next::Leave => break,
            Next::Process(index) => {
                let slot = &mut state.slots[index];
                let buffer = slot.buffer.take().expect("a filled slot holds its buffer");
                let bytes = slot.range.clone();
                let (first_record, len) = (slot.first_record, slot.len);
                let mut out = std::mem::take(&mut slot.out);
                drop(state);
                let batch = Batch::new(&buffer[bytes], first_record, len, delimiter);
                let error = f(&batch, &mut out).err();
                drop(buffer); // lets the reader reuse it
                state = shared.done(shared.lock(), index, out, error);
            }
            Next::Write(index) => {
                let out = std::mem::take(&mut state.slots[index].out);
                let offset = state.written;
                drop(state);
                let result = writer
                    .with(|output| output.write_all(&out))
                    .unwrap_or_else(not_the_caller);
                state = shared.lock();
                state.slots[index].out = out;
                match result {
                    Ok(()) => {
                        state.written += state.slots[index].out.len() as u64;
                        shared.free(&mut state, index);
                    }
                    Err(source) => {
                        shared.fail(&mut state, Some(StreamError::Write { offset, source }));
                    }
                }
            }
        }
    }
    let flush = is_writer && !state.stop;
    let offset = state.written;
    drop(state);
    if flush {
        let result = writer
            .with(|output| output.flush())
            .unwrap_or_else(not_the_caller);
        if let Err(source) = result {
            let mut state = shared.lock();
            shared.fail(&mut state, Some(StreamError::Write { offset, source }));
        }
    }
}

/// The writer is reached only from the thread that owns it; a share that
/// believes it is the writer on another thread (which `ForkJoin` rules out)
/// fails the stream instead of touching it.
fn not_the_caller() -> std::io::Result<()> {
    Err(std::io::Error::other(
        "the output is only reachable from the calling thread",
    ))
}
