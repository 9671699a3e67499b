//! The trusted shortcut (`serial_on_trust`) against the fork: the same
//! ranges and blocks, so the same bits, whichever way the pool is found.

use super::{drive, serial_on_trust, Consumer, Producer};
use crate::par::cutoff::{set_override, Override};
use crate::par::prelude::*;
use crate::pool::ThreadPool;
use std::vec::Vec;

/// A float sum shaped as `sum`'s consumer: each block summed on its own,
/// then added to the partial (so the bits depend on the blocks).
struct BlockSum;

impl<'a> Consumer<&'a f32> for BlockSum {
    type Acc = f32;
    fn start(&self) -> f32 {
        -0.0
    }
    fn fold<I: Iterator<Item = &'a f32>>(&self, acc: f32, _first: usize, items: I) -> f32 {
        let block: f32 = items.sum();
        acc + block
    }
    fn combine(&self, left: f32, right: f32) -> f32 {
        left + right
    }
}

#[test]
fn the_trusted_shortcut_folds_the_forks_blocks() {
    // 301 positions: uneven ranges on 3 threads (101, 100, 100).
    let data: Vec<f32> = (0..301).map(|i| (i as f32).sin() * 1e3).collect();
    let pool = ThreadPool::try_spawn(3).expect("a pool");
    for (max, min) in [(usize::MAX, 1), (7, 1), (usize::MAX, 5), (40, 3)] {
        let products = || data.par_iter().with_max_len(max).with_min_len(min);
        let forked = {
            let before = set_override(Override::AlwaysFork);
            let (producer, config) = products().with_pool(&pool).into_parts();
            let forked = drive(&producer, &config, &BlockSum);
            set_override(before);
            forked
        };
        // The iterator's own pool (its count through the `ForkJoin` trait).
        let (producer, config) = products().with_pool(&pool).into_parts();
        let alone = serial_on_trust(&producer, &config, &BlockSum, producer.len());
        assert_eq!(alone.to_bits(), forked.to_bits(), "max {max} min {min}");
        // The installed pool (its count read directly).
        let installed = pool.install(|| {
            let (producer, config) = products().into_parts();
            serial_on_trust(&producer, &config, &BlockSum, producer.len())
        });
        assert_eq!(installed.to_bits(), forked.to_bits(), "max {max} min {min}");
    }
}
