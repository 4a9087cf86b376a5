//! The SDK task system: `task_started` / `task_progress` / `task_updated` /
//! `task_notification` (also as a `<task-notification>` user message), aliases, and child
//! terminals.
//!
//! Seed: "taskId and agentId are aliases. They must bind back to the existing child
//! session/turn, never to 'the only running task'." "SDK task-system work that has no
//! subagent identity — most importantly a run_in_background Bash shell — is tracked
//! separately from delegated child work … its lifetime does not create a child session,
//! gate the root turn, count in the final-child continuation gate." "A terminal
//! task_notification for a task the current sidecar instance never saw start may
//! recreate delegated state only when the message carries explicit subagent identity."

use serde_json::Value;

use crate::trace::borrowed::JsonRead;

use super::ClaudeAdapter;
use crate::finding::Code;
use crate::ids::{Alias, SessionId};
use crate::providers::Ctx;
use crate::tree::{Event, Outcome};

impl ClaudeAdapter {
    /// The child a task event names: by `tool_use_id` (the child's own id) or by its
    /// bound task id. `None` for task-system work and unknown tasks.
    fn task_child<J: JsonRead>(&self, cx: &Ctx<'_>, message: &J) -> Option<SessionId> {
        let snapshot = cx.snapshot();
        if let Some(tool_use) = message.get("tool_use_id").and_then(J::as_str) {
            let id = SessionId::from(tool_use);
            if snapshot.session(&id).is_some_and(|s| s.relation.is_some()) {
                return Some(id);
            }
        }
        let task = message.get("task_id").and_then(J::as_str)?;
        snapshot.resolve_alias(&Alias::new("task", task)).cloned()
    }

    /// Binds a provider alias to a child (idempotent), then applies permission requests
    /// that were waiting for this agent id.
    pub(super) fn bind_alias(&mut self, cx: &mut Ctx<'_>, child: &SessionId, kind: &str, id: &str) {
        let alias = Alias::new(kind, id);
        if cx.snapshot().resolve_alias(&alias) != Some(child) {
            cx.emit(Event::AliasBound {
                session: child.clone(),
                alias,
            });
        }
        if kind == "agent" {
            self.release_permissions(id);
        }
    }

    pub(super) fn task_started<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(task) = message.get("task_id").and_then(J::as_str) else {
            return;
        };
        let task_type = message.get("task_type").and_then(J::as_str);
        let child = match self.task_child(cx, message) {
            Some(child) => child,
            None if task_type == Some("local_agent") => match self.recreate_child(cx, message) {
                Some(child) => child,
                None => {
                    // Without a tool use id there is no subagent identity: task-system work,
                    // tracked silently ("tracked separately from delegated child work").
                    if message.get("tool_use_id").is_none() {
                        self.system_tasks.insert(task.to_owned());
                    }
                    return;
                }
            },
            None => {
                // A background Bash, workflow or MCP task: tracked for stop routing only.
                self.system_tasks.insert(task.to_owned());
                return;
            }
        };
        self.bind_alias(cx, &child, "task", task);
        // Newer CLIs use the task id as the permission callback's agent id.
        self.bind_alias(cx, &child, "agent", task);
        if self.is_continuation(cx, &child, message) {
            // `SendMessage` to a finished agent (real 2.1.328): the same task starts again
            // under the continuing tool use: the child's next turn (seed: "Later guidance
            // may create more turns inside that same child session").
            cx.emit(Event::ChildTurnStarted {
                session: child.clone(),
            });
        }
        if message.get("is_backgrounded").and_then(J::as_bool) == Some(true) {
            self.background.insert(child.clone());
        }
        // A more specific description updates the title; it never creates another child.
        if let Some(description) = message.get("description").and_then(J::as_str)
            && !description.is_empty()
            && cx
                .snapshot()
                .session(&child)
                .and_then(|s| s.title.as_deref())
                != Some(description)
        {
            cx.emit(Event::SessionTitled {
                session: child.clone(),
                title: Some(description.to_owned()),
            });
        }
        self.child_activity(cx, &child);
    }

    /// Does this `task_started` continue a child whose last turn ended, under another
    /// tool use than the one that launched it?
    fn is_continuation<J: JsonRead>(&self, cx: &Ctx<'_>, child: &SessionId, message: &J) -> bool {
        let other_tool_use = message
            .get("tool_use_id")
            .and_then(J::as_str)
            .is_some_and(|t| t != child.as_str());
        other_tool_use
            && cx
                .snapshot()
                .session(child)
                .and_then(|s| s.last_turn())
                .is_some_and(|t| !t.is_active())
    }

    /// A `local_agent` task whose launching tool use this trace never showed: recreated
    /// from its explicit identity (its `tool_use_id`), under the task that launched it or
    /// the root. Without a tool use id there is no identity to recreate.
    fn recreate_child<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) -> Option<SessionId> {
        let tool_use = message.get("tool_use_id").and_then(J::as_str)?;
        let parent = match message.get("parent_task_id").and_then(J::as_str) {
            Some(parent_task) => cx
                .snapshot()
                .resolve_alias(&Alias::new("task", parent_task))
                .cloned()?,
            None => self.root.clone()?,
        };
        let child = SessionId::from(tool_use);
        let step = cx.emit(Event::ChildSpawned {
            session: child.clone(),
            parent_session: parent,
            parent_turn: None,
            tool_call: Some(tool_use.into()),
            title: message
                .get("description")
                .and_then(J::as_str)
                .map(String::from),
            aliases: vec![Alias::new("tool_use", tool_use)],
        });
        (!step.rejected()).then_some(child) // created, or already there (a note)
    }

    pub(super) fn task_progress<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(child) = self.task_child(cx, message) else {
            return; // task-system progress is not child activity
        };
        let ended = cx
            .snapshot()
            .session(&child)
            .is_some_and(|s| s.active_turn().is_none());
        if ended {
            cx.finding(
                Code::StaleTaskEvent,
                format!("task_progress for `{child}` after its terminal does not revive it"),
            );
            return;
        }
        self.child_activity(cx, &child);
    }

    pub(super) fn task_notification<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        // The CLI answers every task notification that reaches the root with a model turn
        // of its own (real 2.1.328: after a background agent finished or was stopped, after
        // a background Bash exited). When the root turn is still active that turn joins it;
        // when the root turn has settled meanwhile, its output belongs to no turn.
        self.expect_follow_up(cx, message);
        self.task_terminal(cx, message);
    }

    /// A task's end reached the root: the CLI will answer it with a model turn, unless the
    /// task is a foreground child (its end reaches the live turn as the launch's tool
    /// result; real 2.1.328 runs no follow-up for it). A background child's completion
    /// or failure makes that follow-up a continuation of the root turn (seed, *Claude
    /// Code SDK Mapping*: "A continuation caused by a child task notification is another
    /// root provider turn attached to the same canonical root WorkspaceAgentTurn").
    fn expect_follow_up<J: JsonRead>(&mut self, cx: &Ctx<'_>, message: &J) {
        let child = self.task_child(cx, message);
        if child.as_ref().is_some_and(|c| !self.background.contains(c)) {
            return;
        }
        self.follow_up_due = true;
        let status = message
            .get("status")
            .and_then(J::as_str)
            .or_else(|| message.pointer("/patch/status").and_then(J::as_str));
        if child.is_some() && matches!(status, Some("completed" | "failed")) {
            self.continuation_due = true;
        }
    }

    /// A `<task-notification>` the CLI delivered as a user message (to the agent that
    /// launched the task: a nested child's reaches its parent child this way). Seed,
    /// *Claude Code SDK Mapping*: "Completion comes from child result, task notification,
    /// or SDK completion hooks." Returns whether `text` was one.
    pub(super) fn task_notice(&mut self, cx: &mut Ctx<'_>, text: &str, in_child: bool) -> bool {
        let text = text.trim_start();
        if !text.starts_with("<task-notification>") {
            return false;
        }
        let status = match tag(text, "status") {
            Some("killed") => "stopped",
            other => other.unwrap_or_default(),
        };
        let mut notice = serde_json::Map::new();
        notice.insert(
            "task_id".into(),
            tag(text, "task-id").unwrap_or_default().into(),
        );
        notice.insert("status".into(), status.into());
        if let Some(tool_use) = tag(text, "tool-use-id") {
            notice.insert("tool_use_id".into(), tool_use.into());
        }
        let notice = Value::Object(notice);
        if !in_child {
            self.expect_follow_up(cx, &notice); // the root model answers it
        }
        self.task_terminal(cx, &notice);
        true
    }

    /// A task's terminal report (a notification, or a terminal `task_updated` patch).
    fn task_terminal<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let task = message
            .get("task_id")
            .and_then(J::as_str)
            .unwrap_or_default();
        let Some(child) = self.task_child(cx, message) else {
            if !self.system_tasks.contains(task) {
                cx.finding(Code::UnknownTask, format!(
                        "task_notification for task `{task}` with no subagent identity; no child is invented"
                    ),);
            }
            return;
        };
        match message.get("status").and_then(J::as_str) {
            Some("completed") => self.background_terminal(cx, &child, Outcome::Completed),
            Some("failed") => self.background_terminal(cx, &child, Outcome::Failed),
            Some("stopped") => self.stop_evidence(cx, &child),
            other => cx.finding(
                Code::UnexpectedRecord,
                format!("task_notification status {other:?} is not a terminal; ignored"),
            ),
        }
    }

    /// `task_updated`: a `patch.status` of `completed`, `failed` or `killed` is the task's
    /// terminal (in some kill paths the only one; a later notification of the same
    /// outcome adds nothing). Seed, *Claude Code SDK Mapping*: "Completion comes from
    /// child result, task notification, or SDK completion hooks"; a `killed` one is a
    /// stop ("A stopped task terminal is the exception").
    pub(super) fn task_updated<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let status = match message.pointer("/patch/status").and_then(J::as_str) {
            Some("killed") => "stopped",
            Some(status @ ("completed" | "failed")) => status,
            _ => return, // pending, running, paused, or no status: no terminal
        };
        let Some(child) = self.task_child(cx, message) else {
            return; // task-system work, or a task no child is bound to: no tree fact
        };
        // The CLI answers a task's end with a model turn of its own, as for a notification.
        self.expect_follow_up(cx, message);
        match status {
            "completed" => self.background_terminal(cx, &child, Outcome::Completed),
            "failed" => self.background_terminal(cx, &child, Outcome::Failed),
            _ => self.stop_evidence(cx, &child),
        }
    }

    /// A background child's completion: the continuation guard reserves the root's next
    /// provider turn first when this is the last active child.
    fn background_terminal(&mut self, cx: &mut Ctx<'_>, child: &SessionId, outcome: Outcome) {
        self.reserve_continuation(cx, child);
        self.child_terminal(cx, child, outcome);
    }

    /// `stopped` evidence: acknowledges a cancel in flight; after the target closed it is
    /// fallout and is dropped; without any cancel it is the provider's own stop.
    pub(super) fn stop_evidence(&mut self, cx: &mut Ctx<'_>, child: &SessionId) {
        for op in self.cancels.values_mut() {
            op.saw_stop(child);
        }
        let turn = cx
            .snapshot()
            .session(child)
            .and_then(|s| s.last_turn())
            .cloned();
        match turn {
            Some(t) if t.is_active() && t.cancel.is_some() => {
                cx.emit(Event::CancelAcknowledged {
                    session: child.clone(),
                });
            }
            // The stop was confirmed and the child settled canceled: a later stop report
            // (real 2.1.328 sends the stopped launch's `tool_result` after the stop_task
            // completed) says nothing new.
            Some(t)
                if !t.is_active() && t.cancel.is_some() && t.outcome == Some(Outcome::Canceled) => {
            }
            Some(t) if !t.is_active() && t.cancel.is_some() => cx.finding(
                Code::CancelFallout,
                format!(
                    "stop of `{child}` after its cancel closed it is cancellation fallout; dropped"
                ),
            ),
            Some(t) if t.is_active() => {
                cx.emit(Event::ChildTurnCompleted {
                    session: child.clone(),
                    outcome: Outcome::Canceled,
                    error: None,
                });
            }
            _ => {} // already ended: a stop of finished work changes nothing
        }
    }

    /// A child terminal. Fallout for a closed cancel target is dropped; the same outcome
    /// reported twice (launch result, then notification) is one terminal.
    pub(super) fn child_terminal(&mut self, cx: &mut Ctx<'_>, child: &SessionId, outcome: Outcome) {
        if let Some(last) = cx.snapshot().session(child).and_then(|s| s.last_turn()) {
            if !last.is_active() && last.cancel.is_some() {
                cx.finding(Code::CancelFallout, format!("terminal `{outcome}` for `{child}` after its cancel closed it is cancellation fallout; dropped"),);
                return;
            }
            if last.outcome == Some(outcome) {
                return;
            }
        }
        cx.emit(Event::ChildTurnCompleted {
            session: child.clone(),
            outcome,
            error: None,
        });
    }

    /// Activity of a child whose turn is still `submitted` shows that it runs. Never
    /// opens a new turn: only a settled child's new delegation could.
    pub(super) fn child_activity(&mut self, cx: &mut Ctx<'_>, child: &SessionId) {
        let submitted = cx
            .snapshot()
            .session(child)
            .and_then(|s| s.active_turn())
            .is_some_and(|t| !t.started);
        if submitted {
            cx.emit(Event::ChildTurnStarted {
                session: child.clone(),
            });
        }
    }
}

/// The text inside `<name>…</name>` of a `<task-notification>`.
fn tag<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)?.checked_add(open.len())?;
    let rest = text.get(start..)?;
    let end = rest.find(&close)?;
    rest.get(..end).map(str::trim)
}
