//! Parallel iterators with rayon's names: change `use rayon::prelude::*;`
//! to `use tine::prelude::*;`.
//!
//! ```
//! use tine::prelude::*;
//!
//! let v: Vec<f64> = (0..10_000).map(f64::from).collect();
//! let sum_of_squares: f64 = v.par_iter().map(|x| x * x).sum();
//! let evens: Vec<u32> = (0..100u32).into_par_iter().filter(|x| x % 2 == 0).collect();
//! assert_eq!(evens.len(), 50);
//! assert!(sum_of_squares > 0.0);
//! ```
//!
//! # Execution model
//!
//! Each call is at most **one fork** of a pool. Every thread runs its
//! share as a plain serial loop over the underlying slice or range (the
//! `std::iter` adaptors, so LLVM sees an ordinary loop), folding into one
//! partial per thread; the partials go to slots the pool owns and combine
//! **in thread order**. Nothing is allocated per call, except by `collect`
//! (its output, once, with the exact length when it is known; per-thread
//! buffers after a `filter`) and by user code (`fold`'s identity values).
//!
//! **Reproducible floats.** With [`Schedule::Static`] (the default), a
//! fixed thread count and a fixed length, the ranges and blocks each
//! thread folds are fixed, so a float `sum` or `reduce` gives the same
//! bits on every run, whether or not the call forked (rayon's do not:
//! rayon issue #663). Dynamic and guided schedules hand out work by timing,
//! so their float results may differ in the last bits, as OpenMP's and
//! rayon's do.
//!
//! **Serial cutoff.** A call too small to pay for a fork runs on the caller
//! alone, with no fork and no syscall: the caller starts on its own share
//! and forks only once the work left is estimated to be worth it (the
//! rule, with its constants, is in [`cutoff`]). So `par_iter()` is never
//! much slower than the loop it replaces, and tiny calls from a hot loop
//! pay almost nothing.
//!
//! **Which pool.** A call runs on the pool given with
//! [`ParallelIterator::with_pool`], else on the pool that
//! [`crate::pool::ThreadPool::install`] made current on this thread, else on the
//! global pool ([`crate::pool::global`], sized by `TINE_NUM_THREADS`). A call
//! made inside a [`crate::pool::join`] or [`crate::pool::scope`] on its pool (in a
//! branch, a spawned task, or an item of such a call) splits its threads'
//! shares through `join`, so the region's idle threads take them. A call
//! made from inside a task of a plain fork runs inline on its thread, as
//! every nested call does.
//!
//! **Panics and early stop.** A panic in any item reaches the caller with
//! its payload after every thread has stopped; the pool stays usable.
//! `any`, `all`, `find_*`, `position_*` and `try_*` stop handing out work
//! once the answer is known: threads check a shared flag (or a bound that
//! only goes down) between blocks of at most [`drive::STOP_BLOCK`]
//! positions. `find_first`, `position_first`, `try_for_each` and
//! `try_reduce` return the answer of the lowest position. Items owned by
//! the iterator (`Vec::into_par_iter`) that a call never reaches are
//! dropped, exactly once.
//!
//! # Coming from rayon
//!
//! | rayon | tine |
//! |---|---|
//! | `use rayon::prelude::*` | `use tine::prelude::*` |
//! | `v.par_iter()`, `par_iter_mut()`, `into_par_iter()` on `Vec`, slices and integer ranges | same |
//! | the same on `HashMap`, `HashSet`, `BTreeMap`, `BTreeSet`, `VecDeque`, `LinkedList`, `BinaryHeap` | same; the items (or references) are gathered into a `Vec` first, one allocation per call, as rayon does for these |
//! | `par_chunks(k)`, `par_chunks_mut(k)` | same (`k == 0` panics with rayon's message) |
//! | `rayon::iter::split(data, splitter)`, `walk_tree_prefix`, `walk_tree_postfix`, `walk_tree` | same, in the same order; `split` cuts on the caller (breadth first, up to four pieces per thread); a walk finds the nodes near the root under `join`, deeper ones depth first on one thread each; the items then spread over the threads |
//! | `rayon::iter::{empty, once, repeat, repeat_n}`; `into_par_iter` on `Option`, `Result` (its `Ok` value) and arrays (owned, `&`, `&mut`) | same, with no allocation (the owned items are held inline) |
//! | `rayon::vec::IntoIter`, `rayon::range::Iter`, `rayon::option::*`, `rayon::result::*`, `rayon::array::IntoIter`, `rayon::collections::*::*`, `rayon::slice::{Iter, Chunks, Windows, ...}` | the same paths ([`crate::compat::vec`], [`crate::compat::collections`], ...), aliases of the one type, [`Par`] |
//! | `map`, `map_init`, `map_with`, `inspect`, `filter`, `filter_map`, `flat_map_iter`, `enumerate`, `zip`, `chain`, `skip`, `take`, `copied`, `cloned`, `with_min_len`, `with_max_len` | same (`skip` and `take` on indexed iterators, as in rayon) |
//! | `rev`, `step_by`, `chunks`, `fold_chunks`, `fold_chunks_with`, `positions`, `interleave`, `interleave_shortest`, `unzip_into_vecs` (indexed iterators) | same (a chunk size of 0 panics with rayon's message, a step of 0 as rayon's does); `rev` fetches each item from its position on its own ([`Rev`]) |
//! | `update`, `try_fold`, `try_fold_with`, `take_any`, `skip_any` | same, on every iterator; `take_any`/`skip_any` count items with one atomic per call |
//! | `by_exponential_blocks`, `by_uniform_blocks(n)` | accepted, the iterator unchanged: tine's driver already runs each call in blocks (growing ones on the caller, at most [`drive::STOP_BLOCK`] between checks for an early stop) |
//! | `flat_map(f)` with `f` returning a parallel iterator, `flatten`, `flatten_iter` | same; one fork runs the outer items, and each inner parallel iterator runs serially on its outer item's thread ([`Serial`]) |
//! | `for_each`, `sum`, `product`, `reduce`, `fold(..).reduce/sum/collect`, `min`, `max`, `min_by(_key)`, `max_by(_key)`, `count`, `any`, `all`, `find_any`, `find_first`, `position_any`, `position_first`, `collect::<Vec<_>>()`, `collect_into_vec`, `try_for_each`, `try_reduce` | same; `try_*` and `find_first` return the lowest position's answer |
//! | `collect` into `HashMap`, `HashSet`, `BTreeMap`, `BTreeSet`, `VecDeque`, `LinkedList`, `BinaryHeap`, `String`, `Result<C, E>`, `Option<C>`, `()`; `par_extend`; `partition`, `unzip` | same (`ParallelExtend` is in the prelude); items arrive in input order, so a map keeps the last of equal keys as a serial `collect` does |
//! | `partition_map` with `rayon::iter::Either` | same, with [`crate::compat::iter::Either`] (the `either` crate's, as rayon re-exports it) |
//! | `par_drain(range)` on `Vec`, `VecDeque`, `String` ([`ParallelDrainRange`]); `par_drain()` on `BinaryHeap`, `HashMap`, `HashSet` ([`ParallelDrainFull`]) | same, with rayon's drop guarantees: the whole range is removed when the iterator drops, the rest dropped once; `Vec` and `VecDeque` drain in place, the hashed ones are gathered into a `Vec` first |
//! | `par_windows`, `par_chunks_exact(_mut)`, `par_rchunks(_mut)`, `par_rchunks_exact(_mut)` | same (a size of 0 panics with rayon's message) |
//! | `par_chars`, `par_char_indices`, `par_bytes`, `par_encode_utf16`, `par_split`, `par_split_inclusive`, `par_split_terminator`, `par_lines`, `par_split_whitespace`, `par_split_ascii_whitespace`, `par_matches`, `par_match_indices` on `&str` ([`ParallelString`], also `tine::str`), with a `char`, `[char; N]`, `&[char]` or `Fn(char) -> bool` pattern | same: `std`'s result in `std`'s order, no allocation per call ([`Pattern`]) |
//! | `par_split(f)`, `par_split_inclusive(f)` on slices; `par_split_mut(f)`, `par_split_inclusive_mut(f)` | same; the mutable ones find the separators first, in one parallel pass, into one `Vec` |
//! | `ThreadPoolBuilder::new().num_threads(n).build()`, `build_global()` | same ([`crate::compat::ThreadPoolBuilder`]); tine's own is `tine::ThreadPool::builder().threads(n).build()` |
//! | `rayon::broadcast`, `current_thread_index`, `max_num_threads`, `pool.broadcast` | same ([`crate::pool::broadcast`]); `current_thread_index` is `Some(0)` outside every fork: the caller is thread 0 |
//! | `pool.install(\|\| ..)`, `rayon::current_num_threads()` | `pool.install(\|\| ..)`, `tine::current_num_threads()` |
//! | `RAYON_NUM_THREADS` | `TINE_NUM_THREADS`, else `RAYON_NUM_THREADS` |
//! | — | `.schedule(Schedule::Dynamic { grain })`, `.schedule(Schedule::Guided { min })`, `.with_pool(&pool)` |
//! | `rayon::join`, `rayon::join_context`, `rayon::scope`, `pool.join`, `pool.scope` | same: [`crate::pool::join`], [`crate::pool::join_context`], [`crate::pool::scope`], [`crate::pool::ThreadPool::join`], [`crate::pool::ThreadPool::scope`], on the pool's own threads |
//! | `rayon::in_place_scope`, `rayon::yield_now`, `rayon::yield_local`, `pool.in_place_scope` | same ([`crate::pool::in_place_scope`], [`crate::pool::yield_now`]): a scope always runs its `op` on the caller; a yield runs one pending task of the current region |
//! | `rayon::spawn`, `rayon::spawn_fifo`, `pool.spawn`, `pool.spawn_fifo` (detached, `'static`) | same ([`crate::pool::spawn`]): run on the pool's serving thread and idle threads; the pool drops after them; a panic goes to the `panic_handler`, else aborts |
//! | `iter.par_bridge()` | same ([`ParallelBridge`]): threads pull batches under one lock per batch (rayon: one per item); results in unspecified order, as rayon's. For input order, `pool.map_ordered(iter, f)` (`crate::stream`) |
//! | `par_sort`, `par_sort_by`, `par_sort_by_key`, `par_sort_by_cached_key`, `par_sort_unstable`, `par_sort_unstable_by`, `par_sort_unstable_by_key` | same ([`ParallelSliceMut`]): a parallel merge sort (stable) and a parallel quicksort (unstable) on [`crate::pool::join`] |
//!
//! A program keeps its `rayon::` paths if its `Cargo.toml` renames the
//! dependency: `rayon = { package = "tine-rt", version = "0.1" }`.
//!
//! # What differs from rayon
//!
//! Each difference is on purpose; the reason follows it.
//!
//! - `current_thread_index()` is `Some(0)` on a thread outside every fork
//!   (rayon: `None`): a closure that a small call runs on its caller alone
//!   sees a valid index.
//! - `install` runs its closure on the calling thread (rayon: on a
//!   worker; [`ThreadPool::enter`](crate::pool::ThreadPool::enter) is
//!   rayon's): a tine caller is thread 0 of the pool it calls, unless the
//!   pool is built with `caller_runs(false)`.
//! - A pool from rayon's builder with only a thread count is a tine pool,
//!   its caller thread 0: a call from outside needs no hand-off. Set a
//!   thread name, stack size, start or exit handler, and the pool runs in
//!   rayon's model, every closure on a thread it started
//!   ([`crate::compat::ThreadPoolBuilder`]); `use_current_thread` keeps
//!   tine's model whatever is set.
//! - Not offered, each a compile error: the builder's `spawn_handler`,
//!   `breadth_first` and `build_scoped` (the `rayon-core` crate in this
//!   repository has them, for the real rayon). `tine::spawn_pool(n)`
//!   spawns a pool (fork_union's `spawn(n)`); `tine::spawn(f)` is rayon's.
//! - The inner parallel iterator of a `flat_map` or `flatten` runs serially
//!   on its outer item's thread: one fork runs the outer items, so split the
//!   outer side finer. A search that stops early (`find_any`, `any`,
//!   `try_for_each`, ...) forks at once over such a `flat_map` and stops
//!   inside the inner walks, but one whose answer lies only near the end of
//!   an outer item's inner iterator walks that iterator from its start.
//! - A panic in `for_each` ends its own block (at most `with_max_len`
//!   items), and every other block still runs, as in rayon; any other
//!   consumer, whose result is lost, stops its other blocks, as
//!   `panic_fuse` does: the first panic resumes on the caller once the
//!   fork has joined.
//! - `intersperse` over an iterator whose positions may yield no item or
//!   several (after `filter`, `flat_map`, a bridge) gathers its items into a
//!   `Vec` first: one range cannot tell where the first item is.
//! - `u128` and `i128` ranges are not indexed, as in rayon, and may be
//!   longer than `usize::MAX`: each position is then a run of values, so an
//!   unordered search (`find_any`) over `0..10^27` ends where a thread's
//!   static range starts past the answer, as rayon's ends where a split
//!   does.
//! - A `flat_map` whose closure returns a parallel iterator walks that
//!   inner iterator serially on the thread of its outer item (rayon may
//!   split it further). A search that stops early ends inside the inner
//!   walks; `find_last` searches each inner iterator from its end; and a
//!   `fold` under a search hands on a partial every 1024 items of such a
//!   walk, as rayon's folds, one per split, let its searches end.
//! - No `rayon::iter::plumbing` (`Producer`, `Consumer`, `bridge`): tine's
//!   producers have a contract of their own (`Producer`, with positions
//!   handed out once), so a crate that builds its own parallel iterators on
//!   rayon's plumbing needs the real rayon.
//!
//! CI runs rayon 1.12's own `tests/` directory against tine under the name
//! `rayon` (`scripts/rayon-tests.sh`); the files it does not pass yet are
//! the differences above.
//!
//! Alike, for the record: `with_min_len` keeps rayon's guarantee (no piece
//! shorter than `min`; `min` wins over `max`), and `par_bridge` gives
//! rayon's unspecified order, pulling batches of up to 256 items under one
//! lock per batch where rayon takes one per item.
//!
//! # Coming from OpenMP
//!
//! | OpenMP | tine |
//! |---|---|
//! | `#pragma omp parallel` | `pool.for_threads(\|thread_index, _\| ..)`: once on every thread, the caller as thread 0 |
//! | `#pragma omp parallel for schedule(static)` | `(0..n).into_par_iter().for_each(..)`, or `pool.for_n(n, ..)` |
//! | `schedule(dynamic, k)` | `.schedule(Schedule::Dynamic { grain: k })`, or `pool.for_n_dynamic_grain(n, k, ..)` |
//! | `schedule(guided, k)` | `.schedule(Schedule::Guided { min: k })`, or `pool.for_n_guided(n, k, ..)` |
//! | `reduction(+:x)` | `.sum()`, or `.reduce(\|\| 0, \|a, b\| a + b)`: per-thread partials combined in thread order |
//! | `#pragma omp cancel for` | `any`, `find_*`, `try_for_each`: the call stops handing out work |
//! | `omp_get_num_threads()` | `tine::current_num_threads()` |
//! | `OMP_NUM_THREADS` | `TINE_NUM_THREADS` (the global pool) |

pub mod bridge;
pub mod cutoff;
pub mod drive;
mod iter;
mod producer;
mod settings;
mod sort;
pub(crate) mod source;
mod targets;

pub use crate::pool::current::{current_num_threads, global, THREADS_VAR};
pub use bridge::{IterBridge, ParallelBridge};
pub use iter::adaptor::any_while::{AnyWhile, AnyWhileIter, WhileKind, WhileSome, WhileSomeIter};
pub use iter::adaptor::chunking::{Chunks, ChunksIter, FoldChunks, FoldChunksIter, FoldChunksWith};
pub use iter::adaptor::flatten::{FlatMap, FlatMapItems};
pub use iter::adaptor::intersperse::{Intersperse, IntersperseIter};
pub use iter::adaptor::items::{
    AnyN, AnyNIter, Positions, PositionsIter, TryFold, TryFoldIter, TryFoldWith, Update, UpdateIter,
};
pub use iter::adaptor::order::{Interleave, InterleaveIter, Rev, RevIter, StepBy};
pub use iter::adaptor::reshape::{Cloned, Copied, Fold, FoldIter, Pooled, Zip};
pub use iter::adaptor::serial::Serial;
pub use iter::adaptor::slicing::{Chain, ChainIter, Window};
pub use iter::adaptor::{
    CloneOf, Enumerate, Filter, FilterMap, FlatMapIter, Inspect, MakeState, Map, MapInit,
    MapInitIter, MapWith,
};
pub use iter::convert::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, Try,
};
pub use iter::extend::ParallelExtend;
pub use iter::indexed::IndexedParallelIterator;
pub use iter::par::Par;
pub use iter::ParallelIterator;
pub use producer::{
    ChunksMutProducer, ChunksProducer, Indexed, Producer, SliceMutProducer, SliceProducer,
    VecProducer, VecRange,
};
pub use settings::Schedule;
pub use source::chunk_by::{ChunkByProducer, ChunkByRange};
pub use source::drain::{
    ParallelDrainFull, ParallelDrainRange, StringDrainProducer, VecDrainProducer,
};
pub use source::drain_collections::TakenDrainProducer;
pub use source::pattern::Pattern;
pub use source::range::{RangeEnd, RangeInteger, RangeIter, RangeProducer, StepProducer};
pub use source::slice::ParallelSlice;
pub use source::slice_split::{SlicePieces, SliceSplitProducer, SplitMutProducer, SplitMutRange};
pub use source::slices::{
    ChunksExactMutProducer, ChunksExactProducer, RChunksExactMutProducer, RChunksExactProducer,
    RChunksMutProducer, RChunksProducer, WindowsProducer,
};
pub use source::small::{
    empty, once, repeat, repeat_n, repeatn, Clones, Empty, InlineProducer, Once, Repeat, RepeatN,
    RepeatProducer,
};
pub use source::split::{split, walk_tree, walk_tree_postfix, walk_tree_prefix, Gathered};
pub use source::str_split::{StrPieces, StrSplitProducer};
pub use source::strings::{
    BytesProducer, CharIndicesFrom, CharIndicesProducer, CharsProducer, EncodeUtf16Producer,
    MatchIndicesProducer, MatchIndicesRange, MatchesProducer, MatchesRange, ParallelString,
    SplitWhitespace,
};
pub use source::wide_range::{WideInteger, WideIter, WideRangeProducer};
pub use source::ParallelSliceMut;

/// The traits to import: `use tine::prelude::*;` in place of
/// `use rayon::prelude::*;`.
pub mod prelude {
    pub use super::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut,
        ParallelString,
    };
}
