//! `replay --format json`: the docs/contract.md contract shape.
//!
//! `{"format", "sessions":[{"id","kind","parent","root","title","deleted","turns":[…]}],
//! "interactions":[{"session","turn","request","status"}], "diagnostics":[{"rule",
//! "severity","line","message"}]}`, plus extra fields (welcome per the contract) in
//! camelCase. Sessions and interactions are in creation order.

use serde::{Serialize, Serializer};

use crate::finding::Finding;
use crate::trace::Format;
use crate::tree::{
    Interaction, Outcome, Phase, ProviderPhase, Session, SessionKind, Snapshot, Turn, Usage,
};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    /// The document's version (`crate::render::changes::VERSION`).
    v: u32,
    format: &'a str,
    sessions: Sessions<'a>,
    interactions: Interactions<'a>,
    diagnostics: Vec<DiagnosticView<'a>>,
}

/// The sessions in creation order, each viewed only while it is written (the output
/// never holds a view of the whole tree).
struct Sessions<'a>(Vec<&'a Session>);

impl Serialize for Sessions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|x| session_view(x)))
    }
}

/// The interactions in creation order, viewed as they are written.
struct Interactions<'a>(Vec<&'a Interaction>);

impl Serialize for Interactions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|x| interaction_view(x)))
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionView<'a> {
    id: &'a str,
    kind: SessionKind,
    parent: Option<ParentView<'a>>,
    root: Option<RootView<'a>>,
    title: Option<&'a str>,
    deleted: bool,
    turns: Vec<TurnView<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aliases: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    messages: Vec<MessageView<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ToolCallView<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ParentView<'a> {
    session: &'a str,
    turn: String,
    tool_call: Option<&'a str>,
}

#[derive(Serialize)]
struct RootView<'a> {
    session: &'a str,
    turn: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnView<'a> {
    id: String,
    phase: Phase,
    outcome: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<ProviderView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancel: Option<CancelView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    late_terminal: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "is_zero")]
    guidance: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    active_children: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    opened_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    settled_at: Option<u64>,
    /// Only when the trace reported it, so a document without usage is unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProviderView<'a> {
    phase: ProviderPhase,
    outcome: Option<Outcome>,
    turn: Option<&'a str>,
    turns: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CancelView {
    operation: String,
    acknowledged: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageView<'a> {
    turn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    role: crate::tree::Role,
    text: &'a crate::tree::MessageText,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    history: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallView<'a> {
    id: &'a str,
    turn: String,
    name: Option<&'a str>,
    status: crate::tree::ToolStatus,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InteractionView<'a> {
    session: &'a str,
    turn: String,
    request: &'a str,
    status: crate::tree::InteractionStatus,
    kind: crate::tree::InteractionKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider_turn: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<&'a str>,
}

#[derive(Serialize)]
struct DiagnosticView<'a> {
    rule: &'a str,
    severity: crate::tree::Severity,
    line: usize,
    message: &'a str,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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
pub(crate) fn json(format: Format, snapshot: &Snapshot, findings: &[Finding]) -> serde_json::Value {
    serde_json::to_value(document(format, snapshot, findings)).unwrap_or(serde_json::Value::Null)
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
pub(crate) fn json_string(
    format: Format,
    snapshot: &Snapshot,
    findings: &[Finding],
    pretty: bool,
) -> String {
    let mut out = Vec::new();
    match write_json(format, snapshot, findings, pretty, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// The same text as [`json_string`], written to `out` as it is produced (the caller owns
/// the sink; nothing here does I/O of its own).
pub(crate) fn write_json(
    format: Format,
    snapshot: &Snapshot,
    findings: &[Finding],
    pretty: bool,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    let doc = document(format, snapshot, findings);
    let written = if pretty {
        serde_json::to_writer_pretty(out, &doc)
    } else {
        serde_json::to_writer(out, &doc)
    };
    written.map_err(std::io::Error::from)
}

fn document<'a>(format: Format, snapshot: &'a Snapshot, findings: &'a [Finding]) -> Document<'a> {
    Document {
        v: super::changes::VERSION,
        format: format.as_str(),
        sessions: Sessions(snapshot.sessions_in_creation_order()),
        interactions: Interactions(snapshot.interactions()),
        diagnostics: findings
            .iter()
            .map(|f| DiagnosticView {
                rule: f.rule.as_str(),
                severity: f.severity,
                line: f.line,
                message: &f.message,
            })
            .collect(),
    }
}

/// Just the snapshot's sessions and interactions (no format, no diagnostics).
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// let json = render::snapshot_json(r.snapshot().unwrap());
/// assert_eq!(json["sessions"][0]["id"], "R");
/// assert!(json.get("findings").is_none() && json.get("format").is_none());
/// ```
pub fn snapshot_json(snapshot: &Snapshot) -> serde_json::Value {
    serde_json::json!({
        "sessions": snapshot
            .sessions_in_creation_order()
            .into_iter()
            .map(|s| serde_json::to_value(session_view(s)).unwrap_or_default())
            .collect::<Vec<_>>(),
        "interactions": snapshot
            .interactions()
            .into_iter()
            .map(|i| serde_json::to_value(interaction_view(i)).unwrap_or_default())
            .collect::<Vec<_>>(),
    })
}

fn session_view(s: &Session) -> SessionView<'_> {
    SessionView {
        id: s.id.as_str(),
        kind: s.kind,
        parent: s.relation.as_ref().map(|r| ParentView {
            session: r.parent_session.as_str(),
            turn: r.parent_turn.to_string(),
            tool_call: r.tool_call.as_ref().map(|c| c.as_str()),
        }),
        root: s.relation.as_ref().map(|r| RootView {
            session: r.root_session.as_str(),
            turn: r.root_turn.to_string(),
        }),
        title: s.title.as_deref(),
        deleted: s.deleted,
        turns: s.turns.iter().map(|t| turn_view(t)).collect(),
        aliases: s.aliases.iter().map(|a| a.to_string()).collect(),
        messages: s
            .messages
            .iter()
            .map(|m| MessageView {
                turn: crate::TurnId::new(s.id.clone(), m.turn).to_string(),
                id: m.id.as_ref().map(|i| i.as_str()),
                role: m.role,
                text: &m.text,
                history: m.history,
            })
            .collect(),
        tool_calls: {
            let mut calls: Vec<_> = s.tool_calls.values().collect();
            calls.sort_by_key(|c| c.turn);
            calls
                .into_iter()
                .map(|c| ToolCallView {
                    id: c.id.as_str(),
                    turn: crate::TurnId::new(s.id.clone(), c.turn).to_string(),
                    name: c.name.as_deref(),
                    status: c.status,
                })
                .collect()
        },
    }
}

fn turn_view(t: &Turn) -> TurnView<'_> {
    TurnView {
        id: t.id.to_string(),
        phase: t.phase,
        outcome: t.outcome,
        provider: t.gate.as_ref().map(|g| ProviderView {
            phase: g.provider.phase,
            outcome: g.provider.outcome,
            turn: g.provider.provider_turn.as_deref(),
            turns: g.provider.turns,
        }),
        cancel: t.cancel.as_ref().map(|m| CancelView {
            operation: m.operation.to_string(),
            acknowledged: m.acknowledged,
        }),
        late_terminal: t.late_terminal,
        error: t.error.as_deref(),
        guidance: t.guidance,
        active_children: t
            .gate
            .as_ref()
            .map(|g| g.active_descendants.iter().map(|d| d.to_string()).collect())
            .unwrap_or_default(),
        opened_at: t.opened_at,
        settled_at: t.settled_at,
        usage: t.usage.as_deref().copied(),
    }
}

fn interaction_view(i: &Interaction) -> InteractionView<'_> {
    InteractionView {
        session: i.turn.session().as_str(),
        turn: i.turn.to_string(),
        request: i.request.as_str(),
        status: i.status,
        kind: i.kind,
        provider_turn: i.provider_turn.as_deref(),
        tool_call: i.tool_call.as_ref().map(|c| c.as_str()),
        answer: i.answer.as_deref(),
    }
}
