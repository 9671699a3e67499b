//! The threads of a pool in rayon's model (`edge.rs`, [`Model::PoolRuns`]):
//! each stays in one region of the pool for the pool's whole life, a
//! [`Role::Resident`] worker at its own index, running whatever comes:
//! promoted jobs of any thread, its mail, queued calls and spawned jobs.
//!
//! # Why a standing region
//!
//! rayon's contract is that a pool's work runs on the pool's threads: a
//! call from outside waits while they run it; `broadcast` runs each index
//! on its own thread; `current_thread_index()` is unique to a thread and
//! below the pool's size; every closure sees what the start handler set
//! up. A region that the pool's threads never leave gives all of that with
//! tine's own parts: each thread has its slot and its mail for the pool's
//! life, calls come through the injector (`nest/inject.rs`), and a thread
//! that has nothing to do parks on the pool's doorbell, which every offer,
//! post, push and finished job rings. No thread is the team's dispatcher:
//! the pool's `Team` is never forked (its forks go through `edge.rs`).
//!
//! # The idle wait
//!
//! A thread that finds nothing spins for more before it parks, for a
//! budget that follows how often work comes ([`Pace`]): the whole spin
//! budget while work comes within it, halving down to a floor while it
//! comes rarer, so that a pool fed a small job now and then does not spin
//! after each.
//!
//! # Lifetime
//!
//! The pool's drop sets the nest's stop flag and rings. A thread leaves
//! once the pool stops with nothing queued, no popped job still running
//! and no spawned job pending (a running job may queue more, or offer work
//! this thread could take), closes its mail (running what is left), runs
//! its exit handler and ends. Each thread holds the team and the nest, so
//! a pool whose drop returned at once leaves them alive until the last
//! thread ends.
//!
//! [`Model::PoolRuns`]: super::edge::Model::PoolRuns

use super::pace::Pace;
use crate::nest::looks::Looks;
use crate::nest::worker::{Role, Worker};
use crate::nest::Nest;
use crate::team::{leave, Frame, Outer, Team};
use crate::threads::WorkerHandler;
use std::sync::Arc;

/// The body of resident thread `index` of the pool of `team` and `nest`:
/// the start handler, [`reside`], then the exit handler.
pub(crate) fn thread_body(
    team: Arc<Team>,
    nest: Arc<Nest>,
    index: usize,
    on_start: Option<WorkerHandler>,
    on_exit: Option<WorkerHandler>,
) -> impl FnOnce() + Send + 'static {
    move || {
        if let Some(on_start) = on_start {
            on_start(index);
        }
        reside(&team, &nest, index);
        if let Some(on_exit) = on_exit {
            on_exit(index);
        }
    }
}

/// Puts the thread's previous innermost frame back, unwinding included.
struct Left(Outer);

/// Resident thread `index`'s life in the pool's region (see the module
/// head).
fn reside(team: &Team, nest: &Nest, index: usize) {
    let frame = Frame::resident(team, index, nest.threads());
    let _left = Left(frame.enter());
    let worker = Worker::new(nest, index, Role::Resident);
    let _entered = worker.enter();
    let mut looks = Looks::new(nest.waiter());
    // The spin follows the work, unless the pool's policy is never to park.
    let mut pace = if nest.waiter().parks() {
        Pace::adapting(nest.waiter())
    } else {
        Pace::whole(nest.waiter())
    };
    let injector = &nest.injector;
    loop {
        if let Some(job) = looks.find(&worker) {
            pace.busy();
            // SAFETY: claimed by `find`.
            unsafe { looks.run(&worker, job) };
            continue;
        }
        if let Some(job) = injector.pop() {
            pace.arrived();
            // SAFETY: popped by this thread.
            unsafe { worker.run_injected(job) };
            looks.reset();
            continue;
        }
        // The pool was dropped, and nothing of its work is left.
        let may_leave = || nest.is_stopping() && injector.is_idle() && !injector.has_spawned();
        if may_leave() {
            break;
        }
        worker.ask_for_work();
        pace.emptied();
        // Once the pool is dropped, a job still running elsewhere rings as
        // it ends (`inject::run`): this thread sleeps until then.
        let ready = || worker.has_work() || may_leave();
        if looks.spin_at_most(pace.limit(), ready) {
            // Work came within the spin: spinning pays.
            pace.arrived();
            continue;
        }
        pace.missed();
        // The spin just ran: park at once.
        nest.bell()
            .wait(&nest.waiter().parking().spinning_at_most(0), ready, || {
                worker.ask_for_work()
            });
    }
    worker.close_mail();
}

impl Drop for Left {
    fn drop(&mut self) {
        leave(self.0);
    }
}
