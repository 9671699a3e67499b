//! `tine::spawn` panics at the caller's line when the pool cannot be
//! spawned (`#[track_caller]`): the location a user sees is theirs, not
//! the library's. A file of its own, since it sets the process's panic
//! hook.

use std::sync::{Arc, Mutex};

#[test]
fn spawn_of_zero_threads_panics_at_the_callers_line() {
    let seen: Arc<Mutex<Option<(String, u32, String)>>> = Arc::default();
    let hook_seen = Arc::clone(&seen);
    std::panic::set_hook(Box::new(move |info| {
        let location = info.location().expect("a panic location");
        let message = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        *hook_seen.lock().expect("the hook's lock") =
            Some((location.file().to_string(), location.line(), message));
    }));
    let line = line!() + 1;
    let result = std::panic::catch_unwind(|| tine::spawn_pool(0));
    let _ = std::panic::take_hook();
    assert!(result.is_err(), "tine::spawn_pool(0) returned a pool");
    let (file, at, message) = seen.lock().expect("the lock").take().expect("the hook ran");
    assert!(
        file.ends_with("spawn_location.rs"),
        "the panic points into {file}"
    );
    assert_eq!(at, line);
    assert!(message.contains("tine::spawn_pool(0) failed"), "{message}");
}
