//! Zero heap allocations per fork and per parallel-iterator call (every
//! consumer but `collect`), after warm-up, counted by a global allocator
//! (`counting_alloc`). Its own test binary, with one test, so nothing else
//! allocates while it counts.
#![cfg(not(loom))]

mod counting_alloc;

use counting_alloc::allocations_in;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Every kind of fork on `$pool`, `$rounds` times.
macro_rules! all_kinds {
    ($pool:expr, $sink:expr, $rounds:expr) => {{
        let (pool, sink) = (&$pool, &$sink);
        let data = [1usize; 1024];
        for _ in 0..$rounds {
            pool.for_threads(|thread_index, _| {
                sink.fetch_add(thread_index, Relaxed);
            });
            pool.for_n(data.len(), |prong| {
                sink.fetch_add(data[prong.task_index], Relaxed);
            });
            pool.for_slices(data.len(), |first, count| {
                sink.fetch_add(data[first.task_index..][..count].len(), Relaxed);
            });
            pool.for_n_dynamic(data.len(), |prong| {
                sink.fetch_add(data[prong.task_index], Relaxed);
            });
            pool.for_n_dynamic_grain(data.len(), 16, |prong| {
                sink.fetch_add(data[prong.task_index], Relaxed);
            });
            pool.for_n_guided(data.len(), 4, |prong| {
                sink.fetch_add(data[prong.task_index], Relaxed);
            });
            // Nested calls run inline, without allocating either.
            pool.for_threads(|_, _| {
                pool.for_n(8, |prong| {
                    sink.fetch_add(prong.task_index, Relaxed);
                });
            });
        }
    }};
}

/// Every parallel-iterator consumer but `collect` on `$pool`, forced to
/// fork, under every schedule.
macro_rules! every_consumer {
    ($pool:expr, $sink:expr, $buffers:expr, $text:expr, $rounds:expr) => {{
        use tine::par::Schedule;
        use tine::prelude::*;
        let (pool, sink, text): (_, _, &str) = (&$pool, &$sink, $text);
        let (data, scratch, out): &mut (Vec<u64>, Vec<u64>, Vec<u64>) = $buffers;
        for round in 0..$rounds {
            let schedule = [
                Schedule::Static,
                Schedule::Dynamic { grain: 32 },
                Schedule::Guided { min: 8 },
            ][round % 3];
            let par = || data.par_iter().with_pool(pool).schedule(schedule);
            let mut total = par().sum::<u64>();
            total += par()
                .map(|x| std::num::Wrapping(x * 2))
                .product::<std::num::Wrapping<u64>>()
                .0;
            total += par().copied().reduce(|| 0, |a, b| a ^ b);
            total += par().fold(|| 0u64, |a, &b| a + b).sum::<u64>();
            total += par().min().copied().unwrap_or(0)
                + par().max_by_key(|x| *x % 10).copied().unwrap_or(0);
            total += par().count() as u64
                + u64::from(par().any(|&x| x == 4000))
                + u64::from(par().all(|&x| x < 5000));
            total += par().find_first(|&&x| x > 3000).copied().unwrap_or(0);
            total += par().position_first(|&x| x > 3000).unwrap_or(0) as u64;
            total += par()
                .try_for_each(|&x| if x == 4095 { Err(x) } else { Ok(()) })
                .err()
                .unwrap_or(0);
            total += par()
                .map(|&x| Some(x))
                .try_reduce(|| 0, |a, b| Some(a.max(b)))
                .unwrap_or(0);
            total += par()
                .zip(scratch.par_iter())
                .enumerate()
                .map(|(i, (a, b))| i as u64 + a + b)
                .sum::<u64>();
            // rayon's reordering and chunking adaptors (no `Vec` chunks).
            total += par().rev().sum::<u64>() + par().step_by(3).sum::<u64>();
            total += par().fold_chunks(16, || 0, |a, &x| a + x).sum::<u64>();
            total += par().positions(|&x| x % 3 == 0).count() as u64;
            scratch
                .par_iter_mut()
                .with_pool(pool)
                .schedule(schedule)
                .for_each(|x| *x += 1);
            scratch
                .par_chunks_mut(64)
                .with_pool(pool)
                .for_each(|c| c[0] = 0);
            // `flat_map` with parallel inner iterators (positions of one
            // item each go straight through, unbuffered).
            total += (0..64u64)
                .into_par_iter()
                .with_pool(pool)
                .flat_map(|i| (0..i).into_par_iter().map(|j| j + 1))
                .sum::<u64>();
            // A `flat_map` in a `flat_map`, folded (a search's walk keeps
            // a heavy position on the heap; a fold keeps nothing).
            total += (0..16u64)
                .into_par_iter()
                .with_pool(pool)
                .flat_map(|i| {
                    (0..i)
                        .into_par_iter()
                        .flat_map(move |j| (0..j).into_par_iter().map(move |k| i + k))
                })
                .sum::<u64>();
            // The other slice sources (rayon's names).
            total += data
                .par_windows(3)
                .with_pool(pool)
                .map(|w| w[0] + w[2])
                .sum::<u64>();
            total += data.par_chunks_exact(5).with_pool(pool).count() as u64
                + data.par_rchunks(7).with_pool(pool).count() as u64
                + data.par_rchunks_exact(7).with_pool(pool).count() as u64;
            scratch
                .par_chunks_exact_mut(3)
                .with_pool(pool)
                .for_each(|c| c[1] = c[0]);
            scratch
                .par_rchunks_mut(9)
                .with_pool(pool)
                .zip(data.par_rchunks(9))
                .for_each(|(c, d)| c[0] = d[0]);
            scratch
                .par_rchunks_exact_mut(9)
                .with_pool(pool)
                .for_each(|c| c.reverse());
            total += (0..1000u32)
                .into_par_iter()
                .with_pool(pool)
                .map(u64::from)
                .sum::<u64>();
            // `par_bridge`: batches in each range's stack room, the source
            // under a lock that does not allocate.
            total += data
                .iter()
                .par_bridge()
                .with_pool(pool)
                .map(|x| x + 1)
                .sum::<u64>();
            // Strings, cut as rayon's `ParallelString` methods cut them.
            total += text.par_lines().with_pool(pool).count() as u64;
            total += text
                .par_split(',')
                .with_pool(pool)
                .map(str::len)
                .sum::<usize>() as u64;
            total += data.par_split(|x| x % 100 == 0).with_pool(pool).count() as u64;
            // Into a Vec that has the capacity: no allocation either.
            par().map(|x| x + 1).collect_into_vec(out);
            sink.fetch_add(total as usize + out.len(), Relaxed);
        }
    }};
}

#[test]
fn forks_do_not_allocate() {
    let pool = tine::ThreadPool::try_spawn(4).unwrap();
    // With `numa`: a distributed pool too, over 4 colocations (binding is
    // faked on a synthetic topology, the forks are real).
    #[cfg(feature = "numa")]
    let distributed = {
        let topology = tine::numa::Topology::from_synthetic("pack:4 numa:1 core:2 pu:1").unwrap();
        tine::numa::DistributedPool::builder(&topology)
            .threads(6)
            .build()
            .unwrap()
    };
    let sink = AtomicUsize::new(0);
    let before = tine::par::cutoff::set_override(tine::par::cutoff::Override::AlwaysFork);
    // The iterators' inputs and `collect_into_vec`'s output, made before
    // counting starts.
    let data: Vec<u64> = (0..4096).collect();
    let mut buffers = (data.clone(), data.clone(), Vec::with_capacity(data.len()));
    let text: String = (0..4096)
        .map(|i| match i % 13 {
            0 => '\n',
            4 | 9 => ',',
            7 => 'é',
            _ => 'x',
        })
        .collect();
    let mut all = |rounds: usize| {
        all_kinds!(pool, sink, rounds);
        every_consumer!(pool, sink, &mut buffers, &text, rounds / 10);
        #[cfg(feature = "numa")]
        all_kinds!(distributed, sink, rounds);
        #[cfg(feature = "numa")]
        every_consumer!(distributed, sink, &mut buffers, &text, rounds / 10);
    };
    all(100); // warm-up: thread-locals, lazy statics
    let ((), allocations) = allocations_in(|| all(1000));
    tine::par::cutoff::set_override(before);
    assert_eq!(
        allocations, 0,
        "{allocations} allocations in 7000 forks and 100 rounds of every parallel-iterator consumer per pool"
    );
    assert!(sink.load(Relaxed) > 0);
}
