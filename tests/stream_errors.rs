//! `ThreadPool::stream_records` when things go wrong: callback errors,
//! panics, failing readers and writers, memory on endless input, and a
//! producer that is slow.

mod stream_common;

use std::convert::Infallible;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use stream_common::{echo, lines};
use tine::stream::{StreamError, StreamOptions};

#[test]
fn the_first_callback_error_stops_intake_and_is_returned() {
    let data = lines(200_000);
    let pool = tine::spawn_pool(3);
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
    let pool = tine::spawn_pool(3);
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
    let pool = tine::spawn_pool(2);
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
    let pool = tine::spawn_pool(2);
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
    let pool = tine::spawn_pool(3);
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
    let pool = tine::spawn_pool(2);
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
