//! Peer comparison for `tine`: see `examples/latency.rs`.
//!
//! This crate is never published; it exists so that `cargo test` on `tine`
//! does not build fork_union's C++ core or pull rayon.
