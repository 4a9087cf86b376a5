//! The view's fold: one record at a time, in place on an O(1) clone.
//!
//! Every rule here is the seed's client semantics; the checker (`acp::rules`) reads the
//! view before each record and reports what the stream did wrong, while this module only
//! decides what a conforming Client shows. Malformed input changes nothing.
//!
//! Every fact that a cancel or a load/resume may have to revisit is entered in (and
//! left from) the tour's sparse sets where it is written, so neither walks a subtree.

use std::sync::Arc;

use imbl::{OrdSet, Vector};
use serde_json::{Map, Value};

use super::changes::Touch;
use super::{
    Attempt, ChildStream, ClientCaps, Id, Message, Path, Pending, Session, Set, Stamp, View, Window,
};
use crate::acp::wire::{self, Patch, Rpc, RpcId, Side, StateKey, object_patch, string_patch};
use crate::finding::Revision;
use crate::trace::borrowed::{Json, JsonRead, Object};

impl View {
    /// A new connection: every per-connection fact (announcements, effective grants,
    /// current states, pending requests, replay windows) becomes stale at once.
    pub(crate) fn connect(&mut self) {
        self.connection_ends();
        self.conn += 1;
        self.connected = true;
        self.version = self.options.header_version;
        self.init = None;
        self.clear_connection_state();
    }

    /// The connection is lost: nothing learned on it stays current, and no outcome is
    /// invented for unfinished work.
    pub(crate) fn disconnect(&mut self) {
        self.connection_ends();
        self.conn += 1;
        self.connected = false;
        self.clear_connection_state();
    }

    /// Marks the end of this connection: every session holding one of its facts (an
    /// announcement, a grant, a current state) loses it.
    fn connection_ends(&mut self) {
        if !self.options.changes {
            return;
        }
        self.touch(Touch::Connection);
        let conn = self.conn;
        for id in self.tour.members(Set::Stamped) {
            if self.sessions.get(&id).is_some_and(|s| s.stamped_on(conn)) {
                self.touch(Touch::Work(id.clone()));
                self.touch(Touch::Controls(id));
            }
        }
    }

    fn clear_connection_state(&mut self) {
        self.pending = Default::default();
        self.interactions = Default::default();
        self.tour.clear(Set::Interactions);
        self.windows = Default::default();
        self.attempts = Default::default();
        self.cancelled = Default::default();
        // No state is current on the next connection; tool calls keep their status.
        // Stamps stay: they are stale by their connection number already.
        self.tour.clear(Set::Working);
    }

    /// Applies one JSON-RPC message sent by `from`.
    pub(crate) fn apply_rpc(&mut self, line: usize, from: Side, rpc: &Rpc<'_>) {
        match rpc {
            Rpc::Request { id, method, params } => {
                if from == Side::Client {
                    self.client_call(line, Some(id), method, params);
                }
                self.add_pending(Pending {
                    line,
                    from,
                    id: id.clone(),
                    method: (*method).into(),
                    session: wire::session_id(params).map(Into::into),
                    tool_call: params
                        .pointer("/toolCall/toolCallId")
                        .and_then(Json::as_str)
                        .map(Into::into),
                    replay: is_replay_request(method, params),
                });
            }
            Rpc::Notification { method, params } => match (from, *method) {
                (Side::Agent, "session/update") => {
                    if let Ok(update) = wire::session_update(params) {
                        self.session_update(&update);
                    }
                }
                (Side::Client, _) => self.client_call(line, None, method, params),
                _ => {}
            },
            Rpc::Response { id, outcome } => {
                if let Some(request) = self.remove_pending(&(from.other(), id.clone())) {
                    self.response(&request, *outcome);
                    if request.from == Side::Agent {
                        self.record_answer(line, request, *outcome);
                    }
                }
            }
        }
    }

    fn client_call(&mut self, line: usize, id: Option<&RpcId>, method: &str, params: &Json<'_>) {
        match method {
            "initialize" => {
                self.connect();
                self.init = Some(client_caps(params));
            }
            "session/load" | "session/resume" => {
                let Some(root) = wire::session_id(params) else {
                    return;
                };
                let conn = self.conn;
                let Some(s) = self.session_mut(root) else {
                    return;
                };
                s.detail_mut().setup_on = Stamp::on(conn);
                let was_set_up = std::mem::replace(&mut s.set_up, true);
                let root = s.id.clone();
                if !was_set_up {
                    self.touch(Touch::Identity(root.clone()));
                }
                let replay = is_replay_request(method, params);
                self.reset_subtree(&root, replay);
                if let Some(id) = id {
                    if replay {
                        self.touch(Touch::ReplayWindow(root.clone(), true));
                        self.windows.insert(id.clone(), Window { root, line });
                    } else {
                        self.attempts.insert(
                            id.clone(),
                            Attempt {
                                root,
                                touched: Vector::new(),
                            },
                        );
                    }
                }
            }
            "session/cancel" => {
                if let Some(target) = wire::session_id(params) {
                    if let Some((id, _)) = self.sessions.get_key_value(target) {
                        let id = id.clone();
                        self.touch(Touch::CancelSent(id.clone()));
                        self.cancelled.insert(id);
                    }
                    self.cancel_tool_calls(target, self.cancel_cascades());
                }
            }
            _ => {}
        }
    }

    /// Load reset: R's descendants lose their announcement, effective grants and current
    /// state; with replay, R's subtree also starts a new transcript epoch, so replayed
    /// content replaces what was shown instead of duplicating it.
    ///
    /// Only the members of the tour's sets within R's range are visited, and they leave
    /// the sets: a descendant never stamped since the last reset covering it has nothing
    /// to clear, and one with no message of its current epoch shows the same transcript
    /// whether its epoch moves or not (epochs are only ever compared for equality).
    fn reset_subtree(&mut self, root: &Id, replay: bool) {
        let conn = self.conn;
        for id in self.stamped_descendants(root) {
            if self.sessions.get(&id).is_some_and(|s| s.stamped_on(conn)) {
                self.touch(Touch::Work(id.clone()));
                self.touch(Touch::Controls(id.clone()));
            }
            if let Some(s) = self.sessions.get_mut(&id).map(Arc::make_mut) {
                s.announced_on = Stamp::NONE;
                s.cancel_granted_on = Stamp::NONE;
                s.state_current_on = Stamp::NONE;
                s.child_stream = None;
            }
            self.tour.mark(Set::Working, &id, false);
            self.tour.mark(Set::Stamped, &id, false);
        }
        if !replay {
            return;
        }
        let written: Vec<Id> = self
            .tour
            .within(Set::Transcript, root, false)
            .cloned()
            .collect();
        for id in written {
            if let Some(s) = self.sessions.get_mut(&id).map(Arc::make_mut) {
                s.replay_epoch += 1;
            }
            self.tour.mark(Set::Transcript, &id, false);
        }
    }

    fn response(&mut self, request: &Pending, outcome: Result<&Json<'_>, &Json<'_>>) {
        match (&*request.method, outcome) {
            ("initialize", Ok(result)) => {
                if let Some(v) = result.get("protocolVersion").and_then(Json::as_u64) {
                    self.version = Some(v);
                }
            }
            ("session/new" | "session/fork", Ok(result)) => {
                let conn = self.conn;
                if let Some(s) = wire::session_id(result).and_then(|id| self.session_mut(id)) {
                    let id = s.id.clone();
                    if s.parent.is_none() {
                        s.agent_root = true;
                        s.set_up = true;
                    }
                    s.detail_mut().setup_on = Stamp::on(conn);
                    self.touch(Touch::Identity(id));
                }
            }
            ("session/load" | "session/resume", _) => {
                if let Some(window) = self.windows.remove(&request.id) {
                    self.touch(Touch::ReplayWindow(window.root, false));
                }
                let attempt = self.attempts.remove(&request.id);
                // The attempt's end decides what its grants and states are.
                for id in attempt.iter().flat_map(|a| a.touched.iter()) {
                    self.touch(Touch::Work(id.clone()));
                    self.touch(Touch::Controls(id.clone()));
                }
                if let Some(attempt) = attempt
                    && outcome.is_err()
                {
                    // A failed resume voids the grants and states received during it.
                    for id in &attempt.touched {
                        if let Some(s) = self.sessions.get_mut(id).map(Arc::make_mut) {
                            s.cancel_granted_on = Stamp::NONE;
                            s.state_current_on = Stamp::NONE;
                        }
                        self.tour.mark(Set::Working, id, false);
                    }
                }
            }
            _ => {}
        }
    }

    fn session_update(&mut self, u: &wire::SessionUpdate<'_>) {
        let outer = self.intern(u.session);
        self.note_shapes(u);
        match u.kind {
            "subagent_update" => self.association(&outer, u.update),
            "state_update" if u.update.get("state").is_some_and(Json::is_string) => {
                let snapshot = self.pool.owned(wire::state_update_snapshot(u.update));
                self.report_state(&outer, Some(snapshot), Path::Child);
            }
            "agent_message_chunk" => self.text_chunk(&outer, "agent_message", u.update),
            "user_message_chunk" => self.text_chunk(&outer, "user_message", u.update),
            "agent_thought_chunk" => self.text_chunk(&outer, "agent_thought", u.update),
            "plan" => self.plan(&outer, u.update),
            "session_message" => self.session_message(&outer, u.update, false),
            "session_message_chunk" => self.session_message(&outer, u.update, true),
            "session_info_update" => {
                if let Some(title) = patch_str(string_patch(u.update, "title"))
                    && let Some(s) = self.sessions.get_mut(&outer).map(Arc::make_mut)
                {
                    s.detail_mut().conversation_title = title;
                    self.touch(Touch::Labels(outer));
                }
            }
            "usage_update" => {
                if let Some(s) = self.sessions.get_mut(&outer).map(Arc::make_mut) {
                    let usage = Value::Object(wire::state_update_snapshot(u.update));
                    s.detail_mut().usage = Some(Arc::new(usage));
                    self.touch(Touch::Usage(outer));
                }
            }
            "tool_call" | "tool_call_update" => self.tool_call(&outer, u.kind, u.update),
            _ => {}
        }
    }

    /// Can `child` be associated under `parent`? Not itself, not an Agent-created root,
    /// never a second parent, never an ancestor of its parent (a child never changes
    /// parent, so only a root can be one: a tour lookup, not a walk).
    pub(crate) fn association_allowed(&self, parent: &str, child: &str) -> bool {
        if parent == child {
            return false;
        }
        match self.sessions.get(child) {
            Some(s) if s.agent_root => false,
            Some(s) if s.parent.is_some() => s.parent.as_deref() == Some(parent),
            _ => !self.is_descendant(parent, child),
        }
    }

    fn association(&mut self, parent: &Id, update: &Object<'_>) {
        let Some(child) = update.get("sessionId").and_then(Json::as_str) else {
            return;
        };
        if !self.association_allowed(parent, child) {
            return;
        }
        let conn = self.conn;
        let in_replay = self.in_replay();
        let merge_meta = self.options.spec == Revision::Final && self.version == Some(2);
        // A child seen for the first time is placed under its parent in the tour at once.
        let fresh = !self.sessions.contains_key(child);
        let child = self.intern_under(child, Some(parent));
        let Some(s) = self.sessions.get_mut(&child).map(Arc::make_mut) else {
            return;
        };
        if s.parent.is_none() {
            s.parent = Some(parent.clone());
            if let Some(p) = self.sessions.get_mut(parent).map(Arc::make_mut) {
                p.children.push_back(child.clone());
            }
            if !fresh {
                self.tour.link(parent, &child);
            }
            self.touch(Touch::Identity(child.clone()));
        }
        let attempt_covers = self.resume_pending_over(&child);
        let Some(s) = self.sessions.get_mut(&child).map(Arc::make_mut) else {
            return;
        };
        if !s.stamped() {
            self.tour.mark(Set::Stamped, &child, true);
        }
        let labels_before = Labels::of(s);
        let controls_before = (s.capabilities.clone(), s.announced_on, s.cancel_granted_on);
        s.announced_on = Stamp::on(conn);
        patch_labels(s, update);
        if update.contains_key("_meta") {
            let mut meta = s.detail_mut().meta.take().map(Arc::unwrap_or_clone);
            patch_meta(&mut meta, update, merge_meta);
            s.detail_mut().meta = meta.map(Arc::new);
        }
        let labels_changed = Labels::of(s) != labels_before;
        let mut granted = false;
        match object_patch(update, "capabilities") {
            Patch::Omitted | Patch::Invalid(_) => {}
            Patch::Null => {
                s.capabilities = Some(Arc::new(Value::Null));
                s.cancel_granted_on = Stamp::NONE;
            }
            Patch::Set(caps) => {
                s.capabilities = Some(self.pool.object(caps));
                // Replaced whole: no `cancel` object means no grant. Historical grants
                // (inside a replay window) never populate the effective set.
                let cancel = caps.get("cancel").is_some_and(Json::is_object);
                s.cancel_granted_on = Stamp::on_if(cancel && !in_replay, conn);
                granted = cancel && !in_replay;
            }
        }
        let controls_changed =
            (s.capabilities.clone(), s.announced_on, s.cancel_granted_on) != controls_before;
        if labels_changed {
            self.touch(Touch::Labels(child.clone()));
        }
        if controls_changed {
            self.touch(Touch::Controls(child.clone()));
        }
        match object_patch(update, "state") {
            Patch::Omitted | Patch::Invalid(_) => {}
            Patch::Null => self.report_state(&child, None, Path::Parent),
            Patch::Set(state) => {
                if state.get("state").is_some_and(Json::is_string) {
                    let snapshot = self.pool.object(state);
                    self.report_state(&child, Some(snapshot), Path::Parent);
                }
            }
        }
        if granted && attempt_covers {
            self.touch_attempts(&child);
        }
    }

    /// A work-state report on either path (v1 association, v2 `state_update` or its
    /// parent mirror): one idempotent state, current unless inside a replay window. In
    /// v2 a parent copy the child's own stream has already moved past is stale and never
    /// replaces the newer state ("a delayed mirror cannot overwrite newer state").
    fn report_state(&mut self, id: &Id, snapshot: Option<Arc<Value>>, path: Path) {
        let conn = self.conn;
        let current = !self.in_replay();
        let attempt_covers = current && self.resume_pending_over(id);
        let v2 = self.version == Some(2);
        let key = snapshot
            .as_deref()
            .and_then(Value::as_object)
            .and_then(StateKey::of);
        // Callers pass a session they have just looked up (or created).
        let Some(s) = self.sessions.get_mut(id).map(Arc::make_mut) else {
            return;
        };
        if v2
            && current
            && let Some(key) = key
        {
            let stream = s.child_stream.take().filter(|c| c.conn == conn);
            let mut stream = stream.unwrap_or_else(|| Box::new(ChildStream::new(conn)));
            let stale = path == Path::Parent && stream.moved_past(&key);
            if path == Path::Child {
                stream.report(key);
            }
            s.child_stream = Some(stream);
            if stale {
                self.touch(Touch::MirrorStale(id.clone()));
                return;
            }
        }
        let was_working = s.state_current_on.is_on(conn)
            && matches!(s.state_name(), Some("running" | "requires_action"));
        if current && !s.stamped() {
            self.tour.mark(Set::Stamped, id, true);
        }
        let changed = s.state != snapshot;
        let work_before = (s.state_current_on, s.idle_transitions);
        let name = snapshot
            .as_ref()
            .and_then(|v| v.get("state"))
            .and_then(Value::as_str);
        // Replayed history is not new work: only a current report counts a transition.
        if changed && current && name == Some("idle") {
            s.idle_transitions += 1;
        }
        let cancelled_idle = current
            && name == Some("idle")
            && snapshot.as_ref().and_then(|v| v.get("stopReason")) == Some(&"cancelled".into());
        s.state = snapshot;
        s.state_current_on = Stamp::on_if(current, conn);
        let work_changed = changed || (s.state_current_on, s.idle_transitions) != work_before;
        let working = current && matches!(s.state_name(), Some("running" | "requires_action"));
        if work_changed {
            self.touch(Touch::Work(id.clone()));
        }
        if working != was_working {
            self.tour.mark(Set::Working, id, working);
        }
        if attempt_covers {
            self.touch_attempts(id);
        }
        // 2026-10-05: a descendant of cancelled work is cleaned up once it reports a
        // cancelled idle, as if the Client had cancelled it directly.
        if cancelled_idle && !self.cancel_cascades() && self.under_cancel(id) {
            self.cancel_tool_calls(id, false);
        }
    }

    fn touch_attempts(&mut self, id: &Id) {
        let covering: Vec<RpcId> = self
            .attempts
            .iter()
            .filter(|(_, a)| a.root == *id || self.tour.is_descendant(id, &a.root))
            .map(|(k, _)| k.clone())
            .collect();
        for key in covering {
            if let Some(a) = self.attempts.get_mut(&key) {
                a.touched.push_back(id.clone());
            }
        }
    }

    fn session_message(&mut self, outer: &Id, update: &Object<'_>, chunk: bool) {
        let Some(message_id) = update.get("messageId").and_then(Json::as_str) else {
            return;
        };
        let conn = self.conn;
        let transcripts = self.options.transcripts;
        let final_rev = self.options.spec == Revision::Final;
        let merge_meta = final_rev && self.version == Some(2);
        // Its period (and perhaps its content) is written in the current epoch below.
        self.tour.mark(Set::Transcript, outer, true);
        let Some(s) = self.sessions.get_mut(outer).map(Arc::make_mut) else {
            return;
        };
        let epoch = s.replay_epoch;
        let detail = s.detail_mut();
        let index = match detail.message_index.get(message_id) {
            Some(&i) => i,
            None => {
                let i = detail.messages.len();
                detail.message_index.insert(message_id.into(), i);
                detail.messages.push_back(Arc::new(Message {
                    id: message_id.into(),
                    sender: None,
                    recipient: None,
                    sender_message: None,
                    recipient_message: None,
                    content: Vector::new(),
                    meta: None,
                    period: (conn, epoch),
                    content_epoch: epoch,
                }));
                i
            }
        };
        let Some(m) = detail.messages.get_mut(index).map(Arc::make_mut) else {
            return;
        };
        // Participants accumulate within one (connection, replay epoch); a new period
        // may supply them afresh. Omitted and null mean "not supplied" (2026-09-24,
        // 2026-10-05); in the final revision they are patches (`null` clears, a value
        // replaces) and a chunk carries none.
        let fresh = m.period == (conn, epoch);
        m.period = (conn, epoch);
        for (key, slot) in [
            ("senderSessionId", &mut m.sender),
            ("recipientSessionId", &mut m.recipient),
            ("senderMessageId", &mut m.sender_message),
            ("recipientMessageId", &mut m.recipient_message),
        ] {
            let patch = string_patch(update, key);
            if final_rev {
                if !chunk && let Some(change) = patch_str(patch) {
                    *slot = change;
                }
            } else if let Some(id) = patch.set()
                && (slot.is_none() || !fresh)
            {
                *slot = Some(id.into());
            }
        }
        write_content(m, update, chunk, epoch, transcripts, merge_meta);
        self.touch(Touch::Message(outer.clone(), index));
    }

    /// Enters or leaves the open-call index (and the tour's `OpenCalls` set with it).
    pub(super) fn set_open_call(&mut self, session: &Id, call: Arc<str>, open: bool) {
        let (had, any) = match self.open_calls.get_mut(session) {
            Some(calls) => {
                if open {
                    calls.insert(call);
                } else {
                    calls.remove(&call);
                }
                (true, !calls.is_empty())
            }
            None if open => {
                self.open_calls.insert(session.clone(), OrdSet::unit(call));
                (false, true)
            }
            None => (false, false),
        };
        if !any {
            self.open_calls.remove(session);
        }
        if any != had {
            self.tour.mark(Set::OpenCalls, session, any);
        }
    }

    /// The Client's optimistic presentation after `session/cancel` of `target`: the
    /// unfinished tool calls of the target and (with `cascade`, the 2026-09-24 rule) of
    /// its descendants not confirmed idle are shown cancelled until the Agent reports
    /// them. From 2026-10-05 a descendant's are marked once it reports a cancelled idle.
    ///
    /// Only the sessions with open calls within the target's range of the tour are
    /// visited, so the cost follows the unfinished work, not the target's subtree.
    pub(super) fn cancel_tool_calls(&mut self, target: &str, cascade: bool) {
        let hit: Vec<Id> = self
            .tour
            .within(Set::OpenCalls, target, false)
            .filter(|s| &***s == target || (cascade && self.current_state(s) != Some("idle")))
            .cloned()
            .collect();
        for session in hit {
            let Some(calls) = self.open_calls.remove(&session) else {
                continue;
            };
            self.tour.mark(Set::OpenCalls, &session, false);
            let Some(s) = self.sessions.get_mut(&session).map(Arc::make_mut) else {
                continue;
            };
            for call in &calls {
                if !s.detail().tool_calls.contains_key(call) {
                    continue;
                }
                if let Some(c) = s.detail_mut().tool_calls.get_mut(call) {
                    c.status = "cancelled".into();
                    c.locally_cancelled = true;
                }
            }
            for call in calls {
                self.touch(Touch::ToolCall(session.clone(), call));
            }
        }
    }

    /// An Agent-side-only source names the method a response answers and holds no
    /// request: the Client's request `id` of `method` stands pending for it, and nothing
    /// else of the Client's (no params, no connection or load of its own).
    pub(crate) fn expect_response(&mut self, line: usize, id: RpcId, method: &str) {
        self.add_pending(Pending {
            line,
            from: Side::Client,
            id,
            method: method.into(),
            session: None,
            tool_call: None,
            replay: false,
        });
    }

    /// Registers a pending request (replacing, and unindexing, one with the same id).
    fn add_pending(&mut self, request: Pending) {
        let key = (request.from, request.id.clone());
        self.remove_pending(&key);
        if is_interaction(&request)
            && let Some(session) = &request.session
        {
            self.set_interaction(&session.clone(), &request.id, true);
        }
        if self.options.changes {
            self.touch(Touch::RequestPending(Box::new(request.clone())));
        }
        self.pending.insert(key, request);
    }

    fn remove_pending(&mut self, key: &(Side, RpcId)) -> Option<Pending> {
        let request = self.pending.remove(key)?;
        self.touch(Touch::RequestClosed(key.0, key.1.clone()));
        if is_interaction(&request)
            && let Some(session) = &request.session
        {
            self.set_interaction(session, &request.id, false);
        }
        Some(request)
    }

    /// Enters or leaves the interaction index (and the tour's `Interactions` set).
    fn set_interaction(&mut self, session: &Id, id: &RpcId, on: bool) {
        let (had, any) = match self.interactions.get_mut(session) {
            Some(ids) => {
                if on {
                    ids.insert(id.clone());
                } else {
                    ids.remove(id);
                }
                (true, !ids.is_empty())
            }
            None if on => {
                self.interactions
                    .insert(session.clone(), OrdSet::unit(id.clone()));
                (false, true)
            }
            None => (false, false),
        };
        if !any {
            self.interactions.remove(session);
        }
        if any != had {
            self.tour.mark(Set::Interactions, session, any);
        }
    }

    /// The shared id of session `id`, created on first sight (the id is allocated only
    /// then); one lookup when it exists.
    fn intern(&mut self, id: &str) -> Id {
        self.intern_under(id, None)
    }

    /// [`View::intern`], placing a new session in the tour as the last child of `parent`
    /// (the caller makes it that parent's child) or, without one, as a new root.
    fn intern_under(&mut self, id: &str, parent: Option<&str>) -> Id {
        if let Some((key, _)) = self.sessions.get_key_value(id) {
            return key.clone();
        }
        let id: Id = id.into();
        self.sessions.insert(
            id.clone(),
            Arc::new(Session::new(
                id.clone(),
                self.next_seq,
                self.empty_detail.clone(),
            )),
        );
        self.next_seq += 1;
        self.touch(Touch::Identity(id.clone()));
        match parent {
            Some(parent) => self.tour.add_under(parent, &id),
            None => self.tour.add(&id),
        }
        if self.interactions.contains_key(&id) {
            self.tour.mark(Set::Interactions, &id, true);
        }
        id
    }

    /// The session `id`, created on first sight.
    fn session_mut(&mut self, id: &str) -> Option<&mut Session> {
        let id = self.intern(id);
        self.sessions.get_mut(&id).map(Arc::make_mut)
    }
}

/// A chunk appends its block (the first chunk of a new epoch replaces what an earlier
/// epoch showed); a whole message replaces the content and patches `_meta`.
fn write_content(
    m: &mut Message,
    update: &Object<'_>,
    chunk: bool,
    epoch: u64,
    transcripts: bool,
    merge_meta: bool,
) {
    if chunk {
        if let Some(block) = update.get("content").filter(|c| is_content_block(c)) {
            if m.content_epoch != epoch {
                m.content = Vector::new();
                m.content_epoch = epoch;
            }
            if transcripts {
                m.content.push_back(block.to_value());
            }
        }
        return;
    }
    match update.get("content") {
        Some(Json::Null) => {
            m.content = Vector::new();
            m.content_epoch = epoch;
        }
        Some(Json::Array(blocks)) => {
            m.content = if transcripts {
                blocks.iter().map(Json::to_value).collect()
            } else {
                Vector::new()
            };
            m.content_epoch = epoch;
        }
        _ => {}
    }
    patch_meta(&mut m.meta, update, merge_meta);
}

/// A message's or association's `_meta`: omitted keeps it, `null` clears it, a value
/// replaces it whole; with `merge` (v2, final revision) an object patches the stored
/// object by top-level key (a key set to `null` is removed).
pub(super) fn patch_meta(meta: &mut Option<Value>, update: &Object<'_>, merge: bool) {
    match (update.get("_meta"), meta.as_mut()) {
        (None, _) => {}
        (Some(Json::Null), _) => *meta = None,
        (Some(Json::Object(patch)), Some(Value::Object(stored))) if merge => {
            for (k, v) in patch.entries() {
                if v.is_null() {
                    stored.remove(k);
                } else {
                    stored.insert(k.to_owned(), v.to_value());
                }
            }
        }
        (Some(Json::Object(patch)), _) if merge => {
            let kept: Map<String, Value> = patch
                .entries()
                .into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.to_owned(), v.to_value()))
                .collect();
            *meta = Some(Value::Object(kept));
        }
        (Some(value), _) => *meta = Some(value.to_value()),
    }
}

/// `session/load`, or `session/resume` with a non-null `replayFrom`, requests replay.
pub(crate) fn is_replay_request(method: &str, params: &Json<'_>) -> bool {
    match method {
        "session/load" => true,
        "session/resume" => params.get("replayFrom").is_some_and(|v| !v.is_null()),
        _ => false,
    }
}

/// A pending Agent request that cancelled work must answer with the cancellation outcome.
pub(super) fn is_interaction(request: &Pending) -> bool {
    request.from == Side::Agent
        && matches!(
            &*request.method,
            "session/request_permission" | "elicitation/create"
        )
}

/// A tool-call status a cancel marks cancelled (shown unfinished).
pub(super) fn is_open(status: &str) -> bool {
    matches!(status, "pending" | "in_progress")
}

/// One ContentBlock: an object with a string `type`.
pub(crate) fn is_content_block(value: &Json<'_>) -> bool {
    value.get("type").is_some_and(Json::is_string)
}

fn client_caps(params: &Json<'_>) -> ClientCaps {
    let caps = params.get("clientCapabilities");
    let flag = |path: &str| {
        caps.and_then(|c| c.pointer(path))
            .and_then(Json::as_bool)
            .unwrap_or(false)
    };
    ClientCaps {
        subagents: caps
            .and_then(|c| c.get("subagents"))
            .is_some_and(Json::is_object),
        meta_subagents: caps
            .and_then(|c| c.get("_meta"))
            .is_some_and(names_subagents),
        read_text_file: flag("/fs/readTextFile"),
        write_text_file: flag("/fs/writeTextFile"),
        terminal: flag("/terminal"),
    }
}

/// Does a `_meta` value hold, among its keys down to three levels, one naming subagents
/// (a bridge flag such as `nativeSubagentSessions`)? An explicit stack, no recursion.
fn names_subagents(meta: &Json<'_>) -> bool {
    let mut stack = vec![(meta, 0u8)];
    while let Some((v, depth)) = stack.pop() {
        let Some(obj) = v.as_object() else { continue };
        for (k, child) in obj.entries() {
            if k.to_ascii_lowercase().contains("subagent") {
                return true;
            }
            if depth < 2 {
                stack.push((child, depth + 1));
            }
        }
    }
    false
}

/// A nullable string patch as a change: `None` = unchanged (omitted or invalid),
/// `Some(None)` = cleared, `Some(Some(s))` = replaced.
/// The association's display fields, each a nullable patch: `title`, `description`, and
/// the final revision's `cwd`.
fn patch_labels(s: &mut Session, update: &Object<'_>) {
    if let Some(title) = patch_str(string_patch(update, "title")) {
        s.title = title;
    }
    if let Some(description) = patch_str(string_patch(update, "description")) {
        s.description = description;
    }
    if let Some(cwd) = patch_str(string_patch(update, "cwd")) {
        s.detail_mut().cwd = cwd;
    }
    match update.get("additionalDirectories") {
        None => {}
        Some(Json::Null) => s.detail_mut().additional_directories = None,
        Some(dirs @ Json::Array(_)) => {
            s.detail_mut().additional_directories = Some(Arc::new(dirs.to_value()));
        }
        Some(_) => {}
    }
}

/// A session's labels, to tell whether an association changed them.
#[derive(PartialEq)]
struct Labels {
    title: Option<Arc<str>>,
    description: Option<Arc<str>>,
    cwd: Option<Arc<str>>,
    additional_directories: Option<Arc<Value>>,
    meta: Option<Arc<Value>>,
}

impl Labels {
    fn of(s: &Session) -> Self {
        Self {
            title: s.title.clone(),
            description: s.description.clone(),
            cwd: s.detail().cwd.clone(),
            additional_directories: s.detail().additional_directories.clone(),
            meta: s.detail().meta.clone(),
        }
    }
}

fn patch_str(p: Patch<'_, &str>) -> Option<Option<Arc<str>>> {
    match p {
        Patch::Omitted | Patch::Invalid(_) => None,
        Patch::Null => Some(None),
        Patch::Set(s) => Some(Some(s.into())),
    }
}
