//! Assistant and user messages: routing by `parent_tool_use_id`, `Agent`/`Task` tool uses
//! (child creation) and their launch tool results (foreground settlement, background
//! launch).
//!
//! Seed: "parent_tool_use_id is the canonical child scope marker for nested messages."
//! "The child session and submitted child turn are emitted from the earliest parent Task
//! tool-use event." "The parent Task / Agent tool call remains owned by the session and
//! turn that launched the child." "A foreground Task may settle its child turn from the
//! terminal parent tool result. An async/background Task does not settle from the launch
//! tool result; it waits for the matching task lifecycle terminal."

use crate::trace::borrowed::JsonRead;

use super::ClaudeAdapter;
use crate::finding::Code;
use crate::ids::{Alias, SessionId};
use crate::providers::Ctx;
use crate::tree::{Event, Outcome, Role, ToolStatus};

/// Tool names that launch a subagent (`Task` before CLI 2.1.63, `Agent` after).
fn launches_subagent(name: &str) -> bool {
    matches!(name, "Agent" | "Task")
}

/// The text of a message content (a string, or the `text` blocks of an array).
pub(super) fn text_of<J: JsonRead>(content: Option<&J>) -> Option<String> {
    let content = content?;
    if let Some(s) = content.as_str() {
        return Some(s.to_owned());
    }
    let parts: Vec<&str> = content
        .items()?
        .iter()
        .filter(|b| b.get("type").and_then(J::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(J::as_str))
        .collect();
    (!parts.is_empty()).then(|| parts.join(""))
}

impl ClaudeAdapter {
    /// The session a message belongs to: the root, or the child named by
    /// `parent_tool_use_id`. `None` (with a finding) when that child is unknown.
    fn owner<J: JsonRead>(&self, cx: &mut Ctx<'_>, message: &J) -> Option<SessionId> {
        match message.get("parent_tool_use_id").and_then(J::as_str) {
            None => self.root.clone(),
            Some(parent) => {
                let id = SessionId::from(parent);
                if cx.snapshot().session(&id).is_some() {
                    Some(id)
                } else {
                    cx.finding(Code::UnknownParentToolUse, format!(
                            "message scoped to tool use `{parent}`, which launched no known subagent; not attributed to any session"
                        ),);
                    None
                }
            }
        }
    }

    pub(super) fn assistant<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(owner) = self.owner(cx, message) else {
            return;
        };
        let is_root = Some(&owner) == self.root.as_ref();
        if is_root && !self.root_output(cx, "assistant output", true) {
            if self.late_continuation {
                late_continuation(cx, message);
            }
            return;
        }
        if !is_root && let Some(agent) = message.get("agent_id").and_then(J::as_str) {
            self.bind_alias(cx, &owner, "agent", agent);
        }
        if !is_root {
            self.child_usage(cx, &owner, message);
        }
        let blocks = message
            .pointer("/message/content")
            .and_then(J::items)
            .unwrap_or_default();
        let message_id = message.pointer("/message/id").and_then(J::as_str);
        for block in blocks {
            match block.get("type").and_then(J::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(J::as_str).unwrap_or_default();
                    cx.emit(Event::Message {
                        session: owner.clone(),
                        message: message_id.map(Into::into),
                        role: Role::Assistant,
                        text: text.to_owned(),
                    });
                }
                Some("tool_use") => self.tool_use(cx, &owner, block),
                _ => {} // thinking, images …
            }
        }
    }

    /// A tool use on `owner`'s turn; an `Agent`/`Task` one also creates the child.
    fn tool_use<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, owner: &SessionId, block: &J) {
        let Some(id) = block.get("id").and_then(J::as_str) else {
            return;
        };
        let name = block.get("name").and_then(J::as_str).unwrap_or_default();
        let input = block.get("input");
        let description = input
            .and_then(|i| i.get("description"))
            .and_then(J::as_str)
            .map(String::from);
        cx.emit(Event::ToolCallStarted {
            session: owner.clone(),
            call: id.into(),
            name: Some(name.to_owned()),
            title: description.clone(),
        });
        if launches_subagent(name) {
            let child = SessionId::from(id);
            if input
                .and_then(|i| i.get("run_in_background"))
                .and_then(J::as_bool)
                == Some(true)
            {
                self.background.insert(child.clone());
            }
            cx.emit(Event::ChildSpawned {
                session: child,
                parent_session: owner.clone(),
                parent_turn: None,
                tool_call: Some(id.into()),
                title: description,
                aliases: vec![Alias::new("tool_use", id)],
            });
        }
    }

    /// Tool results (a `user` message from the CLI): each completes its tool call on the
    /// turn that started it; a subagent launch result is settlement evidence.
    pub(super) fn tool_results<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(owner) = self.owner(cx, message) else {
            return;
        };
        let content = message.pointer("/message/content");
        if let Some(text) = content.and_then(J::as_str) {
            self.user_text(cx, &owner, message, text);
            return;
        }
        let blocks = content.and_then(J::items).unwrap_or_default();
        for block in blocks {
            if block.get("type").and_then(J::as_str) == Some("text")
                && let Some(text) = block.get("text").and_then(J::as_str)
            {
                self.user_text(cx, &owner, message, text);
                continue;
            }
            if block.get("type").and_then(J::as_str) != Some("tool_result") {
                continue;
            }
            let Some(id) = block.get("tool_use_id").and_then(J::as_str) else {
                continue;
            };
            let is_error = block.get("is_error").and_then(J::as_bool).unwrap_or(false);
            let child = SessionId::from(id);
            let launched = cx
                .snapshot()
                .session(&child)
                .and_then(|s| s.relation.as_ref())
                .is_some_and(|r| r.tool_call.as_ref().map(|c| c.as_str()) == Some(id));
            if launched {
                self.launch_result(cx, &owner, &child, message, block, is_error);
            } else {
                let status = if is_error {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Completed
                };
                cx.emit(Event::ToolCallCompleted {
                    session: owner.clone(),
                    call: id.into(),
                    status,
                });
            }
        }
    }

    /// Text of a CLI `user` message: a task notification the CLI delivered so, the CLI's
    /// interrupt record in the root, or a child's input (the delegated prompt or later
    /// input as the child's transcript sees it; root user text is the host's own
    /// submission, already recorded).
    fn user_text<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        owner: &SessionId,
        message: &J,
        text: &str,
    ) {
        let is_child = Some(owner) != self.root.as_ref();
        if self.task_notice(cx, text, is_child) {
            return;
        }
        if !is_child {
            self.interrupt_record(cx, text);
            return;
        }
        if interrupt_marker_after_cancel(cx, owner, text) {
            return;
        }
        cx.emit(Event::Message {
            session: owner.clone(),
            message: message.get("uuid").and_then(J::as_str).map(Into::into),
            role: Role::User,
            text: text.to_owned(),
        });
    }

    /// The launch tool's result: the launch call completes on the parent's turn; a
    /// foreground child settles from it, a background one waits for its notification.
    fn launch_result<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        parent: &SessionId,
        child: &SessionId,
        message: &J,
        block: &J,
        is_error: bool,
    ) {
        // Seed, *Session And Turn Semantics*: a permission callback's agentID "resolves …
        // to the already-recorded child session and turn": the launch result names it too.
        if let Some(agent) = message
            .pointer("/tool_use_result/agentId")
            .and_then(J::as_str)
            .filter(|a| !a.is_empty())
        {
            self.bind_alias(cx, child, "agent", agent);
        }
        let status = message
            .pointer("/tool_use_result/status")
            .and_then(J::as_str);
        // An older CLI gives no structured status: fall back to what the launch input or
        // `task_started` said about backgrounding.
        let background = matches!(status, Some("async_launched" | "remote_launched"))
            || (status.is_none() && self.background.contains(child));
        if background {
            self.background.insert(child.clone());
        }
        let interrupted = is_error && (mentions_interrupt(block) || user_rejected(message, child));
        cx.emit(Event::ToolCallCompleted {
            session: parent.clone(),
            call: child.as_str().into(),
            status: if interrupted {
                ToolStatus::Canceled
            } else if is_error {
                ToolStatus::Failed
            } else {
                ToolStatus::Completed
            },
        });
        if background && !is_error {
            return; // launch accepted; the task notification settles the child
        }
        if interrupted {
            // Cancellation fallout: evidence while the cancel is in flight, dropped after.
            self.stop_evidence(cx, child);
            return;
        }
        let outcome = if is_error {
            Outcome::Failed
        } else {
            Outcome::Completed
        };
        self.child_terminal(cx, child, outcome);
    }

    pub(super) fn stream_event<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        match message.get("parent_tool_use_id").and_then(J::as_str) {
            None => {
                self.root_output(cx, "stream event", true);
            }
            Some(child) => self.child_activity(cx, &SessionId::from(child)),
        }
    }
}

/// Root output of a continuation that came after the root turn settled: not attached to
/// that turn (a settled root turn never reopens), but what it says is reported, never
/// dropped in silence.
fn late_continuation<J: JsonRead>(cx: &mut Ctx<'_>, message: &J) {
    let said = text_of(message.pointer("/message/content"))
        .map(|t| {
            let mut cut: String = t.chars().take(200).collect();
            if cut.len() < t.len() {
                cut.push('…');
            }
            format!("«{cut}»")
        })
        .unwrap_or_else(|| "no text (tool use or thinking only)".into());
    cx.finding(
        Code::LateContinuation,
        format!(
            "the CLI's model turn answering a background child's task notification spoke after the root turn settled; not attached to it (a settled root turn never reopens), it said: {said}"
        ),
    );
}

/// The CLI's own "[Request interrupted by user]" line that a stopped child writes after
/// its `stop_task` completed, or after the root's model stopped it with its `TaskStop`
/// tool (real 2.1.328 and 2.1.332): cancellation fallout of a turn the cancel or the
/// provider's stop closed (settled `canceled`), not new child input, so it is not kept as
/// late history ("A provider terminal caused by cancel … is not historical progress").
fn interrupt_marker_after_cancel(cx: &Ctx<'_>, child: &SessionId, text: &str) -> bool {
    text.starts_with("[Request interrupted by user")
        && cx
            .snapshot()
            .session(child)
            .and_then(|s| s.last_turn())
            .is_some_and(|t| {
                !t.is_active() && (t.cancel.is_some() || t.outcome == Some(Outcome::Canceled))
            })
}

/// Did the CLI refuse to run (or finish) this tool use because the user stopped it? Real
/// 2.1.328 answers an interrupted launch with `tool_use_result: "User rejected tool use"`
/// and `tool_result_meta[{id, non_execution_kind: "user-rejected"}]`, after the task's
/// `stopped` notification: cancellation fallout, not a failure of the child.
fn user_rejected<J: JsonRead>(message: &J, tool_use: &SessionId) -> bool {
    let marked = message
        .get("tool_result_meta")
        .and_then(J::items)
        .is_some_and(|meta| {
            meta.iter().any(|m| {
                m.get("id").and_then(J::as_str) == Some(tool_use.as_str())
                    && m.get("non_execution_kind").and_then(J::as_str) == Some("user-rejected")
            })
        });
    marked || message.get("tool_use_result").and_then(J::as_str) == Some("User rejected tool use")
}

/// Does a tool result say the user interrupted it (`user_interrupt`, "interrupted")?
fn mentions_interrupt<J: JsonRead>(block: &J) -> bool {
    let text = match block.get("content") {
        Some(content) => content
            .as_str()
            .map_or_else(|| content.json_text(), str::to_owned),
        None => String::new(),
    };
    text.contains("user_interrupt")
        || text.contains("interrupted by user")
        || text.contains("Interrupted")
}
