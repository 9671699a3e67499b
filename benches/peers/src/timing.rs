//! Timing calls the way the examples report them: medians over batches,
//! and over cells taken in turns.

use std::time::{Duration, Instant};

/// The shortest batch of calls a sample times, so that the clock's own cost
/// and resolution vanish in it.
pub const BATCH: Duration = Duration::from_micros(200);

/// Median seconds per call of `call` over `samples` batches of at least
/// [`BATCH`]. It first runs `call` for `warm_up`, sizing the batch from the
/// fastest call seen.
pub fn median_seconds(samples: usize, warm_up: Duration, mut call: impl FnMut()) -> f64 {
    let batch = batch_size(warm_up, BATCH, &mut call);
    let times: Vec<f64> = (0..samples.max(1))
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                call();
            }
            start.elapsed().as_secs_f64() / f64::from(batch)
        })
        .collect();
    median(times)
}

/// Runs `call` for `warm_up` and returns how many calls, at the fastest
/// seen, take at least `batch`.
fn batch_size(warm_up: Duration, batch: Duration, mut call: impl FnMut()) -> u32 {
    let started = Instant::now();
    let mut fastest = Duration::MAX;
    while started.elapsed() < warm_up {
        let start = Instant::now();
        call();
        fastest = fastest.min(start.elapsed());
    }
    (batch.as_nanos() / fastest.as_nanos().max(1)).max(1) as u32
}

/// The median of `times` (not empty).
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The shortest batch of [`interleaved_medians`]: longer than [`BATCH`], so
/// that a pool whose workers parked in the pause before it (a wake-up
/// costs tens of µs) pays the wake-up in a few per cent of the batch.
pub const INTERLEAVED_BATCH: Duration = Duration::from_millis(2);

/// The pause before each batch of [`interleaved_medians`] in the examples:
/// longer than a tine worker's spin after a fork (500 µs) and chili's
/// heartbeat, so that no cell runs beside the spinning threads of the one
/// before.
pub const INTERLEAVED_GAP: Duration = Duration::from_millis(1);

/// One cell of [`interleaved_medians`]: runs its call `batch` times on the
/// shared state. Made with [`batch`], so that the call is inlined into the
/// loop and only the batch goes through the box.
pub type Batch<'a, T> = Box<dyn FnMut(&mut T, u32) + 'a>;

/// A [`Batch`] of `call`.
pub fn batch<'a, T>(mut call: impl FnMut(&mut T) + 'a) -> Batch<'a, T> {
    Box::new(move |state, calls| {
        for _ in 0..calls {
            call(state);
        }
    })
}

/// Median seconds per call of each cell, with the cells' samples taken in
/// turns (one batch of each, forward and then backward, and so on) rather
/// than one cell after the other: a host whose speed changes during a run
/// (a busy SMT sibling, a frequency step) then slows every cell alike,
/// instead of whichever one it hit.
///
/// Each cell is first warmed up for `warm_up` and its batch sized as in
/// [`median_seconds`], but to [`INTERLEAVED_BATCH`]. Before each batch the thread sleeps for `gap`: long
/// enough that a pool's workers, spinning after the previous cell's fork,
/// have parked, so that no cell runs beside another's spinning thread.
pub fn interleaved_medians<T>(
    samples: usize,
    warm_up: Duration,
    gap: Duration,
    state: &mut T,
    cells: &mut [Batch<'_, T>],
) -> Vec<f64> {
    let batches: Vec<u32> = cells
        .iter_mut()
        .map(|cell| batch_size(warm_up, INTERLEAVED_BATCH, || cell(state, 1)))
        .collect();
    medians_in_turns(samples, cells.len(), |index| {
        std::thread::sleep(gap);
        let start = Instant::now();
        cells[index](state, batches[index]);
        start.elapsed().as_secs_f64() / f64::from(batches[index])
    })
}

/// The median of each of `cells` cells' `samples` samples, taken in turns:
/// each round times every cell once (`sample(index)` returns one sample's
/// seconds), forward on even rounds and backward on odd ones.
fn medians_in_turns(
    samples: usize,
    cells: usize,
    mut sample: impl FnMut(usize) -> f64,
) -> Vec<f64> {
    let mut times = vec![Vec::with_capacity(samples.max(1)); cells];
    for round in 0..samples.max(1) {
        for turn in 0..cells {
            let index = if round % 2 == 0 {
                turn
            } else {
                cells - 1 - turn
            };
            times[index].push(sample(index));
        }
    }
    times.into_iter().map(median).collect()
}

/// One backend's sort, for [`sorts_in_turns`].
pub type SortCall<'a, T> = &'a dyn Fn(&mut Vec<T>);

/// Median seconds of each sort in `sorts`, each over `samples` fresh
/// copies of `input` (the copying is not timed), checked against
/// `expected`. The samples are taken in turns, one sort by each backend a
/// round, the order reversed every other round, so that a host whose speed
/// changes during the row spreads that drift over every cell instead of
/// the one it hit (a sort takes about 0.1-7 s, long enough for this host
/// to change state).
pub fn sorts_in_turns<T: Clone + PartialEq>(
    samples: usize,
    input: &[T],
    expected: &[T],
    sorts: &[SortCall<'_, T>],
) -> Vec<f64> {
    medians_in_turns(samples, sorts.len(), |index| {
        let mut v = input.to_vec();
        let start = Instant::now();
        sorts[index](&mut v);
        let took = start.elapsed().as_secs_f64();
        assert!(v == expected, "sorted wrongly");
        took
    })
}
