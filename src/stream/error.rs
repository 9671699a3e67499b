//! [`StreamError`]: why a stream stopped, with the position it stopped at.

use std::fmt;
use std::io;

/// Why [`ThreadPool::stream_records`](crate::pool::ThreadPool::stream_records)
/// stopped early.
///
/// Every variant says where: the input byte offset of a failed read, the
/// output byte offset of a failed write, or the first record of the batch
/// whose callback failed.
#[derive(Debug)]
pub enum StreamError<E> {
    /// The options were inconsistent; nothing was read.
    Options(&'static str),
    /// Reading the input failed.
    Read {
        /// Bytes read successfully before the failure.
        offset: u64,
        /// The reader's error.
        source: io::Error,
    },
    /// Writing the output failed.
    Write {
        /// Bytes written successfully before the failure.
        offset: u64,
        /// The writer's error.
        source: io::Error,
    },
    /// The reader thread could not be started; nothing was read.
    Thread(io::Error),
    /// The callback returned an error: the first one, in time.
    Callback {
        /// The global index of the failed batch's first record.
        first_record: u64,
        /// The callback's error.
        error: E,
    },
}

impl<E> StreamError<E> {
    /// The callback's error, if that is what stopped the stream.
    pub fn into_callback_error(self) -> Option<E> {
        match self {
            StreamError::Callback { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl<E: fmt::Display> fmt::Display for StreamError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Options(why) => write!(f, "invalid stream options: {why}"),
            StreamError::Thread(source) => write!(f, "starting the reader thread failed: {source}"),
            StreamError::Read { offset, source } => {
                write!(f, "reading input failed after {offset} bytes: {source}")
            }
            StreamError::Write { offset, source } => {
                write!(f, "writing output failed after {offset} bytes: {source}")
            }
            StreamError::Callback {
                first_record,
                error,
            } => write!(
                f,
                "processing the batch starting at record {first_record} failed: {error}"
            ),
        }
    }
}

impl<E: fmt::Debug + fmt::Display + 'static> std::error::Error for StreamError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Read { source, .. }
            | StreamError::Write { source, .. }
            | StreamError::Thread(source) => Some(source),
            _ => None,
        }
    }
}
