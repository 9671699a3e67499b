//! `--bar`: a progress line on stderr, drawn by indicatif.
//!
//! The workers add each finished batch's records and bytes to two relaxed
//! counters (nothing per record); a ticker thread copies them into the bar
//! at the refresh rate. On a terminal the line redraws in place ten times a
//! second; anywhere else (a file, a pipe, a CI log), where indicatif would
//! hide it, [`LineLog`] prints one plain line a second instead. When stdin is
//! a regular file, its size is the bar's length, which gives a percentage
//! and an ETA.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use tine::stream::Batch;

/// Records and bytes of the batches done so far.
#[derive(Debug, Default)]
pub struct Counters {
    records: AtomicU64,
    bytes: AtomicU64,
    /// The records as of the bar's position (its bytes), so that a draw
    /// shows both from one moment.
    shown_records: AtomicU64,
}

impl Counters {
    /// Counts a finished batch. Relaxed: the counters carry no other data,
    /// and the bar only needs a recent value.
    pub fn add(&self, batch: &Batch<'_>) {
        self.records
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        self.bytes
            .fetch_add(batch.bytes().len() as u64, Ordering::Relaxed);
    }

    /// Copies the counts into `bar`: the bytes as its position.
    fn show(&self, bar: &ProgressBar) {
        let records = self.records.load(Ordering::Relaxed);
        self.shown_records.store(records, Ordering::Relaxed);
        bar.set_position(self.bytes.load(Ordering::Relaxed));
    }

    fn shown_records(&self) -> u64 {
        self.shown_records.load(Ordering::Relaxed)
    }
}

/// The progress bar and the thread that feeds it.
pub struct Bar {
    bar: ProgressBar,
    counters: Arc<Counters>,
    on_terminal: bool,
    stop: Option<mpsc::Sender<()>>,
    ticker: Option<JoinHandle<()>>,
}

impl Bar {
    /// Starts drawing on stderr; `total`: the input's size, if known.
    pub fn start(total: Option<u64>) -> Bar {
        let counters = Arc::new(Counters::default());
        let on_terminal = io::stderr().is_terminal();
        let (target, interval) = if on_terminal {
            (
                ProgressDrawTarget::stderr_with_hz(10),
                Duration::from_millis(100),
            )
        } else {
            // No rate limit of indicatif's: the ticker's pace is the rate.
            (line_log(), Duration::from_secs(1))
        };
        let bar = ProgressBar::with_draw_target(total, target).with_style(style(total, &counters));
        let (stop, stopped) = mpsc::channel::<()>();
        let ticker = {
            let (bar, counters) = (bar.clone(), Arc::clone(&counters));
            std::thread::Builder::new()
                .name("prun:bar".into())
                .spawn(move || {
                    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                        counters.show(&bar);
                    }
                })
                .ok()
        };
        Bar {
            bar,
            counters,
            on_terminal,
            stop: Some(stop),
            ticker,
        }
    }

    /// The counters the workers add their batches to.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Whether the bar redraws on a terminal: writes to stdout, if it is
    /// the same terminal, should then go through [`Bar::suspend_around`].
    pub fn on_terminal(&self) -> bool {
        self.on_terminal
    }

    /// `out`, whose writes clear the bar first and redraw it after.
    pub fn suspend_around<W: Write>(&self, out: W) -> Suspending<W> {
        Suspending {
            bar: self.bar.clone(),
            out,
        }
    }

    /// Stops the ticker and draws the final counts (the line stays).
    pub fn finish(mut self) {
        drop(self.stop.take());
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
        if self.on_terminal {
            // Redraws in place: a draw more does no harm.
            self.counters.show(&self.bar);
        } else {
            // Each draw is a line: move the position without one, so that
            // the finished bar's draw below is the only last line.
            self.bar.set_draw_target(ProgressDrawTarget::hidden());
            self.counters.show(&self.bar);
            self.bar.set_draw_target(line_log());
        }
        // Leaves the line as it is (`finish` would fill the bar).
        self.bar.abandon();
    }
}

/// Plain lines on stderr, as many as the ticker draws.
fn line_log() -> ProgressDrawTarget {
    ProgressDrawTarget::term_like(Box::new(LineLog::new(io::stderr())))
}

/// The bar's template: a percentage and an ETA only when the size is known.
fn style(total: Option<u64>, counters: &Arc<Counters>) -> ProgressStyle {
    let template = if total.is_some() {
        "{elapsed_precise} [{bar:20}] {percent:>3}% {records} records, \
         {bytes}/{total_bytes} ({records_per_sec} records/s, {binary_bytes_per_sec}), ETA {eta}"
    } else {
        "{elapsed_precise} {records} records, {bytes} \
         ({records_per_sec} records/s, {binary_bytes_per_sec})"
    };
    let (records, rate) = (Arc::clone(counters), Arc::clone(counters));
    ProgressStyle::with_template(template)
        .expect("the template is valid")
        .progress_chars("=> ")
        .with_key(
            "records",
            move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}", records.shown_records());
            },
        )
        .with_key(
            "records_per_sec",
            move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let seconds = state.elapsed().as_secs_f64();
                let per_sec = if seconds > 0.0 {
                    rate.shown_records() as f64 / seconds
                } else {
                    0.0
                };
                let _ = write!(w, "{per_sec:.0}");
            },
        )
}

/// A writer that hides the bar while it writes, so that output on the
/// bar's terminal does not land in the middle of the bar's line.
pub struct Suspending<W> {
    bar: ProgressBar,
    out: W,
}

impl<W: Write> Write for Suspending<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let out = &mut self.out;
        self.bar.suspend(|| out.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let out = &mut self.out;
        self.bar.suspend(|| out.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A draw target for stderr that is not a terminal: each draw becomes one
/// plain line, without cursor movement or trailing padding.
#[derive(Debug)]
struct LineLog<W> {
    /// The line being drawn, and where it goes.
    state: Mutex<(String, W)>,
}

impl<W> LineLog<W> {
    fn new(out: W) -> Self {
        LineLog {
            state: Mutex::new((String::new(), out)),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (String, W)> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

impl<W: Write + Send + std::fmt::Debug> TermLike for LineLog<W> {
    fn width(&self) -> u16 {
        // Wider than the line, so that indicatif never wraps it.
        1024
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        let line = &mut self.state().0;
        line.push_str(s);
        line.push('\n');
        Ok(())
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.state().0.push_str(s);
        Ok(())
    }

    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        let (line, out) = &mut *self.state();
        let text = line.trim_end();
        let written = if text.is_empty() {
            Ok(())
        } else {
            writeln!(out, "{text}").and_then(|()| out.flush())
        };
        line.clear();
        written
    }
}

/// The bytes left to read on stdin when it is a regular file (fstat on fd
/// 0, less the current offset); `None` for a pipe, a terminal or a socket.
#[cfg(unix)]
pub fn stdin_size() -> Option<u64> {
    use std::io::Seek;
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let mut file = std::fs::File::from(fd);
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() {
        return None;
    }
    let offset = file.stream_position().ok()?;
    Some(metadata.len().saturating_sub(offset))
}

/// The size of stdin is known only on Unix.
#[cfg(not(unix))]
pub fn stdin_size() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::LineLog;
    use indicatif::TermLike;

    #[test]
    fn a_line_log_writes_one_line_per_draw() {
        let log = LineLog::new(Vec::new());
        for draw in ["12 records", "", "30 records"] {
            log.clear_line().unwrap();
            log.write_str(draw).unwrap();
            log.write_str("     ").unwrap();
            log.flush().unwrap();
        }
        let (line, out) = &*log.state();
        assert!(line.is_empty());
        assert_eq!(out, b"12 records\n30 records\n");
    }
}
