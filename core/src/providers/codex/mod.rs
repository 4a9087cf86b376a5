//! Codex app-server adapter: a captured stdio log (`codex-app-server` format) → canonical
//! events.
//!
//! Owns: root thread identification (every `thread/start` is a root; a `thread/resume`
//! response brings its thread's earlier turns as history), thread → session routing,
//! holding events of threads
//! no spawn edge has registered yet, spawn edges (both shapes), server requests as
//! interactions, the client's `turn/interrupt` fan-out as a cancel operation, and each
//! turn's token counts from the thread's running totals (`usage.rs`).
//! Never: settles a turn or decides an outcome. A root `turn/completed` becomes
//! `root_provider_turn_completed`, never a canonical settlement (seed: *Codex App-Server
//! Mapping*).
//!
//! Ids: the root session is the root thread id; a child session is its thread id; a
//! child's `parent.toolCall` is the spawn item id.

mod boundary;
mod cancel;
mod dups;
mod history;
mod hold;
mod items;
mod roots;
mod rpc;
mod usage;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{Ctx, ProviderRecord, Rec};
use crate::finding::Code;
use crate::ids::SessionId;
use crate::trace::borrowed::JsonRead;
use crate::tree::{Event, Outcome, SessionKind};
use cancel::CancelFanOut;
use hold::Held;
use rpc::{ClientRequest, RpcId};

pub(crate) use items::content_text;

/// The Codex adapter's routing state (transport correlation only, no business state).
#[derive(Debug, Clone, Default)]
pub struct CodexAdapter {
    /// The root shown first: the header's `rootThreadId`, else the first root identified.
    root: Option<SessionId>,
    root_created: bool,
    /// Every root thread of the connection (each `thread/start`, a resumed thread, the
    /// header's), once created.
    roots: BTreeSet<SessionId>,
    /// `--session`: the only root whose tree is folded; the others are skipped.
    select: Option<SessionId>,
    /// Threads of roots other than the selected one (those roots and their descendants).
    foreign: BTreeSet<SessionId>,
    /// Roots whose user cancel closed their root turn: the cancellation boundary, with the
    /// server-initiated provider turn it holds back, if any.
    boundary: BTreeMap<SessionId, Option<boundary::Unowned>>,
    /// Client → server requests awaiting their response.
    client_requests: BTreeMap<RpcId, ClientRequest>,
    /// Server → client requests turned into interactions: id → owning session.
    server_requests: BTreeMap<RpcId, SessionId>,
    /// Server requests that could not be owned (unknown thread): their answers are ignored.
    rejected_requests: BTreeSet<RpcId>,
    /// Records of threads not (yet) known, per thread, in arrival order.
    held: hold::HeldRecords,
    /// Threads named by a spawn edge (whether or not the reducer accepted the child), with
    /// the edge that named them first: parent thread and spawn call id.
    spawned: BTreeMap<SessionId, (SessionId, String)>,
    /// Tool items started and not completed, per thread: an interrupt leaves them open.
    open_items: BTreeSet<(SessionId, String)>,
    /// Provider turns (thread, turn id) an acknowledged `turn/interrupt` named.
    interrupted_turns: BTreeSet<(SessionId, String)>,
    /// Server requests not addressed to a thread (no tree fact): their answers are known.
    threadless_requests: BTreeSet<RpcId>,
    /// agentMessage items that streamed deltas (their completed text is not appended again).
    streamed: BTreeSet<(SessionId, String)>,
    /// The root's current provider turn id.
    root_provider_turn: Option<String>,
    /// Cancel operations in flight, by the session the cancel was requested for.
    cancels: BTreeMap<SessionId, CancelFanOut>,
    /// Held records released by a spawn edge, for the engine to apply next.
    released: VecDeque<Held>,
    /// Records repeated by the capture, and request ids reused.
    repeats: dups::Repeats,
    /// Each thread's token accounting (`thread/tokenUsage/updated`).
    usage: usage::Meter,
}

/// How the adapter sees a thread right now.
enum Thread {
    Root,
    /// A thread of a root that `--session` did not select: skipped.
    Foreign,
    /// A child session the reducer created.
    Child,
    /// Named by a spawn edge the reducer rejected (e.g. revealed after a cancel).
    Rejected,
    /// No spawn edge yet (or the root is not identified yet).
    Unknown,
}

impl CodexAdapter {
    /// An adapter; `root_thread` from the trace header's `rootThreadId`, if any (the
    /// root shown first). Every other root of the connection is folded too.
    pub fn new(root_thread: Option<&str>) -> Self {
        Self {
            root: root_thread.map(SessionId::from),
            ..Self::default()
        }
    }

    /// The same adapter folding only the tree of root `session` (`replay --session`): the
    /// records of every other root and its descendants are skipped without a finding. The
    /// header's root still counts from the first record when it is the selected one.
    #[must_use]
    pub fn selecting(mut self, session: &str) -> Self {
        let session = SessionId::from(session);
        if self.root.as_ref() != Some(&session) {
            self.root = None;
        }
        self.select = Some(session);
        self
    }

    /// Normalizes one pushed record: a record equal to the one just before it is skipped
    /// (said once at the end), a request reusing an id of its direction is reported and
    /// skipped, anything else applies.
    /// `text` is the record's line when it was read from one (a capture's duplicate repeats
    /// it byte for byte).
    pub(crate) fn record<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        record: Rec<'_, J>,
        text: Option<&str>,
    ) {
        match self.repeats.judge(cx.line(), record, text) {
            dups::Verdict::Apply => self.normalize(cx, record),
            dups::Verdict::Repeat => {}
            dups::Verdict::ReusedId { id, first, method } => {
                let pending =
                    (record.from == "client").then(|| self.client_requests.contains_key(&id));
                dups::report_reused(cx, record.from, (&id, first, &method), pending);
            }
        }
    }

    /// Keeps a pushed record, once [`CodexAdapter::record`] has read it, as the one the
    /// next pushed record is compared with (a capture's duplicate).
    pub(crate) fn remember(&mut self, record: ProviderRecord) {
        self.repeats.remember(record);
    }

    /// As [`CodexAdapter::remember`], for a record read in place from its line.
    pub(crate) fn remember_line(&mut self, text: &str) {
        self.repeats.remember_line(text);
    }

    /// Normalizes one record (pushed and judged, or released from hold). A record whose
    /// envelope has no `at` takes the time the provider stamped on it (`emittedAtMs`, on
    /// every app-server notification).
    pub(crate) fn normalize<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, record: Rec<'_, J>) {
        let emitted = record.message.get("emittedAtMs").and_then(J::as_u64);
        match (cx.at(), emitted) {
            (None, Some(at)) => self.record_at(&mut cx.relocate(cx.line(), Some(at)), record),
            _ => self.record_at(cx, record),
        }
    }

    fn record_at<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, record: Rec<'_, J>) {
        if let Some(root) = self.root.clone()
            && !self.root_created
        {
            self.root_created = true;
            self.identify_root(cx, root.as_str());
        }
        let message = record.message;
        let null = J::null();
        match (record.from, rpc::classify(message)) {
            ("client", rpc::Kind::Request { id, method, params }) => {
                self.client_request(cx, id, method, params.unwrap_or(&null));
            }
            ("client", rpc::Kind::Response { id, ok }) => {
                if let Some(thread) = self.held.request_thread(&id).cloned() {
                    // The answer to a request that waits for its thread's spawn edge waits too.
                    let held = Held {
                        line: cx.line(),
                        record: record.to_owned_record(),
                    };
                    if let Some(message) = self.held.hold(thread, held) {
                        cx.finding(Code::HeldEventsOverflow, message);
                    }
                } else {
                    self.client_response(cx, &id, message, ok);
                }
            }
            ("server", rpc::Kind::Response { id, ok }) => {
                self.server_response(cx, &id, message, ok);
            }
            ("server", rpc::Kind::Request { id, method, params }) => {
                let params = params.unwrap_or(&null);
                self.route(cx, record, params, |me, cx| {
                    me.server_request(cx, id.clone(), method, params);
                });
            }
            ("server", rpc::Kind::Notification { method, params }) => {
                let params = params.unwrap_or(&null);
                self.route(cx, record, params, |me, cx| {
                    me.notification(cx, method, params);
                });
            }
            // Client notifications carry no tree fact; `from` was validated by the envelope.
            (
                _,
                rpc::Kind::Notification { .. }
                | rpc::Kind::Request { .. }
                | rpc::Kind::Response { .. },
            ) => {}
            (_, rpc::Kind::Invalid(reason)) => cx.finding(
                Code::MalformedRecord,
                format!("not a valid codex-app-server message: {reason}"),
            ),
        }
        self.try_complete_cancels(cx);
    }

    /// End of trace: whatever is still held was never claimed by a spawn edge or, when no
    /// root was ever identified, shows the trace starts mid-session.
    pub fn finish(&mut self, cx: &mut Ctx<'_>) {
        self.boundary_finish(cx);
        let held = self.held.drain();
        if self.roots.is_empty() && self.foreign.is_empty() {
            hold::report_mid_session(cx, &held);
        } else {
            for (thread, records) in &held {
                hold::report_unclaimed(cx, thread, records);
            }
        }
        self.repeats.finish(cx);
        for (session, op) in &self.cancels {
            cx.finding_at(op.line, Code::CancelIncomplete, format!(
                    "the cancel of `{session}` never completed: {} interrupt(s) unanswered, {} target thread(s) never interrupted",
                    op.outstanding.len(),
                    op.uninterrupted(cx.snapshot()).len()
                ),);
        }
    }

    fn thread(&self, cx: &Ctx<'_>, id: &SessionId) -> Thread {
        if self.roots.contains(id) {
            return Thread::Root;
        }
        if self.foreign.contains(id) {
            return Thread::Foreign;
        }
        match cx.snapshot().session(id) {
            Some(s) if s.kind == SessionKind::Child => Thread::Child,
            Some(_) => Thread::Root,
            None if self.spawned.contains_key(id) => Thread::Rejected,
            None => Thread::Unknown,
        }
    }

    /// Runs `handle` for a server record of a known thread, holds it for an unknown
    /// thread, and reports it for a thread whose spawn was rejected.
    fn route<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        record: Rec<'_, J>,
        params: &J,
        handle: impl FnOnce(&mut Self, &mut Ctx<'_>),
    ) {
        let Some(thread) = params.get("threadId").and_then(J::as_str) else {
            handle(self, cx);
            return;
        };
        let thread = SessionId::from(thread);
        match self.thread(cx, &thread) {
            Thread::Root | Thread::Child => handle(self, cx),
            Thread::Foreign => self.skip_foreign(record, params),
            Thread::Unknown => {
                let overflow = self.held.hold(
                    thread.clone(),
                    Held {
                        line: cx.line(),
                        record: record.to_owned_record(),
                    },
                );
                if let Some(message) = overflow {
                    cx.finding(Code::HeldEventsOverflow, message);
                }
            }
            Thread::Rejected => {
                let is_request = matches!(rpc::classify(record.message), rpc::Kind::Request { .. });
                let code = if is_request {
                    Code::UnknownThreadRequest
                } else {
                    Code::RejectedThreadEvent
                };
                cx.finding(code, format!(
                        "thread `{thread}` was never created (revealed after its root turn closed or began cancelling); this record is not attributed to any session"
                    ),);
                if let rpc::Kind::Request { id, .. } = rpc::classify(record.message) {
                    self.rejected_requests.insert(id);
                }
            }
        }
    }

    /// Hands the held records of a thread that just became known back to the engine,
    /// which applies them in arrival order once the current record is done.
    fn release(&mut self, thread: &SessionId) {
        self.released.extend(self.held.take(thread));
    }

    /// The next released record (its line and the record), for the engine to apply.
    pub(crate) fn take_released(&mut self) -> Option<(usize, ProviderRecord)> {
        self.released.pop_front().map(|h| (h.line, h.record))
    }

    fn notification<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, method: &str, params: &J) {
        let thread = params
            .get("threadId")
            .and_then(J::as_str)
            .map(SessionId::from);
        let is_root = thread.as_ref().is_some_and(|t| self.roots.contains(t));
        if is_root && self.held_back(cx, method, params) {
            return; // output of a server-initiated turn the cancellation boundary holds back
        }
        match (method, thread) {
            ("turn/started", Some(thread)) => {
                let turn_id = params.pointer("/turn/id").and_then(J::as_str);
                if is_root && self.boundary_turn_started(cx, &thread, turn_id) {
                    return;
                }
                self.usage.turn_started(&thread, turn_id);
                if is_root {
                    self.root_provider_turn = turn_id.map(String::from);
                    cx.emit(Event::RootProviderTurnStarted {
                        session: thread,
                        provider_turn: turn_id.map(String::from),
                    });
                } else {
                    cx.emit(Event::ChildTurnStarted { session: thread });
                }
            }
            ("turn/completed", Some(thread)) => self.turn_completed(cx, thread, params, is_root),
            ("item/started" | "item/completed", Some(thread)) => {
                let completed = method == "item/completed";
                self.item(cx, &thread, params.get("item"), completed);
            }
            ("item/agentMessage/delta", Some(thread)) => self.delta(cx, thread, params),
            ("thread/name/updated", Some(thread)) => {
                let title = params
                    .get("threadName")
                    .and_then(J::as_str)
                    .map(String::from);
                cx.emit(Event::SessionTitled {
                    session: thread,
                    title,
                });
            }
            ("serverRequest/resolved", Some(thread)) => self.resolved(cx, thread, params),
            ("thread/tokenUsage/updated", Some(thread)) => self.usage.report(cx, thread, params),
            ("error", Some(thread)) => {
                // Seed: an error notification on a child never fails its parent; the turn's
                // own terminal decides. Keep the text visible on the thread's transcript.
                let text = params
                    .pointer("/error/message")
                    .and_then(J::as_str)
                    .unwrap_or("error")
                    .to_owned();
                cx.emit(Event::Message {
                    session: thread,
                    message: None,
                    role: crate::tree::Role::System,
                    text,
                });
            }
            // Thread status, thread start/close/archive, plans, diffs … carry no
            // session-tree fact: turns and items are authoritative.
            _ => {}
        }
    }

    /// A streamed piece of an agent message (its completed item is then not repeated).
    fn delta<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, thread: SessionId, params: &J) {
        let item = params.get("itemId").and_then(J::as_str).unwrap_or_default();
        let delta = params.get("delta").and_then(J::as_str).unwrap_or_default();
        self.streamed.insert((thread.clone(), item.to_owned()));
        cx.emit(Event::Message {
            session: thread,
            message: Some(item.into()),
            role: crate::tree::Role::Assistant,
            text: delta.to_owned(),
        });
    }

    /// The provider reports a server request resolved. Codex resolves a request left
    /// pending by an interrupt only after the child's `turn/completed`: by then the cancel
    /// superseded it, and the provider's cleanup changes nothing worth a note.
    fn resolved<J: JsonRead>(&mut self, cx: &mut Ctx<'_>, thread: SessionId, params: &J) {
        let Some(id) = params.get("requestId").map(RpcId::from_value) else {
            return;
        };
        if self.rejected_requests.contains(&id) {
            return;
        }
        let request = id.request_id();
        let superseded = cx
            .snapshot()
            .find_interaction(&thread, &request)
            .is_some_and(|i| i.status == crate::tree::InteractionStatus::Superseded);
        if !superseded {
            cx.emit(Event::InteractionResolved {
                session: thread,
                request,
            });
        }
    }

    /// A thread's provider turn ended. Tool items it left open (an interrupt never
    /// completes them) end with it: canceled when it was interrupted, failed when it
    /// failed. A child's `interrupted` terminal for a turn
    /// an acknowledged interrupt named, arriving after the cancel already settled that
    /// turn (Codex answers `{}` to `turn/interrupt` before the turn completes), is the
    /// cancel's own fallout and is dropped (seed, *Cancellation*: "after the exact child
    /// target has been closed by the cancel operation, the adapter drops that terminal
    /// projection").
    fn turn_completed<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: SessionId,
        params: &J,
        is_root: bool,
    ) {
        let status = params.pointer("/turn/status").and_then(J::as_str);
        let Some(outcome) = turn_outcome(status) else {
            cx.finding(
                Code::UnexpectedRecord,
                format!("turn/completed with status {status:?} is not a terminal; ignored"),
            );
            return;
        };
        let error = params
            .pointer("/turn/error/message")
            .and_then(J::as_str)
            .map(String::from);
        let provider_turn = params
            .pointer("/turn/id")
            .and_then(J::as_str)
            .map(String::from);
        match outcome {
            Outcome::Interrupted | Outcome::Canceled => {
                self.close_open_items(cx, &thread, crate::tree::ToolStatus::Canceled);
            }
            Outcome::Failed => self.close_open_items(cx, &thread, crate::tree::ToolStatus::Failed),
            Outcome::Completed => {}
        }
        if is_root {
            cx.emit(Event::RootProviderTurnCompleted {
                session: thread,
                provider_turn,
                outcome,
                error,
            });
            return;
        }
        let named = provider_turn.as_ref().is_some_and(|t| {
            self.interrupted_turns
                .contains(&(thread.clone(), t.clone()))
        });
        let settled = cx
            .snapshot()
            .session(&thread)
            .and_then(|s| s.last_turn())
            .is_some_and(|t| t.outcome.is_some());
        if outcome == Outcome::Interrupted && named && settled {
            return;
        }
        cx.emit(Event::ChildTurnCompleted {
            session: thread,
            outcome,
            error,
        });
    }

    /// Ends every tool item still open on `thread` with `status` (its turn ended without
    /// completing them).
    fn close_open_items(
        &mut self,
        cx: &mut Ctx<'_>,
        thread: &SessionId,
        status: crate::tree::ToolStatus,
    ) {
        let open: Vec<String> = self
            .open_items
            .iter()
            .filter(|(t, _)| t == thread)
            .map(|(_, call)| call.clone())
            .collect();
        for call in open {
            self.open_items.remove(&(thread.clone(), call.clone()));
            cx.emit(Event::ToolCallCompleted {
                session: thread.clone(),
                call: call.into(),
                status,
            });
        }
    }

    fn server_request<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        id: RpcId,
        method: &str,
        params: &J,
    ) {
        let Some(thread) = params
            .get("threadId")
            .and_then(J::as_str)
            .map(SessionId::from)
        else {
            // Not addressed to a thread (auth, config …): no tree fact, but its answer
            // answers a request this trace saw.
            self.threadless_requests.insert(id);
            return;
        };
        let kind = if method == "item/tool/requestUserInput" {
            crate::tree::InteractionKind::Question
        } else {
            crate::tree::InteractionKind::Approval
        };
        self.server_requests.insert(id.clone(), thread.clone());
        cx.emit(Event::InteractionRequested {
            session: thread,
            request: id.request_id(),
            kind,
            provider_turn: params.get("turnId").and_then(J::as_str).map(String::from),
            tool_call: params.get("itemId").and_then(J::as_str).map(Into::into),
            title: params
                .get("reason")
                .or_else(|| params.get("command"))
                .and_then(J::as_str)
                .map(String::from),
        });
    }

    /// The client answered a server request.
    fn client_response<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        id: &RpcId,
        message: &J,
        ok: bool,
    ) {
        if self.rejected_requests.contains(id) || self.threadless_requests.remove(id) {
            return;
        }
        let Some(session) = self.server_requests.get(id).cloned() else {
            cx.finding(
                Code::UnknownResponse,
                format!("client response {id} answers no server request seen in this trace"),
            );
            return;
        };
        let answer = if ok {
            message
                .pointer("/result/decision")
                .and_then(J::as_str)
                .map(String::from)
                .or_else(|| message.get("result").map(J::json_text))
        } else {
            Some("error".to_owned())
        };
        cx.emit(Event::InteractionAnswered {
            session,
            request: id.request_id(),
            answer,
        });
    }

    fn client_request<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        id: RpcId,
        method: &str,
        params: &J,
    ) {
        let thread = params.get("threadId").and_then(J::as_str);
        if thread.is_some_and(|t| self.foreign.contains(&SessionId::from(t))) {
            // A request about another root's tree than the selected one.
            self.client_requests.insert(id, ClientRequest::Other);
            return;
        }
        let request = match (method, thread) {
            ("thread/start", _) => ClientRequest::ThreadStart,
            ("thread/resume", _) => ClientRequest::ThreadResume,
            ("turn/start" | "turn/steer", Some(thread)) => {
                if method == "turn/start" {
                    if self.roots.is_empty() {
                        self.identify_root(cx, thread);
                    }
                    // Seed: "a later explicit canonical root turn clears" the boundary.
                    self.boundary_cleared(cx, &SessionId::from(thread));
                }
                let text = input_text(params.get("input"));
                cx.emit(Event::UserSubmitted {
                    session: thread.into(),
                    message: None,
                    text,
                });
                ClientRequest::Other
            }
            ("turn/interrupt", Some(thread)) => {
                let turn = params.get("turnId").and_then(J::as_str).map(String::from);
                if self.boundary_interrupt(thread, turn.as_deref()) {
                    ClientRequest::Other // the host interrupts the turn the boundary held back
                } else {
                    self.interrupt(cx, &id, thread, turn)
                }
            }
            _ => ClientRequest::Other,
        };
        self.client_requests.insert(id, request);
    }

    /// The server answered a client request.
    fn server_response<J: JsonRead>(
        &mut self,
        cx: &mut Ctx<'_>,
        id: &RpcId,
        message: &J,
        ok: bool,
    ) {
        let Some(request) = self.client_requests.remove(id) else {
            cx.finding(
                Code::UnknownResponse,
                format!("server response {id} answers no client request seen in this trace"),
            );
            return;
        };
        match request {
            ClientRequest::ThreadStart => {
                // Every started thread is a root (a child is never started by the client:
                // a spawn edge claims it).
                if let Some(thread) = message.pointer("/result/thread/id").and_then(J::as_str) {
                    self.identify_root(cx, thread);
                }
            }
            ClientRequest::ThreadResume => self.resumed(cx, message),
            ClientRequest::Interrupt {
                thread,
                turn,
                operation,
            } => {
                self.interrupt_returned(cx, id, &thread, turn, &operation, ok);
            }
            ClientRequest::Other => {}
        }
    }
}

/// A turn status → the canonical outcome (`inProgress` is not a terminal).
fn turn_outcome(status: Option<&str>) -> Option<Outcome> {
    match status? {
        "completed" => Some(Outcome::Completed),
        "failed" => Some(Outcome::Failed),
        "interrupted" => Some(Outcome::Interrupted),
        _ => None,
    }
}

/// The threads a `collabAgentToolCall` item names in `receiverThreadIds`: the children a
/// `spawnAgent` creates, the ones a `wait` waits on (what is not a string is passed over).
fn receivers<J: JsonRead>(item: &J) -> impl Iterator<Item = &str> {
    item.get("receiverThreadIds")
        .and_then(J::items)
        .into_iter()
        .flatten()
        .filter_map(J::as_str)
}

/// The text items of a `turn/start` / `turn/steer` input, joined.
fn input_text<J: JsonRead>(input: Option<&J>) -> Option<String> {
    let parts: Vec<&str> = input?
        .items()?
        .iter()
        .filter_map(|i| i.get("text").and_then(J::as_str))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests;
