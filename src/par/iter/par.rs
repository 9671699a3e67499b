//! [`Par`], the one parallel-iterator type: a producer and the settings of
//! the call that will consume it.

use crate::par::producer::Producer;
use crate::par::settings::Config;
use core::marker::PhantomData;

/// A parallel iterator: a producer and a call's settings. Every source and
/// adaptor returns one; its methods come from
/// [`ParallelIterator`](super::ParallelIterator) and
/// [`IndexedParallelIterator`](super::indexed::IndexedParallelIterator).
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Par<P: Producer> {
    /// `None` once a consumer has taken it.
    pub(super) producer: Option<P>,
    config: Config,
    /// Keeps `Par` from being `Sync`, whatever `Config` becomes: `clone`
    /// reads the producer's items through `&self`, and the owning producers
    /// are `Sync` with items that need only be `Send` (the driver's threads
    /// move items, never share them), so two threads must never clone one
    /// iterator at once. (A raw pointer: not `Sync`, still unwind-safe.)
    _one_thread: PhantomData<*const ()>,
}

// SAFETY: the pool pointer in `config` is only read by the thread that
// consumes the iterator, and the pool is `Sync` (`ForkJoin` pools are).
// The producer moves with the iterator, which its `Send`-ness decides.
// `_one_thread` points at nothing: it only keeps `Par` from being `Sync`.
unsafe impl<P: Producer + Send> Send for Par<P> {}

impl<P: Producer> core::fmt::Debug for Par<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Par")
            .field("len", &self.producer.as_ref().map(|p| p.len()))
            .field("schedule", &self.config.schedule)
            .finish_non_exhaustive()
    }
}

impl<P: Producer> Par<P> {
    pub(crate) fn new(producer: P) -> Self {
        Par {
            producer: Some(producer),
            config: Config::default(),
            _one_thread: PhantomData,
        }
    }

    /// The producer and settings, for a consumer or an adaptor.
    pub(crate) fn into_parts(mut self) -> (P, Config) {
        let producer = self
            .producer
            .take()
            .expect("a parallel iterator is consumed once");
        (producer, self.config)
    }

    /// Whether `panic_fuse` is set anywhere in the chain.
    pub(crate) fn fused(&self) -> bool {
        self.config.panic_fuse
    }

    /// The number of positions.
    pub(crate) fn producer_len(&self) -> usize {
        self.producer.as_ref().map_or(0, Producer::len)
    }

    /// The same settings over a producer that `f` makes of this one's.
    pub(crate) fn wrap<Q: Producer>(self, f: impl FnOnce(P) -> Q) -> Par<Q> {
        let (producer, config) = self.into_parts();
        Par {
            producer: Some(f(producer)),
            config,
            _one_thread: PhantomData,
        }
    }

    pub(super) fn configure(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(&mut self.config);
        self
    }
}

/// An unconsumed iterator is cloned whole: its producer (an owning source's
/// items cloned one by one, a closure cloned with its captures) and its
/// settings, pool included, as rayon's iterators are `Clone`.
///
/// This is the only place a producer is cloned, and a `Par` holds its
/// producer only until a consumer takes it, so a producer is cloned only
/// before any of its positions is handed out (`producer.rs`, the contract):
/// an owning producer's items are all still in place, and being `&self` on
/// a `Par`, which is not `Sync`, the clone runs on one thread. A clone that
/// panics part-way (an item's or a closure's capture's `clone`) drops what
/// it had cloned (`adaptor.rs`, `clone_parts`).
impl<P: Producer + Clone> Clone for Par<P> {
    fn clone(&self) -> Self {
        Par {
            producer: self.producer.clone(),
            config: self.config,
            _one_thread: PhantomData,
        }
    }
}

impl<P: Producer> Drop for Par<P> {
    /// An iterator dropped without a consumer still drops its owned items.
    fn drop(&mut self) {
        if let Some(producer) = self.producer.take() {
            // SAFETY: nothing was handed out: no consumer ran.
            unsafe { producer.drop_range(0, producer.len()) };
        }
    }
}
