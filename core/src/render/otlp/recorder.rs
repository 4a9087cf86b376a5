//! When things happened: the line and `at` of each turn's opening and settlement, each
//! tool call's first report and end, each interaction's asking and answer, each
//! cancel's preparation, acknowledgements and completion, and the ACP sessions' first
//! appearance, work states and tool calls. A snapshot holds the last state of each, not
//! when it was reached; the recorder keeps that from the changes as they pass.
//!
//! Owns: [`Recorder`], fed after every push like `timeline::Timeline`, at O(changes)
//! per push. Never: reads a clock; a line number and the records' `at` are the only time.

use std::collections::BTreeMap;

use crate::engine::Engine;
use crate::ids::{CallId, RequestId, SessionId, TurnId};
use crate::output::Output;
use crate::tree::{Change, InteractionStatus, Millis, ToolStatus};

/// Work states kept per ACP session (the first ones); later ones are counted.
pub(super) const MAX_STATES: usize = 1_000;

/// Where in the trace something happened: the physical line and the records' time then.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Stamp {
    pub line: usize,
    pub at: Option<Millis>,
}

/// When something began and ended, as far as the trace shows.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Times {
    pub start: Option<Stamp>,
    pub end: Option<Stamp>,
}

/// A cancel operation's moments.
#[derive(Debug, Clone, Default)]
pub(super) struct CancelTimes {
    pub prepared: Option<Stamp>,
    pub targets: usize,
    pub acknowledged: BTreeMap<TurnId, Stamp>,
    pub completed: Option<Stamp>,
}

/// The span a moment of the trace belongs to: a turn, or an ACP session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Owner {
    Turn(TurnId),
    Acp(String),
}

/// Records the moments an OTLP export needs, one push at a time.
///
/// ```
/// use lineage_core::engine::{Engine, Options};
/// use lineage_core::render::otlp::Recorder;
/// let mut engine = Engine::new(Options::default());
/// let mut recorder = Recorder::default();
/// let out = engine.push_line(r#"{"event":{"type":"root_session_created","session":"R"},"at":5}"#).unwrap();
/// recorder.observe(&engine, &out);
/// assert!(recorder.has_time());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    pub(super) first_at: Option<Millis>,
    pub(super) last: Stamp,
    pub(super) turns: BTreeMap<TurnId, Times>,
    pub(super) tools: BTreeMap<(SessionId, CallId), Times>,
    pub(super) asks: BTreeMap<(TurnId, RequestId), Times>,
    pub(super) cancels: BTreeMap<TurnId, CancelTimes>,
    /// `(stamp, owner)` each time the owner of the latest change moved on.
    pub(super) touched: Vec<(Stamp, Owner)>,
    pub(super) acp_sessions: BTreeMap<String, Times>,
    pub(super) acp_tools: BTreeMap<(String, String), Times>,
    pub(super) acp_states: BTreeMap<String, (Vec<(Stamp, String)>, u32)>,
}

impl Recorder {
    /// Records what the last push did; call it after every push, with the engine after
    /// that push (and after `handle_timeout`, with its output).
    pub fn observe(&mut self, engine: &Engine, out: &Output) {
        let stamp = Stamp {
            line: engine.line(),
            at: engine.latest_time(),
        };
        self.observe_at(stamp, out);
    }

    /// Records the output of `Engine::end` (the end-of-trace changes), at the last
    /// moment seen.
    pub fn observe_end(&mut self, out: &Output) {
        self.observe_at(self.last, out);
    }

    /// Whether any record carried an `at` (otherwise times are record order).
    pub fn has_time(&self) -> bool {
        self.first_at.is_some()
    }

    fn observe_at(&mut self, stamp: Stamp, out: &Output) {
        if self.first_at.is_none() {
            self.first_at = stamp.at;
        }
        self.last = stamp;
        for change in &out.changes {
            self.apply(stamp, change);
        }
    }

    fn apply(&mut self, stamp: Stamp, change: &Change) {
        match change {
            Change::TurnOpened { turn, .. } => {
                self.turns.entry(turn.clone()).or_default().start = Some(stamp);
            }
            Change::TurnSettled { turn, .. } => {
                self.turns.entry(turn.clone()).or_default().end = Some(stamp);
            }
            Change::ToolCallChanged {
                turn, call, status, ..
            } => {
                let ended = *status != ToolStatus::InProgress;
                let key = (turn.session().clone(), call.clone());
                mark(self.tools.entry(key).or_default(), stamp, ended);
            }
            Change::InteractionChanged {
                turn,
                request,
                status,
                ..
            } => {
                let ended = *status != InteractionStatus::Pending;
                let key = (turn.clone(), request.clone());
                mark(self.asks.entry(key).or_default(), stamp, ended);
            }
            Change::CancelPrepared {
                operation, targets, ..
            } => {
                let cancel = self.cancels.entry(operation.clone()).or_default();
                cancel.prepared = Some(stamp);
                cancel.targets = targets.len();
            }
            Change::CancelAcknowledged {
                operation, turn, ..
            } => {
                let cancel = self.cancels.entry(operation.clone()).or_default();
                cancel.acknowledged.entry(turn.clone()).or_insert(stamp);
            }
            Change::CancelCompleted { operation, .. } => {
                self.cancels.entry(operation.clone()).or_default().completed = Some(stamp);
            }
            _ => {}
        }
        match owner_of(change) {
            Some(Owner::Acp(session)) => self.acp(stamp, session, change),
            Some(owner) => self.touch(stamp, owner),
            None => {}
        }
    }

    fn acp(&mut self, stamp: Stamp, session: String, change: &Change) {
        let times = self.acp_sessions.entry(session.clone()).or_default();
        times.start.get_or_insert(stamp);
        times.end = Some(stamp);
        match change {
            Change::AcpWorkStateChanged { state, .. } => {
                let name = state
                    .get("state")
                    .and_then(|s| s.as_str())
                    .unwrap_or("null")
                    .to_owned();
                let (states, dropped) = self.acp_states.entry(session.clone()).or_default();
                if states.len() < MAX_STATES {
                    states.push((stamp, name));
                } else {
                    *dropped = dropped.saturating_add(1);
                }
            }
            Change::AcpToolCallChanged { call, status, .. } => {
                let ended = matches!(&**status, "completed" | "failed" | "cancelled");
                let key = (session.clone(), call.to_string());
                mark(self.acp_tools.entry(key).or_default(), stamp, ended);
            }
            _ => {}
        }
        self.touch(stamp, Owner::Acp(session));
    }

    fn touch(&mut self, stamp: Stamp, owner: Owner) {
        if self.touched.last().is_none_or(|(_, o)| *o != owner) {
            self.touched.push((stamp, owner));
        }
    }

    /// The owner of the latest change at or before `line` (the first one when none is),
    /// with its stamp: where a finding of that line is shown.
    pub(super) fn owner_at(&self, line: usize) -> Option<&(Stamp, Owner)> {
        let after = self.touched.partition_point(|(s, _)| s.line <= line);
        match after.checked_sub(1) {
            Some(i) => self.touched.get(i),
            None => self.touched.first(),
        }
    }

    /// Nanoseconds since the Unix epoch for a stamp: its `at`; before the first `at`,
    /// the first `at`; in a trace without any `at`, its line as milliseconds (record
    /// order).
    pub(super) fn nanos(&self, stamp: Stamp) -> u64 {
        let millis = match (stamp.at, self.first_at) {
            (Some(at), _) | (None, Some(at)) => at,
            (None, None) => stamp.line as u64,
        };
        millis.saturating_mul(1_000_000)
    }
}

/// A first report starts; the first terminal report ends.
fn mark(times: &mut Times, stamp: Stamp, ended: bool) {
    times.start.get_or_insert(stamp);
    if ended && times.end.is_none() {
        times.end = Some(stamp);
    }
}

/// The turn or ACP session a change is about.
fn owner_of(change: &Change) -> Option<Owner> {
    let turn = match change {
        Change::TurnOpened { turn, .. }
        | Change::TurnPhaseChanged { turn, .. }
        | Change::TurnSettled { turn, .. }
        | Change::LateTerminalRecorded { turn, .. }
        | Change::ProviderTurnChanged { turn, .. }
        | Change::GuidanceAdded { turn, .. }
        | Change::MessageAppended { turn, .. }
        | Change::ToolCallChanged { turn, .. }
        | Change::InteractionChanged { turn, .. }
        | Change::CancelPrepared {
            operation: turn, ..
        }
        | Change::CancelAcknowledged { turn, .. }
        | Change::CancelCompleted {
            operation: turn, ..
        } => turn,
        Change::AcpSessionLearned { session, .. }
        | Change::AcpLabelsChanged { session, .. }
        | Change::AcpWorkStateChanged { session, .. }
        | Change::AcpControlsChanged { session, .. }
        | Change::AcpUsageChanged { session, .. }
        | Change::AcpMessageChanged { session, .. }
        | Change::AcpToolCallChanged { session, .. }
        | Change::AcpTranscriptEntryAdded { session, .. }
        | Change::AcpTranscriptAppended { session, .. }
        | Change::AcpTranscriptCleared { session }
        | Change::AcpPlanChanged { session, .. } => {
            return Some(Owner::Acp(session.to_string()));
        }
        _ => return None,
    };
    Some(Owner::Turn(turn.clone()))
}
