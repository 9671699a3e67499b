//! Replays every fuzz input kept in `fuzz/regressions/` (crashes the fuzzer
//! found, and seeds worth keeping) through the fuzz target's program and
//! oracle, plus a few random programs, so `cargo test` covers them without
//! nightly or cargo-fuzz.
#![cfg(not(loom))]

#[path = "../fuzz/par_calls.rs"]
mod par_calls;
#[path = "../fuzz/program.rs"]
mod program;
#[path = "../fuzz/watch.rs"]
mod watch;

/// The oracle counts running tasks in one process-wide counter, so the two
/// tests of this binary must not run programs at the same time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
}

#[test]
fn every_kept_fuzz_input_still_passes() {
    let _alone = one_at_a_time();
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/regressions");
    let mut inputs: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "bin"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {folder}");
    for input in inputs {
        eprintln!("replaying {}", input.display());
        program::run(&std::fs::read(&input).unwrap());
    }
}

#[test]
fn random_programs_pass() {
    let _alone = one_at_a_time();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..16 {
        let program: Vec<u8> = (0..96)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        program::run(&program);
    }
}
