//! rayon's recursive sources: [`split`] (data cut by a splitter) and the
//! tree walks [`walk_tree_prefix`], [`walk_tree_postfix`] and
//! [`walk_tree`].
//!
//! # How they run
//!
//! Both make their items on the caller, then spread them over the threads
//! as a `Vec` does (one allocation per call, as for the standard
//! collections):
//!
//! - `split` cuts breadth first, piece by piece in order, until it has
//!   four pieces per thread of the current pool or the splitter declines
//!   every piece. rayon also splits only as far as its threads need, so a
//!   program may not count on pieces of any size, only on their order.
//! - A walk visits the tree depth first with a stack: prefix order (each
//!   node before its children, children in order) or postfix order. Only
//!   the walk itself is serial; the work on each node runs in parallel.
//!   Where finding the children is the expensive part (a directory walk),
//!   spawn the recursion in a [`crate::scope`] instead.

use super::iter::{IntoParallelIterator, Par};
use super::producer::VecProducer;
use std::vec::Vec;

/// Pieces per thread that [`split`] aims for.
const PIECES_PER_THREAD: usize = 4;

/// The parallel iterator of [`split`] and the walks: their items,
/// gathered in order.
pub type Gathered<T> = Par<VecProducer<T>>;

/// The pieces of `data` that `splitter` cuts it into, in order, as
/// rayon's `rayon::iter::split`: `splitter` returns the first part and,
/// if it cut, the second.
///
/// ```
/// use tine::prelude::*;
///
/// let pieces = tine::iter::split(0..1000u32, |r| {
///     if r.len() < 100 {
///         return (r, None);
///     }
///     let mid = r.start + r.len() as u32 / 2;
///     (r.start..mid, Some(mid..r.end))
/// });
/// let total: u32 = pieces.map(|r| r.sum::<u32>()).sum();
/// assert_eq!(total, (0..1000).sum());
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Gathered<D>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    let target = PIECES_PER_THREAD.saturating_mul(super::current_num_threads());
    // Each piece, and whether the splitter may still cut it.
    let mut pieces: Vec<(D, bool)> = Vec::with_capacity(target.saturating_mul(2).min(1 << 16));
    pieces.push((data, true));
    let mut count = 1;
    while count < target {
        let mut cut = false;
        let mut next = Vec::with_capacity(pieces.len() * 2);
        for (piece, splittable) in pieces.drain(..) {
            if !splittable || count >= target {
                next.push((piece, false));
                continue;
            }
            match splitter(piece) {
                (first, Some(second)) => {
                    next.push((first, true));
                    next.push((second, true));
                    count += 1;
                    cut = true;
                }
                (whole, None) => next.push((whole, false)),
            }
        }
        pieces = next;
        if !cut {
            break;
        }
    }
    pieces
        .into_iter()
        .map(|(piece, _)| piece)
        .collect::<Vec<D>>()
        .into_par_iter()
}

/// Every node of the tree under `root`, in prefix order (each node before
/// its children, children in order), as rayon's `walk_tree_prefix`.
///
/// ```
/// use tine::prelude::*;
///
/// // The tree of 1: children 2n and 2n + 1 below 8.
/// let kids = |&n: &u32| (2 * n..2 * n + 2).filter(|&c| c < 8);
/// let nodes: Vec<u32> = tine::iter::walk_tree_prefix(1, kids).collect();
/// assert_eq!(nodes, [1, 2, 4, 5, 3, 6, 7]);
/// ```
pub fn walk_tree_prefix<T, B, I>(root: T, children_of: B) -> Gathered<T>
where
    T: Send,
    B: Fn(&T) -> I + Send + Sync,
    I: IntoIterator<Item = T>,
    I::IntoIter: DoubleEndedIterator,
{
    let mut nodes = Vec::new();
    let mut stack = std::vec![root];
    while let Some(node) = stack.pop() {
        // Children pushed last to first: the first is popped next.
        stack.extend(children_of(&node).into_iter().rev());
        nodes.push(node);
    }
    nodes.into_par_iter()
}

/// Every node of the tree under `root`, in postfix order (each node after
/// its children, children in order), as rayon's `walk_tree_postfix`.
///
/// ```
/// use tine::prelude::*;
///
/// let kids = |&n: &u32| (2 * n..2 * n + 2).filter(|&c| c < 8);
/// let nodes: Vec<u32> = tine::iter::walk_tree_postfix(1, kids).collect();
/// assert_eq!(nodes, [4, 5, 2, 6, 7, 3, 1]);
/// ```
pub fn walk_tree_postfix<T, B, I>(root: T, children_of: B) -> Gathered<T>
where
    T: Send,
    B: Fn(&T) -> I + Send + Sync,
    I: IntoIterator<Item = T>,
    I::IntoIter: DoubleEndedIterator,
{
    // Postfix order is the reverse of prefix order with the children taken
    // last to first.
    let mut nodes = Vec::new();
    let mut stack = std::vec![root];
    while let Some(node) = stack.pop() {
        stack.extend(children_of(&node));
        nodes.push(node);
    }
    nodes.reverse();
    nodes.into_par_iter()
}

/// Every node of the tree under `root`, in an unspecified order, as
/// rayon's `walk_tree` (here: prefix order).
pub fn walk_tree<T, B, I>(root: T, children_of: B) -> Gathered<T>
where
    T: Send,
    B: Fn(&T) -> I + Send + Sync,
    I: IntoIterator<Item = T>,
    I::IntoIter: DoubleEndedIterator,
{
    walk_tree_prefix(root, children_of)
}
