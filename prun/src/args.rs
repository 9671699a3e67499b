//! prun's command line, parsed by clap: the flags, their checks, and the
//! generated `--help` and `--version`.

use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::{ArgGroup, Parser};
use std::ffi::OsString;

/// The short help's closing lines.
const AFTER_HELP: &str = "\
Output order: without -k, batches come out as they finish, not in input order.

Exit status, as in xargs: 0 if every command succeeded; 123 if any exited with
status 1-254; 124 if one exited with 255, 125 if one was killed by a signal
(both stop the run); 126/127 if a command cannot be run/is not found; 2 for a
usage error; 1 for an I/O error. --help has the details.";

/// The long help's (`--help`) closing lines.
const AFTER_LONG_HELP: &str = "\
Output order: without -k, each batch's output is written whole when the batch
finishes, so batches come out in the order they finish, not in input order;
with -k, in input order; with -u, as the commands write it, lines of different
commands mixed.

Arguments of one command stay under 1 MiB: a larger batch runs several
commands, one after the other. The command may follow the options directly
(prun echo), as in xargs; -- before it is needed only when its name starts
with '-'.

Examples:
  seq 1 1000000 | prun -k echo
  find . -name '*.log' -print0 | prun -0 -n 50 gzip -9
  prun --grep ' 404 ' < access.log
  prun --bar --pipe wc -l < big.csv

Exit status, as in xargs:
  0    every command exited with status 0
  123  a command exited with status 1-254; the others still run, and one line
       on stderr names the first failed one's records in input order
       (\"input lines 491-500\", counted from 1)
  124  a command exited with status 255: no further commands start
  125  a command was killed by a signal: no further commands start
  126  a command cannot be run (127: not found): no further commands start
  2    a usage error
  1    an I/O error
  141  stdout closed early (prun ... | head)
After 124-127, prun exits within a second, without waiting for the commands
still running.";

/// The command line as clap sees it.
#[derive(Debug, Parser)]
#[command(
    name = "prun",
    version,
    about = "prun: a parallel xargs on tine's ordered streaming",
    long_about = "prun: a parallel xargs on tine's ordered streaming\n\n\
        Records are read from stdin, cut into batches whose size follows the\n\
        backlog, and processed on every thread: a command per batch (the records\n\
        as its arguments, or with --pipe on its stdin), or a built-in (--count,\n\
        --grep).",
    override_usage = "prun [OPTIONS] [--] <CMD> [ARGS]...  run CMD ARGS... REC1 REC2 ... per batch\n       \
        prun [OPTIONS] --count                count records and bytes\n       \
        prun [OPTIONS] --grep <PATTERN>       print records that contain PATTERN",
    after_help = AFTER_HELP,
    after_long_help = AFTER_LONG_HELP,
    group(ArgGroup::new("action").required(true).args(["count", "grep", "command"])),
)]
struct Cli {
    /// Record delimiter: one byte, or an escape (\n \t \0 \\ \xHH) [default: \n]
    #[arg(short = 'd', long = "delimiter", value_name = "CHAR",
          value_parser = OsStringValueParser::new().try_map(parse_delimiter))]
    delimiter: Option<u8>,

    /// NUL-delimited records (as find -print0 writes)
    #[arg(short = '0', long = "null", conflicts_with = "delimiter")]
    null: bool,

    /// At most N records per batch (per command)
    #[arg(short = 'n', long = "max-records", value_name = "N", value_parser = positive)]
    max_records: Option<usize>,

    /// Threads [default: the number of CPUs]
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = positive)]
    jobs: Option<usize>,

    /// Keep output in input order (without -k, batches come out as they finish)
    #[arg(short = 'k', long = "keep-order", conflicts_with = "ungrouped")]
    keep_order: bool,

    /// Ungrouped: commands write straight to stdout (output may interleave)
    #[arg(short = 'u', long = "ungrouped")]
    ungrouped: bool,

    /// Send each batch to the command's stdin instead of its arguments
    #[arg(long, conflicts_with_all = ["count", "grep"])]
    pipe: bool,

    /// Print "RECORDS BYTES" (no command)
    #[arg(long)]
    count: bool,

    /// Print records that contain PATTERN, a literal (in input order)
    #[arg(long, value_name = "PATTERN",
          value_parser = OsStringValueParser::new().try_map(non_empty))]
    grep: Option<OsString>,

    /// A progress line on stderr: records started and done, bytes, rate, and an ETA when stdin is a file
    #[arg(
        long,
        long_help = "A progress line on stderr: the records started (handed to a command or\n\
        a built-in) and those done, the bytes done, the rate, and an ETA when stdin\n\
        is a regular file (its size is known). On a terminal it redraws in place ten\n\
        times a second; otherwise (a log file, a pipe) it prints one whole line a\n\
        second and a last one at the end. stdout is never touched."
    )]
    bar: bool,

    /// The command and its arguments (all words after CMD); each batch's records follow them
    #[arg(
        value_name = "CMD",
        num_args = 1..,
        trailing_var_arg = true,
        long_help = "The command and its first arguments; each batch's records follow them.\n\
        Every word from CMD on is the command's, flags included: prun -k echo -n\n\
        runs echo -n REC1 REC2 ... A command whose name starts with '-' needs --."
    )]
    command: Vec<OsString>,
}

/// What to do with each batch.
#[derive(Debug)]
pub enum Action {
    /// Run a command per batch.
    Command {
        program: OsString,
        args: Vec<OsString>,
        pipe: bool,
    },
    /// Count records and bytes.
    Count,
    /// Print records that contain the pattern.
    Grep(Vec<u8>),
}

/// The parsed command line.
#[derive(Debug)]
pub struct Args {
    pub delimiter: u8,
    pub max_records: Option<usize>,
    pub threads: Option<usize>,
    pub keep_order: bool,
    pub ungrouped: bool,
    pub bar: bool,
    pub action: Action,
}

/// Parses the process's arguments; on `--help`, `--version` or a usage
/// error, prints and exits (0, 0 and 2).
pub fn parse() -> Args {
    Cli::parse().into_args()
}

impl Cli {
    fn into_args(self) -> Args {
        let mut command = self.command.into_iter();
        // clap checked that exactly one action is given, and that --pipe
        // comes with a command.
        let action = match (self.count, self.grep, command.next()) {
            (true, _, _) => Action::Count,
            (_, Some(pattern), _) => Action::Grep(pattern.into_encoded_bytes()),
            (_, _, Some(program)) => Action::Command {
                program,
                args: command.collect(),
                pipe: self.pipe,
            },
            (false, None, None) => unreachable!("clap requires one action"),
        };
        Args {
            delimiter: if self.null {
                0
            } else {
                self.delimiter.unwrap_or(b'\n')
            },
            max_records: self.max_records,
            threads: self.jobs,
            keep_order: self.keep_order,
            ungrouped: self.ungrouped,
            bar: self.bar,
            action,
        }
    }
}

fn positive(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("needs a positive whole number".into()),
    }
}

fn non_empty(value: OsString) -> Result<OsString, String> {
    if value.is_empty() {
        Err("needs a non-empty pattern".into())
    } else {
        Ok(value)
    }
}

fn parse_delimiter(value: OsString) -> Result<u8, String> {
    let bad = || "needs one byte or an escape (\\n, \\t, \\0, \\\\, \\xHH)".to_string();
    match value.as_encoded_bytes() {
        [byte] => Ok(*byte),
        [b'\\', b'n'] => Ok(b'\n'),
        [b'\\', b't'] => Ok(b'\t'),
        [b'\\', b'0'] => Ok(0),
        [b'\\', b'\\'] => Ok(b'\\'),
        [b'\\', b'x', hex @ ..] if hex.len() == 2 => std::str::from_utf8(hex)
            .ok()
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or_else(bad),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::{Action, Args, Cli};
    use clap::error::ErrorKind;
    use clap::{CommandFactory, Parser};

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("prun").chain(args.iter().copied())).map(Cli::into_args)
    }

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn flags_and_attached_values() {
        let args = parse(&["-j2", "-n", "100", "-d,", "-k", "--", "echo", "-x"]).unwrap();
        assert_eq!(
            (args.threads, args.max_records, args.delimiter),
            (Some(2), Some(100), b',')
        );
        assert!(args.keep_order && !args.ungrouped && !args.bar);
        match args.action {
            Action::Command {
                program,
                args,
                pipe,
            } => {
                assert_eq!(program, "echo");
                assert_eq!(args, ["-x"]);
                assert!(!pipe);
            }
            other => panic!("{other:?}"),
        }
        let args = parse(&["-0", "--bar", "--grep", "ab"]).unwrap();
        assert_eq!(args.delimiter, 0);
        assert!(args.bar);
        assert!(matches!(args.action, Action::Grep(p) if p == b"ab"));
        let args = parse(&["--jobs", "3", "--count"]).unwrap();
        assert_eq!(args.threads, Some(3));
        assert!(matches!(args.action, Action::Count));
    }

    #[test]
    fn delimiter_escapes() {
        for (text, byte) in [("\\n", b'\n'), ("\\t", b'\t'), ("\\0", 0), ("\\\\", b'\\')] {
            assert_eq!(parse(&["-d", text, "--count"]).unwrap().delimiter, byte);
        }
        assert_eq!(parse(&["-d", "\\x1f", "--count"]).unwrap().delimiter, 0x1f);
        assert_eq!(parse(&["--count"]).unwrap().delimiter, b'\n');
    }

    #[test]
    fn usage_errors() {
        let kind = |args: &[&str]| parse(args).unwrap_err().kind();
        assert_eq!(kind(&["-j", "0", "--count"]), ErrorKind::ValueValidation);
        assert_eq!(kind(&["-j", "two", "--count"]), ErrorKind::ValueValidation);
        assert_eq!(kind(&["-n", "-1", "--count"]), ErrorKind::UnknownArgument);
        assert_eq!(kind(&["-d", "ab", "--count"]), ErrorKind::ValueValidation);
        assert_eq!(
            kind(&["-d", "\\xZZ", "--count"]),
            ErrorKind::ValueValidation
        );
        assert_eq!(kind(&["--grep", ""]), ErrorKind::ValueValidation);
        assert_eq!(
            kind(&["--frobnicate", "--count"]),
            ErrorKind::UnknownArgument
        );
        assert_eq!(kind(&[]), ErrorKind::MissingRequiredArgument);
        assert_eq!(
            kind(&["--count", "--grep", "x"]),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(
            kind(&["-k", "-u", "--", "true"]),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(
            kind(&["-0", "-d", ",", "--count"]),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(kind(&["--pipe", "--count"]), ErrorKind::ArgumentConflict);
        assert_eq!(kind(&["--count", "echo"]), ErrorKind::ArgumentConflict);
        assert_eq!(kind(&["-x", "echo"]), ErrorKind::UnknownArgument);
    }

    /// The command and its arguments, as `parse` found them.
    fn command(args: &[&str]) -> (Vec<String>, Args) {
        let mut args = parse(args).unwrap();
        let words = match std::mem::replace(&mut args.action, Action::Count) {
            Action::Command {
                program,
                args: rest,
                ..
            } => std::iter::once(program)
                .chain(rest)
                .map(|word| word.into_string().unwrap())
                .collect(),
            other => panic!("{other:?}"),
        };
        (words, args)
    }

    #[test]
    fn a_command_may_follow_the_options_without_a_double_dash() {
        assert_eq!(command(&["echo"]).0, ["echo"]);
        assert_eq!(command(&["--", "echo"]).0, ["echo"]);
        // Everything from the command on is the command's, flags included.
        let (words, args) = command(&["-k", "-j", "2", "echo", "-n", "-k", "--", "x"]);
        assert_eq!(words, ["echo", "-n", "-k", "--", "x"]);
        assert_eq!(args.threads, Some(2));
        assert!(args.keep_order && !args.ungrouped);
        let (words, args) = command(&["--pipe", "-n", "5", "wc", "-l"]);
        assert_eq!(words, ["wc", "-l"]);
        assert_eq!(args.max_records, Some(5));
        // A command named like a flag still needs `--`.
        assert_eq!(command(&["--", "-weird", "-k"]).0, ["-weird", "-k"]);
    }
}
