//! `for_each`: the one consumer that goes on after a panic, as rayon's
//! does (`panic_fuse` aside), so that every other block still runs.

use super::run;
use crate::par::drive::consumer::Consumer;
use crate::par::iter::par::Par;
use crate::par::producer::Producer;

use crate::team::panic::{drop_payload, Payload};

/// `for_each`. A panic ends only the block it comes from (whose iterator
/// drops the block's other items as it unwinds): the partial keeps the
/// first payload, every other block still runs, as in rayon, and the
/// payload resumes on the caller after the join. With `panic_fuse`
/// (`fuse`), the panic goes through instead, and the driver stops the
/// other blocks.
struct ForEach<F> {
    f: F,
    fuse: bool,
}

impl<T, F: Fn(T) + Sync> Consumer<T> for ForEach<F> {
    type Acc = Option<Payload>;
    const SPLIT_FREE: bool = true;
    fn start(&self) -> Option<Payload> {
        None
    }
    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, _first: usize, items: I) -> Self::Acc {
        if self.fuse {
            items.for_each(&self.f);
            return acc;
        }
        // `items` moves in, so a panic drops the rest of the block with it.
        let run = std::panic::AssertUnwindSafe(|| items.for_each(&self.f));
        match std::panic::catch_unwind(run) {
            Ok(()) => acc,
            Err(payload) => Some(first_payload(acc, payload)),
        }
    }
    /// The only block: a panic has no other block to let run, so it goes
    /// through, with no `catch_unwind` around the loop.
    #[inline]
    fn fold_whole<I: Iterator<Item = T>>(&self, acc: Self::Acc, items: I) -> Self::Acc {
        items.for_each(&self.f);
        acc
    }
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc {
        match (left, right) {
            (Some(left), Some(right)) => Some(first_payload(Some(left), right)),
            (left, right) => left.or(right),
        }
    }
}

/// Keeps `first`'s payload if there is one, else `next`; the other is
/// dropped (`team::panic::drop_payload`: a `drop` that panics is caught).
#[cold]
fn first_payload(first: Option<Payload>, next: Payload) -> Payload {
    match first {
        Some(first) => {
            drop_payload(next);
            first
        }
        None => next,
    }
}

/// Runs `f` on every item of `par`; resumes the first panic after the
/// join.
#[inline]
pub(crate) fn for_each<P: Producer, F: Fn(P::Item) + Sync>(par: Par<P>, f: F) {
    let fuse = par.fused();
    if let Some(payload) = run(par, &ForEach { f, fuse }) {
        std::panic::resume_unwind(payload);
    }
}
