//! The per-event transaction: a working copy of the snapshot plus the changes and notes
//! gathered so far. All entity access of the handlers goes through it, so phase
//! derivation and change emission happen in exactly one place ([`Tx::update_turn`]).

use std::sync::Arc;

use imbl::OrdMap;

use super::super::change::{Change, ProviderState};
use super::super::diagnostic::Diagnostic;
use super::super::model::{InteractionStatus, Millis, Session, SessionKind, Turn};
use super::super::snapshot::{Snapshot, Step};
use crate::ids::{RequestId, SessionId, TurnId};

/// A rejection: the event does not apply; the snapshot stays as it was.
pub(crate) type Rejected = Diagnostic;

pub(super) struct Tx {
    pub(super) next: Snapshot,
    pub(super) at: Option<Millis>,
    changes: Vec<Change>,
    notes: Vec<Diagnostic>,
}

impl Tx {
    /// A transaction on `next`: a clone of the base (the persistent path) or the
    /// snapshot itself, taken out of its place (in place).
    pub(super) fn new(next: Snapshot, at: Option<Millis>) -> Self {
        Self {
            next,
            at,
            changes: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub(super) fn commit(self) -> Step {
        Step {
            snapshot: self.next,
            changes: self.changes,
            diagnostics: self.notes,
        }
    }

    pub(super) fn change(&mut self, change: Change) {
        self.changes.push(change);
    }

    /// A finding that accompanies an applied (or harmlessly ignored) event.
    pub(super) fn note(&mut self, diagnostic: Diagnostic) {
        self.notes.push(diagnostic);
    }

    pub(super) fn next_seq(&mut self) -> u64 {
        self.next.next_seq += 1;
        self.next.next_seq
    }

    /// A session that exists and was not deleted.
    pub(super) fn live_session(&self, id: &SessionId) -> Result<&Session, Rejected> {
        match self.next.session(id) {
            None => Err(Diagnostic::UnknownSession(id.clone())),
            Some(s) if s.deleted => Err(Diagnostic::DeletedSession(id.clone())),
            Some(s) => Ok(s),
        }
    }

    /// A live session of the kind `event` applies to.
    pub(super) fn live_session_of_kind(
        &self,
        id: &SessionId,
        kind: SessionKind,
        event: &'static str,
    ) -> Result<&Session, Rejected> {
        let session = self.live_session(id)?;
        if session.kind != kind {
            return Err(Diagnostic::WrongSessionKind {
                event,
                session: id.clone(),
                expected: match kind {
                    SessionKind::Root => "root",
                    SessionKind::Child => "child",
                },
            });
        }
        Ok(session)
    }

    pub(super) fn session(&self, id: &SessionId) -> Option<&Session> {
        self.next.session(id)
    }

    pub(super) fn turn(&self, id: &TurnId) -> Option<&Turn> {
        self.next.turn(id)
    }

    pub(super) fn insert_session(&mut self, session: Session) {
        self.next
            .sessions
            .insert(session.id.clone(), Arc::new(session));
    }

    /// Mutates a session in place (path-copying: the base snapshot is untouched), then
    /// keeps it in the map its state belongs to: live (root, or an active turn) or archive.
    pub(super) fn with_session<R>(
        &mut self,
        id: &SessionId,
        f: impl FnOnce(&mut Session) -> R,
    ) -> Option<R> {
        if let Some(session) = self.next.sessions.get_mut(id) {
            let session = Arc::make_mut(session);
            let result = f(session);
            if !is_live(session)
                && let Some(moved) = self.next.sessions.remove(id)
            {
                self.next.archive.insert(id.clone(), moved);
            }
            return Some(result);
        }
        let mut moved = self.next.archive.remove(id)?;
        let session = Arc::make_mut(&mut moved);
        let result = f(session);
        if is_live(session) {
            self.next.sessions.insert(id.clone(), moved);
        } else {
            self.next.archive.insert(id.clone(), moved);
        }
        Some(result)
    }

    /// Sets an interaction's status (and answer), keeping it where its status belongs:
    /// pending ones in the snapshot's map, the others in their session's.
    pub(super) fn set_interaction(
        &mut self,
        key: &(TurnId, RequestId),
        status: InteractionStatus,
        answer: Option<&str>,
    ) {
        let (turn, request) = key;
        let closed_key = (turn.ordinal(), request.clone());
        let found = match self.next.interactions.remove(key) {
            Some(pending) => Some(pending),
            None => self
                .with_session(turn.session(), |s| {
                    s.closed
                        .contains_key(&closed_key)
                        .then(|| Arc::make_mut(&mut s.closed).remove(&closed_key))
                        .flatten()
                })
                .flatten(),
        };
        let Some(mut interaction) = found else {
            return;
        };
        let i = Arc::make_mut(&mut interaction);
        i.status = status;
        if let Some(answer) = answer {
            i.answer = Some(Arc::from(answer));
        }
        if status == InteractionStatus::Pending {
            self.next.interactions.insert(key.clone(), interaction);
        } else {
            self.with_session(turn.session(), |s| {
                Arc::make_mut(&mut s.closed).insert(closed_key, interaction)
            });
        }
    }

    /// Mutates a turn, then stores its derived phase and reports the phase change (or the
    /// settlement). Returns `false` if the turn does not exist.
    pub(super) fn update_turn(&mut self, id: &TurnId, f: impl FnOnce(&mut Turn)) -> bool {
        let Some(index) = id
            .ordinal()
            .checked_sub(1)
            .and_then(|i| usize::try_from(i).ok())
        else {
            return false;
        };
        let found = self
            .with_session(id.session(), |session| {
                let turn = Arc::make_mut(session.turns.make_mut().get_mut(index)?);
                let before = turn.phase;
                f(turn);
                turn.phase = turn.derive_phase();
                Some((turn.phase != before).then(|| {
                    let settled = (turn.error.clone(), turn.settled_at);
                    (turn.phase, turn.outcome, settled)
                }))
            })
            .flatten();
        let Some(moved) = found else {
            return false;
        };
        if let Some((phase, outcome, (error, settled_at))) = moved {
            self.change(match outcome {
                Some(outcome) => Change::TurnSettled {
                    turn: id.clone(),
                    outcome,
                    error,
                    settled_at,
                },
                None => Change::TurnPhaseChanged {
                    turn: id.clone(),
                    phase,
                },
            });
        }
        true
    }
}

impl Tx {
    /// Reports that `id` was opened, with the turn as it stands.
    pub(super) fn turn_opened(&mut self, id: &TurnId) {
        let Some(t) = self.turn(id) else {
            return;
        };
        let change = Change::TurnOpened {
            turn: id.clone(),
            phase: t.phase,
            opened_at: t.opened_at,
            provider: t.gate.as_ref().map(|g| ProviderState::of(&g.provider)),
        };
        self.change(change);
    }

    /// Reports the root turn `id`'s provider lifecycle (and error) as it stands.
    pub(super) fn provider_changed(&mut self, id: &TurnId) {
        let Some(t) = self.turn(id) else {
            return;
        };
        let Some(gate) = &t.gate else {
            return;
        };
        let p = &gate.provider;
        let change = Change::ProviderTurnChanged {
            turn: id.clone(),
            phase: p.phase,
            outcome: p.outcome,
            provider_turn: p.provider_turn.clone(),
            turns: p.turns,
            error: t.error.clone(),
        };
        self.change(change);
    }

    /// Reports the interaction `key` as it stands (created or changed).
    pub(super) fn interaction_changed(&mut self, key: &(TurnId, RequestId)) {
        let Some(i) = self.next.interaction(&key.0, &key.1) else {
            return;
        };
        let change = Change::InteractionChanged {
            turn: i.turn.clone(),
            request: i.request.clone(),
            status: i.status,
            kind: i.kind,
            provider_turn: i.provider_turn.clone(),
            tool_call: i.tool_call.clone(),
            answer: i.answer.clone(),
        };
        self.change(change);
    }
}

/// Does a session belong in the live map (see [`Snapshot`]'s fields)?
pub(crate) fn is_live(session: &Session) -> bool {
    session.kind == SessionKind::Root || session.active_turn().is_some()
}

/// `map.remove(key)`, leaving the map untouched when `key` is absent. `imbl` copies the
/// search path of a shared map on every `remove` and `get_mut`, found or not, and each
/// snapshot a caller keeps would hold that copy.
pub(super) fn remove_present<K: Ord + Clone, V: Clone>(
    map: &mut OrdMap<K, V>,
    key: &K,
) -> Option<V> {
    if map.contains_key(key) {
        map.remove(key)
    } else {
        None
    }
}

/// `map.get_mut(key)`, copying nothing when `key` is absent (see [`remove_present`]).
pub(super) fn get_mut_present<'a, K: Ord + Clone, V: Clone>(
    map: &'a mut OrdMap<K, V>,
    key: &K,
) -> Option<&'a mut V> {
    if map.contains_key(key) {
        map.get_mut(key)
    } else {
        None
    }
}
