//! The thread that builds a pool as the pool's thread 0 (rayon's
//! `use_current_thread`, [`Builder::use_current_thread`]).
//!
//! A pool in rayon's model (`edge.rs`) built this way starts threads for
//! indices 1 and up only; the building thread is index 0. It has no loop
//! of its own: it stays the program's thread, and runs pool work only when
//! it calls into the pool (a `join` offers its second half to the others,
//! its waits run what they may take, a `yield_now` runs a queued job). So
//! it keeps, from the build until the pool drops, what a resident thread
//! keeps on its stack (`resident.rs`): a [`Role::Resident`] worker of the
//! pool at index 0, current on this thread, and a frame that makes the
//! pool its own (`current_thread_index()` is `Some(0)`, and free calls go
//! to this pool).
//!
//! Both live on the heap, held by a thread-local with the pool's team and
//! nest: a pool dropped on another thread leaves this thread its index 0
//! (as rayon's does) until the thread ends, and its joins then run alone.
//!
//! [`Builder::use_current_thread`]: super::Builder::use_current_thread

use crate::nest::worker::{Entered, Role, Worker};
use crate::nest::Nest;
use crate::team::{leave, Frame, Outer, Team};
use core::cell::RefCell;
use std::boxed::Box;
use std::sync::Arc;

/// What the building thread holds for its pool.
struct Adoption {
    /// Puts the thread's previous worker back; dropped first.
    entered: Option<Entered>,
    /// The frame entered, and the one it replaced.
    frame: Box<Frame>,
    outer: Outer,
    /// Points into `nest`: declared before it, so dropped before it.
    _worker: Box<Worker>,
    nest: Arc<Nest>,
    _team: Arc<Team>,
}

impl Drop for Adoption {
    fn drop(&mut self) {
        drop(self.entered.take());
        // Only the frame this adoption entered: a fork the thread runs a
        // share of now keeps its own.
        if self.frame.is_innermost() {
            leave(self.outer);
        }
    }
}

std::thread_local! {
    /// The pool this thread built as its thread 0, if any.
    static ADOPTED: RefCell<Option<Adoption>> = const { RefCell::new(None) };
}

/// Whether this thread is some pool's thread 0 by adoption.
pub(crate) fn is_adopted() -> bool {
    ADOPTED.with(|adopted| adopted.borrow().is_some())
}

/// Makes this thread thread 0 of the pool of `team` and `nest` until
/// [`release`]. The caller has checked that the thread works for no pool.
pub(crate) fn adopt(team: &Arc<Team>, nest: &Arc<Nest>) {
    let frame = Box::new(Frame::resident(team, 0, nest.threads()));
    let outer = frame.enter();
    let worker = Box::new(Worker::new(nest, 0, Role::Resident));
    let entered = Some(worker.enter());
    let adoption = Adoption {
        entered,
        frame,
        outer,
        _worker: worker,
        nest: Arc::clone(nest),
        _team: Arc::clone(team),
    };
    ADOPTED.with(|adopted| *adopted.borrow_mut() = Some(adoption));
}

/// Ends this thread's adoption by `nest`'s pool, if this thread has one:
/// the pool drops here.
pub(crate) fn release(nest: &Nest) {
    let adoption = ADOPTED.with(|adopted| {
        let mut adopted = adopted.borrow_mut();
        match &*adopted {
            Some(adoption) if core::ptr::eq(&*adoption.nest, nest) => adopted.take(),
            _ => None,
        }
    });
    drop(adoption);
}
