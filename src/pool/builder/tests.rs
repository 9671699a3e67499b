//! Unit tests of [`super::Builder`]: a spawn that fails midway stops and joins the workers already started.

use super::*;
use crate::pool::ThreadPool;
use crate::sync::{AtomicUsize, Ordering};

#[test]
fn a_spawn_failure_midway_stops_and_joins_the_started_workers() {
    let builder = Builder {
        fail_spawn_at: Some(3),
        ..Builder::default().threads(5).name("halfspawn")
    };
    match builder.build() {
        Err(Error::Spawn { index: 3, source }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::WouldBlock)
        }
        other => panic!("expected a spawn error at worker 3, got {other:?}"),
    }
    // Workers 1 and 2 had started; they must be joined, not left running.
    // A joined thread can stay listed in /proc for a moment (the kernel
    // wakes `pthread_join` before it releases the task), so look again
    // for up to a second before calling it a leak.
    #[cfg(target_os = "linux")]
    {
        let survivors = || -> std::vec::Vec<std::string::String> {
            std::fs::read_dir("/proc/self/task")
                .unwrap()
                .filter_map(|task| {
                    let comm = std::fs::read_to_string(task.ok()?.path().join("comm"));
                    Some(comm.ok()?).filter(|comm| comm.starts_with("halfspawn"))
                })
                .collect()
        };
        let mut left = survivors();
        for _ in 0..100 {
            if left.is_empty() {
                break;
            }
            std::thread::sleep(core::time::Duration::from_millis(10));
            left = survivors();
        }
        assert!(
            left.is_empty(),
            "workers {left:?} outlived the failed spawn"
        );
    }
    // The pool built right after works: nothing was left half-started.
    let pool = ThreadPool::try_spawn(5).unwrap();
    let hits = AtomicUsize::new(0);
    pool.for_threads(|_, _| {
        hits.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(hits.load(Ordering::Relaxed), 5);
}
