//! Runs the rayon body (compiled against tine under the name `rayon`)
//! over edge-case and random inputs; the body asserts every result
//! against serial code itself.

use proptest::prelude::*;

#[test]
fn edge_lengths() {
    for len in [0usize, 1, 2, 3, 4, 5, 7, 8, 64, 1000, 4097] {
        let data: Vec<i64> = (0..len as i64).map(|x| (x * 7919) % 1009 - 500).collect();
        tine_dropin::body::check(&data);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_inputs(data in prop::collection::vec(-1000i64..1000, 0..3000)) {
        tine_dropin::body::check(&data);
    }
}

/// rayon's `build_global`: the first call sets the pool that calls outside
/// any pool use; a second one is an error with rayon's message.
#[test]
fn build_global_sets_the_global_pool_once() {
    // This test binary's other tests may start the global pool first; then
    // the first call fails too, with the same error.
    let first = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global();
    if first.is_ok() {
        assert_eq!(rayon::current_num_threads(), 2);
    }
    let second = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build_global();
    let error = second.expect_err("the global pool is set");
    assert_eq!(
        error.to_string(),
        "The global thread pool has already been initialized."
    );
}
