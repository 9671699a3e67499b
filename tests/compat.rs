//! rayon's crate-root paths (`src/compat/`): the builder, the per-thread
//! calls, `partition_map`, and the extra slice sources, with rayon's
//! meanings and edge cases.
#![cfg(not(loom))]

mod support;

use std::panic::catch_unwind;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::iter::Either;
use tine::prelude::*;
use tine::ThreadPoolBuilder;

#[test]
fn the_builder_names_workers_with_rayons_closure() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|index| format!("compat-{index}"))
        .build()
        .unwrap();
    let names = pool.broadcast(|_| std::thread::current().name().map(String::from));
    assert_eq!(names[1].as_deref(), Some("compat-1"));
    assert_eq!(names[2].as_deref(), Some("compat-2"));
}

#[test]
fn bad_builder_input_is_an_error_with_a_message() {
    let error = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|_| "nul\0name".to_string())
        .build()
        .unwrap_err();
    assert_eq!(error.to_string(), "the thread name contains a NUL byte");
    // 0 means the default count, as in rayon.
    let pool = ThreadPoolBuilder::new().num_threads(0).build().unwrap();
    assert!(pool.current_num_threads() >= 1);
}

#[test]
fn thread_indices_are_distinct_and_below_the_count_in_every_fork() {
    let pool = tine::spawn_pool(4);
    for _ in 0..50 {
        let seen: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        pool.for_threads(|thread_index, _| {
            let index = tine::current_thread_index().unwrap();
            assert_eq!(index, thread_index);
            assert_eq!(pool.current_thread_index(), Some(thread_index));
            seen[index].fetch_add(1, Relaxed);
            // A nested call runs inline and keeps the share's index.
            pool.for_threads(|_, _| assert_eq!(tine::current_thread_index(), Some(index)));
        });
        assert!(seen.iter().all(|count| count.load(Relaxed) == 1));
    }
    // Outside every fork: the caller is thread 0; a pool it is not in
    // says so.
    assert_eq!(tine::current_thread_index(), Some(0));
    assert_eq!(pool.current_thread_index(), None);
    assert_eq!(pool.install(|| pool.current_thread_index()), Some(0));
    let other = tine::spawn_pool(2);
    pool.for_threads(|_, _| assert_eq!(other.current_thread_index(), None));
    // Inside `join` regions, stolen branches see their own thread's index.
    let indices = pool.install(|| {
        let (a, b) = tine::join(tine::current_thread_index, tine::current_thread_index);
        [a.unwrap(), b.unwrap()]
    });
    assert!(indices.iter().all(|&index| index < 4));
}

/// Counts drops of the results a broadcast made.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn a_panicking_broadcast_drops_the_results_made_and_the_pool_stays_usable() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(3);
    let drops = AtomicUsize::new(0);
    let caught = catch_unwind(|| {
        pool.broadcast(|ctx| {
            if ctx.index() == 1 {
                panic!("broadcast boom");
            }
            Counted(&drops)
        })
    });
    let payload = caught.err().expect("the panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"broadcast boom"));
    assert_eq!(drops.load(Relaxed), 2);
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    // The free function uses the installed pool, else the global one.
    assert_eq!(
        pool.install(|| tine::broadcast(|ctx| ctx.num_threads())),
        [3; 3]
    );
    assert_eq!(tine::broadcast(|_| ()).len(), tine::global().threads());
}

#[test]
fn partition_map_moves_owned_items_out_in_input_order() {
    let pool = tine::spawn_pool(3);
    for len in [0, 1, 2, 999, 20_000] {
        let items: Vec<String> = (0..len).map(|i| i.to_string()).collect();
        let (numbers, words): (Vec<usize>, Vec<String>) = pool.install(|| {
            items.clone().into_par_iter().partition_map(|s| {
                let n: usize = s.parse().unwrap();
                if n % 3 == 0 {
                    Either::Left(n)
                } else {
                    Either::Right(s)
                }
            })
        });
        assert_eq!(numbers, (0..len).filter(|n| n % 3 == 0).collect::<Vec<_>>());
        let expected: Vec<String> = items
            .into_iter()
            .filter(|s| s.parse::<usize>().unwrap() % 3 != 0)
            .collect();
        assert_eq!(words, expected);
    }
}

#[test]
fn slice_sources_match_std_at_every_length_and_size() {
    let pool = tine::spawn_pool(3);
    let data: Vec<u32> = (0..300).collect();
    for len in [0, 1, 2, 3, 10, 31, 257, 300] {
        let slice = &data[..len];
        for size in [1, 2, 3, 7, 64, 301] {
            let firsts = |pieces: Vec<&[u32]>| -> Vec<(u32, usize)> {
                pieces.iter().map(|p| (p[0], p.len())).collect()
            };
            pool.install(|| {
                assert_eq!(
                    firsts(slice.par_windows(size).collect()),
                    firsts(slice.windows(size).collect())
                );
                assert_eq!(
                    firsts(slice.par_chunks_exact(size).collect()),
                    firsts(slice.chunks_exact(size).collect())
                );
                assert_eq!(
                    firsts(slice.par_rchunks(size).collect()),
                    firsts(slice.rchunks(size).collect())
                );
                assert_eq!(
                    firsts(slice.par_rchunks_exact(size).collect()),
                    firsts(slice.rchunks_exact(size).collect())
                );
                assert_eq!(
                    slice
                        .par_rchunks(size)
                        .enumerate()
                        .map(|(i, c)| i * c.len())
                        .sum::<usize>(),
                    slice
                        .rchunks(size)
                        .enumerate()
                        .map(|(i, c)| i * c.len())
                        .sum::<usize>()
                );
            });
            let mut v = slice.to_vec();
            let mut serial = slice.to_vec();
            v.par_chunks_exact_mut(size).for_each(|c| c.reverse());
            serial.chunks_exact_mut(size).for_each(|c| c.reverse());
            v.par_rchunks_mut(size)
                .enumerate()
                .for_each(|(i, c)| c[0] += i as u32);
            serial
                .rchunks_mut(size)
                .enumerate()
                .for_each(|(i, c)| c[0] += i as u32);
            v.par_rchunks_exact_mut(size).for_each(|c| c.rotate_left(1));
            serial
                .rchunks_exact_mut(size)
                .for_each(|c| c.rotate_left(1));
            assert_eq!(v, serial, "len {len} size {size}");
        }
    }
}

#[test]
fn zero_sizes_panic_with_rayons_messages() {
    support::serialize_panic_output();
    let data = [1, 2, 3];
    let message = |f: &dyn Fn()| {
        let payload = catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        payload
            .downcast_ref::<&str>()
            .copied()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        message(&|| drop(data.par_windows(0))),
        "window_size must not be zero"
    );
    assert_eq!(
        message(&|| drop(data.par_chunks_exact(0))),
        "chunk_size must not be zero"
    );
    assert_eq!(
        message(&|| drop(data.par_rchunks(0))),
        "chunk_size must not be zero"
    );
}

/// rayon's guarantee: with `with_min_len(min)`, no piece (so no `fold`
/// partial) is shorter than `min`, probe blocks of the serial cutoff
/// included, except a whole input shorter than `min`; and `min` wins over
/// `max`.
#[test]
fn with_min_len_bounds_every_piece_as_rayon_does() {
    use tine::par::Schedule;
    let pool = tine::spawn_pool(3);
    for schedule in [
        Schedule::Static,
        Schedule::Dynamic { grain: 1 },
        Schedule::Guided { min: 1 },
    ] {
        for (n, min, max) in [
            (1_000_000usize, 1234usize, usize::MAX),
            (100_000, 10, 0),
            (50_000, 700, 500),
            (999, 1000, usize::MAX),
            (5000, 64, 100),
        ] {
            let partials: Vec<usize> = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .with_min_len(min)
                    .with_max_len(max)
                    .schedule(schedule)
                    .fold(|| 0usize, |count, _| count + 1)
                    .collect()
            });
            assert_eq!(partials.iter().sum::<usize>(), n);
            let shortest = partials.iter().copied().min().unwrap();
            assert!(
                shortest >= min.min(n),
                "{schedule:?} n {n} min {min} max {max}: a piece of {shortest}"
            );
            if max >= min && n >= min {
                let longest = partials.iter().copied().max().unwrap();
                assert!(longest <= max.max(2 * min - 1), "{schedule:?}: {longest}");
            }
        }
    }
}

#[test]
fn flat_map_with_parallel_inner_iterators_matches_serial() {
    let pool = tine::spawn_pool(3);
    for n in [0u64, 1, 7, 1000, 10_000] {
        let serial: Vec<u64> = (0..n)
            .flat_map(|i| (0..i % 37).map(move |j| i * 100 + j))
            .collect();
        let got: Vec<u64> = pool.install(|| {
            (0..n)
                .into_par_iter()
                .flat_map(|i| (0..i % 37).into_par_iter().map(move |j| i * 100 + j))
                .collect()
        });
        assert_eq!(got, serial);
        // Inner iterators whose positions yield no item (filter) or several
        // (flat_map_iter), and a sum.
        let filtered: Vec<u64> = pool.install(|| {
            (0..n)
                .into_par_iter()
                .flat_map(|i| {
                    (0..i % 11)
                        .into_par_iter()
                        .filter(|j| j % 2 == 0)
                        .flat_map_iter(move |j| [i, j])
                })
                .collect()
        });
        let expected: Vec<u64> = (0..n)
            .flat_map(|i| (0..i % 11).filter(|j| j % 2 == 0).flat_map(move |j| [i, j]))
            .collect();
        assert_eq!(filtered, expected);
        let nested: Vec<Vec<u64>> = (0..n).map(|i| (0..i % 5).collect()).collect();
        let flat: u64 = nested.par_iter().flatten().sum();
        assert_eq!(flat, nested.iter().flatten().sum::<u64>());
        let flat_iter: Vec<u64> = nested.clone().into_par_iter().flatten_iter().collect();
        assert_eq!(flat_iter, nested.concat());
    }
}

#[test]
fn flat_map_drops_every_owned_inner_item_once_on_early_stop_and_panic() {
    support::serialize_panic_output();
    let pool = tine::spawn_pool(3);
    let drops = AtomicUsize::new(0);
    let made = |drops: &'static AtomicUsize| -> (Vec<Vec<Counted<'static>>>, usize) {
        let outer: Vec<Vec<Counted>> = (0..2000)
            .map(|i| (0..i % 9).map(|_| Counted(drops)).collect())
            .collect();
        let total = outer.iter().map(Vec::len).sum();
        (outer, total)
    };
    // `'static` counters: the items outlive nothing here, but `Counted`
    // borrows its counter.
    let drops: &'static AtomicUsize = Box::leak(Box::new(drops));
    let (outer, total) = made(drops);
    let hit = pool.install(|| outer.into_par_iter().flat_map(|inner| inner).any(|_| true));
    assert!(hit);
    assert_eq!(drops.load(Relaxed), total);
    drops.store(0, Relaxed);
    let (outer, total) = made(drops);
    let seen = AtomicUsize::new(0);
    let caught = catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            outer
                .into_par_iter()
                .flat_map(|inner| inner)
                .for_each(|item| {
                    if seen.fetch_add(1, Relaxed) == 500 {
                        panic!("flat_map boom");
                    }
                    drop(item);
                })
        })
    }));
    assert!(caught.is_err());
    assert_eq!(drops.load(Relaxed), total);
}

#[test]
fn small_sources_match_serial_and_drop_owned_items_once() {
    let pool = tine::spawn_pool(3);
    let before = tine::par::cutoff::set_override(tine::par::cutoff::Override::AlwaysFork);
    let none: Vec<String> = tine::iter::empty().with_pool(&pool).collect();
    assert!(none.is_empty());
    let one: Vec<u8> = tine::iter::once(7u8).with_pool(&pool).collect();
    assert_eq!(one, [7]);
    let pairs: Vec<(&str, usize)> = tine::iter::repeat("x")
        .zip(0..1000usize)
        .with_pool(&pool)
        .collect();
    assert!(pairs
        .iter()
        .enumerate()
        .all(|(i, &(x, j))| x == "x" && i == j));
    assert_eq!(pairs.len(), 1000);
    let taken: Vec<u8> = tine::iter::repeat(1u8).take(5).with_pool(&pool).collect();
    assert_eq!(taken, [1; 5]);
    let strings: Vec<String> = tine::iter::repeat_n(String::from("ab"), 777)
        .with_pool(&pool)
        .collect();
    assert_eq!(strings, vec![String::from("ab"); 777]);
    assert_eq!(
        tine::iter::repeatn(2u64, 10).with_pool(&pool).sum::<u64>(),
        20
    );
    // Option and Result, owned and borrowed.
    let mut some = Some(5u32);
    assert_eq!(some.into_par_iter().with_pool(&pool).sum::<u32>(), 5);
    assert_eq!(None::<u32>.into_par_iter().with_pool(&pool).count(), 0);
    some.par_iter_mut().with_pool(&pool).for_each(|x| *x += 1);
    assert_eq!(some.par_iter().with_pool(&pool).copied().max(), Some(6));
    let ok: Result<u32, String> = Ok(3);
    let err: Result<u32, String> = Err("no".into());
    assert_eq!(ok.par_iter().with_pool(&pool).count(), 1);
    assert_eq!(err.clone().into_par_iter().with_pool(&pool).count(), 0);
    // Arrays: by value (moved out, each once), by reference, by mutable
    // reference.
    let mut array = [1u64, 2, 3, 4, 5, 6, 7];
    array.par_iter_mut().with_pool(&pool).for_each(|x| *x *= 10);
    assert_eq!(array.par_iter().with_pool(&pool).sum::<u64>(), 280);
    assert_eq!(
        array
            .into_par_iter()
            .with_pool(&pool)
            .map(|x| x / 10)
            .collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7]
    );
    let dropped = AtomicUsize::new(0);
    struct Counted<'a>(usize, &'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.1.fetch_add(1, Relaxed);
        }
    }
    let owned: [Counted<'_>; 64] = core::array::from_fn(|i| Counted(i, &dropped));
    let found = owned
        .into_par_iter()
        .with_pool(&pool)
        .with_max_len(4)
        .find_any(|c| c.0 == 40)
        .map(|c| c.0);
    assert_eq!(found, Some(40));
    assert_eq!(dropped.load(Relaxed), 64);
    // An iterator dropped unconsumed drops its items too.
    dropped.store(0, Relaxed);
    drop([Counted(0, &dropped), Counted(1, &dropped)].into_par_iter());
    drop(tine::iter::once(Counted(2, &dropped)));
    assert_eq!(dropped.load(Relaxed), 3);
    tine::par::cutoff::set_override(before);
}

#[test]
fn split_and_tree_walks_match_serial_order() {
    let pool = tine::spawn_pool(3);
    pool.install(|| {
        for len in [0usize, 1, 2, 5, 100, 1000] {
            // Halving ranges down to a few items: the pieces, in order,
            // cover the range exactly.
            let pieces: Vec<std::ops::Range<usize>> = tine::iter::split(0..len, |r| {
                if r.len() < 3 {
                    return (r, None);
                }
                let mid = r.start + r.len() / 2;
                (r.start..mid, Some(mid..r.end))
            })
            .collect();
            assert!(pieces.len() <= 4 * 3 + 1, "{} pieces", pieces.len());
            let flat: Vec<usize> = pieces.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..len).collect::<Vec<_>>());
            // A splitter that never cuts: one piece.
            assert_eq!(
                tine::iter::split(len, |n| (n, None)).collect::<Vec<_>>(),
                [len]
            );
        }
        // Trees: node n has children (n * 3 + 1 ..= n * 3 + 3) below a
        // bound, checked against recursive serial walks.
        fn prefix(n: u64, bound: u64, out: &mut Vec<u64>) {
            out.push(n);
            for c in (3 * n + 1..=3 * n + 3).filter(|&c| c < bound) {
                prefix(c, bound, out);
            }
        }
        fn postfix(n: u64, bound: u64, out: &mut Vec<u64>) {
            for c in (3 * n + 1..=3 * n + 3).filter(|&c| c < bound) {
                postfix(c, bound, out);
            }
            out.push(n);
        }
        for bound in [1u64, 2, 4, 13, 100, 5000] {
            let kids = move |&n: &u64| (3 * n + 1..=3 * n + 3).filter(move |&c| c < bound);
            let (mut want_pre, mut want_post) = (Vec::new(), Vec::new());
            prefix(0, bound, &mut want_pre);
            postfix(0, bound, &mut want_post);
            let pre: Vec<u64> = tine::iter::walk_tree_prefix(0, kids).collect();
            let post: Vec<u64> = tine::iter::walk_tree_postfix(0, kids).collect();
            assert_eq!(pre, want_pre);
            assert_eq!(post, want_post);
            let mut any: Vec<u64> = tine::iter::walk_tree(0, kids).map(|n| n * 2).collect();
            any.sort_unstable();
            let mut want: Vec<u64> = want_pre.iter().map(|n| n * 2).collect();
            want.sort_unstable();
            assert_eq!(any, want);
        }
    });
}

#[test]
fn start_and_exit_handlers_run_once_per_worker_on_its_thread() {
    use std::sync::{Arc, Mutex};
    let started = Arc::new(Mutex::new(Vec::new()));
    let exited = Arc::new(Mutex::new(Vec::new()));
    let (s, e) = (Arc::clone(&started), Arc::clone(&exited));
    let pool = ThreadPoolBuilder::new()
        .num_threads(4)
        .thread_name(|i| format!("hooks-{i}"))
        .start_handler(move |i| {
            let name = std::thread::current().name().map(String::from);
            s.lock().unwrap().push((i, name));
        })
        .exit_handler(move |i| e.lock().unwrap().push(i))
        .panic_handler(|_| unreachable!("tine never calls it"))
        .use_current_thread()
        .build()
        .unwrap();
    let mut seen = started.lock().unwrap().clone();
    seen.sort();
    let want: Vec<(usize, Option<String>)> =
        (1..4).map(|i| (i, Some(format!("hooks-{i}")))).collect();
    assert_eq!(seen, want);
    assert!(exited.lock().unwrap().is_empty());
    assert_eq!(
        pool.install(|| (0..100u32).into_par_iter().sum::<u32>()),
        4950
    );
    drop(pool); // waits for every worker, exit handler included
    let mut gone = exited.lock().unwrap().clone();
    gone.sort_unstable();
    assert_eq!(gone, [1, 2, 3]);
}

#[test]
fn a_panicking_start_handler_fails_the_build_without_hanging() {
    support::serialize_panic_output();
    let error = ThreadPoolBuilder::new()
        .num_threads(3)
        .start_handler(|i| assert!(i != 2, "worker {i} refused to start"))
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("2"), "{error}");
    // tine's own builder: the same, through `on_start`.
    let error = tine::ThreadPool::builder()
        .threads(2)
        .on_start(|_| panic!("no"))
        .build()
        .unwrap_err();
    assert!(
        matches!(error, tine::Error::Spawn { index: 1, .. }),
        "{error}"
    );
}

#[test]
fn a_pool_with_settings_for_its_threads_runs_every_closure_on_them() {
    let name = || std::thread::current().name().unwrap_or("").to_owned();
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("own-{i}"))
        .build()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 2);
    // Small calls the cutoff would keep on a caller, and a join.
    let names: std::collections::BTreeSet<String> = pool.install(|| {
        let mut names: std::collections::BTreeSet<String> =
            (0..10_000).into_par_iter().map(|_| name()).collect();
        names.insert((0..3).into_par_iter().map(|_| name()).max().unwrap());
        let (a, b) = tine::join(name, name);
        names.extend([a, b]);
        names
    });
    assert!(names.iter().all(|n| n.starts_with("own-")), "{names:?}");
    // `use_current_thread` keeps tine's model: the caller is thread 0.
    let here = name();
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("own-{i}"))
        .use_current_thread()
        .build()
        .unwrap();
    assert_eq!(
        pool.install(|| (0..3).into_par_iter().map(|_| name()).min()),
        Some(here)
    );
}
