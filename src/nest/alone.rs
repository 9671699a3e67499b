//! The root of a call alone on its thread, with a serial worker: where a
//! region cannot be had (a busy team, from inside a task; a one-thread
//! team; a call taken back, `hand.rs`), and for a relief thread's detached
//! job (`pool/relief.rs`).

use super::worker::{Role, Worker};
use super::Nest;
use crate::team::run_inline;
use core::cell::Cell;

/// The root on this thread alone, marked as inside a task (so calls that
/// find a team busy run inline at once rather than wait), with a worker
/// that never promotes: every join runs both sides here. Also a relief
/// thread's way to run a detached job, whatever holds the team
/// (`pool/relief.rs`).
pub(crate) fn serial<R>(nest: &Nest, root: impl FnOnce(&Worker) -> R) -> R {
    let root = Cell::new(Some(root));
    let result = Cell::new(None);
    run_inline(1, |_| {
        let worker = Worker::new(nest, 0, Role::Alone);
        let _entered = worker.enter();
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            root.take().map(|root| root(&worker))
        }));
        worker.drain();
        result.set(Some(ran));
    });
    match result.take() {
        Some(Ok(Some(value))) => value,
        Some(Err(payload)) => std::panic::resume_unwind(payload),
        _ => unreachable!("the serial root runs once"),
    }
}
