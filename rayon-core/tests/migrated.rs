//! `FnContext::migrated` as rayon reports it: a `join_context` made from
//! outside every pool runs on the global pool's threads, so its first
//! closure migrated too; one made on a pool's thread keeps its first
//! closure there. rayon's parallel iterators split a migrated part's work
//! further, so the count of parts depends on it.

#[test]
fn a_join_from_outside_the_pool_tells_its_first_closure_it_migrated() {
    let (a, ()) = rayon_core::join_context(|context| context.migrated(), |_| ());
    assert!(
        a,
        "the first closure of a call from outside ran on a pool thread"
    );
}

#[test]
fn a_join_on_a_pool_thread_keeps_its_first_closure_there() {
    let pool = rayon_core::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool");
    let (a, ()) = pool.install(|| rayon_core::join_context(|context| context.migrated(), |_| ()));
    assert!(
        !a,
        "the first closure of a join on a pool thread stayed there"
    );
}
