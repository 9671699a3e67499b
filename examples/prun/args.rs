//! prun's command line: flags, their checks, and the usage text. Std only.

use std::ffi::OsString;

pub const USAGE: &str = "\
prun: a parallel xargs on tine's ordered streaming

usage: prun [OPTIONS] -- CMD [ARGS...]   run CMD ARGS... REC1 REC2 ... per batch
       prun [OPTIONS] --count            count records and bytes
       prun [OPTIONS] --grep PATTERN     print records that contain PATTERN

Records are read from stdin, cut into batches whose size follows the
backlog, and processed on every thread.

options:
  -d CHAR        record delimiter (default newline; accepts \\n \\t \\0 \\\\ \\xHH)
  -0             NUL-delimited records (as find -print0 writes)
  -n N           at most N records per batch (per command)
  -j N           threads (default: the number of CPUs)
  -k             keep output in input order
  -u             ungrouped: commands write straight to stdout (may interleave)
  --pipe         send each batch to the command's stdin instead of its arguments
  --count        print \"RECORDS BYTES\" (no command)
  --grep PATTERN print records containing PATTERN, a literal (in order)
  -h, --help     this text

Without -k, each batch's output is written whole as the batch finishes; with
-k, in input order. Arguments of one command stay under 1 MiB: a larger batch
runs several commands, one after the other.

exit status: 0 if every command succeeded; 123 if any failed (a summary goes
to stderr); 126/127 if a command cannot be run; 2 for a usage error; 1 for an
I/O error.
";

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
    pub action: Action,
}

/// Parses `args` (without the program name). `Ok(None)`: help was asked for.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut args = args.into_iter();
    let mut delimiter = b'\n';
    let (mut max_records, mut threads) = (None, None);
    let (mut keep_order, mut ungrouped, mut pipe, mut count) = (false, false, false, false);
    let mut grep = None;
    let mut command = Vec::new();
    while let Some(arg) = args.next() {
        let text = arg
            .to_str()
            .ok_or_else(|| format!("unknown option {arg:?}"))?;
        // `-j2`, `-n100`, `-d,`: a short flag with its value attached.
        let (text, mut attached) = match text.get(..2) {
            Some(flag @ ("-j" | "-n" | "-d")) if text.len() > 2 => {
                (flag, Some(OsString::from(&text[2..])))
            }
            _ => (text, None),
        };
        let mut value = |flag: &str| {
            attached
                .take()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match text {
            "-h" | "--help" => return Ok(None),
            "-0" => delimiter = 0,
            "-d" => delimiter = parse_delimiter(&value("-d")?)?,
            "-n" => max_records = Some(parse_count("-n", &value("-n")?)?),
            "-j" => threads = Some(parse_count("-j", &value("-j")?)?),
            "-k" => keep_order = true,
            "-u" => ungrouped = true,
            "--pipe" => pipe = true,
            "--count" => count = true,
            "--grep" => {
                let pattern = value("--grep")?;
                grep = Some(pattern.into_encoded_bytes());
            }
            "--" => {
                command.extend(args.by_ref());
                break;
            }
            _ => {
                return Err(format!(
                    "unknown option {text:?} (the command goes after --)"
                ))
            }
        }
    }
    let actions =
        usize::from(count) + usize::from(grep.is_some()) + usize::from(!command.is_empty());
    if actions != 1 {
        return Err("give exactly one of --count, --grep PATTERN or -- CMD".into());
    }
    if keep_order && ungrouped {
        return Err("-k and -u exclude each other".into());
    }
    let action = if count {
        Action::Count
    } else if let Some(pattern) = grep {
        if pattern.is_empty() {
            return Err("--grep needs a non-empty pattern".into());
        }
        Action::Grep(pattern)
    } else {
        let mut command = command.into_iter();
        let program = command.next().expect("checked non-empty");
        Action::Command {
            program,
            args: command.collect(),
            pipe,
        }
    };
    if pipe && !matches!(action, Action::Command { .. }) {
        return Err("--pipe needs a command".into());
    }
    Ok(Some(Args {
        delimiter,
        max_records,
        threads,
        keep_order,
        ungrouped,
        action,
    }))
}

fn parse_count(flag: &str, value: &OsString) -> Result<usize, String> {
    match value.to_str().and_then(|v| v.parse::<usize>().ok()) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag} needs a positive number, not {value:?}")),
    }
}

fn parse_delimiter(value: &OsString) -> Result<u8, String> {
    let bad =
        || format!("-d needs one byte or an escape (\\n, \\t, \\0, \\\\, \\xHH), not {value:?}");
    let bytes = value.as_encoded_bytes();
    match bytes {
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
