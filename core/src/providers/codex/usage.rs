//! `thread/tokenUsage/updated` → `usage_reported`.
//!
//! Codex reports a thread's counts after its model calls: `tokenUsage.total` is the
//! thread's running total over all its turns (`last` is the latest call's alone, and a
//! report can repeat one, so `last` is not summed). A turn's figures are therefore what
//! the total grew by since the thread's previous report, added up over the reports that
//! name that turn. A report naming a turn this trace did not see start (a resumed
//! thread's earlier turn, a turn begun before the capture) only sets where the thread's
//! total stands: the trace does not say how its total splits over the turns before.
//!
//! Owns: each thread's last reported total and latest started provider turn (transport
//! accounting, no tree state). Never: sums anything the reducer holds twice: it reads the
//! turn's figures from the tree and reports them with the growth added.

use std::collections::BTreeMap;

use crate::trace::borrowed::JsonRead;

use crate::ids::{SessionId, TurnId};
use crate::providers::Ctx;
use crate::tree::{Event, Usage};

/// Each thread's accounting.
#[derive(Debug, Clone, Default)]
pub(super) struct Meter {
    threads: BTreeMap<SessionId, Thread>,
}

#[derive(Debug, Clone, Default)]
struct Thread {
    /// The provider turn of the thread's latest `turn/started`.
    started: Option<String>,
    /// The thread's total at its previous report.
    total: Option<Usage>,
}

impl Meter {
    /// A `turn/started` of `thread`: reports naming `turn` count on its canonical turn.
    pub(super) fn turn_started(&mut self, thread: &SessionId, turn: Option<&str>) {
        self.threads.entry(thread.clone()).or_default().started = turn.map(String::from);
    }

    /// A `thread/tokenUsage/updated` of `thread`.
    pub(super) fn report<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, thread: SessionId, params: &J) {
        let Some(total) = params.pointer("/tokenUsage/total").map(codex_usage) else {
            return;
        };
        let provider_turn = params.get("turnId").and_then(J::as_str);
        let state = self.threads.entry(thread.clone()).or_default();
        let growth = match &state.total {
            Some(before) => total.minus(before),
            None => total,
        };
        state.total = Some(total);
        let started = state.started.as_deref();
        if provider_turn.is_none() || provider_turn != started {
            return; // a turn this trace did not see start: its total is only a baseline
        }
        let Some((turn, held)) = canonical_turn(cx, &thread, provider_turn) else {
            return;
        };
        let usage = held.map_or(growth, |h| h.plus(&growth));
        cx.emit(Event::usage_reported(turn, usage));
    }
}

/// The canonical turn the provider turn counts on, with the figures it holds: a child's
/// last turn; the root's last turn when that provider turn joined it (a provider turn
/// the reducer did not adopt, after a cancel, counts nowhere).
fn canonical_turn(
    cx: &Ctx<'_>,
    thread: &SessionId,
    provider_turn: Option<&str>,
) -> Option<(TurnId, Option<Usage>)> {
    let turn = cx.snapshot().session(thread)?.last_turn()?;
    if let Some(gate) = &turn.gate
        && gate.provider.provider_turn.as_deref() != provider_turn
    {
        return None;
    }
    Some((turn.id.clone(), turn.usage.as_deref().copied()))
}

/// A Codex `TokenUsageBreakdown` (`inputTokens` with `cachedInputTokens` and, in newer
/// releases, `cacheWriteInputTokens` among them; `outputTokens` with
/// `reasoningOutputTokens` among them) as canonical figures.
pub(crate) fn codex_usage<J: JsonRead>(v: &J) -> Usage {
    let n = |key: &str| v.get(key).and_then(J::as_u64);
    Usage {
        input_tokens: n("inputTokens"),
        output_tokens: n("outputTokens"),
        cache_read_input_tokens: n("cachedInputTokens"),
        cache_creation_input_tokens: n("cacheWriteInputTokens"),
        reasoning_output_tokens: n("reasoningOutputTokens"),
    }
}
