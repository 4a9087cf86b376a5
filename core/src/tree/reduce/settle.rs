//! Settlement: the one path by which any turn becomes `settled`, and the root gate.
//!
//! Seed, *Root Turn Lifecycle*: "A child terminal event settles only the exact child
//! turn. It must not choose a root outcome by itself. After that child transition
//! commits, the same transaction re-evaluates the root gate and may apply an
//! already-retained root provider outcome when no active children remain."
//!
//! Invariant kept here: a root turn's `active_descendants` holds exactly the unsettled
//! child turns under it, so the gate is a length check, never a scan.

use std::sync::Arc;

use super::super::model::{
    InteractionStatus, Outcome, Phase, ProviderLifecycle, ProviderPhase, RootGate, SessionKind,
    Turn,
};
use super::tx::Tx;
use crate::ids::{SessionId, TurnId};

/// A fresh turn `n` of `session`. Root turns carry a gate.
pub(super) fn new_turn(tx: &Tx, session: &SessionId, n: u32, kind: SessionKind) -> Turn {
    let mut turn = Turn {
        id: TurnId::new(session.clone(), n),
        phase: Phase::Submitted,
        outcome: None,
        started: false,
        pending_interactions: 0,
        cancel: None,
        late_terminal: None,
        error: None,
        guidance: 0,
        opened_at: tx.at,
        settled_at: None,
        usage: None,
        gate: (kind == SessionKind::Root).then(|| {
            Box::new(RootGate {
                provider: ProviderLifecycle {
                    phase: ProviderPhase::Idle,
                    provider_turn: None,
                    outcome: None,
                    turns: 0,
                },
                active_descendants: imbl::OrdSet::new(),
            })
        }),
    };
    turn.phase = turn.derive_phase();
    turn
}

/// Settles an active turn with `outcome`: supersedes its pending interactions, removes it
/// from its root turn's active index and re-evaluates that root's gate.
pub(super) fn settle_turn(tx: &mut Tx, id: &TurnId, outcome: Outcome, error: Option<&str>) {
    if !tx.turn(id).is_some_and(Turn::is_active) {
        return;
    }
    supersede_pending_interactions(tx, id);
    let at = tx.at;
    // Seed, *Cancellation*: "A canonical canceled turn must not retain a transport error".
    let error: Option<Arc<str>> = error.map(Arc::from);
    tx.update_turn(id, |turn| {
        turn.outcome = Some(outcome);
        turn.settled_at = at;
        turn.pending_interactions = 0;
        turn.error = match outcome {
            Outcome::Failed | Outcome::Interrupted => error.or_else(|| turn.error.take()),
            Outcome::Completed | Outcome::Canceled => None,
        };
    });
    let root_turn = tx
        .session(id.session())
        .and_then(|s| s.relation.as_ref())
        .map(|r| r.root_turn.clone());
    if let Some(root_turn) = root_turn {
        tx.update_turn(&root_turn, |root| {
            if let Some(gate) = root.gate.as_mut() {
                gate.active_descendants.remove(id);
            }
        });
        evaluate_root_gate(tx, &root_turn);
    }
}

/// Settles the root turn with its retained provider outcome when the provider turn is
/// terminal, no nested child turn is active and no cancel is in flight. Any order of
/// arrival ends here (seed: *Root And Child Turn Ownership*, "Event order must not
/// change the result").
pub(super) fn evaluate_root_gate(tx: &mut Tx, root_turn: &TurnId) {
    let Some(turn) = tx.turn(root_turn) else {
        return;
    };
    if !turn.is_active() || turn.cancel.is_some() {
        return;
    }
    let Some(gate) = &turn.gate else {
        return;
    };
    if gate.provider.phase != ProviderPhase::Completed || !gate.active_descendants.is_empty() {
        return;
    }
    let Some(outcome) = gate.provider.outcome else {
        return;
    };
    let error = turn.error.clone();
    settle_turn(tx, root_turn, outcome, error.as_deref());
}

/// Pending interactions of a turn whose work ended are superseded.
fn supersede_pending_interactions(tx: &mut Tx, id: &TurnId) {
    let pending: Vec<_> = tx
        .next
        .pending_interactions_of(id)
        .map(|i| i.request.clone())
        .collect();
    for request in pending {
        let key = (id.clone(), request);
        tx.set_interaction(&key, InteractionStatus::Superseded, None);
        tx.interaction_changed(&key);
    }
}
