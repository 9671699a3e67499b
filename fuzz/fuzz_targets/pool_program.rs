//! Fuzz target: the input is a program of pool operations (`program.rs`),
//! run with an oracle after each operation and a watchdog over all of them.
#![no_main]

#[path = "../par_calls.rs"]
mod par_calls;
#[path = "../program.rs"]
mod program;
#[path = "../watch.rs"]
mod watch;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    program::run(data);
});
