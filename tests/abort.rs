//! With `panic = "abort"`, a panicking task aborts the whole process. This
//! test binary is built to unwind, so the child it re-runs makes every
//! panic abort the way `panic = "abort"` does (the panic hook runs, then
//! the process aborts, before any unwinding), and the parent checks that
//! the child died by SIGABRT while a fork was in flight. `.ci/run` also
//! builds `examples/panic_abort.rs` with `-C panic=abort` for real.
#![cfg(all(not(loom), unix))]

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

const CHILD: &str = "TINE_ABORT_TEST_CHILD";

/// Run in a child only: a task panics in a process where panics abort.
#[test]
fn child_a_panicking_task_under_panic_abort() {
    if std::env::var_os(CHILD).is_none() {
        return; // only meaningful in the child
    }
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        std::process::abort(); // what panic = "abort" does after the hook
    }));
    let pool = tine::spawn_pool(3);
    pool.for_threads(|thread_index, _| {
        if thread_index == 2 {
            panic!("task {thread_index} panicked");
        }
    });
    // Unreachable: the process is gone.
    std::process::exit(0);
}

#[test]
fn a_panicking_task_aborts_the_process_when_panics_abort() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_a_panicking_task_under_panic_abort",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGABRT),
        "the child should die by SIGABRT: {:?}\n{stderr}",
        output.status
    );
    assert!(stderr.contains("task 2 panicked"), "{stderr}");
}
