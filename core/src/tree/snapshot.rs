//! The immutable snapshot of a session tree and its read API.
//!
//! Owns: the persistent indexes of the tree (sessions, interactions, aliases, cancel
//! operations) and [`Snapshot::apply`], the pure fold step.
//! Never: mutates in place. `apply` returns a new snapshot that shares every untouched
//! node with `self`; `self` is unchanged, so keeping every intermediate snapshot costs
//! O(log n) per event.

use std::ops::Bound;
use std::sync::Arc;

use imbl::OrdMap;

use super::change::Change;
use super::diagnostic::Diagnostic;
use super::event::Event;
use super::list::EmptyLists;
use super::model::{CancelOperation, Interaction, Millis, Session, SessionKind, Turn};
use crate::ids::{Alias, RequestId, SessionId, TurnId};

/// An immutable session tree. Cheap to clone (`O(1)`), cheap to keep.
///
/// # Embedding the reducer
///
/// ```
/// use lineage_core::{Event, Outcome, Phase, Snapshot, TurnId};
///
/// let events: Vec<Event> = [
///     r#"{"type":"root_session_created","session":"R"}"#,
///     r#"{"type":"user_submitted","session":"R","text":"fix the build"}"#,
///     r#"{"type":"root_provider_turn_started","session":"R"}"#,
///     r#"{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"call_1"}"#,
///     r#"{"type":"root_provider_turn_completed","session":"R","outcome":"completed"}"#,
/// ]
/// .iter()
/// .map(|line| serde_json::from_str(line).unwrap())
/// .collect();
///
/// let mut snapshot = Snapshot::new();
/// for event in &events {
///     let step = snapshot.apply(event, None);
///     assert!(step.diagnostics.is_empty());
///     snapshot = step.snapshot;
/// }
/// let root_turn = TurnId::new("R".into(), 1);
/// // The provider finished, but child A is still active: the root turn waits.
/// assert_eq!(snapshot.turn(&root_turn).unwrap().phase, Phase::Waiting);
///
/// let before = snapshot.clone();
/// let done: Event =
///     serde_json::from_str(r#"{"type":"child_turn_completed","session":"A","outcome":"failed"}"#)
///         .unwrap();
/// let step = snapshot.apply(&done, Some(1_000));
/// // The last child settled: the root settles with the retained provider outcome.
/// // A failed child never fails its root.
/// assert_eq!(step.snapshot.turn(&root_turn).unwrap().outcome, Some(Outcome::Completed));
/// // Snapshots are persistent: the earlier one is unchanged.
/// assert_eq!(before.turn(&root_turn).unwrap().phase, Phase::Waiting);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Live sessions: every root, and every child with an active turn. Kept small so the
    /// path an event copies stays short however many sessions have ended.
    pub(crate) sessions: OrdMap<SessionId, Arc<Session>>,
    /// Children with no active turn (ended or deleted): rarely written again.
    pub(crate) archive: OrdMap<SessionId, Arc<Session>>,
    /// Pending interactions (the live ones). Closed ones are kept by their session.
    pub(crate) interactions: OrdMap<(TurnId, RequestId), Arc<Interaction>>,
    pub(crate) aliases: OrdMap<Alias, SessionId>,
    pub(crate) cancels: OrdMap<TurnId, CancelOperation>,
    pub(crate) next_seq: u64,
    /// The lists a new session starts with.
    pub(crate) empty: EmptyLists,
}

/// The result of applying one event.
#[derive(Debug, Clone)]
pub struct Step {
    /// The new snapshot (equal to the old one when the event was rejected).
    pub snapshot: Snapshot,
    /// What changed, in order: what an outbox would publish.
    pub changes: Vec<Change>,
    /// What was rejected, ignored or recorded only as history.
    pub diagnostics: Vec<Diagnostic>,
}

impl Step {
    /// Was the event refused (a warning or an error: the snapshot did not change)?
    pub fn rejected(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() >= crate::tree::Severity::Warning)
    }

    /// Did this step create `session`?
    pub fn created(&self, session: &SessionId) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c, Change::SessionCreated { session: s, .. } if s == session))
    }

    /// The target set of the cancel this step prepared, if it prepared one (the
    /// requested turn first).
    pub fn cancel_prepared(&self) -> Option<&[TurnId]> {
        self.changes.iter().find_map(|c| match c {
            Change::CancelPrepared { targets, .. } => Some(targets.as_slice()),
            _ => None,
        })
    }

    /// Did this step settle a turn of `session`? Returns its outcome.
    pub fn settled(&self, session: &SessionId) -> Option<crate::tree::Outcome> {
        self.changes.iter().find_map(|c| match c {
            Change::TurnSettled { turn, outcome, .. } if turn.session() == session => {
                Some(*outcome)
            }
            _ => None,
        })
    }
}

impl Snapshot {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one event into the tree. Pure: the same snapshot and event always give the
    /// same step. `at` (milliseconds, from the trace) only timestamps what changes.
    pub fn apply(&self, event: &Event, at: Option<Millis>) -> Step {
        super::reduce::apply(self, event, at)
    }

    /// [`Snapshot::apply`] to this snapshot itself, for a caller that keeps no earlier
    /// one (the engine): the same changes and diagnostics, and this snapshot becomes the
    /// step's. Whatever an earlier snapshot still shares is copied on write, so a clone
    /// taken before stays as it was.
    pub(crate) fn apply_in_place(&mut self, event: &Event, at: Option<Millis>) -> super::Applied {
        super::reduce::apply_in_place(self, event, at)
    }

    /// Moves the tree out for an in-place step, leaving an empty tree in its place that
    /// allocates nothing (`mem::take` would build a new [`EmptyLists`]).
    pub(crate) fn take(&mut self) -> Snapshot {
        let placeholder = Snapshot {
            sessions: OrdMap::new(),
            archive: OrdMap::new(),
            interactions: OrdMap::new(),
            aliases: OrdMap::new(),
            cancels: OrdMap::new(),
            next_seq: self.next_seq,
            empty: self.empty.clone(),
        };
        std::mem::replace(self, placeholder)
    }

    /// How many sessions the tree holds, live and ended (deleted ones included).
    pub fn session_count(&self) -> usize {
        self.sessions.len() + self.archive.len()
    }

    /// The session with this id, deleted or not.
    pub fn session(&self, id: &SessionId) -> Option<&Session> {
        self.sessions
            .get(id)
            .or_else(|| self.archive.get(id))
            .map(Arc::as_ref)
    }

    /// Every session, ordered by id.
    pub fn sessions(&self) -> impl Iterator<Item = &Session> {
        // Merge the two id-ordered maps (a session lives in exactly one of them).
        let mut live = self.sessions.values().peekable();
        let mut ended = self.archive.values().peekable();
        std::iter::from_fn(move || match (live.peek(), ended.peek()) {
            (Some(a), Some(b)) if b.id < a.id => ended.next(),
            (Some(_), _) => live.next(),
            (None, _) => ended.next(),
        })
        .map(Arc::as_ref)
    }

    /// Every session in creation order (parents before their children).
    pub fn sessions_in_creation_order(&self) -> Vec<&Session> {
        let mut all: Vec<&Session> = self.sessions().collect();
        all.sort_by_key(|s| s.seq);
        all
    }

    /// Root sessions in creation order.
    pub fn roots(&self) -> Vec<&Session> {
        let mut roots: Vec<&Session> = self
            .sessions
            .values()
            .map(Arc::as_ref)
            .filter(|s| s.kind == SessionKind::Root)
            .collect();
        roots.sort_by_key(|s| s.seq);
        roots
    }

    /// The turn with this id.
    pub fn turn(&self, id: &TurnId) -> Option<&Turn> {
        self.session(id.session())?.turn(id.ordinal())
    }

    /// Every interaction that still exists, in creation order.
    pub fn interactions(&self) -> Vec<&Interaction> {
        let closed = self.sessions().flat_map(|s| s.closed.values());
        let mut all: Vec<&Interaction> = self
            .interactions
            .values()
            .chain(closed)
            .map(Arc::as_ref)
            .collect();
        all.sort_by_key(|i| i.seq);
        all
    }

    /// How many interactions are pending (without walking the closed ones).
    pub fn pending_interaction_count(&self) -> usize {
        self.interactions.len()
    }

    /// The interaction owned by this (turn, request).
    pub fn interaction(&self, turn: &TurnId, request: &RequestId) -> Option<&Interaction> {
        let key = (turn.clone(), request.clone());
        self.interactions
            .get(&key)
            .or_else(|| {
                let closed = &self.session(turn.session())?.closed;
                closed.get(&(turn.ordinal(), request.clone()))
            })
            .map(Arc::as_ref)
    }

    /// The latest interaction with this request id on this session.
    pub fn find_interaction(
        &self,
        session: &SessionId,
        request: &RequestId,
    ) -> Option<&Interaction> {
        let n = *self.session(session)?.requests.get(request)?;
        self.interaction(&TurnId::new(session.clone(), n), request)
    }

    /// The interactions owned by one turn: pending ones first, then closed ones, each in
    /// request-id order.
    pub fn interactions_of(&self, turn: &TurnId) -> impl Iterator<Item = &Interaction> {
        let n = turn.ordinal();
        let closed = self.session(turn.session()).into_iter().flat_map(move |s| {
            s.closed
                .range((Bound::Included((n, RequestId::from(""))), Bound::Unbounded))
                .take_while(move |((t, _), _)| *t == n)
                .map(|(_, i)| i.as_ref())
        });
        self.pending_interactions_of(turn).chain(closed)
    }

    /// The pending interactions owned by one turn, in request-id order.
    pub fn pending_interactions_of(&self, turn: &TurnId) -> impl Iterator<Item = &Interaction> {
        Self::owned_by(&self.interactions, turn)
    }

    fn owned_by<'a>(
        map: &'a OrdMap<(TurnId, RequestId), Arc<Interaction>>,
        turn: &TurnId,
    ) -> impl Iterator<Item = &'a Interaction> + 'a {
        let start = (turn.clone(), RequestId::from(""));
        let turn = turn.clone();
        map.range((Bound::Included(start), Bound::Unbounded))
            .take_while(move |((t, _), _)| *t == turn)
            .map(|(_, i)| i.as_ref())
    }

    /// The session a provider handle is bound to.
    pub fn resolve_alias(&self, alias: &Alias) -> Option<&SessionId> {
        self.aliases.get(alias)
    }

    /// The prepared, not yet completed, cancel requested for this turn.
    pub fn cancel_operation(&self, requested: &TurnId) -> Option<&CancelOperation> {
        self.cancels.get(requested)
    }

    /// The prepared cancel requested for one of `session`'s turns, if any.
    pub fn cancel_requested_in(&self, session: &SessionId) -> Option<&CancelOperation> {
        let start = TurnId::new(session.clone(), 0);
        self.cancels
            .range((Bound::Included(start), Bound::Unbounded))
            .next()
            .filter(|(t, _)| t.session() == session)
            .map(|(_, op)| op)
    }

    /// Every prepared cancel operation, by requested turn.
    pub fn cancel_operations(&self) -> impl Iterator<Item = &CancelOperation> {
        self.cancels.values()
    }
}
