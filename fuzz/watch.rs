//! The fuzz program's watchdog, and its check that a dropped pool left no
//! worker thread behind.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::program::{Injected, HANG_LIMIT, NAME};

/// A dropped pool joined its workers: none is left in `/proc/self/task`.
/// A joined thread may linger there for a moment after `pthread_join`
/// returned (the kernel clears the thread id, which `join` waits for,
/// before it removes the task), so look again for up to a second.
pub(crate) fn assert_no_workers_left() {
    for attempt in 0.. {
        let Some(left) = worker_left() else {
            return;
        };
        assert!(attempt < 1000, "worker {left} outlived its pool");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A worker thread of a pool of ours, if `/proc/self/task` lists one.
fn worker_left() -> Option<String> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?; // not Linux
    tasks.flatten().find_map(|task| {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        comm.starts_with(&format!("{NAME}:"))
            .then(|| comm.trim().to_string())
    })
}

/// When the operation in flight started, in ms since [`base`] (0: none),
/// and its name, for the watchdog.
static STARTED_MS: AtomicU64 = AtomicU64::new(0);
static CURRENT: Mutex<String> = Mutex::new(String::new());

fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    base().elapsed().as_millis() as u64 + 1
}

/// Starts the watchdog and silences the injected panics, once.
pub(crate) fn set_up() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        base();
        // The fuzzer's hook aborts on any panic; keep it for real failures
        // only.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Injected>() {
                previous(info);
            }
        }));
        std::thread::Builder::new()
            .name("fz-watchdog".into())
            .spawn(|| loop {
                std::thread::sleep(Duration::from_millis(200));
                let started = STARTED_MS.load(Relaxed);
                if started != 0 && now_ms().saturating_sub(started) > HANG_LIMIT.as_millis() as u64
                {
                    let op = CURRENT.lock().map(|op| op.clone()).unwrap_or_default();
                    eprintln!("watchdog: `{op}` has not finished after {HANG_LIMIT:?}: a hang");
                    std::process::abort();
                }
            })
            .expect("starting the watchdog");
    });
}

/// The operation `op` starts: the watchdog times it from now.
pub(crate) fn started(op: &str) {
    if let Ok(mut current) = CURRENT.lock() {
        *current = op.to_string();
    }
    STARTED_MS.store(now_ms(), Relaxed);
}

/// The operation in flight finished.
pub(crate) fn finished() {
    STARTED_MS.store(0, Relaxed);
}
