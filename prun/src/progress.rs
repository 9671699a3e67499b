//! `--bar`: a progress line on stderr, drawn by indicatif.
//!
//! The workers add each batch's records to a relaxed counter when they
//! take it, and its records and bytes to two more when they finish it
//! (nothing per record), so a long first batch shows as started at once; a
//! ticker thread copies them into the bar at the refresh rate. On a
//! terminal the line redraws in place ten times a second; anywhere else (a
//! file, a pipe, a CI log), where indicatif would hide it, [`LineLog`]
//! prints one plain line a second instead. When stdin is a regular file,
//! its size is the bar's length, which gives a percentage and an ETA.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use tine::stream::Batch;

/// Records of the batches handed out so far, and records and bytes of
/// those done. Relaxed: the counters carry no other data, and the bar only
/// needs a recent value.
#[derive(Debug, Default)]
pub struct Counters {
    started: AtomicU64,
    records: AtomicU64,
    bytes: AtomicU64,
    /// The counts as of the bar's position (the bytes done), so that a
    /// draw shows all three from one moment.
    shown_started: AtomicU64,
    shown_records: AtomicU64,
}

impl Counters {
    /// Counts a batch handed to a worker, before its work starts.
    pub fn start(&self, batch: &Batch<'_>) {
        self.add_started(batch.len() as u64);
    }

    /// Counts a batch whose work is done.
    pub fn done(&self, batch: &Batch<'_>) {
        self.add_done(batch.len() as u64, batch.bytes().len() as u64);
    }

    fn add_started(&self, records: u64) {
        self.started.fetch_add(records, Ordering::Relaxed);
    }

    fn add_done(&self, records: u64, bytes: u64) {
        self.records.fetch_add(records, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Copies the counts into `bar`: the bytes done as its position.
    fn show(&self, bar: &ProgressBar) {
        // Relaxed loads of two counters may see them out of step: a batch
        // seen done shows as started too.
        let records = self.records.load(Ordering::Relaxed);
        let started = self.started.load(Ordering::Relaxed);
        self.shown_records.store(records, Ordering::Relaxed);
        self.shown_started
            .store(started.max(records), Ordering::Relaxed);
        bar.set_position(self.bytes.load(Ordering::Relaxed));
    }

    fn shown_records(&self) -> u64 {
        self.shown_records.load(Ordering::Relaxed)
    }

    fn shown_started(&self) -> u64 {
        self.shown_started.load(Ordering::Relaxed)
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

    /// The counters the workers count their batches in.
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

/// The bar's template: records started and done, then the bytes and rates
/// of those done; a percentage and an ETA only when the size is known.
fn style(total: Option<u64>, counters: &Arc<Counters>) -> ProgressStyle {
    let template = if total.is_some() {
        "{elapsed_precise} [{bar:20}] {percent:>3}% {started} records started, {records} done, \
         {bytes}/{total_bytes} ({records_per_sec} records/s, {binary_bytes_per_sec}), ETA {eta}"
    } else {
        "{elapsed_precise} {started} records started, {records} done, {bytes} \
         ({records_per_sec} records/s, {binary_bytes_per_sec})"
    };
    let (started, records, rate) = (
        Arc::clone(counters),
        Arc::clone(counters),
        Arc::clone(counters),
    );
    ProgressStyle::with_template(template)
        .expect("the template is valid")
        .progress_chars("=> ")
        .with_key(
            "started",
            move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}", started.shown_started());
            },
        )
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
/// plain line, without cursor movement or trailing padding, written with
/// its newline in one `write`, so that output sharing the file (`2>&1`)
/// cannot land inside it.
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
        line.truncate(line.trim_end().len());
        let written = if line.is_empty() {
            Ok(())
        } else {
            line.push('\n');
            out.write_all(line.as_bytes()).and_then(|()| out.flush())
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
    use super::{style, Counters, LineLog};
    use indicatif::{ProgressBar, ProgressDrawTarget, TermLike};
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};

    /// A writer that keeps each `write` call apart.
    #[derive(Clone, Debug, Default)]
    struct Writes(Arc<Mutex<Vec<Vec<u8>>>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Writes {
        fn lines(&self) -> Vec<String> {
            let writes = self.0.lock().unwrap();
            writes
                .iter()
                .map(|w| String::from_utf8(w.clone()).unwrap())
                .collect()
        }
    }

    #[test]
    fn a_line_log_writes_each_draw_as_one_whole_line() {
        let out = Writes::default();
        let log = LineLog::new(out.clone());
        for draw in ["12 records", "", "30 records"] {
            log.clear_line().unwrap();
            log.write_str(draw).unwrap();
            log.write_str("     ").unwrap();
            log.flush().unwrap();
        }
        assert!(log.state().0.is_empty());
        // One write per line, newline included: nothing else written to
        // the same file can land between a line and its end.
        assert_eq!(out.lines(), ["12 records\n", "30 records\n"]);
    }

    #[test]
    fn the_bar_shows_records_started_before_they_are_done() {
        let out = Writes::default();
        let counters = Arc::new(Counters::default());
        let target = ProgressDrawTarget::term_like(Box::new(LineLog::new(out.clone())));
        let bar = ProgressBar::with_draw_target(None, target).with_style(style(None, &counters));
        // A first batch of 1000 records, taken and still running.
        counters.add_started(1000);
        counters.show(&bar);
        // It finishes, with 6 KiB; a second one starts.
        counters.add_done(1000, 6144);
        counters.add_started(500);
        counters.show(&bar);
        bar.abandon();
        // Each position change draws a line; the last is the final one.
        let lines = out.lines();
        assert!(
            lines[0].contains(" 1000 records started, 0 done, 0 B "),
            "{lines:?}"
        );
        assert!(
            lines[lines.len() - 1].contains(" 1500 records started, 1000 done, 6.00 KiB "),
            "{lines:?}"
        );
        assert!(lines.iter().all(|line| line.ends_with(")\n")), "{lines:?}");
    }
}
