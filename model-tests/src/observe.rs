//! One observable view of a session tree, projected from the reducer's [`Snapshot`]
//! (through its public API only) and from the reference [`Model`].
//!
//! Everything is a plain string in an ordered map, so two observables compare with `==`
//! and a mismatch prints readably.

use std::collections::{BTreeMap, BTreeSet};

use lineage_core::{Outcome, Phase, ProviderPhase, Role, Snapshot, ToolStatus};

use crate::model::{Kind, Model, turn_name};

/// What a session looks like from outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObsSession {
    /// `root` or `child`.
    pub kind: String,
    /// Children: the parent session.
    pub parent_session: Option<String>,
    /// Children: the delegating turn.
    pub parent_turn: Option<String>,
    /// Children: the delegation tool call.
    pub tool_call: Option<String>,
    /// Children: the root session.
    pub root_session: Option<String>,
    /// Children: the root turn.
    pub root_turn: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// Tombstoned.
    pub deleted: bool,
    /// `kind:id` provider handles.
    pub aliases: BTreeSet<String>,
    /// Turn ids in order.
    pub turns: Vec<String>,
    /// `turn|role|history|text` per transcript entry (live sessions only).
    pub messages: Vec<String>,
    /// call → `turn|status` (live sessions only).
    pub tool_calls: BTreeMap<String, String>,
}

/// What a turn looks like from outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObsTurn {
    /// Phase.
    pub phase: String,
    /// Outcome, once settled.
    pub outcome: Option<String>,
    /// Root turns: provider phase.
    pub provider_phase: Option<String>,
    /// Root turns: retained provider outcome.
    pub provider_outcome: Option<String>,
    /// Root turns: provider turns counted.
    pub provider_turns: Option<u32>,
    /// A terminal recorded after settlement.
    pub late_terminal: Option<String>,
    /// Active turns covered by a cancel: `op=<requested turn> ack=<bool>`.
    pub cancel: Option<String>,
    /// Guidance submissions joined to this turn.
    pub guidance: u32,
    /// Error text of a `failed` / `interrupted` outcome.
    pub error: Option<String>,
    /// `at` of the opening event.
    pub opened_at: Option<u64>,
    /// `at` of the settling event.
    pub settled_at: Option<u64>,
    /// The reported token counts.
    pub usage: Option<lineage_core::tree::Usage>,
}

/// The whole observable tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Observable {
    /// By session id.
    pub sessions: BTreeMap<String, ObsSession>,
    /// By turn id.
    pub turns: BTreeMap<String, ObsTurn>,
    /// (turn id, request) → status.
    pub interactions: BTreeMap<(String, String), String>,
    /// In-flight cancel operations: requested turn → sorted targets.
    pub cancels: BTreeMap<String, BTreeSet<String>>,
}

fn phase(p: Phase) -> String {
    p.to_string()
}

fn outcome(o: Outcome) -> String {
    o.to_string()
}

fn provider_phase(p: ProviderPhase) -> String {
    match p {
        ProviderPhase::Idle => "idle",
        ProviderPhase::Running => "running",
        ProviderPhase::Completed => "completed",
    }
    .to_owned()
}

fn role(r: Role) -> &'static str {
    match r {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Thought => "thought",
        Role::System => "system",
    }
}

fn tool_status(t: ToolStatus) -> &'static str {
    match t {
        ToolStatus::InProgress => "in_progress",
        ToolStatus::Completed => "completed",
        ToolStatus::Failed => "failed",
        ToolStatus::Canceled => "canceled",
    }
}

impl Observable {
    /// Projects the reducer's snapshot through its public read API.
    pub fn of_snapshot(snapshot: &Snapshot) -> Self {
        let mut out = Observable::default();
        for s in snapshot.sessions() {
            let rel = s.relation.as_deref();
            let live = !s.deleted;
            out.sessions.insert(
                s.id.to_string(),
                ObsSession {
                    kind: match s.kind {
                        lineage_core::SessionKind::Root => "root".into(),
                        lineage_core::SessionKind::Child => "child".into(),
                    },
                    parent_session: rel.map(|r| r.parent_session.to_string()),
                    parent_turn: rel.map(|r| r.parent_turn.to_string()),
                    tool_call: rel.and_then(|r| r.tool_call.as_ref().map(|c| c.to_string())),
                    root_session: rel.map(|r| r.root_session.to_string()),
                    root_turn: rel.map(|r| r.root_turn.to_string()),
                    title: s.title.as_deref().map(str::to_owned),
                    deleted: s.deleted,
                    aliases: s.aliases.iter().map(|a| a.to_string()).collect(),
                    turns: s.turns.iter().map(|t| t.id.to_string()).collect(),
                    messages: if live {
                        s.messages
                            .iter()
                            .map(|m| {
                                format!(
                                    "{}#{}|{}|{}|{}",
                                    s.id,
                                    m.turn,
                                    role(m.role),
                                    m.history,
                                    m.text
                                )
                            })
                            .collect()
                    } else {
                        Vec::new()
                    },
                    tool_calls: if live {
                        s.tool_calls
                            .values()
                            .map(|c| {
                                (
                                    c.id.to_string(),
                                    format!("{}#{}|{}", s.id, c.turn, tool_status(c.status)),
                                )
                            })
                            .collect()
                    } else {
                        BTreeMap::new()
                    },
                },
            );
            for t in &s.turns {
                let provider = t.gate.as_ref().map(|g| &g.provider);
                out.turns.insert(
                    t.id.to_string(),
                    ObsTurn {
                        phase: phase(t.phase),
                        outcome: t.outcome.map(outcome),
                        provider_phase: provider.map(|p| provider_phase(p.phase)),
                        provider_outcome: provider.and_then(|p| p.outcome.map(outcome)),
                        provider_turns: provider.map(|p| p.turns),
                        late_terminal: t.late_terminal.map(outcome),
                        cancel: if t.outcome.is_none() {
                            t.cancel
                                .as_ref()
                                .map(|c| format!("op={} ack={}", c.operation, c.acknowledged))
                        } else {
                            None
                        },
                        guidance: t.guidance,
                        error: t.error.as_deref().map(str::to_owned),
                        opened_at: t.opened_at,
                        settled_at: t.settled_at,
                        usage: t.usage.as_deref().copied(),
                    },
                );
            }
        }
        for i in snapshot.interactions() {
            out.interactions.insert(
                (i.turn.to_string(), i.request.to_string()),
                i.status.to_string(),
            );
        }
        for op in snapshot.cancel_operations() {
            out.cancels.insert(
                op.requested.to_string(),
                op.targets.iter().map(|t| t.to_string()).collect(),
            );
        }
        out
    }

    /// Projects the reference model.
    pub fn of_model(model: &Model) -> Self {
        let mut out = Observable::default();
        for s in &model.sessions {
            let rel = s.relation.as_ref();
            let live = !s.deleted;
            out.sessions.insert(
                s.id.clone(),
                ObsSession {
                    kind: match s.kind {
                        Kind::Root => "root".into(),
                        Kind::Child => "child".into(),
                    },
                    parent_session: rel.map(|r| r.parent_session.clone()),
                    parent_turn: rel.map(|r| turn_name(&r.parent_turn)),
                    tool_call: rel.and_then(|r| r.tool_call.clone()),
                    root_session: rel.map(|r| r.root_session.clone()),
                    root_turn: rel.map(|r| turn_name(&r.root_turn)),
                    title: s.title.clone(),
                    deleted: s.deleted,
                    aliases: s.aliases.iter().map(|(k, i)| format!("{k}:{i}")).collect(),
                    turns: s
                        .turns
                        .iter()
                        .map(|t| format!("{}#{}", s.id, t.n))
                        .collect(),
                    messages: if live {
                        s.messages
                            .iter()
                            .map(|m| {
                                format!(
                                    "{}#{}|{}|{}|{}",
                                    s.id,
                                    m.turn,
                                    role(m.role),
                                    m.history,
                                    m.text
                                )
                            })
                            .collect()
                    } else {
                        Vec::new()
                    },
                    tool_calls: if live {
                        s.tools
                            .iter()
                            .map(|c| {
                                (
                                    c.id.clone(),
                                    format!("{}#{}|{}", s.id, c.turn, tool_status(c.status)),
                                )
                            })
                            .collect()
                    } else {
                        BTreeMap::new()
                    },
                },
            );
            for t in &s.turns {
                let tref = (s.id.clone(), t.n);
                let provider = t.provider.as_ref();
                out.turns.insert(
                    turn_name(&tref),
                    ObsTurn {
                        phase: phase(model.phase(&tref)),
                        outcome: t.outcome.map(outcome),
                        provider_phase: provider.map(|p| provider_phase(p.phase)),
                        provider_outcome: provider.and_then(|p| p.outcome.map(outcome)),
                        provider_turns: provider.map(|p| p.turns),
                        late_terminal: t.late_terminal.map(outcome),
                        cancel: model.covering(&tref).map(|op| {
                            format!(
                                "op={} ack={}",
                                turn_name(&op.requested),
                                op.acked.contains(&tref)
                            )
                        }),
                        guidance: t.guidance,
                        error: t.error.clone(),
                        opened_at: t.opened_at,
                        settled_at: t.settled_at,
                        usage: t.usage,
                    },
                );
            }
        }
        for i in &model.interactions {
            out.interactions.insert(
                (turn_name(&i.turn), i.request.clone()),
                i.status.to_string(),
            );
        }
        for op in &model.cancels {
            out.cancels.insert(
                turn_name(&op.requested),
                op.targets.iter().map(turn_name).collect(),
            );
        }
        out
    }

    /// A line-per-difference description of how `other` differs from `self`.
    pub fn diff(&self, other: &Observable) -> String {
        let mut out = String::new();
        let keys: BTreeSet<&String> = self.sessions.keys().chain(other.sessions.keys()).collect();
        for k in keys {
            let (a, b) = (self.sessions.get(k), other.sessions.get(k));
            if a != b {
                out.push_str(&format!("session {k}:\n  left:  {a:?}\n  right: {b:?}\n"));
            }
        }
        let keys: BTreeSet<&String> = self.turns.keys().chain(other.turns.keys()).collect();
        for k in keys {
            let (a, b) = (self.turns.get(k), other.turns.get(k));
            if a != b {
                out.push_str(&format!("turn {k}:\n  left:  {a:?}\n  right: {b:?}\n"));
            }
        }
        let keys: BTreeSet<&(String, String)> = self
            .interactions
            .keys()
            .chain(other.interactions.keys())
            .collect();
        for k in keys {
            let (a, b) = (self.interactions.get(k), other.interactions.get(k));
            if a != b {
                out.push_str(&format!("interaction {k:?}: left {a:?} right {b:?}\n"));
            }
        }
        if self.cancels != other.cancels {
            out.push_str(&format!(
                "cancels:\n  left:  {:?}\n  right: {:?}\n",
                self.cancels, other.cancels
            ));
        }
        out
    }
}
