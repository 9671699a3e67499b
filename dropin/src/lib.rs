//! The drop-in proof for rayon users: this crate depends on tine under the
//! name `rayon` (`rayon = { package = "tine", path = ".." }` in its
//! `Cargo.toml`) and compiles [`body`], ordinary rayon code written as
//! rayon's docs write it, unchanged.
//!
//! `tests/dropin.rs` runs the body over random inputs; the body checks
//! every result against serial code itself. `benches/peers/tests/dropin.rs`
//! compiles the same file against the real rayon and compares the two
//! crates' results.

pub mod body;
