//! Token counts → `usage_reported`.
//!
//! The rule (docs/otel.md says the same):
//! - a **root turn** counts the `usage` of every root `result` from the user's
//!   submission that opened it to the next one, including the `result` of a follow-up
//!   whose output came after the turn settled and was dropped (the calls were made). Each `result`
//!   covers the root agent's own model calls since the one before (a follow-up answering a
//!   task notification has its own `result`, of the same root turn); a subagent's calls
//!   are never in it. The root's `assistant` lines are not counted: the `result` covers
//!   their calls, with the final output count;
//! - a **child turn** counts its own model calls: the `message.usage` of the child's
//!   `assistant` lines (`parent_tool_use_id` names the child), once per message id (the
//!   CLI writes one line per content block, each with the message's usage). Only the
//!   input figures are taken: a line is written before its message ends, so its
//!   `output_tokens` is not the final count. A foreground child's lines are not streamed
//!   at all, so its turn has no figures.
//!
//! Anthropic's `input_tokens` leaves out the cache's tokens; the canonical input figure
//! includes them (`input_tokens + cache_read_input_tokens + cache_creation_input_tokens`).

use crate::trace::borrowed::JsonRead;

use super::ClaudeAdapter;
use crate::ids::SessionId;
use crate::providers::Ctx;
use crate::tree::{Event, Usage};

impl ClaudeAdapter {
    /// A root `result`'s usage, added to the root's last turn (the one it ends, or the
    /// settled one a cancel or a dropped follow-up came after).
    pub(super) fn result_usage<J: JsonRead>(&self, cx: &mut Ctx<'_>, message: &J) {
        let Some(usage) = message.get("usage").map(|u| anthropic_usage(u, true)) else {
            return;
        };
        if let Some(root) = &self.root {
            add_to_last_turn(cx, root, usage);
        }
    }

    /// A child's `assistant` line: its message's input figures, added to the child's
    /// last turn the first time the message id is seen in a row.
    pub(super) fn child_usage<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        child: &SessionId,
        message: &J,
    ) {
        let Some(usage) = message
            .pointer("/message/usage")
            .map(|u| anthropic_usage(u, false))
        else {
            return;
        };
        let id = message.pointer("/message/id").and_then(J::as_str);
        if let Some(id) = id {
            if self.counted.get(child).is_some_and(|last| last == id) {
                return; // another content block of a message already counted
            }
            self.counted.insert(child.clone(), id.to_owned());
        }
        add_to_last_turn(cx, child, usage);
    }
}

/// Reports `session`'s last turn with `usage` added to the figures it holds (a session
/// without turns counts nothing).
fn add_to_last_turn(cx: &mut Ctx<'_>, session: &SessionId, usage: Usage) {
    let Some(turn) = cx.snapshot().session(session).and_then(|s| s.last_turn()) else {
        return;
    };
    let total = turn
        .usage
        .as_deref()
        .map_or(usage, |held| held.plus(&usage));
    let id = turn.id.clone();
    cx.emit(Event::usage_reported(id, total));
}

/// An Anthropic `usage` object as canonical figures; `output` takes the output counts
/// (a `result`'s are final, an `assistant` line's are not).
pub(super) fn anthropic_usage<J: JsonRead>(v: &J, output: bool) -> Usage {
    let n = |key: &str| v.get(key).and_then(J::as_u64);
    let (uncached, read, created) = (
        n("input_tokens"),
        n("cache_read_input_tokens"),
        n("cache_creation_input_tokens"),
    );
    let input = match (uncached, read, created) {
        (None, None, None) => None,
        (a, b, c) => Some(
            a.unwrap_or(0)
                .saturating_add(b.unwrap_or(0))
                .saturating_add(c.unwrap_or(0)),
        ),
    };
    Usage {
        input_tokens: input,
        output_tokens: n("output_tokens").filter(|_| output),
        cache_read_input_tokens: read,
        cache_creation_input_tokens: created,
        reasoning_output_tokens: v
            .pointer("/output_tokens_details/thinking_tokens")
            .and_then(J::as_u64)
            .filter(|_| output),
    }
}
