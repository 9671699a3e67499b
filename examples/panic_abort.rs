//! What a panicking task does in a `panic = "abort"` build: the process
//! aborts (SIGABRT) as soon as the task panics, on whichever thread it ran;
//! nothing is caught and the fork never returns. `.ci/run` builds this with
//! `-C panic=abort` and checks that it dies by SIGABRT after printing the
//! task's panic message.
//!
//! ```sh
//! RUSTFLAGS="-C panic=abort" CARGO_TARGET_DIR=target/abort \
//!     cargo run --release --example panic_abort; echo "exit status $?" # 134
//! ```

fn main() {
    let pool = tine::spawn_pool(3);
    pool.for_threads(|thread_index, _| {
        if thread_index == 2 {
            panic!("task {thread_index} panicked");
        }
    });
    // Reached only where panics unwind: the fork resumed the panic, so even
    // then this line is never reached.
    println!("the fork returned");
}
