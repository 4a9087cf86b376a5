//! Views of a replay, for every format: the JSON contract, a readable unicode tree, a
//! Mermaid flowchart, and one self-contained HTML page (the tree with a timeline of the
//! run); and the JSON report of `lineage check`. A session tree (canonical and provider
//! formats) renders in `json`, `text` and `mermaid`; an ACP Client view in `acp`.
//!
//! Owns: presentation only. Never: changes or re-derives lifecycle facts; every phase,
//! outcome and status shown is read from the snapshot or view. Never recurses on the
//! depth of the session tree: every walk keeps an explicit stack, so any depth the
//! reducer can build renders on any thread. Never does I/O: [`write_json`] writes to the
//! caller's sink.

mod acp;
pub mod changes;
pub mod document;
mod html;
mod json;
mod mermaid;
pub mod otlp;
#[cfg(test)]
mod tests;
mod text;

pub use acp::{CheckedFile, check_json_string};
pub use html::html;
pub use json::snapshot_json;
pub(crate) use mermaid::escape;

use crate::engine::{Engine, Replay, State};
use crate::tree::{Session, Snapshot};

/// A label in double quotes for the readable tree: `"` and `\` escaped, control
/// characters and the bidirectional overrides and isolates (which could make a label
/// read as something else) written as escapes; every other character as it is, emoji
/// variation selectors, joiners and combining marks included.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c if c.is_control() => out.extend(c.escape_debug()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The replay as a readable tree, followed by its findings.
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     "{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\"}}\n\
///      {\"event\":{\"type\":\"user_submitted\",\"session\":\"R\"}}",
///     &replay::Options::default(),
/// ).unwrap();
/// assert_eq!(render::tree(&r), "R · root\n└─ R#1 · submitted\n");
/// ```
pub fn tree(replay: &Replay) -> String {
    match &replay.state {
        State::Tree(snapshot) => text::tree(snapshot, &replay.findings),
        State::Acp(view) => acp::tree(view, &replay.findings),
    }
}

/// The replay as a JSON value in the docs/contract.md contract shape.
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// let json = render::json(&r);
/// assert_eq!(json["format"], "canonical");
/// assert_eq!(json["sessions"][0]["kind"], "root");
/// assert_eq!(json["sessions"][0]["parent"], serde_json::Value::Null);
/// ```
pub fn json(replay: &Replay) -> serde_json::Value {
    match &replay.state {
        State::Tree(snapshot) => json::json(replay.format, snapshot, &replay.findings),
        State::Acp(view) => acp::json(view, &replay.findings),
    }
}

/// The JSON document of an engine's state so far: what `replay --format json` prints
/// for the trace cut at the engine's last line (its findings sorted by line), for a
/// session tree or an ACP Client view alike, without finishing or copying the engine.
///
/// ```
/// use lineage_core::engine::{Engine, Options};
/// use lineage_core::render;
/// let mut engine = Engine::new(Options::default());
/// engine.push_line(r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}"#).unwrap();
/// engine.push_line(r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}"#).unwrap();
/// let json = render::engine_json(&engine);
/// assert_eq!(json["format"], "acp");
/// assert_eq!(json["sessions"][0]["id"], "R");
/// ```
pub fn engine_json(engine: &Engine) -> serde_json::Value {
    let mut findings = engine.findings().to_vec();
    findings.sort_by_key(|f| f.line);
    match engine.view() {
        Some(view) => acp::json(view, &findings),
        None => {
            let format = engine.format().unwrap_or(crate::trace::Format::Canonical);
            json::json(format, engine.snapshot(), &findings)
        }
    }
}

/// The replay as JSON text, fields in contract order (`pretty`: indented).
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// assert!(render::json_string(&r, false).starts_with(r#"{"v":1,"format":"canonical","sessions":[{"id":"R","kind":"root""#));
/// ```
pub fn json_string(replay: &Replay, pretty: bool) -> String {
    match &replay.state {
        State::Tree(snapshot) => {
            json::json_string(replay.format, snapshot, &replay.findings, pretty)
        }
        State::Acp(view) => acp::json_string(view, &replay.findings, pretty),
    }
}

/// The same text as [`json_string`], written to `out` as it is produced: a session tree
/// never exists whole as JSON text or as a view in memory (`replay --format json` on a
/// long trace). `out` is the caller's sink; rendering does no I/O of its own.
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// let mut out = Vec::new();
/// render::write_json(&r, true, &mut out).unwrap();
/// assert_eq!(out, render::json_string(&r, true).into_bytes());
/// ```
pub fn write_json(
    replay: &Replay,
    pretty: bool,
    mut out: impl std::io::Write,
) -> std::io::Result<()> {
    match &replay.state {
        State::Tree(snapshot) => {
            json::write_json(replay.format, snapshot, &replay.findings, pretty, out)
        }
        State::Acp(view) => {
            out.write_all(acp::json_string(view, &replay.findings, pretty).as_bytes())
        }
    }
}

/// The replay as a Mermaid flowchart (findings are not part of the chart).
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// assert_eq!(render::mermaid(&r), "flowchart TD\n  s0[\"R · root\"]\n");
/// ```
pub fn mermaid(replay: &Replay) -> String {
    match &replay.state {
        State::Tree(snapshot) => mermaid::mermaid(snapshot),
        State::Acp(view) => acp::mermaid(view),
    }
}

/// A session's children, grouped in one pass over its children list: those of each of
/// its turns (`by_turn[i]` for its turn `i + 1`, in spawn order) and those whose turn no
/// longer exists (a deleted session's), which are shown directly under it. Reading them
/// per turn instead would scan the whole list once per turn: quadratic for a root with
/// many turns and children. The readable tree, the Mermaid chart and `lineage watch`
/// all place children this way.
///
/// ```
/// use lineage_core::render::Children;
/// use lineage_core::{SessionId, replay};
///
/// let trace = [
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     r#"{"event":{"type":"user_submitted","session":"R","text":"one"}}"#,
///     r#"{"event":{"type":"root_provider_turn_started","session":"R"}}"#,
///     r#"{"event":{"type":"root_provider_turn_completed","session":"R","outcome":"completed"}}"#,
///     r#"{"event":{"type":"user_submitted","session":"R","text":"two"}}"#,
///     r#"{"event":{"type":"child_spawned","session":"A","parent_session":"R"}}"#,
///     r#"{"event":{"type":"child_spawned","session":"B","parent_session":"R"}}"#,
/// ]
/// .join("\n");
/// let replayed = replay::replay(&trace, &replay::Options::default()).unwrap();
/// let snapshot = replayed.snapshot().unwrap();
/// let root = snapshot.session(&SessionId::from("R")).unwrap();
/// let children = Children::of(snapshot, root);
/// let ids = |turn: &[&lineage_core::Session]| -> Vec<String> {
///     turn.iter().map(|c| c.id.to_string()).collect()
/// };
/// assert!(children.by_turn[0].is_empty()); // R#1 spawned nothing
/// assert_eq!(ids(&children.by_turn[1]), ["A", "B"]); // R#2 spawned A, then B
/// assert!(children.orphans.is_empty());
/// ```
#[derive(Debug)]
pub struct Children<'a> {
    /// The children of each turn: `by_turn[i]` are those of turn `i + 1`, in spawn order
    /// (as many entries as the session has turns).
    pub by_turn: Vec<Vec<&'a Session>>,
    /// The children whose turn the session no longer has (a deleted session's), in spawn
    /// order.
    pub orphans: Vec<&'a Session>,
}

impl<'a> Children<'a> {
    /// The children of `owner`, a session of `snapshot`, by the turn that spawned them (a
    /// child is placed under the turn its creator relation names, never by its ordinal
    /// alone).
    pub fn of(snapshot: &'a Snapshot, owner: &'a Session) -> Self {
        let mut by_turn: Vec<Vec<&Session>> = vec![Vec::new(); owner.turns.len()];
        let mut orphans = Vec::new();
        for child in owner.children.iter().filter_map(|c| snapshot.session(c)) {
            let Some(relation) = child.relation.as_ref() else {
                continue;
            };
            let ordinal = relation.parent_turn.ordinal();
            match owner.turn(ordinal) {
                None => orphans.push(child),
                // Its turn's id, not only its ordinal: a child names the turn it hangs
                // under, and is drawn there only.
                Some(turn) if turn.id == relation.parent_turn => {
                    let slot = usize::try_from(ordinal)
                        .ok()
                        .and_then(|n| n.checked_sub(1))
                        .and_then(|i| by_turn.get_mut(i));
                    if let Some(slot) = slot {
                        slot.push(child);
                    }
                }
                Some(_) => {}
            }
        }
        Children { by_turn, orphans }
    }
}
