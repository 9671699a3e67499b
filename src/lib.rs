//! # tine: OpenMP-style fork-join for Rust
//!
//! A tine is one prong of a fork. This crate forks a closure onto a team of
//! threads and joins them in about a cache-line round trip: the caller is
//! thread 0, idle threads wake on a generation counter, and the fork joins
//! through one atomic countdown, with no heap allocation, no mutex and no
//! syscall on a hot fork. On top of that one fork it offers rayon's API
//! (parallel iterators, `join`, `scope`, parallel sorts), ordered streaming
//! of records, NUMA-aware pools, and a `no_std` core that other runtimes
//! embed.
//!
//! The package is `tine-rt`; the library is `tine`, so code says
//! `use tine::...`. Until `tine-rt` is published, depend on a checkout:
//!
//! ```toml
//! [dependencies]
//! tine = { package = "tine-rt", path = "../tine" }
//! # once published: tine = { package = "tine-rt", version = "0.1" }
//! ```
//!
//! or run `cargo add --path ../tine --rename tine` (once published:
//! `cargo add tine-rt --rename tine`).
//!
//! ## A pool, and a flat loop on it, as in OpenMP and fork_union
//!
//! A [`ThreadPool`] runs a closure once per thread, once per task (static
//! or dynamic schedule) or once per contiguous range. Every call blocks
//! until all shares have finished, so closures borrow the caller's stack.
//! The methods are those of [`ForkJoin`], which every pool type implements;
//! a pool also has them as methods of its own, so they need no import.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! let pool = tine::ThreadPool::try_spawn(4)?; // the caller + 3 workers
//! let data: Vec<u64> = (1..=1000).collect();
//! let sum = AtomicU64::new(0);
//! pool.for_n(data.len(), |prong| {
//!     sum.fetch_add(data[prong.task_index], Ordering::Relaxed);
//! });
//! assert_eq!(sum.load(Ordering::Relaxed), 500_500);
//!
//! pool.for_threads(|thread_index, _colocation_index| assert!(thread_index < 4));
//! pool.for_slices(data.len(), |first, count| {
//!     let _mine = &data[first.task_index..first.task_index + count];
//! });
//! pool.for_n_dynamic(data.len(), |prong| {
//!     std::hint::black_box(prong.task_index);
//! });
//! # Ok::<(), tine::Error>(())
//! ```
//!
//! [`spawn_pool(n)`](spawn_pool) builds the same pool but panics, naming
//! the caller's line, where [`ThreadPool::try_spawn`] returns the error: for
//! examples and binaries that cannot handle it.
//!
//! ## Parallel iterators, as in rayon
//!
//! `use tine::prelude::*` brings rayon's traits: `par_iter`,
//! `into_par_iter`, `par_chunks`, `par_sort` and the adaptors and
//! consumers, with rayon's names and semantics ([`par`] has the full list
//! and what differs). Each call is one fork of the current pool, and a
//! call too small to be worth a fork runs on the caller alone.
//!
//! ```
//! use tine::prelude::*;
//!
//! let v: Vec<f64> = (0..10_000).map(f64::from).collect();
//! let sum_of_squares: f64 = v.par_iter().map(|x| x * x).sum();
//! assert_eq!(sum_of_squares, v.iter().map(|x| x * x).sum::<f64>());
//!
//! let mut words = vec!["fork", "join", "tine", "and"];
//! words.par_sort();
//! assert_eq!(words, ["and", "fork", "join", "tine"]);
//! ```
//!
//! Porting from rayon is one line in `Cargo.toml`, which keeps every
//! `use rayon::...` path:
//!
//! ```toml
//! [dependencies]
//! rayon = { package = "tine-rt", path = "../tine" } # was: rayon = "1"
//! # once published: rayon = { package = "tine-rt", version = "0.1" }
//! ```
//!
//! ## Nested fork-join: `join` and `scope`
//!
//! [`join`] and [`scope`] run on the pool's own threads, as rayon's do.
//! A `join` costs about a function call until an idle thread asks for
//! work; only then is its second closure offered.
//!
//! ```
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (a, b) = tine::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//! assert_eq!(fib(20), 6765);
//!
//! let mut halves = [0u64; 2];
//! let (low, high) = halves.split_at_mut(1);
//! tine::scope(|s| {
//!     s.spawn(|_| low[0] = (1..=50).sum());
//!     s.spawn(|_| high[0] = (51..=100).sum());
//! });
//! assert_eq!(halves[0] + halves[1], 5050);
//! ```
//!
//! ## Where to go next
//!
//! - [`prelude`], [`par`]: the parallel iterators, the rayon and OpenMP
//!   correspondence tables, the serial cutoff and schedules;
//!   [`iter`](mod@iter), [`slice`](mod@slice) and rayon's other module
//!   paths, for code ported from rayon.
//! - [`join`], [`join_context`], [`scope`], [`yield_now`]: nested fork-join.
//! - [`ThreadPool`], [`Builder`], [`global`], [`current_num_threads`]: pools
//!   and the global pool (`TINE_NUM_THREADS`); [`ThreadPoolBuilder`] and
//!   [`broadcast`] with rayon's names.
//! - [`stream`]: ordered streaming of records in adaptive batches, the
//!   engine of the `prun` command-line tool.
//! - `numa` (feature `numa`): topology, pinned pools, a pool with one team
//!   per NUMA node, node-local memory.
//! - [`Team`], [`arch`]: the `no_std` protocol, for a runtime that runs
//!   tine's worker loop on threads of its own; [`WaitPolicy`]: spinning,
//!   then parking.
//!
//! How the crate is built, layer by layer, is in `ARCHITECTURE.md` in the
//! repository; measurements against rayon, fork_union, OpenMP and others
//! are in `BENCHMARKS.md`.
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
//! - `std` (default): [`ThreadPool`], the parallel iterators, `join` and
//!   `scope`, streaming, panic propagation, and OS yields in long waits.
//!   Without it the crate is `#![no_std]` and needs no allocator: [`Team`]
//!   and [`ForkJoin`] remain.
//! - `numa`: the `numa` module (topology, pinning, a distributed pool,
//!   node-local memory) through hwloc. Needs libhwloc-dev and libudev-dev.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn, missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "std")]
extern crate std;

// The modules, in alphabetical order. Their layers, top to bottom, and the
// rule that each imports only the ones below it: ARCHITECTURE.md, checked
// by tests/layout.rs. This file only declares and re-exports.
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
#[cfg(feature = "std")]
mod threads;
mod wait;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "std")]
pub use compat::{
    array, collections, iter, option, range, range_inclusive, result, slice, str, string, vec,
    ThreadPoolBuildError, ThreadPoolBuilder,
};
pub use error::Error;
#[cfg(feature = "std")]
pub use nest::inject::task::Task;
#[cfg(all(feature = "std", loom))]
#[doc(hidden)]
pub use nest::model as nest_model;
#[cfg(feature = "std")]
pub use nest::{BroadcastContext, FnContext, Scope, SpawnOrder, Yield};
#[cfg(feature = "std")]
pub use par::prelude;
#[cfg(feature = "std")]
pub use pool::{
    block_on, broadcast, current_num_threads, current_thread_has_pending_tasks,
    current_thread_index, fork_thread_index, global, in_place_scope, join, join_context,
    max_num_threads, scope, set_global_builder, spawn, spawn_async, spawn_broadcast, spawn_fifo,
    spawn_future, spawn_pool, yield_local, yield_now, Builder, ThreadPool, ThreadStart,
};
#[cfg(feature = "std")]
pub use schedule::Partials;
pub use schedule::{ForkJoin, Prong};
#[cfg(feature = "std")]
pub use team::DEFAULT_BUSY_WAIT;
pub use team::{Share, Team};
#[cfg(feature = "std")]
pub use wait::{WaitPolicy, DEFAULT_SPIN, OVERSUBSCRIBED_SPIN};
