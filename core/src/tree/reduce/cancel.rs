//! Cancel operations: prepare (record targets, close child creation), acknowledge,
//! complete (settle every target together).
//!
//! Seed, *Cancellation*: "services/tuttid maps acknowledged child targets to canceled,
//! maps unacknowledged child targets to interrupted when the bounded provider call
//! returns, and always maps the root target to canceled to preserve the user's intent."
//! "An exact child-only cancel uses the same durable target contract without adding the
//! root as a cancel target. If that child was the final active child and the root
//! provider outcome was already retained, the cancel transaction also settles the root
//! from that retained outcome."
//!
//! A cancel mark stays on a target after it settles (history: it was a target and was or
//! was not acknowledged); only a mark on an *active* turn means "being cancelled".

use std::collections::BTreeSet;

use super::super::change::Change;
use super::super::diagnostic::Diagnostic;
use super::super::model::{CancelMark, CancelOperation, Outcome, SessionKind};
use super::settle::settle_turn;
use super::tx::{Rejected, Tx};
use crate::ids::{SessionId, TurnId};

pub(super) fn requested(tx: &mut Tx, id: &SessionId) -> Result<(), Rejected> {
    let session = tx.live_session(id)?;
    let Some(turn) = session.active_turn() else {
        return Err(Diagnostic::NothingToCancel(id.clone()));
    };
    if let Some(mark) = &turn.cancel {
        tx.note(Diagnostic::AlreadyCancelling {
            turn: turn.id.clone(),
            operation: mark.operation.clone(),
        });
        return Ok(());
    }
    let operation = turn.id.clone();
    // The target set is decided now, from the recorded tree, and never recomputed.
    let mut targets = vec![operation.clone()];
    match (&turn.gate, session.kind) {
        (Some(gate), SessionKind::Root) => targets.extend(gate.active_descendants.iter().cloned()),
        _ => collect_active_descendants(tx, id, &mut targets),
    }
    // A narrower cancel already in flight inside this target set is absorbed: its
    // targets are all descendants of ours, so they are in `targets` already.
    let absorbed: BTreeSet<TurnId> = targets
        .iter()
        .filter_map(|t| tx.turn(t)?.cancel.as_ref().map(|m| m.operation.clone()))
        .collect();
    for old in &absorbed {
        tx.next.cancels.remove(old);
    }
    for target in &targets {
        tx.update_turn(target, |t| {
            let acknowledged = t.cancel.as_ref().is_some_and(|m| m.acknowledged);
            t.cancel = Some(Box::new(CancelMark {
                operation: operation.clone(),
                acknowledged,
            }));
        });
    }
    tx.next.cancels.insert(
        operation.clone(),
        CancelOperation {
            requested: operation.clone(),
            targets: targets.iter().cloned().collect(),
        },
    );
    tx.change(Change::CancelPrepared { operation, targets });
    Ok(())
}

/// Active turns of every session below `id`, parents before children. Walks only the
/// subtree being cancelled.
fn collect_active_descendants(tx: &Tx, id: &SessionId, out: &mut Vec<TurnId>) {
    let mut stack: Vec<SessionId> = match tx.session(id) {
        Some(s) => s.children.iter().rev().cloned().collect(),
        None => return,
    };
    while let Some(next) = stack.pop() {
        let Some(session) = tx.session(&next) else {
            continue;
        };
        if session.deleted {
            continue;
        }
        if let Some(turn) = session.active_turn() {
            out.push(turn.id.clone());
        }
        stack.extend(session.children.iter().rev().cloned());
    }
}

/// Records provider confirmation that an active target stopped.
pub(super) fn acknowledge(tx: &mut Tx, turn_id: &TurnId) -> Result<(), Rejected> {
    let Some(mark) = tx
        .turn(turn_id)
        .filter(|t| t.is_active())
        .and_then(|t| t.cancel.clone())
    else {
        return Err(Diagnostic::NoPendingCancel(turn_id.session().clone()));
    };
    if mark.acknowledged {
        return Ok(());
    }
    tx.update_turn(turn_id, |t| {
        if let Some(m) = t.cancel.as_mut() {
            m.acknowledged = true;
        }
    });
    tx.change(Change::CancelAcknowledged {
        operation: mark.operation,
        turn: turn_id.clone(),
    });
    Ok(())
}

pub(super) fn acknowledged(tx: &mut Tx, id: &SessionId) -> Result<(), Rejected> {
    let session = tx.live_session(id)?;
    let Some(turn) = session.last_turn() else {
        return Err(Diagnostic::NoPendingCancel(id.clone()));
    };
    let turn_id = turn.id.clone();
    if !turn.is_active() {
        // The target ended on its own before the stop was confirmed: nothing to do while
        // its operation is still in flight.
        let in_flight = turn
            .cancel
            .as_ref()
            .is_some_and(|m| tx.next.cancels.contains_key(&m.operation));
        return if in_flight {
            Ok(())
        } else {
            Err(Diagnostic::NoPendingCancel(id.clone()))
        };
    }
    acknowledge(tx, &turn_id)
}

pub(super) fn completed(tx: &mut Tx, id: &SessionId) -> Result<(), Rejected> {
    let session = tx.live_session(id)?;
    let Some(turn) = session.last_turn() else {
        return Err(Diagnostic::NoPendingCancel(id.clone()));
    };
    let Some(operation) = tx.next.cancel_requested_in(id).cloned() else {
        if let Some(mark) = turn.cancel.as_ref().filter(|_| turn.is_active())
            && mark.operation != turn.id
        {
            tx.note(Diagnostic::CancelAbsorbed {
                turn: turn.id.clone(),
                operation: mark.operation.clone(),
            });
            return Ok(());
        }
        return Err(Diagnostic::NoPendingCancel(id.clone()));
    };
    let requested_is_root = session.kind == SessionKind::Root;
    tx.next.cancels.remove(&operation.requested);
    // Children first, the requested turn last, so a child-only cancel re-evaluates the
    // root gate with every target already settled.
    let order = operation
        .targets
        .iter()
        .filter(|t| **t != operation.requested)
        .chain(std::iter::once(&operation.requested));
    for target in order {
        let Some(turn) = tx.turn(target).filter(|t| t.is_active()) else {
            continue; // ended on its own, or deleted
        };
        let acknowledged = turn.cancel.as_ref().is_some_and(|m| m.acknowledged);
        let outcome = if (*target == operation.requested && requested_is_root) || acknowledged {
            Outcome::Canceled
        } else {
            Outcome::Interrupted
        };
        settle_turn(tx, target, outcome, None);
    }
    tx.change(Change::CancelCompleted {
        operation: operation.requested,
    });
    Ok(())
}
