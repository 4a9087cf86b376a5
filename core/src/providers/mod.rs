//! Provider adapters: pure normalizers from a provider's wire records to canonical events.
//!
//! Owns: the `{"from":…,"message":…,"at":…}` envelope of provider traces, the [`Sink`]
//! that applies an adapter's events to the tree as they are emitted, and one adapter per
//! provider (`codex`).
//! Never: decides settlement. An adapter knows provider shapes and routing (which thread
//! is which session, which request is which interaction); every lifecycle rule is the
//! canonical reducer's. An adapter may *read* the tree (does this child exist?) through
//! [`Sink::snapshot`], never write it except by emitting events.

pub mod claude;
pub mod codex;

use serde::Deserialize;
use serde_json::Value;

use crate::replay::Finding;
use crate::trace::{Format, RecordError, in_record};
use crate::tree::{Event, Millis, Severity, Snapshot, Step};

/// One record of a provider trace.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProviderRecord {
    /// Which side wrote the message (`server`/`client` for Codex, `cli`/`host` for Claude).
    pub from: String,
    /// The provider's message.
    pub message: Value,
    /// Milliseconds, when the record carries them.
    #[serde(default, deserialize_with = "crate::trace::deserialize_at")]
    pub at: Option<Millis>,
}

/// Parses one provider record line, checking `from` against the format's two sides.
pub fn parse_record(
    line: &str,
    format: Format,
    sides: [&str; 2],
) -> Result<ProviderRecord, RecordError> {
    // One pass: straight into the record (no intermediate `Value` copy of the message).
    let record: ProviderRecord = serde_json::from_str(line).map_err(|e| {
        // Tell "not JSON at all" from "JSON of the wrong shape" (error path only).
        match serde_json::from_str::<serde::de::IgnoredAny>(line) {
            Err(syntax) => RecordError::NotJson(in_record(&syntax)),
            Ok(_) => RecordError::Invalid {
                format,
                reason: e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            },
        }
    })?;
    if !sides.contains(&record.from.as_str()) {
        return Err(RecordError::Invalid {
            format,
            reason: format!(
                "`from` must be \"{}\" or \"{}\", got {:?}",
                sides[0], sides[1], record.from
            ),
        });
    }
    Ok(record)
}

/// Where an adapter's canonical events go. Each event is applied at once, so the adapter
/// can read the tree as it stands after its previous event.
pub struct Sink<'a> {
    pub(crate) snapshot: &'a mut Snapshot,
    pub(crate) findings: &'a mut Vec<Finding>,
    pub(crate) on_step: &'a mut dyn FnMut(usize, &Event, &Step),
}

impl std::fmt::Debug for Sink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink").finish_non_exhaustive()
    }
}

impl Sink<'_> {
    /// Applies `event` as read from physical line `line`; reducer diagnostics become
    /// findings at that line.
    pub fn emit(&mut self, line: usize, at: Option<Millis>, event: Event) {
        let step = self.snapshot.apply(&event, at);
        (self.on_step)(line, &event, &step);
        self.findings.extend(
            step.diagnostics
                .iter()
                .map(|d| Finding::from_diagnostic(line, d)),
        );
        *self.snapshot = step.snapshot;
    }

    /// The tree after the last emitted event.
    pub fn snapshot(&self) -> &Snapshot {
        self.snapshot
    }

    /// Reports a line that is not a valid record of the trace's format.
    pub fn malformed(&mut self, line: usize, error: &RecordError) {
        self.findings.push(Finding::malformed(line, error));
    }

    /// Reports an adapter finding.
    pub fn finding(
        &mut self,
        line: usize,
        rule: &'static str,
        severity: Severity,
        message: String,
    ) {
        self.findings.push(Finding {
            line,
            rule,
            severity,
            message,
        });
    }
}
