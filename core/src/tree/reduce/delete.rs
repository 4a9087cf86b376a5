//! Session deletion: tombstone the subtree, remove its turns and interactions.
//!
//! Seed, *Root And Child Turn Ownership*: "Deleting a root or child session atomically
//! tombstones that session and all of its nested child sessions, then removes their
//! turns and interactions. A child must never remain as an orphan after its ancestor is
//! deleted."
//!
//! Deleting an active child removes it from its root turn's gate, which may then settle
//! from its retained provider outcome, exactly as if that child had settled.

use std::collections::BTreeSet;

use super::super::change::Change;
use super::settle::evaluate_root_gate;
use super::tx::{Rejected, Tx, get_mut_present, remove_present};
use crate::ids::{SessionId, TurnId};

pub(super) fn delete_subtree(tx: &mut Tx, id: &SessionId) -> Result<(), Rejected> {
    tx.live_session(id)?;
    let mut subtree = Vec::new();
    let mut stack = vec![id.clone()];
    while let Some(next) = stack.pop() {
        let Some(session) = tx.session(&next) else {
            continue;
        };
        if session.deleted {
            continue;
        }
        stack.extend(session.children.iter().rev().cloned());
        subtree.push(next);
    }
    let mut gates_to_check: BTreeSet<TurnId> = BTreeSet::new();
    for session_id in &subtree {
        remove_session_state(tx, session_id, &mut gates_to_check);
        tx.change(Change::SessionDeleted {
            session: session_id.clone(),
        });
    }
    for root_turn in gates_to_check {
        evaluate_root_gate(tx, &root_turn);
    }
    Ok(())
}

fn remove_session_state(tx: &mut Tx, id: &SessionId, gates: &mut BTreeSet<TurnId>) {
    let Some(session) = tx.session(id).cloned() else {
        return;
    };
    if let (Some(active), Some(rel)) = (session.active_turn(), session.relation.as_ref()) {
        let active_id = active.id.clone();
        // The root turn loses this active descendant (unless the root goes too).
        if tx.session(&rel.root_session).is_some_and(|r| !r.deleted) {
            tx.update_turn(&rel.root_turn, |root| {
                if let Some(gate) = root.gate.as_mut() {
                    gate.active_descendants.remove(&active_id);
                }
            });
            gates.insert(rel.root_turn.clone());
        }
        if let Some(mark) = &active.cancel
            && let Some(op) = get_mut_present(&mut tx.next.cancels, &mark.operation)
        {
            op.targets.retain(|t| *t != active_id);
        }
    }
    for turn in session.turns.iter() {
        remove_present(&mut tx.next.cancels, &turn.id);
        // Its closed interactions go with the session's record, below.
        let requests: Vec<_> = tx
            .next
            .pending_interactions_of(&turn.id)
            .map(|i| i.request.clone())
            .collect();
        for request in requests {
            let key = (turn.id.clone(), request);
            remove_present(&mut tx.next.interactions, &key);
        }
    }
    let empty = tx.next.empty.clone();
    tx.with_session(id, |s| {
        s.deleted = true;
        s.turns = empty.turns;
        s.messages = empty.messages;
        s.closed = empty.closed;
        s.message_index.clear();
        s.tool_calls.clear();
        s.requests.clear();
    });
}
