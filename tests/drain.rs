//! `par_drain` (`src/par/source/drain.rs`, `drain_collections.rs`) on every
//! collection rayon drains: `Vec`, `VecDeque` and `String` by range,
//! `BinaryHeap`, `HashMap` and `HashSet` in full. Each case is checked
//! against `std`'s serial `drain`: what is yielded, what is left (and the
//! capacity), for empty, full, open and inclusive ranges; owned items
//! dropped exactly once when the call stops early, when it panics and when
//! the iterator is dropped unconsumed; a leaked iterator leaving the
//! collection valid; and ranges out of bounds panicking as `std`'s do.
//! Every case runs on an installed 3-thread pool, with the cutoff forced
//! to fork, forced not to, and left to decide (under Miri, forced to fork
//! only).
#![cfg(not(loom))]
// `Tracked` hashes and compares by its id alone: the atomics of its drop
// table are no part of its key.
#![allow(clippy::mutable_key_type)]

mod scale;

use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::ops::Bound::{self, Excluded, Included, Unbounded};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tine::par::cutoff::{set_override, Override};
use tine::prelude::*;

/// Runs `body` inside `install` on a 3-thread pool, once with each cutoff
/// override, so that calls run both alone on the caller and forked. Under
/// Miri, only forked: a forked call splits the range among threads, cuts
/// it at every position and leaves parts of it untouched when stopped
/// early, through the drains' unsafe code (the buffer lent by position,
/// the tail moved back) that a call alone runs too. The serial driver's
/// own guard runs under Miri with the other sources (bridge, flat_search).
fn every_way(mut body: impl FnMut()) {
    let pool = tine::spawn_pool(3);
    let ways: &[Override] = if cfg!(miri) {
        &[Override::AlwaysFork]
    } else {
        &[
            Override::NeverFork,
            Override::AlwaysFork,
            Override::Adaptive,
        ]
    };
    for &way in ways {
        let before = set_override(way);
        pool.install(&mut body);
        set_override(before);
    }
}

/// The lengths tried (under Miri, fewer, and the large one shrinks).
fn lengths() -> Vec<usize> {
    if cfg!(miri) {
        vec![0, 1, 7, scale::size(3_000)]
    } else {
        vec![0, 1, 2, 7, 100, scale::size(5_000)]
    }
}

/// A range as a pair of bounds, which `std` and `par_drain` both take.
type Span = (Bound<usize>, Bound<usize>);

/// The ranges tried on `n` items: full, empty at both ends and inside,
/// open on either side, inclusive, and excluded starts. Under Miri, only
/// 7 items try them all; other lengths try the full range, one inside
/// and, from 6 items, one with an excluded start and an inclusive end.
fn spans(n: usize) -> Vec<Span> {
    if cfg!(miri) && n != 7 {
        let mut out = vec![
            (Unbounded, Unbounded),
            (Included(n / 3), Excluded(n - n / 3)),
        ];
        if n >= 6 {
            out.push((Excluded(1), Included(n - 1)));
        }
        return out;
    }
    let mut out = vec![
        (Unbounded, Unbounded),
        (Included(0), Excluded(0)),
        (Included(n), Unbounded),
        (Included(n / 2), Excluded(n / 2)),
        (Unbounded, Excluded(n / 2)),
        (Included(n / 3), Excluded(n - n / 3)),
        (Included(n / 3), Unbounded),
    ];
    if n >= 6 {
        out.push((Included(2), Included(5)));
        out.push((Excluded(1), Included(n - 1)));
    }
    out
}

/// An owned item that counts its drops in its id's slot.
#[derive(Debug)]
struct Tracked<'a> {
    id: usize,
    drops: &'a [AtomicUsize],
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Relaxed);
    }
}

impl PartialEq for Tracked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Tracked<'_> {}
impl PartialOrd for Tracked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Tracked<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}
impl std::hash::Hash for Tracked<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

/// A drop table for `n` items.
fn table(n: usize) -> Vec<AtomicUsize> {
    (0..n).map(|_| AtomicUsize::new(0)).collect()
}

/// Items `0..drops.len()`.
fn tracked(drops: &[AtomicUsize]) -> Vec<Tracked<'_>> {
    (0..drops.len()).map(|id| Tracked { id, drops }).collect()
}

/// How often each item was dropped, by id.
fn counts(drops: &[AtomicUsize]) -> Vec<usize> {
    drops.iter().map(|d| d.load(Relaxed)).collect()
}

/// The ids `span` names among `0..n`, as `std` drains them.
fn drained_ids(n: usize, span: Span) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    all.drain(span).collect()
}

/// The ids `std` leaves among `0..n` after draining `span`.
fn left_ids(n: usize, span: Span) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    all.drain(span);
    all
}

/// Asserts each id in `gone` was dropped once and every other one never.
fn dropped_exactly(drops: &[AtomicUsize], gone: &[usize], what: &str) {
    let mut want = vec![0; drops.len()];
    gone.iter().for_each(|&id| want[id] = 1);
    assert_eq!(counts(drops), want, "{what}: drops by id");
}

/// A deque holding `items` in order, wrapped around the end of its buffer
/// (the front half pushed at the front).
fn wrapped<T>(items: Vec<T>) -> VecDeque<T> {
    let mut deque = VecDeque::with_capacity(items.len());
    let mut items = items;
    let back = items.split_off(items.len() / 2);
    deque.extend(back);
    items
        .into_iter()
        .rev()
        .for_each(|item| deque.push_front(item));
    deque
}

/// The tests of a collection drained by range, `$make` building it from a
/// `Vec` of items (one test function each, so that failures name it).
macro_rules! range_drain_tests {
    ($yields:ident, $partial:ident, $panics:ident, $ty:ty, $make:expr) => {
        #[test]
        fn $yields() {
            every_way(|| {
                for n in lengths() {
                    for span in spans(n) {
                        let what = format!("{n} items, {span:?}");
                        // Values: yielded and left, against `std`.
                        let mut got = $make((0..n).collect::<Vec<usize>>());
                        let mut want = got.clone();
                        let capacity = got.capacity();
                        let yielded: Vec<usize> = got.par_drain(span).collect();
                        let expected: Vec<usize> = want.drain(span).collect();
                        assert_eq!(yielded, expected, "{what}: yielded");
                        assert_eq!(got, want, "{what}: left");
                        assert_eq!(got.capacity(), capacity, "{what}: capacity");
                        // Indexed: its length, and `collect_into_vec`.
                        let mut got = $make((0..n).collect::<Vec<usize>>());
                        let drain = got.par_drain(span);
                        assert_eq!(drain.len(), expected.len(), "{what}: len");
                        let mut into = Vec::new();
                        drain.map(|x| x * 2).collect_into_vec(&mut into);
                        let doubled: Vec<usize> = expected.iter().map(|x| x * 2).collect();
                        assert_eq!(into, doubled, "{what}: collect_into_vec");
                        // Dropped unconsumed: the range goes all the same.
                        let drops = table(n);
                        let mut got = $make(tracked(&drops));
                        drop(got.par_drain(span));
                        let gone = drained_ids(n, span);
                        dropped_exactly(&drops, &gone, &what);
                        let left: Vec<usize> = got.iter().map(|t| t.id).collect();
                        assert_eq!(left, want.iter().copied().collect::<Vec<_>>(), "{what}");
                        drop(got);
                        assert!(counts(&drops).iter().all(|&c| c == 1), "{what}: all once");
                    }
                }
            });
        }

        #[test]
        fn $partial() {
            // Calls that stop early or leave positions out: each must
            // drop the rest of the range, once, and give back the tail.
            let calls: [(&str, fn(&mut $ty, Span)); 6] = [
                ("find_first", |c, s| {
                    let _ = drain_par(c, s).find_first(|t| t.id % 3 == 1);
                }),
                ("find_any", |c, s| {
                    let _ = drain_par(c, s).find_any(|t| t.id % 5 == 2);
                }),
                ("any", |c, s| {
                    assert!(!drain_par(c, s).any(|t| t.id == usize::MAX));
                }),
                ("take", |c, s| {
                    let _ = drain_par(c, s).take(3).count();
                }),
                ("skip", |c, s| drain_par(c, s).skip(2).for_each(drop)),
                ("zip", |c, s| {
                    let _ = drain_par(c, s).zip(0..4usize).count();
                }),
            ];
            every_way(|| {
                for n in lengths() {
                    for span in spans(n) {
                        for (name, call) in calls {
                            let what = format!("{name}, {n} items, {span:?}");
                            let drops = table(n);
                            let mut got = $make(tracked(&drops));
                            call(&mut got, span);
                            let gone = drained_ids(n, span);
                            dropped_exactly(&drops, &gone, &what);
                            let left: Vec<usize> = got.iter().map(|t| t.id).collect();
                            let want = left_ids(n, span);
                            assert_eq!(left, want, "{what}: left");
                            drop(got);
                            assert!(counts(&drops).iter().all(|&c| c == 1), "{what}");
                        }
                    }
                }
            });
        }

        #[test]
        fn $panics() {
            every_way(|| {
                for n in lengths() {
                    for span in spans(n) {
                        let gone = drained_ids(n, span);
                        // A panic at the first, a middle and the last item.
                        let targets = [gone.first(), gone.get(gone.len() / 2), gone.last()];
                        for target in targets.into_iter().flatten().copied() {
                            let what = format!("panic at {target}, {n} items, {span:?}");
                            let drops = table(n);
                            let mut got = $make(tracked(&drops));
                            let result = catch_unwind(AssertUnwindSafe(|| {
                                got.par_drain(span)
                                    .for_each(|t| assert!(t.id != target, "boom"));
                            }));
                            assert!(result.is_err(), "{what}: the panic reaches the caller");
                            dropped_exactly(&drops, &gone, &what);
                            let left: Vec<usize> = got.iter().map(|t| t.id).collect();
                            let want = left_ids(n, span);
                            assert_eq!(left, want, "{what}: left");
                            got.shrink_to_fit();
                            drop(got);
                            assert!(counts(&drops).iter().all(|&c| c == 1), "{what}");
                        }
                    }
                }
            });
        }
    };
}

/// `par_drain` for the `range_drain_tests` calls, whose closures cannot
/// name the collection's type.
fn drain_par<'c, C>(collection: &'c mut C, span: Span) -> <&'c mut C as ParallelDrainRange>::Iter
where
    &'c mut C: ParallelDrainRange,
{
    collection.par_drain(span)
}

range_drain_tests!(
    vec_yields_and_drops_every_range,
    vec_stopped_early_drops_the_rest_once,
    vec_panic_in_for_each_drops_each_item_once,
    Vec<Tracked<'_>>,
    std::convert::identity
);

range_drain_tests!(
    deque_yields_and_drops_every_range,
    deque_stopped_early_drops_the_rest_once,
    deque_panic_in_for_each_drops_each_item_once,
    VecDeque<Tracked<'_>>,
    wrapped
);

#[test]
fn vec_of_zero_sized_items() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Zst;
    impl Drop for Zst {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Relaxed);
        }
    }
    every_way(|| {
        let mut v: Vec<Zst> = (0..1000).map(|_| Zst).collect();
        DROPS.store(0, Relaxed);
        assert_eq!(v.par_drain(100..=199).count(), 100);
        assert_eq!((v.len(), DROPS.load(Relaxed)), (900, 100));
        let _ = v.par_drain(..500).find_first(|_| true);
        assert_eq!((v.len(), DROPS.load(Relaxed)), (400, 600));
        drop(v);
        assert_eq!(DROPS.load(Relaxed), 1000);
    });
}

/// The tests of a collection drained in full, `$make` building it from a
/// `Vec` of items and `$item` finding the `Tracked` in a yielded item.
macro_rules! full_drain_tests {
    ($name:ident, $ty:ty, $make:expr, $item:expr) => {
        #[test]
        fn $name() {
            // Calls that consume all, stop early, panic or consume nothing.
            let calls: [(&str, fn(&mut $ty)); 6] = [
                ("collect", |c| drop(c.par_drain().collect::<Vec<_>>())),
                ("find_first", |c| {
                    let _ = c.par_drain().map($item).find_first(|t| t.id % 3 == 1);
                }),
                ("take", |c| {
                    let _ = c.par_drain().take(2).count();
                }),
                ("dropped", |c| drop(c.par_drain())),
                ("panic", |c| {
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        c.par_drain()
                            .map($item)
                            .for_each(|t| assert!(t.id != 1, "boom"));
                    }));
                    assert!(result.is_err());
                }),
                ("count", |c| {
                    let len = c.len();
                    assert_eq!(c.par_drain().count(), len);
                }),
            ];
            every_way(|| {
                for n in lengths() {
                    for (name, call) in calls {
                        let what = format!("{name}, {n} items");
                        let drops = table(n);
                        let mut got: $ty = $make(tracked(&drops));
                        let capacity = got.capacity();
                        if name == "panic" && n < 2 {
                            continue;
                        }
                        call(&mut got);
                        assert!(counts(&drops).iter().all(|&c| c == 1), "{what}");
                        assert!(got.is_empty(), "{what}: left empty");
                        assert_eq!(got.capacity(), capacity, "{what}: capacity");
                    }
                }
            });
        }
    };
}

fn set_of(items: Vec<Tracked<'_>>) -> HashSet<Tracked<'_>> {
    items.into_iter().collect()
}

fn map_of(items: Vec<Tracked<'_>>) -> HashMap<usize, Tracked<'_>> {
    items.into_iter().map(|t| (t.id, t)).collect()
}

full_drain_tests!(
    binary_heap_drains_every_item_once,
    BinaryHeap<Tracked<'_>>,
    BinaryHeap::from,
    |t| t
);

full_drain_tests!(
    hash_set_drains_every_item_once,
    HashSet<Tracked<'_>>,
    set_of,
    |t| t
);

full_drain_tests!(
    hash_map_drains_every_item_once,
    HashMap<usize, Tracked<'_>>,
    map_of,
    |(_, t)| t
);

#[test]
fn full_drains_yield_what_std_yields() {
    every_way(|| {
        for n in lengths() {
            let all: Vec<usize> = (0..n).collect();
            let mut heap: BinaryHeap<usize> = all.iter().copied().collect();
            let mut got: Vec<usize> = heap.par_drain().collect();
            got.sort_unstable();
            assert_eq!(got, all);
            heap.push(7);
            assert_eq!(heap.into_sorted_vec(), [7], "the heap stays usable");

            let mut map: HashMap<usize, usize> = all.iter().map(|&i| (i, i * i)).collect();
            let mut got: Vec<(usize, usize)> = map.par_drain().collect();
            got.sort_unstable();
            assert_eq!(got, all.iter().map(|&i| (i, i * i)).collect::<Vec<_>>());
            assert!(map.is_empty());

            let mut set: HashSet<usize> = all.iter().copied().collect();
            assert_eq!(set.par_drain().sum::<usize>(), all.iter().sum::<usize>());
            assert!(set.is_empty());
        }
    });
}

/// A text of one-, two-, three- and four-byte characters, and the byte
/// index of every character boundary in it.
fn text_and_boundaries(repeat: usize) -> (String, Vec<usize>) {
    let text = "añb€c😀d xyz\n".repeat(repeat);
    let mut bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    bounds.push(text.len());
    (text, bounds)
}

#[test]
fn string_drains_characters_as_std_does() {
    let (text, bounds) = text_and_boundaries(scale::size(400));
    let last = bounds.len() - 1;
    let at = |i: usize| bounds[i.min(last)];
    let spans: Vec<Span> = vec![
        (Unbounded, Unbounded),
        (Included(0), Excluded(0)),
        (Included(text.len()), Unbounded),
        (Included(at(1)), Excluded(at(1))),
        (Included(at(1)), Excluded(at(6))),
        (Unbounded, Excluded(at(last / 2))),
        (Included(at(last / 3)), Excluded(at(2 * last / 3))),
        (Included(at(5)), Unbounded),
    ];
    every_way(|| {
        for &span in &spans {
            let what = format!("{span:?}");
            let mut want = text.clone();
            let expected: String = want.drain(span).collect();
            // Yielded, in order, and what is left, with the capacity.
            let mut got = text.clone();
            let capacity = got.capacity();
            let yielded: String = got.par_drain(span).collect();
            assert_eq!((&yielded, &got), (&expected, &want), "{what}");
            assert_eq!(got.capacity(), capacity, "{what}: capacity");
            let mut got = text.clone();
            assert_eq!(got.par_drain(span).count(), expected.chars().count());
            // Dropped unconsumed, stopped early, or a panic: the range
            // goes all the same.
            let mut got = text.clone();
            drop(got.par_drain(span));
            assert_eq!(got, want, "{what}: dropped");
            let mut got = text.clone();
            let found = got.par_drain(span).find_first(|&c| c == '€');
            assert_eq!(found, expected.contains('€').then_some('€'), "{what}");
            assert_eq!(got, want, "{what}: find_first");
            let mut got = text.clone();
            let result = catch_unwind(AssertUnwindSafe(|| {
                got.par_drain(span).for_each(|c| assert!(c != '😀', "boom"));
            }));
            assert_eq!(result.is_err(), expected.contains('😀'), "{what}");
            assert_eq!(got, want, "{what}: a panic");
        }
    });
}

#[test]
fn a_leaked_vec_or_string_drain_leaves_them_valid() {
    every_way(|| {
        // The vector keeps the items before the range; those in and after
        // it leak, never dropped.
        let drops = table(11);
        let mut v = tracked(&drops);
        let extra = v.pop().unwrap();
        std::mem::forget(v.par_drain(3..7));
        let left: Vec<usize> = v.iter().map(|t| t.id).collect();
        assert_eq!(left, [0, 1, 2]);
        assert!(counts(&drops).iter().all(|&c| c == 0));
        v.push(extra);
        v.retain(|t| t.id != 1);
        drop(v);
        assert_eq!(counts(&drops), [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        // The string is left as it was.
        let mut s = String::from("héllo wörld");
        std::mem::forget(s.par_drain(3..8));
        s.push('!');
        assert_eq!(s, "héllo wörld!");
    });
}

#[test]
#[cfg_attr(miri, ignore = "leaks the collection's buffer, by design")]
fn a_leaked_collection_drain_leaves_it_valid() {
    every_way(|| {
        let drops = table(40);
        let mut items = tracked(&drops).into_iter();
        let mut deque = wrapped(items.by_ref().take(10).collect());
        std::mem::forget(deque.par_drain(2..5));
        assert!(deque.is_empty(), "taken out while the iterator lived");
        deque.push_back(items.next().unwrap());
        let mut heap: BinaryHeap<_> = items.by_ref().take(10).collect();
        std::mem::forget(heap.par_drain());
        heap.push(items.next().unwrap());
        let mut set: HashSet<_> = items.by_ref().take(8).collect();
        std::mem::forget(set.par_drain());
        assert!(set.is_empty());
        set.insert(items.next().unwrap());
        let mut map: HashMap<_, _> = items.by_ref().take(8).map(|t| (t.id, t)).collect();
        std::mem::forget(map.par_drain());
        assert!(map.is_empty());
        let last = items.next().unwrap();
        map.insert(last.id, last);
        assert!(counts(&drops).iter().all(|&c| c == 0), "nothing dropped");
        let kept = [deque.len(), heap.len(), set.len(), map.len()];
        drop((deque, heap, set, map));
        assert_eq!(kept, [1, 1, 1, 1]);
        assert_eq!(counts(&drops).iter().sum::<usize>(), 4);
    });
}

#[test]
fn ranges_out_of_bounds_panic_as_std_and_change_nothing() {
    let bad: [Span; 6] = [
        (Included(4), Excluded(3)),
        (Unbounded, Excluded(11)),
        (Included(11), Unbounded),
        (Unbounded, Included(10)),
        (Unbounded, Included(usize::MAX)),
        (Excluded(usize::MAX), Unbounded),
    ];
    let panics = |f: &mut dyn FnMut()| catch_unwind(AssertUnwindSafe(f)).is_err();
    every_way(|| {
        for span in bad {
            let (vec, text): (Vec<u8>, String) = ((0..10).collect(), "0123456789".into());
            assert!(
                panics(&mut || drop(vec.clone().drain(span))),
                "std: {span:?}"
            );
            let mut v = vec.clone();
            assert!(panics(&mut || drop(v.par_drain(span))), "Vec: {span:?}");
            assert_eq!(v, vec);
            let mut deque = wrapped(vec.clone());
            assert!(
                panics(&mut || drop(deque.par_drain(span))),
                "deque: {span:?}"
            );
            assert!(deque.iter().eq(&vec));
            let mut s = text.clone();
            assert!(panics(&mut || drop(s.par_drain(span))), "String: {span:?}");
            assert_eq!(s, text);
        }
        // Either end inside a character.
        for span in [(Included(2), Unbounded), (Unbounded, Excluded(2))] {
            let text = String::from("añb");
            assert!(panics(&mut || drop(text.clone().drain(span))));
            let mut s = text.clone();
            assert!(panics(&mut || drop(s.par_drain(span))), "{span:?}");
            assert_eq!(s, text);
        }
    });
}

/// rayon's `tests/debug.rs` calls for the drains: each is a parallel
/// iterator with `Debug`.
#[test]
fn every_drain_is_a_debug_parallel_iterator() {
    fn check<I: ParallelIterator + std::fmt::Debug>(iter: I) {
        assert!(format!("{iter:?}").starts_with("Par"));
    }
    let mut heap: BinaryHeap<_> = (0..10).collect();
    check(heap.par_drain());
    let mut map: HashMap<_, _> = (0..10).enumerate().collect();
    check(map.par_drain());
    let mut set: HashSet<_> = (0..10).collect();
    check(set.par_drain());
    let mut deque: VecDeque<_> = (0..10).collect();
    check(deque.par_drain(..));
    let mut s = "a b c d\ne f g".to_string();
    check(s.par_drain(..));
    let mut v: Vec<_> = (0..10).collect();
    check(v.par_drain(..));
    assert!(heap.is_empty() && map.is_empty() && set.is_empty() && deque.is_empty());
    assert!(s.is_empty() && v.is_empty());
}

/// rayon's paths for the traits and the iterator types.
#[test]
fn rayon_paths_name_the_drains() {
    use tine::collections::{binary_heap, hash_map, hash_set, vec_deque};
    use tine::iter::{ParallelDrainFull, ParallelDrainRange};

    fn range<'a, C>(c: &'a mut C) -> <&'a mut C as ParallelDrainRange>::Iter
    where
        &'a mut C: ParallelDrainRange,
    {
        c.par_drain(1..)
    }
    fn full<C>(c: &mut C) -> <&mut C as ParallelDrainFull>::Iter
    where
        for<'a> &'a mut C: ParallelDrainFull,
    {
        c.par_drain()
    }
    // A pool of the test's own: the global one would outlive `main`,
    // which Miri's leak check reports.
    tine::spawn_pool(2).install(|| {
        let mut v = vec![1, 2, 3];
        let d: tine::vec::Drain<'_, i32> = range(&mut v);
        assert_eq!(d.sum::<i32>(), 5);
        let mut s = String::from("añb");
        let d: tine::string::Drain<'_> = range(&mut s);
        assert_eq!(d.collect::<String>(), "ñb");
        let mut deque = VecDeque::from(vec![1, 2, 3]);
        let d: vec_deque::Drain<'_, i32> = range(&mut deque);
        assert_eq!(d.collect::<Vec<_>>(), [2, 3]);
        let mut heap = BinaryHeap::from(vec![1, 2, 3]);
        let d: binary_heap::Drain<'_, i32> = full(&mut heap);
        assert_eq!(d.max(), Some(3));
        let mut map = HashMap::from([(1, 'a')]);
        let d: hash_map::Drain<'_, i32, char> = full(&mut map);
        assert_eq!(d.collect::<Vec<_>>(), [(1, 'a')]);
        let mut set = HashSet::from([1]);
        let d: hash_set::Drain<'_, i32> = full(&mut set);
        assert_eq!(d.collect::<Vec<_>>(), [1]);
        assert_eq!((v, s, deque.len()), (vec![1], "a".to_string(), 1));
    });
}
