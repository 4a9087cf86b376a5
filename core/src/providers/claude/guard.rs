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
//! Time is the records' `at`: the reservation times out at the first record whose `at` is
//! at least 30 000 ms after the reservation's. Without `at`, it never times out.

use super::ClaudeAdapter;
use crate::ids::SessionId;
use crate::providers::Sink;
use crate::tree::{Millis, Outcome};

/// How long a reserved continuation may take to start.
pub(super) const CONTINUATION_WAIT_MS: Millis = 30_000;

/// An armed reservation of the root's next provider turn.
#[derive(Debug, Clone)]
pub(super) struct Reservation {
    at: Option<Millis>,
}

impl ClaudeAdapter {
    /// Called before a background child's completion is reported.
    pub(super) fn reserve_continuation(
        &mut self,
        line: usize,
        at: Option<Millis>,
        child: &SessionId,
        sink: &mut Sink<'_>,
    ) {
        if self.provider_running || self.stale {
            return;
        }
        let snapshot = sink.snapshot();
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
        self.start_provider_turn(line, at, "synthetic", sink);
        self.reservation = Some(Reservation { at });
    }

    /// Times the reservation out at the first record 30 s after it.
    pub(super) fn check_reservation_timeout(
        &mut self,
        line: usize,
        at: Option<Millis>,
        sink: &mut Sink<'_>,
    ) {
        let Some(reservation) = &self.reservation else {
            return;
        };
        let (Some(start), Some(now)) = (reservation.at, at) else {
            return;
        };
        if now < start.saturating_add(CONTINUATION_WAIT_MS) {
            return;
        }
        self.reservation = None;
        self.stale = true;
        let outcome = self.last_outcome.unwrap_or(Outcome::Completed);
        self.end_provider_turn(line, at, outcome, None, sink);
    }

    /// Cancellation during the wait cancels the reserved provider turn and disarms it.
    pub(super) fn cancel_reservation(
        &mut self,
        line: usize,
        at: Option<Millis>,
        sink: &mut Sink<'_>,
    ) -> bool {
        if self.reservation.take().is_none() {
            return false;
        }
        self.end_provider_turn(line, at, Outcome::Interrupted, None, sink);
        true
    }
}
