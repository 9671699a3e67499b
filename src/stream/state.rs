//! The hand-offs of one stream: a window of batch slots behind one mutex,
//! and three condition variables.
//!
//! # Slots
//!
//! `window` slots, each `Free -> Filled -> Working -> Done -> Free`:
//! - the reader takes a `Free` slot, points it at a range of a read buffer
//!   and queues it on `filled` (publication order = sequence order);
//! - a thread pops the front of `filled` (`Working`), runs the callback
//!   with the lock released, and marks it `Done`;
//! - the writer (the caller's thread) writes a `Done` slot's output and
//!   frees it. `pending` lists the slots the writer may write next, in
//!   publication order when ordered (it writes only the front, once `Done`)
//!   or in completion order when not.
//!
//! So at most `window` batches are read and unwritten at once: memory is
//! bounded whatever the speeds of reader, workers and writer.
//!
//! # Waits
//!
//! Every wait re-checks its condition under the lock, so no wake-up is
//! lost, and every wait ends: `work` waiters (threads with nothing to do)
//! wake on a publication, the end of input, or a stop; the `output` waiter
//! (the writer) on a publication, a finished batch, the end of input or a
//! stop; the `room` waiter (the reader) when a slot is freed or on a stop.
//! One mutex round-trip per batch and role, never per record.
//!
//! # Stopping
//!
//! The first failure (callback error, read or write error, panic in any
//! role) sets `stop`: no batch is published or claimed after it, batches in
//! work finish, and every waiter wakes and leaves.

use super::error::StreamError;
use super::sizing::Workers;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::vec::Vec;

/// Where a slot is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Free,
    Filled,
    Working,
    Done,
}

/// One batch in flight, and the output buffer it keeps between batches.
pub(crate) struct Slot {
    pub(crate) phase: Phase,
    /// The read buffer the batch's bytes are in (`None` once processed).
    pub(crate) buffer: Option<Arc<Vec<u8>>>,
    pub(crate) range: Range<usize>,
    pub(crate) first_record: u64,
    pub(crate) len: usize,
    /// The callback's output; empty, with its capacity kept, once written.
    pub(crate) out: Vec<u8>,
}

/// Everything behind the mutex.
pub(crate) struct State<E> {
    pub(crate) slots: Vec<Slot>,
    free: Vec<usize>,
    filled: VecDeque<usize>,
    pending: VecDeque<usize>,
    ordered: bool,
    /// Records in `filled` slots: read, not yet claimed.
    backlog: usize,
    /// Threads waiting in `work` or `output` with nothing to do.
    idle: usize,
    /// Slots not `Free`.
    in_flight: usize,
    /// The reader has published its last batch (or stopped).
    input_done: bool,
    /// Set by the first failure; nothing new starts after it.
    pub(crate) stop: bool,
    failure: Option<StreamError<E>>,
    /// Bytes written so far, for error messages.
    pub(crate) written: u64,
}

/// The state and its condition variables.
pub(crate) struct Shared<E> {
    state: Mutex<State<E>>,
    work: Condvar,
    output: Condvar,
    room: Condvar,
}

/// What a thread may do next, decided under the lock.
pub(crate) enum Next {
    /// Process this slot (now `Working`).
    Process(usize),
    /// Write this slot's output (the writer only).
    Write(usize),
    /// Nothing left for this thread.
    Leave,
}

impl<E> Shared<E> {
    pub(crate) fn new(window: usize, ordered: bool) -> Self {
        let slots = (0..window)
            .map(|_| Slot {
                phase: Phase::Free,
                buffer: None,
                range: 0..0,
                first_record: 0,
                len: 0,
                out: Vec::new(),
            })
            .collect();
        Self {
            state: Mutex::new(State {
                slots,
                free: (0..window).rev().collect(),
                filled: VecDeque::with_capacity(window),
                pending: VecDeque::with_capacity(window),
                ordered,
                backlog: 0,
                idle: 0,
                in_flight: 0,
                input_done: false,
                stop: false,
                failure: None,
                written: 0,
            }),
            work: Condvar::new(),
            output: Condvar::new(),
            room: Condvar::new(),
        }
    }

    /// Locks the state. A panic never happens with the lock held (callbacks
    /// and I/O run unlocked), so a poisoned lock still holds a consistent
    /// state and is used as is.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State<E>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, cv: &Condvar, guard: MutexGuard<'a, State<E>>) -> MutexGuard<'a, State<E>> {
        cv.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the first failure and stops the stream; wakes everyone.
    pub(crate) fn fail(&self, state: &mut State<E>, failure: Option<StreamError<E>>) {
        if state.failure.is_none() {
            state.failure = failure;
        }
        state.stop = true;
        self.wake_all();
    }

    fn wake_all(&self) {
        self.work.notify_all();
        self.output.notify_all();
        self.room.notify_all();
    }

    /// Whether the stream has stopped.
    pub(crate) fn stopped(&self) -> bool {
        self.lock().stop
    }

    /// Publishes one batch (the reader). Waits for a free slot. Returns the
    /// backlog after it and whether threads were starving, or `None` if the
    /// stream stopped.
    pub(crate) fn publish(
        &self,
        buffer: &Arc<Vec<u8>>,
        range: Range<usize>,
        first_record: u64,
        len: usize,
    ) -> Option<(usize, Workers)> {
        let mut state = self.lock();
        let index = loop {
            if state.stop {
                return None;
            }
            if let Some(index) = state.free.pop() {
                break index;
            }
            state = self.wait(&self.room, state);
        };
        let workers = if state.idle > 0 && state.filled.is_empty() {
            Workers::Starving
        } else {
            Workers::Fed
        };
        let slot = &mut state.slots[index];
        slot.phase = Phase::Filled;
        slot.buffer = Some(Arc::clone(buffer));
        slot.range = range;
        slot.first_record = first_record;
        slot.len = len;
        state.filled.push_back(index);
        if state.ordered {
            state.pending.push_back(index);
        }
        state.backlog += len;
        state.in_flight += 1;
        let backlog = state.backlog;
        drop(state);
        self.work.notify_one();
        self.output.notify_one();
        Some((backlog, workers))
    }

    /// The reader is done, with its error if it failed.
    pub(crate) fn finish_input(&self, failure: Option<StreamError<E>>) {
        let mut state = self.lock();
        state.input_done = true;
        if failure.is_some() {
            self.fail(&mut state, failure);
        } else {
            drop(state);
            self.wake_all();
        }
    }

    /// Marks a processed slot done (any thread), with the callback's
    /// outcome, and returns what the thread does next.
    pub(crate) fn done<'a>(
        &'a self,
        mut state: MutexGuard<'a, State<E>>,
        index: usize,
        out: Vec<u8>,
        error: Option<E>,
    ) -> MutexGuard<'a, State<E>> {
        let first_record = {
            let slot = &mut state.slots[index];
            slot.phase = Phase::Done;
            slot.out = out;
            slot.first_record
        };
        if !state.ordered {
            state.pending.push_back(index);
        }
        if let Some(error) = error {
            let failure = StreamError::Callback {
                first_record,
                error,
            };
            self.fail(&mut state, Some(failure));
        } else {
            self.output.notify_one();
        }
        state
    }

    /// Frees a written slot (the writer).
    pub(crate) fn free(&self, state: &mut State<E>, index: usize) {
        let slot = &mut state.slots[index];
        slot.phase = Phase::Free;
        slot.out.clear();
        state.free.push(index);
        state.in_flight -= 1;
        self.room.notify_one();
    }

    /// Waits for the next job of a thread. `writer` is true on the caller's
    /// thread, which alone writes output.
    pub(crate) fn next<'a>(
        &'a self,
        mut state: MutexGuard<'a, State<E>>,
        writer: bool,
    ) -> (MutexGuard<'a, State<E>>, Next) {
        loop {
            if state.stop {
                return (state, Next::Leave);
            }
            if writer {
                if let Some(&index) = state.pending.front() {
                    if state.slots[index].phase == Phase::Done {
                        state.pending.pop_front();
                        return (state, Next::Write(index));
                    }
                }
            }
            if let Some(index) = state.filled.pop_front() {
                state.slots[index].phase = Phase::Working;
                state.backlog -= state.slots[index].len;
                return (state, Next::Process(index));
            }
            if state.input_done && (!writer || state.in_flight == 0) {
                return (state, Next::Leave);
            }
            state.idle += 1;
            state = self.wait(if writer { &self.output } else { &self.work }, state);
            state.idle -= 1;
        }
    }

    /// The first failure, once every thread has left.
    pub(crate) fn into_failure(self) -> Option<StreamError<E>> {
        self.state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .failure
    }
}

/// Stops the stream if the thread holding it unwinds (a panic in a
/// callback, the reader or the writer), so that no other role waits for it.
pub(crate) struct StopOnUnwind<'a, E>(pub(crate) &'a Shared<E>);

impl<E> Drop for StopOnUnwind<'_, E> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut state = self.0.lock();
            state.input_done = true;
            self.0.fail(&mut state, None);
        }
    }
}
