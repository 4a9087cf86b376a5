//! Transcript content, tool calls, aliases and titles.
//!
//! Seed, *Session And Turn Semantics*: "Child messages and interactions belong to the
//! exact child turn that produced them." Seed, *Cancellation*: late child output "is
//! appended as historical child-session progress only when it can be scoped to an
//! existing child session and turn"; root output without an active root turn is dropped
//! (*ACP Provider Mapping*: it "must not be attached to a recently settled root turn").

use std::sync::Arc;

use super::super::change::Change;
use super::super::diagnostic::Diagnostic;
use super::super::model::{Message, Role, SessionKind, ToolCall, ToolStatus, Usage};
use super::super::text::MessageText;
use super::tx::{Rejected, Tx};
use crate::ids::{Alias, CallId, MessageId, SessionId, TurnId};

/// The turn that owns new output of `session`, and whether it only records history.
/// Activity on a `submitted` child turn shows that it runs.
fn output_owner(tx: &mut Tx, id: &SessionId) -> Result<(TurnId, bool), Rejected> {
    let session = tx.live_session(id)?;
    if let Some(active) = session.active_turn() {
        let turn_id = active.id.clone();
        if session.kind == SessionKind::Child && !active.started {
            tx.update_turn(&turn_id, |t| t.started = true);
        }
        return Ok((turn_id, false));
    }
    match (session.kind, session.last_turn()) {
        (SessionKind::Child, Some(last)) => {
            let turn_id = last.id.clone();
            tx.note(Diagnostic::LateChildOutput(turn_id.clone()));
            Ok((turn_id, true))
        }
        _ => Err(Diagnostic::LateRootOutput(id.clone())),
    }
}

pub(super) fn message(
    tx: &mut Tx,
    session: &SessionId,
    id: Option<&MessageId>,
    role: Role,
    text: &str,
) -> Result<(), Rejected> {
    let (turn, history) = output_owner(tx, session)?;
    append_message(tx, &turn, id, role, text, history);
    Ok(())
}

/// Adds a message to `turn`'s session, or appends `text` to the message with the same id.
pub(super) fn append_message(
    tx: &mut Tx,
    turn: &TurnId,
    id: Option<&MessageId>,
    role: Role,
    text: &str,
    history: bool,
) {
    let index = tx.with_session(turn.session(), |s| {
        if let Some(&index) = id.and_then(|id| s.message_index.get(id))
            && let Some(existing) = s.messages.make_mut().get_mut(index)
        {
            let existing = Arc::make_mut(existing);
            existing.text.push(text);
            return (index, existing.history);
        }
        let index = s.messages.len();
        s.messages.make_mut().push_back(Arc::new(Message {
            id: id.cloned(),
            turn: turn.ordinal(),
            role,
            text: MessageText::new(text),
            history,
        }));
        if let Some(id) = id {
            s.message_index.insert(id.clone(), index);
        }
        (index, history)
    });
    if let Some((index, history)) = index {
        tx.change(Change::MessageAppended {
            turn: turn.clone(),
            index,
            id: id.cloned(),
            role,
            text: Arc::from(text),
            history,
        });
    }
}

pub(super) fn tool_call_started(
    tx: &mut Tx,
    session: &SessionId,
    call: &CallId,
    name: Option<&str>,
    title: Option<&str>,
) -> Result<(), Rejected> {
    if tx.live_session(session)?.tool_calls.contains_key(call) {
        return Ok(()); // a repeated start changes nothing
    }
    let (turn, _history) = output_owner(tx, session)?;
    let tool = ToolCall {
        id: call.clone(),
        turn: turn.ordinal(),
        name: name.map(Arc::from),
        title: title.map(Arc::from),
        status: ToolStatus::InProgress,
    };
    let name = tool.name.clone();
    tx.with_session(session, |s| s.tool_calls.insert(call.clone(), tool));
    tx.change(Change::ToolCallChanged {
        turn,
        call: call.clone(),
        status: ToolStatus::InProgress,
        name,
    });
    Ok(())
}

/// A tool call's terminal stays on the turn that started it, even if that turn has since
/// settled (seed, *Claude Code SDK Mapping*: the parent Task tool call's "terminal events
/// must stay on that same parent turn").
pub(super) fn tool_call_completed(
    tx: &mut Tx,
    session: &SessionId,
    call: &CallId,
    status: ToolStatus,
) -> Result<(), Rejected> {
    let existing = tx.live_session(session)?.tool_calls.get(call).cloned();
    let turn = match existing {
        Some(tool) if tool.status == status => return Ok(()),
        Some(tool) => TurnId::new(session.clone(), tool.turn),
        None => {
            let (turn, _history) = output_owner(tx, session)?;
            tx.with_session(session, |s| {
                s.tool_calls.insert(
                    call.clone(),
                    ToolCall {
                        id: call.clone(),
                        turn: turn.ordinal(),
                        name: None,
                        title: None,
                        status,
                    },
                )
            });
            turn
        }
    };
    let name = tx
        .with_session(session, |s| {
            let tool = s.tool_calls.get_mut(call)?;
            tool.status = status;
            tool.name.clone()
        })
        .flatten();
    tx.change(Change::ToolCallChanged {
        turn,
        call: call.clone(),
        status,
        name,
    });
    Ok(())
}

pub(super) fn bind_alias(tx: &mut Tx, session: &SessionId, alias: &Alias) -> Result<(), Rejected> {
    tx.live_session(session)?;
    bind_aliases(tx, session, std::slice::from_ref(alias))
}

/// Rejects the event if any alias already names another session.
pub(super) fn check_aliases_free(
    tx: &Tx,
    session: &SessionId,
    aliases: &[Alias],
) -> Result<(), Rejected> {
    for alias in aliases {
        if let Some(existing) = tx.next.aliases.get(alias)
            && existing != session
        {
            return Err(conflict(alias, existing, session));
        }
    }
    Ok(())
}

fn conflict(alias: &Alias, existing: &SessionId, session: &SessionId) -> Rejected {
    Diagnostic::AliasConflict {
        alias: alias.clone(),
        existing: existing.clone(),
        session: session.clone(),
    }
}

/// Binds aliases to `session`; an alias never names two sessions.
pub(super) fn bind_aliases(
    tx: &mut Tx,
    session: &SessionId,
    aliases: &[Alias],
) -> Result<(), Rejected> {
    // One lookup per alias: the check, and which ones are new (each once).
    let mut fresh: Vec<&Alias> = Vec::with_capacity(aliases.len());
    for alias in aliases {
        match tx.next.aliases.get(alias) {
            Some(existing) if existing != session => {
                return Err(conflict(alias, existing, session));
            }
            Some(_) => {}
            None if fresh.contains(&alias) => {}
            None => fresh.push(alias),
        }
    }
    for alias in fresh {
        tx.next.aliases.insert(alias.clone(), session.clone());
        tx.with_session(session, |s| s.aliases.make_mut().push_back(alias.clone()));
        tx.change(Change::AliasBound {
            session: session.clone(),
            alias: alias.clone(),
        });
    }
    Ok(())
}

pub(super) fn set_title(
    tx: &mut Tx,
    session: &SessionId,
    title: Option<&str>,
) -> Result<(), Rejected> {
    if tx.live_session(session)?.title.as_deref() == title {
        return Ok(());
    }
    let title: Option<Arc<str>> = title.map(Arc::from);
    tx.with_session(session, |s| s.title = title.clone());
    tx.change(Change::TitleChanged {
        session: session.clone(),
        title,
    });
    Ok(())
}

/// A turn's token counts: set as reported (the emitter sums per-call figures, the reducer
/// never does). Accounting, not lifecycle: the phase and outcome stay, a settled turn
/// still takes it, and a report equal to the figures held changes nothing.
pub(super) fn usage_reported(tx: &mut Tx, turn: &TurnId, usage: Usage) -> Result<(), Rejected> {
    tx.live_session(turn.session())?;
    let Some(current) = tx.turn(turn) else {
        return Err(Diagnostic::UnknownTurn {
            event: "usage_reported",
            turn: turn.clone(),
        });
    };
    let next = (!usage.is_empty()).then_some(usage);
    if next.is_none() || current.usage.as_deref() == next.as_ref() {
        return Ok(());
    }
    tx.update_turn(turn, |t| t.usage = next.map(Box::new));
    tx.change(Change::TurnUsageChanged {
        turn: turn.clone(),
        usage,
    });
    Ok(())
}
