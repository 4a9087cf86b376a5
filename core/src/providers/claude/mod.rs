//! Claude Agent SDK adapter: a captured stream-json stdio log (`claude-sdk` format) →
//! canonical events.
//!
//! Owns: root session identification, routing by `parent_tool_use_id`, child creation
//! from the earliest `Agent`/`Task` tool use, task-id / agent-id aliases, foreground vs
//! background settlement evidence, permission callbacks, the final-child continuation
//! guard, interrupt / `stop_task` as cancel operations, and each turn's token counts
//! (`usage.rs`: a root turn's from its `result`s, a child's from its assistant lines).
//! Never: settles a turn by itself. Each `result` becomes `root_provider_turn_completed`
//! (seed: *Claude Code SDK Mapping*: "The Claude SDK root turn_completed maps to
//! root_provider_turn_completed, never directly to canonical root turn.completed").
//!
//! Ids: the root session is the SDK `session_id`; a child session is its launching
//! `tool_use.id`. Time comes only from records' `at`.

mod control;
mod guard;
mod messages;
mod tasks;
#[cfg(test)]
mod tests;
mod usage;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

use crate::trace::borrowed::JsonRead;

use super::{Ctx, ProviderRecord, Rec};
use crate::finding::Code;
use crate::ids::{Alias, SessionId};
use crate::tree::{Event, Outcome, ProviderPhase, Snapshot};
use control::{CancelOp, HostControl};
use guard::Reservation;

/// At most this many records wait for the root session id or for an agent id binding.
const HOLD_LIMIT: usize = 4096;

/// The Claude adapter's routing state (transport correlation only).
#[derive(Debug, Clone, Default)]
pub struct ClaudeAdapter {
    root: Option<SessionId>,
    /// Records read before the root session id was known.
    pre_root: Vec<(usize, ProviderRecord)>,
    provider_turns: u32,
    current_provider_turn: Option<String>,
    /// The last root `result`'s outcome.
    last_outcome: Option<Outcome>,
    /// Children known to run in the background (wait for their task_notification).
    background: BTreeSet<SessionId>,
    /// Task-system work without subagent identity (e.g. a background Bash): never a child.
    system_tasks: BTreeSet<String>,
    /// Permission requests naming an agent id no child is bound to yet.
    held_permissions: BTreeMap<String, Vec<(usize, ProviderRecord)>>,
    held_count: usize,
    /// Permission request id → owning session.
    interactions: BTreeMap<String, SessionId>,
    /// CLI control requests that are no interaction (hook callbacks, MCP messages), until
    /// the host answers them (bounded by `HOLD_LIMIT`).
    control_requests: BTreeSet<String>,
    /// A host `user` record was seen (a prompt given on the command line is not echoed).
    host_user_seen: bool,
    /// A task notification arrived and no follow-up of a settled root turn ended since:
    /// the CLI answers a notification with a model turn of its own (even one that arrived
    /// during a live provider turn), whose output is dropped when the root turn has
    /// settled meanwhile (a settled root turn never reopens).
    follow_up_due: bool,
    /// That follow-up answers a background child's completion or failure: a continuation
    /// of the root turn, whose words are reported when the root turn has settled.
    continuation_due: bool,
    /// The root output just dropped belongs to such a continuation.
    late_continuation: bool,
    /// The final-child continuation reservation, while armed.
    reservation: Option<Reservation>,
    /// A reserved continuation timed out: its late output is stale until the next
    /// user submission.
    stale: bool,
    /// Host control requests awaiting their response.
    host_controls: BTreeMap<String, HostControl>,
    /// Every host control request id seen (to tell a one-sided capture).
    host_requests: BTreeSet<String>,
    /// The first line, and the count, of CLI answers to host requests this trace lacks.
    missing_host: Option<(usize, usize)>,
    /// A permission the CLI withdrew in a capture without the host's side, held for one
    /// record: the interrupt's answer that may follow makes it the interrupt's fallout.
    withdrawn: Option<(SessionId, String)>,
    /// Cancel operations in flight, by requested session.
    cancels: BTreeMap<SessionId, CancelOp>,
    /// Held records whose owner became known, for the engine to apply next.
    released: VecDeque<(usize, ProviderRecord)>,
    /// Per child session, the id of the last message whose usage was counted (the CLI
    /// repeats a message's usage on each of its content blocks).
    counted: BTreeMap<SessionId, String>,
}

impl ClaudeAdapter {
    /// A new adapter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Normalizes one record.
    pub fn record<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, record: Rec<'_, J>) {
        let message = record.message;
        let Some(kind) = message.get("type").and_then(J::as_str) else {
            cx.finding(
                Code::MalformedRecord,
                "not a valid claude-sdk message: no string `type`".into(),
            );
            return;
        };
        if self.root.is_none() {
            let session_id = message
                .get("session_id")
                .and_then(J::as_str)
                .filter(|s| !s.is_empty());
            match (record.from, session_id) {
                ("cli", Some(id)) => {
                    // The held records come first, then this one again with its root known.
                    self.create_root(cx, id);
                    self.released
                        .push_back((cx.line(), record.to_owned_record()));
                    return;
                }
                _ => {
                    if self.pre_root.len() < HOLD_LIMIT {
                        self.pre_root.push((cx.line(), record.to_owned_record()));
                    } else {
                        cx.finding(
                            Code::HeldEventsOverflow,
                            format!(
                                "record dropped: {HOLD_LIMIT} records read before the first SDK session id are already held (at most {HOLD_LIMIT})"
                            ),
                        );
                    }
                    return;
                }
            }
        }
        self.settle_withdrawal(cx, message);
        match (record.from, kind) {
            ("cli", "system") => self.system(cx, message),
            ("cli", "assistant") => self.assistant(cx, message),
            ("cli", "user") => self.tool_results(cx, message),
            ("cli", "result") => self.result(cx, message),
            ("cli", "stream_event") => self.stream_event(cx, message),
            ("cli", "control_request") => self.permission(cx, record),
            ("cli", "control_response") => {
                self.note_missing_host_request(cx.line(), message);
                self.answered_interrupt(cx, message);
                self.control_response(cx, message);
            }
            ("cli", "control_cancel_request") => self.permission_withdrawn(cx, message),
            ("host", "user") => self.user_submitted(cx, message),
            ("host", "control_request") => self.host_control(cx, message),
            ("host", "control_response") => self.permission_answered(cx, message),
            // Status, rate limits, hooks, tool progress, partial-message bookkeeping …
            // carry no session-tree fact.
            _ => {}
        }
        self.try_complete_cancels(cx);
    }

    /// End of trace: report what is still pending.
    pub fn finish(&mut self, cx: &mut Ctx<'_>) {
        self.settle_withdrawal(cx, &Value::Null);
        for (agent, records) in std::mem::take(&mut self.held_permissions) {
            for (line, _) in records {
                cx.finding_at(line, Code::UnknownAgentRequest, format!(
                        "permission request for agent `{agent}`, which no child was ever bound to, is rejected (never given to the root)"
                    ),);
            }
        }
        for (line, _) in std::mem::take(&mut self.pre_root) {
            cx.finding_at(
                line,
                Code::UnattributedRecord,
                "record read before any SDK session id; the trace never named its session".into(),
            );
        }
        if let Some((line, count)) = self.missing_host {
            cx.finding_at(line, Code::HostSideMissing, format!(
                "the CLI answered {count} host request(s) this trace does not hold (the first here): it lacks the host's side (prompts, permission answers, stops; an interrupt is read from the CLI's answer or its interrupt record), so what the host did is known only from the CLI's output; capture both pipes (lineage record) or replay the session's transcript"
            ));
        }
        for (session, op) in &self.cancels {
            cx.finding_at(
                op.line,
                Code::CancelIncomplete,
                format!(
                    "the cancel of `{session}` never completed ({})",
                    op.waiting_for()
                ),
            );
        }
    }

    fn create_root(&mut self, cx: &mut Ctx<'_>, id: &str) {
        let root = SessionId::from(id);
        self.root = Some(root.clone());
        cx.emit(Event::RootSessionCreated {
            session: root,
            title: None,
            aliases: vec![Alias::new("session", id)],
        });
        self.released.extend(std::mem::take(&mut self.pre_root));
    }

    /// The next released record (its line and the record), for the engine to apply.
    pub(crate) fn take_released(&mut self) -> Option<(usize, ProviderRecord)> {
        self.released.pop_front()
    }

    fn root(&self) -> Option<&SessionId> {
        self.root.as_ref()
    }

    /// Is a root provider turn (real or reserved) live? The reducer's root gate owns the
    /// provider lifecycle; the adapter reads it rather than keeping a copy.
    fn provider_running(&self, snapshot: &Snapshot) -> bool {
        self.root()
            .and_then(|r| snapshot.session(r))
            .and_then(|s| s.last_turn())
            .and_then(|t| t.gate.as_ref())
            .is_some_and(|g| g.provider.phase == ProviderPhase::Running)
    }

    /// Is the canonical root turn active (so root output belongs to it)?
    fn root_turn_active(&self, cx: &Ctx<'_>) -> bool {
        self.root()
            .and_then(|r| cx.snapshot().session(r))
            .and_then(|s| s.active_turn())
            .is_some()
    }

    /// Root output: the first after a terminal starts a root provider turn (a
    /// continuation when the root turn is already running); it also takes over an armed
    /// reservation. Returns `false` when the output is stale and must be dropped. `said`
    /// is model output (an assistant message, a partial message), which alone can show a
    /// prompt the capture does not hold.
    fn root_output(&mut self, cx: &mut Ctx<'_>, what: &str, said: bool) -> bool {
        self.late_continuation = false;
        if self.stale {
            cx.finding(
                Code::StaleContinuation,
                format!("{what} of a continuation that timed out is stale; dropped"),
            );
            return false;
        }
        if self.reservation.take().is_some() {
            return true; // the reserved provider turn is this continuation
        }
        if !self.root_turn_active(cx) {
            if self.follow_up_due && self.root_ever_opened(cx) {
                // The CLI's own model turn after a task notification (an agent finished or
                // was stopped, a background Bash exited) came when the root turn had
                // settled: it is not attached to that turn (nothing reopens a settled root
                // turn) and opens no other.
                self.late_continuation = self.continuation_due;
                return false;
            }
            let unechoed = self.root_never_opened(cx) || said;
            if !self.host_user_seen && unechoed {
                // A prompt given on the command line is not echoed: the first root output
                // after `system/init` is the only sign of the user's submission. In a
                // capture of the CLI's output alone no prompt is: the CLI starts a model
                // turn on its own only to answer a task notification (none is due here),
                // so model output after a `result` answers the next prompt (seed, *Session
                // And Turn Semantics*: "A root turn is initiated by a user submission").
                self.open_unechoed_turn(cx);
            }
        }
        if !self.provider_running(cx.snapshot()) && self.root_turn_active(cx) {
            self.start_provider_turn(cx, "provider");
        }
        true
    }

    /// Has the root session never had a turn?
    fn root_never_opened(&self, cx: &Ctx<'_>) -> bool {
        self.root()
            .and_then(|r| cx.snapshot().session(r))
            .is_some_and(|s| s.last_turn().is_none())
    }

    /// Has the root session had a turn?
    fn root_ever_opened(&self, cx: &Ctx<'_>) -> bool {
        self.root()
            .and_then(|r| cx.snapshot().session(r))
            .is_some_and(|s| s.last_turn().is_some())
    }

    /// Opens the root turn of a prompt the CLI was given on its command line.
    fn open_unechoed_turn(&mut self, cx: &mut Ctx<'_>) {
        let Some(root) = self.root.clone() else {
            return;
        };
        cx.emit(Event::UserSubmitted {
            session: root,
            message: None,
            text: None,
        });
    }

    fn start_provider_turn(&mut self, cx: &mut Ctx<'_>, prefix: &str) {
        let Some(root) = self.root.clone() else {
            return;
        };
        self.provider_turns += 1;
        let id = format!("{prefix}-{}", self.provider_turns);
        self.current_provider_turn = Some(id.clone());
        cx.emit(Event::RootProviderTurnStarted {
            session: root,
            provider_turn: Some(id),
        });
    }

    fn end_provider_turn(&mut self, cx: &mut Ctx<'_>, outcome: Outcome, error: Option<String>) {
        let Some(root) = self.root.clone() else {
            return;
        };
        cx.emit(Event::RootProviderTurnCompleted {
            session: root,
            provider_turn: self.current_provider_turn.clone(),
            outcome,
            error,
        });
    }

    fn system<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        match message.get("subtype").and_then(J::as_str) {
            // An init at startup (before any submission) opens nothing; later ones begin
            // a provider turn (a continuation when the root turn is still active).
            Some("init") if self.root_turn_active(cx) || self.stale => {
                self.root_output(cx, "system/init", false);
            }
            Some("task_started") => self.task_started(cx, message),
            Some("task_progress") => self.task_progress(cx, message),
            Some("task_notification") => self.task_notification(cx, message),
            Some("task_updated") => self.task_updated(cx, message),
            _ => {} // session_state_changed, status …: no tree fact
        }
    }

    fn result<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        if self.interrupted_query_terminal(cx) {
            // Seed, *Cancellation*: the root-query interrupt covers the whole query, so
            // its terminal is the cancel's evidence, whether it comes before or after the
            // interrupt's answer; it opens no provider turn during the cancel.
            self.result_usage(cx, message);
            cx.finding(
                Code::LateProviderTerminal,
                "`result` of the interrupted query after its provider turn had ended: \
                 recorded as the interrupt's evidence"
                    .to_owned(),
            );
            self.mark_results_seen();
            return;
        }
        let attached = self.root_output(cx, "result", false);
        // The root agent's calls count on its last turn even when their output is dropped
        // (a follow-up after the turn settled): usage is accounting, not lifecycle.
        self.result_usage(cx, message);
        if !attached {
            self.follow_up_due = false; // that follow-up ended here
            self.continuation_due = false;
            return;
        }
        let success = message.get("subtype").and_then(J::as_str) == Some("success")
            && !message
                .get("is_error")
                .and_then(J::as_bool)
                .unwrap_or(false);
        let outcome = if success {
            Outcome::Completed
        } else {
            Outcome::Failed
        };
        let error = (!success)
            .then(|| {
                message
                    .get("result")
                    .and_then(J::as_str)
                    .or_else(|| message.get("subtype").and_then(J::as_str))
                    .map(String::from)
            })
            .flatten();
        if !self.provider_running(cx.snapshot()) {
            // A result always ends a provider turn; if none was seen starting (no root
            // output before it), this one started and ended here.
            if !self.root_turn_active(cx) {
                // Nothing to attach to: the reducer records it as a late provider terminal
                // (or reports it unmatched).
                self.end_provider_turn(cx, outcome, error);
                return;
            }
            self.start_provider_turn(cx, "provider");
        }
        self.last_outcome = Some(outcome);
        self.end_provider_turn(cx, outcome, error);
        self.mark_results_seen();
    }

    fn mark_results_seen(&mut self) {
        for op in self.cancels.values_mut() {
            op.result_seen = true;
        }
    }

    /// Is a `result` now the terminal of a query the host interrupted after its provider
    /// turn had ended (the root waits on its children; no continuation is reserved)?
    fn interrupted_query_terminal(&self, cx: &Ctx<'_>) -> bool {
        self.root().is_some_and(|r| self.cancels.contains_key(r))
            && self.reservation.is_none()
            && self.root_turn_active(cx)
            && !self.provider_running(cx.snapshot())
    }

    fn user_submitted<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(root) = self.root.clone() else {
            return;
        };
        self.stale = false;
        self.follow_up_due = false;
        self.continuation_due = false;
        self.host_user_seen = true;
        let text = messages::text_of(message.pointer("/message/content"));
        cx.emit(Event::UserSubmitted {
            session: root,
            message: message.get("uuid").and_then(J::as_str).map(Into::into),
            text,
        });
    }
}
