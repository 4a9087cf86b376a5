//! Interactions (approvals, questions), owned by the exact (session, turn, request).
//!
//! Seed, *Root Turn Lifecycle*: "Canonical interaction ownership and provider transport
//! correlation are separate identities": the provider turn id is kept only as
//! `provider_turn`; the owner is the session's current canonical turn.

use std::sync::Arc;

use super::super::diagnostic::Diagnostic;
use super::super::model::{Interaction, InteractionKind, InteractionStatus, SessionKind};
use super::tx::{Rejected, Tx};
use crate::ids::{CallId, RequestId, SessionId, TurnId};

pub(super) struct Request<'a> {
    pub(super) session: &'a SessionId,
    pub(super) request: &'a RequestId,
    pub(super) kind: InteractionKind,
    pub(super) provider_turn: Option<&'a str>,
    pub(super) tool_call: Option<&'a CallId>,
    pub(super) title: Option<&'a str>,
}

pub(super) fn requested(tx: &mut Tx, r: Request<'_>) -> Result<(), Rejected> {
    let session = tx.live_session(r.session)?;
    let Some(turn) = session.active_turn() else {
        return Err(Diagnostic::InteractionWithoutTurn {
            session: r.session.clone(),
            request: r.request.clone(),
        });
    };
    let turn_id = turn.id.clone();
    let child_not_started = session.kind == SessionKind::Child && !turn.started;
    if let Some(existing) = tx.next.find_interaction(r.session, r.request)
        && existing.status == InteractionStatus::Pending
    {
        tx.note(Diagnostic::DuplicateInteraction {
            session: r.session.clone(),
            request: r.request.clone(),
        });
        return Ok(());
    }
    let seq = tx.next_seq();
    tx.next.interactions.insert(
        (turn_id.clone(), r.request.clone()),
        Arc::new(Interaction {
            turn: turn_id.clone(),
            request: r.request.clone(),
            kind: r.kind,
            status: InteractionStatus::Pending,
            provider_turn: r.provider_turn.map(Arc::from),
            tool_call: r.tool_call.cloned(),
            title: r.title.map(Arc::from),
            answer: None,
            seq,
        }),
    );
    let (request, n) = (r.request.clone(), turn_id.ordinal());
    tx.with_session(r.session, |s| {
        // A request id reused on the same turn replaces the closed interaction it named.
        let twin = (n, request.clone());
        if s.closed.contains_key(&twin) {
            Arc::make_mut(&mut s.closed).remove(&twin);
        }
        s.requests.insert(request, n)
    });
    tx.interaction_changed(&(turn_id.clone(), r.request.clone()));
    tx.update_turn(&turn_id, |t| {
        t.pending_interactions = t.pending_interactions.saturating_add(1);
        if child_not_started {
            t.started = true;
        }
    });
    Ok(())
}

/// Finds the latest interaction with this request id on a live session.
fn lookup(
    tx: &Tx,
    session: &SessionId,
    request: &RequestId,
) -> Result<(TurnId, InteractionStatus), Rejected> {
    tx.live_session(session)?;
    tx.next
        .find_interaction(session, request)
        .map(|i| (i.turn.clone(), i.status))
        .ok_or_else(|| Diagnostic::UnknownInteraction {
            session: session.clone(),
            request: request.clone(),
        })
}

fn set_status(
    tx: &mut Tx,
    turn: &TurnId,
    request: &RequestId,
    status: InteractionStatus,
    answer: Option<&str>,
) {
    let key = (turn.clone(), request.clone());
    let was_pending = tx
        .next
        .interactions
        .get(&key)
        .is_some_and(|i| i.status == InteractionStatus::Pending);
    tx.set_interaction(&key, status, answer);
    tx.interaction_changed(&key);
    if was_pending {
        tx.update_turn(turn, |t| {
            t.pending_interactions = t.pending_interactions.saturating_sub(1);
        });
    }
}

pub(super) fn answered(
    tx: &mut Tx,
    session: &SessionId,
    request: &RequestId,
    answer: Option<&str>,
) -> Result<(), Rejected> {
    let (turn, status) = lookup(tx, session, request)?;
    if status != InteractionStatus::Pending {
        // Seed (ACP RFD): "A late response still resolves its original request, but …
        // MUST NOT … restart cancelled or otherwise abandoned work."
        tx.note(Diagnostic::InteractionClosed {
            session: session.clone(),
            request: request.clone(),
            status,
        });
        return Ok(());
    }
    set_status(tx, &turn, request, InteractionStatus::Answered, answer);
    Ok(())
}

pub(super) fn resolved(
    tx: &mut Tx,
    session: &SessionId,
    request: &RequestId,
) -> Result<(), Rejected> {
    let (turn, status) = lookup(tx, session, request)?;
    match status {
        InteractionStatus::Pending | InteractionStatus::Answered => {
            set_status(tx, &turn, request, InteractionStatus::Resolved, None);
        }
        InteractionStatus::Resolved | InteractionStatus::Superseded => {
            tx.note(Diagnostic::InteractionClosed {
                session: session.clone(),
                request: request.clone(),
                status,
            });
        }
    }
    Ok(())
}
