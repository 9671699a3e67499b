//! Running a command per batch: its arguments or its stdin, its captured
//! output, and the tally of failures.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tine::stream::Batch;

/// The most bytes of arguments on one command line, counting each
/// argument's terminating NUL and its `argv` pointer, as the kernel does.
/// Linux allows a quarter of the stack limit (2 MiB with the usual 8 MiB)
/// for arguments and environment together; a command refused with `E2BIG`
/// anyway is split in two and retried.
const ARG_BYTES: usize = 1024 * 1024;

/// What one argument costs besides its bytes: its NUL and its pointer.
const ARG_OVERHEAD: usize = 1 + std::mem::size_of::<usize>();

/// The command and what happened to its runs.
pub struct Runner {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub pipe: bool,
    /// Capture stdout (grouped or ordered output) or let it through.
    pub capture: bool,
    pub max_records: usize,
    /// Whether records are lines (the delimiter is a newline), for messages.
    pub lines: bool,
    pub commands: AtomicU64,
    pub failed: AtomicU64,
    /// The failed command (status 1 to 254) that comes first in the input.
    pub first_failure: Mutex<Option<(Span, ExitStatus)>>,
}

/// The records one command got: the `count` records from global index
/// `first` on (counted from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: u64,
    pub count: u64,
    /// Newline-delimited records are named as input lines.
    pub lines: bool,
}

impl std::fmt::Display for Span {
    /// Numbered from 1, as editors and `sed -n` number lines: "input lines
    /// 491-500", "input line 7", "records 3-4" (other delimiters).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (one, many) = if self.lines {
            ("input line", "input lines")
        } else {
            ("record", "records")
        };
        let first = self.first + 1;
        if self.count <= 1 {
            write!(f, "{one} {first}")
        } else {
            write!(f, "{many} {first}-{}", self.first + self.count)
        }
    }
}

/// Why the run stops before the input ends, with xargs's exit status: a
/// command that cannot be run, or that exited with status 255 or was killed
/// by a signal.
pub enum Stop {
    /// The command cannot be started: 127 when it is not found, else 126.
    Spawn(SpawnError),
    /// A command exited with status 255 (124) or was killed by a signal (125).
    Fatal {
        program: OsString,
        span: Span,
        status: ExitStatus,
    },
}

impl Stop {
    /// The exit status that reports it, as xargs's.
    pub fn exit_code(&self) -> u8 {
        match self {
            Stop::Spawn(error) if error.error.kind() == io::ErrorKind::NotFound => 127,
            Stop::Spawn(_) => 126,
            Stop::Fatal { status, .. } if status.code() == Some(255) => 124,
            Stop::Fatal { .. } => 125,
        }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Spawn(error) => error.fmt(f),
            Stop::Fatal {
                program,
                span,
                status,
            } => write!(
                f,
                "{program:?} {} ({span}): stopped, no further commands started",
                describe(*status)
            ),
        }
    }
}

/// Why a command could not be run.
pub struct SpawnError {
    pub program: OsString,
    pub error: io::Error,
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot run {:?}: {}", self.program, self.error)
    }
}

/// How a command's exit status counts, as in xargs.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Status 0.
    Success,
    /// Status 1 to 254: counted, and the run goes on (exit status 123).
    Failure,
    /// Status 255 or a signal: the run stops (exit status 124 or 125).
    Fatal,
}

/// The verdict on one command's exit status.
pub fn verdict(status: ExitStatus) -> Verdict {
    match status.code() {
        Some(0) => Verdict::Success,
        Some(255) | None => Verdict::Fatal,
        Some(_) => Verdict::Failure,
    }
}

impl Runner {
    /// Runs the command on `batch`: one or more commands (each at most
    /// `max_records` records and [`ARG_BYTES`] of arguments), in order,
    /// until one of them stops the run.
    pub fn run(&self, batch: &Batch<'_>, out: &mut Vec<u8>) -> Result<(), Stop> {
        if self.pipe {
            let span = self.span(batch.first_record(), batch.len());
            return self.run_one(span, &[], Some(batch.bytes()), out);
        }
        let mut records = Vec::with_capacity(batch.len().min(self.max_records));
        let (mut bytes, mut first) = (0, batch.first_record());
        for record in batch.records() {
            let cost = record.len() + ARG_OVERHEAD;
            if !records.is_empty()
                && (records.len() == self.max_records || bytes + cost > ARG_BYTES)
            {
                self.run_args(first, &records, out)?;
                first += records.len() as u64;
                records.clear();
                bytes = 0;
            }
            bytes += cost;
            records.push(record);
        }
        if !records.is_empty() {
            self.run_args(first, &records, out)?;
        }
        Ok(())
    }

    fn span(&self, first: u64, count: usize) -> Span {
        Span {
            first,
            count: count as u64,
            lines: self.lines,
        }
    }

    /// Runs the command on `records` as arguments; if the kernel finds the
    /// list too long, runs it on each half instead.
    fn run_args(&self, first: u64, records: &[&[u8]], out: &mut Vec<u8>) -> Result<(), Stop> {
        match self.run_one(self.span(first, records.len()), records, None, out) {
            Err(Stop::Spawn(error)) if is_too_long(&error.error) && records.len() > 1 => {
                let (left, right) = records.split_at(records.len() / 2);
                self.run_args(first, left, out)?;
                self.run_args(first + left.len() as u64, right, out)
            }
            other => other,
        }
    }

    fn run_one(
        &self,
        span: Span,
        records: &[&[u8]],
        stdin: Option<&[u8]>,
        out: &mut Vec<u8>,
    ) -> Result<(), Stop> {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        for record in records {
            command.arg(os_str(record));
        }
        command.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        command.stdout(if self.capture {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
        let spawn_error = |error| {
            Stop::Spawn(SpawnError {
                program: self.program.clone(),
                error,
            })
        };
        let mut child = command.spawn().map_err(spawn_error)?;
        let status = finish(&mut child, stdin, out).map_err(spawn_error)?;
        self.commands.fetch_add(1, Ordering::Relaxed);
        match verdict(status) {
            Verdict::Success => Ok(()),
            Verdict::Failure => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_failure.lock().unwrap();
                if first.is_none_or(|(at, _)| span.first < at.first) {
                    *first = Some((span, status));
                }
                Ok(())
            }
            Verdict::Fatal => Err(Stop::Fatal {
                program: self.program.clone(),
                span,
                status,
            }),
        }
    }
}

/// Feeds `stdin` (on a helper thread, so a child that writes while it reads
/// cannot block us), collects stdout into `out`, and waits.
fn finish(child: &mut Child, stdin: Option<&[u8]>, out: &mut Vec<u8>) -> io::Result<ExitStatus> {
    let input = child.stdin.take();
    let output = child.stdout.take();
    std::thread::scope(|scope| {
        let feeder = match (input, stdin) {
            (Some(mut pipe), Some(bytes)) => Some(scope.spawn(move || {
                // A child that exits without reading all of it is not an error.
                match pipe.write_all(bytes) {
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                    other => other,
                }
            })),
            _ => None,
        };
        if let Some(mut output) = output {
            output.read_to_end(out)?;
        }
        if let Some(feeder) = feeder {
            feeder.join().expect("the stdin feeder does not panic")?;
        }
        Ok::<(), io::Error>(())
    })?;
    child.wait()
}

/// `E2BIG`: the argument list is too long.
fn is_too_long(error: &io::Error) -> bool {
    error.raw_os_error() == Some(7)
}

#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

/// "exited with status 3" or "was killed by signal 9".
pub fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("was killed by signal {signal}");
    }
    format!("ended with {status}")
}

#[cfg(all(test, unix))]
mod tests {
    use super::{verdict, Span, Verdict};
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    /// A wait status as the kernel reports it: the exit code in the second
    /// byte, or the signal in the low bits.
    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn exit_statuses_count_as_in_xargs() {
        assert_eq!(verdict(exited(0)), Verdict::Success);
        for code in [1, 2, 125, 126, 127, 254] {
            assert_eq!(verdict(exited(code)), Verdict::Failure, "{code}");
        }
        assert_eq!(verdict(exited(255)), Verdict::Fatal);
        assert_eq!(verdict(ExitStatus::from_raw(9)), Verdict::Fatal);
        assert_eq!(super::describe(exited(3)), "exited with status 3");
        assert_eq!(
            super::describe(ExitStatus::from_raw(9)),
            "was killed by signal 9"
        );
    }

    #[test]
    fn spans_are_numbered_from_one() {
        let span = |first, count, lines| Span {
            first,
            count,
            lines,
        };
        assert_eq!(span(490, 10, true).to_string(), "input lines 491-500");
        assert_eq!(span(6, 1, true).to_string(), "input line 7");
        assert_eq!(span(2, 2, false).to_string(), "records 3-4");
        assert_eq!(span(0, 1, false).to_string(), "record 1");
    }
}
