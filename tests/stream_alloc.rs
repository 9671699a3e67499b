//! No allocation per record: a stream of 100x more records allocates about
//! as often. Its own test binary, with one test, so that nothing else
//! allocates while the global allocator counts.
#![cfg(not(loom))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::convert::Infallible;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use tine::stream::StreamOptions;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; counting
// touches only atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_for(input: &[u8], pool: &tine::ThreadPool) -> usize {
    let mut output = Vec::with_capacity(input.len());
    ALLOCATIONS.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    let stats = pool
        .stream_records(
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
        .unwrap();
    COUNTING.store(false, Relaxed);
    assert!(output == input);
    assert!(stats.batches as usize >= input.len() / 8 / 64);
    ALLOCATIONS.load(Relaxed)
}

#[test]
fn allocations_do_not_grow_with_records() {
    let pool = tine::spawn(3);
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
