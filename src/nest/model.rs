//! Loom models of the promotion/claim/take-back/latch handshake, of the
//! doorbell, of the injector's hand-over, of a thread's mail, and of a
//! task's end and its awaiter (run from `tests/loom.rs`; loom only, hidden
//! from the docs).
//!
//! Each model runs the real [`Slot`], [`StackJob`] and [`Doorbell`] code.
//! The job's closure reads a value the owner wrote before promoting it, and
//! its result is read by the owner after the take-back or the latch, both
//! through loom's checked cells: loom fails the model if either access is
//! not ordered by the handshake, if a job runs twice or never, or if a
//! parked thread is never woken.

use super::broadcast::Posted;
use super::inject;
use super::inject::call::{CallJob, Wake};
use super::inject::links::End;
use super::inject::task::handoff::Handoff;
use super::job::{run, Header, StackJob};
use super::worker::{Role, Worker};
use super::{Nest, Slot};
use crate::sync::{AtomicBool, AtomicUsize, Ordering, UnsafeCell};
use crate::wait::{Doorbell, WaitPolicy, Waiter};
use loom::sync::Arc;
use loom::thread;

/// A thief: claims the slot's job once, if there is one, and runs it.
fn thief(slot: &Slot) -> bool {
    match slot.claim() {
        Some(job) => {
            // SAFETY: won from the slot; the owner keeps it alive until it
            // sees the latch.
            unsafe { run(job) };
            true
        }
        None => false,
    }
}

/// The owner's side: promote a job whose closure reads `input`, try to take
/// it back, else wait for its latch; returns the job's result.
fn owner(slot: &Slot, input: &UnsafeCell<u32>, bell: Option<&Doorbell>) -> u32 {
    // SAFETY: no job is published yet: ours alone.
    input.with_mut(|value| unsafe { *value = 5 });
    // SAFETY: read by whoever runs the job, after the slot's handshake.
    let job = StackJob::new(|_| input.with(|value| unsafe { *value }) + 1);
    let header: *const Header = job.header();
    // SAFETY: alive in this frame; owner-only flag.
    unsafe { (*header).mark_promoted() };
    slot.offer(header);
    if let Some(bell) = bell {
        bell.ring();
    }
    if slot.take_back(header) {
        // SAFETY: taken back: never claimed; once.
        return unsafe { job.run_inline() };
    }
    // SAFETY: alive in this frame.
    while !unsafe { (*header).probe() } {
        thread::yield_now();
    }
    // SAFETY: the latch is set; once.
    unsafe { job.take_result() }.unwrap_or(0)
}

/// The owner and one thief race for one promoted job.
pub fn promote_claim_take_back() {
    let slot = Arc::new(Slot::new());
    let other = Arc::clone(&slot);
    let thief = thread::spawn(move || {
        thief(&other);
    });
    let input = UnsafeCell::new(0);
    assert_eq!(owner(&slot, &input, None), 6);
    thief.join().unwrap();
    assert!(slot.is_empty());
}

/// Two thieves race for one job: it runs exactly once.
pub fn two_thieves() {
    let slot = Arc::new(Slot::new());
    let thieves: std::vec::Vec<_> = (0..2)
        .map(|_| {
            let slot = Arc::clone(&slot);
            thread::spawn(move || thief(&slot))
        })
        .collect();
    let input = UnsafeCell::new(0);
    assert_eq!(owner(&slot, &input, None), 6);
    let claims = thieves
        .into_iter()
        .map(|thief| thief.join().unwrap())
        .filter(|claimed| *claimed)
        .count();
    assert!(claims <= 1);
}

/// An idle thread parks on the doorbell until a promotion or the end rings
/// it, as the region's idle loop does: it must never sleep through a ring.
pub fn doorbell_wakes_the_idle_thread() {
    let slot = Arc::new(Slot::new());
    let bell = Arc::new(Doorbell::new());
    let done = Arc::new(AtomicBool::new(false));
    let (other, other_bell, other_done) = (Arc::clone(&slot), Arc::clone(&bell), Arc::clone(&done));
    let idle = thread::spawn(move || {
        let waiter = Waiter::new(WaitPolicy::AlwaysPark, 2);
        loop {
            if thief(&other) {
                continue;
            }
            // Acquire: pairs with the owner's Release store of `done`.
            if other_done.load(Ordering::Acquire) {
                return;
            }
            other_bell.wait(
                &waiter,
                || !other.is_empty() || other_done.load(Ordering::Relaxed),
                || {},
            );
        }
    });
    let input = UnsafeCell::new(0);
    assert_eq!(owner(&slot, &input, Some(&bell)), 6);
    // Release: pairs with the idle thread's Acquire load.
    done.store(true, Ordering::Release);
    bell.ring();
    idle.join().unwrap();
}

/// The caller's value, read by the job wherever it runs.
struct Input(UnsafeCell<u32>);

// SAFETY: written once before the job is queued and read by the job after
// the queue's handshake; loom checks that the two are ordered.
unsafe impl Sync for Input {}

/// A caller hands a job over to a pool's injector while a runner of the
/// pool pops it: the job runs exactly once, on the runner, or on the caller
/// after it took the job back (its bound passed), and the caller sees the
/// result either way. The closure reads a value the caller wrote before the
/// push; loom fails the model if a read is not ordered by the queue's lock
/// or the job's `done` flag.
pub fn hand_over_or_take_back() {
    let waiter = Waiter::new(WaitPolicy::AlwaysPark, 1);
    let nest = Arc::new(Nest::new(1, waiter));
    let other = Arc::clone(&nest);
    let runner = thread::spawn(move || {
        let worker = Worker::new(&other, 0, Role::Alone);
        match other.injector.pop() {
            Some(job) => {
                // SAFETY: popped by this thread; the caller keeps the job
                // alive until it sees `done`.
                unsafe { inject::run(job, &worker) };
                true
            }
            None => false,
        }
    });
    let input = Input(UnsafeCell::new(0u32));
    let runs = AtomicUsize::new(0);
    // SAFETY: nothing is queued yet: ours alone.
    input.0.with_mut(|value| unsafe { *value = 5 });
    let input = &input;
    let job = CallJob::new(
        |_: &Worker| {
            runs.fetch_add(1, Ordering::Relaxed);
            // SAFETY: the queue's lock orders the write above before this read.
            input.0.with(|value| unsafe { *value }) + 1
        },
        Wake::this_thread(),
    );
    // SAFETY: alive in this frame until it is done or taken back.
    unsafe { nest.injector.push(job.header(), End::Back) };
    nest.ring_injected();
    // SAFETY: pushed by this thread above, alive.
    let result = if unsafe { nest.injector.take_back(job.header()) } {
        let worker = Worker::new(&nest, 0, Role::Alone);
        // SAFETY: taken back: no runner touches the job.
        let func = unsafe { job.take_func() };
        func(&worker)
    } else {
        while !job.is_done() {
            thread::yield_now();
        }
        // SAFETY: done; once.
        unsafe { job.take_result() }.unwrap_or(0)
    };
    assert_eq!(result, 6);
    runner.join().unwrap();
    assert!(nest.injector.is_empty());
    // Exactly once: the runner popped it or the caller took it back.
    assert_eq!(runs.load(Ordering::Relaxed), 1);
}

/// A thread posts two jobs to another's mail while that one takes its
/// mail and then closes it, as a thread leaving its region does: each job
/// runs exactly once (on the owner, or on the poster once the mail is
/// closed), and the poster sees both results. The jobs' closures read a
/// value the poster wrote before posting; loom fails the model if a read
/// is not ordered by the post and the take or close.
pub fn mail_runs_once_on_its_owner() {
    let slot = Arc::new(Slot::new());
    // Closed in an earlier region (0): counts as empty in this one (1).
    assert!(slot.close_mail(0).is_null());
    let owner = {
        let slot = Arc::clone(&slot);
        thread::spawn(move || {
            if let Some(job) = slot.take_mail() {
                // SAFETY: taken from our own mail; its poster waits for it.
                unsafe { run(job) };
            }
            let mut job = slot.close_mail(1);
            while !job.is_null() {
                // SAFETY: as above; the link is read before the job runs.
                let older = unsafe { (*job).prev.get() };
                // SAFETY: as above.
                unsafe { run(job) };
                job = older;
            }
        })
    };
    let input = Input(UnsafeCell::new(0));
    let runs = AtomicUsize::new(0);
    // SAFETY: nothing is posted yet: ours alone.
    input.0.with_mut(|value| unsafe { *value = 5 });
    let read = |_| {
        runs.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the post's Release and the take's Acquire order the
        // write above before this read.
        input.0.with(|value| unsafe { *value }) + 1
    };
    let jobs = [StackJob::new(read), StackJob::new(read)];
    for job in &jobs {
        if let Posted::Closed = slot.post(job.header(), 1) {
            // SAFETY: not posted: ours alone to run.
            unsafe { run(job.header()) };
        }
    }
    for job in &jobs {
        // SAFETY: alive in this frame until the latch is seen.
        while !unsafe { (*job.header()).probe() } {
            thread::yield_now();
        }
        // SAFETY: the latch is set; once.
        assert_eq!(unsafe { job.take_result() }.unwrap_or(0), 6);
    }
    owner.join().unwrap();
    assert_eq!(runs.load(Ordering::Relaxed), 2);
    assert!(!slot.has_mail());
}

/// A waker that raises a flag (a loom atomic) when woken.
struct Flag(AtomicBool);

impl std::task::Wake for Flag {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        // Release: pairs with the Acquire load of the waiting poller.
        self.0.store(true, Ordering::Release);
    }
}

/// A task's end and its awaiter's poll on two threads
/// (`inject/task.rs`'s hand-off): the awaiter polls, and if the task has
/// not ended, waits for its waker to be woken and polls again, which must
/// then find the result. Loom fails the model if a wake-up is lost (the
/// awaiter then waits forever) or the result is read unordered.
pub fn task_end_wakes_its_awaiter() {
    let handoff = Arc::new(Handoff::<u32>::new());
    let ender = {
        let handoff = Arc::clone(&handoff);
        thread::spawn(move || assert!(handoff.end(Ok(7)).is_none(), "the handle is kept"))
    };
    let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
    let waker = core::task::Waker::from(std::sync::Arc::clone(&flag));
    loop {
        match handoff.poll(&waker) {
            core::task::Poll::Ready(result) => {
                assert_eq!(result.ok(), Some(7));
                break;
            }
            core::task::Poll::Pending => {
                // Acquire: pairs with the Release store in `wake_by_ref`.
                while !flag.0.load(Ordering::Acquire) {
                    thread::yield_now();
                }
                flag.0.store(false, Ordering::Relaxed);
            }
        }
    }
    ender.join().unwrap();
}

/// A task's end and its handle's drop on two threads: exactly one of them
/// gets the result (the end, if the handle was dropped first, to send a
/// panic to the pool's handler; else the drop, finding it stored).
pub fn a_detached_tasks_result_is_taken_once() {
    let handoff = Arc::new(Handoff::<u32>::new());
    let ender = {
        let handoff = Arc::clone(&handoff);
        thread::spawn(move || handoff.end(Ok(7)).is_some())
    };
    let dropped = handoff.detach().is_some();
    let ended = ender.join().unwrap();
    assert!(dropped != ended, "the result is taken exactly once");
}
