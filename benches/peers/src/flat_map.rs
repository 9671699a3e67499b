//! The `flat_map` workload of the `par` example: the same expression
//! under each crate's prelude. Each function returns the items' sum (and
//! 0), or collects them into a `Vec` and returns its sum and length.

/// Outer items; item `i` has a parallel range of `(i * 7919) % 1001` inner
/// items.
pub const OUTER: usize = 10_000;

fn inner(i: usize) -> usize {
    (i * 7919) % 1001
}

fn item(i: usize, j: usize) -> u64 {
    ((i as u64) << 10) ^ j as u64
}

fn totals(items: Vec<u64>) -> (u64, usize) {
    (items.iter().sum(), items.len())
}

/// The serial loop.
pub fn serial(collect: bool) -> (u64, usize) {
    let items = || (0..OUTER).flat_map(|i| (0..inner(i)).map(move |j| item(i, j)));
    if collect {
        totals(items().collect())
    } else {
        (items().sum(), 0)
    }
}

/// One function per crate: the same expression, with that crate's prelude
/// in scope, so the two cannot drift apart.
macro_rules! parallel {
    ($(#[$doc:meta])* $name:ident, $($prelude:ident)::+) => {
        $(#[$doc])*
        pub fn $name(collect: bool) -> (u64, usize) {
            use $($prelude)::+::*;
            let items = || {
                (0..OUTER)
                    .into_par_iter()
                    .flat_map(|i| (0..inner(i)).into_par_iter().map(move |j| item(i, j)))
            };
            if collect {
                totals(items().collect())
            } else {
                (items().sum(), 0)
            }
        }
    };
}

parallel!(
    /// Under tine's prelude.
    tine,
    tine::prelude
);
parallel!(
    /// Under rayon's prelude.
    rayon,
    rayon::prelude
);
