//! The canonical event vocabulary: what adapters emit and the reducer folds.
//!
//! Owns: the serde shape of canonical events (`{"type": "<snake_case>", …}`), which is
//! also the `canonical` trace format (`{"event": <Event>, "at": <ms>?}`, docs/contract.md).
//! Never: carries provider policy. Adapters translate provider facts into these events;
//! only the reducer decides what they mean for turn lifecycles.
//!
//! Sessions are always named by their canonical id (docs/contract.md *Canonical identities*);
//! turns are never named by the emitter except where a parent turn must be explicit,
//! because a session has at most one active turn and the reducer knows which one it is.
//! Unknown fields are tolerated so that newer emitters can add data.

use serde::{Deserialize, Serialize};

use super::model::{InteractionKind, Outcome, Role, ToolStatus, Usage};
use crate::ids::{Alias, CallId, MessageId, RequestId, SessionId, TurnId};

/// One canonical event. See each variant for the seed rule it carries.
///
/// ```
/// use lineage_core::Event;
/// let e: Event = serde_json::from_str(
///     r#"{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"call_1"}"#,
/// ).unwrap();
/// assert!(matches!(e, Event::ChildSpawned { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A root (user-visible) session exists. Its turns come from user submissions.
    RootSessionCreated {
        /// The root session id.
        session: SessionId,
        /// Display title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Provider handles of the root (e.g. the Codex root thread).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        aliases: Vec<Alias>,
    },
    /// The user submitted a message to a root session. Opens a new root turn when none
    /// is active; otherwise it is guidance on the active root turn (seed: *Sending While
    /// Children Run*): never a second active root turn, never fanned out to children.
    UserSubmitted {
        /// The root session.
        session: SessionId,
        /// Message id, if the host has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<MessageId>,
        /// The submitted text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// The root agent's provider turn started (first turn or a continuation). It joins the
    /// active root turn; it never opens a canonical turn by itself.
    RootProviderTurnStarted {
        /// The root session.
        session: SessionId,
        /// The provider's own turn id (transport correlation only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_turn: Option<String>,
    },
    /// The root provider turn reached a terminal. A fact, not a settlement: the outcome is
    /// retained and applied only when no nested child turn is active (seed: *Root Turn
    /// Lifecycle*).
    RootProviderTurnCompleted {
        /// The root session.
        session: SessionId,
        /// The provider's own turn id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_turn: Option<String>,
        /// The provider turn's outcome, retained for the root turn.
        outcome: Outcome,
        /// Provider error text, kept only for `failed` / `interrupted`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Delegation accepted: creates the child session, its immutable creator relation and
    /// its initial `submitted` turn in one step (seed: *Entity Decision*).
    ChildSpawned {
        /// The child session id (Codex child thread id, Claude launching tool-use id, …).
        session: SessionId,
        /// The session whose turn delegated.
        parent_session: SessionId,
        /// The delegating turn; defaults to the parent session's active turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_turn: Option<TurnId>,
        /// The delegation tool call on the parent turn, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call: Option<CallId>,
        /// Display title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Provider handles that name this child.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        aliases: Vec<Alias>,
    },
    /// The child's work started: its `submitted` turn becomes `running`, or, when its last
    /// turn has settled, later delegation opens the child's next turn under the same
    /// creator relation and root turn (seed: *Session And Turn Semantics*).
    ChildTurnStarted {
        /// The child session.
        session: SessionId,
    },
    /// The child's current turn reached a terminal. Settles only that turn, then
    /// re-evaluates its root turn's gate.
    ChildTurnCompleted {
        /// The child session.
        session: SessionId,
        /// The child turn's outcome.
        outcome: Outcome,
        /// Provider error text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Transcript output of a session, owned by its current turn. A message with a known
    /// `message` id appends to it (streaming).
    Message {
        /// The session that produced the message.
        session: SessionId,
        /// Message id; repeated ids append text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<MessageId>,
        /// Who speaks.
        #[serde(default)]
        role: Role,
        /// Text (or text delta).
        #[serde(default)]
        text: String,
    },
    /// A tool call started on the session's current turn. A delegation call stays there.
    ToolCallStarted {
        /// The session whose turn runs the tool.
        session: SessionId,
        /// Tool call id.
        call: CallId,
        /// Tool name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Display title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// A tool call ended. It stays on the turn that started it.
    ToolCallCompleted {
        /// The session that owns the call.
        session: SessionId,
        /// Tool call id.
        call: CallId,
        /// Terminal status.
        status: ToolStatus,
    },
    /// Binds a provider handle to a session. An alias names exactly one session forever.
    AliasBound {
        /// The session.
        session: SessionId,
        /// The provider handle.
        alias: Alias,
    },
    /// Sets (or, with `null`, clears) a session's display title.
    SessionTitled {
        /// The session.
        session: SessionId,
        /// New title.
        #[serde(default)]
        title: Option<String>,
    },
    /// Token counts the provider reported for a turn: the turn's figures as they stand now,
    /// which replace the ones reported before (the reducer never sums; an adapter that
    /// reads per-call figures adds them up itself). Accounting, not lifecycle: the turn's
    /// phase and outcome never change for it, and a settled turn still takes it. The turn
    /// is named because a report can come after its turn settled, even after the next
    /// one opened. A figure left out is not known.
    UsageReported {
        /// The turn the counts are for (`<session>#<n>`).
        turn: TurnId,
        /// Input tokens, cached ones included.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input_tokens: Option<u64>,
        /// Output tokens, reasoning included.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_tokens: Option<u64>,
        /// Input tokens read from the prompt cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_read_input_tokens: Option<u64>,
        /// Input tokens written to the prompt cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_creation_input_tokens: Option<u64>,
        /// Output tokens spent on reasoning.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning_output_tokens: Option<u64>,
    },
    /// An approval or question raised by the session's current turn, owned by the exact
    /// (session, turn, request) tuple.
    InteractionRequested {
        /// Owning session.
        session: SessionId,
        /// The provider's request id.
        request: RequestId,
        /// What is asked.
        #[serde(default)]
        kind: InteractionKind,
        /// The provider's turn id, kept only for transport correlation.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_turn: Option<String>,
        /// The tool call the request is about.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call: Option<CallId>,
        /// Display text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// The client answered a pending interaction.
    InteractionAnswered {
        /// Owning session.
        session: SessionId,
        /// The provider's request id.
        request: RequestId,
        /// The answer as text (decision name, option id, …).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
    },
    /// The provider reported the interaction resolved.
    InteractionResolved {
        /// Owning session.
        session: SessionId,
        /// The provider's request id.
        request: RequestId,
    },
    /// Prepares a cancel. On a root session: the user's cancel of the active root turn,
    /// targeting the root turn and every active descendant turn, recorded now, and closing
    /// child creation under that root turn. On a child session: a child-only cancel of that
    /// child's active turn (and its own active descendants), never its root, parent or
    /// siblings (seed: *Cancellation*).
    CancelRequested {
        /// The session whose active turn is cancelled.
        session: SessionId,
    },
    /// The provider confirmed that the target turn of this session stopped.
    CancelAcknowledged {
        /// The target's session.
        session: SessionId,
    },
    /// The bounded provider cancel returned: acknowledged child targets settle `canceled`,
    /// unacknowledged ones `interrupted`, a root target always `canceled`.
    CancelCompleted {
        /// The session named by the matching `cancel_requested`.
        session: SessionId,
    },
    /// Tombstones the session and its whole subtree and removes their turns and
    /// interactions (seed: *Root And Child Turn Ownership*).
    SessionDeleted {
        /// The session to delete.
        session: SessionId,
    },
}

impl Event {
    /// The session the event is addressed to.
    pub fn session(&self) -> &SessionId {
        match self {
            Event::RootSessionCreated { session, .. }
            | Event::UserSubmitted { session, .. }
            | Event::RootProviderTurnStarted { session, .. }
            | Event::RootProviderTurnCompleted { session, .. }
            | Event::ChildSpawned { session, .. }
            | Event::ChildTurnStarted { session }
            | Event::ChildTurnCompleted { session, .. }
            | Event::Message { session, .. }
            | Event::ToolCallStarted { session, .. }
            | Event::ToolCallCompleted { session, .. }
            | Event::AliasBound { session, .. }
            | Event::SessionTitled { session, .. }
            | Event::InteractionRequested { session, .. }
            | Event::InteractionAnswered { session, .. }
            | Event::InteractionResolved { session, .. }
            | Event::CancelRequested { session }
            | Event::CancelAcknowledged { session }
            | Event::CancelCompleted { session }
            | Event::SessionDeleted { session } => session,
            Event::UsageReported { turn, .. } => turn.session(),
        }
    }

    /// The event a provider's figures for `turn` make.
    ///
    /// ```
    /// use lineage_core::{Event, TurnId};
    /// use lineage_core::tree::Usage;
    /// let usage = Usage { input_tokens: Some(20), output_tokens: Some(10), ..Usage::default() };
    /// let e = Event::usage_reported(TurnId::new("R".into(), 1), usage);
    /// assert_eq!(e.usage(), Some(usage));
    /// ```
    pub fn usage_reported(turn: TurnId, usage: Usage) -> Event {
        Event::UsageReported {
            turn,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            reasoning_output_tokens: usage.reasoning_output_tokens,
        }
    }

    /// The figures of a `usage_reported` event (`None` for every other event).
    pub fn usage(&self) -> Option<Usage> {
        match self {
            Event::UsageReported {
                input_tokens,
                output_tokens,
                cache_read_input_tokens,
                cache_creation_input_tokens,
                reasoning_output_tokens,
                ..
            } => Some(Usage {
                input_tokens: *input_tokens,
                output_tokens: *output_tokens,
                cache_read_input_tokens: *cache_read_input_tokens,
                cache_creation_input_tokens: *cache_creation_input_tokens,
                reasoning_output_tokens: *reasoning_output_tokens,
            }),
            _ => None,
        }
    }

    /// The first id field that is the empty string (ids name sessions, turns, requests,
    /// calls and messages, and `<session>#<n>` of an empty session would not parse).
    pub fn empty_id(&self) -> Option<&'static str> {
        let empty = |id: &str| id.is_empty();
        match self {
            Event::ChildSpawned {
                parent_session,
                tool_call,
                ..
            } => {
                if empty(parent_session.as_str()) {
                    return Some("parent_session");
                }
                if tool_call.as_ref().is_some_and(|c| empty(c.as_str())) {
                    return Some("tool_call");
                }
            }
            Event::UserSubmitted {
                message: Some(m), ..
            }
            | Event::Message {
                message: Some(m), ..
            } if empty(m.as_str()) => return Some("message"),
            Event::ToolCallStarted { call, .. } | Event::ToolCallCompleted { call, .. }
                if empty(call.as_str()) =>
            {
                return Some("call");
            }
            Event::InteractionRequested { request, .. }
            | Event::InteractionAnswered { request, .. }
            | Event::InteractionResolved { request, .. }
                if empty(request.as_str()) =>
            {
                return Some("request");
            }
            _ => {}
        }
        empty(self.session().as_str()).then_some("session")
    }

    /// The event's `type` tag, as in the trace format.
    pub fn name(&self) -> &'static str {
        match self {
            Event::RootSessionCreated { .. } => "root_session_created",
            Event::UserSubmitted { .. } => "user_submitted",
            Event::RootProviderTurnStarted { .. } => "root_provider_turn_started",
            Event::RootProviderTurnCompleted { .. } => "root_provider_turn_completed",
            Event::ChildSpawned { .. } => "child_spawned",
            Event::ChildTurnStarted { .. } => "child_turn_started",
            Event::ChildTurnCompleted { .. } => "child_turn_completed",
            Event::Message { .. } => "message",
            Event::ToolCallStarted { .. } => "tool_call_started",
            Event::ToolCallCompleted { .. } => "tool_call_completed",
            Event::AliasBound { .. } => "alias_bound",
            Event::SessionTitled { .. } => "session_titled",
            Event::UsageReported { .. } => "usage_reported",
            Event::InteractionRequested { .. } => "interaction_requested",
            Event::InteractionAnswered { .. } => "interaction_answered",
            Event::InteractionResolved { .. } => "interaction_resolved",
            Event::CancelRequested { .. } => "cancel_requested",
            Event::CancelAcknowledged { .. } => "cancel_acknowledged",
            Event::CancelCompleted { .. } => "cancel_completed",
            Event::SessionDeleted { .. } => "session_deleted",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_round_trips_with_its_tag() {
        let events = vec![
            Event::RootSessionCreated {
                session: "R".into(),
                title: Some("t".into()),
                aliases: vec![Alias::new("thread", "R")],
            },
            Event::RootProviderTurnCompleted {
                session: "R".into(),
                provider_turn: None,
                outcome: Outcome::Completed,
                error: None,
            },
            Event::ChildSpawned {
                session: "A".into(),
                parent_session: "R".into(),
                parent_turn: Some(TurnId::new("R".into(), 1)),
                tool_call: Some("c".into()),
                title: None,
                aliases: vec![],
            },
            Event::CancelRequested {
                session: "R".into(),
            },
            Event::usage_reported(
                TurnId::new("R".into(), 1),
                Usage {
                    input_tokens: Some(20),
                    cache_read_input_tokens: Some(4),
                    ..Usage::default()
                },
            ),
        ];
        for e in events {
            let j = serde_json::to_value(&e).unwrap();
            assert_eq!(j["type"], e.name());
            assert_eq!(serde_json::from_value::<Event>(j).unwrap(), e);
        }
    }

    #[test]
    fn british_cancelled_spelling_is_accepted() {
        let e: Event = serde_json::from_str(
            r#"{"type":"child_turn_completed","session":"A","outcome":"cancelled"}"#,
        )
        .unwrap();
        assert_eq!(
            e,
            Event::ChildTurnCompleted {
                session: "A".into(),
                outcome: Outcome::Canceled,
                error: None
            }
        );
    }
}
