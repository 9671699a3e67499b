//! `collect::<Vec<_>>()` and `collect_into_vec`: items in input order.
//!
//! An exact iterator (one item per position) writes each item straight to
//! its place in the output, which is allocated once with the exact length.
//! Threads use the static split, so each writes one contiguous run; if an
//! item panics, the items written so far are dropped (the block's own by a
//! guard, the finished blocks' through `Consumer::cleanup`) and the output
//! is left empty. Other iterators (after `filter`, `filter_map`,
//! `flat_map_iter`, `fold`) gather each thread's items in a `Vec` of its
//! own, appended in thread order, which is input order under the static
//! split they use.

use super::convert::{FromParallelIterator, IntoParallelIterator};
use super::par::Par;
use super::ParallelIterator;
use crate::par::drive::consumer::Consumer;
use crate::par::drive::drive;
use crate::par::producer::Producer;
use std::vec::Vec;

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(iter: I) -> Self {
        let par = iter.into_par_iter().into_par();
        let mut out = Vec::new();
        if <<I::Iter as ParallelIterator>::Producer as Producer>::EXACT {
            collect_exact(par, &mut out);
        } else {
            let (producer, config) = par.into_parts();
            out = drive(&producer, &config, &Gather);
        }
        out
    }
}

/// `collect_into_vec`: `target` cleared, then filled.
pub(crate) fn collect_into_vec<P: Producer>(par: Par<P>, target: &mut Vec<P::Item>)
where
    P::Item: Send,
{
    collect_exact(par, target);
}

fn collect_exact<P: Producer>(par: Par<P>, target: &mut Vec<P::Item>)
where
    P::Item: Send,
{
    debug_assert!(P::EXACT);
    let (producer, config) = par.into_parts();
    let len = producer.len();
    target.clear();
    target.reserve_exact(len);
    let writer = Writer {
        base: target.as_mut_ptr(),
    };
    drive(&producer, &config, &writer);
    // SAFETY: every position `0..len` was written exactly once (the driver
    // folds each position once, and an exact producer yields one item per
    // position), and the call returned, so none of it panicked.
    unsafe { target.set_len(len) };
}

/// Writes each item at its position in the output buffer.
struct Writer<T> {
    base: *mut T,
}

// SAFETY: threads write disjoint positions (each position is folded once),
// moving `T`s across threads, which `T: Send` allows.
unsafe impl<T: Send> Sync for Writer<T> {}

/// Drops the items a block has written if a later item of it panics.
struct Written<T> {
    first: *mut T,
    count: usize,
}

impl<T> Drop for Written<T> {
    fn drop(&mut self) {
        // SAFETY: the block wrote `count` items from `first` and will not
        // return: nothing else will read or drop them.
        unsafe { core::ptr::slice_from_raw_parts_mut(self.first, self.count).drop_in_place() };
    }
}

impl<T: Send> Consumer<T> for Writer<T> {
    type Acc = ();
    const STATIC_ONLY: bool = true;

    fn start(&self) {}

    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, (): (), first: usize, items: I) {
        // SAFETY: `first` is a position below the output's capacity.
        let start = unsafe { self.base.add(first) };
        let mut written = Written {
            first: start,
            count: 0,
        };
        for item in items {
            // SAFETY: an exact producer yields `end - first` items for a
            // block, all within the capacity, each position once.
            unsafe { start.add(written.count).write(item) };
            written.count += 1;
        }
        core::mem::forget(written);
    }

    fn combine(&self, (): (), (): ()) {}

    fn cleanup(&self, begin: usize, end: usize) {
        // SAFETY: positions `begin..end` were written in full, and the call
        // is unwinding: the output's length stays 0, so only this drops them.
        unsafe {
            core::ptr::slice_from_raw_parts_mut(self.base.add(begin), end - begin).drop_in_place()
        };
    }
}

/// `unzip_into_vecs`: `left` and `right` cleared, then filled, each item's
/// halves written straight to their positions, as `collect_into_vec` does.
pub(crate) fn unzip_into_vecs<P, A, B>(par: Par<P>, left: &mut Vec<A>, right: &mut Vec<B>)
where
    P: Producer<Item = (A, B)>,
    A: Send,
    B: Send,
{
    debug_assert!(P::EXACT);
    left.clear();
    right.clear();
    let len = par.producer_len();
    left.reserve_exact(len);
    right.reserve_exact(len);
    let (producer, config) = par.into_parts();
    let writer = PairWriter {
        left: Writer {
            base: left.as_mut_ptr(),
        },
        right: Writer {
            base: right.as_mut_ptr(),
        },
    };
    drive(&producer, &config, &writer);
    // SAFETY: as in `collect_exact`: every position `0..len` wrote its two
    // halves exactly once, and no item panicked.
    unsafe {
        left.set_len(len);
        right.set_len(len);
    }
}

/// Writes each pair's halves at its position in two output buffers.
struct PairWriter<A, B> {
    left: Writer<A>,
    right: Writer<B>,
}

impl<A: Send, B: Send> Consumer<(A, B)> for PairWriter<A, B> {
    type Acc = ();
    const STATIC_ONLY: bool = true;

    fn start(&self) {}

    #[inline]
    fn fold<I: Iterator<Item = (A, B)>>(&self, (): (), first: usize, items: I) {
        // SAFETY: `first` is a position below both outputs' capacity.
        let (left, right) = unsafe { (self.left.base.add(first), self.right.base.add(first)) };
        let mut written = (
            Written {
                first: left,
                count: 0,
            },
            Written {
                first: right,
                count: 0,
            },
        );
        for (a, b) in items {
            // SAFETY: as in `Writer::fold`, for each output.
            unsafe {
                left.add(written.0.count).write(a);
                right.add(written.1.count).write(b);
            }
            written.0.count += 1;
            written.1.count += 1;
        }
        core::mem::forget(written);
    }

    fn combine(&self, (): (), (): ()) {}

    fn cleanup(&self, begin: usize, end: usize) {
        // The right half goes even if a `Drop` in the left one panics.
        let right = Written {
            // SAFETY: in bounds, as in `Writer::cleanup`.
            first: unsafe { self.right.base.add(begin) },
            count: end - begin,
        };
        Consumer::<A>::cleanup(&self.left, begin, end);
        drop(right);
    }
}

/// Gathers each thread's items in a `Vec` of its own.
struct Gather;

impl<T: Send> Consumer<T> for Gather {
    type Acc = Vec<T>;
    const STATIC_ONLY: bool = true;

    fn start(&self) -> Vec<T> {
        Vec::new()
    }

    #[inline]
    fn fold<I: Iterator<Item = T>>(&self, mut acc: Vec<T>, _first: usize, items: I) -> Vec<T> {
        if items.size_hint().1.is_none() {
            // No bound (`flat_map`, `flatten`): `for_each`, a `fold`, runs
            // each inner loop whole, where `extend` would step through
            // them with `next`.
            items.for_each(|item| acc.push(item));
        } else {
            // A known bound (`filter`, ...): `extend`'s own loop (the size
            // hint is known at compile time, so one branch remains).
            acc.extend(items);
        }
        acc
    }

    fn combine(&self, mut left: Vec<T>, mut right: Vec<T>) -> Vec<T> {
        if left.is_empty() {
            return right;
        }
        left.append(&mut right);
        left
    }
}

/// `collect::<Result<Vec<_>, E>>()`: the `Ok` values, or an error. Items
/// after an error are still consumed (their results dropped), and which
/// error comes back when several fail is unspecified, as in rayon.
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(iter: I) -> Self {
        let failure = std::sync::Mutex::new(None);
        let collected = C::from_par_iter(iter.into_par_iter().filter_map(|item| match item {
            Ok(value) => Some(value),
            Err(error) => {
                let mut slot = failure.lock().unwrap_or_else(|poison| poison.into_inner());
                slot.get_or_insert(error);
                None
            }
        }));
        match failure
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
        {
            Some(error) => Err(error),
            None => Ok(collected),
        }
    }
}

/// `collect::<Option<Vec<_>>>()`: the values, or `None` if any item is.
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(iter: I) -> Self {
        let items = iter.into_par_iter().map(|item| item.ok_or(()));
        Result::<C, ()>::from_par_iter(items).ok()
    }
}
