//! Thread items: spawn edges (both shapes), agent messages, tool calls.
//!
//! Seed, *Codex App-Server Mapping*: "Either spawn representation creates the normalized
//! parent delegation call, one subordinate WorkspaceAgentSession per child thread id, and
//! a submitted child turn owned by that session. If app-server reports the same edge more
//! than once, registration and normalized events remain idempotent." "A subAgentActivity
//! started item means the provider accepted the spawn, so its normalized parent
//! delegation call is completed."

use crate::trace::borrowed::JsonRead;

use super::{CodexAdapter, receivers};
use crate::ids::{Alias, SessionId};
use crate::providers::Ctx;
use crate::tree::{Event, Role, ToolStatus};

impl CodexAdapter {
    pub(super) fn item<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: &SessionId,
        item: Option<&J>,
        completed: bool,
    ) {
        let Some(item) = item else {
            return;
        };
        let kind = item.get("type").and_then(J::as_str).unwrap_or_default();
        let Some(id) = item.get("id").and_then(J::as_str) else {
            return;
        };
        match kind {
            "collabAgentToolCall" => self.collab_item(cx, thread, id, item, completed),
            "subAgentActivity" => self.activity_item(cx, thread, id, item),
            "agentMessage" if completed => {
                if self.streamed.remove(&(thread.clone(), id.to_owned())) {
                    return; // its text already arrived as deltas
                }
                let text = item.get("text").and_then(J::as_str).unwrap_or_default();
                cx.emit(Event::Message {
                    session: thread.clone(),
                    message: Some(id.into()),
                    role: Role::Assistant,
                    text: text.to_owned(),
                });
            }
            "commandExecution" | "fileChange" | "mcpToolCall" | "dynamicToolCall" | "webSearch"
            | "imageView" | "imageGeneration" => {
                let name = item.get("tool").and_then(J::as_str).unwrap_or(kind);
                let status = item.get("status").and_then(J::as_str);
                self.tool(
                    cx,
                    thread,
                    id,
                    Some(name),
                    completed.then(|| tool_status(status)),
                );
            }
            // A child's task (and each later follow-up) reaches its thread only as a
            // `userMessage` item; on the root it repeats the client's `turn/start` /
            // `turn/steer` input, which is already the user's submission.
            "userMessage" if completed && !self.roots.contains(thread) => {
                if let Some(text) = content_text(item) {
                    cx.emit(Event::Message {
                        session: thread.clone(),
                        message: Some(id.into()),
                        role: Role::User,
                        text,
                    });
                }
            }
            // Reasoning, plans, review markers and compaction carry no session-tree fact.
            _ => {}
        }
    }

    /// A v1 `collabAgentToolCall` (spawn, wait, send input, close …): a tool call, and for
    /// a spawn that did not fail, one edge per receiver thread.
    fn collab_item<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: &SessionId,
        id: &str,
        item: &J,
        completed: bool,
    ) {
        let tool = item.get("tool").and_then(J::as_str).unwrap_or_default();
        let status = item.get("status").and_then(J::as_str);
        self.tool(
            cx,
            thread,
            id,
            Some(tool),
            completed.then(|| tool_status(status)),
        );
        if tool == "spawnAgent" && status != Some("failed") {
            // v1 has no nickname on this wire: the task prompt labels the child.
            let title = item.get("prompt").and_then(J::as_str).and_then(label);
            for child in receivers(item) {
                self.spawn(cx, thread, child, id, title.clone());
            }
        }
    }

    /// A v2 `subAgentActivity`: `started` is a spawn edge whose delegation call is
    /// completed at once; `interacted` / `interrupted` / `completed` activity is
    /// informational (the child thread's own turn events are authoritative).
    fn activity_item<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: &SessionId,
        id: &str,
        item: &J,
    ) {
        let activity = item.get("kind").and_then(J::as_str);
        let child = item.get("agentThreadId").and_then(J::as_str);
        if let (Some("started"), Some(child)) = (activity, child) {
            // `agentPath` (`/root/<task>`) is the child's only label on this wire.
            let title = item.get("agentPath").and_then(J::as_str).map(String::from);
            self.tool(cx, thread, id, Some("spawnAgent"), None);
            self.spawn(cx, thread, child, id, title);
            self.tool(cx, thread, id, None, Some(ToolStatus::Completed));
        }
    }

    /// A tool call on `thread`'s current turn: started (when `name` is given) and/or ended.
    fn tool(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: &SessionId,
        call: &str,
        name: Option<&str>,
        ended: Option<ToolStatus>,
    ) {
        let key = (thread.clone(), call.to_owned());
        if ended.is_some() {
            self.open_items.remove(&key);
        } else if name.is_some() {
            self.open_items.insert(key);
        }
        if let Some(name) = name {
            cx.emit(Event::ToolCallStarted {
                session: thread.clone(),
                call: call.into(),
                name: Some(name.to_owned()),
                title: None,
            });
        }
        if let Some(status) = ended {
            cx.emit(Event::ToolCallCompleted {
                session: thread.clone(),
                call: call.into(),
                status,
            });
        }
    }

    /// Registers a spawn edge; once the reducer has created the child, the records held
    /// for its thread are released, in their original order. The same edge reported
    /// again (v2 sends one `subAgentActivity` as both `item/started` and
    /// `item/completed`) is the same registration and emits nothing (seed: "registration
    /// and normalized events remain idempotent").
    fn spawn(
        &mut self,
        cx: &mut Ctx<'_>,
        parent: &SessionId,
        child: &str,
        call: &str,
        title: Option<String>,
    ) {
        let child = SessionId::from(child);
        let edge = (parent.clone(), call.to_owned());
        if self.spawned.get(&child) == Some(&edge) {
            return;
        }
        self.spawned.insert(child.clone(), edge);
        let step = cx.emit(Event::ChildSpawned {
            session: child.clone(),
            parent_session: parent.clone(),
            parent_turn: None,
            tool_call: Some(call.into()),
            title,
            aliases: vec![Alias::new("thread", child.as_str())],
        });
        if step.created(&child) {
            self.release(&child);
        }
    }
}

/// An item status → tool status (`declined` means the tool never ran).
fn tool_status(status: Option<&str>) -> ToolStatus {
    match status {
        Some("failed") => ToolStatus::Failed,
        Some("declined") => ToolStatus::Canceled,
        _ => ToolStatus::Completed,
    }
}

/// A child's label from its task prompt: the first non-blank line, at most 80 characters.
fn label(prompt: &str) -> Option<String> {
    const MAX: usize = 80;
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    if line.chars().count() <= MAX {
        return Some(line.to_owned());
    }
    let mut short: String = line.chars().take(MAX - 1).collect();
    short.push('…');
    Some(short)
}

/// The text parts of an item's `content` (a `userMessage`; a rollout's items too), joined.
pub(crate) fn content_text<J: JsonRead>(item: &J) -> Option<String> {
    let parts: Vec<&str> = item
        .get("content")?
        .items()?
        .iter()
        .filter_map(|c| c.get("text").and_then(J::as_str))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}
