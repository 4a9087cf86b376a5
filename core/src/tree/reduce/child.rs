//! Child sessions: spawn (creator relation + initial turn), later turns, terminals.
//!
//! Seed, *Entity Decision*: "Each spawned child session has exactly one immutable creator
//! relationship to one parent session, parent turn, and delegation tool call. It is never
//! re-parented, reused by another parent turn, or split into multiple independently
//! settled delegations."

use std::sync::Arc;

use imbl::Vector;

use super::super::change::{Change, ParentRef, RootRef};
use super::super::diagnostic::Diagnostic;
use super::super::model::{CreatorRelation, Outcome, Session, SessionKind};
use super::cancel::acknowledge;
use super::content::{bind_aliases, check_aliases_free};
use super::root::next_ordinal;
use super::settle::{new_turn, settle_turn};
use super::tx::{Rejected, Tx};
use crate::ids::{Alias, CallId, SessionId, TurnId};

pub(super) struct Spawn<'a> {
    pub(super) child: &'a SessionId,
    pub(super) parent: &'a SessionId,
    pub(super) parent_turn: Option<&'a TurnId>,
    pub(super) tool_call: Option<&'a CallId>,
    pub(super) title: Option<&'a str>,
    pub(super) aliases: &'a [Alias],
}

/// Creates the child session, its relation and its `submitted` turn in one step, or
/// recognises a repeated report of the same edge (idempotent registration).
pub(super) fn spawn(tx: &mut Tx, s: Spawn<'_>) -> Result<(), Rejected> {
    let parent = tx.live_session(s.parent)?;
    let parent_turn = match s.parent_turn {
        Some(turn) => turn.clone(),
        None => match parent.last_turn() {
            Some(turn) => turn.id.clone(),
            None => {
                return Err(Diagnostic::UnknownParentTurn {
                    turn: TurnId::new(s.parent.clone(), 1),
                    parent: s.parent.clone(),
                });
            }
        },
    };
    if parent_turn.session() != s.parent || parent.turn(parent_turn.ordinal()).is_none() {
        return Err(Diagnostic::UnknownParentTurn {
            turn: parent_turn,
            parent: s.parent.clone(),
        });
    }
    if let Some(existing) = tx.session(s.child) {
        return respawn(tx, existing.clone(), &s, &parent_turn);
    }
    let parent = tx.live_session(s.parent)?;
    let (root_session, root_turn) = match &parent.relation {
        None => (s.parent.clone(), parent_turn.clone()),
        Some(rel) => (rel.root_session.clone(), rel.root_turn.clone()),
    };
    let turn_open = parent
        .turn(parent_turn.ordinal())
        .is_some_and(|t| t.is_active());
    if !turn_open {
        // Seed: "A child discovered only after the root turn settled is an
        // event-normalization or ordering bug; it must not be handled by resurrecting
        // the root turn."
        return Err(Diagnostic::SpawnUnderSettledTurn {
            child: s.child.clone(),
            turn: parent_turn,
        });
    }
    // Seed, *Cancellation*: "Preparing the durable root cancel operation also closes child
    // creation for that root turn … A child first revealed after the target snapshot must
    // be rejected". A child-only cancel closes creation under its target turns likewise.
    let closed = parent
        .turn(parent_turn.ordinal())
        .is_some_and(|t| t.cancel.is_some())
        || tx.turn(&root_turn).is_some_and(|t| t.cancel.is_some());
    if closed {
        return Err(Diagnostic::SpawnAfterCancel {
            child: s.child.clone(),
            root_turn,
        });
    }
    check_aliases_free(tx, s.child, s.aliases)?;

    let seq = tx.next_seq();
    let turn = new_turn(tx, s.child, 1, SessionKind::Child);
    let turn_id = turn.id.clone();
    let relation = CreatorRelation {
        parent_session: s.parent.clone(),
        parent_turn,
        tool_call: s.tool_call.cloned(),
        root_session,
        root_turn: root_turn.clone(),
    };
    tx.insert_session(Session::created(
        s.child.clone(),
        SessionKind::Child,
        Some(Arc::new(relation)),
        s.title.map(Arc::from),
        seq,
        Vector::unit(Arc::new(turn)).into(),
        &tx.next.empty,
    ));
    tx.with_session(s.parent, |p| {
        p.children.make_mut().push_back(s.child.clone())
    });
    tx.update_turn(&root_turn, |root| {
        if let Some(gate) = root.gate.as_mut() {
            gate.active_descendants.insert(turn_id.clone());
        }
    });
    let created = tx.session(s.child).map(|c| Change::SessionCreated {
        session: s.child.clone(),
        kind: SessionKind::Child,
        parent: c.relation.as_ref().map(|r| ParentRef {
            session: r.parent_session.clone(),
            turn: r.parent_turn.clone(),
            tool_call: r.tool_call.clone(),
        }),
        root: c.relation.as_ref().map(|r| RootRef {
            session: r.root_session.clone(),
            turn: r.root_turn.clone(),
        }),
        title: c.title.clone(),
    });
    if let Some(created) = created {
        tx.change(created);
    }
    tx.turn_opened(&turn_id);
    bind_aliases(tx, s.child, s.aliases)
}

/// A spawn naming an existing session: the same edge again is idempotent (new aliases
/// and a first title may still arrive); any other parent is a reparent and is rejected.
fn respawn(
    tx: &mut Tx,
    existing: Session,
    s: &Spawn<'_>,
    parent_turn: &TurnId,
) -> Result<(), Rejected> {
    let Some(rel) = existing.relation.as_ref() else {
        return Err(Diagnostic::SessionKindConflict(s.child.clone()));
    };
    // The same edge: same parent session and turn (an omitted `parent_turn` means the
    // parent's current turn, so a report under a later turn is a reuse by another parent
    // turn, which the seed forbids), and no conflicting tool call.
    let same_edge = rel.parent_session == *s.parent
        && rel.parent_turn == *parent_turn
        && (s.tool_call.is_none()
            || rel.tool_call.is_none()
            || rel.tool_call.as_ref() == s.tool_call);
    if !same_edge {
        return Err(Diagnostic::ReparentRejected {
            child: s.child.clone(),
            existing: rel.parent_turn.clone(),
            attempted: parent_turn.clone(),
        });
    }
    if existing.deleted {
        return Err(Diagnostic::DeletedSession(s.child.clone()));
    }
    // Every rejection before the first write (the engine applies in place).
    check_aliases_free(tx, s.child, s.aliases)?;
    tx.note(Diagnostic::DuplicateSpawn(s.child.clone()));
    if existing.title.is_none()
        && let Some(title) = s.title
    {
        let title: Arc<str> = Arc::from(title);
        tx.with_session(s.child, |c| c.title = Some(title.clone()));
        tx.change(Change::TitleChanged {
            session: s.child.clone(),
            title: Some(title),
        });
    }
    bind_aliases(tx, s.child, s.aliases)
}

/// Work observed on a child: its submitted turn runs, or later delegation to a child whose
/// last turn settled opens its next turn under the same relation and root turn.
pub(super) fn turn_started(tx: &mut Tx, id: &SessionId) -> Result<(), Rejected> {
    let child = tx.live_session_of_kind(id, SessionKind::Child, "child_turn_started")?;
    if let Some(active) = child.active_turn() {
        if !active.started {
            let turn_id = active.id.clone();
            tx.update_turn(&turn_id, |t| t.started = true);
        }
        return Ok(());
    }
    let Some(rel) = child.relation.clone() else {
        return Ok(());
    };
    // Seed: "every child turn remains under the same root session and root turn"; a root
    // turn that settled or is being cancelled takes no new child work.
    let root_open = tx
        .turn(&rel.root_turn)
        .is_some_and(|t| t.is_active() && t.cancel.is_none());
    if !root_open {
        return Err(Diagnostic::LateChildTurn {
            child: id.clone(),
            root_turn: rel.root_turn.clone(),
        });
    }
    // A cancel in flight for this child's earlier work, or covering an ancestor's current
    // turn, closes new work below it exactly as it closes new spawns: otherwise the new
    // turn would escape the recorded target set.
    if let Some(operation) = cancel_in_flight_above(tx, id) {
        return Err(Diagnostic::SpawnAfterCancel {
            child: id.clone(),
            root_turn: operation,
        });
    }
    let n = next_ordinal(child);
    let mut turn = new_turn(tx, id, n, SessionKind::Child);
    turn.started = true;
    turn.phase = turn.derive_phase();
    let turn_id = turn.id.clone();
    tx.with_session(id, |c| c.turns.make_mut().push_back(Arc::new(turn)));
    tx.update_turn(&rel.root_turn, |root| {
        if let Some(gate) = root.gate.as_mut() {
            gate.active_descendants.insert(turn_id.clone());
        }
    });
    tx.turn_opened(&turn_id);
    Ok(())
}

/// Seed: "A child terminal event settles only the exact child turn."
pub(super) fn turn_completed(
    tx: &mut Tx,
    id: &SessionId,
    outcome: Outcome,
    error: Option<&str>,
) -> Result<(), Rejected> {
    let child = tx.live_session_of_kind(id, SessionKind::Child, "child_turn_completed")?;
    let Some(turn) = child.last_turn() else {
        return Ok(());
    };
    let turn_id = turn.id.clone();
    if let Some(kept) = turn.outcome {
        // Nothing resurrects: a late terminal is recorded without changing the outcome.
        let first = turn.late_terminal.is_none();
        tx.note(Diagnostic::LateTerminal {
            turn: turn_id.clone(),
            outcome,
            kept,
        });
        if first {
            tx.update_turn(&turn_id, |t| t.late_terminal = Some(outcome));
            tx.change(Change::LateTerminalRecorded {
                turn: turn_id,
                outcome,
            });
        }
        return Ok(());
    }
    if let Some(mark) = &turn.cancel {
        match outcome {
            // The provider confirms the stop: evidence for the cancel, which settles the
            // target when it completes (seed: "settle confirmed child turns canceled").
            Outcome::Canceled | Outcome::Interrupted => return acknowledge(tx, &turn_id),
            // Seed, *Cancellation*: once the provider confirmed this target's stop, a
            // failure it reports for the same turn is cancellation fallout, which "cannot
            // emit a second child terminal or reclassify canceled as failed"; the cancel
            // settles it canceled when it completes.
            Outcome::Failed if mark.acknowledged => return Ok(()),
            // Work that ended on its own while the cancel was in flight keeps its outcome
            // (ACP RFD: "A cancellation racing with already-ended work does not rewrite
            // that work's outcome").
            Outcome::Completed | Outcome::Failed => {}
        }
    }
    settle_turn(tx, &turn_id, outcome, error);
    Ok(())
}

/// The cancel operation in flight that closes new work for `child`: one requested for
/// any of its own turns, or one covering the active turn of any of its ancestors. Walks
/// the ancestor chain only (not the tree), and only while some cancel is in flight.
fn cancel_in_flight_above(tx: &Tx, child: &SessionId) -> Option<TurnId> {
    if let Some(op) = tx.next.cancel_requested_in(child) {
        return Some(op.requested.clone());
    }
    if tx.next.cancels.is_empty() {
        return None; // nothing in flight anywhere: no walk (deep trees stay O(log n))
    }
    let mut cursor = tx.session(child)?.relation.clone();
    while let Some(rel) = cursor {
        let parent = tx.session(&rel.parent_session)?;
        if let Some(mark) = parent.active_turn().and_then(|t| t.cancel.as_ref()) {
            return Some(mark.operation.clone());
        }
        cursor = parent.relation.clone();
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::tree::{Event, Outcome, Snapshot};
    use crate::{SessionId, TurnId};

    fn fold(events: &[Event]) -> Snapshot {
        events
            .iter()
            .fold(Snapshot::new(), |s, e| s.apply(e, None).snapshot)
    }

    fn outcome(s: &Snapshot, turn: &str) -> Option<Outcome> {
        s.turn(&turn.parse::<TurnId>().ok()?)?.outcome
    }

    fn session(id: &str) -> SessionId {
        SessionId::from(id)
    }

    fn cancel_then(terminal: Outcome, acknowledged_first: bool) -> Snapshot {
        let mut events = vec![
            Event::RootSessionCreated {
                session: session("R"),
                title: None,
                aliases: vec![],
            },
            Event::UserSubmitted {
                session: session("R"),
                message: None,
                text: Some("go".into()),
            },
            Event::RootProviderTurnStarted {
                session: session("R"),
                provider_turn: None,
            },
            Event::ChildSpawned {
                session: session("A"),
                parent_session: session("R"),
                parent_turn: None,
                tool_call: Some("A".into()),
                title: None,
                aliases: vec![],
            },
            Event::CancelRequested {
                session: session("R"),
            },
        ];
        if acknowledged_first {
            events.push(Event::CancelAcknowledged {
                session: session("A"),
            });
        }
        events.push(Event::ChildTurnCompleted {
            session: session("A"),
            outcome: terminal,
            error: None,
        });
        events.push(Event::RootProviderTurnCompleted {
            session: session("R"),
            provider_turn: None,
            outcome: Outcome::Failed,
            error: None,
        });
        events.push(Event::CancelCompleted {
            session: session("R"),
        });
        fold(&events)
    }

    #[test]
    fn a_failure_after_the_stop_was_confirmed_is_cancellation_fallout() {
        let s = cancel_then(Outcome::Failed, true);
        assert_eq!(outcome(&s, "A#1"), Some(Outcome::Canceled));
        assert_eq!(outcome(&s, "R#1"), Some(Outcome::Canceled));
    }

    #[test]
    fn a_failure_before_any_confirmation_keeps_its_outcome() {
        let s = cancel_then(Outcome::Failed, false);
        assert_eq!(outcome(&s, "A#1"), Some(Outcome::Failed));
        assert_eq!(outcome(&s, "R#1"), Some(Outcome::Canceled));
    }
}
