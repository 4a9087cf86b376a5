//! Reference-model and property tests of the canonical reducer (see `tests/` and
//! `README.md`).
//!
//! - [`model`]: a deliberately naive reference model written from the specification.
//! - [`observe`]: one observable view, projected from the reducer's snapshot and from the
//!   model, so the two can be compared after every event.
//! - [`strategies`] (`src/gen.rs`): proptest strategies for realistic and hostile event sequences.

// Test-support crate: a panic here is a test failure, so the workspace's panic-freedom lints do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub mod model;
pub mod observe;
// `gen` is a reserved keyword in edition 2024, so the module is named `strategies`.
#[path = "gen.rs"]
pub mod strategies;

pub use model::Model;
pub use observe::Observable;
