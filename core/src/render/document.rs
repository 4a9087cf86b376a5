//! The documents of `replay --format json` as owned, typed values that read back: a host
//! in Rust deserializes what lineage (or another process running it) wrote, with the
//! same types, and the JSON Schema of both documents (`docs/replay.schema.json`) is
//! generated from them.
//!
//! Owns: the shape of the two documents, a session tree's ([`TreeDocument`]) and an ACP
//! Client view's ([`ViewDocument`]), field for field as the writers in `json.rs` and
//! `acp.rs` produce them (a test reads every corpus document back and writes it again,
//! byte for byte). Members a document may carry beyond these (a native source's
//! `source`, a finding's `file`) are kept in `extra`.
//! Never: computes anything; the writers stay the one source of the values.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ids::{CallId, MessageId, RequestId, SessionId, TurnId};
use crate::tree::{
    InteractionKind, InteractionStatus, Millis, Outcome, ParentRef, Phase, ProviderState, Role,
    RootRef, SessionKind, Severity, ToolStatus, Usage,
};

/// `replay --format json` of a canonical, Codex or Claude trace.
///
/// ```
/// use lineage_core::render::{self, document::TreeDocument};
/// use lineage_core::replay;
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R","title":"build"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// let doc: TreeDocument = serde_json::from_str(&render::json_string(&r, false)).unwrap();
/// assert_eq!(doc.sessions[0].title.as_deref(), Some("build"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TreeDocument {
    /// The document's version: 1.
    pub v: u32,
    /// The trace's format.
    pub format: String,
    /// Sessions in creation order.
    pub sessions: Vec<SessionDoc>,
    /// Interactions in creation order.
    pub interactions: Vec<InteractionDoc>,
    /// Findings in line order.
    pub diagnostics: Vec<FindingDoc>,
    /// Other members (a native source's `source`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One session of a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionDoc {
    /// Canonical id.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub id: SessionId,
    /// Root or child.
    pub kind: SessionKind,
    /// Children: the creator edge.
    pub parent: Option<ParentRef>,
    /// Children: the root session and turn.
    pub root: Option<RootRef>,
    /// Display title.
    pub title: Option<String>,
    /// Tombstoned with its subtree.
    pub deleted: bool,
    /// Turns in order.
    pub turns: Vec<TurnDoc>,
    /// Provider handles (`kind:id`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The transcript.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<MessageDoc>,
    /// Tool calls, by turn then id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallDoc>,
}

/// One turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TurnDoc {
    /// `<session>#<n>`.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub id: TurnId,
    /// Phase.
    pub phase: Phase,
    /// Outcome, once settled.
    pub outcome: Option<Outcome>,
    /// Root turns: the provider lifecycle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderState>,
    /// The cancel covering it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<CancelDoc>,
    /// A terminal recorded after settlement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_terminal: Option<Outcome>,
    /// The provider's error text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Guidance messages joined.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub guidance: u32,
    /// Root turns: the active nested child turns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<String>"))]
    pub active_children: Vec<TurnId>,
    /// `at` of the opening event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened_at: Option<Millis>,
    /// `at` of the settling event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_at: Option<Millis>,
    /// The token counts reported for the turn, when the trace holds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A cancel mark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CancelDoc {
    /// The operation (the turn the cancel was requested for).
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub operation: TurnId,
    /// The provider confirmed this target stopped.
    pub acknowledged: bool,
}

/// A transcript entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MessageDoc {
    /// The owning turn.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub turn: TurnId,
    /// The provider's message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub id: Option<MessageId>,
    /// Speaker.
    pub role: Role,
    /// The whole text.
    pub text: String,
    /// Arrived after its turn settled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub history: bool,
}

/// A tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolCallDoc {
    /// Call id.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub id: CallId,
    /// The owning turn.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub turn: TurnId,
    /// Tool name.
    pub name: Option<String>,
    /// Status.
    pub status: ToolStatus,
}

/// An interaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct InteractionDoc {
    /// The owning session.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub session: SessionId,
    /// The owning turn.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub turn: TurnId,
    /// The provider's request id.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub request: RequestId,
    /// Where it stands.
    pub status: InteractionStatus,
    /// What it asks.
    pub kind: InteractionKind,
    /// The provider's turn id (transport correlation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_turn: Option<String>,
    /// The tool call it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub tool_call: Option<CallId>,
    /// The client's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// A finding as the documents show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FindingDoc {
    /// Its code (`lineage rules <rule>` explains it).
    pub rule: String,
    /// Its level.
    pub severity: Severity,
    /// The line of the record it concerns.
    pub line: usize,
    /// What happened and what to fix.
    pub message: String,
    /// Other members (a native source's `file`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `replay --format json` of an `acp` trace: the Client's view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ViewDocument {
    /// The document's version: 1.
    pub v: u32,
    /// `acp`.
    pub format: String,
    /// `connected` or `disconnected`.
    pub connection: String,
    /// The connection's protocol version.
    pub version: Option<u64>,
    /// The RFD revision the view follows.
    pub spec: String,
    /// The revision whose shapes the stream uses.
    pub shapes: String,
    /// Sessions in order of first appearance.
    pub sessions: Vec<AcpSessionDoc>,
    /// Requests pending on the live connection.
    pub pending_requests: Vec<PendingDoc>,
    /// The Agent requests the Client answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered_requests: Vec<AnsweredDoc>,
    /// Findings in line order.
    pub diagnostics: Vec<FindingDoc>,
    /// Other members.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One session as the Client sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AcpSessionDoc {
    /// Its id.
    pub id: String,
    /// `root`, `child` or `unknown`.
    pub kind: String,
    /// Its owner.
    pub parent: Option<String>,
    /// The parent's label.
    pub title: Option<String>,
    /// The parent's description.
    pub description: Option<String>,
    /// Its working directory, as the association reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The association's `additionalDirectories`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_directories: Option<Value>,
    /// The association's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Its own conversation title.
    pub conversation_title: Option<String>,
    /// The last work-state snapshot (`null`: none).
    pub state: Value,
    /// The snapshot is a current observation.
    pub state_current: bool,
    /// What the Client shows as current activity.
    pub activity: String,
    /// Capabilities as last reported.
    pub capabilities: Value,
    /// May the Client cancel it now.
    pub effective_cancel: bool,
    /// Announced on this connection since the last reset.
    pub announced: bool,
    /// Transitions into `idle`.
    pub idle_transitions: u64,
    /// The last usage report.
    pub usage: Value,
    /// Session-directed messages.
    pub messages: Vec<Value>,
    /// Tool calls by id.
    pub tool_calls: Vec<AcpToolCallDoc>,
    /// The ordinary transcript.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcript: Vec<Value>,
    /// The current plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Value>,
}

/// A tool call as the Client shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AcpToolCallDoc {
    /// `toolCallId`.
    pub tool_call_id: String,
    /// Its status.
    pub status: String,
    /// Marked cancelled by the Client.
    pub locally_cancelled: bool,
}

/// A request pending on the live connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PendingDoc {
    /// The line of the request.
    pub line: usize,
    /// `client` or `agent`.
    pub from: String,
    /// The JSON-RPC id's JSON text.
    pub id: String,
    /// The method.
    pub method: String,
    /// Its `params.sessionId`.
    pub session: Option<String>,
}

/// An Agent request the Client answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AnsweredDoc {
    /// The line of the request.
    pub line: usize,
    /// The line of the answer.
    pub answered_at: usize,
    /// The JSON-RPC id's JSON text.
    pub id: String,
    /// The method.
    pub method: String,
    /// Its `params.sessionId`.
    pub session: Option<String>,
    /// The result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
