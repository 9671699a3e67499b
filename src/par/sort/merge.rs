//! The stable sort: a parallel merge sort through one buffer.
//!
//! `sort_into` sorts a range of the slice, leaving the result either in the
//! slice or in the same range of the buffer: its two halves sort (under
//! `join`) into the other place, then merge back. Leaves sort in place
//! with `slice::sort_by` and copy to the buffer if that is where their
//! result belongs. A merge of two runs is split by binary search into two
//! merges of shorter runs, run under `join`, down to serial merges of at
//! most `leaf` elements. Ties always take the left run first, and the
//! left run holds the earlier elements, so the sort is stable. A serial
//! merge of plain values works from both ends of its runs at once (two
//! independent chains of loads and comparisons: 10M `u64` sorted about 9%
//! faster on 2 threads), with rounds bounded so that the ends never meet,
//! whatever the comparator answers.
//!
//! # Where the elements are
//!
//! Elements move only by bitwise copies; a copied-from place is dead (never
//! read, never dropped). The rule that keeps each element in exactly one
//! live place:
//! - `sort_into` finds its range's elements in the slice, and returns
//!   (normally or after a caught panic) with all of them in its
//!   destination: the slice or the buffer.
//! - `merge` finds its runs in one place and returns (normally or after a
//!   caught panic) with all of their elements in its output range. A serial
//!   merge holds the unmerged rest of both runs in a guard that copies them
//!   into the output's remaining holes (between the front's next hole and
//!   the back's) when it is dropped, by return or by unwind.
//! - Every comparator call runs under `catch_unwind`; after a panic no part
//!   calls the comparator again on its way back up, it only copies.
//!
//! So every call, whatever panics, ends with every element in the slice
//! (the top-level destination) exactly once; the buffer is
//! `Vec<MaybeUninit<T>>` and drops nothing. Then the first payload resumes.
//!
//! One file (a little over the project's ~450 lines): the recursion, the
//! merges and their panic guard share the one invariant stated above.

use super::{branchless, join};
use core::cmp::Ordering;
use core::mem::{size_of, MaybeUninit};
use core::ptr;
use std::any::Any;
use std::boxed::Box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::vec::Vec;

/// `Err` carries the payload of a comparator panic.
type Outcome = Result<(), Box<dyn Any + Send>>;

/// Where [`sort_into`] leaves its range sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    /// In the slice, where the elements were.
    Slice,
    /// In the same range of the buffer.
    Buffer,
}

impl Dest {
    /// Where the halves of a range sort to, so that their merge lands here.
    fn other(self) -> Self {
        match self {
            Dest::Slice => Dest::Buffer,
            Dest::Buffer => Dest::Slice,
        }
    }
}

/// Sorts `v` by `compare`, stably; parts of at most `leaf` elements (at
/// least 8) sort and merge serially.
pub(super) fn sort<T, C>(v: &mut [T], compare: &C, leaf: usize)
where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    // Zero-sized elements are all alike; a short slice needs no buffer.
    if size_of::<T>() == 0 || len <= leaf {
        v.sort_by(|a, b| compare(a, b));
        return;
    }
    let mut buf: Vec<MaybeUninit<T>> = Vec::with_capacity(len);
    let slice = Raw(v.as_mut_ptr());
    let buf_ptr = Raw(buf.as_mut_ptr().cast::<T>());
    // `sort_into` leaves every element in the slice exactly once (the rule
    // in the module docs).
    // SAFETY: `slice` holds `len` initialized elements that nothing else
    // touches until we return (we hold `v`); `buf_ptr` has room for `len`
    // elements and does not overlap it.
    let outcome = unsafe { sort_into(slice, buf_ptr, len, Dest::Slice, compare, leaf) };
    drop(buf); // frees the room; `MaybeUninit` drops no element
    if let Err(payload) = outcome {
        resume_unwind(payload);
    }
}

/// A pointer into the slice or the buffer that may cross to another thread
/// inside a `join`. Only used through its methods, so that closures capture
/// the wrapper (which is `Send`) and not the raw pointer inside it.
struct Raw<T>(*mut T);

impl<T> Clone for Raw<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Raw<T> {}

// SAFETY: a `Raw` is a handle on elements of type `T` that one side of a
// `join` uses while the other side uses a disjoint range: moving it to
// another thread moves those elements' use, which `T: Send` allows.
unsafe impl<T: Send> Send for Raw<T> {}

impl<T> Raw<T> {
    fn get(self) -> *mut T {
        self.0
    }

    /// # Safety
    /// `self + n` must stay within (or one past) the allocation.
    unsafe fn add(self, n: usize) -> Self {
        // SAFETY: the caller keeps the offset in bounds.
        Raw(unsafe { self.0.add(n) })
    }
}

/// Sorts the `len` elements at `src` (the slice), leaving them in `buf` or
/// at `src`, as `dest` says; see the module docs for the rule on panics.
///
/// # Safety
/// `src` holds `len` initialized elements and `buf` has room for `len`;
/// the two ranges do not overlap and nothing else touches them during the
/// call; `len > 0` and `leaf >= 8`.
unsafe fn sort_into<T, C>(
    src: Raw<T>,
    buf: Raw<T>,
    len: usize,
    dest: Dest,
    compare: &C,
    leaf: usize,
) -> Outcome
where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    if len <= leaf {
        // SAFETY: `src` holds `len` initialized elements only we touch.
        let run = unsafe { core::slice::from_raw_parts_mut(src.get(), len) };
        // `sort_by` leaves a permutation if `compare` panics.
        let outcome = catch_unwind(AssertUnwindSafe(|| run.sort_by(|a, b| compare(a, b))));
        if dest == Dest::Buffer {
            // SAFETY: both ranges hold `len` elements and do not overlap;
            // the elements move to `buf` and `src` becomes dead.
            unsafe { ptr::copy_nonoverlapping(src.get(), buf.get(), len) };
        }
        return outcome;
    }
    let mid = len / 2;
    // Each side gets the disjoint range `..mid` or `mid..` of `src` and of
    // `buf`, within the caller's ranges.
    let (left, right) = join(
        // SAFETY: `src[..mid]` holds initialized elements, `buf[..mid]` has
        // room, and only this side touches them.
        move || unsafe { sort_into(src, buf, mid, dest.other(), compare, leaf) },
        move || {
            // SAFETY: `mid < len`, so the offsets stay in bounds;
            // `src[mid..len]` holds initialized elements, `buf[mid..len]`
            // has room, and only this side touches them.
            let (src, buf) = unsafe { (src.add(mid), buf.add(mid)) };
            // SAFETY: as above.
            unsafe { sort_into(src, buf, len - mid, dest.other(), compare, leaf) }
        },
    );
    // The halves are now in `dest.other()`.
    let (from, to) = match dest {
        Dest::Buffer => (src, buf),
        Dest::Slice => (buf, src),
    };
    let (outcome, second) = first_panic(left, right);
    match outcome {
        // SAFETY: `from` holds the two sorted halves, `to` is the disjoint
        // range of the same length; both are ours alone.
        Ok(()) => unsafe { merge(from, mid, from.add(mid), len - mid, to, compare, leaf) },
        Err(payload) => {
            // SAFETY: as above; the elements move to `to` unmerged.
            unsafe { ptr::copy_nonoverlapping(from.get(), to.get(), len) };
            // Only once every element is back in place: a payload's `Drop`
            // may panic.
            drop_quietly(second);
            Err(payload)
        }
    }
}

/// The outcome of two sides: the first panic's payload, if any, and the
/// second's apart, so that the caller drops it ([`drop_quietly`]) only
/// after it has put every element in place.
fn first_panic(left: Outcome, right: Outcome) -> (Outcome, Option<Box<dyn Any + Send>>) {
    match (left, right) {
        (Err(first), Err(second)) => (Err(first), Some(second)),
        (Err(first), Ok(())) | (Ok(()), Err(first)) => (Err(first), None),
        (Ok(()), Ok(())) => (Ok(()), None),
    }
}

/// Drops a losing panic payload; a `Drop` of it that panics is caught,
/// and that panic's own payload forgotten (leaked), so nothing unwinds
/// from here.
fn drop_quietly(payload: Option<Box<dyn Any + Send>>) {
    if let Err(inner) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        core::mem::forget(inner);
    }
}

/// Merges the sorted runs `a[..la]` and `b[..lb]` into `out[..la + lb]`;
/// on return, normal or not, every element of both runs is in `out`.
///
/// # Safety
/// `T` is not zero-sized (`sort` sorts those alone); `a` and `b` hold `la`
/// and `lb` initialized elements; `out` has room for `la + lb` and overlaps
/// neither; nothing else touches them during the call; `leaf >= 8`.
unsafe fn merge<T, C>(
    a: Raw<T>,
    la: usize,
    b: Raw<T>,
    lb: usize,
    out: Raw<T>,
    compare: &C,
    leaf: usize,
) -> Outcome
where
    T: Send,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    if la == 0 || lb == 0 || la + lb <= leaf {
        // SAFETY: the caller's contract, passed on.
        return catch_unwind(AssertUnwindSafe(|| unsafe {
            merge_serial(a, la, b, lb, out, compare)
        }));
    }
    // SAFETY: `a` and `b` hold `la` and `lb` initialized elements that only
    // we touch; these shared views end before anything moves.
    let (run_a, run_b) = unsafe {
        (
            core::slice::from_raw_parts(a.get().cast_const(), la),
            core::slice::from_raw_parts(b.get().cast_const(), lb),
        )
    };
    let (sa, sb) = match catch_unwind(AssertUnwindSafe(|| split(run_a, run_b, compare))) {
        Ok(cut) => cut,
        Err(payload) => {
            // SAFETY: `out` has room for both runs, after one another.
            unsafe {
                ptr::copy_nonoverlapping(a.get(), out.get(), la);
                ptr::copy_nonoverlapping(b.get(), out.get().add(la), lb);
            }
            return Err(payload);
        }
    };
    // `sa <= la` and `sb <= lb` (`split`'s answers), so the sides get
    // disjoint parts of both runs, and the disjoint parts `..sa + sb` and
    // `sa + sb..` of `out`, of the right lengths.
    let (left, right) = join(
        // SAFETY: the first parts of the runs and of `out`, ours alone.
        move || unsafe { merge(a, sa, b, sb, out, compare, leaf) },
        move || {
            // SAFETY: the offsets are at most the runs' and `out`'s lengths.
            let (a, b, out) = unsafe { (a.add(sa), b.add(sb), out.add(sa + sb)) };
            // SAFETY: the rest of the runs and of `out`, ours alone.
            unsafe { merge(a, la - sa, b, lb - sb, out, compare, leaf) }
        },
    );
    // Every element is in `out` now: the losing payload may go.
    let (outcome, second) = first_panic(left, right);
    drop_quietly(second);
    outcome
}

/// Where to cut two runs so that everything in `a[..sa]` and `b[..sb]`
/// sorts before everything in `a[sa..]` and `b[sb..]`, with ties between
/// the runs going to `a` first. The longer run is cut in half and the
/// other at the matching place. Always `sa <= a.len()`, `sb <= b.len()`
/// and, on runs of at least 8 elements in all, neither part is empty of
/// both runs, whatever `compare` answers.
fn split<T, C>(a: &[T], b: &[T], compare: &C) -> (usize, usize)
where
    C: Fn(&T, &T) -> Ordering,
{
    if a.len() >= b.len() {
        let sa = a.len() / 2;
        // `b`'s elements less than `a[sa]` go before it.
        let sb = b.partition_point(|x| compare(x, &a[sa]) == Ordering::Less);
        (sa, sb)
    } else {
        let sb = b.len() / 2;
        // `a`'s elements not greater than `b[sb]` go before it.
        let sa = a.partition_point(|x| compare(&b[sb], x) != Ordering::Less);
        (sa, sb)
    }
}

/// Merges `a[..la]` and `b[..lb]` into `out` serially, taking from `a` on
/// ties. Whatever `compare` does, `out[..la + lb]` ends up holding every
/// element of both runs.
///
/// Plain values ([`branchless`]) first merge from both ends at once
/// ([`merge_both_ends`]); the rest, and every merge of elements that own
/// heap data, goes one element at a time from the front.
///
/// # Safety
/// As for [`merge`] (but for `leaf`).
unsafe fn merge_serial<T, C>(a: Raw<T>, la: usize, b: Raw<T>, lb: usize, out: Raw<T>, compare: &C)
where
    C: Fn(&T, &T) -> Ordering,
{
    // SAFETY: the runs hold `la` and `lb` elements, and `out` has room for
    // both, so the ends are one past each range.
    let mut rest = unsafe {
        Rest {
            a: a.get(),
            a_end: a.get().add(la),
            b: b.get(),
            b_end: b.get().add(lb),
            out: out.get(),
            out_end: out.get().add(la + lb),
        }
    };
    if branchless::<T>() {
        // SAFETY: `rest` describes live runs and their holes, ours alone.
        unsafe { merge_both_ends(&mut rest, compare) };
    }
    while rest.a != rest.a_end && rest.b != rest.b_end {
        // SAFETY: `rest.a` and `rest.b` point at live elements (each run
        // has one left), which no one else touches.
        let take_b = unsafe { compare(&*rest.b, &*rest.a) } == Ordering::Less;
        if branchless::<T>() {
            // Select the source, then advance both runs by the answer: a
            // random order would mispredict a branch every other element.
            let (from_b, from_a) = (usize::from(take_b), usize::from(!take_b));
            let src = if take_b { rest.b } else { rest.a };
            // SAFETY: `rest.out` is the first hole (one per element left),
            // and the source element goes dead as its pointer advances (by
            // one, within its run, which has an element left).
            unsafe {
                ptr::copy_nonoverlapping(src, rest.out, 1);
                rest.b = rest.b.add(from_b);
                rest.a = rest.a.add(from_a);
            }
        } else {
            // SAFETY: as above.
            unsafe {
                if take_b {
                    ptr::copy_nonoverlapping(rest.b, rest.out, 1);
                    rest.b = rest.b.add(1);
                } else {
                    ptr::copy_nonoverlapping(rest.a, rest.out, 1);
                    rest.a = rest.a.add(1);
                }
            }
        }
        // SAFETY: within `out`, one hole per element merged.
        rest.out = unsafe { rest.out.add(1) };
    }
    // Dropping `rest` moves what is left of the runs (one is empty) into
    // the holes `out..out_end`; on a panic above it does the same.
}

/// Merges plain values from both ends of the runs at once: each step puts
/// the smaller first element (`a`'s on ties) in the first hole and the
/// larger last element (`b`'s on ties) in the last hole. The two ends are
/// two chains of dependent loads and comparisons that the CPU overlaps, so
/// a step costs about what a one-ended step does, and merges two elements.
///
/// Each round takes `min(la, lb) / 2` steps, where `la` and `lb` are the
/// runs' lengths at its start. Each end takes at most one element of a run
/// a step, so a run loses at most two a step, at most its length in the
/// round: whatever `compare` answers, every step still finds an element at
/// each end of both runs, the two ends never take the same element or read
/// past a run, and the holes between them always number the elements left.
/// Rounds go on while both runs have at least [`BOTH_ENDS_MIN`] elements;
/// the caller merges the rest.
///
/// # Safety
/// `rest` describes live runs and `out`'s holes between them, which no one
/// else touches.
unsafe fn merge_both_ends<T, C>(rest: &mut Rest<T>, compare: &C)
where
    C: Fn(&T, &T) -> Ordering,
{
    loop {
        // SAFETY: each pair of pointers bounds one live range.
        let (la, lb) = unsafe {
            (
                rest.a_end.offset_from(rest.a),
                rest.b_end.offset_from(rest.b),
            )
        };
        if la.min(lb) < BOTH_ENDS_MIN as isize {
            return;
        }
        let steps = la.min(lb) / 2;
        for _ in 0..steps {
            // Both runs have at least one element left at each end (see
            // above), live and ours; the holes `out..out_end` number the
            // elements left, so the first and the last are holes. An element
            // copied out goes dead as its end moves past it.
            // SAFETY: so every read and write below is of a live element or
            // a hole of ours, and no element is taken twice.
            unsafe {
                let take_b = compare(&*rest.b, &*rest.a) == Ordering::Less;
                let src = if take_b { rest.b } else { rest.a };
                ptr::copy_nonoverlapping(src, rest.out, 1);
                rest.b = rest.b.add(usize::from(take_b));
                rest.a = rest.a.add(usize::from(!take_b));
                rest.out = rest.out.add(1);

                let (last_a, last_b) = (rest.a_end.sub(1), rest.b_end.sub(1));
                let take_a = compare(&*last_b, &*last_a) == Ordering::Less;
                let src = if take_a { last_a } else { last_b };
                rest.out_end = rest.out_end.sub(1);
                ptr::copy_nonoverlapping(src, rest.out_end, 1);
                rest.a_end = rest.a_end.sub(usize::from(take_a));
                rest.b_end = rest.b_end.sub(usize::from(!take_a));
            }
        }
    }
}

/// Below this many elements left in either run, a merge goes on from the
/// front alone: a round of both ends would be too short to pay.
const BOTH_ENDS_MIN: usize = 16;

// A round of fewer than 2 elements a run would take no step, and loop.
const _: () = assert!(BOTH_ENDS_MIN >= 2);

/// The unmerged rest of a serial merge and the output's holes between
/// `out` and `out_end`, as many as the elements left. Its drop copies the
/// rest (`a`'s, then `b`'s) into the holes.
struct Rest<T> {
    a: *mut T,
    a_end: *mut T,
    b: *mut T,
    b_end: *mut T,
    out: *mut T,
    out_end: *mut T,
}

impl<T> Drop for Rest<T> {
    fn drop(&mut self) {
        // SAFETY: `a..a_end` and `b..b_end` are live and unmerged, and
        // `out..out_end` holds as many holes, overlapping neither; after
        // the copies the sources are dead and nothing reads them.
        unsafe {
            let la = self.a_end.offset_from(self.a) as usize;
            let lb = self.b_end.offset_from(self.b) as usize;
            let holes = self.out_end.offset_from(self.out) as usize;
            ptr::copy_nonoverlapping(self.a, self.out, la);
            ptr::copy_nonoverlapping(self.b, self.out.add(la), lb);
            debug_assert_eq!(holes, la + lb, "a hole for every element left");
        }
    }
}

/// Merges the sorted runs `v[..mid]` and `v[mid..]` with [`merge_serial`]
/// into a new vector, for the tests that drive a serial merge directly:
/// the merged elements and a comparator panic's payload, if any. `T` must
/// not be zero-sized and `mid <= v.len()`.
#[cfg(test)]
pub(super) fn merge_serial_for_test<T, C>(v: Vec<T>, mid: usize, compare: &C) -> (Vec<T>, Outcome)
where
    C: Fn(&T, &T) -> Ordering,
{
    assert!(size_of::<T>() != 0 && mid <= v.len());
    let len = v.len();
    // The elements move out bitwise; only the old buffer is freed.
    let mut v = core::mem::ManuallyDrop::new(v);
    let mut out: Vec<T> = Vec::with_capacity(len);
    let (src, dst) = (Raw(v.as_mut_ptr()), Raw(out.as_mut_ptr()));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `src` holds `len` elements, split at `mid`; `dst` has
        // room for `len` and is another allocation; both are ours.
        unsafe { merge_serial(src, mid, src.add(mid), len - mid, dst, compare) }
    }));
    // SAFETY: the merge left every element in `out` exactly once, returning
    // or unwinding; the old buffer's places are dead, so it is freed as
    // uninitialized room.
    unsafe {
        out.set_len(len);
        let room = v.as_mut_ptr().cast::<MaybeUninit<T>>();
        drop(Vec::from_raw_parts(room, 0, v.capacity()));
    }
    (out, outcome)
}
