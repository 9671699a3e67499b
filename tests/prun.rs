//! The `prun` example end to end: the real binary, fed through stdin.
//!
//! The test builds `prun` with cargo first (a no-op when it is fresh), into
//! the target directory the test itself lives in.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

fn prun() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        // target/<profile>/deps/prun-<hash> -> target/<profile>/examples/prun
        let exe = std::env::current_exe().expect("the test's own path");
        let profile_dir = exe
            .parent()
            .and_then(|deps| deps.parent())
            .expect("target/<profile>");
        // Build it even if it exists: `cargo test --test prun` alone does not
        // rebuild examples, and a stale binary would be tested. A fresh one
        // costs cargo a second to confirm.
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "--example", "prun"]);
        if profile_dir
            .file_name()
            .is_some_and(|name| name == "release")
        {
            build.arg("--release");
        }
        let target_dir = profile_dir.parent().expect("target");
        let status = build
            .env("CARGO_TARGET_DIR", target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the prun example failed");
        profile_dir
            .join("examples")
            .join(format!("prun{}", std::env::consts::EXE_SUFFIX))
    })
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
    let output = child.wait_with_output().expect("prun finishes");
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
    // Fails only for batches holding record "13".
    let script = r#"for a in "$@"; do [ "$a" = 13 ] && exit 5; done; exit 0"#;
    let output = run(&["-n", "4", "--", "sh", "-c", script, "sh"], &numbers(100));
    assert_eq!(output.status.code(), Some(123));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("1 of 25 commands failed"), "{message}");
    assert!(
        message.contains("at record 12, exited with status 5"),
        "{message}"
    );
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
fn usage_and_bad_flags() {
    let output = run(&["-h"], b"");
    assert!(output.status.success());
    assert!(String::from_utf8(output.stdout)
        .unwrap()
        .starts_with("prun: a parallel xargs"));
    for bad in [
        &["-j", "0", "--count"][..],
        &["--frobnicate"],
        &[],
        &["-k", "-u", "--", "true"],
    ] {
        let output = run(bad, b"");
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
    }
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
    // stdin stays open and silent; prun must still end.
    let started = std::time::Instant::now();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(127));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
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
