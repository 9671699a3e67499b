//! [`Batch`]: whole records cut from a read buffer, lent to the callback
//! without copying, and [`Records`], the iterator over them.

use super::scan;

/// One batch of whole records, borrowed from the stream's read buffer.
///
/// `bytes()` holds the records with their delimiters, exactly as read (the
/// input's final record may lack one). `records()` yields them without.
///
/// ```
/// let pool = tine::spawn_pool(2);
/// let mut out = Vec::new();
/// pool.stream_records(&b"a\nbb\nccc"[..], &mut out, Default::default(), |batch, out| {
///     for record in batch.records() {
///         out.extend_from_slice(&record.len().to_string().into_bytes());
///         out.push(b'\n');
///     }
///     Ok::<(), std::convert::Infallible>(())
/// })?;
/// assert_eq!(out, b"1\n2\n3\n");
/// # Ok::<(), tine::stream::StreamError<std::convert::Infallible>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    bytes: &'a [u8],
    first_record: u64,
    len: usize,
    delimiter: u8,
}

impl<'a> Batch<'a> {
    pub(crate) fn new(bytes: &'a [u8], first_record: u64, len: usize, delimiter: u8) -> Self {
        Self {
            bytes,
            first_record,
            len,
            delimiter,
        }
    }

    /// The records, without delimiters, in input order.
    pub fn records(&self) -> Records<'a> {
        Records {
            rest: self.bytes,
            delimiter: self.delimiter,
            left: self.len,
        }
    }

    /// The batch's bytes as read: its records with their delimiters.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The global index of the batch's first record (0 for the input's
    /// first record).
    pub fn first_record(&self) -> u64 {
        self.first_record
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds no records (never true for a batch given to
    /// a callback).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The record delimiter.
    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }
}

/// The records of a [`Batch`], without delimiters.
#[derive(Clone, Debug)]
pub struct Records<'a> {
    rest: &'a [u8],
    delimiter: u8,
    left: usize,
}

impl<'a> Iterator for Records<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let rest = self.rest;
        match scan::find(rest, self.delimiter) {
            Some(end) => {
                self.rest = &rest[end + 1..];
                Some(&rest[..end])
            }
            None => {
                self.rest = &[];
                Some(rest)
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }

    #[inline]
    fn count(self) -> usize {
        self.left
    }
}

impl ExactSizeIterator for Records<'_> {}
impl core::iter::FusedIterator for Records<'_> {}
