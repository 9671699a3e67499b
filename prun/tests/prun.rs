//! prun end to end: the real binary (cargo builds it for these tests),
//! fed through stdin.

use std::io::{Seek, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How long any one run of prun may take before the test kills it and
/// fails: far above the longest run here (about a second), so that a hang
/// fails the test instead of holding the suite.
const LIMIT: Duration = Duration::from_secs(120);

fn prun() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_prun"))
}

/// Waits for `child` and collects its output; kills it and panics if it
/// runs past [`LIMIT`].
fn finish(child: Child) -> Output {
    let pid = child.id();
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(LIMIT) == Err(mpsc::RecvTimeoutError::Timeout) {
            // The child may have ended just now: then this kill finds no
            // process (or a reused pid, a risk a test can take).
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            return true;
        }
        false
    });
    let output = child.wait_with_output().expect("prun's output");
    let _ = done.send(());
    let killed = watchdog.join().expect("the watchdog");
    assert!(!killed, "prun did not finish within {LIMIT:?}");
    output
}

fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(prun())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prun starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = finish(child);
    feeder.join().unwrap();
    output
}

fn numbers(n: usize) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into_bytes()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn keep_order_echoes_records_in_input_order() {
    let output = run(&["-j", "3", "-k", "-n", "7", "--", "echo"], &numbers(5000));
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    let words: Vec<&str> = text.split_whitespace().collect();
    let want: Vec<String> = (1..=5000).map(|i| i.to_string()).collect();
    assert_eq!(words, want);
    // -n caps every command at 7 records.
    assert!(text.lines().all(|line| line.split(' ').count() <= 7));
    assert_eq!(text.lines().count(), 5000usize.div_ceil(7));
}

#[test]
fn grouped_output_has_every_record_once() {
    let output = run(&["-j4", "-n", "10", "--", "echo"], &numbers(3000));
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut got: Vec<u32> = text
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(got, (1..=3000).collect::<Vec<_>>());
}

#[test]
fn pipe_mode_is_byte_identical_through_cat() {
    let mut input = numbers(200_000);
    input.extend_from_slice(b"no final newline");
    let output = run(&["-j", "2", "-k", "--pipe", "--", "cat"], &input);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(output.stdout == input);
    let output = run(&["--pipe", "--", "wc", "-l"], &numbers(100_000));
    let total: u64 = String::from_utf8(output.stdout)
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 100_000);
}

#[test]
fn a_failing_batch_gives_a_non_zero_status_and_a_summary() {
    // Fails only for batches holding record "13", on input line 13.
    let script = r#"for a in "$@"; do [ "$a" = 13 ] && exit 5; done; exit 0"#;
    let output = run(&["-n", "4", "--", "sh", "-c", script, "sh"], &numbers(100));
    assert_eq!(output.status.code(), Some(123));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert_eq!(
        message,
        "prun: 1 of 25 commands failed; the first in input order, \
         for input lines 13-16, exited with status 5\n"
    );
    // Lines and records are counted from 1; other delimiters say records.
    let script = r#"for a in "$@"; do [ "$a" = 500 ] && exit 1; done; exit 0"#;
    let output = run(&["-n", "10", "sh", "-c", script, "sh"], &numbers(1000));
    assert!(
        stderr(&output).contains("for input lines 491-500, exited with status 1"),
        "{}",
        stderr(&output)
    );
    let output = run(
        &["-0", "-n", "1", "sh", "-c", script, "sh"],
        b"1\x00500\x00",
    );
    assert!(
        stderr(&output).contains("for record 2, exited with status 1"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_command_may_follow_the_options_without_a_double_dash() {
    let output = run(&["-k", "-n", "3", "echo", "-n"], &numbers(7));
    assert!(output.status.success(), "{}", stderr(&output));
    // echo -n 1 2 3, echo -n 4 5 6, echo -n 7: no newlines.
    assert_eq!(output.stdout, b"1 2 34 5 67");
    let output = run(&["--pipe", "wc", "-l"], &numbers(10));
    let lines: u64 = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .map(|n| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(lines, 10);
}

/// Runs `script` under `sh -c` with each record as its own argument (`-n 1`)
/// on one thread, so that commands run one after another in input order.
fn run_one_by_one(script: &str, input: &[u8]) -> Output {
    run(
        &["-j", "1", "-k", "-n", "1", "sh", "-c", script, "sh"],
        input,
    )
}

#[test]
fn exit_statuses_follow_xargs() {
    // 1-254 from a command (126 and 127 included): 123, and the run goes on.
    for status in [1, 125, 126, 127, 254] {
        let script = format!(r#"echo "$1"; [ "$1" = 3 ] && exit {status}; exit 0"#);
        let output = run_one_by_one(&script, &numbers(5));
        assert_eq!(output.status.code(), Some(123), "exit {status}");
        assert_eq!(output.stdout, numbers(5), "exit {status}");
        assert!(
            stderr(&output).contains(&format!("exited with status {status}")),
            "{}",
            stderr(&output)
        );
    }
    // 255: 124, and no command after it starts.
    let script = r#"echo "$1"; [ "$1" = 3 ] && exit 255; exit 0"#;
    let output = run_one_by_one(script, &numbers(1000));
    assert_eq!(output.status.code(), Some(124), "{}", stderr(&output));
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.lines().all(|n| n.parse::<u32>().unwrap() <= 3),
        "{printed}"
    );
    assert_eq!(
        stderr(&output),
        "prun: \"sh\" exited with status 255 (input line 3): stopped, \
         no further commands started\n"
    );
    // A signal: 125, and no command after it starts.
    let script = r#"echo "$1"; [ "$1" = 3 ] && kill -9 $$; exit 0"#;
    let output = run_one_by_one(script, &numbers(1000));
    assert_eq!(output.status.code(), Some(125), "{}", stderr(&output));
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.lines().all(|n| n.parse::<u32>().unwrap() <= 3),
        "{printed}"
    );
    assert!(
        stderr(&output).contains("was killed by signal 9 (input line 3): stopped"),
        "{}",
        stderr(&output)
    );
    // Several threads: the same statuses.
    let output = run(
        &["-j", "3", "-n", "2", "sh", "-c", "exit 255", "sh"],
        &numbers(50),
    );
    assert_eq!(output.status.code(), Some(124), "{}", stderr(&output));
    let output = run(
        &["-j", "3", "--pipe", "sh", "-c", "kill -TERM $$"],
        &numbers(50),
    );
    assert_eq!(output.status.code(), Some(125), "{}", stderr(&output));
}

#[test]
fn a_missing_command_is_an_error() {
    let output = run(&["--", "/no/such/command"], b"a\nb\n");
    assert_eq!(output.status.code(), Some(127));
    assert!(
        stderr(&output).contains("cannot run \"/no/such/command\""),
        "{}",
        stderr(&output)
    );
}

#[test]
fn builtins_count_and_grep() {
    let output = run(&["-0", "--count"], b"a\0bb\0ccc");
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "3 8\n");
    let output = run(&["-j", "3", "--grep", "99"], &numbers(100_000));
    assert!(output.status.success());
    let want: String = (1..=100_000)
        .map(|i| i.to_string())
        .filter(|s| s.contains("99"))
        .map(|s| s + "\n")
        .collect();
    assert!(output.stdout == want.as_bytes());
    let output = run(&["-d", ",", "--grep", "b"], b"ab,cd,bb");
    assert_eq!(output.stdout, b"ab,bb,");
}

#[test]
fn help_and_version() {
    for flag in ["-h", "--help"] {
        let output = run(&[flag], b"");
        assert!(output.status.success(), "{flag}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.starts_with("prun: a parallel xargs"), "{text}");
        for needle in [
            "Usage:",
            "[--] <CMD>",
            "--count",
            "--grep",
            "--bar",
            "-j",
            "not in input order",
            "Exit status, as in xargs",
            "123",
            "124",
            "125",
        ] {
            assert!(text.contains(needle), "{flag}: no {needle:?} in\n{text}");
        }
    }
    let output = run(&["--version"], b"");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("prun {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    for (bad, message) in [
        (
            &["-j", "0", "--count"][..],
            "invalid value '0' for '--jobs <N>'",
        ),
        (
            &["-j", "many", "--count"],
            "invalid value 'many' for '--jobs <N>'",
        ),
        (
            &["-d", "ab", "--count"],
            "invalid value 'ab' for '--delimiter <CHAR>'",
        ),
        (&["--frobnicate"], "unexpected argument '--frobnicate'"),
        (&["--cout"], "a similar argument exists: '--count'"),
        (&[], "the following required arguments were not provided"),
        (&["-k", "-u", "--", "true"], "cannot be used with"),
        (&["--count", "--grep", "x"], "cannot be used with"),
        (&["--count", "echo"], "cannot be used with"),
    ] {
        let output = run(bad, b"");
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        assert!(output.stdout.is_empty(), "{bad:?}");
        let stderr = stderr(&output);
        assert!(
            stderr.contains(message),
            "{bad:?}: no {message:?} in\n{stderr}"
        );
    }
}

/// Runs prun with stdin redirected from a file holding `input`.
fn run_on_file(args: &[&str], input: &[u8]) -> Output {
    static FILES: AtomicUsize = AtomicUsize::new(0);
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("prun-test-{}-{n}", std::process::id()));
    let mut file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    file.write_all(input).unwrap();
    file.rewind().unwrap();
    let child = Command::new(prun())
        .args(args)
        .stdin(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prun starts");
    let output = finish(child);
    let _ = std::fs::remove_file(&path);
    output
}

#[test]
fn the_bar_goes_to_stderr_and_leaves_stdout_alone() {
    let input = numbers(50_000);
    for args in [
        &["-j", "2", "--count"][..],
        &["-j", "2", "-k", "--pipe", "--", "cat"],
        &["-j", "3", "--grep", "99"],
    ] {
        let plain = run_on_file(args, &input);
        let with_bar = run_on_file(&[&["--bar"], args].concat(), &input);
        assert!(
            plain.status.success() && with_bar.status.success(),
            "{args:?}"
        );
        assert!(plain.stdout == with_bar.stdout, "{args:?}: stdout differs");
        assert!(plain.stderr.is_empty(), "{args:?}");
        // stderr is a pipe here: whole plain lines, the last with the final
        // counts, the file's size and an ETA.
        let text = stderr(&with_bar);
        assert!(text.ends_with('\n'), "{args:?}: {text:?}");
        let last = text.lines().last().unwrap_or_default();
        assert!(
            last.contains("50000 records started, 50000 done"),
            "{args:?}: {text}"
        );
        assert!(
            last.contains("100%") && last.contains("ETA"),
            "{args:?}: {text}"
        );
        assert!(!text.contains('\x1b'), "{args:?}: escape codes in {text:?}");
    }
    // From a pipe the size is unknown: counts and rates, no ETA.
    let output = run(&["--bar", "-0", "--count"], b"a\0bb\0ccc");
    assert_eq!(output.stdout, b"3 8\n");
    let text = stderr(&output);
    assert!(text.contains("3 records started, 3 done, 8 B"), "{text}");
    assert!(text.ends_with(")\n"), "{text:?}");
    assert!(!text.contains("ETA"), "{text}");
}

#[test]
fn the_bar_counts_records_as_they_start() {
    // One batch of 1000 records whose command takes 2 s: the line printed
    // after 1 s shows them started and none done.
    let output = run_on_file(
        &["--bar", "-n", "1000", "--", "sh", "-c", "sleep 2"],
        &numbers(1000),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{text}");
    assert!(
        lines[0].contains("0% 1000 records started, 0 done"),
        "{text}"
    );
    assert!(
        lines[lines.len() - 1].contains("100% 1000 records started, 1000 done"),
        "{text}"
    );
}

#[test]
fn the_bar_comes_before_a_failure_summary() {
    let output = run_on_file(&["--bar", "-n", "10", "--", "false"], &numbers(100));
    assert_eq!(output.status.code(), Some(123));
    let text = stderr(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{text}");
    assert!(
        lines[lines.len() - 2].contains("100 records started"),
        "{text}"
    );
    assert!(
        lines[lines.len() - 1].starts_with("prun: 10 of 10 commands failed"),
        "{text}"
    );
}

#[test]
fn a_missing_command_ends_prun_even_while_stdin_stays_open() {
    let mut child = Command::new(prun())
        .args(["--", "/no/such/command"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prun starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"one\n").unwrap();
    // stdin stays open and silent; prun must still end (`finish` fails
    // the test if it does not).
    let output = finish(child);
    assert_eq!(output.status.code(), Some(127));
    drop(stdin);
}

#[test]
fn long_batches_are_split_to_fit_the_command_line() {
    // 400,000 short records: far more arguments than one exec takes.
    let output = run(
        &["-j", "2", "--", "sh", "-c", "echo $#", "sh"],
        &numbers(400_000),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let counts: Vec<u64> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 400_000);
    // One record of 1.5 MiB, alone, cannot fit: a clear error, not a hang.
    let mut huge = vec![b'x'; 1536 * 1024];
    huge.push(b'\n');
    let output = run(&["--", "true"], &huge);
    assert_eq!(output.status.code(), Some(126));
    assert!(
        stderr(&output).contains("Argument list too long"),
        "{}",
        stderr(&output)
    );
}
