//! No allocation per record: a stream of 100x more records allocates about
//! as often. Its own test binary, with one test, so that nothing else
//! allocates while the global allocator counts.
#![cfg(not(loom))]

mod counting_alloc;

use counting_alloc::allocations_in;
use std::convert::Infallible;
use std::io::Write;
use tine::stream::StreamOptions;

fn allocations_for(input: &[u8], pool: &tine::ThreadPool) -> usize {
    let mut output = Vec::with_capacity(input.len());
    let (stats, allocations) = allocations_in(|| {
        pool.stream_records(
            input,
            &mut output,
            StreamOptions::default().max_batch(64),
            |batch, out| {
                for record in batch.records() {
                    out.extend_from_slice(record);
                    out.push(b'\n');
                }
                Ok::<(), Infallible>(())
            },
        )
        .unwrap()
    });
    assert!(output == input);
    assert!(stats.batches as usize >= input.len() / 8 / 64);
    allocations
}

#[test]
fn allocations_do_not_grow_with_records() {
    let pool = tine::spawn_pool(3);
    let input = |lines: usize| {
        let mut data = Vec::new();
        for i in 0..lines {
            writeln!(data, "{:07}", i % 10_000_000).unwrap();
        }
        data
    };
    let (small, large) = (input(10_000), input(1_000_000));
    allocations_for(&small, &pool); // warm up thread-locals
    let few = allocations_for(&small, &pool);
    let many = allocations_for(&large, &pool);
    // 1M records in batches of at most 64: about 16,000 batches. Buffers,
    // slots and the reader thread are allocated per stream, not per batch
    // or record; output buffers grow a few times per slot.
    assert!(
        many < few + 200,
        "{few} allocations for 10K records, {many} for 1M"
    );
}
