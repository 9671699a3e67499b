//! The drop-in comparison: `dropin/src/body.rs`, ordinary rayon code,
//! compiled here against the real rayon and in `tine-dropin` against tine
//! under the name `rayon`, prints the same results. (Each build also checks
//! every result against serial code.)
//!
//! Run by `.ci/run` (`cargo test -p tine-peers --test dropin`).

#[path = "../../../dropin/src/body.rs"]
mod body;

#[test]
fn rayon_and_tine_named_rayon_agree() {
    for len in [0usize, 1, 2, 5, 17, 100, 2500] {
        let data: Vec<i64> = (0..len as i64).map(|x| (x * 7919) % 1009 - 500).collect();
        let under_rayon = body::check(&data);
        let under_tine = tine_dropin::body::check(&data);
        assert_eq!(under_rayon, under_tine, "length {len}");
    }
}
