//! The one-line port: the same source, compiled once with
//! `use rayon::prelude::*;` and once with `use tine::prelude::*;`, gives the
//! same results. The body below is written once, in a macro, and uses every
//! method of the rayon subset tine promises (the `par` module docs, "What differs from rayon"),
//! the `par_sort*` methods included.
//!
//! Run by `.ci/run` (`cargo test -p tine-peers --test rayon_port`); the
//! crate's own `cargo test` does not build rayon.

/// Everything the ported code computes, compared across the two crates.
#[derive(Debug, PartialEq)]
struct Results {
    sums: Vec<i64>,
    options: Vec<Option<i64>>,
    flags: Vec<bool>,
    counts: Vec<usize>,
    vectors: Vec<Vec<i64>>,
    strings: Vec<String>,
    positions: Vec<Option<usize>>,
    errors: Vec<Result<(), String>>,
    tried: Vec<Option<i64>>,
    threads_positive: bool,
    extras: Vec<i64>,
    collections: Vec<Vec<i64>>,
    text: Vec<String>,
    failed: Result<Vec<i64>, String>,
    sources: Vec<Vec<i64>>,
    sorted: Vec<Vec<(i64, usize)>>,
}

macro_rules! port {
    ($name:ident, $krate:ident) => {
        fn $name(data: &[i64]) -> Results {
            use $krate::prelude::*;

            let v: Vec<i64> = data.to_vec();
            let mut sums = vec![
                v.par_iter().sum::<i64>(),
                v.par_iter()
                    .map(|x| if *x == 0 { 1 } else { x.signum() })
                    .product::<i64>(),
                v.par_iter().copied().reduce(|| 0, |a, b| a + b),
                v.par_iter().fold(|| 0i64, |a, &x| a + x).sum::<i64>(),
                v.par_iter()
                    .fold(|| 0i64, |a, &x| a.max(x))
                    .reduce(|| i64::MIN, |a, b| a.max(b)),
                // How many partials `fold` makes is unspecified: compare
                // what they add up to.
                v.par_iter()
                    .cloned()
                    .fold(|| 0i64, |a, x| a + x)
                    .collect::<Vec<_>>()
                    .iter()
                    .sum(),
                v.par_iter()
                    .map_init(|| 3i64, |scale, &x| x * *scale)
                    .sum::<i64>(),
                v.par_iter().enumerate().map(|(i, &x)| i as i64 * x).sum(),
                v.par_iter()
                    .zip(v[1..].par_iter())
                    .map(|(a, b)| a * b)
                    .sum(),
                v.par_iter().with_min_len(64).with_max_len(100).sum(),
                (0..v.len()).into_par_iter().map(|i| i as i64).sum(),
                (0..=40u32).into_par_iter().map(i64::from).sum(),
                (5..900u64).into_par_iter().map(|i| i as i64).sum(),
                (-50..50i32).into_par_iter().map(i64::from).sum(),
                (-7..=7i64).into_par_iter().sum(),
                v.par_chunks(7).map(|chunk| chunk.iter().sum::<i64>()).sum(),
            ];
            let mut m = v.clone();
            m.par_iter_mut().for_each(|x| *x = *x * 2 + 1);
            sums.push(m.iter().sum());
            m.par_chunks_mut(5).for_each(|chunk| chunk[0] = 0);
            sums.push(m.iter().sum());

            let options = vec![
                v.par_iter().copied().min(),
                v.par_iter().copied().max(),
                v.par_iter().copied().min_by(|a, b| (a % 10).cmp(&(b % 10))),
                v.par_iter().copied().max_by(|a, b| (a % 10).cmp(&(b % 10))),
                v.par_iter().copied().min_by_key(|x| (x % 13).abs()),
                v.par_iter().copied().max_by_key(|x| (x % 13).abs()),
                v.par_iter().copied().find_first(|x| x % 5 == 0),
                // Any match will do for `find_any`: check it is one.
                v.par_iter()
                    .copied()
                    .find_any(|x| x % 5 == 0)
                    .map(|x| i64::from(x % 5 == 0)),
            ];
            let flags = vec![
                v.par_iter().any(|&x| x > 900),
                v.par_iter().all(|&x| x > -1000),
                v.par_iter().any(|&x| x == 12_345),
                v.par_iter().all(|&x| x % 2 == 0),
            ];
            let counts = vec![
                v.par_iter().count(),
                v.par_iter().filter(|&&x| x % 3 == 0).count(),
                $krate::current_num_threads().min(1),
            ];

            let mut into = Vec::new();
            v.par_iter().map(|x| x - 1).collect_into_vec(&mut into);
            let vectors = vec![
                v.par_iter().map(|x| x * 2).collect(),
                v.par_iter().filter(|&&x| x % 4 == 1).copied().collect(),
                v.par_iter()
                    .filter_map(|&x| (x % 3 == 0).then_some(x / 3))
                    .collect(),
                v.par_iter()
                    .flat_map_iter(|&x| std::iter::repeat(x).take((x.rem_euclid(3)) as usize))
                    .collect(),
                into,
            ];
            let strings: Vec<String> = v
                .iter()
                .map(|x| format!("item {x}"))
                .collect::<Vec<_>>()
                .into_par_iter()
                .filter(|s| s.ends_with('7'))
                .map(|s| s.to_uppercase())
                .collect();

            let positions = vec![
                v.par_iter().position_first(|&x| x > 500),
                v.par_iter()
                    .position_any(|&x| x > 500)
                    .map(|i| usize::from(v[i] > 500)),
                v.par_iter().position_first(|&x| x == 12_345),
            ];

            let errors = vec![
                v.par_iter().try_for_each(|&x| {
                    if x == 12_345 {
                        Err(format!("{x}"))
                    } else {
                        Ok(())
                    }
                }),
                // The error of the lowest failing index among those run: only
                // one index fails here, so both crates agree.
                v.par_iter().try_for_each(|&x| {
                    if x == v[v.len() / 2] {
                        Err(format!("failed at {x}"))
                    } else {
                        Ok(())
                    }
                }),
            ];
            let tried = vec![
                v.par_iter()
                    .try_for_each(|&x| (x < 10_000).then_some(()))
                    .map(|()| 1),
                v.par_iter()
                    .map(|&x| Some(x))
                    .try_reduce(|| 0, |a, b| Some(a + b)),
                v.par_iter()
                    .map(|&x| (x < 900).then_some(x))
                    .try_reduce(|| 0, |a, b| Some(a + b)),
            ];

            let extras = vec![
                // join, join_context and scope: rayon's signatures.
                {
                    fn halves(s: &[i64]) -> i64 {
                        if s.len() <= 8 {
                            return s.iter().sum();
                        }
                        let (left, right) = s.split_at(s.len() / 2);
                        let (a, b) = $krate::join(|| halves(left), || halves(right));
                        a + b
                    }
                    halves(&v)
                },
                {
                    let mut parts = vec![0i64; 4];
                    let chunk = v.len().div_ceil(4).max(1);
                    $krate::scope(|s| {
                        for (part, piece) in parts.iter_mut().zip(v.chunks(chunk)) {
                            s.spawn(move |_| *part = piece.iter().sum());
                        }
                    });
                    parts.iter().sum::<i64>()
                },
                {
                    let (a, b) = $krate::join_context(
                        // rayon says "migrated" for a call from outside its
                        // pool (moved onto a worker); tine runs it here.
                        |ctx| {
                            let _ = ctx.migrated();
                            v.len() as i64
                        },
                        |_| v.par_iter().sum::<i64>(),
                    );
                    a + b
                },
                v.par_iter()
                    .map_with(5i64, |five, &x| x * *five)
                    .sum::<i64>(),
                v.par_iter().inspect(|&&x| assert!(x >= -1000)).count() as i64,
                v.par_iter()
                    .copied()
                    .reduce_with(|a, b| a + b)
                    .unwrap_or(-1),
                v.par_iter()
                    .find_map_first(|&x| (x > 700).then_some(x * 2))
                    .unwrap_or(-1),
                v.par_iter()
                    .find_map_any(|&x| (x > 700).then_some(0))
                    .unwrap_or(-1),
                {
                    let total = std::sync::atomic::AtomicI64::new(0);
                    v.par_iter().for_each_init(
                        || 2i64,
                        |two, &x| {
                            total.fetch_add(x * *two, std::sync::atomic::Ordering::Relaxed);
                        },
                    );
                    v.par_iter().for_each_with(3i64, |three, &x| {
                        total.fetch_add(x * *three, std::sync::atomic::Ordering::Relaxed);
                    });
                    total.into_inner()
                },
            ];
            let hash: std::collections::HashMap<i64, usize> =
                v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
            let mut hash: Vec<(i64, usize)> = hash.into_iter().collect();
            hash.sort();
            let tree: std::collections::BTreeMap<i64, usize> = v
                .par_iter()
                .enumerate()
                .map(|(i, &x)| (x % 50, i))
                .collect();
            let set: std::collections::BTreeSet<i64> = v.par_iter().map(|x| x % 97).collect();
            let deque: std::collections::VecDeque<i64> = v.par_iter().map(|x| x - 3).collect();
            let heap: std::collections::BinaryHeap<i64> = v.par_iter().copied().collect();
            let (even, odd): (Vec<i64>, std::collections::VecDeque<i64>) =
                v.par_iter().partition(|&&x| x % 2 == 0);
            let (firsts, seconds): (Vec<i64>, Vec<i64>) = v.par_iter().map(|&x| (x, -x)).unzip();
            let mut extended = vec![7i64];
            extended.par_extend(v.par_iter().map(|x| x + 1));
            extended.par_extend(v.par_iter());
            let collections = vec![
                hash.iter().map(|&(x, i)| x * 100_000 + i as i64).collect(),
                tree.iter().map(|(&x, &i)| x * 100_000 + i as i64).collect(),
                set.into_iter().collect(),
                deque.into_iter().collect(),
                heap.into_sorted_vec(),
                even,
                odd.into_iter().collect(),
                firsts,
                seconds,
                extended,
            ];
            let text = vec![
                v.par_iter()
                    .map(|x| char::from(b'a' + x.rem_euclid(26) as u8))
                    .collect::<String>(),
                v.par_iter().map(|x| format!("{x},")).collect::<String>(),
            ];
            let failed: Result<Vec<i64>, String> = v
                .par_iter()
                .map(|&x| {
                    if x > 990 {
                        Err("big".to_string())
                    } else {
                        Ok(x)
                    }
                })
                .collect();

            let mut hash: std::collections::HashMap<i64, i64> =
                v.iter().map(|&x| (x, x * 2)).collect();
            hash.par_iter_mut().for_each(|(_, v)| *v += 1);
            let mut tree: std::collections::BTreeMap<i64, i64> =
                v.iter().map(|&x| (x, x * 2)).collect();
            tree.par_iter_mut().for_each(|(k, v)| *v -= k);
            let mut deque: std::collections::VecDeque<i64> = v.iter().copied().collect();
            deque.par_iter_mut().for_each(|x| *x += 3);
            let set: std::collections::BTreeSet<i64> = v.iter().copied().collect();
            let hash_set: std::collections::HashSet<i64> = v.iter().copied().collect();
            let list: std::collections::LinkedList<i64> = v.iter().copied().collect();
            let heap: std::collections::BinaryHeap<i64> = v.iter().copied().collect();
            let sources = vec![
                vec![
                    hash.par_iter().map(|(k, v)| k * 3 + v).sum::<i64>(),
                    hash.clone()
                        .into_par_iter()
                        .map(|(k, v)| k - v)
                        .sum::<i64>(),
                    hash_set.par_iter().sum::<i64>(),
                    hash_set.into_par_iter().map(|x| x * x).sum::<i64>(),
                    heap.par_iter().copied().max().unwrap_or(0),
                    heap.into_par_iter().sum::<i64>(),
                ],
                tree.par_iter().map(|(k, v)| k * 1000 + v).collect(),
                tree.into_par_iter().map(|(k, _)| k).collect(),
                set.par_iter().copied().collect(),
                set.into_par_iter().collect(),
                deque.par_iter().copied().collect(),
                deque.into_par_iter().collect(),
                list.par_iter().map(|x| x + 1).collect(),
                list.into_par_iter().collect(),
                v.par_iter().skip(v.len() / 3).copied().collect(),
                v.par_iter().take(v.len() / 2).map(|x| x * 7).collect(),
                v.par_iter()
                    .skip(2)
                    .take(40)
                    .chain(v[..v.len() / 2].par_iter())
                    .copied()
                    .collect(),
                v.par_iter()
                    .filter(|x| *x % 3 == 0)
                    .chain(v.par_iter().filter(|x| *x % 5 == 0))
                    .copied()
                    .collect(),
                v.par_iter()
                    .chain(&v)
                    .position_first(|&x| x > 990)
                    .map_or(vec![], |i| vec![i as i64]),
            ];

            // The sorts: stable ones on (value, position) by a coarse key,
            // so that stability shows; unstable ones by a total order, so
            // that the result is determined.
            let pairs: Vec<(i64, usize)> = v.iter().copied().zip(0..).collect();
            let coarse = |p: &(i64, usize)| p.0.abs() % 100;
            let sorted = {
                let mut out = Vec::new();
                let mut w = pairs.clone();
                w.par_sort();
                out.push(w);
                let mut w = pairs.clone();
                w.par_sort_by(|a, b| coarse(a).cmp(&coarse(b)));
                out.push(w);
                let mut w = pairs.clone();
                w.par_sort_by_key(coarse);
                out.push(w);
                let mut w = pairs.clone();
                w.par_sort_by_cached_key(|p| coarse(p).to_string());
                out.push(w);
                let mut w = pairs.clone();
                w.par_sort_unstable();
                out.push(w);
                let mut w = pairs.clone();
                w.par_sort_unstable_by(|a, b| b.cmp(a));
                out.push(w);
                let mut w = pairs.clone();
                w.par_sort_unstable_by_key(|p| (coarse(p), p.1));
                out.push(w);
                out
            };

            Results {
                sorted,
                sources,
                extras,
                collections,
                text,
                failed,
                sums,
                options,
                flags,
                counts,
                vectors,
                strings,
                positions,
                errors,
                tried,
                threads_positive: $krate::current_num_threads() > 0,
            }
        }
    };
}

port!(with_rayon, rayon);
port!(with_tine, tine);

fn inputs() -> Vec<Vec<i64>> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    [1usize, 2, 3, 17, 100, 1000, 4099, 20_000]
        .into_iter()
        .map(|len| (0..len).map(|_| (next() % 2001) as i64 - 1000).collect())
        .collect()
}

#[test]
fn the_same_source_gives_the_same_results_with_rayon_and_with_tine() {
    for data in inputs() {
        assert_eq!(with_rayon(&data), with_tine(&data), "length {}", data.len());
    }
}

#[test]
fn the_port_holds_inside_install_on_pools_of_several_sizes() {
    for threads in [1, 3, 4] {
        let rayon_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let tine_pool = tine::ThreadPool::try_spawn(threads).unwrap();
        for data in inputs() {
            let expected = rayon_pool.install(|| with_rayon(&data));
            let got = tine_pool.install(|| with_tine(&data));
            assert_eq!(expected, got, "{threads} threads, length {}", data.len());
        }
    }
}
