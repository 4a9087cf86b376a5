//! The replay as OpenTelemetry traces: an OTLP/JSON `ExportTraceServiceRequest` (what
//! `lineage convert --to otlp-json` writes and `--otlp-endpoint` posts), following the
//! GenAI agent-span conventions of OpenTelemetry semantic conventions
//! [`SEMCONV_VERSION`].
//!
//! A session tree gives one trace per root session and an `invoke_agent` span per turn;
//! a child session's turns hang under the span of the tool call (or else the turn) that
//! spawned it, so the span tree is the session tree. Tool calls are `execute_tool`
//! spans; interactions, cancels and findings are span events; a failed turn has status
//! `ERROR`, a canceled or interrupted one an unset status and its outcome in
//! `lineage.turn.outcome`. An ACP Client view gives a span per session under its
//! parent's. The whole mapping is one table ([`TABLE`], `mapping.rs`).
//!
//! Owns: the mapping, the deterministic ids (`ids.rs`: a hash of session and turn ids,
//! so the same input gives the same bytes) and the times (`recorder.rs`: the records'
//! `at`, or record order when no record has one, which the resource says).
//! Never: sends anything (the CLI posts), reads a clock, or changes what it reads.
//!
//! ```
//! use lineage_core::engine::{Engine, Options};
//! use lineage_core::render::otlp::{self, Recorder};
//! let trace = [
//!     r#"{"event":{"type":"root_session_created","session":"R","title":"build"},"at":1000}"#,
//!     r#"{"event":{"type":"user_submitted","session":"R"},"at":1000}"#,
//!     r#"{"event":{"type":"root_provider_turn_started","session":"R"},"at":1001}"#,
//!     r#"{"event":{"type":"root_provider_turn_completed","session":"R","outcome":"failed"},"at":1003}"#,
//! ];
//! let mut engine = Engine::new(Options::default());
//! let mut recorder = Recorder::default();
//! for line in trace {
//!     let out = engine.push_line(line).unwrap();
//!     recorder.observe(&engine, &out);
//! }
//! let json: serde_json::Value =
//!     serde_json::from_str(&otlp::export_json(&engine.finish().unwrap(), &recorder)).unwrap();
//! let span = &json["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
//! assert_eq!(span["name"], "invoke_agent build");
//! assert_eq!(span["startTimeUnixNano"], "1000000000");
//! assert_eq!(span["endTimeUnixNano"], "1003000000");
//! assert_eq!(span["status"]["code"], 2);
//! ```

mod acp;
mod ids;
mod mapping;
pub mod model;
mod recorder;
#[cfg(test)]
mod tests;
mod tree;

pub use mapping::{Row, SCHEMA_URL, SEMCONV_VERSION, TABLE};
pub use recorder::Recorder;

use std::collections::BTreeMap;

use crate::engine::{Engine, Replay, State};
use crate::finding::Finding;
use crate::output::Output;
use crate::trace::Format;
use crate::tree::Change;

use model::{Event, ExportRequest, Resource, ResourceSpans, Scope, ScopeSpans, Span};
use recorder::Owner;

/// Events kept per span; the rest are counted in `droppedEventsCount`.
pub const MAX_EVENTS: usize = 1_000;

/// The replay's spans as one export request. `recorder` observed every push of the
/// engine that made `replay` (its times; without it every span has the trace's last
/// moment).
pub fn export(replay: &Replay, recorder: &Recorder) -> ExportRequest {
    let mut spans = match &replay.state {
        State::Tree(snapshot) => tree::spans(tree::Ctx {
            snapshot,
            recorder,
            provider: mapping::provider(replay.format),
        }),
        State::Acp(view) => acp::spans(view, recorder),
    };
    attach_findings(&mut spans, &replay.findings, recorder);
    request(replay.format, recorder.has_time(), spans)
}

/// [`export`] as OTLP/JSON text (one line, no trailing newline).
pub fn export_json(replay: &Replay, recorder: &Recorder) -> String {
    serde_json::to_string(&export(replay, recorder)).unwrap_or_default()
}

/// The spans of the turns the push that gave `out` settled (with their tool calls), as
/// an export request, or `None` when it settled none: the live export of `record`.
/// Each span is the one a whole export of the same trace writes, findings aside. Call
/// it after [`Recorder::observe`] for the same push. A session tree only: an ACP view's
/// sessions never settle.
pub fn settled(engine: &Engine, recorder: &Recorder, out: &Output) -> Option<ExportRequest> {
    if engine.view().is_some() {
        return None;
    }
    let turns: Vec<_> = out
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::TurnSettled { turn, .. } => Some(turn),
            _ => None,
        })
        .collect();
    if turns.is_empty() {
        return None;
    }
    let format = engine.format().unwrap_or(Format::Canonical);
    let ctx = tree::Ctx {
        snapshot: engine.snapshot(),
        recorder,
        provider: mapping::provider(format),
    };
    let spans = tree::settled_spans(ctx, &turns);
    Some(request(format, recorder.has_time(), spans))
}

fn request(format: Format, timed: bool, spans: Vec<Span>) -> ExportRequest {
    ExportRequest {
        resource_spans: vec![ResourceSpans {
            resource: Resource {
                attributes: mapping::resource(format, timed),
            },
            scope_spans: vec![ScopeSpans {
                scope: Scope {
                    name: "lineage".to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                },
                spans,
                schema_url: SCHEMA_URL.to_owned(),
            }],
            schema_url: SCHEMA_URL.to_owned(),
        }],
    }
}

/// Each finding as an event of the span whose turn (or ACP session) changed last at or
/// before its line (the first span when none did), in line order, at most
/// [`MAX_EVENTS`] per span.
fn attach_findings(spans: &mut [Span], findings: &[Finding], rec: &Recorder) {
    // A turn's span (or an ACP session's) by its turn (or session) id.
    let index: BTreeMap<String, usize> = spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name.starts_with("invoke_agent"))
        .filter_map(|(i, s)| {
            let key = |k: &str| s.attributes.iter().find(|a| a.key == k);
            let kv = key("lineage.turn.id").or_else(|| key("lineage.session.id"))?;
            match &kv.value {
                model::AnyValue::String(id) => Some((id.clone(), i)),
                _ => None,
            }
        })
        .collect();
    let mut extra: BTreeMap<usize, Vec<Event>> = BTreeMap::new();
    for f in findings {
        let owner = rec.owner_at(f.line);
        let key = owner.map(|(_, o)| match o {
            Owner::Turn(turn) => turn.to_string(),
            Owner::Acp(session) => session.clone(),
        });
        let first = (!spans.is_empty()).then_some(0);
        let Some(i) = key.and_then(|k| index.get(&k).copied()).or(first) else {
            return;
        };
        let stamp = owner.map_or(rec.last, |(s, _)| *s);
        let nanos = rec.nanos(stamp);
        extra.entry(i).or_default().push(tree::event(
            nanos,
            mapping::FINDING,
            mapping::finding_attributes(f),
        ));
    }
    for (i, events) in extra {
        if let Some(span) = spans.get_mut(i) {
            span.events.extend(events);
            span.events
                .sort_by_key(|e| e.time_unix_nano.parse::<u64>().unwrap_or_default());
        }
    }
    for span in spans.iter_mut() {
        if span.events.len() > MAX_EVENTS {
            let dropped = span.events.len() - MAX_EVENTS;
            span.events.truncate(MAX_EVENTS);
            span.dropped_events_count = span
                .dropped_events_count
                .saturating_add(u32::try_from(dropped).unwrap_or(u32::MAX));
        }
    }
}
