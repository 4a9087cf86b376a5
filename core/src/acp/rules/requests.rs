//! Requests, responses and Client calls: restricted child methods, cancel grants,
//! cleanup of interactions of cancelled work, capability bypass, replayed requests and
//! the request/response pairing.

use super::{Batch, Checker, MustCancel};
use crate::acp::view::Id;
use crate::acp::wire::{self, RpcId, Side};
use crate::finding::Code;
use crate::trace::borrowed::Json;
use crate::tree::Severity;

/// Methods that mutate a session or its runtime (errors when they name a child).
const MUTATIONS: [&str; 8] = [
    "session/prompt",
    "session/load",
    "session/resume",
    "session/set_mode",
    "session/set_config_option",
    "session/set_model",
    "session/fork",
    "session/close",
];

impl Checker {
    /// A Client request or notification.
    pub(super) fn client_call(&mut self, line: usize, method: &str, params: &Json<'_>) {
        let target = wire::session_id(params);
        if let Some(child) = target
            && self.view.is_child(child)
        {
            self.child_mutation(line, method, child);
        }
        match method {
            "session/cancel" => {
                if let Some(target) = target {
                    self.cancel(line, target, true);
                }
            }
            "session/close" => {
                if let Some(target) = target {
                    self.cancel(line, target, false);
                }
            }
            "session/load" | "session/resume" => {
                if let Some(root) = target {
                    // A reload ends the obligations of the subtree's current period. Only
                    // the descendants the view resets can hold one (a confirmation awaited
                    // or a mirror tracker is only ever opened for a stamped session).
                    for id in self.view.stamped_descendants(root) {
                        self.awaiting_confirmation.remove(&id);
                        self.idle_work.remove(&id);
                        if let Some(mirror) = self.mirrors.remove(&id) {
                            self.mirror_verdict(&id, mirror.close());
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn child_mutation(&mut self, line: usize, method: &str, child: &str) {
        let severity = if MUTATIONS.contains(&method) {
            Severity::Error
        } else if (method.starts_with("session/") || method.starts_with('_'))
            && !matches!(method, "session/cancel" | "session/list")
        {
            Severity::Warning
        } else {
            return;
        };
        let message = if severity == Severity::Error {
            format!(
                "`{method}` names `{child}`, an Agent-owned child session; children are restricted: act through the parent session (only `session/cancel` may be allowed, by a current `cancel` grant)"
            )
        } else {
            format!(
                "`{method}` names `{child}`, an Agent-owned child session; any Client-initiated mutation not advertised in the child's capabilities is forbidden, so send it only if it is read-only"
            )
        };
        self.report_at(line, Code::ChildMutation, severity, message);
    }

    /// `session/cancel` (`is_cancel`) or `session/close` of `target`.
    fn cancel(&mut self, line: usize, target: &str, is_cancel: bool) {
        if is_cancel && self.view.is_unknown(target) {
            self.report(
                line,
                Code::CancelUnknownSession,
                format!(
                    "`session/cancel` names `{target}`, which was never set up (`session/new`, `session/fork`, `session/load`, `session/resume`) nor announced as a child; the Client can only cancel sessions it knows"
                ),
            );
        }
        if is_cancel && self.view.is_child(target) && !self.view.effective_cancel(target) {
            let reason = if !self.view.announced(target) {
                "it was not announced on this connection since the last reset (connection start or a load/resume of an ancestor)"
            } else if self.view.resume_pending_over(target) {
                "a `session/resume` covering it has not succeeded yet"
            } else {
                "its current effective capabilities hold no `cancel` object (historical grants and `cancel: true` do not count)"
            };
            self.report(
                line,
                Code::CancelNotGranted,
                format!(
                    "`session/cancel` names child `{target}` but {reason}; cancel the parent turn instead, or wait for a current `\"capabilities\": {{\"cancel\": {{}}}}`"
                ),
            );
        }
        // Interactions of the affected work must be answered `cancelled`: the target's,
        // and its descendants' not confirmed idle when the cancel cascades (2026-09-24,
        // and a close in every revision). From 2026-10-05 a cancel resolves only the
        // target's own; a descendant's follow once it reports a cancelled idle
        // (`cancelled_idle`). The view indexes them by subtree.
        let cascade = !is_cancel || self.view.cancel_cascades();
        self.must_cancel_within(target, cascade);
        if !is_cancel {
            return;
        }
        // The working sessions of the target's subtree (the view's live index: no walk
        // over every child ever associated under the target); from 2026-10-05 only the
        // target must confirm: which descendants its work waits on is not on the wire.
        let working: Vec<Id> = if cascade {
            self.view
                .working_within(target)
                .filter(|id| self.view.is_child(id))
                .cloned()
                .collect()
        } else {
            self.view
                .working_within(target)
                .filter(|id| &***id == target && self.view.is_child(id))
                .cloned()
                .collect()
        };
        for id in working {
            self.awaiting_confirmation.entry(id).or_insert(line);
        }
    }

    /// The pending permission and elicitation requests of `target` (and, with
    /// `cascade`, of its descendants not confirmed idle) must be answered cancelled.
    pub(super) fn must_cancel_within(&mut self, target: &str, cascade: bool) {
        let affected: Vec<(RpcId, MustCancel)> = self
            .view
            .interactions_reached(target, cascade)
            .into_iter()
            .filter_map(|p| {
                let kind = match &*p.method {
                    "session/request_permission" => MustCancel::Permission,
                    "elicitation/create" => MustCancel::Elicitation,
                    _ => return None,
                };
                Some((p.id.clone(), kind))
            })
            .collect();
        self.must_cancel.extend(affected);
    }

    /// An Agent→Client request.
    pub(super) fn agent_request(
        &mut self,
        line: usize,
        method: &str,
        params: &Json<'_>,
        batch: &mut Batch,
    ) {
        let Some(session) = wire::session_id(params) else {
            return;
        };
        self.bears(line, session, "its `params.sessionId`", batch);
        if self.view.is_child(session)
            && let Some(caps) = self.view.client_caps()
        {
            let missing = match method {
                "fs/read_text_file" if !caps.read_text_file => Some("fs.readTextFile"),
                "fs/write_text_file" if !caps.write_text_file => Some("fs.writeTextFile"),
                m if m.starts_with("terminal/") && !caps.terminal => Some("terminal"),
                _ => None,
            };
            if let Some(cap) = missing {
                self.report(
                    line,
                    Code::ChildCapabilityBypass,
                    format!(
                        "`{method}` for child `{session}` but this connection's `initialize` did not advertise `clientCapabilities.{cap}`; a child is bound by the same Client capabilities as its parent"
                    ),
                );
            }
        }
        if method == "session/request_permission"
            && let Some(start) = self.view.replay_start()
            && let Some(call) = params
                .pointer("/toolCall/toolCallId")
                .and_then(Json::as_str)
            && let Some(&answered) = self
                .answered_permissions
                .get(&(Id::from(session), Id::from(call)))
            && answered < start
        {
            self.report(
                line,
                Code::RequestReissued,
                format!(
                    "replay reissues the permission request for tool call `{call}` of `{session}`, already answered at line {answered}; replay history, never recorded requests"
                ),
            );
        }
    }

    /// A response sent by `from` to a request of the other side.
    pub(super) fn response(
        &mut self,
        line: usize,
        from: Side,
        id: &RpcId,
        outcome: Result<&Json<'_>, &Json<'_>>,
        batch: &mut Batch,
    ) {
        if *id == RpcId::Null && outcome.is_err() {
            // JSON-RPC 2.0: the error response to a request whose id could not be read.
            return;
        }
        let key = (from.other(), id.clone());
        let Some(request) = self.view.pending(from.other(), id).cloned() else {
            if self.answered.contains(&key) {
                self.report(
                    line,
                    Code::DuplicateResponse,
                    format!("request {id} was already answered; a request must receive exactly one response"),
                );
            } else {
                self.report(
                    line,
                    Code::UnknownResponse,
                    format!(
                        "no request {id} from the {} is pending on this connection; check the id",
                        from.other().as_str()
                    ),
                );
            }
            return;
        };
        self.answered.insert(key);
        let result = outcome.ok();
        match &*request.method {
            "initialize" => {
                let caps = result.and_then(|r| r.get("agentCapabilities"));
                let own = caps.and_then(|c| c.get("subagents")).is_some()
                    || caps
                        .and_then(|c| c.pointer("/sessionCapabilities/subagents"))
                        .is_some();
                if own {
                    self.report(
                        line,
                        Code::AgentSubagentCapability,
                        "the Agent advertises a `subagents` capability of its own; there is no Agent-side capability (the Client's `clientCapabilities.subagents` alone decides, and a Client learns of subagents from the first update), so nothing reads it".into(),
                    );
                }
            }
            "session/request_permission" => {
                if let (Some(session), Some(call)) = (&request.session, &request.tool_call) {
                    self.answered_permissions
                        .insert((session.clone(), call.clone()), line);
                }
                if self.must_cancel.remove(id).is_some()
                    && result
                        .and_then(|r| r.pointer("/outcome/outcome"))
                        .and_then(Json::as_str)
                        != Some("cancelled")
                {
                    self.report(
                        line,
                        Code::PermissionNotCancelled,
                        format!(
                            "permission request {id} was pending for work cancelled or closed earlier; answer it with {{\"outcome\":{{\"outcome\":\"cancelled\"}}}}"
                        ),
                    );
                }
            }
            "elicitation/create"
                if self.must_cancel.remove(id).is_some()
                    && result.and_then(|r| r.get("action")).and_then(Json::as_str)
                        != Some("cancel") =>
            {
                self.report(
                    line,
                    Code::ElicitationNotCancelled,
                    format!(
                        "elicitation {id} was pending for work cancelled or closed earlier; dismiss it and answer {{\"action\":\"cancel\"}}"
                    ),
                );
            }
            "session/new" | "session/fork" => {
                if let Some(new) = result.and_then(wire::session_id)
                    && self.view.is_child(new)
                {
                    self.report(
                        line,
                        Code::SessionIdReused,
                        format!(
                            "`{}` returns `{new}`, an id already announced as a child; session ids must never be reused for an unrelated session",
                            request.method
                        ),
                    );
                }
            }
            "session/list" => {
                let listed = result
                    .and_then(|r| r.get("sessions"))
                    .and_then(Json::as_array)
                    .unwrap_or_default();
                let children: Vec<String> = listed
                    .iter()
                    .filter_map(|s| wire::session_id(s))
                    .filter(|s| self.view.is_child(s))
                    .map(String::from)
                    .collect();
                for child in children {
                    self.report(
                        line,
                        Code::ChildListed,
                        format!(
                            "`session/list` lists child `{child}`; children are discovered through their parents' associations"
                        ),
                    );
                }
            }
            "session/resume" if request.replay && result.is_some() => {
                if let Some(root) = &request.session {
                    batch.resumed.push(root.clone());
                }
            }
            _ => {}
        }
    }
}
