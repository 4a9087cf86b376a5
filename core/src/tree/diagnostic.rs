//! Typed diagnostics: what the reducer rejected, ignored or recorded only as history.
//!
//! Owns: the stable kebab-case codes and severities of reducer findings.
//! Never: carries line numbers (the trace layer adds them) or panics.
//!
//! Severity says what the finding means for the input:
//! `error`: the event is impossible (an unknown id, a reparent, an alias cross-bind);
//! `warning`: a valid-looking event the seed's rules forbid from taking effect now (a
//! spawn after a cancel was prepared, output for a settled root turn);
//! `note`: the event was applied in its restricted, seed-prescribed form (late child
//! output kept as history, a late terminal recorded without reopening).

pub use crate::finding::Severity;

use crate::finding::{Code, Finding};
use crate::ids::{Alias, RequestId, SessionId, TurnId};

/// A reducer finding. Rejections leave the snapshot unchanged; notes accompany an
/// applied change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Diagnostic {
    /// An id field of the event is the empty string.
    #[error("`{event}` has an empty `{field}`; an id must not be empty, so the event is rejected")]
    EmptyId {
        /// The event's type tag.
        event: &'static str,
        /// The field.
        field: &'static str,
    },
    /// The event names a session that was never created.
    #[error("session `{0}` is unknown")]
    UnknownSession(SessionId),
    /// The session was deleted with its subtree; nothing can change it.
    #[error("session `{0}` was deleted; the event is ignored")]
    DeletedSession(SessionId),
    /// A root event for a child session or a child event for a root session.
    #[error("`{event}` applies to {expected} sessions, but `{session}` is not one")]
    WrongSessionKind {
        /// The event's type tag.
        event: &'static str,
        /// The session.
        session: SessionId,
        /// `root` or `child`.
        expected: &'static str,
    },
    /// The id is already used by a session of the other kind.
    #[error("`{0}` already names a session of another kind")]
    SessionKindConflict(SessionId),
    /// The same root session was created again (idempotent).
    #[error("root session `{0}` already exists; only new aliases are bound")]
    DuplicateSession(SessionId),
    /// A child was announced again under another creator relation.
    #[error(
        "child `{child}` belongs to {existing}; a spawn under {attempted} would reparent it and is rejected"
    )]
    ReparentRejected {
        /// The child.
        child: SessionId,
        /// Its recorded parent turn.
        existing: TurnId,
        /// The parent turn of the rejected spawn.
        attempted: TurnId,
    },
    /// The same spawn edge was reported again (idempotent).
    #[error("child `{0}` is already registered under the same parent; nothing changed")]
    DuplicateSpawn(SessionId),
    /// A child cannot be its own ancestor.
    #[error("child `{0}` cannot be spawned under itself or its own descendant")]
    SpawnCycle(SessionId),
    /// `parent_turn` is not a turn of the parent session.
    #[error("`{turn}` is not a turn of parent session `{parent}`")]
    UnknownParentTurn {
        /// The named turn.
        turn: TurnId,
        /// The parent session.
        parent: SessionId,
    },
    /// The delegating turn has settled; a child revealed now is an ordering bug and must
    /// not resurrect it (seed: *Root And Child Turn Ownership*).
    #[error("child `{child}` spawned under settled turn `{turn}` is rejected")]
    SpawnUnderSettledTurn {
        /// The child.
        child: SessionId,
        /// The settled parent turn.
        turn: TurnId,
    },
    /// Child creation under this root turn was closed by a prepared cancel (seed:
    /// *Cancellation*).
    #[error("child `{child}` revealed after the cancel of `{root_turn}` was prepared is rejected")]
    SpawnAfterCancel {
        /// The child.
        child: SessionId,
        /// The root turn being cancelled.
        root_turn: TurnId,
    },
    /// An alias already names another session.
    #[error("alias `{alias}` already names `{existing}`; binding it to `{session}` is rejected")]
    AliasConflict {
        /// The alias.
        alias: Alias,
        /// The session it names.
        existing: SessionId,
        /// The session of the rejected binding.
        session: SessionId,
    },
    /// The event names a turn its session does not have.
    #[error("`{event}` names turn `{turn}`, which session `{session}` does not have", session = turn.session())]
    UnknownTurn {
        /// The event's type tag.
        event: &'static str,
        /// The named turn.
        turn: TurnId,
    },
    /// A root provider turn with no active canonical root turn to attach to (for example
    /// after a cancel): it opens no canonical turn.
    #[error("root provider turn on `{0}` has no active root turn to join; it opens none")]
    UnownedProviderTurn(SessionId),
    /// A root provider turn while the root turn's cancel is prepared: not adopted.
    #[error(
        "root provider turn on `{0}` started while its root turn is being cancelled; not adopted"
    )]
    ProviderTurnDuringCancel(SessionId),
    /// A provider terminal for a root turn that has already settled, kept only in the
    /// provider lifecycle fields.
    #[error(
        "root provider terminal for settled turn `{0}` recorded in its provider lifecycle only"
    )]
    LateProviderTerminal(TurnId),
    /// A provider terminal with no provider turn to end.
    #[error("root provider terminal on `{0}` matches no provider turn; ignored")]
    UnmatchedProviderTerminal(SessionId),
    /// Output for a root session with no active turn is dropped.
    #[error("output for root session `{0}` with no active turn is dropped")]
    LateRootOutput(SessionId),
    /// Child output after its turn settled, kept as history.
    #[error("output for settled turn `{0}` kept as history")]
    LateChildOutput(TurnId),
    /// A terminal for a turn that already settled, recorded without changing it.
    #[error("terminal `{outcome}` for settled turn `{turn}` recorded; its outcome stays `{kept}`")]
    LateTerminal {
        /// The settled turn.
        turn: TurnId,
        /// The late outcome.
        outcome: crate::Outcome,
        /// The outcome it keeps.
        kept: crate::Outcome,
    },
    /// New child work after the child's root turn has settled or is being cancelled.
    #[error("new work for child `{child}` after root turn `{root_turn}` closed is rejected")]
    LateChildTurn {
        /// The child.
        child: SessionId,
        /// Its root turn.
        root_turn: TurnId,
    },
    /// The user cannot target a child directly (seed: *Sending While Children Run*).
    #[error("user submission to child `{0}` is unsupported; guidance targets the root turn")]
    ChildGuidanceUnsupported(SessionId),
    /// A submission while the root turn's cancel is in flight opens no second turn.
    #[error("submission to `{0}` while its root turn is being cancelled is rejected")]
    SubmissionDuringCancel(SessionId),
    /// An interaction needs an active turn to own it.
    #[error("interaction `{request}` on `{session}` has no active turn to own it")]
    InteractionWithoutTurn {
        /// The session.
        session: SessionId,
        /// The request.
        request: RequestId,
    },
    /// The same request id is already pending on this session.
    #[error("interaction `{request}` on `{session}` is already pending; nothing changed")]
    DuplicateInteraction {
        /// The session.
        session: SessionId,
        /// The request.
        request: RequestId,
    },
    /// No interaction with that request id on that session.
    #[error("no interaction `{request}` on session `{session}`")]
    UnknownInteraction {
        /// The session.
        session: SessionId,
        /// The request.
        request: RequestId,
    },
    /// An answer or resolution for an interaction that is already closed.
    #[error("interaction `{request}` on `{session}` is already {status}; recorded without effect")]
    InteractionClosed {
        /// The session.
        session: SessionId,
        /// The request.
        request: RequestId,
        /// Its status.
        status: crate::InteractionStatus,
    },
    /// A cancel for a session with no active turn.
    #[error("session `{0}` has no active turn to cancel")]
    NothingToCancel(SessionId),
    /// A cancel for a turn that a prepared cancel already covers.
    #[error("turn `{turn}` is already covered by the cancel of `{operation}`")]
    AlreadyCancelling {
        /// The turn.
        turn: TurnId,
        /// The operation covering it.
        operation: TurnId,
    },
    /// The completion of a cancel that a wider cancel (e.g. the root's) absorbed; the
    /// wider one settles its targets.
    #[error("the cancel of `{turn}` was absorbed by the cancel of `{operation}`; nothing changed")]
    CancelAbsorbed {
        /// The turn whose own cancel was absorbed.
        turn: TurnId,
        /// The operation that covers it now.
        operation: TurnId,
    },
    /// An acknowledgement or completion that matches no prepared cancel.
    #[error("session `{0}` has no prepared cancel")]
    NoPendingCancel(SessionId),
}

impl Diagnostic {
    /// The stable kebab-case code.
    pub fn code(&self) -> Code {
        match self {
            Diagnostic::EmptyId { .. } => Code::EmptyId,
            Diagnostic::UnknownSession(_) => Code::UnknownSession,
            Diagnostic::DeletedSession(_) => Code::DeletedSession,
            Diagnostic::WrongSessionKind { .. } => Code::WrongSessionKind,
            Diagnostic::SessionKindConflict(_) => Code::SessionKindConflict,
            Diagnostic::DuplicateSession(_) => Code::DuplicateSession,
            Diagnostic::ReparentRejected { .. } => Code::ReparentRejected,
            Diagnostic::DuplicateSpawn(_) => Code::DuplicateSpawn,
            Diagnostic::SpawnCycle(_) => Code::SpawnCycle,
            Diagnostic::UnknownParentTurn { .. } => Code::UnknownParentTurn,
            Diagnostic::UnknownTurn { .. } => Code::UnknownTurn,
            Diagnostic::SpawnUnderSettledTurn { .. } => Code::SpawnUnderSettledTurn,
            Diagnostic::SpawnAfterCancel { .. } => Code::SpawnAfterCancel,
            Diagnostic::AliasConflict { .. } => Code::AliasConflict,
            Diagnostic::UnownedProviderTurn(_) => Code::UnownedProviderTurn,
            Diagnostic::ProviderTurnDuringCancel(_) => Code::ProviderTurnDuringCancel,
            Diagnostic::LateProviderTerminal(_) => Code::LateProviderTerminal,
            Diagnostic::UnmatchedProviderTerminal(_) => Code::UnmatchedProviderTerminal,
            Diagnostic::LateRootOutput(_) => Code::LateRootOutput,
            Diagnostic::LateChildOutput(_) => Code::LateChildOutput,
            Diagnostic::LateTerminal { .. } => Code::LateTerminal,
            Diagnostic::LateChildTurn { .. } => Code::LateChildTurn,
            Diagnostic::ChildGuidanceUnsupported(_) => Code::ChildGuidanceUnsupported,
            Diagnostic::SubmissionDuringCancel(_) => Code::SubmissionDuringCancel,
            Diagnostic::InteractionWithoutTurn { .. } => Code::InteractionWithoutTurn,
            Diagnostic::DuplicateInteraction { .. } => Code::DuplicateInteraction,
            Diagnostic::UnknownInteraction { .. } => Code::UnknownInteraction,
            Diagnostic::InteractionClosed { .. } => Code::InteractionClosed,
            Diagnostic::NothingToCancel(_) => Code::NothingToCancel,
            Diagnostic::AlreadyCancelling { .. } => Code::AlreadyCancelling,
            Diagnostic::CancelAbsorbed { .. } => Code::CancelAbsorbed,
            Diagnostic::NoPendingCancel(_) => Code::NoPendingCancel,
        }
    }

    /// How serious it is.
    pub fn severity(&self) -> Severity {
        self.code().level()
    }

    /// This diagnostic as a finding at physical `line`.
    pub fn at_line(&self, line: usize) -> Finding {
        Finding {
            line,
            rule: self.code(),
            severity: self.severity(),
            message: self.to_string(),
        }
    }
}
