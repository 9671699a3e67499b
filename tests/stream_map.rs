//! `ThreadPool::map_ordered`: order, laziness on endless input, panics.

use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn results_come_in_input_order() {
    for threads in [1, 2, 5] {
        let pool = tine::spawn_pool(threads);
        let got: Vec<u64> = pool.map_ordered(0..100_000u64, |x| x * 3).collect();
        assert_eq!(got, (0..100_000u64).map(|x| x * 3).collect::<Vec<_>>());
        let words = vec!["a".to_string(), "bb".into(), "ccc".into()];
        let lens: Vec<usize> = pool.map_ordered(words, |w| w.len()).collect();
        assert_eq!(lens, [1, 2, 3]);
        assert_eq!(pool.map_ordered(Vec::<u8>::new(), |x| x).count(), 0);
    }
}

#[test]
fn an_endless_source_is_pulled_only_a_window_ahead() {
    let pool = tine::spawn_pool(3);
    let pulled = AtomicUsize::new(0);
    let source = (0u64..).inspect(|_| {
        pulled.fetch_add(1, Ordering::Relaxed);
    });
    let first: Vec<u64> = pool
        .map_ordered(source, |x| {
            std::thread::sleep(std::time::Duration::from_micros(200));
            x + 1
        })
        .take(10)
        .collect();
    assert_eq!(first, (1..=10).collect::<Vec<_>>());
    // One refill of 12 batches of one item, then perhaps one of two.
    assert!(pulled.into_inner() <= 64);
    // Cheap items: batches grow, and a long prefix is still exact.
    let sum: u64 = pool.map_ordered(0u64.., |x| x).take(1_000_000).sum();
    assert_eq!(sum, 999_999 * 1_000_000 / 2);
}

#[test]
fn a_panic_reaches_the_caller_and_the_pool_survives() {
    let pool = tine::spawn_pool(3);
    let mut results = pool.map_ordered(0..10_000u32, |x| {
        assert!(x != 5000, "bad item {x}");
        x
    });
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        results.by_ref().for_each(drop);
    }));
    assert!(caught.is_err());
    assert!(results.next().is_none());
    drop(results);
    let got: Vec<u32> = pool.map_ordered(0..1000u32, |x| x + 1).collect();
    assert_eq!(got.len(), 1000);
    assert_eq!(got[999], 1000);
}
