//! [`StreamOptions`]: the delimiter, ordering, batch-size range and window
//! of one stream, checked once before the stream starts.

/// How [`ThreadPool::stream_records`](crate::pool::ThreadPool::stream_records)
/// cuts and orders records.
///
/// ```
/// use tine::stream::StreamOptions;
///
/// let options = StreamOptions::default()
///     .delimiter(b'\0') // NUL-separated records, as `find -print0` writes
///     .ordered(false)   // write each batch's output as soon as it is done
///     .min_batch(16)
///     .max_batch(4096)
///     .window(8);       // at most 8 batches read, in work or unwritten
/// assert_eq!(options.get_window(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOptions {
    delimiter: u8,
    ordered: bool,
    min_batch: usize,
    max_batch: usize,
    window: Option<usize>,
}

/// The most records in one batch unless [`StreamOptions::max_batch`] says
/// otherwise. Past about 32K records a batch gains nothing and the tail of
/// the input is shared out more coarsely.
pub const DEFAULT_MAX_BATCH: usize = 32 * 1024;

impl Default for StreamOptions {
    /// Newline records, ordered output, batches of 1 to
    /// [`DEFAULT_MAX_BATCH`] records, and a window of four batches per
    /// thread (at least 8).
    fn default() -> Self {
        Self {
            delimiter: b'\n',
            ordered: true,
            min_batch: 1,
            max_batch: DEFAULT_MAX_BATCH,
            window: None,
        }
    }
}

impl StreamOptions {
    /// The byte that ends a record (default `b'\n'`). It is not part of the
    /// record; a final record without one still counts.
    #[must_use]
    pub fn delimiter(mut self, delimiter: u8) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// Whether batch outputs are written in input order (default `true`)
    /// or as each batch finishes.
    #[must_use]
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// The fewest records per batch while input keeps up (default 1). The
    /// last batch of a read, and the last of the input, may hold fewer.
    #[must_use]
    pub fn min_batch(mut self, records: usize) -> Self {
        self.min_batch = records;
        self
    }

    /// The most records per batch (default [`DEFAULT_MAX_BATCH`]).
    #[must_use]
    pub fn max_batch(mut self, records: usize) -> Self {
        self.max_batch = records;
        self
    }

    /// The number of batches in flight: read and not yet written. It bounds
    /// memory: at most `window + 2` read buffers (of 1 MiB, or the longest
    /// record) and `window` output buffers exist at once.
    #[must_use]
    pub fn window(mut self, batches: usize) -> Self {
        self.window = Some(batches);
        self
    }

    /// The record delimiter.
    pub fn get_delimiter(&self) -> u8 {
        self.delimiter
    }

    /// Whether output keeps input order.
    pub fn is_ordered(&self) -> bool {
        self.ordered
    }

    /// The batch-size range, `(min, max)`.
    pub fn get_batch_range(&self) -> (usize, usize) {
        (self.min_batch, self.max_batch)
    }

    /// The window in batches, with the default resolved for `threads`.
    pub fn window_for(&self, threads: usize) -> usize {
        self.window.unwrap_or_else(|| (4 * threads).max(8))
    }

    /// The window set with [`StreamOptions::window`], or the default for a
    /// two-thread pool.
    pub fn get_window(&self) -> usize {
        self.window_for(2)
    }

    /// Checks the options, naming the first bad one.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        if self.min_batch == 0 {
            return Err("min_batch must be at least 1 record");
        }
        if self.max_batch < self.min_batch {
            return Err("max_batch must be at least min_batch");
        }
        if self.window == Some(0) {
            return Err("window must be at least 1 batch");
        }
        Ok(())
    }
}
