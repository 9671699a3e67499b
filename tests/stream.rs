//! `ThreadPool::stream_records`: record cutting, order, odd inputs, errors,
//! panics, bounded memory and prompt output.

use std::convert::Infallible;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use tine::stream::{Batch, StreamError, StreamOptions};

/// A reader that returns small, uneven reads (1 to 37 bytes).
struct Trickle<'a> {
    data: &'a [u8],
    seed: u64,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let want = 1 + (self.seed >> 33) as usize % 37;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn lines(n: usize) -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..n {
        writeln!(data, "record {i} {}", "x".repeat(i % 13)).unwrap();
    }
    data
}

fn echo(batch: &Batch<'_>, out: &mut Vec<u8>) -> Result<(), Infallible> {
    out.extend_from_slice(batch.bytes());
    Ok(())
}

#[test]
fn ordered_echo_is_byte_identical_through_uneven_reads() {
    let data = lines(20_000);
    for threads in [1, 2, 3, 8] {
        let pool = tine::spawn(threads);
        for (min, max) in [(1, 1), (1, 7), (3, 64), (1, 100_000)] {
            let options = StreamOptions::default().min_batch(min).max_batch(max);
            let mut out = Vec::new();
            let input = Trickle {
                data: &data,
                seed: threads as u64,
            };
            let stats = pool.stream_records(input, &mut out, options, echo).unwrap();
            assert!(out == data, "{threads} threads, batches {min}..{max}");
            assert_eq!(stats.records, 20_000);
            assert_eq!(stats.bytes, data.len() as u64);
            assert!(stats.peak_batch <= max);
        }
    }
}

#[test]
fn batches_are_contiguous_and_within_the_range() {
    let data = lines(50_000);
    let pool = tine::spawn(3);
    let seen = Mutex::new(Vec::new());
    let options = StreamOptions::default().min_batch(4).max_batch(500);
    let stats = pool
        .stream_records(&data[..], io::sink(), options, |batch, _| {
            assert!(batch.len() <= 500 && !batch.is_empty());
            assert_eq!(batch.records().count(), batch.len());
            seen.lock()
                .unwrap()
                .push((batch.first_record(), batch.len()));
            Ok::<(), Infallible>(())
        })
        .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    let mut next = 0;
    for (first, len) in &seen {
        assert_eq!(*first, next);
        next += *len as u64;
    }
    assert_eq!(next, 50_000);
    assert_eq!(stats.batches, seen.len() as u64);
}

#[test]
fn unordered_output_has_every_record_once() {
    let data = lines(30_000);
    let pool = tine::spawn(4);
    let mut out = Vec::new();
    let options = StreamOptions::default().ordered(false).max_batch(300);
    let input = Trickle {
        data: &data,
        seed: 7,
    };
    pool.stream_records(input, &mut out, options, |batch, out| {
        for record in batch.records() {
            out.extend_from_slice(record);
            out.push(b'\n');
        }
        Ok::<(), Infallible>(())
    })
    .unwrap();
    let mut got: Vec<&[u8]> = out
        .split(|&b| b == b'\n')
        .filter(|r| !r.is_empty())
        .collect();
    let mut want: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|r| !r.is_empty())
        .collect();
    got.sort_unstable();
    want.sort_unstable();
    assert!(got == want);
}

#[test]
fn nul_delimiter_empty_records_and_no_final_delimiter() {
    let pool = tine::spawn(2);
    let data = b"a\0\0bc\0d";
    let records = Mutex::new(Vec::new());
    let options = StreamOptions::default().delimiter(0).max_batch(1);
    let mut out = Vec::new();
    let stats = pool
        .stream_records(&data[..], &mut out, options, |batch, out| {
            for record in batch.records() {
                records
                    .lock()
                    .unwrap()
                    .push((batch.first_record(), record.to_vec()));
            }
            out.extend_from_slice(batch.bytes());
            Ok::<(), Infallible>(())
        })
        .unwrap();
    let mut records = records.into_inner().unwrap();
    records.sort();
    let records: Vec<Vec<u8>> = records.into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        records,
        [b"a".to_vec(), vec![], b"bc".to_vec(), b"d".to_vec()]
    );
    assert_eq!(stats.records, 4);
    assert_eq!(out, data);
}

#[test]
fn empty_input_calls_nothing() {
    let pool = tine::spawn(2);
    let mut out = Vec::new();
    let stats = pool
        .stream_records(io::empty(), &mut out, StreamOptions::default(), |_, _| {
            panic!("no batch in an empty input")
        })
        .map_err(|e: StreamError<Infallible>| e)
        .unwrap();
    assert_eq!((stats.records, stats.batches, stats.bytes), (0, 0, 0));
    assert!(out.is_empty());
}

#[test]
fn a_huge_record_is_never_cut() {
    let huge: Vec<u8> = (0..6 * 1024 * 1024)
        .map(|i| b'a' + (i % 26) as u8)
        .collect();
    let mut data = lines(1000);
    data.extend_from_slice(&huge);
    data.push(b'\n');
    data.extend_from_slice(&lines(1000));
    data.extend_from_slice(&huge); // and last, with no delimiter
    let pool = tine::spawn(3);
    let longest = AtomicUsize::new(0);
    let mut out = Vec::new();
    let stats = pool
        .stream_records(
            &data[..],
            &mut out,
            StreamOptions::default(),
            |batch, out| {
                for record in batch.records() {
                    longest.fetch_max(record.len(), Ordering::Relaxed);
                    if record.len() == huge.len() {
                        assert!(record == &huge[..]);
                    }
                }
                out.extend_from_slice(batch.bytes());
                Ok::<(), Infallible>(())
            },
        )
        .unwrap();
    assert_eq!(longest.into_inner(), huge.len());
    assert_eq!(stats.records, 2002);
    assert!(out == data);
}

#[test]
fn the_first_callback_error_stops_intake_and_is_returned() {
    let data = lines(200_000);
    let pool = tine::spawn(3);
    let calls = AtomicUsize::new(0);
    let options = StreamOptions::default().max_batch(100);
    let result = pool.stream_records(&data[..], io::sink(), options, |batch, _| {
        calls.fetch_add(1, Ordering::Relaxed);
        if batch.first_record() >= 1000 {
            return Err(format!("bad batch at {}", batch.first_record()));
        }
        Ok(())
    });
    match result {
        Err(StreamError::Callback {
            first_record,
            error,
        }) => {
            assert!(first_record >= 1000);
            assert_eq!(error, format!("bad batch at {first_record}"));
        }
        other => panic!("expected a callback error, got {other:?}"),
    }
    // Intake stopped: far fewer than the 2,000 batches were processed.
    assert!(calls.into_inner() < 1000);
    // The pool still works.
    let mut out = Vec::new();
    pool.stream_records(&b"x\n"[..], &mut out, StreamOptions::default(), echo)
        .unwrap();
    assert_eq!(out, b"x\n");
}

#[test]
fn a_panic_in_the_callback_reaches_the_caller_and_the_pool_survives() {
    let data = lines(100_000);
    let pool = tine::spawn(3);
    for _ in 0..3 {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let options = StreamOptions::default().max_batch(50);
            pool.stream_records(&data[..], io::sink(), options, |batch, _| {
                if batch.first_record() >= 5000 {
                    panic!("boom at {}", batch.first_record());
                }
                Ok::<(), Infallible>(())
            })
        }));
        let payload = result.expect_err("the panic propagates");
        let message = payload
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert!(message.starts_with("boom at"), "{message}");
    }
    let count = AtomicU64::new(0);
    pool.stream_records(
        &data[..],
        io::sink(),
        StreamOptions::default(),
        |batch, _| {
            count.fetch_add(batch.len() as u64, Ordering::Relaxed);
            Ok::<(), Infallible>(())
        },
    )
    .unwrap();
    assert_eq!(count.into_inner(), 100_000);
}

/// Fails with an error once `fail_at` bytes have been returned.
struct FailingReader {
    data: Vec<u8>,
    at: usize,
    fail_at: usize,
}

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at >= self.fail_at {
            return Err(io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.fail_at - self.at).min(4096);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_reader_failing_midway_is_reported_with_its_offset() {
    let pool = tine::spawn(2);
    let reader = FailingReader {
        data: lines(100_000),
        at: 0,
        fail_at: 100_000,
    };
    let result = pool.stream_records(reader, io::sink(), StreamOptions::default(), echo);
    match result {
        Err(StreamError::Read { offset, source }) => {
            assert_eq!(offset, 100_000);
            assert_eq!(source.to_string(), "disk on fire");
        }
        other => panic!("expected a read error, got {other:?}"),
    }
    let error = pool
        .stream_records(
            FailingReader {
                data: vec![],
                at: 0,
                fail_at: 0,
            },
            io::sink(),
            StreamOptions::default(),
            echo,
        )
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "reading input failed after 0 bytes: disk on fire"
    );
}

/// Accepts `left` bytes, then fails.
struct FailingWriter {
    left: usize,
}

impl Write for FailingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "reader went away",
            ));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_writer_failing_is_reported() {
    let pool = tine::spawn(2);
    let data = lines(50_000);
    let writer = FailingWriter { left: 10_000 };
    match pool.stream_records(
        &data[..],
        writer,
        StreamOptions::default().max_batch(64),
        echo,
    ) {
        Err(StreamError::Write { source, .. }) => {
            assert_eq!(source.kind(), io::ErrorKind::BrokenPipe)
        }
        other => panic!("expected a write error, got {other:?}"),
    }
}

/// An endless input of short lines, counting what it hands out.
struct Endless {
    handed: Arc<AtomicU64>,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = if i % 8 == 7 { b'\n' } else { b'z' };
        }
        let n = buf.len() / 8 * 8;
        self.handed.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Sleeps on every write and fails after a number of them.
struct SlowWriter {
    writes: usize,
}

impl Write for SlowWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.writes == 0 {
            return Err(io::Error::other("enough"));
        }
        self.writes -= 1;
        std::thread::sleep(Duration::from_millis(5));
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn memory_is_bounded_by_the_window_on_endless_input() {
    let pool = tine::spawn(3);
    let handed = Arc::new(AtomicU64::new(0));
    let window = 4;
    let options = StreamOptions::default().window(window).max_batch(1000);
    let result = pool.stream_records(
        Endless {
            handed: handed.clone(),
        },
        SlowWriter { writes: 60 },
        options,
        echo,
    );
    assert!(matches!(result, Err(StreamError::Write { .. })));
    // 60 batches of at most 8,000 bytes were written; the reader may be
    // ahead by the window's buffers (at most 1 MiB each, plus a read).
    let bound = 60 * 8000 + (window as u64 + 2) * 2 * 1024 * 1024;
    let read = handed.load(Ordering::Relaxed);
    assert!(read <= bound, "read {read} bytes, bound {bound}");
}

/// A reader fed line by line through a channel.
struct Channel {
    lines: mpsc::Receiver<Vec<u8>>,
    pending: Vec<u8>,
}

impl Read for Channel {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            match self.lines.recv() {
                Ok(line) => self.pending = line,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// Forwards every write to a channel.
struct Forward(mpsc::Sender<Vec<u8>>);

impl Write for Forward {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.0.send(buf.to_vec());
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_slow_producer_sees_each_record_processed_at_once() {
    let pool = tine::spawn(2);
    let (line_tx, line_rx) = mpsc::channel();
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>();
    let producer = std::thread::spawn(move || {
        for i in 0..5 {
            line_tx.send(format!("line {i}\n").into_bytes()).unwrap();
            // The record comes back before the next one is even produced.
            let echoed = out_rx
                .recv_timeout(Duration::from_secs(10))
                .expect("prompt output");
            assert_eq!(echoed, format!("LINE {i}\n").into_bytes());
        }
    });
    let input = Channel {
        lines: line_rx,
        pending: Vec::new(),
    };
    let stats = pool
        .stream_records(
            input,
            Forward(out_tx),
            StreamOptions::default().min_batch(4),
            |batch, out| {
                out.extend(batch.bytes().iter().map(u8::to_ascii_uppercase));
                Ok::<(), Infallible>(())
            },
        )
        .unwrap();
    producer.join().unwrap();
    assert_eq!(stats.records, 5);
}

#[test]
fn a_stream_inside_a_task_runs_inline() {
    let pool = tine::spawn(2);
    let data = lines(5000);
    let outputs = Mutex::new(Vec::new());
    pool.for_threads(|thread, _| {
        let mut out = Vec::new();
        pool.stream_records(
            &data[..],
            &mut out,
            StreamOptions::default().max_batch(10),
            echo,
        )
        .unwrap();
        outputs.lock().unwrap().push((thread, out));
    });
    for (_, out) in outputs.into_inner().unwrap() {
        assert!(out == data);
    }
}

#[test]
fn bad_options_are_errors() {
    let pool = tine::spawn(2);
    for (options, why) in [
        (
            StreamOptions::default().min_batch(0),
            "min_batch must be at least 1 record",
        ),
        (
            StreamOptions::default().min_batch(5).max_batch(4),
            "max_batch must be at least min_batch",
        ),
        (
            StreamOptions::default().window(0),
            "window must be at least 1 batch",
        ),
    ] {
        let error = pool
            .stream_records(&b"a\n"[..], io::sink(), options, echo)
            .unwrap_err();
        assert_eq!(error.to_string(), format!("invalid stream options: {why}"));
    }
}

#[test]
fn tiny_windows_still_finish_in_order() {
    let data = lines(5000);
    for threads in [1, 2, 5] {
        let pool = tine::spawn(threads);
        for window in [1, 2, 3] {
            for ordered in [true, false] {
                let options = StreamOptions::default()
                    .window(window)
                    .max_batch(16)
                    .ordered(ordered);
                let mut out = Vec::new();
                let input = Trickle {
                    data: &data,
                    seed: window as u64,
                };
                let stats = pool.stream_records(input, &mut out, options, echo).unwrap();
                assert_eq!(stats.records, 5000);
                if ordered {
                    assert!(out == data, "{threads} threads, window {window}");
                } else {
                    assert_eq!(out.len(), data.len());
                }
            }
        }
    }
}

/// Hands out `burst` at once, then one line per read, `pause` apart.
struct BurstThenTrickle {
    burst: Vec<u8>,
    slow_lines: usize,
    pause: Duration,
}

impl Read for BurstThenTrickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.burst.is_empty() {
            let n = buf.len().min(self.burst.len());
            buf[..n].copy_from_slice(&self.burst[..n]);
            self.burst.drain(..n);
            return Ok(n);
        }
        if self.slow_lines == 0 {
            return Ok(0);
        }
        self.slow_lines -= 1;
        std::thread::sleep(self.pause);
        buf[..5].copy_from_slice(b"slow\n");
        Ok(5)
    }
}

#[test]
fn batches_grow_with_the_backlog_and_shrink_when_input_stalls() {
    let pool = tine::spawn(2);
    let input = BurstThenTrickle {
        burst: lines(300_000),
        slow_lines: 40,
        pause: Duration::from_millis(2),
    };
    let stats = pool
        .stream_records(input, io::sink(), StreamOptions::default(), echo)
        .unwrap();
    assert_eq!(stats.records, 300_040);
    assert!(stats.peak_batch >= 1000, "grew to {}", stats.peak_batch);
    assert!(stats.final_batch <= 4, "shrank to {}", stats.final_batch);
}
