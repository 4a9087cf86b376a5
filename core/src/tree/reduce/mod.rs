//! The canonical reducer: `Snapshot × Event → Snapshot + changes + diagnostics`.
//!
//! Owns: every lifecycle rule of the Provider-Native Subagents seed, one handler per
//! event family (`root`, `child`, `content` (usage too), `interaction`, `cancel`, `delete`) and one
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

use super::change::Change;
use super::diagnostic::Diagnostic;
use super::event::Event;
use super::model::Millis;
use super::snapshot::{Snapshot, Step};
use tx::Tx;

pub(crate) use tx::{Rejected, is_live};

pub(super) fn apply(base: &Snapshot, event: &Event, at: Option<Millis>) -> Step {
    let mut tx = Tx::new(base.clone(), at);
    let result = dispatch(&mut tx, event);
    let step = match result {
        Ok(()) => tx.commit(),
        Err(rejection) => Step {
            snapshot: base.clone(),
            changes: Vec::new(),
            diagnostics: vec![rejection],
        },
    };
    debug_check(&step.snapshot, event);
    step
}

/// What applying an event in place caused: [`Step`] without the snapshot.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    pub(crate) changes: Vec<Change>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Applies `event` to `snapshot` itself, with the same result as [`apply`].
///
/// The working copy *is* the snapshot, so no base is kept and nothing the event writes is
/// path-copied unless a caller still holds an earlier snapshot sharing it (the persistent
/// maps and `Arc`s copy on write only what is shared). That is sound only for handlers
/// that validate before they write: a rejection must leave the snapshot as it was.
/// [`validates_first`] names those events; any other takes the persistent path. Debug
/// builds check every in-place step against [`apply`] on a kept base.
pub(crate) fn apply_in_place(
    snapshot: &mut Snapshot,
    event: &Event,
    at: Option<Millis>,
) -> Applied {
    if !validates_first(event) {
        let step = apply(snapshot, event, at);
        *snapshot = step.snapshot;
        return Applied {
            changes: step.changes,
            diagnostics: step.diagnostics,
        };
    }
    #[cfg(debug_assertions)]
    let base = snapshot.clone();
    let mut tx = Tx::new(snapshot.take(), at);
    let result = dispatch(&mut tx, event);
    let applied = match result {
        Ok(()) => {
            let step = tx.commit();
            *snapshot = step.snapshot;
            Applied {
                changes: step.changes,
                diagnostics: step.diagnostics,
            }
        }
        Err(rejection) => {
            *snapshot = tx.commit().snapshot;
            Applied {
                changes: Vec::new(),
                diagnostics: vec![rejection],
            }
        }
    };
    #[cfg(debug_assertions)]
    same_as_persistent(&base, snapshot, &applied, event, at);
    applied
}

/// The events whose handlers return every rejection before their first write (read in
/// `root.rs`, `child.rs`, `content.rs`, `interaction.rs`). Cancels and deletes, rarer
/// and visiting more, keep the persistent path.
fn validates_first(event: &Event) -> bool {
    !matches!(
        event,
        Event::CancelRequested { .. }
            | Event::CancelAcknowledged { .. }
            | Event::CancelCompleted { .. }
            | Event::SessionDeleted { .. }
    )
}

/// Debug builds: an in-place step equals the persistent step from the same base.
#[cfg(debug_assertions)]
fn same_as_persistent(
    base: &Snapshot,
    after: &Snapshot,
    applied: &Applied,
    event: &Event,
    at: Option<Millis>,
) {
    let step = apply(base, event, at);
    let same = step.snapshot == *after
        && step.changes == applied.changes
        && step.diagnostics == applied.diagnostics;
    // A difference is a handler that wrote before it rejected: a bug here, never input.
    #[allow(clippy::panic)]
    if !same {
        panic!(
            "`{}` applied in place differs from its persistent step",
            event.name()
        );
    }
}

/// Debug builds re-check every invariant after each step while the tree is small (the
/// corpus, the model tests and the fuzzers all are); the check is O(n log n), so a huge
/// generated tree is checked by its tests at chosen points instead.
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
fn debug_check(snapshot: &Snapshot, event: &Event) {
    #[cfg(debug_assertions)]
    if snapshot.session_count() <= DEBUG_CHECK_LIMIT
        && let Err(violation) = snapshot.check_invariants(super::invariants::Level::Full)
    {
        // A broken invariant is a bug in this reducer, never a property of the input.
        #[allow(clippy::panic)]
        {
            panic!("invariant broken after `{}`: {violation}", event.name());
        }
    }
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
        Event::UsageReported { turn, .. } => {
            content::usage_reported(tx, turn, event.usage().unwrap_or_default())
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
