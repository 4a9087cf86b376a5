//! The ACP arm of the timeline: it reads the Client view's changes, as the tree arm reads
//! the session tree's. A session's lane starts when the view learns of it; a state
//! period starts whenever its activity changes (its reported state, whether that is
//! current, or the connection); the `disconnected` and `replay` windows follow the view's
//! connection and replay-window changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::{Bar, Timeline, Window, push_bar};
use crate::tree::Change;

/// What the recorder knows of the view: the connection, the open replay windows, and
/// each session's current state name (`None`: unconfirmed).
#[derive(Debug, Clone, Default)]
pub(super) struct AcpState {
    disconnected: bool,
    replays: usize,
    current: BTreeMap<Arc<str>, Option<String>>,
}

impl Timeline {
    /// Reads one record's changes; a session's activity is drawn once, as the record
    /// left it.
    pub(super) fn observe_acp(&mut self, line: usize, changes: &[Change]) {
        let mut touched: Vec<Arc<str>> = Vec::new();
        for change in changes {
            match change {
                Change::AcpViewChanged {
                    connection, reset, ..
                } => {
                    let every = self.connection(line, &**connection == "disconnected", *reset);
                    if every {
                        touched.extend(self.acp.current.keys().cloned());
                    }
                }
                Change::AcpReplayWindow { open, .. } => {
                    let before = self.acp.replays;
                    self.acp.replays = if *open {
                        before + 1
                    } else {
                        before.saturating_sub(1)
                    };
                    self.window("replay", line, before > 0, self.acp.replays > 0);
                }
                Change::AcpSessionLearned { session, .. }
                    if !self.acp.current.contains_key(session) =>
                {
                    self.acp.current.insert(session.clone(), None);
                    self.lane(session, line);
                    touched.push(session.clone());
                }
                Change::AcpWorkStateChanged {
                    session,
                    state,
                    state_current,
                    ..
                } => {
                    let name = state.get("state").and_then(Value::as_str);
                    let current = name.filter(|_| *state_current).map(String::from);
                    self.acp.current.insert(session.clone(), current);
                    touched.push(session.clone());
                }
                _ => {}
            }
        }
        let mut drawn = std::collections::BTreeSet::new();
        for id in touched {
            if drawn.insert(id.clone()) {
                self.acp_activity(&id, line);
            }
        }
    }

    /// The connection was lost or restored (or a new one began); a new connection also
    /// closes the replay windows. `true` when every session's activity may change.
    fn connection(&mut self, line: usize, disconnected: bool, reset: bool) -> bool {
        let was = self.acp.disconnected;
        self.acp.disconnected = disconnected;
        self.window("disconnected", line, was, disconnected);
        if reset && self.acp.replays > 0 {
            self.acp.replays = 0;
            self.window("replay", line, true, false);
        }
        was != disconnected
    }

    /// Opens or closes a window of `kind` when `is` differs from `was`.
    fn window(&mut self, kind: &str, line: usize, was: bool, is: bool) {
        if is && !was {
            self.windows.push(Window {
                kind: kind.into(),
                from: line,
                to: None,
            });
        } else if was
            && !is
            && let Some(w) = self.windows.iter_mut().rev().find(|w| w.kind == kind)
        {
            w.to = Some(line);
        }
    }

    /// Starts a new state period of `id` when its activity changed: `disconnected` while
    /// the connection is down, else its current state, else `unconfirmed`.
    fn acp_activity(&mut self, id: &str, line: usize) {
        let state = if self.acp.disconnected {
            "disconnected".to_owned()
        } else {
            match self.acp.current.get(id) {
                Some(Some(name)) => name.clone(),
                _ => "unconfirmed".to_owned(),
            }
        };
        let Some(lane) = self.lanes.get_mut(id) else {
            return;
        };
        let last = lane
            .bars
            .last()
            .and_then(|b| b.phases.last())
            .map(|p| p.1.clone());
        if last.as_deref() == Some(state.as_str()) {
            return;
        }
        let was_running = last.as_deref() == Some("running");
        if let Some(bar) = lane.bars.last_mut() {
            bar.to = Some(line);
        }
        let running = state == "running";
        push_bar(
            lane,
            Bar {
                turn: String::new(),
                from: line,
                to: None,
                outcome: None,
                phases: vec![(line, state)],
            },
        );
        match (was_running, running) {
            (false, true) => self.set_active(line, 1),
            (true, false) => self.set_active(line, -1),
            _ => {}
        }
    }
}
