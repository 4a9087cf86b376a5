//! Canonical changes: what one event did to the tree, in the order it did it.
//!
//! Owns: the outbox vocabulary an embedder publishes (to a UI, a database, another
//! process, an ACP projection). Each change is self-contained: it carries the data a
//! consumer needs to update its own copy of the tree (a new session's kind, creator
//! relation and title; a turn's phase, outcome and times; the appended text; the new
//! title; an interaction's kind, owner and state), so folding the changes alone rebuilds
//! the `replay --format json` document (the contract in `docs/changes.md`).
//! Never: describes anything that did not change; a rejected event produces no change
//! at all.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::model::{
    InteractionKind, InteractionStatus, Millis, Outcome, Phase, ProviderPhase, Role, SessionKind,
    ToolStatus, Usage,
};
use crate::ids::{Alias, CallId, MessageId, RequestId, SessionId, TurnId};

/// A child's creator edge, as a change (and the JSON views) carry it: the session, turn
/// and tool call that delegated. Never changes once the child exists.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParentRef {
    /// The session whose turn delegated.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub session: SessionId,
    /// The delegating turn.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub turn: TurnId,
    /// The delegation tool call, when known.
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub tool_call: Option<CallId>,
}

/// The root session and root turn a child belongs under.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootRef {
    /// The root session.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub session: SessionId,
    /// The root turn.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub turn: TurnId,
}

/// A root turn's provider lifecycle as a change carries it (the `provider` object of a
/// turn in the JSON views).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderState {
    /// Where the provider turn stands.
    pub phase: ProviderPhase,
    /// The retained outcome of the last provider terminal.
    pub outcome: Option<Outcome>,
    /// The last provider turn id seen (transport correlation only).
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub turn: Option<Arc<str>>,
    /// How many provider turns attached to this root turn.
    pub turns: u32,
}

/// One change caused by an event. Serialized with a `type` tag (snake_case) and
/// camelCase fields; every variant says how a consumer applies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum Change {
    /// A session was created: append it to the sessions (creation order). A child comes
    /// with its creator relation and, in the next change, its first turn.
    SessionCreated {
        /// The session.
        session: SessionId,
        /// Root or child.
        kind: SessionKind,
        /// Children: the session, turn and tool call that delegated.
        parent: Option<ParentRef>,
        /// Children: the root session and root turn.
        root: Option<RootRef>,
        /// The title it was created with.
        title: Option<Arc<str>>,
    },
    /// A turn was opened: append it to its session's turns. A child turn that is open is
    /// one of its root turn's active children until it settles.
    TurnOpened {
        /// The turn.
        turn: TurnId,
        /// Its phase.
        phase: Phase,
        /// `at` of the event that opened it.
        opened_at: Option<Millis>,
        /// Root turns: the provider lifecycle (children have none).
        provider: Option<ProviderState>,
    },
    /// A turn moved to another phase (settlement is reported as [`Change::TurnSettled`]).
    TurnPhaseChanged {
        /// The turn.
        turn: TurnId,
        /// Its new phase.
        phase: Phase,
    },
    /// A turn settled (phase `settled`). Final.
    TurnSettled {
        /// The turn.
        turn: TurnId,
        /// Its outcome.
        outcome: Outcome,
        /// The provider's error text (failed and interrupted turns only).
        error: Option<Arc<str>>,
        /// `at` of the event that settled it.
        settled_at: Option<Millis>,
    },
    /// A terminal arrived for a settled turn and was recorded without effect.
    LateTerminalRecorded {
        /// The turn.
        turn: TurnId,
        /// The late outcome.
        outcome: Outcome,
    },
    /// The root provider lifecycle of a root turn changed: replace the turn's
    /// `provider` and `error`.
    ProviderTurnChanged {
        /// The root turn.
        turn: TurnId,
        /// The provider phase.
        phase: ProviderPhase,
        /// The retained provider outcome.
        outcome: Option<Outcome>,
        /// The provider turn id.
        provider_turn: Option<Arc<str>>,
        /// How many provider turns attached to this root turn so far.
        turns: u32,
        /// The root turn's error text after the change.
        error: Option<Arc<str>>,
    },
    /// The token counts reported for a turn changed (set the turn's `usage`; a settled
    /// turn's too: usage is accounting, not lifecycle).
    TurnUsageChanged {
        /// The turn.
        turn: TurnId,
        /// Its figures now (a figure left out is not known).
        usage: Usage,
    },
    /// User guidance joined the active root turn.
    GuidanceAdded {
        /// The root turn.
        turn: TurnId,
        /// How many guidance messages the turn holds now.
        guidance: u32,
    },
    /// A message was added (`index` is the session's message count) or extended
    /// (`text` appended to the message at `index`).
    MessageAppended {
        /// The owning turn.
        turn: TurnId,
        /// Index of the message in its session's transcript.
        index: usize,
        /// The message id, when the provider has one.
        id: Option<MessageId>,
        /// The speaker.
        role: Role,
        /// The text added (the whole text of a new message; the delta of an extension).
        text: Arc<str>,
        /// Kept as history of a settled turn.
        history: bool,
    },
    /// A tool call started or changed status.
    ToolCallChanged {
        /// The owning turn.
        turn: TurnId,
        /// The call.
        call: CallId,
        /// Its status.
        status: ToolStatus,
        /// The tool's name, when known.
        name: Option<Arc<str>>,
    },
    /// A provider handle was bound to a session (append to its aliases).
    AliasBound {
        /// The session.
        session: SessionId,
        /// The alias.
        alias: Alias,
    },
    /// A session's title changed.
    TitleChanged {
        /// The session.
        session: SessionId,
        /// The new title (`null`: none).
        title: Option<Arc<str>>,
    },
    /// An interaction was created (`pending`: append it, replacing a closed one with the
    /// same turn and request) or changed status.
    InteractionChanged {
        /// The owning turn (its session is the owning session).
        turn: TurnId,
        /// The request.
        request: RequestId,
        /// Its status.
        status: InteractionStatus,
        /// What it asks.
        kind: InteractionKind,
        /// The provider's turn id (transport correlation only).
        provider_turn: Option<Arc<str>>,
        /// The tool call it is about.
        tool_call: Option<CallId>,
        /// The client's answer, once answered.
        answer: Option<Arc<str>>,
    },
    /// A cancel was prepared with this recorded target set: each target is marked
    /// (`cancel: {operation, acknowledged}`; an earlier acknowledgement is kept).
    CancelPrepared {
        /// The turn the cancel was requested for.
        operation: TurnId,
        /// Every target turn.
        targets: Vec<TurnId>,
    },
    /// The provider confirmed that a target stopped.
    CancelAcknowledged {
        /// The operation.
        operation: TurnId,
        /// The target.
        turn: TurnId,
    },
    /// A cancel completed; its targets' settlements precede this change.
    CancelCompleted {
        /// The operation.
        operation: TurnId,
    },
    /// A session was tombstoned (one change per session of the deleted subtree): its
    /// turns, transcript, tool calls and interactions are gone.
    SessionDeleted {
        /// The session.
        session: SessionId,
    },

    // ---- ACP traces: the Client's view (`replay --format json` of an `acp` trace). Ids
    // are the wire's strings; JSON values are kept as the view shows them (object keys
    // in sorted order).
    /// The view's connection, protocol version, revision and shapes: on the first record
    /// and whenever one of them changes. A new connection or a disconnect also empties
    /// the pending requests (and every session's per-connection facts come as
    /// [`Change::AcpWorkStateChanged`] / [`Change::AcpControlsChanged`]).
    AcpViewChanged {
        /// `connected` or `disconnected`.
        connection: Arc<str>,
        /// This connection's protocol version.
        version: Option<u64>,
        /// The RFD revision the view follows.
        spec: Arc<str>,
        /// The revision whose shapes the stream uses.
        shapes: Arc<str>,
        /// A new connection began or the connection was lost: the pending requests are
        /// gone and the replay windows closed.
        reset: bool,
    },
    /// A session the Client learned of (first seen: append it, sessions are in order of
    /// first appearance), or whose kind or parent became known.
    AcpSessionLearned {
        /// The session.
        session: Arc<str>,
        /// `root`, `child`, or `unknown` (only stray traffic named it).
        kind: Arc<str>,
        /// Its owner (set once, by its first association).
        parent: Option<Arc<str>>,
    },
    /// The parent's labels for a session, or its own conversation title, changed.
    AcpLabelsChanged {
        /// The session.
        session: Arc<str>,
        /// The parent's label.
        title: Option<Arc<str>>,
        /// The parent's description.
        description: Option<Arc<str>>,
        /// Its working directory, as the association reported it.
        cwd: Option<Arc<str>>,
        /// The association's `additionalDirectories`.
        additional_directories: Option<serde_json::Value>,
        /// The association's `_meta`.
        meta: Option<serde_json::Value>,
        /// Its own conversation title (`session_info_update`).
        conversation_title: Option<Arc<str>>,
    },
    /// A session's reported work state (with its `stopReason`) or its freshness changed.
    AcpWorkStateChanged {
        /// The session.
        session: Arc<str>,
        /// The last snapshot (`null`: none).
        state: serde_json::Value,
        /// It is a current observation on this connection.
        state_current: bool,
        /// Transitions into `idle` so far.
        idle_transitions: u64,
    },
    /// A session's capabilities, effective cancel grant or announcement changed.
    AcpControlsChanged {
        /// The session.
        session: Arc<str>,
        /// `capabilities` as last reported (`null`: none).
        capabilities: serde_json::Value,
        /// May the Client cancel it right now.
        effective_cancel: bool,
        /// Announced on this connection since the last reset.
        announced: bool,
    },
    /// A session's last `usage_update` changed.
    AcpUsageChanged {
        /// The session.
        session: Arc<str>,
        /// The usage (`null`: none).
        usage: serde_json::Value,
    },
    /// A session-directed message was added (`index` is the session's message count) or
    /// changed (replace message `index`).
    AcpMessageChanged {
        /// The transcript's session.
        session: Arc<str>,
        /// Its index in the session's messages.
        index: usize,
        /// The whole message: `{messageId, sender, recipient, direction, content, …}`.
        message: serde_json::Value,
    },
    /// A tool call was opened or changed (status, title, kind, or shown cancelled
    /// locally after a Client cancel).
    AcpToolCallChanged {
        /// The session that opened it.
        session: Arc<str>,
        /// `toolCallId`.
        call: Arc<str>,
        /// Its status as the Client shows it.
        status: Arc<str>,
        /// Marked cancelled by the Client, until the Agent reports.
        locally_cancelled: bool,
        /// Its title as last reported.
        title: Option<Arc<str>>,
        /// Its kind as last reported.
        kind: Option<Arc<str>>,
    },
    /// An entry was added to a session's ordinary transcript (`index` is its position).
    AcpTranscriptEntryAdded {
        /// The session.
        session: Arc<str>,
        /// The entry's index.
        index: usize,
        /// `{"type":"agent_message"|"user_message"|"agent_thought","messageId"?,
        /// "content":[block]}` or `{"type":"tool_call","toolCallId"}`.
        entry: serde_json::Value,
    },
    /// A content block joined the text entry at `index` (a plain text block joins a
    /// plain text block before it: their texts are concatenated).
    AcpTranscriptAppended {
        /// The session.
        session: Arc<str>,
        /// The entry's index.
        index: usize,
        /// The block.
        block: serde_json::Value,
    },
    /// A new replay epoch replaced the session's ordinary transcript and plan: both are
    /// empty until written again.
    AcpTranscriptCleared {
        /// The session.
        session: Arc<str>,
    },
    /// A session's current plan changed.
    AcpPlanChanged {
        /// The session.
        session: Arc<str>,
        /// The plan's entries.
        plan: Option<serde_json::Value>,
    },
    /// A request is pending on the live connection (a permission asked, a load sent, …).
    AcpRequestPending {
        /// The line of the request.
        line: usize,
        /// Who sent it: `client` or `agent`.
        from: Arc<str>,
        /// Its JSON-RPC id, as text.
        id: Arc<str>,
        /// Its method.
        method: Arc<str>,
        /// Its `params.sessionId`.
        session: Option<Arc<str>>,
    },
    /// A pending request got its response (or was replaced by one with the same id).
    AcpRequestClosed {
        /// Who sent the request.
        from: Arc<str>,
        /// Its id, as text.
        id: Arc<str>,
    },
    /// The Client answered an Agent request (a permission answered or cancelled, …):
    /// append it to the answered requests.
    AcpRequestAnswered {
        /// The line of the request.
        line: usize,
        /// The line of the answer.
        answered_at: usize,
        /// The request's id, as text.
        id: Arc<str>,
        /// Its method.
        method: Arc<str>,
        /// Its `params.sessionId`.
        session: Option<Arc<str>>,
        /// The result, when it succeeded.
        result: Option<serde_json::Value>,
        /// The error response.
        error: Option<serde_json::Value>,
    },
    /// The Client sent `session/cancel` for a session (its confirmation is the session's
    /// next current `idle`).
    AcpCancelSent {
        /// The session.
        session: Arc<str>,
    },
    /// A replay window (`session/load`, or `session/resume` with `replayFrom`) opened or
    /// closed: what arrives inside it is history.
    AcpReplayWindow {
        /// The session being loaded or resumed.
        session: Arc<str>,
        /// Opened (`true`) or closed by the response.
        open: bool,
    },
    /// v2: a parent's copy of a state the child's own stream had moved past was not
    /// applied (a stale mirror never replaces newer state).
    AcpMirrorStale {
        /// The child.
        session: Arc<str>,
    },
}

impl ProviderState {
    pub(crate) fn of(p: &super::model::ProviderLifecycle) -> Self {
        Self {
            phase: p.phase,
            outcome: p.outcome,
            turn: p.provider_turn.clone(),
            turns: p.turns,
        }
    }
}
