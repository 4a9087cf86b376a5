//! The SDK task system: `task_started` / `task_progress` / `task_notification`, aliases,
//! and child terminals.
//!
//! Seed: "taskId and agentId are aliases. They must bind back to the existing child
//! session/turn, never to 'the only running task'." "SDK task-system work that has no
//! subagent identity — most importantly a run_in_background Bash shell — is tracked
//! separately from delegated child work … its lifetime does not create a child session,
//! gate the root turn, count in the final-child continuation gate." "A terminal
//! task_notification for a task the current sidecar instance never saw start may
//! recreate delegated state only when the message carries explicit subagent identity."

use serde_json::Value;

use super::ClaudeAdapter;
use crate::ids::{Alias, SessionId};
use crate::providers::Sink;
use crate::tree::{Event, Millis, Outcome, Severity};

impl ClaudeAdapter {
    /// The child a task event names: by `tool_use_id` (the child's own id) or by its
    /// bound task id. `None` for task-system work and unknown tasks.
    fn task_child(&self, message: &Value, sink: &Sink<'_>) -> Option<SessionId> {
        let snapshot = sink.snapshot();
        if let Some(tool_use) = message.get("tool_use_id").and_then(Value::as_str) {
            let id = SessionId::from(tool_use);
            if snapshot.session(&id).is_some_and(|s| s.relation.is_some()) {
                return Some(id);
            }
        }
        let task = message.get("task_id").and_then(Value::as_str)?;
        snapshot.resolve_alias(&Alias::new("task", task)).cloned()
    }

    /// Binds a provider alias to a child (idempotent), then applies permission requests
    /// that were waiting for this agent id.
    pub(super) fn bind_alias(
        &mut self,
        line: usize,
        at: Option<Millis>,
        child: &SessionId,
        kind: &str,
        id: &str,
        sink: &mut Sink<'_>,
    ) {
        let alias = Alias::new(kind, id);
        if sink.snapshot().resolve_alias(&alias) != Some(child) {
            sink.emit(
                line,
                at,
                Event::AliasBound {
                    session: child.clone(),
                    alias,
                },
            );
        }
        if kind == "agent" {
            self.release_permissions(id, sink);
        }
    }

    pub(super) fn task_started(
        &mut self,
        line: usize,
        at: Option<Millis>,
        message: &Value,
        sink: &mut Sink<'_>,
    ) {
        let Some(task) = message.get("task_id").and_then(Value::as_str) else {
            return;
        };
        let task_type = message.get("task_type").and_then(Value::as_str);
        let child = match self.task_child(message, sink) {
            Some(child) => child,
            None if task_type == Some("local_agent") => {
                match self.recreate_child(line, at, message, sink) {
                    Some(child) => child,
                    None => return,
                }
            }
            None => {
                // A background Bash, workflow or MCP task: tracked for stop routing only.
                self.system_tasks.insert(task.to_owned());
                return;
            }
        };
        self.bind_alias(line, at, &child, "task", task, sink);
        // Newer CLIs use the task id as the permission callback's agent id.
        self.bind_alias(line, at, &child, "agent", task, sink);
        if message.get("is_backgrounded").and_then(Value::as_bool) == Some(true) {
            self.background.insert(child.clone());
        }
        // A more specific description updates the title; it never creates another child.
        if let Some(description) = message.get("description").and_then(Value::as_str)
            && !description.is_empty()
            && sink
                .snapshot()
                .session(&child)
                .and_then(|s| s.title.as_deref())
                != Some(description)
        {
            sink.emit(
                line,
                at,
                Event::SessionTitled {
                    session: child.clone(),
                    title: Some(description.to_owned()),
                },
            );
        }
        self.child_activity(line, at, &child, sink);
    }

    /// A `local_agent` task whose launching tool use this trace never showed: recreated
    /// from its explicit identity (its `tool_use_id`), under the task that launched it or
    /// the root. Without a tool use id there is no identity to recreate.
    fn recreate_child(
        &mut self,
        line: usize,
        at: Option<Millis>,
        message: &Value,
        sink: &mut Sink<'_>,
    ) -> Option<SessionId> {
        let tool_use = message.get("tool_use_id").and_then(Value::as_str)?;
        let parent = match message.get("parent_task_id").and_then(Value::as_str) {
            Some(parent_task) => sink
                .snapshot()
                .resolve_alias(&Alias::new("task", parent_task))
                .cloned()?,
            None => self.root.clone()?,
        };
        let child = SessionId::from(tool_use);
        sink.emit(
            line,
            at,
            Event::ChildSpawned {
                session: child.clone(),
                parent_session: parent,
                parent_turn: None,
                tool_call: Some(tool_use.into()),
                title: message
                    .get("description")
                    .and_then(Value::as_str)
                    .map(String::from),
                aliases: vec![Alias::new("tool_use", tool_use)],
            },
        );
        sink.snapshot().session(&child).map(|_| child)
    }

    pub(super) fn task_progress(
        &mut self,
        line: usize,
        at: Option<Millis>,
        message: &Value,
        sink: &mut Sink<'_>,
    ) {
        let Some(child) = self.task_child(message, sink) else {
            return; // task-system progress is not child activity
        };
        let ended = sink
            .snapshot()
            .session(&child)
            .is_some_and(|s| s.active_turn().is_none());
        if ended {
            sink.finding(
                line,
                "stale-task-event",
                Severity::Note,
                format!("task_progress for `{child}` after its terminal does not revive it"),
            );
            return;
        }
        self.child_activity(line, at, &child, sink);
    }

    pub(super) fn task_notification(
        &mut self,
        line: usize,
        at: Option<Millis>,
        message: &Value,
        sink: &mut Sink<'_>,
    ) {
        let task = message
            .get("task_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(child) = self.task_child(message, sink) else {
            if !self.system_tasks.contains(task) {
                sink.finding(
                    line,
                    "unknown-task",
                    Severity::Note,
                    format!(
                        "task_notification for task `{task}` with no subagent identity; no child is invented"
                    ),
                );
            }
            return;
        };
        match message.get("status").and_then(Value::as_str) {
            Some("completed") => {
                self.background_terminal(line, at, &child, Outcome::Completed, sink)
            }
            Some("failed") => self.background_terminal(line, at, &child, Outcome::Failed, sink),
            Some("stopped") => self.stop_evidence(line, at, &child, sink),
            other => sink.finding(
                line,
                "unexpected-record",
                Severity::Warning,
                format!("task_notification status {other:?} is not a terminal; ignored"),
            ),
        }
    }

    /// A background child's completion: the continuation guard reserves the root's next
    /// provider turn first when this is the last active child.
    fn background_terminal(
        &mut self,
        line: usize,
        at: Option<Millis>,
        child: &SessionId,
        outcome: Outcome,
        sink: &mut Sink<'_>,
    ) {
        self.reserve_continuation(line, at, child, sink);
        self.child_terminal(line, at, child, outcome, sink);
    }

    /// `stopped` evidence: acknowledges a cancel in flight; after the target closed it is
    /// fallout and is dropped; without any cancel it is the provider's own stop.
    pub(super) fn stop_evidence(
        &mut self,
        line: usize,
        at: Option<Millis>,
        child: &SessionId,
        sink: &mut Sink<'_>,
    ) {
        for op in self.cancels.values_mut() {
            op.saw_stop(child);
        }
        let turn = sink
            .snapshot()
            .session(child)
            .and_then(|s| s.last_turn())
            .cloned();
        match turn {
            Some(t) if t.is_active() && t.cancel.is_some() => {
                sink.emit(
                    line,
                    at,
                    Event::CancelAcknowledged {
                        session: child.clone(),
                    },
                );
            }
            Some(t) if !t.is_active() && t.cancel.is_some() => sink.finding(
                line,
                "cancel-fallout",
                Severity::Note,
                format!(
                    "stop of `{child}` after its cancel closed it is cancellation fallout; dropped"
                ),
            ),
            Some(t) if t.is_active() => {
                sink.emit(
                    line,
                    at,
                    Event::ChildTurnCompleted {
                        session: child.clone(),
                        outcome: Outcome::Canceled,
                        error: None,
                    },
                );
            }
            _ => {} // already ended: a stop of finished work changes nothing
        }
    }

    /// A child terminal. Fallout for a closed cancel target is dropped; the same outcome
    /// reported twice (launch result, then notification) is one terminal.
    pub(super) fn child_terminal(
        &mut self,
        line: usize,
        at: Option<Millis>,
        child: &SessionId,
        outcome: Outcome,
        sink: &mut Sink<'_>,
    ) {
        if let Some(last) = sink.snapshot().session(child).and_then(|s| s.last_turn()) {
            if !last.is_active() && last.cancel.is_some() {
                sink.finding(
                    line,
                    "cancel-fallout",
                    Severity::Note,
                    format!("terminal `{outcome}` for `{child}` after its cancel closed it is cancellation fallout; dropped"),
                );
                return;
            }
            if last.outcome == Some(outcome) {
                return;
            }
        }
        sink.emit(
            line,
            at,
            Event::ChildTurnCompleted {
                session: child.clone(),
                outcome,
                error: None,
            },
        );
    }

    /// Activity of a child whose turn is still `submitted` shows that it runs. Never
    /// opens a new turn: only a settled child's new delegation could.
    pub(super) fn child_activity(
        &mut self,
        line: usize,
        at: Option<Millis>,
        child: &SessionId,
        sink: &mut Sink<'_>,
    ) {
        let submitted = sink
            .snapshot()
            .session(child)
            .and_then(|s| s.active_turn())
            .is_some_and(|t| !t.started);
        if submitted {
            sink.emit(
                line,
                at,
                Event::ChildTurnStarted {
                    session: child.clone(),
                },
            );
        }
    }
}
