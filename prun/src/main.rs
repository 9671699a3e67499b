//! prun: a parallel xargs built on [`tine::ThreadPool::stream_records`].
//!
//! ```text
//! seq 1 1000000 | prun -k echo
//! find . -print0 | prun -0 -n 100 gzip -9
//! prun --grep ' 404 ' < access.log
//! prun --bar --pipe wc -l < big.csv
//! ```
//!
//! `prun --help` prints the flags. The exit statuses are xargs's: 0 only if
//! every command succeeded; 123 if any exited with status 1 to 254 (with a
//! one-line summary on stderr); 124 if one exited with 255 and 125 if one
//! was killed by a signal, either of which stops the run; 126 or 127 if a
//! command cannot be started at all; and 2 for a usage error.
//!
//! - `args.rs`: the command line (clap); `command.rs`: running commands;
//!   `builtin.rs`: `--count` and `--grep`; `progress.rs`: `--bar`.

mod args;
mod builtin;
mod command;
mod progress;

use args::{Action, Args};
use command::{Runner, Stop};
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
        result: Result<StreamStats, StreamError<Stop>>,
    },
}

/// Streams stdin to `out` as `args` ask; `counters`: `--bar`'s, which count
/// every batch as it starts and as it is done.
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
    // Each batch counts towards the bar when a worker takes it and when it
    // is done; without `--bar`, one branch each.
    let started = |batch: &Batch<'_>| {
        if let Some(counters) = counters {
            counters.start(batch);
        }
    };
    let done = |batch: &Batch<'_>| {
        if let Some(counters) = counters {
            counters.done(batch);
        }
    };
    let lines = args.delimiter == b'\n';
    let stdin = io::stdin();
    match args.action {
        Action::Count => Outcome::Builtin {
            count: true,
            result: pool.stream_records(stdin, out, options, |batch, _| {
                started(batch);
                done(batch);
                Ok(())
            }),
        },
        Action::Grep(pattern) => Outcome::Builtin {
            count: false,
            result: pool.stream_records(stdin, out, options, |batch, out| {
                started(batch);
                builtin::grep(batch, &pattern, out);
                done(batch);
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
                lines,
                commands: AtomicU64::new(0),
                failed: AtomicU64::new(0),
                first_failure: Mutex::new(None),
            };
            let result = pool.stream_records(stdin, out, options, |batch, out| {
                started(batch);
                runner.run(batch, out).inspect_err(exit_soon)?;
                done(batch);
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
                ExitCode::from(error.exit_code())
            }
            Err(error) => io_failure(error),
        },
    }
}

/// The stream stops at the first command that stops the run (one that
/// cannot start, exits with 255 or is killed by a signal), but returns only
/// once its reader's current read does: stdin from a producer that stays
/// silent could hold it forever. So such a command also arms a one-second
/// timer that ends the process with the same message and status.
fn exit_soon(stop: &Stop) {
    let message = stop.to_string();
    let status = i32::from(stop.exit_code());
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(1));
        eprintln!("prun: {message}");
        std::process::exit(status);
    });
}

/// 0 if every command succeeded, else 123 and a one-line summary naming
/// the failed command that comes first in the input, by its records.
fn summarize(runner: &Runner) -> ExitCode {
    let failed = runner.failed.load(Ordering::Relaxed);
    if failed == 0 {
        return ExitCode::SUCCESS;
    }
    let commands = runner.commands.load(Ordering::Relaxed);
    let first = runner.first_failure.lock().unwrap();
    let (span, status) = first.expect("a failure was recorded");
    eprintln!(
        "prun: {failed} of {commands} commands failed; the first in input order, for {span}, {}",
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
