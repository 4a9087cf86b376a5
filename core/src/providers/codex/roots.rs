//! Root threads: one app-server connection may start several (one `thread/start` each),
//! and `replay --session` may select one of them.
//!
//! Seed, *Codex App-Server Mapping*: "Root conversation: app-server threadId equal to
//! workspace_agent_sessions.provider_session_id"; "threadId != root provider_session_id
//! events are child events only after the child thread has been registered from a spawn
//! edge". A thread the client started is a conversation of its own, so each is a root
//! session; a child is never started by the client (a spawn edge claims it).

use super::{CodexAdapter, receivers, rpc};
use crate::ids::{Alias, SessionId};
use crate::providers::{Ctx, Rec};
use crate::trace::borrowed::JsonRead;
use crate::tree::Event;

impl CodexAdapter {
    /// `thread` is a root (started or resumed by the client, or named by the header): its
    /// session is created and the records held for it are released, unless `--session`
    /// selected another root (then it and its descendants are skipped). A thread already
    /// known (a root, or a child a spawn edge registered) stays what it is.
    pub(super) fn identify_root(&mut self, cx: &mut Ctx<'_>, thread: &str) {
        let id = SessionId::from(thread);
        let known = self.roots.contains(&id)
            || self.foreign.contains(&id)
            || self.spawned.contains_key(&id)
            || cx.snapshot().session(&id).is_some();
        if known {
            return;
        }
        if self.select.as_ref().is_some_and(|selected| *selected != id) {
            self.held.take(&id); // its early records go with it
            self.foreign.insert(id);
            return;
        }
        if self.root.is_none() {
            self.root = Some(id.clone());
        }
        self.roots.insert(id.clone());
        cx.emit(Event::RootSessionCreated {
            session: id.clone(),
            title: None,
            aliases: vec![Alias::new("thread", id.as_str())],
        });
        // Records of the root thread that arrived before it was identified.
        self.release(&id);
    }

    /// A server record of a root `--session` did not select, or of one of its
    /// descendants: skipped. Its spawn edges make their children skipped too, and the
    /// client's answer to its request is not an `unknown-response`.
    pub(super) fn skip_foreign<J: JsonRead>(&mut self, record: Rec<'_, J>, params: &J) {
        if let rpc::Kind::Request { id, .. } = rpc::classify(record.message) {
            self.rejected_requests.insert(id);
            return;
        }
        let Some(item) = params.get("item") else {
            return;
        };
        let activity = item.get("agentThreadId").and_then(J::as_str);
        let children: Vec<SessionId> = receivers(item)
            .chain(activity)
            .map(SessionId::from)
            .collect();
        for child in children {
            self.held.take(&child);
            self.foreign.insert(child);
        }
    }
}
