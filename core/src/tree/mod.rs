//! The canonical session tree: model, event vocabulary, reducer, invariants.
//!
//! Owns: the rules of the "Provider-Native Subagents" specification: root and child
//! sessions, turns, the root gate, cancel operations, interactions, deletion.
//! Never: knows Codex, Claude or ACP shapes; never does I/O.

mod change;
mod diagnostic;
mod event;
mod invariants;
mod list;
mod model;
mod reduce;
mod snapshot;
mod text;

pub use change::{Change, ParentRef, ProviderState, RootRef};
pub use diagnostic::{Diagnostic, Severity};
pub use event::Event;
pub use invariants::{InvariantViolation, Level};
pub use list::List;
pub use model::{
    CancelMark, CancelOperation, CreatorRelation, Interaction, InteractionKind, InteractionStatus,
    Message, Millis, Outcome, Phase, ProviderLifecycle, ProviderPhase, Role, RootGate, Session,
    SessionKind, ToolCall, ToolStatus, Turn, Usage,
};
pub(crate) use reduce::Applied;
pub use snapshot::{Snapshot, Step};
pub use text::MessageText;
