//! prun: a parallel xargs built on [`tine::ThreadPool::stream_records`].
//!
//! ```text
//! seq 1 1000000 | prun -k -- echo
//! find . -print0 | prun -0 -n 100 -- gzip -9
//! prun --grep ' 404 ' < access.log
//! prun --bar --pipe -- wc -l < big.csv
//! ```
//!
//! `prun --help` prints the flags. The exit status is 0 only if every
//! command succeeded, 123 if any failed (with a one-line summary on stderr),
//! 126 or 127 if a command cannot be started at all, and 2 for a usage error.
//!
//! - `args.rs`: the command line (clap); `command.rs`: running commands;
//!   `builtin.rs`: `--count` and `--grep`; `progress.rs`: `--bar`.

mod args;
mod builtin;
mod command;
mod progress;

use args::{Action, Args};
use command::{Runner, SpawnError};
use progress::{Bar, Counters};
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tine::stream::{Batch, StreamError, StreamOptions, StreamStats};

fn main() -> ExitCode {
    let args = args::parse();
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
    let bar = args.bar.then(|| Bar::start(progress::stdin_size()));
    let counters = bar.as_ref().map(Bar::counters);
    let stdout = io::stdout().lock();
    let outcome = match &bar {
        // Output on the bar's terminal clears the bar first.
        Some(bar) if bar.on_terminal() && io::stdout().is_terminal() => {
            stream(&pool, args, bar.suspend_around(stdout), counters)
        }
        _ => stream(&pool, args, stdout, counters),
    };
    // The bar's last line comes before any message or count.
    if let Some(bar) = bar {
        bar.finish();
    }
    report(outcome)
}

/// How the stream ended, for [`report`].
enum Outcome {
    /// `--count` or `--grep`.
    Builtin {
        count: bool,
        result: Result<StreamStats, StreamError<Never>>,
    },
    /// A command per batch.
    Commands {
        runner: Runner,
        result: Result<StreamStats, StreamError<SpawnError>>,
    },
}

/// Streams stdin to `out` as `args` ask; `counters`: `--bar`'s, which count
/// every batch done.
fn stream<W: Write>(
    pool: &tine::ThreadPool,
    args: Args,
    out: W,
    counters: Option<&Counters>,
) -> Outcome {
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
    // A batch done counts towards the bar; without `--bar`, one branch.
    let counted = |batch: &Batch<'_>| {
        if let Some(counters) = counters {
            counters.add(batch);
        }
    };
    let stdin = io::stdin();
    match args.action {
        Action::Count => Outcome::Builtin {
            count: true,
            result: pool.stream_records(stdin, out, options, |batch, _| {
                counted(batch);
                Ok(())
            }),
        },
        Action::Grep(pattern) => Outcome::Builtin {
            count: false,
            result: pool.stream_records(stdin, out, options, |batch, out| {
                builtin::grep(batch, &pattern, out);
                counted(batch);
                Ok(())
            }),
        },
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
            let result = pool.stream_records(stdin, out, options, |batch, out| {
                runner.run(batch, out).inspect_err(exit_soon)?;
                counted(batch);
                Ok(())
            });
            Outcome::Commands { runner, result }
        }
    }
}

/// Prints the count, a failure summary or an error; the exit status.
fn report(outcome: Outcome) -> ExitCode {
    match outcome {
        Outcome::Builtin { count, result } => match result {
            Ok(stats) => {
                if count {
                    println!("{} {}", stats.records, stats.bytes);
                }
                ExitCode::SUCCESS
            }
            Err(error) => io_failure(error),
        },
        Outcome::Commands { runner, result } => match result {
            Ok(_) => summarize(&runner),
            Err(StreamError::Callback { error, .. }) => {
                eprintln!("prun: {error}");
                let missing = error.error.kind() == io::ErrorKind::NotFound;
                ExitCode::from(if missing { 127 } else { 126 })
            }
            Err(error) => io_failure(error),
        },
    }
}

/// The stream stops at the first command that cannot start, but returns
/// only once its reader's current read does: stdin from a producer that
/// stays silent could hold it forever. So a command that cannot start also
/// arms a one-second timer that ends the process with the same message.
fn exit_soon(error: &SpawnError) {
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
