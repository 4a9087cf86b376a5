//! Provider adapters: pure normalizers from a provider's wire records to canonical events.
//!
//! Owns: the `{"from":…,"message":…,"at":…}` envelope of provider traces, the `Ctx`
//! an adapter works through (the record's line and time, the tree, the output), and one
//! adapter per provider (`codex`, `claude`).
//! Never: decides settlement. An adapter knows provider shapes and routing (which thread
//! is which session, which request is which interaction); every lifecycle rule is the
//! canonical reducer's. An adapter learns what an event did from the `Emitted` that
//! `Ctx::emit` hands back, and may read the tree through `Ctx::snapshot`, never
//! write it except by emitting events. It never re-enters itself: records it held are
//! handed back to the engine, which applies them in order.

pub(crate) mod claude;
pub(crate) mod codex;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::finding::{Code, Finding};
use crate::ids::{SessionId, TurnId};
use crate::output::Output;
use crate::trace::borrowed::{Cursor, Json, JsonRead, Skipped};
use crate::trace::{At, Format, RecordError};
use crate::tree::{Applied, Change, Event, Millis, Severity, Snapshot};

/// One record of a provider trace.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "RecordWire")]
pub struct ProviderRecord {
    /// Which side wrote the message (`server`/`client` for Codex, `cli`/`host` for Claude,
    /// `client`/`agent` for ACP).
    pub from: String,
    /// The provider's message.
    pub message: Value,
    /// Milliseconds, when the record carries a valid `at`.
    pub at: Option<Millis>,
    /// Why a parsed record's `at` is not a time (the record still applies, without one).
    at_problem: Option<String>,
}

#[derive(Deserialize)]
struct RecordWire {
    from: String,
    message: Value,
    #[serde(default)]
    at: At,
}

impl From<RecordWire> for ProviderRecord {
    fn from(w: RecordWire) -> Self {
        let (at, at_problem) = w.at.split();
        Self {
            from: w.from,
            message: w.message,
            at,
            at_problem,
        }
    }
}

impl ProviderRecord {
    /// A record written by `from`.
    pub fn new(from: impl Into<String>, message: Value, at: Option<Millis>) -> Self {
        Self {
            from: from.into(),
            message,
            at,
            at_problem: None,
        }
    }

    /// Why the record's `at`, as read from a trace line, is not a time.
    pub(crate) fn at_problem(&self) -> Option<&str> {
        self.at_problem.as_deref()
    }
}

/// A record as an adapter reads it: who wrote it, its message (a `Value`, or [`Json`]
/// borrowed from its line), and its time.
#[derive(Debug)]
pub(crate) struct Rec<'r, J> {
    pub(crate) from: &'r str,
    pub(crate) message: &'r J,
    pub(crate) at: Option<Millis>,
}

impl<J> Clone for Rec<'_, J> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<J> Copy for Rec<'_, J> {}

impl ProviderRecord {
    /// The record as an adapter reads it.
    pub(crate) fn view(&self) -> Rec<'_, Value> {
        Rec {
            from: &self.from,
            message: &self.message,
            at: self.at,
        }
    }
}

impl<J: JsonRead> Rec<'_, J> {
    /// The record, owned (a record an adapter holds for later).
    pub(crate) fn to_owned_record(self) -> ProviderRecord {
        ProviderRecord::new(self.from, self.message.to_value(), self.at)
    }
}

/// A provider record line read in place: its envelope decoded, its message borrowed from
/// the line ([`Json`]), no `Value` map built.
#[derive(Debug)]
pub(crate) struct LineRecord<'a> {
    pub(crate) from: Cow<'a, str>,
    pub(crate) message: Json<'a>,
    pub(crate) at: Option<Millis>,
    pub(crate) at_problem: Option<String>,
}

impl<'a> LineRecord<'a> {
    /// Decodes a record line of `format`, or `None` for anything the ordinary path
    /// ([`parse_record`]) must read and report: text the parser refuses (not JSON, too
    /// deep), a record that is not an object, a missing or repeated `from` or `message`
    /// or `at`, a `from` that is not a string or not one of the format's sides. Other
    /// members are ignored, as there. What it accepts reads as that path reads it.
    pub(crate) fn decode(text: &'a str, format: Format) -> Option<LineRecord<'a>> {
        let (mut from, mut message, mut at) = (None, None, None);
        let mut cursor = Cursor::new(text);
        cursor.object(|key, c| {
            let slot = match key.as_ref() {
                "from" => &mut from,
                "message" => &mut message,
                "at" => &mut at,
                // Another member is checked, not built.
                _ => return c.value::<Skipped>().map(drop),
            };
            slot.replace(c.value::<Json<'a>>()?).is_none().then_some(())
        })?;
        cursor.end()?;
        let Json::Str(from) = from? else {
            return None;
        };
        check_side(format, &from).ok()?;
        let at = match &at {
            None => At::Absent,
            Some(at) => match at.as_u64() {
                Some(ms) => At::Time(ms),
                None => At::read(&at.to_value()),
            },
        };
        let (at, at_problem) = at.split();
        Some(LineRecord {
            from,
            message: message?,
            at,
            at_problem,
        })
    }

    /// The record as an adapter reads it.
    pub(crate) fn view(&self) -> Rec<'_, Json<'a>> {
        Rec {
            from: &self.from,
            message: &self.message,
            at: self.at,
        }
    }
}

/// Parses one provider record line, checking `from` against the format's two sides.
/// The note says what a very deeply nested record did not keep.
pub(crate) fn parse_record(
    line: &str,
    format: Format,
) -> Result<(ProviderRecord, Option<String>), RecordError> {
    // One pass: straight into the record (no intermediate `Value` copy of the message).
    let (record, note) = crate::trace::parse_line::<ProviderRecord>(line, format)?;
    check_side(format, &record.from)?;
    Ok((record, note))
}

/// Is `from` one of the format's two sides?
pub(crate) fn check_side(format: Format, from: &str) -> Result<(), RecordError> {
    let sides = format.sides().unwrap_or(["server", "client"]);
    if sides.contains(&from) {
        return Ok(());
    }
    Err(RecordError::Invalid {
        format,
        reason: format!(
            "`from` must be \"{}\" or \"{}\", got {from:?}",
            sides[0], sides[1]
        ),
    })
}

/// What an adapter learns of an emitted event (the facts of its [`crate::tree::Step`] adapters read).
#[derive(Debug, Default)]
pub(crate) struct Emitted {
    rejected: bool,
    created: Vec<SessionId>,
    cancel_targets: Option<Vec<TurnId>>,
}

impl Emitted {
    fn of(applied: &Applied) -> Self {
        let mut emitted = Emitted {
            rejected: applied
                .diagnostics
                .iter()
                .any(|d| d.severity() >= Severity::Warning),
            ..Emitted::default()
        };
        for change in &applied.changes {
            match change {
                Change::SessionCreated { session, .. } => emitted.created.push(session.clone()),
                Change::CancelPrepared { targets, .. } if emitted.cancel_targets.is_none() => {
                    emitted.cancel_targets = Some(targets.clone());
                }
                _ => {}
            }
        }
        emitted
    }

    /// As [`crate::tree::Step::rejected`].
    pub(crate) fn rejected(&self) -> bool {
        self.rejected
    }

    /// As [`crate::tree::Step::created`].
    pub(crate) fn created(&self, session: &SessionId) -> bool {
        self.created.contains(session)
    }

    /// As [`crate::tree::Step::cancel_prepared`].
    pub(crate) fn cancel_prepared(&self) -> Option<&[TurnId]> {
        self.cancel_targets.as_deref()
    }
}

/// What an adapter works through while it handles one record: the record's line and
/// time, the tree as it stands after the adapter's previous event, and the output.
pub(crate) struct Ctx<'a> {
    line: usize,
    at: Option<Millis>,
    snapshot: &'a mut Snapshot,
    out: &'a mut Output,
    /// Report each emitted event in the output (`Options::record_events`).
    record: bool,
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("line", &self.line)
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

impl<'a> Ctx<'a> {
    /// A context for the record at physical `line`, with its time.
    pub(crate) fn new(
        line: usize,
        at: Option<Millis>,
        snapshot: &'a mut Snapshot,
        out: &'a mut Output,
    ) -> Self {
        Self {
            line,
            at,
            snapshot,
            out,
            record: false,
        }
    }

    /// The same context, reporting each emitted event in the output when `record`.
    pub(crate) fn recording(mut self, record: bool) -> Self {
        self.record = record;
        self
    }

    /// The same tree and output, for a record read at another line (a held record).
    pub(crate) fn relocate(&mut self, line: usize, at: Option<Millis>) -> Ctx<'_> {
        Ctx {
            line,
            at,
            snapshot: self.snapshot,
            out: self.out,
            record: self.record,
        }
    }

    /// The physical line of the record being handled.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The record's time, when it has one.
    pub fn at(&self) -> Option<Millis> {
        self.at
    }

    /// Applies `event` at once, in place (the engine keeps no earlier tree); its changes
    /// (moved, not copied) and findings join the output, and what the adapter needs to
    /// know of what the reducer did comes back.
    pub(crate) fn emit(&mut self, event: Event) -> Emitted {
        let applied = self.snapshot.apply_in_place(&event, self.at);
        if self.record {
            self.out.events.push((event, self.at));
        }
        let line = self.line;
        let emitted = Emitted::of(&applied);
        crate::output::extend(&mut self.out.changes, applied.changes);
        self.out
            .findings
            .extend(applied.diagnostics.iter().map(|d| d.at_line(line)));
        emitted
    }

    /// The tree after the last emitted event.
    pub fn snapshot(&self) -> &Snapshot {
        self.snapshot
    }

    /// Reports an adapter finding at this record's line, at the code's level.
    pub fn finding(&mut self, code: Code, message: String) {
        let line = self.line;
        self.finding_at(line, code, message);
    }

    /// Reports an adapter finding at another line (end-of-trace findings point at the
    /// record they concern).
    pub fn finding_at(&mut self, line: usize, code: Code, message: String) {
        self.out.findings.push(Finding::new(line, code, message));
    }
}
