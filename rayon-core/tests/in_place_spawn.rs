//! A thread outside a pool that opens an `in_place_scope` on it and waits
//! there for a job it spawned: the scope holds the pool's threads, yet the
//! job runs (on a relief thread of the pool, once the threads have stayed
//! busy for the pool's busy wait), and sees a thread index, as in rayon.

use std::sync::mpsc::channel;

#[test]
fn an_in_place_scope_waiting_for_its_spawned_job_gets_it() {
    let pool = rayon_core::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool");
    for fifo in [false, true] {
        let (sender, receiver) = channel();
        let job = move || {
            let index = rayon_core::current_thread_index();
            let (a, b) = rayon_core::join(|| 20, || 22);
            sender.send((index, a + b)).expect("the scope waits");
        };
        let (index, sum) = pool.in_place_scope(|_| {
            if fifo {
                pool.spawn_fifo(job);
            } else {
                pool.spawn(job);
            }
            receiver.recv().expect("the job runs")
        });
        assert_eq!(sum, 42);
        assert!(index.is_some(), "the job sees a thread index");
    }
}
