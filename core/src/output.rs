//! What one input to the engine caused: the canonical changes and the findings.
//!
//! Owns: [`Output`], the one value every layer appends to (the engine, and the adapters
//! through their context), so neither depends on the other for it.
//! Never: interprets what it holds.

use crate::finding::Finding;
use crate::tree::{Change, Event, Millis};

/// What one input caused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// What the input changed, in order, each change self-contained: the session tree's
    /// changes, or for `acp` the Client view's (`Change::Acp*`, unless
    /// `engine::Options::view_changes` is off).
    pub changes: Vec<Change>,
    /// Findings, in the order they were raised.
    pub findings: Vec<Finding>,
    /// The canonical events the input was normalized to, with their time, in the order
    /// they applied; only with `engine::Options::record_events` (empty otherwise).
    pub events: Vec<(Event, Option<Millis>)>,
}

impl Output {
    pub(crate) fn append(&mut self, other: Output) {
        extend(&mut self.changes, other.changes);
        extend(&mut self.findings, other.findings);
        extend(&mut self.events, other.events);
    }
}

/// Adds `more` after `to`'s items; when `to` is empty, `more` (its buffer with it) takes
/// its place, so the layers an output passes through do not copy it each time.
pub(crate) fn extend<T>(to: &mut Vec<T>, mut more: Vec<T>) {
    if to.is_empty() {
        *to = more;
    } else {
        to.append(&mut more);
    }
}
