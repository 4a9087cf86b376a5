//! The control protocol: permission callbacks (interactions) and the host's `interrupt`
//! and `stop_task` (cancel operations).
//!
//! Seed: "Claude SDK permission callbacks running inside a child must preserve the
//! callback agentID as the provider agentId alias. The Claude adapter resolves that alias
//! to the already-recorded child session and turn before emitting the canonical
//! interaction." "Sending cancel is not a terminal fact … root/child turns settle canceled
//! only from provider confirmation; unconfirmed child turns use the generic interrupted
//! timeout."
//!
//! A root cancel completes when the interrupt's control_response and the root's `result`
//! (the query ended) have both arrived; a `stop_task` completes when its control_response
//! and the task's `stopped` notification have both arrived. An error response completes
//! either at once, unconfirmed. A successful interrupt acknowledges every child target of
//! the root cancel (seed, *Cancellation*: "Claude SDK uses its root-query cancel primitive
//! when the target set includes the root; that native operation covers the Task executions
//! in the same query"), so the children's outcomes do not depend on whether their
//! `stopped` reports come before or after the interrupt's answer or the root's result.

use std::collections::BTreeSet;

use crate::trace::borrowed::JsonRead;
use serde_json::json;

use super::{ClaudeAdapter, HOLD_LIMIT};
use crate::finding::Code;
use crate::ids::{Alias, SessionId, TurnId};
use crate::providers::{Ctx, Rec};
use crate::tree::{Event, InteractionKind};

/// What a host control request was.
#[derive(Debug, Clone)]
pub(super) enum HostControl {
    /// Cancels this session's active turn (the root: `interrupt`; a child: `stop_task`).
    Cancel(SessionId),
}

/// A cancel operation's transport state.
#[derive(Debug, Clone)]
pub(super) struct CancelOp {
    pub(super) line: usize,
    /// `Some(ok)` once the control_response arrived.
    response: Option<bool>,
    /// Root cancels wait for the root `result` when a provider turn was live.
    needs_result: bool,
    pub(super) result_seen: bool,
    /// Child-only cancels wait for the child's `stopped` evidence.
    needs_stop: Option<SessionId>,
    stopped: BTreeSet<SessionId>,
    /// The cancel's target set as the reducer prepared it (the requested turn first).
    targets: Vec<TurnId>,
}

impl CancelOp {
    pub(super) fn saw_stop(&mut self, child: &SessionId) {
        self.stopped.insert(child.clone());
    }

    fn complete(&self) -> bool {
        match self.response {
            None => false,
            Some(false) => true,
            Some(true) => {
                (!self.needs_result || self.result_seen)
                    && self
                        .needs_stop
                        .as_ref()
                        .is_none_or(|c| self.stopped.contains(c))
            }
        }
    }

    pub(super) fn waiting_for(&self) -> String {
        let mut waiting = Vec::new();
        if self.response.is_none() {
            waiting.push("no control_response");
        }
        if self.needs_result && !self.result_seen {
            waiting.push("no root result");
        }
        if let Some(child) = &self.needs_stop
            && !self.stopped.contains(child)
        {
            waiting.push("no stopped notification");
        }
        waiting.join(", ")
    }
}

impl ClaudeAdapter {
    /// A CLI `control_request`: `can_use_tool` (and elicitations) become interactions.
    pub(super) fn permission<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, record: Rec<'_, J>) {
        let message = &record.message;
        let Some(request_id) = message.get("request_id").and_then(J::as_str) else {
            return;
        };
        let request = message.get("request");
        let kind = match request.and_then(|r| r.get("subtype")).and_then(J::as_str) {
            Some("can_use_tool") => InteractionKind::Approval,
            Some("elicitation" | "request_user_dialog") => InteractionKind::Question,
            _ => {
                // Hook callbacks, MCP messages …: no tree fact, but the host answers them
                // with a `control_response` that must not look unmatched.
                if self.control_requests.len() < HOLD_LIMIT {
                    self.control_requests.insert(request_id.to_owned());
                }
                return;
            }
        };
        let agent = request.and_then(|r| r.get("agent_id")).and_then(J::as_str);
        let owner = match agent {
            None => self.root.clone(),
            Some(agent) => {
                let bound = cx
                    .snapshot()
                    .resolve_alias(&Alias::new("agent", agent))
                    .cloned();
                if bound.is_none() {
                    self.hold_permission(cx, agent, record);
                    return;
                }
                bound
            }
        };
        let Some(owner) = owner else {
            return;
        };
        self.interactions
            .insert(request_id.to_owned(), owner.clone());
        let tool_use = request
            .and_then(|r| r.get("tool_use_id"))
            .and_then(J::as_str);
        let title = request
            .and_then(|r| r.get("title").or_else(|| r.get("tool_name")))
            .and_then(J::as_str);
        cx.emit(Event::InteractionRequested {
            session: owner,
            request: request_id.into(),
            kind,
            provider_turn: self.current_provider_turn.clone(),
            tool_call: tool_use.map(Into::into),
            title: title.map(String::from),
        });
    }

    /// The callback can precede the child's own tool use: hold it until the agent id is
    /// bound, never give it to the root.
    fn hold_permission<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, agent: &str, record: Rec<'_, J>) {
        if self.held_count < HOLD_LIMIT {
            self.held_count += 1;
            self.held_permissions
                .entry(agent.to_owned())
                .or_default()
                .push((cx.line(), record.to_owned_record()));
        } else {
            cx.finding(
                Code::HeldEventsOverflow,
                format!(
                    "permission request for agent `{agent}` dropped: {HOLD_LIMIT} permission requests already wait for an agent id to bind (at most {HOLD_LIMIT} in all)"
                ),
            );
        }
    }

    /// Applies held permission requests once their agent id is bound.
    pub(super) fn release_permissions(&mut self, agent: &str) {
        let Some(records) = self.held_permissions.remove(agent) else {
            return;
        };
        self.held_count = self.held_count.saturating_sub(records.len());
        self.released.extend(records);
    }

    /// The host answered a permission request.
    pub(super) fn permission_answered<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let response = message.get("response");
        let Some(request_id) = answered_request(message) else {
            return;
        };
        if self.control_requests.remove(request_id) {
            return; // the answer to a hook callback or an MCP message
        }
        let Some(session) = self.interactions.get(request_id).cloned() else {
            cx.finding(Code::UnknownResponse, format!("control_response for `{request_id}` answers no permission request seen in this trace"),);
            return;
        };
        let answer = response
            .and_then(|r| r.pointer("/response/behavior"))
            .and_then(J::as_str)
            .or_else(|| response.and_then(|r| r.get("subtype")).and_then(J::as_str))
            .map(String::from);
        cx.emit(Event::InteractionAnswered {
            session,
            request: request_id.into(),
            answer,
        });
    }

    /// The CLI no longer needs an answer (`control_cancel_request`): the provider resolved it.
    pub(super) fn permission_withdrawn<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(request_id) = message.get("request_id").and_then(J::as_str) else {
            return;
        };
        let Some(session) = self.interactions.get(request_id).cloned() else {
            return;
        };
        let cancelling = cx
            .snapshot()
            .session(&session)
            .and_then(|s| s.active_turn())
            .is_some_and(|t| t.cancel.is_some());
        if cancelling {
            // Real 2.1.328 withdraws a child's pending permission request right after an
            // interrupt: cancellation fallout. The cancel supersedes the request when its
            // turn settles (seed, *Cancellation*: "pending interaction supersession").
            return;
        }
        if self.missing_host.is_some() {
            // Without the host's side the interrupt shows only by its answer, which comes
            // right after this withdrawal: wait one record to tell.
            self.withdrawn = Some((session, request_id.to_owned()));
            return;
        }
        cx.emit(Event::InteractionResolved {
            session,
            request: request_id.into(),
        });
    }

    /// A held withdrawal: fallout of the interrupt when `message` answers one the trace
    /// lacks (the cancel supersedes the request), else the provider resolved it.
    pub(super) fn settle_withdrawal<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some((session, request)) = self.withdrawn.take() else {
            return;
        };
        let interrupt = message.pointer("/response/response/still_queued").is_some()
            && answered_request(message).is_some_and(|id| !self.host_requests.contains(id));
        if !interrupt {
            cx.emit(Event::InteractionResolved {
                session,
                request: request.into(),
            });
        }
    }

    /// A host control request: `interrupt` (the user's cancel of the root turn) or
    /// `stop_task` (a child-only cancel).
    pub(super) fn host_control<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(request_id) = message.get("request_id").and_then(J::as_str) else {
            return;
        };
        self.host_requests.insert(request_id.to_owned());
        let request = message.get("request");
        let target = match request.and_then(|r| r.get("subtype")).and_then(J::as_str) {
            Some("interrupt") => self.root.clone(),
            Some("stop_task") => {
                let task = request
                    .and_then(|r| r.get("task_id"))
                    .and_then(J::as_str)
                    .unwrap_or_default();
                let child = cx
                    .snapshot()
                    .resolve_alias(&Alias::new("task", task))
                    .cloned();
                if child.is_none() {
                    if !self.system_tasks.contains(task) {
                        cx.finding(Code::UnknownTask, format!("stop_task for task `{task}`, which is no subagent; no child to cancel"),);
                    }
                    return;
                }
                child
            }
            _ => return,
        };
        let Some(target) = target else {
            return;
        };
        let is_root = Some(&target) == self.root.as_ref();
        // Seed, *Claude Code SDK Mapping*: "Cancellation during the notification wait uses
        // the existing root-query interrupt. It cancels the reserved synthetic provider
        // turn, disarms its timeout, and follows the same durable root-plus-children
        // cancellation operation": the cancel is prepared first (the reserved turn keeps
        // the root active), then the reserved provider turn ends.
        let reserved = is_root && self.reservation.is_some();
        let needs_result = is_root && self.provider_running(cx.snapshot()) && !reserved;
        let step = cx.emit(Event::CancelRequested {
            session: target.clone(),
        });
        let Some(targets) = step.cancel_prepared().map(<[TurnId]>::to_vec) else {
            return; // the reducer refused it and said why
        };
        if reserved {
            self.cancel_reservation(cx);
        }
        self.host_controls
            .insert(request_id.to_owned(), HostControl::Cancel(target.clone()));
        self.cancels.insert(
            target.clone(),
            CancelOp {
                line: cx.line(),
                response: None,
                needs_result,
                result_seen: false,
                needs_stop: (!is_root).then_some(target),
                stopped: BTreeSet::new(),
                targets,
            },
        );
    }

    /// A capture of the CLI's output alone still shows an interrupt: its answer carries
    /// `still_queued`, which only an interrupt's answer has. That answer is the host's
    /// interrupt, acknowledged (seed, *Cancellation*: "User cancellation cancels the root
    /// turn and every child agent owned by that turn"); the cancel then completes as any.
    /// An answer after the root turn settled (the capture showed its end first) cancels
    /// nothing and is not read.
    pub(super) fn answered_interrupt<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(id) = answered_request(message) else {
            return;
        };
        let interrupt = message.pointer("/response/response/still_queued").is_some();
        if interrupt && !self.host_requests.contains(id) && self.root_turn_active(cx) {
            let request = json!({"type": "control_request", "request_id": id, "request": {"subtype": "interrupt"}});
            self.host_control(cx, &request);
        }
    }

    /// The CLI's `[Request interrupted by user…]` record in the root, while the root turn
    /// runs and no cancel of it is known: the CLI's record of the host's interrupt, which
    /// this capture does not hold (the transcript reader reads the same record so). The
    /// interrupt and its answer are read from it.
    pub(super) fn interrupt_record(&mut self, cx: &mut Ctx<'_>, text: &str) {
        let Some(root) = self.root.clone() else {
            return;
        };
        let uncancelled = cx
            .snapshot()
            .session(&root)
            .and_then(|s| s.active_turn())
            .is_some_and(|t| t.cancel.is_none());
        if !text.starts_with("[Request interrupted by user") || !uncancelled {
            return;
        }
        let id = format!("interrupt-record-{}", cx.line());
        let request = json!({"type": "control_request", "request_id": id, "request": {"subtype": "interrupt"}});
        self.host_control(cx, &request);
        let answer = json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {}}});
        self.control_response(cx, &answer);
    }

    /// A CLI answer to a host request the trace never held: the capture is one-sided.
    pub(super) fn note_missing_host_request<J: JsonRead>(&mut self, line: usize, message: &J) {
        if let Some(id) = answered_request(message)
            && !self.host_requests.contains(id)
        {
            let (first, count) = self.missing_host.unwrap_or((line, 0));
            self.missing_host = Some((first, count + 1));
        }
    }

    /// The CLI answered a host control request (answers to `initialize`, `set_model` …
    /// carry no tree fact).
    pub(super) fn control_response<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let response = message.get("response");
        let Some(request_id) = answered_request(message) else {
            return;
        };
        let Some(HostControl::Cancel(target)) = self.host_controls.remove(request_id) else {
            return;
        };
        let ok = response.and_then(|r| r.get("subtype")).and_then(J::as_str) == Some("success");
        let Some(op) = self.cancels.get_mut(&target) else {
            return;
        };
        op.response = Some(ok);
        if ok && Some(&target) == self.root.as_ref() {
            let children: Vec<TurnId> = op.targets.iter().skip(1).cloned().collect();
            acknowledge_children(cx, &children);
        }
    }

    /// Completes every cancel whose evidence is in.
    pub(super) fn try_complete_cancels(&mut self, cx: &mut Ctx<'_>) {
        let done: Vec<SessionId> = self
            .cancels
            .iter()
            .filter(|(_, op)| op.complete())
            .map(|(s, _)| s.clone())
            .collect();
        for session in done {
            self.cancels.remove(&session);
            cx.emit(Event::CancelCompleted { session });
        }
    }
}

/// The interrupt covers the Task executions of the query: every child target still
/// waiting for its stop is acknowledged (an idempotent step for one already stopped).
fn acknowledge_children(cx: &mut Ctx<'_>, targets: &[TurnId]) {
    for turn in targets {
        let waiting = cx
            .snapshot()
            .turn(turn)
            .is_some_and(|t| t.is_active() && t.cancel.is_some());
        if waiting {
            cx.emit(Event::CancelAcknowledged {
                session: turn.session().clone(),
            });
        }
    }
}

/// The `request_id` a `control_response` answers.
fn answered_request<J: JsonRead>(message: &J) -> Option<&str> {
    message
        .get("response")
        .and_then(|r| r.get("request_id"))
        .and_then(J::as_str)
}
