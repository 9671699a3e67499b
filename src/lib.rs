//! # tine: OpenMP-style fork-join for Rust
//!
//! A tine is one prong of a fork. This crate forks a closure onto a team of
//! threads and joins them, with the dispatch and join cost of a few cache-line
//! transfers: no heap allocation, no mutex, and no syscall on a hot fork (a
//! waiting thread calls `sched_yield` only after 50 µs, or when the thread
//! it waits for is queued on its own CPU). The thread that calls is thread 0 and does its share of the work.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! let pool = tine::ThreadPool::try_spawn(4)?; // the caller + 3 workers
//!
//! // Once per thread.
//! pool.for_threads(|thread_index, _colocation_index| {
//!     assert!(thread_index < 4);
//! });
//!
//! // Once per task, static schedule: tasks may borrow the caller's stack.
//! let data: Vec<u64> = (1..=1000).collect();
//! let sum = AtomicU64::new(0);
//! pool.for_n(data.len(), |prong| {
//!     sum.fetch_add(data[prong.task_index], Ordering::Relaxed);
//! });
//! assert_eq!(sum.load(Ordering::Relaxed), 500_500);
//!
//! // One contiguous range per thread.
//! pool.for_slices(data.len(), |first, count| {
//!     let _mine = &data[first.task_index..first.task_index + count];
//! });
//!
//! // Uneven tasks: claimed one at a time.
//! pool.for_n_dynamic(data.len(), |prong| {
//!     std::hint::black_box(prong.task_index);
//! });
//! # Ok::<(), tine::Error>(())
//! ```
//!
//! ## Layout
//! Layers, top to bottom; each imports only the layers below it.
//! - `compat/` (feature `std`): rayon's remaining crate-root paths
//!   ([`ThreadPoolBuilder`], [`broadcast`], [`current_thread_index`], the
//!   [`iter`](mod@iter) and [`slice`](mod@slice) modules), thin layers over the rest, so that
//!   `rayon = { package = "tine" }` ports a rayon program unchanged.
//! - `numa/` (feature `numa`): topology, pinned pools, a distributed pool
//!   with one team per NUMA node, and node-local memory.
//! - [`par`] and [`stream`] (feature `std`): the rayon-compatible parallel
//!   iterators (one fork per call, behind [`prelude`]), and ordered
//!   streaming of records in adaptive batches.
//! - `nest/` (feature `std`): [`join`], [`join_context`] and [`scope`],
//!   nested fork-join on a pool's own threads (one fork per region, jobs
//!   promoted on demand to per-thread slots, no lock). Its invariants are
//!   stated at the top of `nest/mod.rs`.
//! - `pool/` (feature `std`): [`ThreadPool`] and its [`Builder`], which
//!   spawn a team's workers.
//! - `schedule/`: [`ForkJoin`], the one fork primitive every pool type
//!   implements, and the schedules written once on top of it:
//!   [`ForkJoin::for_threads`], [`ForkJoin::for_n`],
//!   [`ForkJoin::for_slices`] (`split.rs`) and
//!   [`ForkJoin::for_n_dynamic`] (`dynamic.rs`).
//! - `team/`: [`Team`], the protocol. It owns no threads and works without
//!   `std`: an embedding runtime runs [`Team::run_worker`] on its own
//!   threads. Its invariants are stated once, at the top of `team/mod.rs`.
//! - `wait/`: spinning, then parking; [`arch`]: the micro-yields a waiting
//!   thread runs between polls; `sync.rs`: the atomics (loom's under
//!   `cfg(loom)`); `error.rs`: [`Error`].
//!
//! ## Guarantees
//! - Every call blocks until all shares have finished, so closures may
//!   borrow the caller's stack. Nothing is left running after a call
//!   returns, panics included.
//! - A panic in any share is caught (with `std`), the fork still joins, and
//!   the first payload resumes on the caller. The pool stays usable.
//! - A call from inside a task runs inline on the calling thread rather than
//!   deadlock (inside a [`join`] or [`scope`], a call on the same pool runs
//!   on the region's threads instead); calls from several threads are
//!   serialized.
//! - Bad arguments and OS refusals come back as [`Error`], never a panic.
//!
//! ## Features
//! - `std` (default): [`ThreadPool`], panic propagation, and OS yields in
//!   long waits. Without it the crate is `#![no_std]` and needs no allocator.
//! - `numa`: the `numa` module (topology, pinning, a distributed pool,
//!   node-local memory) through hwloc. Needs libhwloc-dev and libudev-dev.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn, missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "std")]
extern crate std;

// Layers, top to bottom; each imports only the ones below it.
pub mod arch;
#[cfg(feature = "std")]
mod compat;
mod error;
#[cfg(feature = "std")]
mod nest;
#[cfg(feature = "numa")]
pub mod numa;
#[cfg(feature = "std")]
pub mod par;
#[cfg(feature = "std")]
mod pool;
mod schedule;
#[cfg(feature = "std")]
pub mod stream;
mod sync;
mod team;
mod wait;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "std")]
pub use compat::{
    array, broadcast, collections, current_thread_index, iter, max_num_threads, option, range,
    range_inclusive, result, slice, str, vec, BroadcastContext, ThreadPoolBuildError,
    ThreadPoolBuilder,
};
pub use error::Error;
#[cfg(all(feature = "std", loom))]
#[doc(hidden)]
pub use nest::model as nest_model;
#[cfg(feature = "std")]
pub use nest::{
    in_place_scope, join, join_context, scope, yield_local, yield_now, FnContext, Scope, Yield,
};
#[cfg(feature = "std")]
pub use par::{current_num_threads, global, prelude};
#[cfg(feature = "std")]
pub use pool::{spawn, Builder, ThreadPool};
#[cfg(feature = "std")]
pub use schedule::Partials;
pub use schedule::{ForkJoin, Prong};
#[cfg(feature = "std")]
pub use team::DEFAULT_BUSY_WAIT;
pub use team::{Share, Team};
#[cfg(feature = "std")]
pub use wait::{WaitPolicy, DEFAULT_SPIN, OVERSUBSCRIBED_SPIN};
