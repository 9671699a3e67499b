//! The cost of a `join`, for checking a change to `src/nest/` against the
//! commit before it (build each side in its own worktree, run them in
//! turns): `fib(30)` with a `join` at every level and the sum of a
//! 1,023-node tree, each serially, on a 1-thread pool and on a 2-thread
//! pool, an empty region (an `install` of one `join` of two empty
//! closures), and the tree walked by the caller inside a region whose other
//! thread is busy (every `join` takes the region's path and none is stolen:
//! the region join's own cost per node, with no cache-line transfers), in
//! `JOIN_ROUNDS` rounds (default 3). A cell is the median of 9 batches of
//! at least 200 µs, with its ratio to the serial cell of its workload in
//! the same round (the last row prints nanoseconds a node instead).
//!
//! ```text
//! cargo run --release -p tine-peers --example join_cost
//! ```
//!
//! `JOIN_COUNT=MODE:N` instead runs `fib(N)` once in MODE (`serial`, `one`
//! for the 1-thread pool, `two` for the 2-thread pool), for an instruction
//! counter: the count of `fib(22)` minus that of `fib(20)`, over the 17,711
//! joins between them, is the cost of one join and one level of `fib`
//! (callgrind, `--separate-threads=yes`, the main thread's file):
//!
//! ```text
//! JOIN_COUNT=two:22 valgrind --tool=callgrind --separate-threads=yes \
//!     target/release/examples/join_cost
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tine_peers::recursion::{fib_serial, tree_sum_serial, Node};
use tine_peers::recursions;
use tine_peers::timing::median_seconds;

recursions!(fib_tine, tree_tine, tine::join);

fn main() {
    let one = tine::ThreadPool::try_spawn(1).expect("a 1-thread pool");
    let two = tine::ThreadPool::try_spawn(2).expect("a 2-thread pool");
    if let Ok(count) = std::env::var("JOIN_COUNT") {
        let (mode, n) = count
            .split_once(':')
            .expect("JOIN_COUNT=MODE:N, MODE one of serial, one, two");
        let n: u32 = n.parse().expect("JOIN_COUNT: N a small integer");
        let sum = match mode {
            "serial" => fib_serial(black_box(n)),
            "one" => one.install(|| fib_tine(black_box(n))),
            "two" => two.install(|| fib_tine(black_box(n))),
            other => panic!("JOIN_COUNT mode {other:?}: expected serial, one or two"),
        };
        // Not checked here: a serial `fib` would add to the count.
        black_box(sum);
        return;
    }
    let rounds: usize = std::env::var("JOIN_ROUNDS")
        .ok()
        .map(|v| v.parse().expect("JOIN_ROUNDS: a positive integer"))
        .unwrap_or(3);
    let root = Node::tree(10).expect("a tree");
    let expected_tree = tree_sum_serial(&root);
    let expected_fib = fib_serial(30);
    let warm = Duration::from_millis(50);
    let time = |call: &mut dyn FnMut()| median_seconds(9, warm, call);
    for round in 1..=rounds {
        let fib = [
            time(&mut || {
                black_box(fib_serial(black_box(30)));
            }),
            time(&mut || assert_eq!(one.install(|| fib_tine(black_box(30))), expected_fib)),
            time(&mut || assert_eq!(two.install(|| fib_tine(black_box(30))), expected_fib)),
        ];
        let sum = [
            time(&mut || {
                black_box(tree_sum_serial(black_box(&root)));
            }),
            time(&mut || assert_eq!(one.install(|| tree_tine(black_box(&root))), expected_tree)),
            time(&mut || assert_eq!(two.install(|| tree_tine(black_box(&root))), expected_tree)),
        ];
        let empty = time(&mut || {
            black_box(two.install(|| tine::join(|| black_box(1), || black_box(2))));
        });
        let in_region = tree_in_a_region(&two, &root, expected_tree);
        let cells = |name: &str, cells: [f64; 3], unit: f64, label: &str| {
            println!(
                "round {round} {name:10} serial {:8.3} {label} | 1 thread {:8.3} {label} ({:.2}x) | 2 threads {:8.3} {label} ({:.2}x)",
                cells[0] * unit,
                cells[1] * unit,
                cells[1] / cells[0],
                cells[2] * unit,
                cells[2] / cells[0],
            );
        };
        cells("fib(30)", fib, 1e3, "ms");
        cells("tree 1023", sum, 1e6, "µs");
        println!(
            "round {round} empty region (2 threads) {:.3} µs",
            empty * 1e6
        );
        println!(
            "round {round} tree 1023 in a region, no steals: {:.2} ns a node (serial {:.2}, 1 thread {:.2})",
            in_region * 1e9 / 1023.0,
            sum[0] * 1e9 / 1023.0,
            sum[1] * 1e9 / 1023.0,
        );
    }
}

/// The tree sum walked by the caller inside a region of `two` whose other
/// thread is busy (it runs the root join's `b`, which waits for the walks
/// to end), so every `join` takes the region's path and none is stolen:
/// the region join's own cost, with no cache-line transfers.
fn tree_in_a_region(two: &tine::ThreadPool, root: &Node, expected: u64) -> f64 {
    /// Tells `b` the walks are over, also if one panics (else the join
    /// would wait forever for a `b` that waits for the walks).
    struct Walked<'a>(&'a AtomicBool);
    impl Drop for Walked<'_> {
        fn drop(&mut self) {
            // Release: pairs with the Acquire load in `b`.
            self.0.store(true, Ordering::Release);
        }
    }
    let walked = AtomicBool::new(false);
    let (seconds, ()) = two.install(|| {
        tine::join(
            || {
                let _walked = Walked(&walked);
                median_seconds(9, Duration::from_millis(50), || {
                    assert_eq!(tree_tine(black_box(root)), expected);
                })
            },
            || {
                // Acquire: pairs with the Release store of `Walked`. The
                // root join offers this closure at once (a region starts
                // with its caller asked for work), and the other thread
                // claims it; if it did not, the caller runs it after the
                // walks, when the flag is already set.
                while !walked.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            },
        )
    });
    seconds
}
