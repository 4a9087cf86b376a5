//! Root sessions, user submissions and the root provider lifecycle.
//!
//! Seed, *Root Turn Lifecycle*: a root provider terminal "records only that the current
//! root provider turn reached a terminal"; the reducer "durably retains the root provider
//! turn's pending outcome" and settles the root only through the gate in `settle`.

use std::sync::Arc;

use super::super::change::Change;
use super::super::diagnostic::Diagnostic;
use super::super::model::{Outcome, ProviderPhase, Role, Session, SessionKind};
use super::content::{append_message, bind_aliases, check_aliases_free};
use super::settle::{evaluate_root_gate, new_turn};
use super::tx::{Rejected, Tx};
use crate::ids::{Alias, MessageId, SessionId, TurnId};

pub(super) fn create_root_session(
    tx: &mut Tx,
    id: &SessionId,
    title: Option<&str>,
    aliases: &[Alias],
) -> Result<(), Rejected> {
    if let Some(existing) = tx.session(id) {
        if existing.kind != SessionKind::Root {
            return Err(Diagnostic::SessionKindConflict(id.clone()));
        }
        if existing.deleted {
            return Err(Diagnostic::DeletedSession(id.clone()));
        }
        tx.note(Diagnostic::DuplicateSession(id.clone()));
        return bind_aliases(tx, id, aliases);
    }
    check_aliases_free(tx, id, aliases)?;
    let seq = tx.next_seq();
    tx.insert_session(Session::created(
        id.clone(),
        SessionKind::Root,
        None,
        title.map(Arc::from),
        seq,
        tx.next.empty.turns.clone(),
        &tx.next.empty,
    ));
    tx.change(Change::SessionCreated {
        session: id.clone(),
        kind: SessionKind::Root,
        parent: None,
        root: None,
        title: title.map(Arc::from),
    });
    bind_aliases(tx, id, aliases)
}

/// Seed, *Sending While Children Run*: a submission while the root turn is active
/// "targets the root agent and the same root turn"; otherwise it starts a new root turn.
pub(super) fn user_submitted(
    tx: &mut Tx,
    id: &SessionId,
    message: Option<&MessageId>,
    text: Option<&str>,
) -> Result<(), Rejected> {
    let session = tx.live_session(id)?;
    if session.kind == SessionKind::Child {
        return Err(Diagnostic::ChildGuidanceUnsupported(id.clone()));
    }
    let turn_id = match session.active_turn() {
        Some(active) if active.cancel.is_some() => {
            return Err(Diagnostic::SubmissionDuringCancel(id.clone()));
        }
        Some(active) => {
            let turn_id = active.id.clone();
            let mut guidance = 0;
            tx.update_turn(&turn_id, |t| {
                t.guidance = t.guidance.saturating_add(1);
                guidance = t.guidance;
            });
            tx.change(Change::GuidanceAdded {
                turn: turn_id.clone(),
                guidance,
            });
            turn_id
        }
        None => {
            let n = next_ordinal(session);
            let turn = new_turn(tx, id, n, SessionKind::Root);
            let turn_id = turn.id.clone();
            tx.with_session(id, |s| s.turns.make_mut().push_back(Arc::new(turn)));
            tx.turn_opened(&turn_id);
            turn_id
        }
    };
    if message.is_some() || text.is_some() {
        append_message(
            tx,
            &turn_id,
            message,
            Role::User,
            text.unwrap_or_default(),
            false,
        );
    }
    Ok(())
}

pub(super) fn next_ordinal(session: &Session) -> u32 {
    u32::try_from(session.turns.len())
        .unwrap_or(u32::MAX)
        .saturating_add(1)
}

/// A provider turn joins the active root turn: the first one, or a continuation after
/// an earlier provider terminal (seed: "its next provider turn remains attached to the
/// same root WorkspaceAgentTurn").
pub(super) fn provider_turn_started(
    tx: &mut Tx,
    id: &SessionId,
    provider_turn: Option<&str>,
) -> Result<(), Rejected> {
    let session = tx.live_session_of_kind(id, SessionKind::Root, "root_provider_turn_started")?;
    let Some(turn) = session.active_turn() else {
        // Seed, *Cancellation*: after a cancel "a server-initiated root provider turn is
        // interrupted instead of adopted"; a root turn comes only from a user submission.
        return Err(Diagnostic::UnownedProviderTurn(id.clone()));
    };
    if turn.cancel.is_some() {
        return Err(Diagnostic::ProviderTurnDuringCancel(id.clone()));
    }
    let Some(gate) = &turn.gate else {
        return Ok(());
    };
    let same = gate.provider.phase == ProviderPhase::Running
        && provider_turn.is_none_or(|p| gate.provider.provider_turn.as_deref() == Some(p));
    if same {
        return Ok(());
    }
    let turn_id = turn.id.clone();
    let provider_turn = provider_turn.map(Arc::from);
    tx.update_turn(&turn_id, |t| {
        if let Some(gate) = t.gate.as_mut() {
            gate.provider.phase = ProviderPhase::Running;
            gate.provider.provider_turn = provider_turn;
            gate.provider.outcome = None;
            gate.provider.turns = gate.provider.turns.saturating_add(1);
        }
        t.error = None;
    });
    tx.provider_changed(&turn_id);
    Ok(())
}

/// Seed: "Normalize that provider terminal as an internal root_provider_turn_completed
/// event … If child turns are still active, the root turn remains waiting."
pub(super) fn provider_turn_completed(
    tx: &mut Tx,
    id: &SessionId,
    provider_turn: Option<&str>,
    outcome: Outcome,
    error: Option<&str>,
) -> Result<(), Rejected> {
    let session = tx.live_session_of_kind(id, SessionKind::Root, "root_provider_turn_completed")?;
    let Some(turn) = session.last_turn() else {
        return Err(Diagnostic::UnmatchedProviderTerminal(id.clone()));
    };
    let Some(gate) = &turn.gate else {
        return Ok(());
    };
    let turn_id = turn.id.clone();
    let running = gate.provider.phase == ProviderPhase::Running;
    if let (Some(named), Some(current), true) = (
        provider_turn,
        gate.provider.provider_turn.as_deref(),
        running,
    ) && named != current
    {
        return Err(Diagnostic::UnmatchedProviderTerminal(id.clone()));
    }
    if !turn.is_active() {
        // Seed: "Persist that late provider terminal into the root-provider lifecycle
        // fields without changing, republishing, or reopening the canonical root turn."
        // The running provider turn confirming the stop (`interrupted` / `canceled` after
        // the canonical cancel) is that expected order and is recorded silently; any
        // other late terminal (work that ended on its own, a second terminal) is noted.
        let confirms_cancel = running
            && turn.outcome == Some(Outcome::Canceled)
            && matches!(outcome, Outcome::Interrupted | Outcome::Canceled);
        if !confirms_cancel {
            tx.note(Diagnostic::LateProviderTerminal(turn_id.clone()));
        }
        if running {
            record_provider_terminal(tx, &turn_id, outcome, None);
        }
        return Ok(());
    }
    match gate.provider.phase {
        // No provider turn was seen for this root turn: the terminal cannot be this turn's
        // (it may be a stale terminal of the previous root turn's provider turn).
        ProviderPhase::Idle => return Err(Diagnostic::UnmatchedProviderTerminal(id.clone())),
        // A provider turn has one terminal: a second one (repeated or stale) must not
        // rewrite the retained outcome.
        ProviderPhase::Completed => {
            return Err(Diagnostic::UnmatchedProviderTerminal(id.clone()));
        }
        ProviderPhase::Running => {}
    }
    let in_cancel = turn.cancel.is_some();
    let error = match outcome {
        Outcome::Failed | Outcome::Interrupted => error.map(Arc::from),
        Outcome::Completed | Outcome::Canceled => None,
    };
    record_provider_terminal(tx, &turn_id, outcome, if in_cancel { None } else { error });
    evaluate_root_gate(tx, &turn_id);
    Ok(())
}

fn record_provider_terminal(
    tx: &mut Tx,
    turn_id: &TurnId,
    outcome: Outcome,
    error: Option<Arc<str>>,
) {
    let active = tx.turn(turn_id).is_some_and(|t| t.is_active());
    tx.update_turn(turn_id, |t| {
        if let Some(gate) = t.gate.as_mut() {
            gate.provider.phase = ProviderPhase::Completed;
            gate.provider.outcome = Some(outcome);
        }
        if active && error.is_some() {
            t.error = error;
        }
    });
    tx.provider_changed(turn_id);
}
