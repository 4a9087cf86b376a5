//! The entities of a session tree: sessions, turns, interactions, cancel operations.
//!
//! Owns: the data shapes a [`Snapshot`](super::Snapshot) is made of and the one pure
//! function that derives a turn's phase from its facts ([`Turn::derive_phase`]).
//! Never: changes itself. Only the reducer builds new values of these types.
//!
//! Every collection is an `imbl` persistent structure and every string an `Arc<str>`,
//! so cloning any entity is O(1) and a changed snapshot shares all untouched data with
//! the one before it.

use std::fmt;
use std::sync::Arc;

use imbl::{OrdMap, OrdSet, Vector};
use serde::{Deserialize, Serialize};

use super::list::{EmptyLists, List};
use super::text::MessageText;
use crate::ids::{Alias, CallId, MessageId, RequestId, SessionId, TurnId};

/// Milliseconds, as carried by a trace record's `at` (time is data, never read from a clock).
pub type Millis = u64;

/// Whether a session is a user-visible root or a subordinate child.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    /// A user-visible conversation.
    Root,
    /// A provider-native subagent, reached through its immutable parent relation.
    Child,
}

/// A turn's phase. `settled` is final (seed: *Root Turn Lifecycle*).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Created, no work observed yet.
    Submitted,
    /// Work in progress.
    Running,
    /// Blocked: on an interaction, or (root) on active child turns after the root
    /// provider turn ended.
    Waiting,
    /// A cancel covering this turn is prepared and not yet completed.
    Settling,
    /// Final; `outcome` is set.
    Settled,
}

/// How a settled turn ended.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The work finished.
    Completed,
    /// The work failed.
    Failed,
    /// Cancelled by the user, with provider confirmation for child turns.
    #[serde(alias = "cancelled")]
    Canceled,
    /// Stopped without confirmation (e.g. an unacknowledged cancel target).
    Interrupted,
}

/// The root provider turn's lifecycle, kept apart from the canonical root turn.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderPhase {
    /// No provider turn seen yet for this root turn.
    Idle,
    /// A provider turn is live.
    Running,
    /// The last provider turn reached a terminal; its outcome is retained.
    Completed,
}

/// Speaker of a message.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The human user (root sessions) or the delegating parent (child sessions).
    User,
    /// The session's agent.
    #[default]
    Assistant,
    /// The agent's reasoning.
    Thought,
    /// System or provider notice.
    System,
}

/// Status of a tool call.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Started, not ended.
    InProgress,
    /// Ended successfully.
    Completed,
    /// Ended with an error.
    Failed,
    /// Stopped by a cancel.
    #[serde(alias = "cancelled")]
    Canceled,
}

/// What an interaction asks.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(rename_all = "snake_case")]
pub enum InteractionKind {
    /// Permission to run a command, change files, use a tool.
    #[default]
    Approval,
    /// A question for the user.
    Question,
}

/// Where an interaction stands.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractionStatus {
    /// Waiting for an answer.
    Pending,
    /// The client answered.
    Answered,
    /// The provider reported it resolved.
    Resolved,
    /// Its work was cancelled or closed before an answer.
    Superseded,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Submitted => "submitted",
            Phase::Running => "running",
            Phase::Waiting => "waiting",
            Phase::Settling => "settling",
            Phase::Settled => "settled",
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
            Outcome::Canceled => "canceled",
            Outcome::Interrupted => "interrupted",
        })
    }
}

impl fmt::Display for InteractionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InteractionStatus::Pending => "pending",
            InteractionStatus::Answered => "answered",
            InteractionStatus::Resolved => "resolved",
            InteractionStatus::Superseded => "superseded",
        })
    }
}

/// A child's creator relation: set once, with its initial turn, never changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatorRelation {
    /// The session whose turn delegated.
    pub parent_session: SessionId,
    /// The delegating turn.
    pub parent_turn: TurnId,
    /// The delegation tool call on that turn, when known.
    pub tool_call: Option<CallId>,
    /// The root session of the tree.
    pub root_session: SessionId,
    /// The root turn every turn of this child belongs under.
    pub root_turn: TurnId,
}

/// The root provider lifecycle of one root turn (seed: `root_provider_turn_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderLifecycle {
    /// Where the provider turn stands.
    pub phase: ProviderPhase,
    /// The last provider turn id seen.
    pub provider_turn: Option<Arc<str>>,
    /// Outcome of the last provider terminal, retained until the root turn can settle.
    pub outcome: Option<Outcome>,
    /// How many provider turns (the first plus continuations) attached to this root turn.
    pub turns: u32,
}

/// Marks a turn as a target of a prepared cancel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelMark {
    /// The cancel operation (keyed by the turn the cancel was requested for).
    pub operation: TurnId,
    /// Did the provider confirm that this target stopped?
    pub acknowledged: bool,
}

/// A prepared cancel operation: its target set is recorded once, when prepared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelOperation {
    /// The turn the cancel was requested for (a root turn, or a child turn for a
    /// child-only cancel).
    pub requested: TurnId,
    /// Every target, in the order recorded (requested turn first).
    pub targets: Vector<TurnId>,
}

/// Token counts a provider reported for one turn, summed over the model calls the turn
/// made (its own calls only: a child's calls count on the child's turns). A figure the
/// trace does not hold is absent; lineage never estimates one. As in the OpenTelemetry
/// GenAI conventions, the input figure counts every input token, cached ones included,
/// and the output figure every output token, reasoning included; the cache and
/// reasoning figures are parts of those totals.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input (prompt) tokens, cached ones included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Output (completion) tokens, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Input tokens served from the provider's prompt cache (part of the input figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// Input tokens written to the provider's prompt cache (part of the input figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    /// Output tokens spent on reasoning (part of the output figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_output_tokens: Option<u64>,
}

impl Usage {
    /// No figure is known.
    ///
    /// ```
    /// use lineage_core::tree::Usage;
    /// let u = Usage { input_tokens: Some(20), output_tokens: Some(10), ..Usage::default() };
    /// assert_eq!(serde_json::to_string(&u).unwrap(), r#"{"inputTokens":20,"outputTokens":10}"#);
    /// assert!(!u.is_empty() && Usage::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// Field-wise sum; a figure known on either side is known (the unknown side counts 0),
    /// and a sum past `u64::MAX` stays at `u64::MAX`.
    ///
    /// ```
    /// use lineage_core::tree::Usage;
    /// let a = Usage { input_tokens: Some(10), ..Usage::default() };
    /// let b = Usage { input_tokens: Some(5), output_tokens: Some(2), ..Usage::default() };
    /// assert_eq!(a.plus(&b), Usage { input_tokens: Some(15), output_tokens: Some(2), ..Usage::default() });
    /// ```
    #[must_use]
    pub fn plus(&self, other: &Usage) -> Usage {
        self.zip(other, |a, b| a.saturating_add(b))
    }

    /// Field-wise difference, never below 0 (a counter that went back counts 0).
    #[must_use]
    pub fn minus(&self, other: &Usage) -> Usage {
        self.zip(other, |a, b| a.saturating_sub(b))
    }

    fn zip(&self, other: &Usage, f: impl Fn(u64, u64) -> u64) -> Usage {
        let one = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(f(a.unwrap_or(0), b.unwrap_or(0))),
        };
        Usage {
            input_tokens: one(self.input_tokens, other.input_tokens),
            output_tokens: one(self.output_tokens, other.output_tokens),
            cache_read_input_tokens: one(
                self.cache_read_input_tokens,
                other.cache_read_input_tokens,
            ),
            cache_creation_input_tokens: one(
                self.cache_creation_input_tokens,
                other.cache_creation_input_tokens,
            ),
            reasoning_output_tokens: one(
                self.reasoning_output_tokens,
                other.reasoning_output_tokens,
            ),
        }
    }
}

/// One turn of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// `<session>#<n>`.
    pub id: TurnId,
    /// Current phase, always equal to [`Turn::derive_phase`].
    pub phase: Phase,
    /// Set exactly when `phase` is `settled`.
    pub outcome: Option<Outcome>,
    /// Work observed (child turns; root turns use `provider`).
    pub started: bool,
    /// Number of this turn's interactions still `pending`.
    pub pending_interactions: u32,
    /// Set while a prepared cancel covers this turn. Boxed, as `gate` is: most turns
    /// have none, and every turn a step changes is copied.
    pub cancel: Option<Box<CancelMark>>,
    /// A terminal reported after the turn had settled, recorded without effect.
    pub late_terminal: Option<Outcome>,
    /// Provider error text of a `failed` / `interrupted` outcome.
    pub error: Option<Arc<str>>,
    /// Guidance messages the user added while the turn was active (root turns).
    pub guidance: u32,
    /// `at` of the event that opened the turn.
    pub opened_at: Option<Millis>,
    /// `at` of the event that settled the turn.
    pub settled_at: Option<Millis>,
    /// The token counts reported for the turn (accounting only: never changes its phase
    /// or outcome, and may still change after it settled). Boxed: most turns have none,
    /// and every turn is copied into each snapshot that changes it.
    pub usage: Option<Box<Usage>>,
    /// Root turns only: the provider lifecycle and the index of active nested child turns.
    pub gate: Option<Box<RootGate>>,
}

/// What a root turn's settlement waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootGate {
    /// The root provider lifecycle.
    pub provider: ProviderLifecycle,
    /// Every nested child turn under this root turn that is not settled. Maintained
    /// incrementally so the gate is O(log n), never a scan.
    pub active_descendants: OrdSet<TurnId>,
}

impl Turn {
    /// Derives the phase from the turn's facts. The reducer stores its result after every
    /// change, so `turn.phase == turn.derive_phase()` always holds.
    pub fn derive_phase(&self) -> Phase {
        if self.outcome.is_some() {
            return Phase::Settled;
        }
        if self.cancel.is_some() {
            return Phase::Settling;
        }
        if self.pending_interactions > 0 {
            return Phase::Waiting;
        }
        match &self.gate {
            Some(gate) => match gate.provider.phase {
                ProviderPhase::Idle => Phase::Submitted,
                ProviderPhase::Running => Phase::Running,
                ProviderPhase::Completed => Phase::Waiting,
            },
            None if self.started => Phase::Running,
            None => Phase::Submitted,
        }
    }

    /// Not settled.
    pub fn is_active(&self) -> bool {
        self.outcome.is_none()
    }
}

/// A transcript entry, owned by the exact turn that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Message id, when the provider has one.
    pub id: Option<MessageId>,
    /// Ordinal of the owning turn in the session.
    pub turn: u32,
    /// Speaker.
    pub role: Role,
    /// Text, with streamed deltas appended (as chunks: an append costs the delta).
    pub text: MessageText,
    /// Arrived after its turn had settled: kept as history, changed nothing.
    pub history: bool,
}

/// A tool call, owned by the turn that started it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Tool call id.
    pub id: CallId,
    /// Ordinal of the owning turn in the session.
    pub turn: u32,
    /// Tool name.
    pub name: Option<Arc<str>>,
    /// Display title.
    pub title: Option<Arc<str>>,
    /// Status.
    pub status: ToolStatus,
}

/// An approval or question, owned by (session, turn, request).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interaction {
    /// The owning turn (its session is the owning session).
    pub turn: TurnId,
    /// The provider's request id.
    pub request: RequestId,
    /// What is asked.
    pub kind: InteractionKind,
    /// Where it stands.
    pub status: InteractionStatus,
    /// The provider's turn id, for transport correlation only.
    pub provider_turn: Option<Arc<str>>,
    /// The tool call it is about.
    pub tool_call: Option<CallId>,
    /// Display text.
    pub title: Option<Arc<str>>,
    /// The client's answer.
    pub answer: Option<Arc<str>>,
    /// Creation order in the snapshot (for stable output).
    pub seq: u64,
}

/// A root or child session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Canonical id.
    pub id: SessionId,
    /// Root or child.
    pub kind: SessionKind,
    /// Children only: the immutable creator relation.
    pub relation: Option<Arc<CreatorRelation>>,
    /// Display title.
    pub title: Option<Arc<str>>,
    /// Tombstoned with its subtree.
    pub deleted: bool,
    /// Creation order in the snapshot (for stable output).
    pub seq: u64,
    /// Turns in order; at most the last one is active. Shared (`Arc`) so that updating one
    /// turn path-copies pointers, not the turns beside it. Each of a session's four lists
    /// is a [`List`]: one pointer in the session's record, which every step that changes
    /// the session copies.
    pub turns: List<Arc<Turn>>,
    /// Direct children, in spawn order.
    pub children: List<SessionId>,
    /// Provider handles bound to this session.
    pub aliases: List<Alias>,
    /// Transcript.
    pub messages: List<Arc<Message>>,
    /// Message id → index in `messages` (streamed deltas append to the same entry).
    pub message_index: OrdMap<MessageId, usize>,
    /// Tool calls by id.
    pub tool_calls: OrdMap<CallId, ToolCall>,
    /// Request id → ordinal of the turn that owns its latest interaction.
    pub requests: OrdMap<RequestId, u32>,
    /// The session's answered, resolved and superseded interactions, by (turn ordinal,
    /// request id); its pending ones are the snapshot's. Kept with the session, which an
    /// answer copies anyway, so closing one copies a path of the session's few, not of
    /// every closed interaction of the tree.
    pub(crate) closed: ClosedInteractions,
}

/// A session's closed interactions (see [`Session`]).
pub(crate) type ClosedInteractions = Arc<OrdMap<(u32, RequestId), Arc<Interaction>>>;

impl Session {
    /// A session as the reducer creates it: its identity, creator relation (children
    /// only), title, creation order and first turns, and nothing else yet (no children,
    /// aliases, messages, tool calls or requests).
    pub(crate) fn created(
        id: SessionId,
        kind: SessionKind,
        relation: Option<Arc<CreatorRelation>>,
        title: Option<Arc<str>>,
        seq: u64,
        turns: List<Arc<Turn>>,
        empty: &EmptyLists,
    ) -> Self {
        Session {
            id,
            kind,
            relation,
            title,
            deleted: false,
            seq,
            turns,
            children: empty.children.clone(),
            aliases: empty.aliases.clone(),
            messages: empty.messages.clone(),
            message_index: OrdMap::new(),
            tool_calls: OrdMap::new(),
            requests: OrdMap::new(),
            closed: empty.closed.clone(),
        }
    }

    /// The active (unsettled) turn, if any. Only the last turn can be active.
    pub fn active_turn(&self) -> Option<&Turn> {
        self.turns.last().map(Arc::as_ref).filter(|t| t.is_active())
    }

    /// The last turn, active or not.
    pub fn last_turn(&self) -> Option<&Turn> {
        self.turns.last().map(Arc::as_ref)
    }

    /// The turn with ordinal `n`.
    pub fn turn(&self, n: u32) -> Option<&Turn> {
        let index = usize::try_from(n.checked_sub(1)?).ok()?;
        self.turns.get(index).map(Arc::as_ref)
    }
}
