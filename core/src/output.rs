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
    pub(crate) fn append(&mut self, mut other: Output) {
        self.changes.append(&mut other.changes);
        self.findings.append(&mut other.findings);
        self.events.append(&mut other.events);
    }
}
