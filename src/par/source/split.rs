//! rayon's recursive sources: [`split`] (data cut by a splitter) and the
//! tree walks [`walk_tree_prefix`], [`walk_tree_postfix`] and
//! [`walk_tree`].
//!
//! # How they run
//!
//! Both gather their items in a `Vec`, then spread them over the threads
//! as a `Vec` does (allocations per call, as for the standard
//! collections):
//!
//! - `split` cuts breadth first, piece by piece in order, until it has
//!   four pieces per thread of the current pool or the splitter declines
//!   every piece. rayon also splits only as far as its threads need, so a
//!   program may not count on pieces of any size, only on their order.
//! - A walk finds the nodes in parallel near the root: the children of a
//!   node in the top few levels (enough for about four subtrees per thread on a binary
//!   tree) are walked under
//!   [`crate::pool::join`] (halves of the list of children, recursively), each
//!   into a `Vec` of its own, concatenated in order; below, each subtree is
//!   walked depth first with a stack on one thread. So `children_of` runs on
//!   every thread (it may be the costly part: a directory walk), in prefix
//!   order (each node before its children, children in order) or postfix
//!   order, and the nodes then spread over the threads for the work on
//!   them.

use crate::par::iter::convert::IntoParallelIterator;
use crate::par::iter::par::Par;
use crate::par::producer::VecProducer;
use std::vec::Vec;

/// Pieces per thread that [`split`] aims for.
const PIECES_PER_THREAD: usize = 4;

/// The parallel iterator of [`split`] and the walks: their items,
/// gathered in order.
pub type Gathered<T> = Par<VecProducer<T>>;

/// What [`split`] may still do with a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// The splitter may cut it (it has not declined it yet).
    Open,
    /// Kept whole: the splitter declined it, or there are pieces enough.
    Whole,
}

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
    let target = PIECES_PER_THREAD.saturating_mul(crate::pool::current_num_threads());
    // Each piece, and whether the splitter may still cut it.
    let mut pieces: Vec<(D, Piece)> = Vec::with_capacity(target.saturating_mul(2).min(1 << 16));
    pieces.push((data, Piece::Open));
    let mut count = 1;
    while count < target {
        let mut cut = false;
        let mut next = Vec::with_capacity(pieces.len() * 2);
        for (piece, state) in pieces.drain(..) {
            if state == Piece::Whole || count >= target {
                next.push((piece, Piece::Whole));
                continue;
            }
            match splitter(piece) {
                (first, Some(second)) => {
                    next.push((first, Piece::Open));
                    next.push((second, Piece::Open));
                    count += 1;
                    cut = true;
                }
                (whole, None) => next.push((whole, Piece::Whole)),
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

/// The levels of a walk whose children are walked in parallel: enough for
/// about four subtrees per thread of the current pool on a binary tree.
fn parallel_levels() -> u32 {
    let threads = crate::pool::current_num_threads();
    if threads <= 1 {
        return 0;
    }
    usize::BITS - (threads - 1).leading_zeros() + 2
}

/// Which order a walk gives.
#[derive(Clone, Copy)]
enum Order {
    Prefix,
    Postfix,
}

/// Appends the subtree under `node` to `out` in `order`, on this thread.
fn walk_serial<T, B, I>(node: T, children_of: &B, order: Order, out: &mut Vec<T>)
where
    B: Fn(&T) -> I,
    I: IntoIterator<Item = T>,
    I::IntoIter: DoubleEndedIterator,
{
    let first = out.len();
    let mut stack = std::vec![node];
    while let Some(node) = stack.pop() {
        match order {
            // Children pushed last to first: the first is popped next.
            Order::Prefix => stack.extend(children_of(&node).into_iter().rev()),
            // Postfix order is the reverse of prefix order with the
            // children taken last to first.
            Order::Postfix => stack.extend(children_of(&node)),
        }
        out.push(node);
    }
    if let Order::Postfix = order {
        out[first..].reverse();
    }
}

/// The subtree under `node` in `order`, its children's subtrees walked in
/// parallel for `levels` more levels.
fn walk_node<T, B, I>(node: T, children_of: &B, order: Order, levels: u32) -> Vec<T>
where
    T: Send,
    B: Fn(&T) -> I + Sync,
    I: IntoIterator<Item = T>,
    I::IntoIter: DoubleEndedIterator,
{
    let mut out = Vec::new();
    if levels == 0 {
        walk_serial(node, children_of, order, &mut out);
        return out;
    }
    let children: Vec<T> = children_of(&node).into_iter().collect();
    if let Order::Prefix = order {
        out.push(node);
        out.append(&mut walk_children(children, children_of, order, levels - 1));
    } else {
        out = walk_children(children, children_of, order, levels - 1);
        out.push(node);
    }
    out
}

/// The subtrees under `children`, in order, the two halves of the list
/// walked under [`crate::pool::join`].
fn walk_children<T, B, I>(
    mut children: Vec<T>,
    children_of: &B,
    order: Order,
    levels: u32,
) -> Vec<T>
where
    T: Send,
    B: Fn(&T) -> I + Sync,
    I: IntoIterator<Item = T>,
    I::IntoIter: DoubleEndedIterator,
{
    match children.len() {
        0 => Vec::new(),
        1 => {
            let child = children.pop().expect("one child");
            walk_node(child, children_of, order, levels)
        }
        n => {
            let right = children.split_off(n / 2);
            let (mut left, mut right) = crate::pool::join(
                || walk_children(children, children_of, order, levels),
                || walk_children(right, children_of, order, levels),
            );
            left.append(&mut right);
            left
        }
    }
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
    walk_node(root, &children_of, Order::Prefix, parallel_levels()).into_par_iter()
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
    walk_node(root, &children_of, Order::Postfix, parallel_levels()).into_par_iter()
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
