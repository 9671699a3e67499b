//! [`Par`], the one parallel-iterator type: a producer and the settings of
//! the call that will consume it.

use super::Config;
use crate::par::producer::Producer;

/// A parallel iterator: a producer and a call's settings. Every source and
/// adaptor returns one; its methods come from
/// [`ParallelIterator`](super::ParallelIterator) and
/// [`IndexedParallelIterator`](super::IndexedParallelIterator).
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Par<P: Producer> {
    /// `None` once a consumer has taken it.
    pub(super) producer: Option<P>,
    config: Config,
}

// SAFETY: the pool pointer in `config` is only read by the thread that
// consumes the iterator, and the pool is `Sync` (`ForkJoin` pools are).
// The producer moves with the iterator, which its `Send`-ness decides.
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

    /// The number of positions.
    pub(crate) fn producer_len(&self) -> usize {
        self.producer.as_ref().map_or(0, Producer::len)
    }

    pub(super) fn wrap<Q: Producer>(self, f: impl FnOnce(P) -> Q) -> Par<Q> {
        let (producer, config) = self.into_parts();
        Par {
            producer: Some(f(producer)),
            config,
        }
    }

    pub(super) fn configure(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(&mut self.config);
        self
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
