//! One fork: take the team, publish the share, run share 0, join, hand back.
//!
//! One body for every build: what differs with `std` (catching a panic,
//! parking in the join, recording fork frames) is the `env` module's.

use super::job::{Job, Share};
use super::{env, Team};
use crate::sync::Ordering;
use core::ops::Deref;
pub(crate) use env::run_inline;

impl Team {
    /// Runs `share(thread_index, colocation_index)` once on each thread of
    /// the team and returns when all of them have; if the team is busy (a
    /// call from inside a task, or one that waited past the busy-wait bound)
    /// or stopped, runs every share inline on the calling thread instead, in
    /// thread order, as [`run_inline`] says: a panicking share does not stop
    /// the others, and the first payload resumes at the end.
    #[inline]
    pub(crate) fn fork(&self, share: &Share<'_>) {
        if self.threads == 1 {
            // One share: catching and resuming its panic would change nothing.
            return share(0, self.colocation);
        }
        if !self.fork_spread::<&Team>(&[], || {}, share) {
            run_inline(self.threads, |thread_index| {
                share(thread_index, self.colocation)
            });
        }
    }

    /// One fork over this team and every team in `others` at once: this
    /// team's fork with the caller as its thread 0, and a fork of each other
    /// team whose thread 0 is a stand-in that runs nothing (the caller
    /// publishes and joins it). The other teams' workers pass their own
    /// thread indices to `share` (see [`Team::worker_loop`]), so one closure
    /// serves all teams. Every team is published before the caller runs its
    /// share, so all of them run concurrently.
    ///
    /// Returns false, having run nothing, when this team is busy or stopped
    /// and the call must run inline instead. The teams in `others` must be
    /// taken only through this team (a holder of this team is their only
    /// user), so they are always free once this team is held.
    ///
    /// `prepare` runs once the teams are held and before anything is
    /// published: the place to reset counters the shares will use, which
    /// the generations' Release stores then publish. It must not panic: the
    /// teams would stay held.
    #[inline]
    pub(crate) fn fork_spread<R: Deref<Target = Team>>(
        &self,
        others: &[R],
        prepare: impl FnOnce(),
        share: &Share<'_>,
    ) -> bool {
        if !self.take() {
            return false;
        }
        self.fork_taken(others, prepare, share)
    }

    /// [`Team::fork_spread`] without other teams, only if the team is idle
    /// now: never waits, and returns false, having run nothing, when the
    /// team is busy (or reserved for callers waiting their turn) or stopped.
    /// For a caller that has somewhere else to hand its work when the team
    /// is busy (a pool's injector, `nest/inject.rs`).
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn fork_if_idle(&self, prepare: impl FnOnce(), share: &Share<'_>) -> bool {
        if !self.try_take() {
            return false;
        }
        self.fork_taken::<&Team>(&[], prepare, share)
    }

    /// [`Team::fork_spread`] without other teams, for a pool's serving
    /// thread: waits (parked) while the team is busy, for the busy wait at
    /// most (at least 1 ms). `None`, having run nothing, if the team stayed
    /// busy; else whether it forked (false: the team is stopped). Only for
    /// a thread that no fork can be waiting for (outside every task).
    #[cfg(feature = "std")]
    pub(crate) fn fork_serving(&self, prepare: impl FnOnce(), share: &Share<'_>) -> Option<bool> {
        if !self.take_for_serving() {
            return None;
        }
        Some(self.fork_taken::<&Team>(&[], prepare, share))
    }

    /// The rest of a fork once this team is held.
    #[inline]
    fn fork_taken<R: Deref<Target = Team>>(
        &self,
        others: &[R],
        prepare: impl FnOnce(),
        share: &Share<'_>,
    ) -> bool {
        // `build` checked that `threads` fits in a u32.
        if self.is_stopped() {
            self.hand_back(); // publishes the exit if no one has yet
            return false;
        }
        for other in others {
            // Free by the contract above; the loop only guards the contract.
            while !other.try_take() {
                core::hint::spin_loop();
            }
        }
        prepare();
        // Every team's slot 0 but ours is a stand-in that runs nothing.
        let threads = others
            .iter()
            .fold(self.threads, |sum, other| sum + other.threads - 1);
        let frame = env::Frame::dispatcher(self, threads);
        // SAFETY: `joiner` below joins every team before this function
        // returns or unwinds, so no worker runs the job after `share` ends.
        let job = unsafe { Job::new(share) };
        let mut woke_workers = false;
        // The remote teams first: their workers have the longest way to go.
        for team in others.iter().map(|other| &**other) {
            // SAFETY: we hold `team` and have not yet published this fork.
            unsafe { team.lock_line.dispatcher_frame.record(&frame) };
            woke_workers |= team.publish(job);
        }
        // SAFETY: as above, for our own team.
        unsafe { self.lock_line.dispatcher_frame.record(&frame) };
        woke_workers |= self.publish(job);
        let joiner = Joiner {
            lead: self,
            others,
            woke_workers,
        };
        let outer = frame.enter();
        self.env.run_share(|| share(0, self.colocation));
        env::leave(outer);
        joiner.finish();
        true
    }

    /// Writes the job slot (and, for a share, moves the join target on by
    /// the workers' count), bumps the generation and wakes parked workers.
    /// Only the holder calls this, with every worker waiting. Returns whether
    /// some worker was parked.
    #[inline]
    pub(super) fn publish(&self, job: Job) -> bool {
        if job.share().is_some() {
            // `build` checked that `threads` fits in a u32.
            let workers = self.threads as u32 - 1;
            // SAFETY: as for the job slot below; only the holder writes it.
            self.dispatch
                .join_target
                .with_mut(|target| unsafe { *target = (*target).wrapping_add(workers) });
        }
        // SAFETY: we hold the team and every worker has finished the previous
        // fork (`done` reached its target in the previous holder's join), so
        // no one reads the slot until the bump below.
        self.dispatch.job.with_mut(|slot| unsafe { *slot = job });
        let generation = &self.dispatch.generation;
        let next = generation.load(Ordering::Relaxed).wrapping_add(1);
        // Release: publishes the job slot and whatever `prepare` reset;
        // pairs with the Acquire load in the workers' `wait_for_fork`.
        generation.store(next, Ordering::Release);
        self.env.wake_workers(generation)
    }

    /// Waits until every worker has finished its share.
    #[inline]
    fn join(&self, woke_workers: bool) {
        // SAFETY: we wrote the target when we published; workers only read it.
        let target = self.dispatch.join_target.with(|target| unsafe { *target });
        let done = &self.done_line.done;
        self.env
            .wait_for_join(&self.waiter, done, target, woke_workers);
    }
}

/// Joins and hands back every team of a fork: on the normal path through
/// [`Joiner::finish`], which then resumes the first panic; and on drop if
/// share 0 unwinds (only possible where panics are not caught, without
/// `std`), so workers never outlive the closure they borrow.
struct Joiner<'a, R: Deref<Target = Team>> {
    lead: &'a Team,
    others: &'a [R],
    woke_workers: bool,
}

impl<R: Deref<Target = Team>> Joiner<'_, R> {
    /// Joins every team, takes its panics, and hands the teams back (the
    /// others first: only the lead is the lock). Always inlined: it is the
    /// fork's join, on every fork's path.
    #[inline(always)]
    fn join_all(&self) -> env::Panics {
        let mut panics = env::Panics::new();
        if self.others.is_empty() {
            // A plain fork: one team, without the loops' bookkeeping.
            self.lead.join(self.woke_workers);
            self.lead.env.take_panics(&mut panics);
            self.lead.hand_back();
            return panics;
        }
        self.join_all_spread(panics)
    }

    /// [`Joiner::join_all`] for a spread fork.
    #[inline(never)]
    fn join_all_spread(&self, mut panics: env::Panics) -> env::Panics {
        let teams = [self.lead]
            .into_iter()
            .chain(self.others.iter().map(|other| &**other));
        for team in teams {
            team.join(self.woke_workers);
            team.env.take_panics(&mut panics);
        }
        for other in self.others {
            other.hand_back();
        }
        self.lead.hand_back();
        panics
    }

    /// Joins and hands back, then drops the losing panic payloads (their
    /// `Drop` may call this very pool, which is free again by then) and
    /// resumes the first.
    #[inline]
    fn finish(self) {
        let panics = self.join_all();
        core::mem::forget(self);
        panics.finish();
    }
}

impl<R: Deref<Target = Team>> Drop for Joiner<'_, R> {
    fn drop(&mut self) {
        // Unwinding already: the payloads (none without `std`) are dropped.
        let _payloads = self.join_all();
    }
}
