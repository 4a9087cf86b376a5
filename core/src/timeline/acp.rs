//! The ACP arm of the timeline: the Client view has no change log, so after each record
//! the recorder compares the activity of the sessions the record names (and, after a
//! transport event, of every session) with what it last drew.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Bar, Timeline, Window, push_bar};
use crate::acp::activity;
use crate::acp::view::View;

/// What the recorder last saw of the connection, and the sessions each open request
/// named (a response names none, but it changes what its request was about).
#[derive(Debug, Clone, Default)]
pub(super) struct AcpState {
    disconnected: bool,
    replay: bool,
    /// `(side that sent the request, its id)` → `(method, sessions it named)`.
    requests: BTreeMap<(String, String), (String, Vec<String>)>,
}

/// Methods whose outcome can change every session under the one they name.
const SUBTREE_METHODS: [&str; 2] = ["session/load", "session/resume"];

impl Timeline {
    pub(super) fn observe_acp(&mut self, view: &View, line: usize, value: &Value) {
        let transport = value.get("from").and_then(Value::as_str) == Some("transport");
        self.windows_at(view, line);
        if transport {
            let ids: Vec<String> = view.sessions().iter().map(|s| s.id.to_string()).collect();
            for id in ids {
                self.acp_session(view, &id, line);
            }
            return;
        }
        let from = value
            .get("from")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let message = value.get("message").unwrap_or(&Value::Null);
        let entries: Vec<&Value> = match message {
            Value::Array(batch) => batch.iter().collect(),
            single => vec![single],
        };
        let mut ids = Vec::new();
        for entry in entries {
            self.entry_sessions(view, from, entry, &mut ids);
        }
        for id in ids {
            self.acp_session(view, &id, line);
        }
    }

    /// The sessions one JSON-RPC message may have changed: those it names, those its
    /// request named (for a response), and for a load/resume every session under them.
    fn entry_sessions(&mut self, view: &View, from: &str, entry: &Value, ids: &mut Vec<String>) {
        let mut named = Vec::new();
        named_sessions(entry, &mut named);
        let id = entry.get("id").map(Value::to_string);
        let method = entry.get("method").and_then(Value::as_str);
        let mut about = method.map(String::from);
        match (id, method) {
            (Some(id), Some(method)) => {
                self.acp
                    .requests
                    .insert((from.to_owned(), id), (method.to_owned(), named.clone()));
            }
            (Some(id), None) => {
                let asker = if from == "agent" { "client" } else { "agent" };
                if let Some((method, sessions)) = self.acp.requests.remove(&(asker.to_owned(), id))
                {
                    named.extend(sessions);
                    about = Some(method);
                }
            }
            _ => {}
        }
        if about.is_some_and(|m| SUBTREE_METHODS.contains(&m.as_str())) {
            let roots = named.clone();
            for root in roots {
                named.extend(view.descendants(&root).iter().map(|d| d.to_string()));
            }
        }
        for id in named {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }

    /// Opens or closes the `disconnected` and `replay` windows.
    fn windows_at(&mut self, view: &View, line: usize) {
        let now = (!view.connected(), view.in_replay());
        let was = (self.acp.disconnected, self.acp.replay);
        for (kind, is, was) in [("disconnected", now.0, was.0), ("replay", now.1, was.1)] {
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
        (self.acp.disconnected, self.acp.replay) = now;
    }

    /// Starts a new state period of `id` when its activity changed.
    fn acp_session(&mut self, view: &View, id: &str, line: usize) {
        let Some(session) = view.session(id) else {
            return;
        };
        let state = activity(view, session);
        self.lane(id, line);
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

/// Session ids one JSON-RPC message names: `params.sessionId`,
/// `params.update.sessionId` (a subagent update's child) and `result.sessionId`.
fn named_sessions(entry: &Value, out: &mut Vec<String>) {
    let params = entry.get("params");
    for id in [
        params.and_then(|p| p.get("sessionId")),
        params
            .and_then(|p| p.get("update"))
            .and_then(|u| u.get("sessionId")),
        entry.get("result").and_then(|r| r.get("sessionId")),
    ]
    .into_iter()
    .flatten()
    .filter_map(Value::as_str)
    {
        if !out.iter().any(|seen| seen == id) {
            out.push(id.to_owned());
        }
    }
}
