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
    pub commands: AtomicU64,
    pub failed: AtomicU64,
    /// The failure of the earliest batch: its first record and status.
    pub first_failure: Mutex<Option<(u64, ExitStatus)>>,
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

impl Runner {
    /// Runs the command on `batch`: one or more commands (each at most
    /// `max_records` records and [`ARG_BYTES`] of arguments), in order.
    pub fn run(&self, batch: &Batch<'_>, out: &mut Vec<u8>) -> Result<(), SpawnError> {
        if self.pipe {
            return self.run_one(batch.first_record(), &[], Some(batch.bytes()), out);
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

    /// Runs the command on `records` as arguments; if the kernel finds the
    /// list too long, runs it on each half instead.
    fn run_args(&self, first: u64, records: &[&[u8]], out: &mut Vec<u8>) -> Result<(), SpawnError> {
        match self.run_one(first, records, None, out) {
            Err(error) if is_too_long(&error.error) && records.len() > 1 => {
                let (left, right) = records.split_at(records.len() / 2);
                self.run_args(first, left, out)?;
                self.run_args(first + left.len() as u64, right, out)
            }
            other => other,
        }
    }

    fn run_one(
        &self,
        first_record: u64,
        records: &[&[u8]],
        stdin: Option<&[u8]>,
        out: &mut Vec<u8>,
    ) -> Result<(), SpawnError> {
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
        let spawn_error = |error| SpawnError {
            program: self.program.clone(),
            error,
        };
        let mut child = command.spawn().map_err(spawn_error)?;
        let status = finish(&mut child, stdin, out).map_err(spawn_error)?;
        self.commands.fetch_add(1, Ordering::Relaxed);
        if !status.success() {
            self.failed.fetch_add(1, Ordering::Relaxed);
            let mut first = self.first_failure.lock().unwrap();
            if first.is_none_or(|(at, _)| first_record < at) {
                *first = Some((first_record, status));
            }
        }
        Ok(())
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
