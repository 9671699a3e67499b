//! rayon's deprecated [`Configuration`] and [`initialize`]: a
//! [`ThreadPoolBuilder`] under the old names.
#![allow(deprecated)]

use crate::{ThreadPool, ThreadPoolBuilder};
use core::fmt;
use std::error::Error;

/// rayon's deprecated configuration: a [`ThreadPoolBuilder`].
#[deprecated(note = "use `ThreadPoolBuilder`")]
#[derive(Default)]
pub struct Configuration {
    builder: ThreadPoolBuilder,
}

#[allow(deprecated)]
impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.builder.fmt(f)
    }
}

#[allow(deprecated)]
impl Configuration {
    /// A configuration with every setting at its default.
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// Builds a pool from it.
    ///
    /// # Errors
    /// As [`ThreadPoolBuilder::build`].
    pub fn build(self) -> Result<ThreadPool, Box<dyn Error + 'static>> {
        self.builder.build().map_err(Box::from)
    }

    pub(crate) fn into_builder(self) -> ThreadPoolBuilder {
        self.builder
    }

    /// [`ThreadPoolBuilder::num_threads`].
    pub fn num_threads(self, num_threads: usize) -> Configuration {
        Configuration {
            builder: self.builder.num_threads(num_threads),
        }
    }

    /// [`ThreadPoolBuilder::thread_name`].
    pub fn thread_name<F>(self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        Configuration {
            builder: self.builder.thread_name(closure),
        }
    }

    /// [`ThreadPoolBuilder::stack_size`].
    pub fn stack_size(self, stack_size: usize) -> Self {
        Configuration {
            builder: self.builder.stack_size(stack_size),
        }
    }

    /// [`ThreadPoolBuilder::breadth_first`].
    pub fn breadth_first(self) -> Self {
        Configuration {
            builder: self.builder.breadth_first(),
        }
    }

    /// [`ThreadPoolBuilder::panic_handler`].
    pub fn panic_handler<H>(self, panic_handler: H) -> Configuration
    where
        H: Fn(Box<dyn std::any::Any + Send>) + Send + Sync + 'static,
    {
        Configuration {
            builder: self.builder.panic_handler(panic_handler),
        }
    }

    /// [`ThreadPoolBuilder::start_handler`].
    pub fn start_handler<H>(self, start_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        Configuration {
            builder: self.builder.start_handler(start_handler),
        }
    }

    /// [`ThreadPoolBuilder::exit_handler`].
    pub fn exit_handler<H>(self, exit_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        Configuration {
            builder: self.builder.exit_handler(exit_handler),
        }
    }
}

/// rayon's deprecated `initialize`: builds the global pool from `config`.
///
/// # Errors
/// As [`ThreadPoolBuilder::build_global`].
#[deprecated(note = "use `ThreadPoolBuilder::build_global`")]
#[allow(deprecated)]
pub fn initialize(config: Configuration) -> Result<(), Box<dyn Error + 'static>> {
    config.builder.build_global().map_err(Box::from)
}
