//! The view's changes: what a record changed in the Client's view, as self-contained
//! [`Change`]s a consumer folds into its own copy of the view.
//!
//! Owns: the marks the fold leaves where it writes ([`Touch`]: which aspect of which
//! session, which request, which transcript entry) and their conversion, after the
//! record, into changes that carry the aspect's values as the view shows them (the same
//! JSON as `replay --format json`, through `json.rs`). A mark names what was written;
//! the value is read once the whole record (a batch included) has applied, so a change
//! never shows a half-applied record and one aspect is reported once per record.
//! Never: compares against an earlier view or walks the sessions: the cost follows the
//! marks, and marks are only kept with [`super::ViewOptions::changes`] on.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::json::{kind, message, sorted};
use super::{Id, Pending, View};
use crate::acp::wire::{RpcId, Side};
use crate::tree::Change;

/// Something the fold wrote.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Touch {
    /// A new connection began or the connection was lost.
    Connection,
    /// A session was first seen, or its kind or parent changed.
    Identity(Id),
    /// Labels, `_meta` or the conversation title.
    Labels(Id),
    /// Work state, its freshness, idle transitions.
    Work(Id),
    /// Capabilities, the effective cancel grant, the announcement.
    Controls(Id),
    /// `usage_update`.
    Usage(Id),
    /// Session-directed message `index`.
    Message(Id, usize),
    /// A tool call.
    ToolCall(Id, Arc<str>),
    /// Transcript entry added at `index`, with its JSON.
    EntryAdded(Id, usize, Value),
    /// A block joined transcript entry `index`.
    EntryAppended(Id, usize, Value),
    /// The transcript and plan were replaced by a new replay epoch.
    TranscriptCleared(Id),
    /// The plan.
    Plan(Id),
    /// A request became pending (as it was then: it may close in the same record).
    RequestPending(Box<Pending>),
    /// A pending request was closed.
    RequestClosed(Side, RpcId),
    /// The Client answered an Agent request (index into the answered list).
    Answered(usize),
    /// The Client sent `session/cancel`.
    CancelSent(Id),
    /// A replay window opened or closed.
    ReplayWindow(Id, bool),
    /// A stale v2 mirror was not applied.
    MirrorStale(Id),
}

/// An aspect of a session whose value is read after the record: one change per record.
type AspectKey = (u8, Id, usize, Option<Arc<str>>);

impl Touch {
    fn aspect(&self) -> Option<AspectKey> {
        let key = |n: u8, id: &Id| (n, id.clone(), 0, None);
        Some(match self {
            Touch::Identity(id) => key(0, id),
            Touch::Labels(id) => key(1, id),
            Touch::Work(id) => key(2, id),
            Touch::Controls(id) => key(3, id),
            Touch::Usage(id) => key(4, id),
            Touch::Plan(id) => key(5, id),
            Touch::Message(id, index) => (6, id.clone(), *index, None),
            Touch::ToolCall(id, call) => (7, id.clone(), 0, Some(call.clone())),
            _ => return None,
        })
    }
}

/// The view-wide values an [`Change::AcpViewChanged`] carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    connected: bool,
    version: Option<u64>,
    spec: &'static str,
    shapes: &'static str,
}

impl View {
    /// Leaves a mark for the record's changes (only with the changes option).
    pub(super) fn touch(&mut self, touch: Touch) {
        if !self.options.changes {
            return;
        }
        // A session's kind decides whether a cancel needs a grant (roots need none).
        if let Touch::Identity(id) = &touch {
            let controls = Touch::Controls(id.clone());
            self.touches.push(touch);
            self.touches.push(controls);
            return;
        }
        self.touches.push(touch);
    }

    /// The view-wide values, to tell whether a record changed them.
    pub(crate) fn head(&self) -> Head {
        Head {
            connected: self.connected,
            version: self.version,
            spec: self.options.spec.as_str(),
            shapes: self.shapes().as_str(),
        }
    }

    /// The changes of the records applied since the last call: `before` is the
    /// [`View::head`] before them (`None`: nothing was reported yet).
    pub(crate) fn take_changes(&mut self, before: Option<&Head>) -> Vec<Change> {
        if !self.options.changes {
            return Vec::new();
        }
        let touches = std::mem::take(&mut self.touches);
        let head = self.head();
        let mut out = Vec::new();
        let reset = touches.contains(&Touch::Connection);
        if reset || before != Some(&head) {
            out.push(Change::AcpViewChanged {
                connection: Arc::from(if head.connected {
                    "connected"
                } else {
                    "disconnected"
                }),
                version: head.version,
                spec: Arc::from(head.spec),
                shapes: Arc::from(head.shapes),
                reset,
            });
        }
        let mut seen = BTreeSet::new();
        for touch in touches {
            if let Some(key) = touch.aspect()
                && !seen.insert(key)
            {
                continue;
            }
            if let Some(change) = self.change_of(touch) {
                out.push(change);
            }
        }
        out
    }

    fn change_of(&self, touch: Touch) -> Option<Change> {
        let session = |id: &Id| self.sessions.get(id).map(|s| &**s);
        Some(match touch {
            Touch::Connection => return None,
            Touch::Identity(id) => {
                let s = session(&id)?;
                Change::AcpSessionLearned {
                    kind: Arc::from(kind(self, s)),
                    parent: s.parent.clone(),
                    session: id,
                }
            }
            Touch::Labels(id) => {
                let s = session(&id)?;
                Change::AcpLabelsChanged {
                    title: s.title.clone(),
                    description: s.description.clone(),
                    cwd: s.detail().cwd.clone(),
                    additional_directories: s
                        .detail()
                        .additional_directories
                        .as_deref()
                        .map(sorted),
                    meta: s.detail().meta.as_deref().map(sorted),
                    conversation_title: s.detail().conversation_title.clone(),
                    session: id,
                }
            }
            Touch::Work(id) => {
                let s = session(&id)?;
                Change::AcpWorkStateChanged {
                    state: s.state.as_deref().map(sorted).unwrap_or(Value::Null),
                    state_current: self.state_is_current(&id),
                    idle_transitions: s.idle_transitions,
                    session: id,
                }
            }
            Touch::Controls(id) => {
                let s = session(&id)?;
                Change::AcpControlsChanged {
                    capabilities: s.capabilities.as_deref().map(sorted).unwrap_or(Value::Null),
                    effective_cancel: self.effective_cancel(&id),
                    announced: self.announced(&id),
                    session: id,
                }
            }
            Touch::Usage(id) => Change::AcpUsageChanged {
                usage: session(&id)?
                    .detail()
                    .usage
                    .as_deref()
                    .map(sorted)
                    .unwrap_or(Value::Null),
                session: id,
            },
            Touch::Message(id, index) => {
                let s = session(&id)?;
                let m = s.detail().messages.get(index)?;
                Change::AcpMessageChanged {
                    message: crate::trace::borrowed::to_value(&message(s, m)).ok()?,
                    index,
                    session: id,
                }
            }
            Touch::ToolCall(id, call) => {
                let c = session(&id)?.detail().tool_calls.get(&call)?;
                Change::AcpToolCallChanged {
                    status: c.status.clone(),
                    locally_cancelled: c.locally_cancelled,
                    title: c.title.clone(),
                    kind: c.kind.clone(),
                    call,
                    session: id,
                }
            }
            Touch::EntryAdded(id, index, entry) => Change::AcpTranscriptEntryAdded {
                session: id,
                index,
                entry,
            },
            Touch::EntryAppended(id, index, block) => Change::AcpTranscriptAppended {
                session: id,
                index,
                block,
            },
            Touch::TranscriptCleared(id) => Change::AcpTranscriptCleared { session: id },
            Touch::Plan(id) => Change::AcpPlanChanged {
                plan: session(&id)?.detail().plan.as_deref().map(sorted),
                session: id,
            },
            Touch::RequestPending(p) => Change::AcpRequestPending {
                line: p.line,
                from: Arc::from(p.from.as_str()),
                id: Arc::from(p.id.to_string()),
                method: p.method.clone(),
                session: p.session.clone(),
            },
            Touch::RequestClosed(from, rpc) => Change::AcpRequestClosed {
                from: Arc::from(from.as_str()),
                id: Arc::from(rpc.to_string()),
            },
            Touch::Answered(index) => {
                let a = self.answered.get(index)?;
                Change::AcpRequestAnswered {
                    line: a.request.line,
                    answered_at: a.line,
                    id: Arc::from(a.request.id.to_string()),
                    method: a.request.method.clone(),
                    session: a.request.session.clone(),
                    result: a.outcome.as_ref().ok().map(sorted),
                    error: a.outcome.as_ref().err().map(sorted),
                }
            }
            Touch::CancelSent(id) => Change::AcpCancelSent { session: id },
            Touch::ReplayWindow(id, open) => Change::AcpReplayWindow { session: id, open },
            Touch::MirrorStale(id) => Change::AcpMirrorStale { session: id },
        })
    }
}
