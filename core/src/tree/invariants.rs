//! Every structural invariant of a snapshot, stated once.
//!
//! Owns: [`Snapshot::check_invariants`]. Tests, fuzzers and debug builds call it after
//! every step. `Level::Cheap` checks each entity on its own (one pass, no cross-index
//! recomputation); `Level::Full` also rebuilds every index from scratch and compares.
//! Never: mutates anything or depends on how the snapshot was reached.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{InteractionStatus, ProviderPhase, Session, SessionKind};
use super::snapshot::Snapshot;
use crate::ids::{SessionId, TurnId};

/// How much to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Per-entity checks.
    Cheap,
    /// Per-entity checks plus every index recomputed from scratch.
    Full,
}

/// A broken invariant: always a reducer bug, never an input problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvariantViolation(String);

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)*) => {
        if !$cond {
            return Err(InvariantViolation(format!($($fmt)*)));
        }
    };
}

impl Snapshot {
    /// Checks every structural invariant.
    ///
    /// ```
    /// use lineage_core::{Level, Snapshot};
    /// assert!(Snapshot::new().check_invariants(Level::Full).is_ok());
    /// ```
    pub fn check_invariants(&self, level: Level) -> Result<(), InvariantViolation> {
        self.check_sessions()?;
        self.check_interactions()?;
        if level == Level::Full {
            self.check_indexes()?;
        }
        Ok(())
    }

    fn check_sessions(&self) -> Result<(), InvariantViolation> {
        for (id, s) in &self.sessions {
            ensure!(
                super::reduce::is_live(s) && !self.archive.contains_key(id),
                "session {id} is in the live map but not live (or also archived)"
            );
        }
        for (id, s) in &self.archive {
            ensure!(!super::reduce::is_live(s), "archived session {id} is live");
        }
        for (id, s) in self.sessions.iter().chain(self.archive.iter()) {
            ensure!(s.id == *id, "session keyed {id} has id {}", s.id);
            ensure!(
                (s.kind == SessionKind::Child) == s.relation.is_some(),
                "session {id}: a relation exists exactly for children"
            );
            if s.deleted {
                ensure!(s.turns.is_empty(), "deleted session {id} keeps turns");
                for c in &s.children {
                    ensure!(
                        self.session(c).is_some_and(|c| c.deleted),
                        "deleted session {id} leaves child {c} alive"
                    );
                }
            }
            if let Some(rel) = &s.relation {
                let parent = self.session(&rel.parent_session);
                ensure!(
                    parent.is_some(),
                    "child {id}: parent {} missing",
                    rel.parent_session
                );
                ensure!(
                    rel.parent_turn.session() == &rel.parent_session,
                    "child {id}: parent turn {} not of parent session",
                    rel.parent_turn
                );
                ensure!(
                    rel.root_turn.session() == &rel.root_session,
                    "child {id}: root turn {} not of root session",
                    rel.root_turn
                );
                ensure!(
                    parent.is_some_and(|p| p.children.contains(id)),
                    "child {id}: not listed among its parent's children"
                );
                let root = self.session(&rel.root_session);
                ensure!(
                    root.is_some_and(|r| r.kind == SessionKind::Root),
                    "child {id}: root {} is not a root session",
                    rel.root_session
                );
                ensure!(
                    !s.turns.is_empty() || s.deleted,
                    "live child {id} has no turn"
                );
            }
            for (i, t) in s.turns.iter().enumerate() {
                let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
                ensure!(
                    t.id == TurnId::new(id.clone(), n),
                    "turn {} at position {n} of {id}",
                    t.id
                );
                ensure!(
                    t.phase == t.derive_phase(),
                    "turn {}: stored phase {} ≠ derived {}",
                    t.id,
                    t.phase,
                    t.derive_phase()
                );
                if i + 1 < s.turns.len() {
                    ensure!(
                        !t.is_active(),
                        "turn {} is active but not the last turn of {id}",
                        t.id
                    );
                }
                ensure!(
                    (s.kind == SessionKind::Root) == t.gate.is_some(),
                    "turn {}: a gate exists exactly on root turns",
                    t.id
                );
                if !t.is_active() {
                    ensure!(
                        t.pending_interactions == 0,
                        "settled turn {} has pending interactions",
                        t.id
                    );
                }
                if let Some(gate) = &t.gate {
                    ensure!(
                        gate.provider.outcome.is_some()
                            == (gate.provider.phase == ProviderPhase::Completed),
                        "turn {}: provider outcome retained exactly when the provider turn completed",
                        t.id
                    );
                    if !t.is_active() {
                        ensure!(
                            gate.active_descendants.is_empty(),
                            "settled root turn {} still has active children {:?}",
                            t.id,
                            gate.active_descendants
                        );
                    }
                }
                if let Some(late) = t.late_terminal {
                    ensure!(
                        !t.is_active(),
                        "active turn {} has a late terminal {late}",
                        t.id
                    );
                }
            }
        }
        for (alias, owner) in &self.aliases {
            ensure!(
                self.session(owner)
                    .is_some_and(|s| s.aliases.contains(alias)),
                "alias {alias} names {owner}, which does not list it"
            );
        }
        Ok(())
    }

    fn check_interactions(&self) -> Result<(), InvariantViolation> {
        for ((turn_id, request), i) in self.interactions.iter() {
            ensure!(
                i.status == InteractionStatus::Pending,
                "interaction {turn_id}/{request} in the pending map is {}",
                i.status
            );
        }
        for s in self.sessions() {
            for ((n, request), i) in s.closed.iter() {
                let turn_id = TurnId::new(s.id.clone(), *n);
                ensure!(
                    i.status != InteractionStatus::Pending
                        && !self
                            .interactions
                            .contains_key(&(turn_id.clone(), request.clone())),
                    "interaction {turn_id}/{request} in the closed map is pending or also live"
                );
                ensure!(
                    i.turn == turn_id && i.request == *request,
                    "interaction key mismatch"
                );
                ensure!(
                    s.turn(*n).is_some(),
                    "interaction {request} owned by missing turn {turn_id}"
                );
            }
        }
        for ((turn_id, request), i) in self.interactions.iter() {
            ensure!(
                i.turn == *turn_id && i.request == *request,
                "interaction key mismatch"
            );
            ensure!(
                self.turn(turn_id).is_some_and(|t| t.is_active()),
                "pending interaction {request} on a settled or missing turn {turn_id}"
            );
        }
        for s in self.sessions() {
            for (request, n) in s.requests.iter() {
                ensure!(
                    self.interaction(&TurnId::new(s.id.clone(), *n), request)
                        .is_some(),
                    "request index {}/{request} → #{n} dangles",
                    s.id
                );
            }
        }
        for (key, op) in &self.cancels {
            ensure!(
                op.requested == *key,
                "cancel keyed {key} requested {}",
                op.requested
            );
            ensure!(
                op.targets.front() == Some(key),
                "cancel {key}: requested turn is not the first target"
            );
            for target in &op.targets {
                if let Some(t) = self.turn(target).filter(|t| t.is_active()) {
                    ensure!(
                        t.cancel.as_ref().is_some_and(|m| m.operation == *key),
                        "active target {target} of cancel {key} is not marked by it"
                    );
                }
            }
        }
        Ok(())
    }

    /// Recomputes every index by scanning and compares it with the stored one.
    /// `s`'s ancestors are all alive and its parent chain ends (no cycle). Sessions found
    /// so are remembered in `ok`, so the whole check visits each session once: O(n log n)
    /// for every active child together, not O(n × depth).
    fn ensure_live_ancestors(
        &self,
        s: &Session,
        ok: &mut BTreeSet<SessionId>,
    ) -> Result<(), InvariantViolation> {
        let mut path: Vec<SessionId> = Vec::new();
        let mut cursor = s.relation.as_ref().map(|r| &r.parent_session);
        while let Some(p) = cursor {
            if ok.contains(p) {
                break;
            }
            let Some(ps) = self.session(p) else {
                break;
            };
            ensure!(
                !ps.deleted,
                "live child {} under deleted ancestor {p}",
                s.id
            );
            ensure!(
                path.len() <= self.sessions.len() + self.archive.len(),
                "parent chain of {} has a cycle",
                s.id
            );
            path.push(p.clone());
            cursor = ps.relation.as_ref().map(|r| &r.parent_session);
        }
        ok.extend(path);
        Ok(())
    }

    fn check_indexes(&self) -> Result<(), InvariantViolation> {
        // Active descendants per root turn.
        let mut expected: BTreeMap<TurnId, BTreeSet<TurnId>> = BTreeMap::new();
        let mut pending: BTreeMap<TurnId, u32> = BTreeMap::new();
        let mut live_ancestors: BTreeSet<SessionId> = BTreeSet::new();
        for s in self.sessions() {
            if let (Some(rel), Some(active)) = (&s.relation, s.active_turn()) {
                expected
                    .entry(rel.root_turn.clone())
                    .or_default()
                    .insert(active.id.clone());
                // Nothing is active under a settled or missing root turn.
                ensure!(
                    self.turn(&rel.root_turn).is_some_and(|r| r.is_active()),
                    "child turn {} is active under closed root turn {}",
                    active.id,
                    rel.root_turn
                );
                // An active child turn's session has only live ancestors.
                self.ensure_live_ancestors(s, &mut live_ancestors)?;
            }
            for t in &s.turns {
                if let Some(mark) = t.cancel.as_ref().filter(|_| t.is_active()) {
                    ensure!(
                        self.cancels
                            .get(&mark.operation)
                            .is_some_and(|op| op.targets.contains(&t.id)),
                        "turn {} is marked by cancel {} which does not list it",
                        t.id,
                        mark.operation
                    );
                }
            }
        }
        for i in self.interactions.values() {
            if i.status == InteractionStatus::Pending {
                *pending.entry(i.turn.clone()).or_default() += 1;
            }
        }
        for s in self.sessions() {
            for t in &s.turns {
                let want = pending.get(&t.id).copied().unwrap_or(0);
                ensure!(
                    t.pending_interactions == want,
                    "turn {}: pending count {} ≠ {want} pending interactions",
                    t.id,
                    t.pending_interactions
                );
                if let Some(gate) = &t.gate {
                    let stored: BTreeSet<TurnId> =
                        gate.active_descendants.iter().cloned().collect();
                    let want = expected.remove(&t.id).unwrap_or_default();
                    ensure!(
                        stored == want,
                        "root turn {}: active index {:?} ≠ recomputed {:?}",
                        t.id,
                        stored,
                        want
                    );
                }
            }
            for alias in &s.aliases {
                ensure!(
                    self.aliases.get(alias) == Some(&s.id),
                    "session {} lists alias {alias} bound elsewhere",
                    s.id
                );
            }
        }
        ensure!(
            expected.is_empty(),
            "active child turns under unknown root turns: {expected:?}"
        );
        Ok(())
    }
}
