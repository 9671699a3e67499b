//! `ThreadPool::stream_records`: record cutting, order, odd inputs, batch
//! sizes, nesting. Errors, panics and bounded memory: `stream_errors.rs`.

mod scale;
mod stream_common;
mod support;

use std::convert::Infallible;
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use stream_common::{echo, lines, Trickle};
use tine::stream::{StreamError, StreamOptions};

/// The pool sizes a test tries: all of `sizes` natively; under Miri,
/// which interprets every thread's every step, the smallest and the
/// largest (the inline path, and the most workers).
fn pool_sizes(sizes: &[usize]) -> Vec<usize> {
    match sizes {
        [first, .., last] if cfg!(miri) => vec![*first, *last],
        _ => sizes.to_vec(),
    }
}

#[test]
fn ordered_echo_is_byte_identical_through_uneven_reads() {
    let n = scale::size(20_000);
    let data = lines(n);
    for threads in pool_sizes(&[1, 2, 3, 8]) {
        let pool = tine::spawn_pool(threads);
        for (min, max) in [(1, 1), (1, 7), (3, 64), (1, 100_000)] {
            let options = StreamOptions::default().min_batch(min).max_batch(max);
            let mut out = Vec::new();
            let input = Trickle {
                data: &data,
                seed: threads as u64,
            };
            let stats = pool.stream_records(input, &mut out, options, echo).unwrap();
            assert!(out == data, "{threads} threads, batches {min}..{max}");
            assert_eq!(stats.records, n as u64);
            assert_eq!(stats.bytes, data.len() as u64);
            assert!(stats.peak_batch <= max);
        }
    }
}

#[test]
fn batches_are_contiguous_and_within_the_range() {
    let n = scale::size(50_000);
    let data = lines(n);
    let pool = tine::spawn_pool(3);
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
    assert_eq!(next, n as u64);
    assert_eq!(stats.batches, seen.len() as u64);
}

#[test]
fn unordered_output_has_every_record_once() {
    let data = lines(scale::size(30_000));
    let pool = tine::spawn_pool(4);
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
    let pool = tine::spawn_pool(2);
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
    let pool = tine::spawn_pool(2);
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
    // Longer than several reads (64 KiB to 1 MiB natively; 4 to 64 KiB
    // under Miri, which interprets every byte of it many times over).
    let huge_len = if cfg!(miri) {
        9 * 1024
    } else {
        6 * 1024 * 1024
    };
    let huge: Vec<u8> = (0..huge_len).map(|i| b'a' + (i % 26) as u8).collect();
    let short = scale::size(1000);
    let mut data = lines(short);
    data.extend_from_slice(&huge);
    data.push(b'\n');
    data.extend_from_slice(&lines(short));
    data.extend_from_slice(&huge); // and last, with no delimiter
    let pool = tine::spawn_pool(3);
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
    assert_eq!(stats.records, 2 * short as u64 + 2);
    assert!(out == data);
}

#[test]
fn a_stream_inside_a_task_runs_inline() {
    let pool = tine::spawn_pool(2);
    let data = lines(scale::size(5000));
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
    let pool = tine::spawn_pool(2);
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
    let n = scale::size(5000);
    let data = lines(n);
    for threads in pool_sizes(&[1, 2, 5]) {
        let pool = tine::spawn_pool(threads);
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
                assert_eq!(stats.records, n as u64);
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
#[cfg_attr(
    miri,
    ignore = "timing: batch sizes follow the backlog in real time, and Miri's clock is virtual"
)]
fn batches_grow_with_the_backlog_and_shrink_when_input_stalls() {
    let pool = tine::spawn_pool(2);
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

/// The writer is the share on the caller's thread (the output is the
/// caller's): a stream on a pool whose calls are handed over to its threads
/// (rayon's model), or whose team another caller holds, still runs a share
/// here, and finishes with every byte written.
#[test]
fn a_stream_keeps_its_writer_on_the_caller_whatever_the_team_does() {
    support::within(Duration::from_secs(60), || {
        // Several windows' worth, so that the reader waits for the writer.
        let data = lines(scale::size(200_000));
        let handing_over = tine::ThreadPool::builder()
            .threads(2)
            .caller_runs(false)
            .build()
            .unwrap();
        let mut out = Vec::new();
        let options = StreamOptions::default();
        handing_over
            .stream_records(&data[..], &mut out, options, echo)
            .unwrap();
        assert!(out == data, "a pool that hands calls over");

        let pool = Arc::new(tine::spawn_pool(2));
        let (held, is_held) = channel();
        let (release, released) = channel::<()>();
        let released = Mutex::new(released);
        let holder = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                pool.join(
                    || {
                        held.send(()).unwrap();
                        released.lock().unwrap().recv().unwrap();
                    },
                    || (),
                )
            })
        };
        is_held.recv().unwrap();
        let mut out = Vec::new();
        pool.stream_records(&data[..], &mut out, options, echo)
            .unwrap();
        release.send(()).unwrap();
        holder.join().unwrap();
        assert!(out == data, "a team another caller holds");
    });
}
