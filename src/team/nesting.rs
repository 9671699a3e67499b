//! Fork frames: which forks (transitively) wait for this thread (std only).
//!
//! # Invariants
//!
//! - A dispatcher's [`Frame`] lives on its stack for the whole fork, and its
//!   parent is whatever fork the dispatcher itself runs in.
//! - A worker's frame has no parent of its own: it runs inside the fork of
//!   its team's current dispatcher, whose frame the team records in its
//!   [`FrameSlot`]. The holder records it ([`FrameSlot::record`]) after
//!   taking the team and *before* publishing the fork, so the generation's
//!   Release/Acquire pair orders the write before any worker's read in
//!   [`Frame::enclosing`]; and the frame outlives the fork, which joins
//!   every worker before the dispatcher returns.
//!
//! So the chain from `CURRENT_FRAME` tells a thread which forks wait for
//! it: a call from inside any fork must not wait for a busy team
//! ([`in_fork`]), and `stop` from inside a fork of its own team must not wait
//! for that fork ([`frames_contain`]).

use super::Team;
use crate::sync::UnsafeCell;

/// One level of fork nesting: "this thread runs a share of `team`'s fork,
/// which runs inside `parent`" (`team` is null for a call run inline).
pub(crate) struct Frame {
    team: *const Team,
    /// The fork's thread count (every team of a spread fork together), or
    /// the inline call's; unused in a worker's frame, which reads its
    /// dispatcher's.
    threads: usize,
    /// The enclosing fork; for a worker's frame, null (see the module docs).
    parent: *const Frame,
    /// [`WORKER`] for a worker's frame, and this thread's index in the
    /// fork in the other bits ([`INDEX`]): a worker's slot, 0 for the
    /// dispatcher (the caller is thread 0), and the enclosing frame's index
    /// for an inline call (its shares all run on this thread). One word,
    /// so a dispatcher's frame costs one store for both, as a lone flag
    /// did.
    tag: u32,
}

/// The bit of [`Frame::tag`] that marks a worker's frame.
const WORKER: u32 = 1 << 31;
/// The bits of [`Frame::tag`] that hold the thread's index (an index past
/// them, in a team of over 2^31 threads, is reported as the largest).
const INDEX: u32 = WORKER - 1;

/// What [`Frame::enter`] replaced, for [`leave`].
pub(crate) type Outer = *const Frame;

impl Frame {
    /// The dispatcher's frame for a fork of `team` on `threads` threads in
    /// all.
    #[inline]
    pub(crate) fn dispatcher(team: &Team, threads: usize) -> Self {
        Frame {
            team,
            threads,
            parent: CURRENT_FRAME.with(|current| current.get()),
            tag: 0,
        }
    }

    /// A worker's frame: entered once for the worker's life, it stands for
    /// whichever fork of `team` the worker is running a share of.
    /// `thread_index` is the worker's index in the fork.
    pub(crate) fn worker(team: &Team, thread_index: usize) -> Self {
        Frame {
            team,
            threads: 0,
            parent: core::ptr::null(),
            tag: WORKER | thread_index.min(INDEX as usize) as u32,
        }
    }

    /// The frame of a call that runs inline on this thread (`run_inline`):
    /// it stands for no team, so `stop` still waits for any team's fork, but
    /// it makes [`in_fork`] true, so calls from the inline shares that find
    /// a team busy run inline at once, as a real fork's tasks would.
    pub(crate) fn inline(threads: usize) -> Self {
        let parent = CURRENT_FRAME.with(|current| current.get());
        // SAFETY: the innermost frame belongs to a fork that is still
        // running (it waits for this thread), so its stack slot is live.
        let index = unsafe { parent.as_ref() }.map_or(0, |parent| parent.tag & INDEX);
        Frame {
            team: core::ptr::null(),
            threads,
            parent,
            tag: index,
        }
    }

    /// The frame of a thread that stays with `team`'s pool for the pool's
    /// whole life (a thread of a pool in rayon's model, or the thread that
    /// built such a pool as its thread 0): it stands for a fork of `team`
    /// on `threads` threads of which this is thread `index`, enclosed by no
    /// other, so [`frames_contain`] finds the pool's team, and the thread's
    /// index and count are the pool's.
    pub(crate) fn resident(team: &Team, index: usize, threads: usize) -> Self {
        Frame {
            team,
            threads,
            parent: core::ptr::null(),
            tag: index.min(INDEX as usize) as u32,
        }
    }

    /// Whether this is the thread's innermost frame.
    pub(crate) fn is_innermost(&self) -> bool {
        CURRENT_FRAME.with(|current| core::ptr::eq(current.get(), self))
    }

    /// Whether this is a worker's frame.
    #[inline]
    fn is_worker(&self) -> bool {
        self.tag & WORKER != 0
    }

    /// Makes this frame the thread's innermost fork; returns the previous one.
    #[inline]
    pub(crate) fn enter(&self) -> Outer {
        CURRENT_FRAME.with(|current| current.replace(self))
    }

    /// The fork this frame's fork runs inside.
    fn enclosing(&self) -> *const Frame {
        if !self.is_worker() {
            return self.parent;
        }
        // This worker frame is live, so its team's fork is running and its
        // holder recorded its frame before publishing it (module docs).
        // SAFETY: the holder's frame lives until the fork joins, which waits
        // for us; the team outlives its workers.
        unsafe {
            let team = &*self.team;
            team.lock_line.dispatcher_frame.read()
        }
    }
}

/// Restores the frame [`Frame::enter`] replaced.
#[inline]
pub(crate) fn leave(outer: Outer) {
    CURRENT_FRAME.with(|current| current.set(outer));
}

/// A team's record of its current dispatcher's frame.
pub(crate) struct FrameSlot(UnsafeCell<*const Frame>);

impl FrameSlot {
    pub(crate) fn new() -> Self {
        FrameSlot(UnsafeCell::new(core::ptr::null()))
    }

    /// Records `frame` as the dispatcher of the team's next fork.
    ///
    /// # Safety
    /// Call only while holding the team and before publishing the fork
    /// (see the module docs): no worker is inside a share then.
    pub(crate) unsafe fn record(&self, frame: &Frame) {
        // SAFETY: guaranteed by the caller: no one reads the slot now.
        self.0.with_mut(|slot| unsafe { *slot = frame });
    }

    /// # Safety
    /// Call only from inside a share of the team's current fork.
    unsafe fn read(&self) -> *const Frame {
        // SAFETY: the holder wrote it before publishing the fork we run in.
        self.0.with(|slot| unsafe { *slot })
    }
}

#[cfg(not(loom))]
std::thread_local! {
    /// The innermost fork this thread is running a share of; null outside
    /// every fork.
    static CURRENT_FRAME: core::cell::Cell<*const Frame> =
        const { core::cell::Cell::new(core::ptr::null()) };
}

#[cfg(loom)]
loom::thread_local! {
    static CURRENT_FRAME: core::cell::Cell<*const Frame> =
        core::cell::Cell::new(core::ptr::null());
}

/// Whether this thread is running a share of any fork.
#[inline]
pub(crate) fn in_fork() -> bool {
    CURRENT_FRAME.with(|current| !current.get().is_null())
}

/// The thread count of the innermost fork this thread runs a share of (a
/// spread fork's, over all its teams), or of the innermost inline call.
pub(crate) fn innermost_fork_threads() -> Option<usize> {
    let frame = CURRENT_FRAME.with(|current| current.get());
    if frame.is_null() {
        return None;
    }
    // SAFETY: as in `frames_contain`: the innermost frame belongs to a fork
    // that is still running, so its stack slot is live.
    let this = unsafe { &*frame };
    if !this.is_worker() {
        return Some(this.threads);
    }
    // SAFETY: a live worker frame's enclosing frame is its fork's
    // dispatcher's, live until that fork joins (`Frame::enclosing`).
    Some(unsafe { &*this.enclosing() }.threads)
}

/// This thread's index in the innermost fork it runs a share of (0 for
/// the fork's caller, and for an inline call, the index of the fork it
/// runs in), or `None` outside every fork.
pub(crate) fn innermost_thread_index() -> Option<usize> {
    let frame = CURRENT_FRAME.with(|current| current.get());
    // SAFETY: as in `innermost_fork_threads`.
    unsafe { frame.as_ref() }.map(|frame| (frame.tag & INDEX) as usize)
}

/// The innermost frame's address, 0 outside every fork: tells whether two
/// moments of a thread are at the same level of nesting.
#[inline]
pub(crate) fn innermost_frame_id() -> usize {
    CURRENT_FRAME.with(|current| current.get() as usize)
}

/// Whether this thread runs (transitively) inside a fork of `team`.
pub(crate) fn frames_contain(team: &Team) -> bool {
    let mut frame = CURRENT_FRAME.with(|current| current.get());
    while !frame.is_null() {
        // SAFETY: every frame in the chain belongs to a fork that is still
        // running (it waits for this thread), so its stack slot is live.
        let this = unsafe { &*frame };
        if core::ptr::eq(this.team, team) {
            return true;
        }
        frame = this.enclosing();
    }
    false
}
