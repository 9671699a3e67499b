//! prun: a parallel xargs built on [`tine::ThreadPool::stream_records`].
//!
//! ```text
//! seq 1 1000000 | cargo run --release --example prun -- -k -- echo
//! find . -print0 | prun -0 -n 100 -- gzip -9
//! cat access.log | prun --grep ' 404 '
//! cat big.csv | prun --pipe -- wc -l
//! ```
//!
//! `prun -h` prints the flags. The exit status is 0 only if every command
//! succeeded, 123 if any failed (with a one-line summary on stderr), and
//! 126 or 127 if a command cannot be started at all.
//!
//! - `args.rs`: the command line; `command.rs`: running commands;
//!   `builtin.rs`: `--count` and `--grep`.

mod args;
mod builtin;
mod command;

use args::{Action, Args};
use command::Runner;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tine::stream::{StreamError, StreamOptions};

fn main() -> ExitCode {
    let args = match args::parse(std::env::args_os().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            print!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("prun: {message}\n(prun -h for help)");
            return ExitCode::from(2);
        }
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let pool = match tine::ThreadPool::try_named_spawn("prun", threads) {
        Ok(pool) => pool,
        Err(error) => {
            eprintln!("prun: cannot start {threads} threads: {error}");
            return ExitCode::from(1);
        }
    };
    run(&pool, args)
}

fn run(pool: &tine::ThreadPool, args: Args) -> ExitCode {
    let mut options = StreamOptions::default()
        .delimiter(args.delimiter)
        .ordered(args.keep_order || matches!(args.action, Action::Grep(_)));
    if matches!(args.action, Action::Command { .. }) {
        // A process costs about a millisecond to start: bigger batches,
        // fewer processes (arguments stay under `command::ARG_BYTES`).
        options = options.max_batch(128 * 1024);
    }
    if let Some(n) = args.max_records {
        options = options.max_batch(n);
    }
    let stdin = io::stdin();
    let stdout = io::stdout().lock();
    match args.action {
        Action::Count => {
            let result = pool.stream_records(stdin, stdout, options, |_, _| Ok::<(), Never>(()));
            match result {
                Ok(stats) => {
                    println!("{} {}", stats.records, stats.bytes);
                    ExitCode::SUCCESS
                }
                Err(error) => io_failure(error),
            }
        }
        Action::Grep(pattern) => {
            let result = pool.stream_records(stdin, stdout, options, |batch, out| {
                builtin::grep(batch, &pattern, out);
                Ok::<(), Never>(())
            });
            result.map_or_else(io_failure, |_| ExitCode::SUCCESS)
        }
        Action::Command {
            program,
            args: command_args,
            pipe,
        } => {
            let runner = Runner {
                program,
                args: command_args,
                pipe,
                capture: !args.ungrouped,
                max_records: args.max_records.unwrap_or(usize::MAX),
                commands: AtomicU64::new(0),
                failed: AtomicU64::new(0),
                first_failure: Mutex::new(None),
            };
            let result = pool.stream_records(stdin, stdout, options, |batch, out| {
                runner.run(batch, out).map_err(|error| {
                    exit_soon(&error);
                    error
                })
            });
            match result {
                Ok(_) => summarize(&runner),
                Err(StreamError::Callback { error, .. }) => {
                    eprintln!("prun: {error}");
                    let missing = error.error.kind() == io::ErrorKind::NotFound;
                    ExitCode::from(if missing { 127 } else { 126 })
                }
                Err(error) => io_failure(error),
            }
        }
    }
}

/// The stream stops at the first command that cannot start, but returns
/// only once its reader's current read does: stdin from a producer that
/// stays silent could hold it forever. So a command that cannot start also
/// arms a one-second timer that ends the process with the same message.
fn exit_soon(error: &command::SpawnError) {
    let message = error.to_string();
    let status = if error.error.kind() == io::ErrorKind::NotFound {
        127
    } else {
        126
    };
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(1));
        eprintln!("prun: {message}");
        std::process::exit(status);
    });
}

/// 0 if every command succeeded, else 123 and a one-line summary.
fn summarize(runner: &Runner) -> ExitCode {
    let failed = runner.failed.load(Ordering::Relaxed);
    if failed == 0 {
        return ExitCode::SUCCESS;
    }
    let commands = runner.commands.load(Ordering::Relaxed);
    let first = runner.first_failure.lock().unwrap();
    let (record, status) = first.expect("a failure was recorded");
    eprintln!(
        "prun: {failed} of {commands} commands failed; the first, at record {record}, {}",
        command::describe(status)
    );
    ExitCode::from(123)
}

/// Reports an I/O failure; a closed stdout (`prun ... | head`) ends quietly.
fn io_failure<E: std::fmt::Display>(error: StreamError<E>) -> ExitCode {
    if let StreamError::Write { source, .. } = &error {
        if source.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::from(141);
        }
    }
    let _ = io::stdout().flush();
    eprintln!("prun: {error}");
    ExitCode::from(1)
}

/// The error type of operations that cannot fail.
type Never = std::convert::Infallible;
