//! `Clone` on parallel iterators, wherever rayon's are `Clone`: a clone of
//! an unconsumed iterator yields what the original yields, for every source
//! and adaptor, and the owned sources clone their items, so that every
//! item and every clone of one is dropped exactly once, whether both
//! iterators are consumed, one is dropped unconsumed, or one stops early.
//! Each test runs on a 3-thread pool, with calls forced to fork, forced to
//! stay on the caller, and left to the cutoff.
#![cfg(not(loom))]

mod scale;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;

/// Runs `body` in a 3-thread pool, once with each cutoff override.
fn every_way(mut body: impl FnMut()) {
    let pool = tine::spawn_pool(3);
    for way in [
        Override::AlwaysFork,
        Override::NeverFork,
        Override::Adaptive,
    ] {
        let before = set_override(way);
        pool.install(&mut body);
        set_override(before);
    }
}

/// The clone and the original collect to the same items, in order.
fn same<I>(iter: I) -> Vec<I::Item>
where
    I: ParallelIterator + Clone,
    I::Item: Debug + PartialEq,
{
    let copy = iter.clone();
    let first: Vec<_> = copy.collect();
    let second: Vec<_> = iter.collect();
    assert_eq!(first, second);
    second
}

/// As [`same`], for an iterator whose order is unspecified (`par_bridge`).
fn same_sorted<I>(iter: I)
where
    I: ParallelIterator + Clone,
    I::Item: Debug + Ord,
{
    let mut first: Vec<_> = iter.clone().collect();
    let mut second: Vec<_> = iter.collect();
    first.sort();
    second.sort();
    assert_eq!(first, second);
}

/// The lengths the tests run over.
fn lengths() -> Vec<usize> {
    [0, 1, 2, 3, 100, 5_000]
        .into_iter()
        .map(scale::size)
        .collect()
}

/// Who was made and how often each was dropped: every [`Tracked`] value,
/// clones included, gets its own serial number.
struct Ledger {
    made: AtomicUsize,
    drops: Vec<AtomicUsize>,
    /// How many more clones may be made before one panics.
    fuse: AtomicUsize,
}

impl Ledger {
    fn new(room: usize) -> Arc<Ledger> {
        Arc::new(Ledger {
            made: AtomicUsize::new(0),
            drops: (0..room).map(|_| AtomicUsize::new(0)).collect(),
            fuse: AtomicUsize::new(usize::MAX),
        })
    }

    fn item(self: &Arc<Self>, id: usize) -> Tracked {
        let serial = self.made.fetch_add(1, Relaxed);
        assert!(serial < self.drops.len(), "the ledger is too small");
        Tracked {
            id,
            serial,
            ledger: Arc::clone(self),
        }
    }

    fn items(self: &Arc<Self>, n: usize) -> Vec<Tracked> {
        (0..n).map(|id| self.item(id)).collect()
    }

    /// Asserts that every value made is dropped, exactly once; returns how
    /// many were made.
    fn all_dropped_once(&self) -> usize {
        let made = self.made.load(Relaxed);
        for (serial, drops) in self.drops[..made].iter().enumerate() {
            assert_eq!(drops.load(Relaxed), 1, "value {serial} of {made}");
        }
        made
    }
}

/// An item that counts its drops in a [`Ledger`]; compared by `id` alone.
struct Tracked {
    id: usize,
    serial: usize,
    ledger: Arc<Ledger>,
}

impl Clone for Tracked {
    fn clone(&self) -> Self {
        let fuse = &self.ledger.fuse;
        if fuse
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(1))
            .is_err()
        {
            panic!("the fuse went out at #{}", self.id);
        }
        self.ledger.item(self.id)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.ledger.drops[self.serial].fetch_add(1, Relaxed);
    }
}

impl Debug for Tracked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.id)
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Tracked {}
impl PartialOrd for Tracked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Tracked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}

impl std::hash::Hash for Tracked {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

/// The ids of `items`.
fn ids(items: &[Tracked]) -> Vec<usize> {
    items.iter().map(|t| t.id).collect()
}

/// Runs the four ways of using an owned iterator and its clone on the
/// iterator `make` builds from a fresh ledger, each with its own ledger:
/// both collected (to `want`'s ids), the clone dropped unconsumed, the
/// original dropped unconsumed, and one stopped early by `find_first`.
/// Each time every value made must be dropped exactly once (so a clone
/// shares no value with its original).
fn owned_four_ways<I>(make: impl Fn(&Arc<Ledger>) -> I, want: &[usize])
where
    I: ParallelIterator<Item = Tracked> + Clone,
{
    let room = 64 * want.len() + 4096;
    let n = want.len();

    let ledger = Ledger::new(room);
    let original = make(&ledger);
    let made_before = ledger.made.load(Relaxed);
    let copy = original.clone();
    assert!(
        ledger.made.load(Relaxed) >= made_before + n.min(1),
        "nothing cloned"
    );
    let (a, b): (Vec<Tracked>, Vec<Tracked>) = (copy.collect(), original.collect());
    assert_eq!((ids(&a), ids(&b)), (want.to_vec(), want.to_vec()));
    drop((a, b));
    ledger.all_dropped_once();

    let ledger = Ledger::new(room);
    let original = make(&ledger);
    drop(original.clone());
    assert_eq!(ids(&original.collect::<Vec<_>>()), want);
    ledger.all_dropped_once();

    let ledger = Ledger::new(room);
    let original = make(&ledger);
    let copy = original.clone();
    drop(original);
    assert_eq!(ids(&copy.collect::<Vec<_>>()), want);
    ledger.all_dropped_once();

    let ledger = Ledger::new(room);
    let original = make(&ledger);
    let copy = original.clone();
    let middle = want.get(n / 2).copied();
    let found = copy.find_first(|t| Some(t.id) == middle).map(|t| t.id);
    assert_eq!(found, middle);
    assert_eq!(ids(&original.collect::<Vec<_>>()), want);
    ledger.all_dropped_once();
}

#[test]
fn owned_vec_and_its_adaptors() {
    every_way(|| {
        for n in lengths() {
            let all: Vec<usize> = (0..n).collect();
            owned_four_ways(|l| l.items(n).into_par_iter(), &all);
            let boxed = |l: &Arc<Ledger>| l.items(n).into_boxed_slice().into_par_iter();
            owned_four_ways(boxed, &all);
            let ordered = |l: &Arc<Ledger>| {
                l.items(n)
                    .into_par_iter()
                    .with_max_len(7)
                    .schedule(Schedule::Dynamic { grain: 5 })
            };
            owned_four_ways(ordered, &all);
            let evens: Vec<usize> = (0..n).filter(|i| i % 2 == 0).collect();
            let filtered = |l: &Arc<Ledger>| l.items(n).into_par_iter().filter(|t| t.id % 2 == 0);
            owned_four_ways(filtered, &evens);
            let stepped = |l: &Arc<Ledger>| l.items(n).into_par_iter().step_by(2);
            owned_four_ways(stepped, &evens);
            let window: Vec<usize> = (0..n).skip(1).take(n / 2).collect();
            let skip_take = |l: &Arc<Ledger>| l.items(n).into_par_iter().skip(1).take(n / 2);
            owned_four_ways(skip_take, &window);
            let backwards: Vec<usize> = (0..n).rev().collect();
            owned_four_ways(|l| l.items(n).into_par_iter().rev(), &backwards);
            let twice: Vec<usize> = (0..n).chain(0..n).collect();
            let chained = |l: &Arc<Ledger>| l.items(n).into_par_iter().chain(l.items(n));
            owned_four_ways(chained, &twice);
            let mixed: Vec<usize> = (0..n).flat_map(|i| [i, i]).collect();
            let woven = |l: &Arc<Ledger>| l.items(n).into_par_iter().interleave(l.items(n));
            owned_four_ways(woven, &mixed);
            let shorter: Vec<usize> = (0..n / 2).collect();
            let zipped = |l: &Arc<Ledger>| {
                l.items(n / 2)
                    .into_par_iter()
                    .zip(l.items(n))
                    .map(|(a, b)| if a.id == b.id { a } else { b })
            };
            owned_four_ways(zipped, &shorter);
            let mapped = |l: &Arc<Ledger>| {
                l.items(n)
                    .into_par_iter()
                    .enumerate()
                    .map_with(l.item(n), |_, (_, t)| t)
                    .update(|_| ())
                    .inspect(|_| ())
            };
            owned_four_ways(mapped, &all);
            let chunked = |l: &Arc<Ledger>| {
                l.items(n)
                    .into_par_iter()
                    .chunks(3)
                    .flat_map(|chunk| chunk)
                    .flat_map_iter(Some)
            };
            owned_four_ways(chunked, &all);
            let folded = |l: &Arc<Ledger>| {
                l.items(n)
                    .into_par_iter()
                    .fold(Vec::new, |mut v, t| {
                        v.push(t);
                        v
                    })
                    .flat_map_iter(|v| v)
            };
            owned_four_ways(folded, &all);
            let tried = |l: &Arc<Ledger>| {
                l.items(n)
                    .into_par_iter()
                    .try_fold_with(Vec::new(), |mut v, t| {
                        v.push(t);
                        Some(v)
                    })
                    .flat_map_iter(|v| v.into_iter().flatten())
            };
            owned_four_ways(tried, &all);
        }
    });
}

#[test]
fn owned_collections() {
    every_way(|| {
        for n in lengths() {
            let all: Vec<usize> = (0..n).collect();
            owned_four_ways(
                |l| {
                    l.items(n)
                        .into_iter()
                        .collect::<VecDeque<_>>()
                        .into_par_iter()
                },
                &all,
            );
            owned_four_ways(
                |l| {
                    l.items(n)
                        .into_iter()
                        .collect::<LinkedList<_>>()
                        .into_par_iter()
                },
                &all,
            );
            owned_four_ways(
                |l| {
                    l.items(n)
                        .into_iter()
                        .collect::<BTreeSet<_>>()
                        .into_par_iter()
                },
                &all,
            );
            // Built alike from the same ids, two heaps lay them out alike.
            let heap_order: Vec<usize> = (0..n).collect::<BinaryHeap<_>>().into_vec();
            let heap = |l: &Arc<Ledger>| {
                l.items(n)
                    .into_iter()
                    .collect::<BinaryHeap<_>>()
                    .into_par_iter()
            };
            owned_four_ways(heap, &heap_order);
            // A hash set's order is its own: compare the clone's.
            let ledger = Ledger::new(4 * n + 16);
            // Hashed by `id` alone, which never changes.
            #[allow(clippy::mutable_key_type)]
            let set: HashSet<Tracked> = ledger.items(n).into_iter().collect();
            let mut got = ids(&same(set.into_par_iter()));
            got.sort_unstable();
            assert_eq!(got, all);
            assert_eq!(ledger.all_dropped_once(), 2 * n);
            let ledger = Ledger::new(4 * n + 16);
            let map: HashMap<usize, Tracked> =
                ledger.items(n).into_iter().map(|t| (t.id, t)).collect();
            let mut got = ids(&same(map.into_par_iter().map(|(_, t)| t)));
            got.sort_unstable();
            assert_eq!(got, all);
            assert_eq!(ledger.all_dropped_once(), 2 * n);
            let pairs = |l: &Arc<Ledger>| {
                let map: BTreeMap<usize, Tracked> =
                    l.items(n).into_iter().map(|t| (t.id, t)).collect();
                map.into_par_iter().map(|(_, t)| t)
            };
            owned_four_ways(pairs, &all);
        }
    });
}

#[test]
fn owned_inline_sources() {
    every_way(|| {
        owned_four_ways(|l| Some(l.item(7)).into_par_iter(), &[7]);
        owned_four_ways(|_| None::<Tracked>.into_par_iter(), &[]);
        owned_four_ways(|l| Ok::<_, ()>(l.item(7)).into_par_iter(), &[7]);
        owned_four_ways(|l| Err::<Tracked, _>(l.item(7)).into_par_iter(), &[]);
        owned_four_ways(
            |l| [l.item(0), l.item(1), l.item(2)].into_par_iter(),
            &[0, 1, 2],
        );
        owned_four_ways(|_| <[Tracked; 0]>::into_par_iter([]), &[]);
        owned_four_ways(|l| tine::iter::once(l.item(4)), &[4]);
        owned_four_ways(|_| tine::iter::empty::<Tracked>(), &[]);
        for n in lengths() {
            let fives = vec![5; n];
            owned_four_ways(|l| tine::iter::repeat_n(l.item(5), n), &fives);
            owned_four_ways(|l| tine::iter::repeat(l.item(5)).take(n), &fives);
            let all: Vec<usize> = (0..n).collect();
            // The gathered sources: `split` and the tree walks.
            let pieces = |l: &Arc<Ledger>| {
                tine::iter::split(l.items(n), |mut v| match v.len() {
                    0 | 1 => (v, None),
                    len => {
                        let back = v.split_off(len / 2);
                        (v, Some(back))
                    }
                })
                .flat_map_iter(|v| v)
            };
            owned_four_ways(pieces, &all);
            let walked = |l: &Arc<Ledger>| {
                let l = Arc::clone(l);
                tine::iter::walk_tree_prefix(l.item(0), move |t| {
                    let next = t.id + 1;
                    (next < n).then(|| l.item(next))
                })
            };
            let path: Vec<usize> = (0..n.max(1)).collect();
            owned_four_ways(walked, &path);
        }
    });
}

#[test]
fn bridge_clones_its_source() {
    every_way(|| {
        for n in lengths() {
            same_sorted((0..n).par_bridge());
            same_sorted((0..n).par_bridge().map(|x| x * 2).filter(|x| x % 3 != 0));
            let ledger = Ledger::new(4 * n + 16);
            let bridge = ledger.items(n).into_iter().par_bridge();
            let copy = bridge.clone();
            drop(bridge);
            let mut got = ids(&copy.collect::<Vec<_>>());
            got.sort_unstable();
            assert!(got.iter().copied().eq(0..n));
            assert_eq!(ledger.all_dropped_once(), 2 * n);
        }
    });
}

#[test]
fn borrowed_sources() {
    every_way(|| {
        for n in lengths() {
            let v: Vec<u32> = (0..n as u32).collect();
            same(v.par_iter());
            same((&v[..]).into_par_iter());
            same(v.par_chunks(7));
            same(v.par_chunks_exact(7));
            same(v.par_rchunks(7));
            same(v.par_rchunks_exact(7));
            same(v.par_windows(7));
            same(v.par_split(|x| x % 3 == 0));
            same(v.par_split_inclusive(|x| x % 3 == 0));
            same(v.clone().into_boxed_slice().par_iter());
            same((0..n as u64).into_par_iter());
            same((0..=n as i32).into_par_iter());
            same((0..n).into_par_iter());
            let array = [1u8, 2, 3];
            same(array.par_iter());
            let option = Some(n);
            same(option.par_iter());
            let result: Result<usize, ()> = Ok(n);
            same(result.par_iter());
            same(v.iter().collect::<VecDeque<_>>().into_par_iter());
            let deque: VecDeque<u32> = v.iter().copied().collect();
            same(deque.par_iter());
            let list: LinkedList<u32> = v.iter().copied().collect();
            same(list.par_iter());
            let heap: BinaryHeap<u32> = v.iter().copied().collect();
            same(heap.par_iter());
            let set: BTreeSet<u32> = v.iter().copied().collect();
            same(set.par_iter());
            let map: BTreeMap<u32, u32> = v.iter().map(|&x| (x, x * 2)).collect();
            same(map.par_iter());
            let hashed: HashSet<u32> = v.iter().copied().collect();
            same(hashed.par_iter());
            let hash_map: HashMap<u32, u32> = v.iter().map(|&x| (x, x * 2)).collect();
            same(hash_map.par_iter());
        }
    });
}

#[test]
fn string_sources() {
    let text: String = (0..scale::size(3000))
        .map(|i| match i % 11 {
            0 => "\r\n".to_string(),
            1 => " é ".to_string(),
            2 => ",\t,".to_string(),
            3 => "\u{1F600}\n".to_string(),
            _ => char::from(b'a' + (i % 26) as u8).to_string(),
        })
        .collect();
    every_way(|| {
        for text in [&text[..], "", "a", ",", "\n\n"] {
            same(text.par_chars());
            same(text.par_char_indices());
            same(text.par_bytes());
            same(text.par_encode_utf16());
            same(text.par_lines());
            same(text.par_split(','));
            same(text.par_split([',', 'é']));
            same(text.par_split(&[',', '\n'][..]));
            same(text.par_split(|c: char| c.is_whitespace()));
            same(text.par_split_inclusive('\n'));
            same(text.par_split_terminator(','));
            same(text.par_split_whitespace());
            same(text.par_split_ascii_whitespace());
            same(text.par_matches('a'));
            same(text.par_match_indices(|c: char| c == ','));
        }
    });
}

#[test]
fn adaptors() {
    let pool = tine::spawn_pool(2);
    every_way(|| {
        for n in lengths() {
            let v: Vec<Option<u32>> = (0..n as u32).map(|x| (x % 5 != 0).then_some(x)).collect();
            let w: Vec<u32> = (0..n as u32).collect();
            same(v.par_iter().by_exponential_blocks());
            same(v.par_iter().by_uniform_blocks(100));
            same(v.par_iter().chain(&v));
            same(v.par_iter().cloned());
            same(v.par_iter().copied());
            same(v.par_iter().enumerate());
            same(v.par_iter().filter(|x| x.is_some()));
            same(v.par_iter().filter_map(|x| *x));
            same(v.par_iter().flat_map(|x| *x));
            same(v.par_iter().flat_map_iter(|x| *x));
            same(v.par_iter().flatten());
            same(v.par_iter().flatten_iter());
            same(v.par_iter().with_max_len(1).fold(|| 0, |x, _| x));
            same(v.par_iter().with_max_len(1).fold_with(0, |x, _| x));
            same(v.par_iter().fold_chunks(3, || 0, |a, x| a + x.unwrap_or(1)));
            same(
                v.par_iter()
                    .fold_chunks_with(3, 1, |a, x| a * x.unwrap_or(1).max(1) % 7),
            );
            same(v.par_iter().with_max_len(1).try_fold(|| 0, |_, &x| x));
            same(v.par_iter().with_max_len(1).try_fold_with(0, |_, &x| x));
            same(v.par_iter().inspect(|_| ()));
            same(v.par_iter().update(|_| ()));
            same(v.par_iter().interleave(&v[..n / 2]));
            same(v.par_iter().interleave_shortest(&v[..n / 2]));
            same(v.par_iter().chunks(3));
            same(v.par_iter().map(|x| x.map(|y| y + 1)));
            same(v.par_iter().map_with(7, |s, x| x.map(|y| y + *s)));
            same(v.par_iter().map_init(|| 7, |s, x| x.map(|y| y + *s)));
            same(v.par_iter().panic_fuse());
            same(v.par_iter().positions(|x| x.is_none()));
            same(v.par_iter().rev());
            same(v.par_iter().skip(42));
            same(v.par_iter().take(42));
            same(v.par_iter().step_by(3));
            same(v.par_iter().with_max_len(1));
            same(v.par_iter().with_min_len(100));
            same(v.par_iter().zip(&w));
            same(v.par_iter().zip_eq(&v));
            same(v.par_iter().schedule(Schedule::Guided { min: 3 }));
            same(v.par_iter().with_pool(&pool).map(|x| x.is_some()));
            let (a, b) = (v.par_iter().take_any(42), v.par_iter().skip_any(42));
            assert_eq!(a.clone().count(), a.count());
            assert_eq!(b.clone().count(), b.count());
            let picked: Vec<u32> = w.par_iter().copied().take_any(n / 3).collect();
            assert_eq!(picked.len(), n / 3);
        }
    });
}

#[test]
fn a_clone_that_panics_part_way_leaks_nothing() {
    let n = 4;
    for fuse in 0..4 * n + 12 {
        let ledger = Ledger::new(1024);
        let captured = ledger.item(100);
        let original = ledger
            .items(n)
            .into_par_iter()
            .zip(ledger.items(n).into_iter().collect::<VecDeque<_>>())
            .map(move |(a, b)| {
                // The whole value (not just its `id`, which a closure
                // would capture alone), so the closure owns it.
                let whole: &Tracked = &captured;
                assert_eq!(whole.id, 100);
                if a.id == b.id {
                    a
                } else {
                    b
                }
            })
            .chain(Some(ledger.item(9)))
            .chain([ledger.item(10), ledger.item(11)])
            .chain(tine::iter::repeat_n(ledger.item(12), 2))
            .map_with(ledger.item(13), |_, t| t)
            .skip(1);
        ledger.fuse.store(fuse, Relaxed);
        let copy = catch_unwind(AssertUnwindSafe(|| original.clone()));
        ledger.fuse.store(usize::MAX, Relaxed);
        let want = [1, 2, 3, 9, 10, 11, 12, 12];
        match copy {
            Ok(copy) => assert_eq!(ids(&copy.collect::<Vec<_>>()), want),
            Err(_) => assert!(fuse < 2 * n + 6, "panicked with fuse {fuse}"),
        }
        assert_eq!(ids(&original.collect::<Vec<_>>()), want);
        ledger.all_dropped_once();
    }
}

/// Whether `T` may cross `catch_unwind` by value and by reference.
fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>(value: T) -> T {
    value
}

#[test]
fn a_clone_may_run_under_catch_unwind() {
    let pool = tine::spawn_pool(3);
    let v: Vec<u32> = (0..1000).collect();
    let iter = unwind_safe(
        v.par_iter()
            .with_pool(&pool)
            .map(|&x| x * 2)
            .with_max_len(1),
    );
    let fused = iter.clone().inspect(|&x| assert!(x != 1000)).panic_fuse();
    assert!(catch_unwind(|| unwind_safe(fused).count()).is_err());
    let copy = iter.clone();
    assert_eq!(catch_unwind(|| unwind_safe(copy).count()).ok(), Some(1000));
    assert_eq!(iter.sum::<u32>(), 999_000);
}
