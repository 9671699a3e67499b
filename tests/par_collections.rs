//! `collect` into the standard collections, `par_extend`, `partition` and
//! `unzip`, and the collections as sources, against their serial
//! counterparts: random lengths, thread
//! counts 1..=6, every schedule, the cutoff adaptive and forced to fork;
//! and owned items dropped once when an item panics.
#![cfg(not(loom))]

mod par_common;

use par_common::{pool, schedule_strategy, Counted};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;
use tine::ThreadPool;

/// Every collection call on `data`, checked against `Iterator`.
fn check_all(data: &[i64], pool: &ThreadPool, schedule: Schedule) {
    let par = || data.par_iter().with_pool(pool).schedule(schedule);
    let pairs = || data.iter().enumerate().map(|(i, &x)| (x % 64, i));

    let got: HashMap<i64, usize> = par().enumerate().map(|(i, &x)| (x % 64, i)).collect();
    assert_eq!(
        got,
        pairs().collect::<HashMap<_, _>>(),
        "HashMap: the last of equal keys"
    );
    let got: BTreeMap<i64, usize> = par().enumerate().map(|(i, &x)| (x % 64, i)).collect();
    assert_eq!(got, pairs().collect::<BTreeMap<_, _>>());
    let got: HashSet<i64> = par().map(|x| x % 100).collect();
    assert_eq!(got, data.iter().map(|x| x % 100).collect::<HashSet<_>>());
    let got: BTreeSet<i64> = par().copied().collect();
    assert_eq!(got, data.iter().copied().collect::<BTreeSet<_>>());
    let got: VecDeque<i64> = par().filter(|&&x| x > 0).copied().collect();
    assert_eq!(
        got,
        data.iter()
            .filter(|&&x| x > 0)
            .copied()
            .collect::<VecDeque<_>>()
    );
    let got: LinkedList<i64> = par().copied().collect();
    assert_eq!(got, data.iter().copied().collect::<LinkedList<_>>());
    let got: BinaryHeap<i64> = par().copied().collect();
    assert_eq!(got.into_sorted_vec(), {
        let mut sorted = data.to_vec();
        sorted.sort();
        sorted
    });
    let got: String = par()
        .map(|x| char::from(b'a' + x.rem_euclid(26) as u8))
        .collect();
    let want: String = data
        .iter()
        .map(|x| char::from(b'a' + x.rem_euclid(26) as u8))
        .collect();
    assert_eq!(got, want);
    let got: String = par().map(|x| format!("{x};")).collect();
    assert_eq!(
        got,
        data.iter().map(|x| format!("{x};")).collect::<String>()
    );
    let got: Result<BTreeSet<i64>, i64> = par()
        .map(|&x| if x > 900 { Err(x) } else { Ok(x) })
        .collect();
    match got {
        Ok(set) => {
            assert!(data.iter().all(|&x| x <= 900));
            assert_eq!(set, data.iter().copied().collect());
        }
        Err(x) => assert!(x > 900 && data.contains(&x), "an error of the input"),
    }

    let (even, odd): (Vec<i64>, VecDeque<i64>) = par().partition(|&&x| x % 2 == 0);
    let want_even: Vec<i64> = data.iter().copied().filter(|x| x % 2 == 0).collect();
    let want_odd: VecDeque<i64> = data.iter().copied().filter(|x| x % 2 != 0).collect();
    assert_eq!((even, odd), (want_even, want_odd));
    let (small, big): (HashSet<i64>, Vec<i64>) = par().copied().partition(|&x| x < 0);
    assert_eq!(small, data.iter().copied().filter(|&x| x < 0).collect());
    assert_eq!(
        big,
        data.iter().copied().filter(|&x| x >= 0).collect::<Vec<_>>()
    );
    let (firsts, seconds): (Vec<i64>, BTreeMap<usize, i64>) =
        par().enumerate().map(|(i, &x)| (x, (i, -x))).unzip();
    assert_eq!(firsts, data);
    assert_eq!(
        seconds,
        data.iter().enumerate().map(|(i, &x)| (i, -x)).collect()
    );

    let mut extended = vec![1i64, 2];
    extended.par_extend(par().map(|x| x * 3));
    extended.par_extend(par());
    let want: Vec<i64> = [1, 2]
        .into_iter()
        .chain(data.iter().map(|x| x * 3))
        .chain(data.iter().copied())
        .collect();
    assert_eq!(extended, want);
    let mut map: HashMap<i64, usize> = HashMap::from([(-5000, 0)]);
    map.par_extend(par().enumerate().map(|(i, &x)| (x % 64, i)));
    let mut want: HashMap<i64, usize> = HashMap::from([(-5000, 0)]);
    want.extend(pairs());
    assert_eq!(map, want);
    let (): () = par().map(|_| ()).collect();
    let boxed: Box<[i64]> = par().map(|x| x + 1).collect();
    assert_eq!(&*boxed, &data.iter().map(|x| x + 1).collect::<Vec<_>>()[..]);
    let chars: Vec<char> = data
        .iter()
        .map(|x| char::from(b'a' + x.rem_euclid(26) as u8))
        .collect();
    let got: String = chars.par_iter().with_pool(pool).collect();
    assert_eq!(got, chars.iter().collect::<String>());
    let (lows, highs): (Vec<i64>, BTreeSet<i64>) = par().map(|&x| (x / 2, x * 2)).collect();
    assert_eq!(lows, data.iter().map(|x| x / 2).collect::<Vec<_>>());
    assert_eq!(highs, data.iter().map(|x| x * 2).collect());
    let mut reserved: Vec<i64> = Vec::with_capacity(10_000);
    reserved.par_extend(par().copied());
    assert_eq!(reserved, data);
    assert!(
        reserved.capacity() >= 10_000,
        "par_extend keeps the reserved capacity"
    );
}

/// Every collection as a source, by value, by reference and by mutable
/// reference, checked against its serial iterator.
fn check_sources(data: &[i64], pool: &ThreadPool) {
    let pairs: Vec<(i64, i64)> = data.iter().map(|&x| (x, x * 2)).collect();
    let mut hash: HashMap<i64, i64> = pairs.iter().copied().collect();
    let sum = |items: &mut dyn Iterator<Item = i64>| items.fold(0i64, |a, b| a.wrapping_add(b));
    let want = sum(&mut hash.iter().map(|(k, v)| k * 3 + v));
    assert_eq!(
        hash.par_iter()
            .with_pool(pool)
            .map(|(k, v)| k * 3 + v)
            .sum::<i64>(),
        want
    );
    hash.par_iter_mut()
        .with_pool(pool)
        .for_each(|(_, v)| *v += 1);
    assert!(hash.iter().all(|(k, v)| *v == k * 2 + 1));
    let mut got: Vec<(i64, i64)> = hash.clone().into_par_iter().with_pool(pool).collect();
    got.sort();
    let mut want: Vec<(i64, i64)> = hash.into_iter().collect();
    want.sort();
    assert_eq!(got, want);

    let mut tree: BTreeMap<i64, i64> = pairs.iter().copied().collect();
    let keys: Vec<i64> = tree.par_iter().with_pool(pool).map(|(k, _)| *k).collect();
    assert_eq!(
        keys,
        tree.keys().copied().collect::<Vec<_>>(),
        "in the map's order"
    );
    tree.par_iter_mut()
        .with_pool(pool)
        .for_each(|(k, v)| *v -= k);
    assert!(tree.values().zip(tree.keys()).all(|(v, k)| v == k));
    let owned: Vec<(i64, i64)> = tree.clone().into_par_iter().with_pool(pool).collect();
    assert_eq!(owned, tree.into_iter().collect::<Vec<_>>());

    let set: HashSet<i64> = data.iter().copied().collect();
    assert_eq!(set.par_iter().with_pool(pool).count(), set.len());
    let mut got: Vec<i64> = set.clone().into_par_iter().with_pool(pool).collect();
    got.sort();
    assert_eq!(
        got,
        data.iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
    let tree_set: BTreeSet<i64> = data.iter().copied().collect();
    let got: Vec<i64> = tree_set.par_iter().with_pool(pool).copied().collect();
    assert_eq!(got, tree_set.iter().copied().collect::<Vec<_>>());
    assert_eq!(
        tree_set
            .clone()
            .into_par_iter()
            .with_pool(pool)
            .collect::<Vec<_>>(),
        got
    );

    let mut deque: VecDeque<i64> = data.iter().copied().collect();
    deque.rotate_left(data.len() / 3);
    let want: Vec<i64> = deque.iter().copied().collect();
    assert_eq!(
        deque
            .par_iter()
            .with_pool(pool)
            .copied()
            .collect::<Vec<_>>(),
        want
    );
    deque.par_iter_mut().with_pool(pool).for_each(|x| *x += 1);
    let got: Vec<i64> = deque
        .into_par_iter()
        .with_pool(pool)
        .map(|x| x - 1)
        .collect();
    assert_eq!(got, want);

    let mut list: LinkedList<i64> = data.iter().copied().collect();
    list.par_iter_mut().with_pool(pool).for_each(|x| *x *= 2);
    assert_eq!(
        list.par_iter().with_pool(pool).copied().sum::<i64>(),
        data.iter().sum::<i64>() * 2
    );
    assert_eq!(
        list.into_par_iter().with_pool(pool).collect::<Vec<_>>(),
        data.iter().map(|x| x * 2).collect::<Vec<_>>()
    );

    let heap: BinaryHeap<i64> = data.iter().copied().collect();
    assert_eq!(
        heap.par_iter().with_pool(pool).copied().max(),
        data.iter().copied().max()
    );
    let mut got: Vec<i64> = heap.into_par_iter().with_pool(pool).collect();
    got.sort();
    let mut want = data.to_vec();
    want.sort();
    assert_eq!(got, want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_collection_source_equals_its_serial_iterator(
        data in proptest::collection::vec(-1000i64..1000, 0..3000),
        threads in 1usize..=6,
        fork in any::<bool>(),
    ) {
        let before = set_override(if fork { Override::AlwaysFork } else { Override::Adaptive });
        check_sources(&data, pool(threads));
        set_override(before);
    }

    #[test]
    fn every_collection_equals_its_serial_counterpart(
        data in proptest::collection::vec(-1000i64..1000, 0..5000),
        threads in 1usize..=6,
        schedule in schedule_strategy(),
        fork in any::<bool>(),
    ) {
        let before = set_override(if fork { Override::AlwaysFork } else { Override::Adaptive });
        check_all(&data, pool(threads), schedule);
        set_override(before);
    }
}

#[test]
fn a_panic_in_partition_or_unzip_drops_every_owned_item_once() {
    for fork in [Override::AlwaysFork, Override::Adaptive] {
        let before = set_override(fork);
        panics_in_partition_and_unzip();
        set_override(before);
    }
}

fn panics_in_partition_and_unzip() {
    let pool = pool(3);
    for n in [1usize, 10, 1000, 20_000] {
        for panic_at in [0, n / 2, n - 1] {
            let drops = AtomicUsize::new(0);
            let items: Vec<Counted<'_>> = (0..n).map(|i| Counted(i, &drops)).collect();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let (_a, _b): (Vec<Counted<'_>>, Vec<Counted<'_>>) =
                    items.into_par_iter().with_pool(pool).partition(|item| {
                        assert_ne!(item.0, panic_at, "injected");
                        item.0 % 2 == 0
                    });
            }));
            assert!(result.is_err(), "the panic reaches the caller");
            assert_eq!(
                drops.load(Relaxed),
                n,
                "partition: n = {n}, panic at {panic_at}"
            );

            let drops = AtomicUsize::new(0);
            let items: Vec<Counted<'_>> = (0..n).map(|i| Counted(i, &drops)).collect();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let (_a, _b): (Vec<Counted<'_>>, Vec<usize>) = items
                    .into_par_iter()
                    .with_pool(pool)
                    .map(|item| {
                        assert_ne!(item.0, panic_at, "injected");
                        let index = item.0;
                        (item, index)
                    })
                    .unzip();
            }));
            assert!(result.is_err(), "the panic reaches the caller");
            assert_eq!(
                drops.load(Relaxed),
                n,
                "unzip: n = {n}, panic at {panic_at}"
            );
        }
    }
    // The pool still works.
    let (a, b): (Vec<usize>, Vec<usize>) = (0..100usize)
        .into_par_iter()
        .with_pool(pool)
        .partition(|x| x % 3 == 0);
    assert_eq!(a.len() + b.len(), 100);
}
