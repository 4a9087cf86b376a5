//! The history of a replay, for pictures: when each session existed, what each of its
//! turns (or, in an ACP trace, its reported work state) was at every line, when
//! interactions were asked and answered, where cancels landed, and where findings are.
//!
//! Owns: a [`Timeline`] recorder fed after every push to the [`Engine`], and its
//! serializable summary. The recorder reads only what the push changed (its changes: the
//! session tree's, or the ACP Client view's), so recording costs O(changes) per line,
//! never a walk of the tree.
//! Never: interprets records itself (the engine did), or reads a clock: lines and the
//! records' `at` are the only time.
//!
//! Bounds: a timeline keeps at most [`MAX_LANES`] sessions with their bars (the rest are
//! counted, and their activity still counts in [`Summary::activity`]), at most
//! [`MAX_BARS`] bars per session (the first and last halves), and at most [`MAX_MARKS`]
//! interactions, cancels and findings each, so a picture of any trace has a bounded size.
//!
//! ```
//! use lineage_core::engine::{Engine, Options};
//! use lineage_core::timeline::Timeline;
//! let trace = [
//!     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
//!     r#"{"event":{"type":"user_submitted","session":"R"}}"#,
//! ];
//! let mut engine = Engine::new(Options::default());
//! let mut timeline = Timeline::default();
//! for line in trace {
//!     let out = engine.push_line(line).unwrap();
//!     timeline.observe(&engine, &out);
//! }
//! let summary = timeline.summary(&engine.finish().unwrap());
//! assert_eq!(summary.lanes[0].id, "R");
//! assert_eq!(summary.lanes[0].bars[0].phases[0], (2, "submitted".to_string()));
//! ```

mod acp;
mod details;
#[cfg(test)]
mod tests;

use details::describe;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::{Engine, Replay, State};
use crate::output::Output;
use crate::tree::{Change, Millis, Phase};
use crate::{SessionId, TurnId};

/// Sessions drawn with their bars; later ones are counted only.
pub const MAX_LANES: usize = 500;
/// Bars kept per session (the first and the last halves).
pub const MAX_BARS: usize = 200;
/// Interactions, cancels and findings kept, each.
pub const MAX_MARKS: usize = 5_000;
/// Points of the activity curve kept (evenly thinned).
const MAX_ACTIVITY: usize = 2_000;

/// One turn (or one reported ACP state period) of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bar {
    /// The turn id (`""` for an ACP state period).
    pub turn: String,
    /// Line it began at.
    pub from: usize,
    /// Line it settled (or the period ended) at; `None` while still open.
    pub to: Option<usize>,
    /// The outcome (`completed`, `failed`, `canceled`, `interrupted`), once settled.
    pub outcome: Option<String>,
    /// Phases (or ACP states) from the line each began: `(line, name)`.
    pub phases: Vec<(usize, String)>,
}

/// One session of the picture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lane {
    /// Session id.
    pub id: String,
    /// Parent session id (children).
    pub parent: Option<String>,
    /// The parent turn that spawned it (canonical children).
    pub parent_turn: Option<String>,
    /// Display label (title), from the end state.
    pub label: Option<String>,
    /// Line the session first appeared at.
    pub created: usize,
    /// Bars in order.
    pub bars: Vec<Bar>,
    /// Bars dropped from the middle (beyond [`MAX_BARS`]).
    pub elided_bars: usize,
    /// Details shown on click (messages, tool calls, capabilities), from the end state.
    pub details: Vec<(String, String)>,
}

/// An interaction (permission, question, elicitation): asked, then answered or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ask {
    /// The owning session.
    pub session: String,
    /// Request id.
    pub request: String,
    /// Line asked at.
    pub from: usize,
    /// Line it left `pending` at.
    pub to: Option<usize>,
    /// Its last status.
    pub status: String,
}

/// A cancel: prepared for a turn with its targets, acknowledged, completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CancelMark {
    /// The turn the cancel was requested for.
    pub turn: String,
    /// Line prepared at.
    pub prepared: usize,
    /// Target turns, with the line each was acknowledged at.
    pub targets: Vec<(String, Option<usize>)>,
    /// Line completed at.
    pub completed: Option<usize>,
}

/// A window of the ACP connection: `disconnected`, or a `replay` of a load/resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// `disconnected` or `replay`.
    pub kind: String,
    /// First line.
    pub from: usize,
    /// Line it ended at; `None` if still open at the end.
    pub to: Option<usize>,
}

/// Everything a picture draws, bounded (see the module's *Bounds*).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// The last line read.
    pub last_line: usize,
    /// `(line, at)` where the records' clock moved (thinned to the lines that matter).
    pub times: Vec<(usize, Millis)>,
    /// Sessions in tree order (parents before children).
    pub lanes: Vec<Lane>,
    /// Sessions not drawn (beyond [`MAX_LANES`]).
    pub elided_lanes: usize,
    /// `(line, sessions with an active turn or a running state)`.
    pub activity: Vec<(usize, u64)>,
    /// Interactions.
    pub asks: Vec<Ask>,
    /// Cancels.
    pub cancels: Vec<CancelMark>,
    /// ACP connection and replay windows.
    pub windows: Vec<Window>,
    /// Marks dropped (beyond [`MAX_MARKS`]).
    pub elided_marks: usize,
}

/// Records a replay's history, one push at a time.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    last_line: usize,
    times: Vec<(usize, Millis)>,
    lanes: BTreeMap<String, LaneState>,
    order: Vec<String>,
    active: u64,
    activity: Vec<(usize, u64)>,
    asks: Vec<Ask>,
    open_asks: BTreeMap<(String, String), usize>,
    cancels: Vec<CancelMark>,
    open_cancels: BTreeMap<String, usize>,
    windows: Vec<Window>,
    elided_marks: usize,
    acp: acp::AcpState,
}

#[derive(Debug, Clone, Default)]
struct LaneState {
    created: usize,
    bars: Vec<Bar>,
    elided: usize,
}

impl Timeline {
    /// Records what the last push did (its `Output`); call it after every push, with the
    /// engine after that push. Every format is read from its changes.
    pub fn observe(&mut self, engine: &Engine, out: &Output) {
        let line = engine.line();
        self.last_line = line;
        if let Some(at) = engine.latest_time()
            && self.times.last().is_none_or(|&(_, last)| last != at)
        {
            self.times.push((line, at));
        }
        if engine.view().is_some() {
            self.observe_acp(line, &out.changes);
        } else {
            for change in &out.changes {
                self.apply(line, change);
            }
        }
    }

    /// Records the changes of a timeout (`Engine::handle_timeout`).
    pub fn observe_timeout(&mut self, engine: &Engine, out: &Output) {
        for change in &out.changes {
            self.apply(engine.line(), change);
        }
    }

    fn apply(&mut self, line: usize, change: &Change) {
        match change {
            Change::SessionCreated { session, .. } => self.lane(session.as_str(), line),
            // The change's own phase: the snapshot holds the phase after the whole record,
            // which for a turn opened and settled by one record (a resumed thread's history)
            // is `settled`, before the phases it went through.
            Change::TurnOpened { turn, phase, .. } => self.open_bar(turn, line, *phase),
            Change::TurnPhaseChanged { turn, phase, .. } => {
                if let Some(bar) = self.bar_mut(turn) {
                    bar.phases.push((line, phase.to_string()));
                }
            }
            Change::TurnSettled { turn, outcome, .. } => {
                if let Some(bar) = self.bar_mut(turn) {
                    bar.to = Some(line);
                    bar.outcome = Some(outcome.to_string());
                }
                self.set_active(line, -1);
            }
            Change::InteractionChanged {
                turn,
                request,
                status,
                ..
            } => self.ask(turn.session().as_str(), request.as_str(), line, status),
            Change::CancelPrepared {
                operation, targets, ..
            } => {
                self.cancel_prepared(operation, targets, line);
            }
            Change::CancelAcknowledged {
                operation, turn, ..
            } => {
                self.cancel_acked(operation, turn, line);
            }
            Change::CancelCompleted { operation, .. } => {
                if let Some(c) = self.open_cancel(operation) {
                    c.completed = Some(line);
                }
            }
            _ => {}
        }
    }

    fn lane(&mut self, id: &str, line: usize) {
        if !self.lanes.contains_key(id) {
            self.order.push(id.to_owned());
            self.lanes.insert(
                id.to_owned(),
                LaneState {
                    created: line,
                    ..LaneState::default()
                },
            );
        }
    }

    fn open_bar(&mut self, turn: &TurnId, line: usize, phase: Phase) {
        let session = turn.session().as_str();
        self.lane(session, line);
        if let Some(lane) = self.lanes.get_mut(session) {
            push_bar(
                lane,
                Bar {
                    turn: turn.to_string(),
                    from: line,
                    to: None,
                    outcome: None,
                    phases: vec![(line, phase.to_string())],
                },
            );
        }
        self.set_active(line, 1);
    }

    /// The bar of `turn`, if it is its session's last one (only the last can change).
    fn bar_mut(&mut self, turn: &TurnId) -> Option<&mut Bar> {
        let lane = self.lanes.get_mut(turn.session().as_str())?;
        let bar = lane.bars.last_mut()?;
        (bar.turn == turn.to_string()).then_some(bar)
    }

    fn set_active(&mut self, line: usize, delta: i64) {
        self.active = self.active.saturating_add_signed(delta);
        match self.activity.last_mut() {
            Some((l, n)) if *l == line => *n = self.active,
            _ => self.activity.push((line, self.active)),
        }
    }

    fn ask(&mut self, session: &str, request: &str, line: usize, status: &impl ToString) {
        let status = status.to_string();
        let key = (session.to_owned(), request.to_owned());
        if let Some(&i) = self.open_asks.get(&key)
            && let Some(ask) = self.asks.get_mut(i)
        {
            if ask.to.is_none() && status != "pending" {
                ask.to = Some(line);
            }
            ask.status = status;
            return;
        }
        if self.asks.len() >= MAX_MARKS {
            self.elided_marks += 1;
            return;
        }
        self.open_asks.insert(key, self.asks.len());
        self.asks.push(Ask {
            session: session.to_owned(),
            request: request.to_owned(),
            from: line,
            to: (status != "pending").then_some(line),
            status,
        });
    }

    fn cancel_prepared(&mut self, turn: &TurnId, targets: &[TurnId], line: usize) {
        if self.cancels.len() >= MAX_MARKS {
            self.elided_marks += 1;
            return;
        }
        self.open_cancels
            .insert(turn.to_string(), self.cancels.len());
        self.cancels.push(CancelMark {
            turn: turn.to_string(),
            prepared: line,
            targets: targets.iter().map(|t| (t.to_string(), None)).collect(),
            completed: None,
        });
    }

    fn cancel_acked(&mut self, turn: &TurnId, target: &TurnId, line: usize) {
        let target = target.to_string();
        if let Some(c) = self.open_cancel(turn)
            && let Some(t) = c.targets.iter_mut().find(|(id, _)| *id == target)
        {
            t.1 = Some(line);
        }
    }

    fn open_cancel(&mut self, turn: &TurnId) -> Option<&mut CancelMark> {
        let i = *self.open_cancels.get(&turn.to_string())?;
        self.cancels.get_mut(i)
    }

    /// The bounded summary, with parents, labels and details from `end` (the replay's
    /// end state); lanes in tree order, parents before children.
    pub fn summary(&self, end: &Replay) -> Summary {
        let lanes = tree_order(&self.order, |id| parent_of(end, id))
            .into_iter()
            .take(MAX_LANES)
            .filter_map(|id| {
                let state = self.lanes.get(id)?;
                let (parent, parent_turn, label, details) = describe(end, id);
                Some(Lane {
                    id: id.to_owned(),
                    parent,
                    parent_turn,
                    label,
                    created: state.created,
                    bars: state.bars.clone(),
                    elided_bars: state.elided,
                    details,
                })
            })
            .collect();
        Summary {
            last_line: self.last_line,
            times: thin(&self.times, MAX_ACTIVITY),
            lanes,
            elided_lanes: self.order.len().saturating_sub(MAX_LANES),
            activity: thin(&self.activity, MAX_ACTIVITY),
            asks: self.asks.clone(),
            cancels: self.cancels.clone(),
            windows: self.windows.clone(),
            elided_marks: self.elided_marks,
        }
    }
}

/// The parent session of `id` in the end state.
fn parent_of(end: &Replay, id: &str) -> Option<String> {
    match &end.state {
        State::Tree(s) => s
            .session(&SessionId::from(id))?
            .relation
            .as_ref()
            .map(|r| r.parent_session.to_string()),
        State::Acp(v) => v.session(id)?.parent.as_deref().map(String::from),
    }
}

/// `ids` (in first-seen order) reordered depth first: each session, then its children
/// in first-seen order. Sessions whose parent is not among `ids` are roots. Iterative.
fn tree_order<'a>(ids: &'a [String], parent: impl Fn(&str) -> Option<String>) -> Vec<&'a str> {
    let known: std::collections::BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut children: BTreeMap<&str, Vec<&'a str>> = BTreeMap::new();
    let mut roots = Vec::new();
    for id in ids {
        match parent(id) {
            Some(p) if known.contains(p.as_str()) && p != *id => {
                if let Some(&key) = known.get(p.as_str()) {
                    children.entry(key).or_default().push(id);
                }
            }
            _ => roots.push(id.as_str()),
        }
    }
    let mut out = Vec::with_capacity(ids.len());
    let mut seen = std::collections::BTreeSet::new();
    let mut stack: Vec<&str> = roots.into_iter().rev().collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        out.push(id);
        if let Some(kids) = children.get(id) {
            stack.extend(kids.iter().rev());
        }
    }
    // Anything left (a parent cycle cannot happen in the tree, but stay total).
    out.extend(
        ids.iter()
            .map(String::as_str)
            .filter(|id| !seen.contains(id)),
    );
    out
}

/// Adds a bar, keeping the first and the last `MAX_BARS / 2` of a lane.
fn push_bar(lane: &mut LaneState, bar: Bar) {
    if lane.bars.len() >= MAX_BARS {
        lane.bars.remove(MAX_BARS / 2);
        lane.elided += 1;
    }
    lane.bars.push(bar);
}

/// At most `max` points, evenly chosen, always keeping the last.
fn thin<T: Clone>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max {
        return points.to_vec();
    }
    let step = points.len().div_ceil(max);
    let mut out: Vec<T> = points.iter().step_by(step).cloned().collect();
    if let Some(last) = points.last() {
        out.push(last.clone());
    }
    out
}
