//! The canonical reducer: `Snapshot × Event → Snapshot + changes + diagnostics`.
//!
//! Owns: every lifecycle rule of the Provider-Native Subagents seed, one handler per
//! event family (`root`, `child`, `content`, `interaction`, `cancel`, `delete`) and one
//! settlement mechanism (`settle`) that all of them share.
//! Never: does I/O, reads a clock, scans all sessions, or knows a provider's shapes.
//!
//! Each event runs as a transaction ([`Tx`]) on an O(1) clone of the snapshot. A
//! handler either commits (its changes and notes are returned) or rejects with a
//! [`Diagnostic`], in which case the original snapshot is returned untouched: an
//! impossible event can never leave a half-applied tree.

mod cancel;
mod child;
mod content;
mod delete;
mod interaction;
mod root;
mod settle;
mod tx;

use super::event::Event;
use super::model::Millis;
use super::snapshot::{Snapshot, Step};
use tx::Tx;

pub(crate) use tx::{Rejected, is_live};

pub(super) fn apply(base: &Snapshot, event: &Event, at: Option<Millis>) -> Step {
    let mut tx = Tx::new(base, at);
    let result = dispatch(&mut tx, event);
    let step = match result {
        Ok(()) => tx.commit(),
        Err(rejection) => Step {
            snapshot: base.clone(),
            changes: Vec::new(),
            diagnostics: vec![rejection],
        },
    };
    // Debug builds re-check every invariant after each step while the tree is small (the
    // corpus, the model tests and the fuzzers all are); the check is O(n log n), so a
    // huge generated tree is checked by its tests at chosen points instead.
    #[cfg(debug_assertions)]
    if step.snapshot.session_count() <= DEBUG_CHECK_LIMIT
        && let Err(violation) = step
            .snapshot
            .check_invariants(super::invariants::Level::Full)
    {
        // A broken invariant is a bug in this reducer, never a property of the input.
        #[allow(clippy::panic)]
        {
            panic!("invariant broken after `{}`: {violation}", event.name());
        }
    }
    step
}

/// Debug builds check every invariant after each step of a tree of at most this many
/// sessions.
#[cfg(debug_assertions)]
const DEBUG_CHECK_LIMIT: usize = 256;

fn dispatch(tx: &mut Tx, event: &Event) -> Result<(), Rejected> {
    if let Some(field) = event.empty_id() {
        return Err(super::diagnostic::Diagnostic::EmptyId {
            event: event.name(),
            field,
        });
    }
    match event {
        Event::RootSessionCreated {
            session,
            title,
            aliases,
        } => root::create_root_session(tx, session, title.as_deref(), aliases),
        Event::UserSubmitted {
            session,
            message,
            text,
        } => root::user_submitted(tx, session, message.as_ref(), text.as_deref()),
        Event::RootProviderTurnStarted {
            session,
            provider_turn,
        } => root::provider_turn_started(tx, session, provider_turn.as_deref()),
        Event::RootProviderTurnCompleted {
            session,
            provider_turn,
            outcome,
            error,
        } => root::provider_turn_completed(
            tx,
            session,
            provider_turn.as_deref(),
            *outcome,
            error.as_deref(),
        ),
        Event::ChildSpawned {
            session,
            parent_session,
            parent_turn,
            tool_call,
            title,
            aliases,
        } => child::spawn(
            tx,
            child::Spawn {
                child: session,
                parent: parent_session,
                parent_turn: parent_turn.as_ref(),
                tool_call: tool_call.as_ref(),
                title: title.as_deref(),
                aliases,
            },
        ),
        Event::ChildTurnStarted { session } => child::turn_started(tx, session),
        Event::ChildTurnCompleted {
            session,
            outcome,
            error,
        } => child::turn_completed(tx, session, *outcome, error.as_deref()),
        Event::Message {
            session,
            message,
            role,
            text,
        } => content::message(tx, session, message.as_ref(), *role, text),
        Event::ToolCallStarted {
            session,
            call,
            name,
            title,
        } => content::tool_call_started(tx, session, call, name.as_deref(), title.as_deref()),
        Event::ToolCallCompleted {
            session,
            call,
            status,
        } => content::tool_call_completed(tx, session, call, *status),
        Event::AliasBound { session, alias } => content::bind_alias(tx, session, alias),
        Event::SessionTitled { session, title } => {
            content::set_title(tx, session, title.as_deref())
        }
        Event::InteractionRequested {
            session,
            request,
            kind,
            provider_turn,
            tool_call,
            title,
        } => interaction::requested(
            tx,
            interaction::Request {
                session,
                request,
                kind: *kind,
                provider_turn: provider_turn.as_deref(),
                tool_call: tool_call.as_ref(),
                title: title.as_deref(),
            },
        ),
        Event::InteractionAnswered {
            session,
            request,
            answer,
        } => interaction::answered(tx, session, request, answer.as_deref()),
        Event::InteractionResolved { session, request } => {
            interaction::resolved(tx, session, request)
        }
        Event::CancelRequested { session } => cancel::requested(tx, session),
        Event::CancelAcknowledged { session } => cancel::acknowledged(tx, session),
        Event::CancelCompleted { session } => cancel::completed(tx, session),
        Event::SessionDeleted { session } => delete::delete_subtree(tx, session),
    }
}

#[cfg(test)]
mod tests;
