//! The `collect` and `par_extend` targets of `src/par/targets.rs`, and
//! `Box<[T]>` as a source: each gets the items in input order, as a serial
//! `collect` or `extend` would, whether the call forks or not.
#![cfg(not(loom))]

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::rc::Rc;
use std::sync::Arc;
use tine::iter::Either;
use tine::par::cutoff::{set_override, Override};
use tine::prelude::*;

/// Runs `body` with the calls kept on the caller, then forked, then
/// decided by the cutoff, on a 3-thread pool.
fn every_way(mut body: impl FnMut()) {
    let pool = tine::spawn_pool(3);
    for way in [
        Override::NeverFork,
        Override::AlwaysFork,
        Override::Adaptive,
    ] {
        let before = set_override(way);
        pool.install(&mut body);
        set_override(before);
    }
}

#[test]
fn shared_and_boxed_slices_keep_input_order() {
    every_way(|| {
        let want: Vec<u32> = (0..10_000).map(|x| x * 3).collect();
        let boxed: Box<[u32]> = (0..10_000u32).into_par_iter().map(|x| x * 3).collect();
        let rc: Rc<[u32]> = (0..10_000u32).into_par_iter().map(|x| x * 3).collect();
        let arc: Arc<[u32]> = (0..10_000u32).into_par_iter().map(|x| x * 3).collect();
        assert_eq!(&*boxed, &want[..]);
        assert_eq!(&*rc, &want[..]);
        assert_eq!(&*arc, &want[..]);
        let cow: Cow<'_, [u32]> = (0..10_000u32).into_par_iter().map(|x| x * 3).collect();
        assert!(matches!(cow, Cow::Owned(_)));
        assert_eq!(&*cow, &want[..]);
    });
}

#[test]
fn boxed_slices_are_sources() {
    every_way(|| {
        let boxed: Box<[String]> = (0..1000).map(|i| i.to_string()).collect();
        let total: usize = (&boxed).into_par_iter().map(|s| s.len()).sum();
        assert_eq!(total, boxed.iter().map(|s| s.len()).sum::<usize>());
        let mut bumped = boxed.clone();
        (&mut bumped).into_par_iter().for_each(|s| s.push('!'));
        assert!(bumped
            .iter()
            .zip(boxed.iter())
            .all(|(b, s)| *b == format!("{s}!")));
        let owned: Vec<String> = boxed.clone().into_par_iter().collect();
        assert_eq!(owned, boxed.to_vec());
        // Owned items that a call stops before still drop, once each.
        let found = boxed.into_par_iter().find_first(|s| s == "500");
        assert_eq!(found.as_deref(), Some("500"));
    });
}

#[test]
fn strings_from_every_piece() {
    every_way(|| {
        let words: Vec<String> = (0..2000).map(|i| format!("w{i} ")).collect();
        let want: String = words.concat();
        let boxed: Box<str> = words.par_iter().map(|w| w.as_str()).collect();
        assert_eq!(&*boxed, want);
        let from_boxes: String = words
            .par_iter()
            .map(|w| Box::<str>::from(w.as_str()))
            .collect();
        assert_eq!(from_boxes, want);
        let from_cows: String = words
            .par_iter()
            .map(|w| Cow::Borrowed(w.as_str()))
            .collect();
        assert_eq!(from_cows, want);
        let mut extended = String::from(">");
        extended.par_extend(words.par_iter().map(|w| Cow::Owned::<str>(w.clone())));
        assert_eq!(extended, format!(">{want}"));
        let mut boxes = String::new();
        boxes.par_extend(words.par_iter().map(|w| w.clone().into_boxed_str()));
        assert_eq!(boxes, want);
        let chars: Box<str> = want.par_chars().collect();
        assert_eq!(&*chars, want);
        let cow: Cow<'_, str> = want.par_chars().collect();
        assert_eq!(cow, want);
    });
}

#[test]
fn os_strings_from_their_pieces() {
    every_way(|| {
        let parts: Vec<OsString> = (0..1000)
            .map(|i| OsString::from(format!("p{i}/")))
            .collect();
        let want: OsString = parts.iter().map(OsString::as_os_str).collect();
        let borrowed: OsString = parts.par_iter().map(OsString::as_os_str).collect();
        let owned: OsString = parts.clone().into_par_iter().collect();
        let cows: OsString = parts
            .par_iter()
            .map(|p| Cow::Borrowed(p.as_os_str()))
            .collect();
        assert_eq!(borrowed, want);
        assert_eq!(owned, want);
        assert_eq!(cows, want);
        let mut extended = OsString::from("/");
        extended.par_extend(parts.par_iter().map(|p| p.as_os_str()));
        let mut expected = OsString::from("/");
        expected.push(&want);
        assert_eq!(extended, expected);
        let _: &OsStr = extended.as_os_str();
    });
}

#[test]
fn pairs_unzip_nest_and_extend() {
    every_way(|| {
        let (index, (squares, cubes)): (Vec<usize>, (Vec<u64>, Vec<u64>)) = (0..5000u64)
            .into_par_iter()
            .map(|x| (x * x, x * x * x))
            .enumerate()
            .unzip();
        assert!(index.iter().copied().eq(0..5000));
        assert!(squares.iter().copied().eq((0..5000u64).map(|x| x * x)));
        assert!(cubes.iter().copied().eq((0..5000u64).map(|x| x * x * x)));
        let mut pair = (vec![u64::MAX], vec![String::from("first")]);
        pair.par_extend((0..3000u64).into_par_iter().map(|x| (x, x.to_string())));
        assert_eq!(pair.0.len(), 3001);
        assert!(pair.0[1..].iter().copied().eq(0..3000));
        assert_eq!(pair.1[0], "first");
        assert_eq!(pair.1[3000], "2999");
        let collected: (Vec<u64>, Vec<u64>) =
            (0..100u64).into_par_iter().map(|x| (x, 2 * x)).collect();
        assert_eq!(collected.1[99], 198);
    });
}

#[test]
fn eithers_split_into_pairs_and_extend_the_side_they_hold() {
    every_way(|| {
        let split = |x: u32| {
            if x % 3 == 0 {
                Either::Left(x)
            } else {
                Either::Right(x.to_string())
            }
        };
        let (threes, others): (Vec<u32>, Vec<String>) =
            (0..9000u32).into_par_iter().map(split).collect();
        assert!(threes.iter().copied().eq((0..9000).filter(|x| x % 3 == 0)));
        assert!(others
            .iter()
            .cloned()
            .eq((0..9000u32).filter(|x| x % 3 != 0).map(|x| x.to_string())));
        let mut pair = (vec![7u32], Vec::<String>::new());
        pair.par_extend((0..9000u32).into_par_iter().map(split));
        assert_eq!(pair.0.len(), 3001);
        assert_eq!(pair.0[0], 7);
        assert_eq!(pair.1.len(), 6000);
        let mut either: Either<Vec<u32>, std::collections::VecDeque<u32>> =
            Either::Right(Default::default());
        either.par_extend((0..100u32).into_par_iter());
        assert!(matches!(&either, Either::Right(d) if d.iter().copied().eq(0..100)));
    });
}

#[test]
fn unit_runs_for_its_effects() {
    every_way(|| {
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let count = |_: u32| {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let () = (0..1000u32).into_par_iter().map(count).collect();
        let mut unit = ();
        unit.par_extend((0..1000u32).into_par_iter().map(count));
        assert_eq!(seen.into_inner(), 2000);
    });
}
