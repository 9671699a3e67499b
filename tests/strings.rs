//! rayon's string methods (`ParallelString`) and slice splits
//! (`par_split`, `par_split_inclusive` and their `_mut` versions): each
//! must give exactly `std`'s serial result, in `std`'s order, however the
//! positions are cut. Every call runs forced to fork, on 3 threads, with
//! blocks of 1, 2, 3 and 7 positions, so block boundaries fall everywhere:
//! inside multi-byte characters, inside `"\r\n"`, on and next to
//! separators.
#![cfg(not(loom))]

mod scale;

use proptest::prelude::*;
use std::fmt::Debug;
use std::sync::OnceLock;
use tine::par::cutoff::{set_override, Override};
use tine::par::Schedule;
use tine::prelude::*;
use tine::ThreadPool;

/// Block lengths: the small ones put a block boundary at every position.
const MAX_LENS: [usize; 5] = [1, 2, 3, 7, usize::MAX];

/// [`MAX_LENS`], or under Miri (a shrunk scale) two of them.
fn max_lens() -> &'static [usize] {
    if scale::divisor() > 1 {
        &[1, 3]
    } else {
        &MAX_LENS
    }
}

/// A 3-thread pool, with every call in this binary forced to fork.
fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    set_override(Override::AlwaysFork);
    POOL.get_or_init(|| tine::spawn_pool(3))
}

/// `make()`'s items, collected under every block length, and counted under
/// a dynamic schedule, equal `expected`.
fn every_cut<I>(what: &str, make: impl Fn() -> I, expected: Vec<I::Item>)
where
    I: ParallelIterator,
    I::Item: PartialEq + Debug,
{
    let pool = pool();
    for &max in max_lens() {
        let got: Vec<I::Item> = make().with_pool(pool).with_max_len(max).collect();
        assert_eq!(got, expected, "{what}, max_len {max}");
    }
    let dynamic = make()
        .with_pool(pool)
        .schedule(Schedule::Dynamic { grain: 2 })
        .count();
    assert_eq!(dynamic, expected.len(), "{what}, dynamic count");
}

/// A split-family method with one pattern, against `std`'s.
macro_rules! check_pattern {
    ($text:expr, $pattern:expr) => {{
        let text: &str = $text;
        let what = |method: &str| format!("{text:?}.{method}({})", stringify!($pattern));
        every_cut(
            &what("split"),
            || text.par_split($pattern),
            text.split($pattern).collect(),
        );
        every_cut(
            &what("split_terminator"),
            || text.par_split_terminator($pattern),
            text.split_terminator($pattern).collect(),
        );
        every_cut(
            &what("split_inclusive"),
            || text.par_split_inclusive($pattern),
            text.split_inclusive($pattern).collect(),
        );
        every_cut(
            &what("matches"),
            || text.par_matches($pattern),
            text.matches($pattern).collect(),
        );
        every_cut(
            &what("match_indices"),
            || text.par_match_indices($pattern),
            text.match_indices($pattern).collect(),
        );
    }};
}

/// Every string method on `text`, against `std`.
fn check_text(text: &str) {
    every_cut("chars", || text.par_chars(), text.chars().collect());
    every_cut(
        "char_indices",
        || text.par_char_indices(),
        text.char_indices().collect(),
    );
    every_cut("bytes", || text.par_bytes(), text.bytes().collect());
    every_cut(
        "encode_utf16",
        || text.par_encode_utf16(),
        text.encode_utf16().collect(),
    );
    every_cut("lines", || text.par_lines(), text.lines().collect());
    every_cut(
        "split_whitespace",
        || text.par_split_whitespace(),
        text.split_whitespace().collect(),
    );
    every_cut(
        "split_ascii_whitespace",
        || text.par_split_ascii_whitespace(),
        text.split_ascii_whitespace().collect(),
    );
    check_pattern!(text, ',');
    check_pattern!(text, 'é');
    check_pattern!(text, '\n');
    check_pattern!(text, [',', '😀']);
    check_pattern!(text, &[';', 'é', '\r']);
    check_pattern!(text, &[',', ' ', '\u{3000}'][..]);
    check_pattern!(text, |c: char| c.is_ascii_digit() || c == 'é');
}

/// Texts with every edge case: empty, only separators, leading, trailing
/// and consecutive separators, `"\r\n"` and lone `'\r'`s, multi-byte
/// characters next to separators, Unicode and ASCII whitespace.
const EDGES: &[&str] = &[
    "",
    ",",
    ",,",
    "a",
    "a,",
    ",a",
    "a,,b",
    "é",
    "é,ü,,😀",
    "😀,😀😀,",
    ",é,",
    "\n",
    "\n\n",
    "\r",
    "\r\n",
    "\r\n\r\n",
    "a\r\nb\r\n",
    "a\nb",
    "a\rb\r",
    "a\r\r\n",
    "line one\nline two\r\n\nlast",
    " ",
    "  a  b\t\u{3000}c\u{85}d\u{a0} ",
    "x\u{b}y\u{c}z\u{3000}",
    "1,2;3 é4\u{3000}5\r\n6",
];

#[test]
fn string_methods_match_std_on_edge_cases() {
    // Every one natively; a spread of them under Miri.
    for text in EDGES.iter().step_by(scale::divisor().min(4)) {
        check_text(text);
    }
}

#[test]
fn a_longer_text_matches_std() {
    let text: String = (0..scale::size(400))
        .map(|i| match i % 11 {
            0 => "\r\n".to_string(),
            3 => ",".to_string(),
            5 => " é ".to_string(),
            7 => "😀".to_string(),
            _ => i.to_string(),
        })
        .collect();
    check_text(&text);
    // Other consumers than `collect`.
    let pool = pool();
    let total: usize = text
        .par_split(',')
        .with_pool(pool)
        .with_max_len(3)
        .map(str::len)
        .sum();
    assert_eq!(total, text.split(',').map(str::len).sum::<usize>());
    let first = text
        .par_lines()
        .with_pool(pool)
        .with_max_len(2)
        .find_first(|line| line.contains('😀'));
    assert_eq!(first, text.lines().find(|line| line.contains('😀')));
    assert_eq!(
        text.par_chars().with_pool(pool).with_max_len(1).max(),
        text.chars().max()
    );
    // The calls really cut the text between threads: on a pool of this
    // test's own (the shared one may be busy with the other tests, and a
    // call handed to a busy pool may run on one of its threads).
    let own = tine::spawn_pool(2);
    let threads: std::collections::BTreeSet<Option<usize>> = text
        .par_lines()
        .with_pool(&own)
        .with_max_len(7)
        .map(|_| tine::current_thread_index())
        .collect();
    assert!(threads.len() > 1, "one thread ran every line: {threads:?}");
}

/// Strings made of the characters that matter to the methods.
fn texts() -> impl Strategy<Value = String> {
    let alphabet = vec![
        'a', 'b', '1', 'é', '😀', ',', ';', '\n', '\r', ' ', '\t', '\u{3000}', '\u{85}',
    ];
    proptest::collection::vec(proptest::sample::select(alphabet), 0..40)
        .prop_map(|chars| chars.into_iter().collect())
}

/// Slices of small numbers, with 0 (and 1 for the second separator) often.
fn numbers() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(0u8..4, 0..40)
}

/// `par_split` and `par_split_inclusive` on `data`, shared and mutable,
/// against `std`.
fn check_slice(data: &[u8]) {
    for separator in [0u8, 1] {
        let is_separator = move |x: &u8| *x == separator;
        every_cut(
            "split",
            || data.par_split(is_separator),
            data.split(is_separator).collect(),
        );
        every_cut(
            "split_inclusive",
            || data.par_split_inclusive(is_separator),
            data.split_inclusive(is_separator).collect(),
        );
        let pool = pool();
        for &max in max_lens() {
            // The pieces, numbered, each written to: the numbers show the
            // order, the writes that each piece was handed out once.
            let (mut got, mut expected) = (data.to_vec(), data.to_vec());
            got.par_split_mut(is_separator)
                .with_pool(pool)
                .with_max_len(max)
                .enumerate()
                .for_each(|(i, piece)| piece.iter_mut().for_each(|x| *x += 10 + i as u8));
            expected
                .split_mut(is_separator)
                .enumerate()
                .for_each(|(i, piece)| piece.iter_mut().for_each(|x| *x += 10 + i as u8));
            assert_eq!(got, expected, "split_mut {data:?} max_len {max}");

            let (mut got, mut expected) = (data.to_vec(), data.to_vec());
            let lens: Vec<usize> = got
                .par_split_inclusive_mut(is_separator)
                .with_pool(pool)
                .with_max_len(max)
                .map(|piece| {
                    piece.reverse();
                    piece.len()
                })
                .collect();
            let serial: Vec<usize> = expected
                .split_inclusive_mut(is_separator)
                .map(|piece| {
                    piece.reverse();
                    piece.len()
                })
                .collect();
            assert_eq!(
                (got, lens),
                (expected, serial),
                "split_inclusive_mut {data:?}"
            );
        }
    }
}

#[test]
fn slice_splits_match_std_on_edge_cases() {
    let edges: &[&[u8]] = &[
        &[],
        &[0],
        &[0, 0],
        &[2],
        &[2, 0],
        &[0, 2],
        &[2, 0, 0, 3],
        &[0, 2, 3, 0, 1, 0, 0],
        &[2, 3, 2, 3, 2],
    ];
    for data in edges {
        check_slice(data);
    }
}

proptest! {
    #![proptest_config(scale::proptest_config(48))]

    #[test]
    fn string_methods_match_std(text in texts()) {
        check_text(&text);
    }

    #[test]
    fn slice_splits_match_std(data in numbers()) {
        check_slice(&data);
    }
}
