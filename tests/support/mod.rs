//! Test support shared by several test binaries (`mod support;`).
//!
//! [`scope`] is `std::thread::scope` with joins that ThreadSanitizer can
//! see. std's scope waits for its threads through a counter in the
//! (uninstrumented) standard library and then detaches them, so TSan sees
//! no happens-before edge from a scoped thread's last access to whatever the
//! test does after the scope, and reports races that cannot happen. This
//! scope (crossbeam's underneath) joins every thread with `pthread_join`,
//! which TSan intercepts. Tests use it everywhere, so the same tests run
//! under the sanitizers and without them.
#![allow(dead_code)] // not every test binary uses every item

/// A scope whose threads may borrow from the enclosing stack, like
/// [`std::thread::scope`]; see the module docs.
pub fn scope<'env, T>(body: impl for<'s> FnOnce(&'s Scope<'s, 'env>) -> T) -> T {
    let outcome = crossbeam_utils::thread::scope(|inner| body(&Scope(inner)));
    outcome.unwrap_or_else(|panics| std::panic::resume_unwind(panics))
}

/// The scope handed to [`scope`]'s body.
pub struct Scope<'s, 'env>(&'s crossbeam_utils::thread::Scope<'env>);

impl<'s, 'env> Scope<'s, 'env> {
    /// Spawns a thread that the scope joins (with `pthread_join`) before it
    /// returns.
    pub fn spawn<T: Send + 'env>(
        &self,
        f: impl FnOnce() -> T + Send + 'env,
    ) -> crossbeam_utils::thread::ScopedJoinHandle<'s, T> {
        self.0.spawn(move |_| f())
    }
}

/// Makes panic messages print one at a time, under a lock that
/// ThreadSanitizer sees. std prints a panic through its own buffers and
/// locks, which are not instrumented; two tasks that panic at once then look
/// like a race inside std. Call it first in tests where several threads
/// panic together. It prints the thread, location and message alone: for a
/// panic raised while another unwinds (a join's `b` runs while a panicking
/// `a` unwinds), std's hook prints a full backtrace whatever
/// `RUST_BACKTRACE` says, which would bury the suites' output in thousands
/// of expected backtraces (and takes Miri seconds to resolve).
pub fn serialize_panic_output() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static INSTALL: std::sync::Once = std::sync::Once::new();
    static PRINTING: AtomicBool = AtomicBool::new(false);
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            // Acquire: pairs with the Release store below, so each message
            // is printed after the previous one, as TSan sees it.
            while PRINTING.swap(true, Ordering::Acquire) {
                // Yield, not spin: on 2 cores the spinners would take the
                // printing thread's CPU.
                std::thread::yield_now();
            }
            let thread = std::thread::current();
            eprintln!("thread '{}' {info}", thread.name().unwrap_or("<unnamed>"));
            // Release: pairs with the Acquire swap above.
            PRINTING.store(false, Ordering::Release);
        }));
        // Release: pairs with the Acquire load below.
        INSTALLED.store(true, Ordering::Release);
    });
    // Acquire: pairs with the Release store above, so the hook that another
    // thread installed happens before this thread's panics, as TSan sees it
    // (std's `Once` and its hook lock are not instrumented).
    while !INSTALLED.load(Ordering::Acquire) {
        std::hint::spin_loop();
    }
}

/// The most one tick of [`within`]'s watchdog counts towards its limit.
pub const TICK_CAP: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `body` on its own thread and fails the test if it has not finished
/// within `limit` (the hung thread is left behind; the test binary exits).
/// Joined with `join`, which ThreadSanitizer sees (a channel inside std
/// would not be).
///
/// The limit counts the watchdog's own ticks, each at most [`TICK_CAP`],
/// not the wall clock: a tick that overslept (the machine paused, or so
/// busy that the watchdog was not scheduled) is not taken for a hang of
/// `body`, which was not running either.
pub fn within<T: Send + 'static>(
    limit: std::time::Duration,
    body: impl FnOnce() -> T + Send + 'static,
) -> T {
    let runner = std::thread::spawn(body);
    let mut waited = std::time::Duration::ZERO;
    while !runner.is_finished() {
        assert!(waited < limit, "hung: still running after {limit:?}");
        let tick = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        waited += tick.elapsed().min(TICK_CAP);
    }
    runner
        .join()
        .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
}

/// Runs `f` below `N` bytes of this frame's stack, far deeper than the
/// linked zone's 1 KiB (out of line, so that `f`'s frame is below).
#[inline(never)]
pub fn below<const N: usize, R>(f: impl FnOnce() -> R) -> R {
    let pad = std::hint::black_box([0u8; N]);
    let result = f();
    std::hint::black_box(&pad);
    result
}

/// Hands `join` a first closure that waits (up to `patience`, yielding)
/// for the second to run, and a second closure that says it ran; true if
/// the second ran while the first waited. `join` runs the two as a join.
pub fn b_ran_while_a_waited(
    patience: std::time::Duration,
    join: impl FnOnce(&(dyn Fn() -> bool + Sync), &(dyn Fn() + Sync)) -> bool,
) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering};
    let b_ran = AtomicBool::new(false);
    let a = || {
        let start = std::time::Instant::now();
        // Acquire: pairs with the Release store in `b`.
        while !b_ran.load(Ordering::Acquire) {
            if start.elapsed() > patience {
                return false;
            }
            std::thread::yield_now();
        }
        true
    };
    // Release: pairs with the Acquire load in `a`.
    let b = || b_ran.store(true, Ordering::Release);
    join(&a, &b)
}

/// CPU time (user + system) of the whole process so far: for the tests
/// that bound what an idle or rarely fed pool burns (one test per binary,
/// so that the process's time is the pool's).
#[cfg(unix)]
pub fn process_cpu() -> std::time::Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is a valid out-pointer for one rusage.
    let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    assert_eq!(status, 0);
    // SAFETY: getrusage filled it in.
    let usage = unsafe { usage.assume_init() };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    std::time::Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}
