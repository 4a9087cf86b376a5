//! The projection of a reconnection: a new connection after the log, and the load of
//! every root with its subtree's history (the RFD's *Reconnection and replay*).
//!
//! Before the load's response: the root's and each descendant's transcript and tool
//! calls, each child's association (parent and title, ancestors first) with neither a
//! state nor a grant: "Before the response, these snapshots are historical." After it:
//! each child's current work state and, for a child at work, its current `cancel` grant:
//! "Current snapshots are sent after the response." Recorded requests are never
//! reissued ("Replay MUST NOT reissue recorded permission, elicitation, or other
//! Agent-to-Client requests").

use serde_json::json;

use super::messages as m;
use super::{AcpMessage, CancelGrants, Projector, Version, agent, client, settled_state};
use crate::SessionId;
use crate::tree::{Phase, Snapshot};

impl Projector {
    /// A reconnection after the log: `initialize`, then for each root a load (v1
    /// `session/load`, v2 `session/resume` replaying from the start) with its history
    /// before the response and the current states and grants after it.
    pub fn reconnect(&mut self, snapshot: &Snapshot) -> Vec<AcpMessage> {
        // Nothing of the old connection holds on the new one.
        self.announced.clear();
        self.states.clear();
        self.sent_text.clear();
        self.tools.clear();
        self.asked.clear();
        self.prompts.clear();
        let mut out = self.start();
        for root in snapshot.roots() {
            let subtree = subtree(snapshot, &root.id);
            let id = self.client_id();
            let params = match self.options.version {
                Version::V1 => json!({"sessionId": root.id.as_str(), "cwd": "/", "mcpServers": []}),
                Version::V2 => {
                    json!({"sessionId": root.id.as_str(), "cwd": "/", "replayFrom": {"type": "start"}})
                }
            };
            let method = match self.options.version {
                Version::V1 => "session/load",
                Version::V2 => "session/resume",
            };
            out.push(client(m::request(id, method, params)));
            for session in &subtree {
                self.history(snapshot, session, &mut out);
            }
            out.push(agent(m::response(id, json!({}))));
            for session in &subtree {
                self.current(snapshot, session, &mut out);
            }
        }
        out
    }

    /// One session's history: its association (a child), its transcript, its tool calls.
    fn history(&mut self, snapshot: &Snapshot, session: &SessionId, out: &mut Vec<AcpMessage>) {
        let Some(s) = snapshot.session(session) else {
            return;
        };
        if let Some(r) = &s.relation {
            let mut update = serde_json::Map::new();
            update.insert("sessionUpdate".into(), json!("subagent_update"));
            update.insert("sessionId".into(), json!(session.as_str()));
            if let Some(title) = &s.title {
                update.insert("title".into(), json!(&**title));
            }
            out.push(agent(m::update(r.parent_session.as_str(), update.into())));
            self.announced.insert(session.clone());
        }
        for index in 0..s.messages.len() {
            // Nothing was just appended: what is left of each text is sent whole.
            self.message(snapshot, session, index, "", out);
        }
        let calls: Vec<(String, crate::tree::ToolStatus)> = s
            .tool_calls
            .values()
            .map(|c| (c.id.to_string(), c.status))
            .collect();
        for (call, status) in calls {
            self.tool(snapshot, session, &call, status, out);
        }
    }

    /// One session's current work state and, for a child at work, its `cancel` grant.
    fn current(&mut self, snapshot: &Snapshot, session: &SessionId, out: &mut Vec<AcpMessage>) {
        let Some(turn) = snapshot.session(session).and_then(|s| s.last_turn()) else {
            return;
        };
        let state = match (turn.phase, turn.outcome) {
            (_, Some(outcome)) => settled_state(outcome),
            (Phase::Submitted, None) => return,
            // The log ended with it at work: observation is lost.
            (_, None) => m::state("unknown", None),
        };
        let parent = snapshot
            .session(session)
            .and_then(|s| s.relation.as_ref())
            .map(|r| r.parent_session.clone());
        if let Some(parent) = &parent
            && turn.outcome.is_none()
            && self.options.cancel_grants == CancelGrants::Children
        {
            out.push(agent(m::update(
                parent.as_str(),
                json!({"sessionUpdate": "subagent_update", "sessionId": session.as_str(), "capabilities": {"cancel": {}}}),
            )));
        }
        self.report_state(snapshot, session, state, out);
    }
}

/// `root` and every session under it, parents before children (iteratively).
fn subtree(snapshot: &Snapshot, root: &SessionId) -> Vec<SessionId> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![root.clone()];
    while let Some(id) = stack.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        if let Some(s) = snapshot.session(&id) {
            stack.extend(s.children.iter().rev().cloned());
        }
        out.push(id);
    }
    out
}
