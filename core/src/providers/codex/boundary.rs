//! The cancellation boundary of a cancelled root turn.
//!
//! Seed, *Cancellation*: "Provider adapters additionally keep an execution-local
//! cancellation boundary for the canceled root turn. It is routing state, not a second
//! durable business model, and a later explicit canonical root turn clears it. While
//! active: • a server-initiated root provider turn is interrupted instead of adopted";
//! *Codex App-Server Mapping*: "After root cancellation, a later turn/started on the root
//! thread is not an ordinary unowned turn: interrupt it immediately."
//!
//! So a root `turn/started` while the boundary is active is held back: when the client
//! interrupts it (what the seed asks of the host), that interrupt is transport cleanup,
//! not a cancel, and the turn's output and terminal are dropped without a finding. A turn
//! the client never interrupts is what it was before: at its first output, its terminal,
//! the next `turn/start` or the end of the trace, its start reaches the reducer at its own
//! line (`unowned-provider-turn`, or `provider-turn-during-cancel` while the cancel runs).

use crate::trace::borrowed::JsonRead;

use super::CodexAdapter;
use crate::ids::SessionId;
use crate::providers::Ctx;
use crate::tree::{Event, Millis};

/// A server-initiated root provider turn the boundary holds back.
#[derive(Debug, Clone)]
pub(super) struct Unowned {
    /// Its provider turn id.
    turn: Option<String>,
    /// The line and time of its `turn/started`.
    line: usize,
    at: Option<Millis>,
    /// The client interrupted it.
    interrupted: bool,
}

impl CodexAdapter {
    /// A user cancel of `root`'s turn was prepared: the boundary is active.
    pub(super) fn boundary_opened(&mut self, root: &SessionId) {
        self.boundary.entry(root.clone()).or_insert(None);
    }

    /// A `turn/started` on root `thread`: true when the boundary holds it back.
    pub(super) fn boundary_turn_started(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: &SessionId,
        turn: Option<&str>,
    ) -> bool {
        let Some(slot) = self.boundary.get_mut(thread) else {
            return false;
        };
        let earlier = slot.replace(Unowned {
            turn: turn.map(String::from),
            line: cx.line(),
            at: cx.at(),
            interrupted: false,
        });
        if let Some(earlier) = earlier {
            adopt(cx, thread, earlier);
        }
        true
    }

    /// A client `turn/interrupt` of `thread`: true when it interrupts the turn the
    /// boundary holds back (transport cleanup, not a cancel).
    pub(super) fn boundary_interrupt(&mut self, thread: &str, turn: Option<&str>) -> bool {
        let Some(Some(unowned)) = self.boundary.get_mut(&SessionId::from(thread)) else {
            return false;
        };
        let named = turn.is_none() || turn == unowned.turn.as_deref();
        if named {
            unowned.interrupted = true;
        }
        named
    }

    /// A notification of a root thread: true when it belongs to the turn the boundary
    /// holds back and the client interrupted that turn (dropped: "output from the
    /// canceled root execution is dropped"). Output of a turn the client did not interrupt
    /// makes it an ordinary unowned turn first.
    pub(super) fn held_back<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        method: &str,
        params: &J,
    ) -> bool {
        if method == "turn/started" {
            return false;
        }
        let Some(thread) = params.get("threadId").and_then(J::as_str) else {
            return false;
        };
        let thread = SessionId::from(thread);
        let Some(slot) = self.boundary.get_mut(&thread) else {
            return false;
        };
        let turn = params
            .get("turnId")
            .or_else(|| params.pointer("/turn/id"))
            .and_then(J::as_str);
        let ours = slot
            .as_ref()
            .is_some_and(|u| turn.is_some() && u.turn.as_deref() == turn);
        if !ours {
            return false;
        }
        let ended = method == "turn/completed";
        match slot.take() {
            Some(u) if u.interrupted => {
                if !ended {
                    *slot = Some(u); // more of its output may follow
                }
                true
            }
            Some(u) => {
                adopt(cx, &thread, u);
                false
            }
            None => false,
        }
    }

    /// A client `turn/start` on `root`: a new canonical root turn clears the boundary.
    pub(super) fn boundary_cleared(&mut self, cx: &mut Ctx<'_>, root: &SessionId) {
        if let Some(Some(u)) = self.boundary.remove(root)
            && !u.interrupted
        {
            adopt(cx, root, u);
        }
    }

    /// End of trace: a held-back turn the client never interrupted is reported.
    pub(super) fn boundary_finish(&mut self, cx: &mut Ctx<'_>) {
        let boundary = std::mem::take(&mut self.boundary);
        for (root, slot) in boundary {
            if let Some(u) = slot.filter(|u| !u.interrupted) {
                adopt(cx, &root, u);
            }
        }
    }
}

/// A held-back turn the client did not interrupt: its start reaches the reducer at its own
/// line, as any server-initiated root turn would.
fn adopt(cx: &mut Ctx<'_>, root: &SessionId, unowned: Unowned) {
    cx.relocate(unowned.line, unowned.at)
        .emit(Event::RootProviderTurnStarted {
            session: root.clone(),
            provider_turn: unowned.turn,
        });
}
