//! ACP projection: the canonical session tree as the ACP stream an Agent would send
//! (and the Client calls it answers), for v1 and v2, per the RFD "Subagent Sessions".
//!
//! Owns: turning the engine's canonical changes (read with the tree after them) into
//! JSON-RPC messages on both sides of one connection: the Client's `initialize`,
//! `session/new`, `session/prompt`, `session/cancel` and its answers to requests; the
//! Agent's responses, `session/update`s (`subagent_update` associations and work
//! states, v2 `state_update`s, message chunks, tool calls) and permission requests.
//! Never: guesses a parent (a child is announced under the session that spawned it,
//! which the tree already holds, after its ancestors), announces before the Client may
//! receive it (v1 without `subagents`: children are flattened into the root session as
//! ordinary content), manufactures an incoming message view, or sums costs (the tree
//! has none).
//!
//! Work states: a child turn that runs reports `running`, one waiting on an interaction
//! `requires_action`, a settled one `idle` with `stopReason` `end_turn` (completed) or
//! `cancelled` (canceled, confirmed), no reason when it failed, and `unknown` when it
//! was interrupted without confirmation (its activity is no longer observable). v2
//! sends each state on the child's stream, then mirrors it on the parent association.
//!
//! The root `session/prompt` response goes at canonical root settlement (the product
//! contract: the root turn ends when every nested child has ended) or, with
//! [`PromptResponse::AtProviderEnd`], when the root provider turn ends (which the RFD
//! allows; children may go on after it). In v2 it goes at acceptance and the root's
//! work state follows on its own stream.
//!
//! Cancel grants (`capabilities.cancel`), per provider, where it can stop that child's
//! current work: Codex, `turn/interrupt` on the child thread: every child; Claude
//! Code, `stop_task` of the agent task: every child; canonical traces: every child (the
//! model has child-only cancels). [`CancelGrants::None`] grants none.

mod converter;
mod messages;
mod reconnect;
#[cfg(test)]
mod tests;

pub use converter::Converter;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::acp::Side;
use crate::tree::{
    Change, InteractionKind, InteractionStatus, Outcome, Phase, ProviderPhase, Role, Session,
    SessionKind, Snapshot, ToolStatus,
};
use crate::{SessionId, TurnId};
use messages as m;

/// ACP protocol version of the projected stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Version {
    /// v1: subagent updates only when the Client advertised `subagents`.
    #[default]
    V1,
    /// v2: subagents are baseline; states on the child's stream, mirrored on the parent.
    V2,
}

/// When the root `session/prompt` response is sent (v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PromptResponse {
    /// At canonical root settlement: after every nested child ended.
    #[default]
    AtRootSettlement,
    /// When the root provider turn ends (children may still run).
    AtProviderEnd,
}

/// Which children the Client may cancel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CancelGrants {
    /// Every child (the provider can stop a child's current work).
    #[default]
    Children,
    /// None.
    None,
}

/// Who writes the Client's side of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientSide {
    /// The projector writes it too (`initialize`, `session/new`, prompts, cancels,
    /// answers), as the canonical log says the user acted: a whole trace (`convert`).
    #[default]
    Synthesized,
    /// A real Client sends it: the projector writes only the Agent's messages, and the
    /// Client's messages go through [`Projector::client_message`] into canonical events.
    External,
}

/// How to project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Protocol version.
    pub version: Version,
    /// v1: the Client advertised `subagents` (otherwise children are flattened).
    pub client_subagents: bool,
    /// When the root prompt is answered.
    pub prompt_response: PromptResponse,
    /// Cancel grants.
    pub cancel_grants: CancelGrants,
    /// Who writes the Client's side.
    pub client: ClientSide,
    /// After the log, reconnect and load every root (v1 `session/load`, v2
    /// `session/resume` with replay): history before the response, current states and
    /// grants after it (the freshness boundary). Synthesized Client only.
    pub reconnect: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            version: Version::V1,
            client_subagents: true,
            prompt_response: PromptResponse::AtRootSettlement,
            cancel_grants: CancelGrants::Children,
            client: ClientSide::Synthesized,
            reconnect: false,
        }
    }
}

/// One message of the projected stream, as an `acp` trace record's `from` and `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpMessage {
    /// Who sends it.
    pub from: Side,
    /// The JSON-RPC message.
    pub message: Value,
}

/// A pending Agent→Client request of an interaction.
#[derive(Debug, Clone)]
struct Asked {
    id: u64,
    kind: InteractionKind,
    session: SessionId,
}

/// Projects canonical changes to an ACP stream, one push at a time.
///
/// ```
/// use lineage_core::project::{Options, Projector};
/// use lineage_core::engine::{Engine, Options as EngineOptions};
/// let mut engine = Engine::new(EngineOptions::default());
/// let mut projector = Projector::new(Options::default());
/// let mut stream = projector.start();
/// for line in [
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     r#"{"event":{"type":"user_submitted","session":"R","text":"go"}}"#,
///     r#"{"event":{"type":"root_provider_turn_started","session":"R"}}"#,
///     r#"{"event":{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"t1"}}"#,
/// ] {
///     let out = engine.push_line(line).unwrap();
///     stream.extend(projector.project(engine.snapshot(), &out.changes));
/// }
/// let announce = stream.iter().find(|m| m.message["params"]["update"]["sessionUpdate"] == "subagent_update").unwrap();
/// assert_eq!(announce.message["params"]["sessionId"], "R");
/// assert_eq!(announce.message["params"]["update"]["sessionId"], "A");
/// assert_eq!(announce.message["params"]["update"]["capabilities"]["cancel"], serde_json::json!({}));
/// ```
#[derive(Debug, Clone)]
pub struct Projector {
    options: Options,
    next_client_id: u64,
    next_agent_id: u64,
    /// Open `session/prompt` request per root turn.
    prompts: BTreeMap<TurnId, u64>,
    /// Announced children.
    announced: BTreeSet<SessionId>,
    /// The last work state sent per child (v1 association, v2 stream).
    states: BTreeMap<SessionId, Value>,
    /// Bytes of each message's text already sent: (session, index).
    sent_text: BTreeMap<(SessionId, usize), usize>,
    /// Tool calls already announced: (session, call id).
    tools: BTreeSet<(SessionId, String)>,
    /// Announced tool calls not yet ended, per session (what a cancelled idle ends first).
    open_tools: BTreeMap<SessionId, BTreeSet<String>>,
    /// Tool calls ended `failed` by their session's cancel: a later terminal is not sent.
    ended_by_cancel: BTreeSet<(SessionId, String)>,
    /// Pending Agent→Client requests per (turn, request id).
    asked: BTreeMap<(TurnId, String), Asked>,
    /// External Client: its `session/prompt` ids not yet given a root turn, per session.
    prompt_ids: BTreeMap<SessionId, std::collections::VecDeque<u64>>,
    /// Where each root session's turns have their prompt.
    prompt_index: BTreeMap<SessionId, PromptIndex>,
}

/// Where the turns of one session have their prompt (their first user message) in its
/// transcript, read as the transcript grows: a message is read once, so finding the prompt
/// of every turn costs the transcript once, not once per turn (a root with many turns).
/// A transcript only grows (messages are appended, never moved), except when its session
/// is deleted and it is emptied: then it is read again from the start.
#[derive(Debug, Clone, Default)]
struct PromptIndex {
    /// Messages read so far.
    read: usize,
    /// Turn ordinal → the index of its first user message.
    first: BTreeMap<u32, usize>,
}

impl PromptIndex {
    /// The index of the first user message of turn `ordinal` in `s`'s transcript.
    fn prompt(&mut self, s: &Session, ordinal: u32) -> Option<usize> {
        if self.read > s.messages.len() {
            *self = PromptIndex::default();
        }
        for index in self.read..s.messages.len() {
            if let Some(m) = s.messages.get(index)
                && m.role == Role::User
            {
                self.first.entry(m.turn).or_insert(index);
            }
        }
        self.read = s.messages.len();
        self.first.get(&ordinal).copied()
    }
}

impl Projector {
    /// A projector with `options`.
    pub fn new(options: Options) -> Self {
        Self {
            options,
            next_client_id: 0,
            next_agent_id: 0,
            prompts: BTreeMap::new(),
            announced: BTreeSet::new(),
            states: BTreeMap::new(),
            sent_text: BTreeMap::new(),
            tools: BTreeSet::new(),
            open_tools: BTreeMap::new(),
            ended_by_cancel: BTreeSet::new(),
            asked: BTreeMap::new(),
            prompt_ids: BTreeMap::new(),
            prompt_index: BTreeMap::new(),
        }
    }

    /// Adds a Client message to `out` when the projector writes the Client's side.
    fn client_says(&self, out: &mut Vec<AcpMessage>, message: Value) {
        if self.options.client == ClientSide::Synthesized {
            out.push(client(message));
        }
    }

    /// Does the stream expose children (v2, or v1 with the Client's `subagents`)?
    fn exposes(&self) -> bool {
        self.options.version == Version::V2 || self.options.client_subagents
    }

    fn client_id(&mut self) -> u64 {
        let id = self.next_client_id;
        self.next_client_id += 1;
        id
    }

    fn agent_id(&mut self) -> u64 {
        let id = self.next_agent_id;
        self.next_agent_id += 1;
        id
    }

    /// The connection's opening: the Client's `initialize` (advertising `subagents` in
    /// v1 when so configured) and the Agent's answer.
    pub fn start(&mut self) -> Vec<AcpMessage> {
        if self.options.client == ClientSide::External {
            return Vec::new(); // the embedder answers the real Client's `initialize`
        }
        let id = self.client_id();
        let info = json!({"name": "lineage", "version": env!("CARGO_PKG_VERSION")});
        let (request, result) = if self.options.version == Version::V2 {
            (
                json!({"protocolVersion": 2, "info": info, "capabilities": {}}),
                json!({"protocolVersion": 2, "info": info, "capabilities": {}, "authMethods": []}),
            )
        } else {
            let fs = json!({"readTextFile": false, "writeTextFile": false});
            let caps = if self.options.client_subagents {
                json!({"fs": fs, "terminal": false, "subagents": {}})
            } else {
                json!({"fs": fs, "terminal": false})
            };
            (
                json!({"protocolVersion": 1, "clientCapabilities": caps}),
                json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": self.options.reconnect}, "authMethods": []}),
            )
        };
        vec![
            client(m::request(id, "initialize", request)),
            agent(m::response(id, result)),
        ]
    }

    /// The messages for one push's `changes`, reading details from `snapshot` (the tree
    /// after them).
    pub fn project(&mut self, snapshot: &Snapshot, changes: &[Change]) -> Vec<AcpMessage> {
        let mut out = Vec::new();
        for change in changes {
            self.change(snapshot, change, &mut out);
        }
        out
    }

    /// The end of the log: observation of every child still at work is lost, so each
    /// reports `unknown` (never an invented outcome).
    pub fn finish(&mut self, snapshot: &Snapshot) -> Vec<AcpMessage> {
        let mut out = Vec::new();
        let working: Vec<SessionId> = self
            .states
            .iter()
            .filter(|(_, state)| {
                matches!(state["state"].as_str(), Some("running" | "requires_action"))
            })
            .map(|(session, _)| session.clone())
            .collect();
        for session in working {
            self.report_state(snapshot, &session, m::state("unknown", None), &mut out);
        }
        out
    }

    fn change(&mut self, snapshot: &Snapshot, change: &Change, out: &mut Vec<AcpMessage>) {
        match change {
            Change::SessionCreated { session, kind, .. } => match kind {
                SessionKind::Root => self.root_created(session, out),
                SessionKind::Child => self.child_created(snapshot, session, out),
            },
            Change::TurnOpened { turn, .. } => self.turn_opened(snapshot, turn, out),
            Change::TurnPhaseChanged { turn, phase, .. } => self.phase(snapshot, turn, *phase, out),
            Change::TurnSettled { turn, outcome, .. } => {
                self.settled(snapshot, turn, *outcome, out)
            }
            Change::ProviderTurnChanged {
                turn,
                phase: ProviderPhase::Completed,
                outcome,
                ..
            } if self.options.prompt_response == PromptResponse::AtProviderEnd => {
                self.answer_prompt(turn, outcome.unwrap_or(Outcome::Completed), out);
            }
            Change::MessageAppended {
                turn, index, text, ..
            } => {
                self.message(snapshot, turn.session(), *index, text, out);
            }
            Change::ToolCallChanged {
                turn, call, status, ..
            } => {
                self.tool(snapshot, turn.session(), call.as_str(), *status, out);
            }
            Change::TitleChanged { session, .. } => self.title(snapshot, session, out),
            Change::InteractionChanged {
                turn,
                request,
                status,
                ..
            } => self.interaction(snapshot, turn, request.as_str(), *status, out),
            Change::CancelPrepared {
                operation, targets, ..
            } => {
                self.cancel(snapshot, operation, targets, out);
            }
            Change::SessionDeleted { session, .. } => {
                // Deleting closes the session: the Client answers its pending requests
                // `cancelled`, as on close.
                let open: Vec<(TurnId, String)> = self
                    .asked
                    .iter()
                    .filter(|(_, a)| a.session == *session)
                    .map(|(k, _)| k.clone())
                    .collect();
                for key in open {
                    self.withdraw(&key, out);
                }
            }
            _ => {}
        }
    }

    fn root_created(&mut self, session: &SessionId, out: &mut Vec<AcpMessage>) {
        if self.options.client == ClientSide::External {
            return; // the embedder answered the real Client's `session/new`
        }
        let id = self.client_id();
        out.push(client(m::request(
            id,
            "session/new",
            json!({"cwd": "/", "mcpServers": []}),
        )));
        out.push(agent(m::response(
            id,
            json!({"sessionId": session.as_str()}),
        )));
    }

    /// Announces a child under the session that spawned it (already announced: it was
    /// created earlier), with its title and cancel grant.
    fn child_created(&mut self, snapshot: &Snapshot, child: &SessionId, out: &mut Vec<AcpMessage>) {
        if !self.exposes() {
            return;
        }
        let Some(s) = snapshot.session(child) else {
            return;
        };
        let Some(parent) = s.relation.as_ref().map(|r| r.parent_session.clone()) else {
            return;
        };
        let mut update = serde_json::Map::new();
        update.insert("sessionUpdate".into(), json!("subagent_update"));
        update.insert("sessionId".into(), json!(child.as_str()));
        if let Some(title) = &s.title {
            update.insert("title".into(), json!(&**title));
        }
        if self.options.cancel_grants == CancelGrants::Children {
            update.insert("capabilities".into(), json!({"cancel": {}}));
        }
        out.push(agent(m::update(parent.as_str(), Value::Object(update))));
        self.announced.insert(child.clone());
    }

    fn turn_opened(&mut self, snapshot: &Snapshot, turn: &TurnId, out: &mut Vec<AcpMessage>) {
        let Some(s) = snapshot.session(turn.session()) else {
            return;
        };
        if s.kind == SessionKind::Root {
            let prompt = self
                .prompt_index
                .entry(s.id.clone())
                .or_default()
                .prompt(s, turn.ordinal());
            let id = match self.options.client {
                ClientSide::Synthesized => {
                    let text = prompt
                        .and_then(|index| s.messages.get(index))
                        .map(|m| m.text.to_text())
                        .unwrap_or_default();
                    let id = self.client_id();
                    out.push(client(m::request(
                        id,
                        "session/prompt",
                        json!({"sessionId": turn.session().as_str(), "prompt": [m::text(&text)]}),
                    )));
                    Some(id)
                }
                ClientSide::External => self
                    .prompt_ids
                    .get_mut(turn.session())
                    .and_then(std::collections::VecDeque::pop_front),
            };
            if let Some(id) = id {
                self.prompts.insert(turn.clone(), id);
            }
            if self.options.version == Version::V2 {
                // v2 resolves the prompt at acceptance with the id of the user message,
                // which the Agent echoes; work state follows on the stream.
                self.answer_prompt_v2(s, turn, prompt, out);
            } else if let Some(index) = prompt
                && let Some(m) = s.messages.get(index)
            {
                // v1: the prompt's own text is in the request, not echoed.
                self.sent_text.insert((s.id.clone(), index), m.text.len());
            }
        }
        let phase = snapshot.turn(turn).map_or(Phase::Submitted, |t| t.phase);
        self.phase(snapshot, turn, phase, out);
    }

    /// v2: the answer to the turn's `session/prompt`, naming its `prompt` message (the
    /// index of the turn's first user message), or an empty echo when it has none.
    fn answer_prompt_v2(
        &mut self,
        s: &Session,
        turn: &TurnId,
        prompt: Option<usize>,
        out: &mut Vec<AcpMessage>,
    ) {
        let Some(id) = self.prompts.remove(turn) else {
            return;
        };
        let message_id = match prompt {
            Some(index) => format!("{}-m{index}", s.id.as_str()),
            None => {
                // Nothing to echo was recorded: echo an empty user message.
                let message_id = format!("{}-prompt{}", s.id.as_str(), turn.ordinal());
                out.push(agent(m::update(
                    s.id.as_str(),
                    m::chunk("user_message_chunk", &message_id, ""),
                )));
                message_id
            }
        };
        out.push(agent(m::response(id, json!({"messageId": message_id}))));
    }

    fn phase(
        &mut self,
        snapshot: &Snapshot,
        turn: &TurnId,
        phase: Phase,
        out: &mut Vec<AcpMessage>,
    ) {
        let state = match phase {
            Phase::Running | Phase::Settling => "running",
            Phase::Waiting if is_child(snapshot, turn.session()) => {
                if snapshot
                    .turn(turn)
                    .is_some_and(|t| t.pending_interactions > 0)
                {
                    "requires_action"
                } else {
                    "running"
                }
            }
            Phase::Waiting => "running",
            Phase::Submitted | Phase::Settled => return,
        };
        self.report_state(snapshot, turn.session(), m::state(state, None), out);
    }

    fn settled(
        &mut self,
        snapshot: &Snapshot,
        turn: &TurnId,
        outcome: Outcome,
        out: &mut Vec<AcpMessage>,
    ) {
        if outcome == Outcome::Canceled {
            self.end_open_tools(snapshot, turn.session(), out);
        }
        self.report_state(snapshot, turn.session(), settled_state(outcome), out);
        self.answer_prompt(turn, outcome, out);
        // Requests of the settled turn that are still open no longer apply (its keys
        // are a range of the map: the turn with every request id from the empty one).
        let open: Vec<(TurnId, String)> = self
            .asked
            .range((turn.clone(), String::new())..)
            .map(|(key, _)| key)
            .take_while(|(t, _)| t == turn)
            .cloned()
            .collect();
        for key in open {
            self.withdraw(&key, out);
        }
    }

    /// Sends a work state: v1 on the parent association (children only); v2 on the
    /// session's own stream, then mirrored on the parent association for a child.
    fn report_state(
        &mut self,
        snapshot: &Snapshot,
        session: &SessionId,
        state: Value,
        out: &mut Vec<AcpMessage>,
    ) {
        let child = is_child(snapshot, session);
        if (child && !self.announced.contains(session)) || self.states.get(session) == Some(&state)
        {
            return;
        }
        if !child && self.options.version == Version::V1 {
            return; // a v1 root's work is its prompt turn
        }
        self.states.insert(session.clone(), state.clone());
        if self.options.version == Version::V2 {
            let mut update = json!({"sessionUpdate": "state_update"});
            if let (Some(obj), Some(fields)) = (update.as_object_mut(), state.as_object()) {
                obj.extend(fields.clone());
            }
            out.push(agent(m::update(session.as_str(), update)));
        }
        if let Some(parent) = child.then(|| parent_of(snapshot, session)).flatten() {
            out.push(agent(m::update(
                parent.as_str(),
                json!({"sessionUpdate": "subagent_update", "sessionId": session.as_str(), "state": state}),
            )));
        }
    }

    fn answer_prompt(&mut self, turn: &TurnId, outcome: Outcome, out: &mut Vec<AcpMessage>) {
        let Some(id) = self.prompts.remove(turn) else {
            return;
        };
        out.push(agent(match outcome {
            Outcome::Completed => m::response(id, json!({"stopReason": "end_turn"})),
            Outcome::Canceled | Outcome::Interrupted => {
                m::response(id, json!({"stopReason": "cancelled"}))
            }
            Outcome::Failed => m::error_response(id, "the turn failed"),
        }));
    }

    /// The session whose stream carries `session`'s content: itself when children are
    /// exposed, else its root (flattened, "through the parent session").
    fn route(&self, snapshot: &Snapshot, session: &SessionId) -> Option<SessionId> {
        let s = snapshot.session(session)?;
        match (&s.relation, self.exposes()) {
            (Some(r), false) => Some(r.root_session.clone()),
            (Some(_), true) if !self.announced.contains(session) => None,
            _ => Some(session.clone()),
        }
    }

    /// The text of message `index` of `session` not sent yet, as one chunk; `appended`
    /// is what the change being projected appended to it.
    fn message(
        &mut self,
        snapshot: &Snapshot,
        session: &SessionId,
        index: usize,
        appended: &str,
        out: &mut Vec<AcpMessage>,
    ) {
        let (Some(s), Some(target)) = (snapshot.session(session), self.route(snapshot, session))
        else {
            return;
        };
        let Some(msg) = s.messages.get(index) else {
            return;
        };
        let sent = self
            .sent_text
            .get(&(session.clone(), index))
            .copied()
            .unwrap_or(0);
        let total = msg.text.len();
        // A transcript's text only grows. When everything before this append was sent
        // and nothing came after it, what is left to send is exactly the append: the
        // whole text is not joined again for every delta of a streamed message.
        let joined;
        let delta = if sent + appended.len() == total {
            appended
        } else {
            joined = msg.text.to_text();
            match joined.get(sent..) {
                Some(rest) => rest,
                None => return,
            }
        };
        if delta.is_empty() {
            return;
        }
        self.sent_text.insert((session.clone(), index), total);
        let flattened = target != *session;
        // Transcript-local and stable: one id per message of the session it came from.
        let message_id = format!("{}-m{index}", session.as_str());
        let update = match (msg.role, &s.relation) {
            // A child's delegated prompt, observed in the child: its incoming view.
            (Role::User, Some(r)) if !flattened => json!({
                "sessionUpdate": "session_message_chunk",
                "messageId": message_id,
                "senderSessionId": r.parent_session.as_str(),
                "recipientSessionId": session.as_str(),
                "content": m::text(delta),
            }),
            (Role::User, Some(_)) => return, // the parent's own delegation input
            (Role::User, None) => m::chunk("user_message_chunk", &message_id, delta),
            (Role::Thought, _) => m::chunk("agent_thought_chunk", &message_id, delta),
            (Role::Assistant | Role::System, _) => {
                m::chunk("agent_message_chunk", &message_id, delta)
            }
        };
        out.push(agent(m::update(target.as_str(), update)));
    }

    /// A cancel's confirmation (a cancelled idle) comes after the cancelled work's last
    /// updates (Subagent Sessions RFD, *Cancellation and resource ownership*: "abort the
    /// affected work and send its pending updates before confirming cancellation"): the
    /// session's tool calls still open end `failed` first, and their own terminal, if the
    /// provider reports one later, is not sent again.
    fn end_open_tools(
        &mut self,
        snapshot: &Snapshot,
        session: &SessionId,
        out: &mut Vec<AcpMessage>,
    ) {
        let Some(open) = self.open_tools.remove(session) else {
            return;
        };
        let Some(target) = self.route(snapshot, session) else {
            return;
        };
        for call in open {
            let update = json!({"sessionUpdate": "tool_call_update", "toolCallId": &call, "status": "failed"});
            out.push(agent(m::update(target.as_str(), update)));
            self.ended_by_cancel.insert((session.clone(), call));
        }
    }

    fn tool(
        &mut self,
        snapshot: &Snapshot,
        session: &SessionId,
        call: &str,
        status: ToolStatus,
        out: &mut Vec<AcpMessage>,
    ) {
        let Some(target) = self.route(snapshot, session) else {
            return;
        };
        let key = (session.clone(), call.to_owned());
        if status != ToolStatus::InProgress && self.ended_by_cancel.remove(&key) {
            return; // the Client has its terminal already
        }
        let calls = self.open_tools.entry(session.clone()).or_default();
        if status == ToolStatus::InProgress {
            calls.insert(call.to_owned());
        } else {
            calls.remove(call);
        }
        let status = match status {
            ToolStatus::InProgress => "in_progress",
            ToolStatus::Completed => "completed",
            ToolStatus::Failed | ToolStatus::Canceled => "failed",
        };
        let update = if self.tools.insert((session.clone(), call.to_owned())) {
            let title = snapshot
                .session(session)
                .and_then(|s| s.tool_calls.get(&crate::CallId::from(call)))
                .and_then(|c| c.title.clone().or_else(|| c.name.clone()))
                .map_or_else(|| call.to_owned(), |t| t.to_string());
            json!({"sessionUpdate": "tool_call", "toolCallId": call, "title": title, "kind": "other", "status": status})
        } else {
            json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": status})
        };
        out.push(agent(m::update(target.as_str(), update)));
    }

    fn title(&mut self, snapshot: &Snapshot, session: &SessionId, out: &mut Vec<AcpMessage>) {
        let Some(s) = snapshot.session(session) else {
            return;
        };
        let title = s.title.as_deref().map_or(Value::Null, |t| json!(t));
        match parent_of(snapshot, session) {
            Some(parent) if self.announced.contains(session) => out.push(agent(m::update(
                parent.as_str(),
                json!({"sessionUpdate": "subagent_update", "sessionId": session.as_str(), "title": title}),
            ))),
            Some(_) => {}
            None => out.push(agent(m::update(
                session.as_str(),
                json!({"sessionUpdate": "session_info_update", "title": title}),
            ))),
        }
    }

    fn interaction(
        &mut self,
        snapshot: &Snapshot,
        turn: &TurnId,
        request: &str,
        status: InteractionStatus,
        out: &mut Vec<AcpMessage>,
    ) {
        let key = (turn.clone(), request.to_owned());
        let Some(i) = snapshot.interaction(turn, &request.into()) else {
            return;
        };
        match status {
            InteractionStatus::Pending if !self.asked.contains_key(&key) => {
                let Some(target) = self.route(snapshot, turn.session()) else {
                    return;
                };
                let id = self.agent_id();
                let title = i.title.as_deref().unwrap_or(request);
                let call = i.tool_call.as_ref().map_or(request, |c| c.as_str());
                let message = match i.kind {
                    InteractionKind::Approval => m::request(
                        id,
                        "session/request_permission",
                        m::permission_params(
                            self.options.version == Version::V2,
                            target.as_str(),
                            call,
                            title,
                        ),
                    ),
                    InteractionKind::Question => m::request(
                        id,
                        "elicitation/create",
                        json!({"sessionId": target.as_str(), "message": title, "requestedSchema": {"type": "object", "properties": {}}}),
                    ),
                };
                out.push(agent(message));
                let asked = Asked {
                    id,
                    kind: i.kind,
                    session: turn.session().clone(),
                };
                if snapshot.turn(turn).is_some_and(|t| t.cancel.is_some()) {
                    // Asked for work a cancel is already stopping: the Client dismisses
                    // it at once ("the request no longer applies").
                    self.client_says(out, answer(&asked, None));
                } else {
                    self.asked.insert(key, asked);
                }
            }
            InteractionStatus::Pending => {}
            InteractionStatus::Answered => {
                if let Some(asked) = self.asked.remove(&key) {
                    self.client_says(out, answer(&asked, i.answer.as_deref().or(Some(""))));
                }
            }
            InteractionStatus::Resolved | InteractionStatus::Superseded => self.withdraw(&key, out),
        }
    }

    /// A request whose work ended or was resolved elsewhere: the Client answers it
    /// `cancelled` (the Agent no longer needs it).
    fn withdraw(&mut self, key: &(TurnId, String), out: &mut Vec<AcpMessage>) {
        if self.options.client == ClientSide::External {
            return; // the real Client answers; its answer still maps to the interaction
        }
        if let Some(asked) = self.asked.remove(key) {
            self.client_says(out, answer(&asked, None));
        }
    }

    /// A cancel: the Client's `session/cancel` of the root (or of a granted child),
    /// then its `cancelled` answers to the pending requests of the work it covers (the
    /// turns the reducer recorded as the cancel's targets).
    fn cancel(
        &mut self,
        snapshot: &Snapshot,
        operation: &TurnId,
        targets: &[TurnId],
        out: &mut Vec<AcpMessage>,
    ) {
        let session = operation.session();
        let child = is_child(snapshot, session);
        if child
            && !(self.announced.contains(session)
                && self.options.cancel_grants == CancelGrants::Children)
        {
            return; // not a cancel this Client could send
        }
        self.client_says(
            out,
            m::notification("session/cancel", json!({"sessionId": session.as_str()})),
        );
        let covered: Vec<(TurnId, String)> = self
            .asked
            .keys()
            .filter(|(turn, _)| targets.contains(turn))
            .cloned()
            .collect();
        for key in covered {
            self.withdraw(&key, out);
        }
    }
}

/// What a real Client's message stands for in the canonical model
/// ([`Projector::client_message`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ClientInput {
    /// Push these canonical events to the engine.
    Events(Vec<crate::Event>),
    /// The RFD forbids it (a mutation of a child, a cancel without a current grant, an
    /// answer to no pending request): the Agent refuses it, nothing changes.
    Refused(String),
    /// Nothing in the canonical model (e.g. `initialize`, which the embedder answers).
    Ignored,
}

impl Projector {
    /// Maps one message a real Client sent (with [`ClientSide::External`]) to canonical
    /// events: a `session/prompt` of a root is the user's submission (its response goes
    /// out when that root turn settles); a `session/cancel` of a root is the user's
    /// cancel, of a child a child-only cancel, accepted only under a current grant (the
    /// child was announced with `capabilities.cancel` and is at work); an answer to a
    /// projected permission or elicitation request answers that interaction.
    pub fn client_message(&mut self, snapshot: &Snapshot, message: &Value) -> ClientInput {
        let method = message.get("method").and_then(Value::as_str);
        let params = message.get("params").unwrap_or(&Value::Null);
        let session = params
            .get("sessionId")
            .and_then(Value::as_str)
            .map(SessionId::from);
        match (method, session) {
            (Some("session/prompt"), Some(s)) => self.client_prompt(snapshot, s, message, params),
            (Some("session/cancel"), Some(s)) => self.client_cancel(snapshot, s),
            (Some(_), _) => ClientInput::Ignored,
            (None, _) => self.client_answer(message),
        }
    }

    fn client_prompt(
        &mut self,
        snapshot: &Snapshot,
        s: SessionId,
        message: &Value,
        params: &Value,
    ) -> ClientInput {
        if is_child(snapshot, &s) {
            return ClientInput::Refused(format!(
                "`session/prompt` names `{s}`, an Agent-owned child session: children are restricted"
            ));
        }
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            self.prompt_ids.entry(s.clone()).or_default().push_back(id);
        }
        let text: Vec<&str> = params
            .get("prompt")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        ClientInput::Events(vec![crate::Event::UserSubmitted {
            session: s,
            message: None,
            text: Some(text.join("\n")),
        }])
    }

    fn client_cancel(&self, snapshot: &Snapshot, s: SessionId) -> ClientInput {
        let granted = self.announced.contains(&s)
            && self.options.cancel_grants == CancelGrants::Children
            && snapshot
                .session(&s)
                .is_some_and(|c| c.active_turn().is_some());
        if is_child(snapshot, &s) && !granted {
            return ClientInput::Refused(format!(
                "`session/cancel` of child `{s}` without a current `cancel` grant"
            ));
        }
        ClientInput::Events(vec![crate::Event::CancelRequested { session: s }])
    }

    fn client_answer(&mut self, message: &Value) -> ClientInput {
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            return ClientInput::Ignored;
        };
        let Some(key) = self
            .asked
            .iter()
            .find(|(_, a)| a.id == id)
            .map(|(k, _)| k.clone())
        else {
            return ClientInput::Refused(format!(
                "a response to {id}, which is no pending request"
            ));
        };
        let Some(asked) = self.asked.remove(&key) else {
            return ClientInput::Ignored;
        };
        let result = message.get("result").unwrap_or(&Value::Null);
        let answer = result
            .pointer("/outcome/optionId")
            .or_else(|| result.pointer("/outcome/outcome"))
            .or_else(|| result.get("action"))
            .and_then(Value::as_str)
            .unwrap_or("error");
        ClientInput::Events(vec![crate::Event::InteractionAnswered {
            session: asked.session,
            request: key.1.as_str().into(),
            answer: Some(answer.to_owned()),
        }])
    }
}

fn client(message: Value) -> AcpMessage {
    AcpMessage {
        from: Side::Client,
        message,
    }
}

fn agent(message: Value) -> AcpMessage {
    AcpMessage {
        from: Side::Agent,
        message,
    }
}

/// The Client's response to a projected request: `answer` `None` means cancelled.
fn answer(asked: &Asked, answer: Option<&str>) -> Value {
    let result = match asked.kind {
        InteractionKind::Approval => m::permission_outcome(answer),
        InteractionKind::Question => m::elicitation_outcome(answer),
    };
    m::response(asked.id, result)
}

fn is_child(snapshot: &Snapshot, session: &SessionId) -> bool {
    snapshot
        .session(session)
        .is_some_and(|s| s.relation.is_some())
}

fn parent_of(snapshot: &Snapshot, session: &SessionId) -> Option<SessionId> {
    snapshot
        .session(session)?
        .relation
        .as_ref()
        .map(|r| r.parent_session.clone())
}

/// The work state a turn settled with reports: `idle` with `end_turn` (completed) or
/// `cancelled` (canceled, confirmed), `idle` without a reason (failed), `unknown`
/// (interrupted without confirmation: its activity is no longer observable).
fn settled_state(outcome: Outcome) -> Value {
    match outcome {
        Outcome::Completed => m::state("idle", Some("end_turn")),
        Outcome::Canceled => m::state("idle", Some("cancelled")),
        Outcome::Failed => m::state("idle", None),
        Outcome::Interrupted => m::state("unknown", None),
    }
}
