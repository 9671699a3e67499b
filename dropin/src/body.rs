//! Ordinary rayon code, written as rayon's docs write it. It names only
//! `rayon::` paths: in this crate `rayon` is tine, and
//! `benches/peers/tests/dropin.rs` compiles this same file against the
//! real rayon. [`check`] checks every result against serial code and
//! returns them all, printed, for the comparison across the two crates.
//! Everything here is deterministic (no float sums, no `find_any`), so the
//! two crates must print the same.

use rayon::iter::{Either, IntoParallelIterator, IntoParallelRefIterator, ParallelIterator};
use rayon::prelude::*;
use rayon::slice::ParallelSliceMut;

/// Runs the whole body over `data` on a 3-thread pool built with rayon's
/// builder, asserting each result against serial code; returns the
/// results, printed.
pub fn check(data: &[i64]) -> String {
    let built: Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> =
        rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(|index| format!("dropin-{index}"))
            .stack_size(1 << 20)
            // Called per worker; how many workers a pool of 3 has differs
            // (rayon: 3, tine: 2 besides the caller), so nothing is counted.
            .start_handler(|index| assert!(index < 3))
            .exit_handler(|index| assert!(index < 3))
            .panic_handler(drop)
            .build();
    let pool = built.expect("a 3-thread pool");
    assert_eq!(pool.current_num_threads(), 3);
    let mut out = Vec::new();
    pool.install(|| {
        out.push(format!("{:?}", pool_calls(&pool)));
        out.push(format!("{:?}", slices(data)));
        out.push(format!("{:?}", either_and_partitions(data)));
        out.push(format!("{:?}", recursion(data)));
        out.push(format!("{:?}", sorting(data)));
        out.push(format!("{:?}", folds(data)));
        out.push(format!("{:?}", flat_maps(data)));
        out.push(format!("{:?}", indexed_adaptors(data)));
        out.push(format!("{:?}", strings(data)));
        out.push(format!("{:?}", bridges_and_sources(data)));
        out.push(format!("{:?}", recursive_sources(data)));
    });
    // The same calls outside the pool: rayon's global pool, and tine's.
    out.push(format!("{:?}", slices(data)));
    out.push(format!("{:?}", recursion(data)));
    out.join("\n")
}

/// The per-thread calls: `current_num_threads`, `current_thread_index`,
/// `broadcast`, `max_num_threads`.
fn pool_calls(pool: &rayon::ThreadPool) -> (usize, Vec<usize>, Vec<usize>, bool) {
    let threads = rayon::current_num_threads();
    assert_eq!(threads, 3);
    let indices = pool.broadcast(|ctx| {
        assert_eq!(ctx.num_threads(), 3);
        ctx.index()
    });
    assert_eq!(indices, [0, 1, 2]);
    let sizes = rayon::broadcast(|ctx| ctx.num_threads());
    // Inside `install` (this function's caller), with nothing pending.
    assert_eq!(rayon::yield_now(), Some(rayon::Yield::Idle));
    assert_eq!(rayon::yield_local(), Some(rayon::Yield::Idle));
    let mut in_place = 0;
    rayon::in_place_scope(|s| s.spawn(|_| in_place = 1));
    pool.in_place_scope(|s| s.spawn(|_| in_place += 1));
    assert_eq!(in_place, 2);
    // Per-thread slots, indexed by the thread's index in its pool.
    let slots: Vec<std::sync::atomic::AtomicUsize> =
        (0..threads).map(|_| Default::default()).collect();
    (0..10_000).into_par_iter().for_each(|_| {
        let index = rayon::current_thread_index().expect("inside the pool");
        slots[index].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let total: usize = slots
        .iter()
        .map(|slot| slot.load(std::sync::atomic::Ordering::Relaxed))
        .sum();
    assert_eq!(total, 10_000);
    (threads, indices, sizes, rayon::max_num_threads() >= threads)
}

type Sums = Vec<i64>;

/// Windows and chunks of every kind, shared and mutable.
fn slices(data: &[i64]) -> (Sums, Sums, Sums, Sums, Vec<i64>) {
    let sum = |piece: &[i64]| piece.iter().sum::<i64>();
    let windows: Sums = data.par_windows(3).map(sum).collect();
    assert_eq!(windows, data.windows(3).map(sum).collect::<Sums>());
    let exact: Sums = data.par_chunks_exact(4).map(sum).collect();
    assert_eq!(exact, data.chunks_exact(4).map(sum).collect::<Sums>());
    let back: Sums = data.par_rchunks(5).map(sum).collect();
    assert_eq!(back, data.rchunks(5).map(sum).collect::<Sums>());
    let back_exact: Sums = data.par_rchunks_exact(5).map(sum).collect();
    assert_eq!(back_exact, data.rchunks_exact(5).map(sum).collect::<Sums>());
    assert_eq!(
        data.par_windows(2).filter(|w| w[0] <= w[1]).count(),
        data.windows(2).filter(|w| w[0] <= w[1]).count()
    );

    let mut v = data.to_vec();
    let mut serial = data.to_vec();
    v.par_chunks_exact_mut(2).for_each(|pair| pair.swap(0, 1));
    serial.chunks_exact_mut(2).for_each(|pair| pair.swap(0, 1));
    v.par_rchunks_mut(3)
        .enumerate()
        .for_each(|(i, chunk)| chunk[0] += i as i64);
    serial
        .rchunks_mut(3)
        .enumerate()
        .for_each(|(i, chunk)| chunk[0] += i as i64);
    v.par_rchunks_exact_mut(4).for_each(|chunk| chunk.reverse());
    serial
        .rchunks_exact_mut(4)
        .for_each(|chunk| chunk.reverse());
    assert_eq!(v, serial);
    (windows, exact, back, back_exact, v)
}

/// `partition_map` with `Either`, `partition` and `unzip`.
fn either_and_partitions(data: &[i64]) -> (Vec<i64>, Vec<String>, Vec<i64>, Vec<i64>) {
    let (evens, odds): (Vec<i64>, Vec<String>) = data.par_iter().partition_map(|&x| {
        if x % 2 == 0 {
            Either::Left(x / 2)
        } else {
            Either::Right(x.to_string())
        }
    });
    assert_eq!(
        evens,
        data.iter()
            .filter(|x| *x % 2 == 0)
            .map(|x| x / 2)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        odds,
        data.iter()
            .filter(|x| *x % 2 != 0)
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
    );
    let (small, large): (Vec<i64>, Vec<i64>) = data.par_iter().partition(|&&x| x < 100);
    assert_eq!(small.len() + large.len(), data.len());
    (evens, odds, small, large)
}

/// `join` and `scope`, free and on a pool, recursing.
fn recursion(data: &[i64]) -> (i64, i64, Vec<i64>) {
    fn sum(s: &[i64]) -> i64 {
        if s.len() <= 4 {
            return s.iter().sum();
        }
        let (left, right) = s.split_at(s.len() / 2);
        let (a, b) = rayon::join(|| sum(left), || sum(right));
        a + b
    }
    let total = sum(data);
    assert_eq!(total, data.iter().sum::<i64>());
    let mut parts = vec![0i64; 4];
    let chunk = data.len().div_ceil(4).max(1);
    rayon::scope(|s| {
        for (part, piece) in parts.iter_mut().zip(data.chunks(chunk)) {
            s.spawn(move |s| {
                let (a, b) = piece.split_at(piece.len() / 2);
                let (left, right) = (&mut 0i64, &mut 0i64);
                s.spawn(|_| ());
                rayon::join(|| *left = a.iter().sum(), || *right = b.iter().sum());
                *part = *left + *right;
            });
        }
    });
    assert_eq!(parts.iter().sum::<i64>(), total);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let (a, b) = pool.join(|| sum(data), || data.len() as i64);
    let mut counted = 0i64;
    pool.scope(|s| s.spawn(|_| counted = b));
    (a, counted, parts)
}

/// The sorts, by the path rayon programs import them from.
fn sorting(data: &[i64]) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    let mut v = data.to_vec();
    v.par_sort();
    let mut serial = data.to_vec();
    serial.sort();
    assert_eq!(v, serial);
    out.push(v.clone());
    v.par_sort_unstable_by(|a, b| b.cmp(a));
    serial.reverse();
    assert_eq!(v, serial);
    out.push(v.clone());
    v.par_sort_by_key(|x| x.rem_euclid(7));
    serial.sort_by_key(|x| x.rem_euclid(7));
    assert_eq!(v, serial);
    out.push(v);
    out
}

/// `fold_with` and `with_min_len`: every partial covers at least `min`
/// items (rayon's promise), and the partials add up.
fn folds(data: &[i64]) -> (i64, bool) {
    let total: i64 = data.par_iter().fold_with(0i64, |a, &x| a + x).sum();
    assert_eq!(total, data.iter().sum::<i64>());
    let counts: Vec<usize> = data
        .par_iter()
        .with_min_len(64)
        .fold(|| 0usize, |n, _| n + 1)
        .collect();
    assert_eq!(counts.iter().sum::<usize>(), data.len());
    let short = counts.iter().any(|&n| n < 64.min(data.len()));
    assert!(!short, "a partial under with_min_len(64): {counts:?}");
    (total, short)
}

/// `flat_map` with a parallel inner iterator, `flatten` and
/// `flatten_iter`, in input order.
fn flat_maps(data: &[i64]) -> (Vec<i64>, i64, Vec<i64>) {
    let doubled: Vec<i64> = data
        .par_chunks(5)
        .flat_map(|chunk| chunk.par_iter().map(|x| x * 2))
        .collect();
    assert_eq!(doubled, data.iter().map(|x| x * 2).collect::<Vec<_>>());
    let nested: Vec<Vec<i64>> = data.chunks(3).map(<[i64]>::to_vec).collect();
    let total: i64 = nested.par_iter().flatten().sum();
    assert_eq!(total, data.iter().sum::<i64>());
    let flat: Vec<i64> = nested.into_par_iter().flatten_iter().collect();
    assert_eq!(flat, data);
    (doubled, total, flat)
}

/// The results of [`indexed_adaptors`], in the order it computes them.
type Adapted = (
    Vec<i64>,
    Vec<i64>,
    Vec<Vec<i64>>,
    Vec<i64>,
    Vec<i64>,
    Vec<usize>,
    (Vec<i64>, Vec<String>),
    Vec<i64>,
    Vec<i64>,
    Vec<i64>,
    (Option<i64>, Result<i64, i64>),
    (usize, usize, usize),
);

/// rayon's reordering, chunking and counting adaptors: `rev`, `step_by`,
/// `chunks`, `fold_chunks(_with)`, `positions`, `unzip_into_vecs`,
/// `interleave(_shortest)`, `by_exponential_blocks`, `by_uniform_blocks`,
/// `update`, `try_fold(_with)`, `take_any` and `skip_any`, each checked
/// against serial code.
fn indexed_adaptors(data: &[i64]) -> Adapted {
    let rev: Vec<i64> = data.par_iter().rev().copied().collect();
    assert!(rev.iter().eq(data.iter().rev()));
    let stepped: Vec<i64> = data.par_iter().step_by(3).copied().collect();
    assert!(stepped.iter().eq(data.iter().step_by(3)));
    let chunks: Vec<Vec<i64>> = data.par_iter().copied().chunks(4).collect();
    assert_eq!(
        chunks,
        data.chunks(4).map(<[i64]>::to_vec).collect::<Vec<_>>()
    );
    let sums: Vec<i64> = data.chunks(5).map(|c| c.iter().sum()).collect();
    let folded: Vec<i64> = data
        .par_iter()
        .fold_chunks(5, || 0, |a, &x| a + x)
        .collect();
    assert_eq!(folded, sums);
    let folded_with: Vec<i64> = data
        .par_iter()
        .fold_chunks_with(5, 0i64, |a, &x| a + x)
        .collect();
    assert_eq!(folded_with, sums);
    let positions: Vec<usize> = data.par_iter().positions(|&x| x % 3 == 0).collect();
    let serial: Vec<usize> = (0..data.len()).filter(|&i| data[i] % 3 == 0).collect();
    assert_eq!(positions, serial);
    let (mut left, mut right) = (vec![1i64], Vec::new());
    data.par_iter()
        .map(|&x| (x, x.to_string()))
        .unzip_into_vecs(&mut left, &mut right);
    assert_eq!(left, data);
    let half = &data[..data.len() / 3];
    let mixed: Vec<i64> = data
        .par_iter()
        .copied()
        .interleave(half.par_iter().copied())
        .collect();
    let mut serial = Vec::new();
    for (i, &x) in data.iter().enumerate() {
        serial.push(x);
        serial.extend(half.get(i));
    }
    assert_eq!(mixed, serial);
    let shortest: Vec<i64> = half
        .par_iter()
        .copied()
        .interleave_shortest(data.par_iter().copied())
        .collect();
    let pairs = half.iter().zip(data).flat_map(|(&a, &b)| [a, b]);
    assert!(shortest.iter().copied().eq(pairs));
    let blocks: Vec<i64> = data
        .par_iter()
        .by_exponential_blocks()
        .copied()
        .chain(data.par_iter().by_uniform_blocks(7).copied())
        .update(|x| *x += 1)
        .collect();
    assert!(blocks
        .iter()
        .copied()
        .eq(data.iter().chain(data).map(|x| x + 1)));
    let small = |a: i64, x: i64| (x.abs() < 490).then_some(a + x);
    let tried = data
        .par_iter()
        .try_fold(|| 0i64, |a, &x| small(a, x))
        .try_reduce(|| 0, |a, b| Some(a + b));
    assert_eq!(tried, data.iter().try_fold(0, |a, &x| small(a, x)));
    let checked: Result<i64, i64> = data
        .par_iter()
        .try_fold_with(0i64, |a, &x| a.checked_add(x).ok_or(x))
        .try_reduce(|| 0, |a, b| a.checked_add(b).ok_or(0));
    assert_eq!(checked, Ok(data.iter().sum::<i64>()));
    let counts = (
        data.par_iter().take_any(10).count(),
        data.par_iter().filter(|&&x| x > 0).skip_any(10).count(),
        data.par_iter().skip_any(data.len() / 2).count(),
    );
    let positive = data.iter().filter(|&&x| x > 0).count();
    assert_eq!(
        counts,
        (
            data.len().min(10),
            positive.saturating_sub(10),
            data.len() - data.len() / 2
        )
    );
    (
        rev,
        stepped,
        chunks,
        folded,
        folded_with,
        positions,
        (left, right),
        mixed,
        shortest,
        blocks,
        (tried, checked),
        counts,
    )
}

/// The string methods (`rayon::str::ParallelString`) and the slice
/// splits, on a text made from `data`, each equal to `std`'s serial result.
fn strings(data: &[i64]) -> (Vec<String>, Vec<usize>, Vec<usize>, usize, Vec<i64>) {
    let text: String = data
        .iter()
        .enumerate()
        .map(|(i, x)| match i % 6 {
            0 => format!("{x}\n"),
            1 => format!("{x}\r\n"),
            2 => format!("{x} é "),
            3 => format!("{x},,"),
            _ => format!("{x},"),
        })
        .collect();
    let text = text.as_str();
    let pieces: Vec<&str> = text.par_split(',').collect();
    assert_eq!(pieces, text.split(',').collect::<Vec<_>>());
    let terminated: Vec<&str> = text.par_split_terminator([',', '\n']).collect();
    assert_eq!(
        terminated,
        text.split_terminator([',', '\n']).collect::<Vec<_>>()
    );
    let inclusive: Vec<&str> = text.par_split_inclusive(|c: char| c == 'é').collect();
    assert_eq!(inclusive, text.split_inclusive('é').collect::<Vec<_>>());
    let lines: Vec<String> = text.par_lines().map(String::from).collect();
    assert_eq!(lines, text.lines().collect::<Vec<_>>());
    let words: Vec<usize> = text.par_split_whitespace().map(str::len).collect();
    assert_eq!(
        words,
        text.split_whitespace().map(str::len).collect::<Vec<_>>()
    );
    let ascii_words = text.par_split_ascii_whitespace().count();
    assert_eq!(ascii_words, text.split_ascii_whitespace().count());
    let chars = rayon::str::ParallelString::par_chars(text).filter(|c| c.is_ascii_digit());
    assert_eq!(
        chars.count(),
        text.chars().filter(char::is_ascii_digit).count()
    );
    let accents: Vec<usize> = text
        .par_char_indices()
        .filter(|&(_, c)| c == 'é')
        .map(|(i, _)| i)
        .collect();
    let serial: Vec<usize> = text
        .char_indices()
        .filter(|&(_, c)| c == 'é')
        .map(|(i, _)| i)
        .collect();
    assert_eq!(accents, serial);
    let (bytes, units) = (
        text.par_bytes().map(usize::from).sum::<usize>(),
        text.par_encode_utf16().count(),
    );
    assert_eq!(bytes, text.bytes().map(usize::from).sum::<usize>());
    assert_eq!(units, text.encode_utf16().count());
    let matched: Vec<usize> = text
        .par_match_indices(&['\r', 'é'][..])
        .map(|(i, _)| i)
        .collect();
    let serial: Vec<usize> = text
        .match_indices(&['\r', 'é'][..])
        .map(|(i, _)| i)
        .collect();
    assert_eq!(matched, serial);
    assert_eq!(text.par_matches(',').count(), text.matches(',').count());

    let sum = |piece: &[i64]| piece.iter().sum::<i64>();
    let mut sums: Vec<i64> = data.par_split(|x| x % 7 == 0).map(sum).collect();
    assert_eq!(
        sums,
        data.split(|x| x % 7 == 0).map(sum).collect::<Vec<_>>()
    );
    let inclusive_sums: Vec<i64> = data.par_split_inclusive(|x| x % 5 == 0).map(sum).collect();
    assert_eq!(
        inclusive_sums,
        data.split_inclusive(|x| x % 5 == 0)
            .map(sum)
            .collect::<Vec<_>>()
    );
    let (mut v, mut serial) = (data.to_vec(), data.to_vec());
    v.par_split_mut(|x| x % 4 == 0)
        .for_each(|piece| piece.reverse());
    serial
        .split_mut(|x| x % 4 == 0)
        .for_each(|piece| piece.reverse());
    v.par_split_inclusive_mut(|x| x % 3 == 0)
        .for_each(|piece| piece.rotate_left(1));
    serial
        .split_inclusive_mut(|x| x % 3 == 0)
        .for_each(|piece| piece.rotate_left(1));
    assert_eq!(v, serial);
    sums.extend(v);
    (lines, words, accents, bytes + units + ascii_words, sums)
}

/// A source typed by rayon's module paths: `rayon::vec::IntoIter` and
/// friends, as a program names them in a signature.
fn evens(v: Vec<i64>) -> rayon::iter::Filter<rayon::vec::IntoIter<i64>, fn(&i64) -> bool> {
    v.into_par_iter().filter(|x| x % 2 == 0)
}

/// rayon's adaptor types named in a signature.
fn tripled(s: &[i64]) -> rayon::iter::Map<rayon::slice::Iter<'_, i64>, fn(&i64) -> i64> {
    s.par_iter().map(|x| x * 3)
}

/// The results of [`bridges_and_sources`], in the order it computes them.
type Bridged = (Vec<i64>, i64, Vec<i64>, Vec<(i64, usize)>, usize);

/// `par_bridge`, the small sources (`empty`, `once`, `repeat`,
/// `repeat_n`, `Option`, `Result`, arrays) and rayon's module paths for
/// the source iterators.
fn bridges_and_sources(data: &[i64]) -> Bridged {
    // A serial iterator bridged: the order is unspecified, so sort.
    let mut bridged: Vec<i64> = data.iter().map(|x| x * 3).par_bridge().collect();
    bridged.sort_unstable();
    let mut serial: Vec<i64> = data.iter().map(|x| x * 3).collect();
    serial.sort_unstable();
    assert_eq!(bridged, serial);
    let lines: String = data.iter().map(|x| format!("{x}\n")).collect();
    let bridged_sum: i64 = lines
        .lines()
        .par_bridge()
        .map(|l| l.parse::<i64>().unwrap())
        .sum();
    assert_eq!(bridged_sum, data.iter().sum::<i64>());
    // The small sources.
    let none: Vec<i64> = rayon::iter::empty().collect();
    let mut small: Vec<i64> = rayon::iter::once(7).chain(none).collect();
    small.extend(Some(8).into_par_iter().collect::<Vec<_>>());
    small.extend(Ok::<i64, ()>(9).par_iter().copied().collect::<Vec<_>>());
    small.extend(
        [1i64, 2, 3]
            .into_par_iter()
            .map(|x| x * 10)
            .collect::<Vec<_>>(),
    );
    small.extend(rayon::iter::repeat_n(4i64, 2).collect::<Vec<_>>());
    assert_eq!(small, [7, 8, 9, 10, 20, 30, 4, 4]);
    let tagged: Vec<(i64, usize)> = rayon::iter::repeat(5i64)
        .zip(0..data.len().min(4))
        .collect();
    assert_eq!(tagged.len(), data.len().min(4));
    // Typed by rayon's paths.
    let evens_len = evens(data.to_vec()).count();
    assert_eq!(tripled(data).sum::<i64>(), 3 * data.iter().sum::<i64>());
    assert_eq!(evens_len, data.iter().filter(|x| *x % 2 == 0).count());
    let range: rayon::range::Iter<usize> = (0..data.len()).into_par_iter();
    let inclusive: rayon::range_inclusive::Iter<i64> = (1..=3).into_par_iter();
    let opt: rayon::option::IntoIter<i64> = data.first().copied().into_par_iter();
    let slice: rayon::slice::Iter<'_, i64> = data.par_iter();
    let chunks: rayon::slice::Chunks<'_, i64> = data.par_chunks(3);
    let map: std::collections::HashMap<i64, usize> =
        data.iter().enumerate().map(|(i, &x)| (x, i)).collect();
    let keys: rayon::collections::hash_map::Iter<'_, i64, usize> = map.par_iter();
    let total = range.count()
        + inclusive.count()
        + opt.count()
        + slice.count()
        + chunks.count()
        + keys.count();
    assert_eq!(
        total,
        data.len()
            + 3
            + usize::from(!data.is_empty())
            + data.len()
            + data.len().div_ceil(3)
            + map.len()
    );
    (bridged, bridged_sum, small, tagged, total)
}

/// `rayon::iter::split` and the tree walks. How finely `split` cuts is up
/// to the crate, so only the pieces' concatenation is compared.
fn recursive_sources(data: &[i64]) -> (Vec<i64>, Vec<usize>, Vec<usize>) {
    let pieces: Vec<&[i64]> = rayon::iter::split(data, |s| {
        if s.len() < 8 {
            (s, None)
        } else {
            let (a, b) = s.split_at(s.len() / 2);
            (a, Some(b))
        }
    })
    .collect();
    let joined: Vec<i64> = pieces.concat();
    assert_eq!(joined, data);
    // A heap-shaped tree over the data's positions.
    let n = data.len();
    let kids = |&i: &usize| (2 * i + 1..2 * i + 3).filter(move |&c| c < n);
    let (pre, post): (Vec<usize>, Vec<usize>) = if n == 0 {
        (Vec::new(), Vec::new())
    } else {
        (
            rayon::iter::walk_tree_prefix(0, kids).collect(),
            rayon::iter::walk_tree_postfix(0, kids).collect(),
        )
    };
    assert_eq!(pre.len(), n);
    assert_eq!(post.last().copied(), n.checked_sub(1).map(|_| 0));
    let mut all: Vec<usize> = if n == 0 {
        Vec::new()
    } else {
        rayon::iter::walk_tree(0, kids).collect()
    };
    all.sort_unstable();
    assert!(all.into_iter().eq(0..n));
    (joined, pre, post)
}
