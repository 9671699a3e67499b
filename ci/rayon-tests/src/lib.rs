//! Holds nothing: the crate exists for its tests, rayon 1.12's own
//! `tests/` files, which `scripts/rayon-tests.sh` copies in from the
//! crates.io sources and runs against tine named `rayon`.
