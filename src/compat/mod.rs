//! rayon's crate-root paths, so that a program written for rayon compiles
//! unchanged when its `Cargo.toml` says
//! `rayon = { package = "tine-rt", version = ".." }`.
//!
//! Most of rayon's surface is tine's own API under the same name
//! (`prelude`, `join`, `scope`, `ThreadPool::install`); this module holds
//! the rest, as thin layers over it: the builder ([`ThreadPoolBuilder`]),
//! the per-thread calls ([`broadcast`], [`current_thread_index`], which
//! live with the pool in `pool/broadcast.rs`), and the
//! module paths `iter` and `slice` that rayon programs import from.
//!
//! fork_union's `spawn(n)`, which spawns a pool, is `tine::spawn_pool(n)`;
//! `tine::spawn(f)` runs a detached job, as `rayon::spawn(f)` does.

mod builder;
mod paths;

pub use builder::{ThreadPoolBuildError, ThreadPoolBuilder};
pub use paths::{array, collections, option, range, range_inclusive, result, string, vec};

/// rayon's `rayon::iter`: the parallel-iterator traits, [`Either`] and
/// the adaptor types, for programs that import them by this path.
///
/// [`Either`]: iter::Either
pub mod iter {
    pub use super::paths::adaptor_types::*;
    pub use super::paths::Pair;
    pub use crate::par::{
        empty, once, repeat, repeat_n, repeatn, split, walk_tree, walk_tree_postfix,
        walk_tree_prefix, Empty, Once, Repeat, RepeatN,
    };
    pub use crate::par::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, IterBridge, ParallelBridge,
        ParallelDrainFull, ParallelDrainRange, ParallelExtend, ParallelIterator,
    };
    pub use either::Either;
}

/// rayon's `rayon::slice`: the parallel methods of slices.
pub mod slice {
    pub use super::paths::slice_types::*;
    pub use crate::par::{ParallelSlice, ParallelSliceMut};
}

/// rayon's `rayon::str`: the parallel methods of strings, and the
/// (sealed) trait of their patterns.
pub mod str {
    pub use crate::par::{ParallelString, Pattern};
}
