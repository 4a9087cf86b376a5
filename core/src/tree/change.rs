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
    ToolStatus,
};
use crate::ids::{Alias, CallId, MessageId, RequestId, SessionId, TurnId};

/// A child's creator edge, as a change (and the JSON views) carry it: the session, turn
/// and tool call that delegated. Never changes once the child exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParentRef {
    /// The session whose turn delegated.
    pub session: SessionId,
    /// The delegating turn.
    pub turn: TurnId,
    /// The delegation tool call, when known.
    pub tool_call: Option<CallId>,
}

/// The root session and root turn a child belongs under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootRef {
    /// The root session.
    pub session: SessionId,
    /// The root turn.
    pub turn: TurnId,
}

/// A root turn's provider lifecycle as a change carries it (the `provider` object of a
/// turn in the JSON views).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderState {
    /// Where the provider turn stands.
    pub phase: ProviderPhase,
    /// The retained outcome of the last provider terminal.
    pub outcome: Option<Outcome>,
    /// The last provider turn id seen (transport correlation only).
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
