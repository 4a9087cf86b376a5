//! The final-child continuation guard.
//!
//! Seed: "When the final active async child is about to become terminal and no root
//! provider turn is active, the Claude sidecar opens a synthetic provider turn before
//! emitting the child terminal." "A stopped task terminal is the exception." "The sidecar
//! waits at most 30 seconds for the first root stream or assistant event. Once root
//! output begins, the timeout is disarmed." "If no root continuation begins within 30
//! seconds, the sidecar completes the reserved synthetic provider turn with a timeout stop
//! reason … A later assistant, stream, result, or synthetic start from that timed-out
//! continuation is stale and must be dropped."
//!
//! Time is an input: the reservation's deadline is its record's `at` + 30 000 ms, and it
//! times out when the engine's time reaches it, either through `handle_timeout` (a
//! live host's clock) or at the first record whose `at` is at least that late. Without
//! `at`, it never times out.

use super::ClaudeAdapter;
use crate::ids::SessionId;
use crate::providers::Ctx;
use crate::tree::{Millis, Outcome};

/// How long a reserved continuation may take to start.
pub(super) const CONTINUATION_WAIT_MS: Millis = 30_000;

/// An armed reservation of the root's next provider turn.
#[derive(Debug, Clone)]
pub(super) struct Reservation {
    /// When it times out (`None` when its record had no `at`: it never does).
    deadline: Option<Millis>,
}

impl ClaudeAdapter {
    /// Called before a background child's completion is reported.
    pub(super) fn reserve_continuation(&mut self, cx: &mut Ctx<'_>, child: &SessionId) {
        if self.provider_running(cx.snapshot()) || self.stale {
            return;
        }
        let snapshot = cx.snapshot();
        let Some(session) = snapshot.session(child) else {
            return;
        };
        let (Some(turn), Some(rel)) = (session.active_turn(), session.relation.as_ref()) else {
            return;
        };
        let last = snapshot
            .turn(&rel.root_turn)
            .and_then(|r| r.gate.as_ref())
            .is_some_and(|g| {
                g.active_descendants.len() == 1 && g.active_descendants.contains(&turn.id)
            });
        let root_open = snapshot
            .turn(&rel.root_turn)
            .is_some_and(|r| r.is_active() && r.cancel.is_none());
        if !last || !root_open || !self.background.contains(child) {
            return;
        }
        self.start_provider_turn(cx, "synthetic");
        let deadline = cx.at().map(|at| at.saturating_add(CONTINUATION_WAIT_MS));
        self.reservation = Some(Reservation { deadline });
    }

    /// When the armed reservation times out, if one is armed and timed.
    pub(crate) fn deadline(&self) -> Option<Millis> {
        self.reservation.as_ref().and_then(|r| r.deadline)
    }

    /// The wait is over (the engine calls this once time, `cx.at()`, reaches
    /// [`ClaudeAdapter::deadline`]): the reserved provider turn completes, and the
    /// continuation's late output is stale until the next user submission.
    pub(crate) fn handle_timeout(&mut self, cx: &mut Ctx<'_>) {
        let due = match (self.deadline(), cx.at()) {
            (Some(deadline), Some(now)) => now >= deadline,
            _ => false,
        };
        if !due {
            return;
        }
        self.reservation = None;
        self.stale = true;
        let outcome = self.last_outcome.unwrap_or(Outcome::Completed);
        self.end_provider_turn(cx, outcome, None);
    }

    /// Cancellation during the wait cancels the reserved provider turn and disarms it.
    pub(super) fn cancel_reservation(&mut self, cx: &mut Ctx<'_>) {
        if self.reservation.take().is_some() {
            self.end_provider_turn(cx, Outcome::Interrupted, None);
        }
    }
}
