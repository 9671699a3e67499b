//! Starting one worker thread of a team, and naming it.

use crate::error::Error;
use std::boxed::Box;
use std::string::String;
use std::sync::Arc;
use std::thread::JoinHandle;

/// The longest thread name the OS keeps, in bytes (Linux: 16 with the NUL).
const MAX_THREAD_NAME: usize = if cfg!(any(target_os = "linux", target_os = "android")) {
    15
} else {
    63
};

/// What a worker runs on its own thread before it joins its team, such as
/// pinning itself. If it fails, the worker never joins and the spawn fails.
pub(crate) type WorkerSetup = Box<dyn FnOnce() -> Result<(), Error> + Send>;

/// A handler a worker calls with its thread index: when it starts, before
/// it joins its team, or when it exits, after the pool stopped it.
pub(crate) type WorkerHandler = Arc<dyn Fn(usize) + Send + Sync>;

/// Starts thread `index` of a pool, named `name` (`None`: unnamed), which
/// runs `setup` and then `body`. With a setup, waits for it and returns its
/// error (the thread then ends without running `body`).
pub(crate) fn spawn_pool_thread(
    name: Option<String>,
    stack_size: Option<usize>,
    index: usize,
    setup: Option<WorkerSetup>,
    body: impl FnOnce() + Send + 'static,
) -> Result<JoinHandle<()>, Error> {
    let builder = thread_builder(name, stack_size);
    let spawn_error = |source| Error::Spawn { index, source };
    let Some(setup) = setup else {
        return builder.spawn(body).map_err(spawn_error);
    };
    let (report, outcome) = std::sync::mpsc::sync_channel(1);
    let handle = builder
        .spawn(move || {
            let ready = setup();
            let joins = ready.is_ok();
            let _ = report.send(ready);
            if joins {
                body();
            }
        })
        .map_err(spawn_error)?;
    match outcome.recv() {
        Ok(Ok(())) => Ok(handle),
        Ok(Err(error)) => {
            let _ = handle.join();
            Err(error)
        }
        // The setup panicked before reporting; the thread has ended.
        Err(_) => {
            let _ = handle.join();
            let source = std::io::Error::other("the worker's set-up panicked");
            Err(spawn_error(source))
        }
    }
}

/// `{prefix}:{index}`, with the prefix cut on a char boundary so the whole
/// name fits in [`MAX_THREAD_NAME`] bytes.
pub(crate) fn thread_name(prefix: &str, index: usize) -> String {
    use core::fmt::Write;
    let mut suffix = String::new();
    let _ = write!(suffix, ":{index}");
    let mut keep = MAX_THREAD_NAME
        .saturating_sub(suffix.len())
        .min(prefix.len());
    while !prefix.is_char_boundary(keep) {
        keep -= 1;
    }
    let mut name = String::from(&prefix[..keep]);
    name.push_str(&suffix);
    name
}

/// A thread builder with `name` (`None`: unnamed) and, if given,
/// `stack_size`: how every thread a pool starts itself is made (its
/// workers, its serving thread and that thread's relief threads).
pub(crate) fn thread_builder(
    name: Option<String>,
    stack_size: Option<usize>,
) -> std::thread::Builder {
    let builder = std::thread::Builder::new();
    let builder = match name {
        Some(name) => builder.name(name),
        None => builder,
    };
    match stack_size {
        Some(bytes) => builder.stack_size(bytes),
        None => builder,
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn thread_names_fit_the_os_limit_and_keep_the_index() {
        assert_eq!(thread_name("tine", 3), "tine:3");
        let long = thread_name("a-very-long-pool-name", 12);
        assert!(long.len() <= MAX_THREAD_NAME);
        assert!(long.ends_with(":12"), "{long}");
        // A multi-byte char straddling the cut is dropped whole.
        let utf8 = thread_name("ééééééééé", 7);
        assert!(
            utf8.len() <= MAX_THREAD_NAME && utf8.ends_with(":7"),
            "{utf8}"
        );
    }
}
