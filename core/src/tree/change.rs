//! Canonical changes: what one event did to the tree, in the order it did it.
//!
//! Owns: the outbox vocabulary an embedder publishes (to a UI, a database, an ACP
//! projection). Never: describes anything that did not change; a rejected event
//! produces no change at all.

use serde::Serialize;

use super::model::{InteractionStatus, Outcome, Phase, ProviderPhase, SessionKind, ToolStatus};
use crate::ids::{Alias, CallId, RequestId, SessionId, TurnId};

/// One change caused by an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// A session was created (a child together with its relation and first turn).
    SessionCreated {
        /// The session.
        session: SessionId,
        /// Root or child.
        kind: SessionKind,
    },
    /// A turn was opened.
    TurnOpened {
        /// The turn.
        turn: TurnId,
    },
    /// A turn moved to another phase (settlement is reported as [`Change::TurnSettled`]).
    TurnPhaseChanged {
        /// The turn.
        turn: TurnId,
        /// Its new phase.
        phase: Phase,
    },
    /// A turn settled. Final.
    TurnSettled {
        /// The turn.
        turn: TurnId,
        /// Its outcome.
        outcome: Outcome,
    },
    /// A terminal arrived for a settled turn and was recorded without effect.
    LateTerminalRecorded {
        /// The turn.
        turn: TurnId,
        /// The late outcome.
        outcome: Outcome,
    },
    /// The root provider lifecycle of a root turn changed.
    ProviderTurnChanged {
        /// The root turn.
        turn: TurnId,
        /// The provider phase.
        phase: ProviderPhase,
        /// The retained provider outcome.
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<Outcome>,
    },
    /// User guidance joined the active root turn.
    GuidanceAdded {
        /// The root turn.
        turn: TurnId,
    },
    /// A message was added or extended.
    MessageAppended {
        /// The owning turn.
        turn: TurnId,
        /// Index of the message in its session's transcript.
        index: usize,
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
    },
    /// A provider handle was bound to a session.
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
    },
    /// An interaction was created or changed status.
    InteractionChanged {
        /// The owning turn.
        turn: TurnId,
        /// The request.
        request: RequestId,
        /// Its status.
        status: InteractionStatus,
    },
    /// A cancel was prepared with this recorded target set.
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
    /// A session was tombstoned (one change per session of the deleted subtree).
    SessionDeleted {
        /// The session.
        session: SessionId,
    },
}
