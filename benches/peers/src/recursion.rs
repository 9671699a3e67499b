//! The recursions of the nested fork-join examples (`nested`, `join_cost`):
//! a balanced binary tree of boxed nodes in two memory layouts, and `fib`
//! and the tree sum serially and, through [`recursions!`](crate::recursions),
//! straight over one backend's `join`.

/// A node of the balanced binary tree.
pub struct Node {
    /// The value the sums add.
    pub value: u64,
    /// The left subtree.
    pub left: Option<Box<Node>>,
    /// The right subtree.
    pub right: Option<Box<Node>>,
}

impl Node {
    /// A tree of `2^levels - 1` nodes, each allocated after its children
    /// (so its right subtree lies just below it in memory).
    pub fn tree(levels: u32) -> Option<Box<Node>> {
        (levels > 0).then(|| {
            Box::new(Node {
                value: u64::from(levels),
                left: Node::tree(levels - 1),
                right: Node::tree(levels - 1),
            })
        })
    }

    /// The same tree, each node allocated before its children (so its left
    /// subtree lies just above it in memory).
    pub fn tree_parents_first(levels: u32) -> Option<Box<Node>> {
        (levels > 0).then(|| {
            let mut node = Box::new(Node {
                value: u64::from(levels),
                left: None,
                right: None,
            });
            node.left = Node::tree_parents_first(levels - 1);
            node.right = Node::tree_parents_first(levels - 1);
            node
        })
    }
}

/// The serial baselines: plain recursion, which the compiler unrolls and
/// lays out as it likes.
pub fn fib_serial(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

/// The serial tree sum, left child first.
pub fn tree_sum_serial(node: &Node) -> u64 {
    let left = node.left.as_deref().map_or(0, tree_sum_serial);
    let right = node.right.as_deref().map_or(0, tree_sum_serial);
    node.value + left + right
}

/// `fib` and the tree sum written straight over one backend's `join`, as a
/// program writes them (chili's and rayon-demo's benchmarks too): the
/// closures capture what the recursion needs and nothing else. (Written
/// once over the `Join` trait instead, each closure also carried the
/// backend reference, which cost tine's and rayon's `join`, whose second
/// closure is stored in a job, a store per call: `fib(30)` on 1 thread
/// took 2.0x serial that way against 1.4x straight.)
#[macro_export]
macro_rules! recursions {
    ($fib:ident, $tree:ident, $join:path) => {
        fn $fib(n: u32) -> u64 {
            if n < 2 {
                return u64::from(n);
            }
            let (a, b) = $join(|| $fib(n - 1), || $fib(n - 2));
            a + b
        }

        fn $tree(node: &$crate::recursion::Node) -> u64 {
            let (left, right) = $join(
                || node.left.as_deref().map_or(0, $tree),
                || node.right.as_deref().map_or(0, $tree),
            );
            node.value + left + right
        }
    };
}
