//! The N-body simulation: tine's own example files (`examples/nbody/`),
//! compiled here too so that every backend runs the same physics and the
//! same driver.

#[path = "../../../examples/nbody/harness.rs"]
pub mod harness;
#[path = "../../../examples/nbody/physics.rs"]
pub mod physics;
