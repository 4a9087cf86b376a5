//! A `thread/resume` response: the thread's earlier turns, folded as settled history.
//!
//! The app-server protocol v2 (openai/codex, `codex-rs/app-server-protocol/src/protocol/
//! v2/thread.rs`): the response is `ThreadResumeResponse { thread: Thread, … }`, and
//! `thread.turns` holds the thread's turns unless the request set `excludeTurns` ("When
//! true, return only thread metadata and live-resume state without populating
//! `thread.turns`"). Real 0.169 (`traces/real/codex/21-resume-history.jsonl`): each turn
//! is `{id, items, status, error, …}` and its items are those of the live wire: the
//! user's `userMessage`, `collabAgentToolCall` (a `spawnAgent` with `receiverThreadIds`,
//! a `wait` whose `agentsStates` says how each awaited child ended), `agentMessage` ….
//!
//! Each earlier turn becomes the root turn it was (the user's message opens it, its items
//! are its output, its spawns create their children, its status is its provider
//! terminal), so the turn the client starts next is the thread's next turn, as its
//! rollout says. A child's own thread is not in the response: the child's task (the
//! spawn's `prompt`) is its user message, and the first terminal state `agentsStates`
//! reports for it (with its final message) is its turn's terminal.

use crate::trace::borrowed::JsonRead;

use super::items::content_text;
use super::{CodexAdapter, receivers, turn_outcome};
use crate::ids::SessionId;
use crate::providers::Ctx;
use crate::tree::{Event, Outcome, Phase, Role};

impl CodexAdapter {
    /// The server answered a `thread/resume`: the thread is a root (unless a spawn edge
    /// made it a child); when it is new to this trace, its earlier turns are history.
    pub(super) fn resumed<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, message: &J) {
        let Some(thread) = message.pointer("/result/thread/id").and_then(J::as_str) else {
            return;
        };
        let id = SessionId::from(thread);
        let new = cx.snapshot().session(&id).is_none()
            && !self.foreign.contains(&id)
            && !self.spawned.contains_key(&id);
        self.identify_root(cx, thread);
        if !new || !self.roots.contains(&id) {
            return; // already in this trace (its turns with it), or not a tree shown here
        }
        let turns = message.pointer("/result/thread/turns").and_then(J::items);
        for turn in turns.into_iter().flatten() {
            self.history_turn(cx, &id, turn);
        }
    }

    /// One earlier turn of a resumed root thread.
    fn history_turn<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, root: &SessionId, turn: &J) {
        let items = turn.get("items").and_then(J::items).unwrap_or_default();
        let text = items
            .iter()
            .filter(|i| i.get("type").and_then(J::as_str) == Some("userMessage"))
            .find_map(content_text);
        cx.emit(Event::UserSubmitted {
            session: root.clone(),
            message: None,
            text,
        });
        let provider_turn = turn.get("id").and_then(J::as_str).map(String::from);
        cx.emit(Event::RootProviderTurnStarted {
            session: root.clone(),
            provider_turn: provider_turn.clone(),
        });
        for item in items {
            self.item(cx, root, Some(item), true);
            self.history_children(cx, item);
        }
        let status = turn.get("status").and_then(J::as_str);
        // `inProgress`: the turn still runs, and its live records follow.
        if let Some(outcome) = turn_outcome(status) {
            cx.emit(Event::RootProviderTurnCompleted {
                session: root.clone(),
                provider_turn,
                outcome,
                error: turn
                    .pointer("/error/message")
                    .and_then(J::as_str)
                    .map(String::from),
            });
        }
    }

    /// What a history item says of children: a spawn gives each new child its task as
    /// its user message; `agentsStates` settles a child's turn at its first terminal state.
    fn history_children<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, item: &J) {
        if item.get("type").and_then(J::as_str) != Some("collabAgentToolCall") {
            return;
        }
        let spawn = item.get("tool").and_then(J::as_str) == Some("spawnAgent");
        if spawn && let Some(prompt) = item.get("prompt").and_then(J::as_str) {
            for child in receivers(item) {
                let id = SessionId::from(child);
                if phase(cx, &id) == Some(Phase::Submitted) {
                    cx.emit(Event::Message {
                        session: id,
                        message: None,
                        role: Role::User,
                        text: prompt.to_owned(),
                    });
                }
            }
        }
        let states = item.get("agentsStates").and_then(J::members);
        for (child, state) in states.into_iter().flatten() {
            let id = SessionId::from(child);
            let Some(phase) = phase(cx, &id) else {
                continue; // no such child here, or its turn already ended
            };
            let status = state.get("status").and_then(J::as_str);
            let Some(outcome) = agent_outcome(status) else {
                continue;
            };
            if phase == Phase::Submitted {
                cx.emit(Event::ChildTurnStarted {
                    session: id.clone(),
                });
            }
            if let Some(text) = state.get("message").and_then(J::as_str) {
                cx.emit(Event::Message {
                    session: id.clone(),
                    message: None,
                    role: Role::Assistant,
                    text: text.to_owned(),
                });
            }
            cx.emit(Event::ChildTurnCompleted {
                session: id,
                outcome,
                error: None,
            });
        }
    }
}

/// A child's `agentsStates` status → its turn's outcome, when it is a terminal one
/// (`pendingInit`, `running`, `shutdown` and `notFound` say nothing about how it ended).
fn agent_outcome(status: Option<&str>) -> Option<Outcome> {
    match status? {
        "completed" => Some(Outcome::Completed),
        "errored" => Some(Outcome::Failed),
        "interrupted" => Some(Outcome::Interrupted),
        _ => None,
    }
}

/// The phase of `child`'s active turn, if it has one.
fn phase(cx: &Ctx<'_>, child: &SessionId) -> Option<Phase> {
    cx.snapshot()
        .session(child)
        .and_then(|s| s.active_turn().map(|t| t.phase))
}
