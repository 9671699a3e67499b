//! [`ThreadBuilder`]: a thread a spawn handler starts, over tine's
//! [`tine::ThreadStart`].

use core::fmt;

/// A thread a spawn handler starts: run [`ThreadBuilder::run`] on it.
pub struct ThreadBuilder {
    pub(crate) start: tine::ThreadStart,
    /// From the builder's `thread_name`, if it has one.
    pub(crate) name: Option<String>,
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.start.index())
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ThreadBuilder {
    /// The thread's index in the pool.
    pub fn index(&self) -> usize {
        self.start.index()
    }

    /// The thread's name, from the builder's `thread_name`, if it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size asked for, if any.
    pub fn stack_size(&self) -> Option<usize> {
        self.start.stack_size()
    }

    /// Runs the thread's part in the pool until the pool is dropped.
    pub fn run(self) {
        self.start.run();
    }
}
