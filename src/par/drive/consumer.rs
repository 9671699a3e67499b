//! [`Consumer`]: what a call of the driver does with its items.

/// What a call does with the items: a fold per thread, and a combine.
pub(crate) trait Consumer<T>: Sync {
    /// A thread's partial result.
    type Acc: Send;
    /// Whether `skip` can ever say yes (then static blocks are small).
    const STOPS: bool = false;
    /// Whether the call must use the static split (an exact `collect`,
    /// which needs each thread's output to be one contiguous run).
    const STATIC_ONLY: bool = false;
    /// Whether the result, and the order in which one thread's items are
    /// consumed, are the same however the positions are grouped into
    /// blocks and ranges (`for_each`, `count`): a call that runs alone from
    /// the start then folds all its positions as one block, skipping the
    /// probe blocks and the per-range partials that only keep a float
    /// reduction's bits independent of the decision.
    const SPLIT_FREE: bool = false;

    /// A fresh partial.
    fn start(&self) -> Self::Acc;
    /// Folds the items of one block, whose first position is `first`.
    fn fold<I: Iterator<Item = T>>(&self, acc: Self::Acc, first: usize, items: I) -> Self::Acc;
    /// Folds every position of the call as its one block, on the caller
    /// alone: no other block is left to run after a panic here.
    #[inline]
    fn fold_whole<I: Iterator<Item = T>>(&self, acc: Self::Acc, items: I) -> Self::Acc {
        self.fold(acc, 0, items)
    }
    /// Combines two partials, `left` from earlier positions (static) or a
    /// lower thread.
    fn combine(&self, left: Self::Acc, right: Self::Acc) -> Self::Acc;
    /// Whether the block starting at `first` can be dropped unseen: the
    /// answer is known. Once true for a position, true for every later one.
    fn skip(&self, _first: usize) -> bool {
        false
    }
    /// After a panic: positions `begin..end` were folded in full, and the
    /// call will not return (an exact `collect` drops what it wrote).
    fn cleanup(&self, _begin: usize, _end: usize) {}
}
