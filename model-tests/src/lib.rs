//! Reference-model and property tests of the canonical reducer (see `tests/`).
