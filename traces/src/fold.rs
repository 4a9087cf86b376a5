//! A consumer of the change stream that knows nothing but the stream: it folds the
//! serialized changes (`replay --format changes`, `Output::changes` as JSON) into its own
//! copy of the tree and renders the `sessions` / `interactions` of `replay --format json`.
//!
//! It is written from the contract (`docs/changes.md`), not from the reducer, and reads
//! only JSON, exactly as a host in another language would; a test folds every trace's
//! stream and compares the result with the engine's final snapshot. If a change leaves
//! out data a consumer needs, this fold cannot rebuild the snapshot and the test fails.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

/// A tree rebuilt from changes alone.
#[derive(Debug, Default)]
pub struct Fold {
    /// Sessions in creation order.
    sessions: Vec<Session>,
    by_id: BTreeMap<String, usize>,
    /// Interactions in creation order (`None`: replaced or deleted).
    interactions: Vec<Option<Value>>,
    interaction_at: BTreeMap<(String, String), usize>,
    /// Root turn → its active child turns, as (session, ordinal).
    active: BTreeMap<String, BTreeSet<(String, u64)>>,
}

#[derive(Debug)]
struct Session {
    head: Map<String, Value>,
    /// The child's root turn, when a child.
    root_turn: Option<String>,
    turns: Vec<Map<String, Value>>,
    aliases: Vec<Value>,
    messages: Vec<Map<String, Value>>,
    /// Call id → (turn ordinal, the call's JSON).
    tool_calls: BTreeMap<String, (u64, Value)>,
}

fn text(v: &Value, key: &str) -> Result<String, String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("change without a string `{key}`: {v}"))
}

fn field(v: &Value, key: &str) -> Value {
    v.get(key).cloned().unwrap_or(Value::Null)
}

/// `S#n` → (`S`, n).
fn split_turn(turn: &str) -> Result<(String, u64), String> {
    let (s, n) = turn
        .rsplit_once('#')
        .ok_or_else(|| format!("not a turn id: {turn}"))?;
    let n = n.parse().map_err(|_| format!("not a turn id: {turn}"))?;
    Ok((s.to_owned(), n))
}

impl Fold {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    fn session(&mut self, id: &str) -> Result<&mut Session, String> {
        let at = *self
            .by_id
            .get(id)
            .ok_or_else(|| format!("a change names unknown session {id}"))?;
        self.sessions
            .get_mut(at)
            .ok_or_else(|| format!("lost session {id}"))
    }

    fn turn(&mut self, turn: &str) -> Result<&mut Map<String, Value>, String> {
        let (session, n) = split_turn(turn)?;
        let index = usize::try_from(n).map_err(|e| e.to_string())?;
        self.session(&session)?
            .turns
            .get_mut(index.wrapping_sub(1))
            .ok_or_else(|| format!("a change names unknown turn {turn}"))
    }

    /// Applies one change (a JSON object with a `type`).
    pub fn apply(&mut self, c: &Value) -> Result<(), String> {
        match text(c, "type")?.as_str() {
            "session_created" => self.session_created(c),
            "turn_opened" => self.turn_opened(c),
            "turn_phase_changed" => {
                self.turn(&text(c, "turn")?)?
                    .insert("phase".into(), field(c, "phase"));
                Ok(())
            }
            "turn_settled" => self.turn_settled(c),
            "turn_usage_changed" => {
                let t = self.turn(&text(c, "turn")?)?;
                t.insert("usage".into(), field(c, "usage"));
                Ok(())
            }
            "late_terminal_recorded" => {
                let t = self.turn(&text(c, "turn")?)?;
                t.insert("lateTerminal".into(), field(c, "outcome"));
                Ok(())
            }
            "provider_turn_changed" => {
                let provider = json!({"phase": field(c, "phase"), "outcome": field(c, "outcome"),
                    "turn": field(c, "providerTurn"), "turns": field(c, "turns")});
                let t = self.turn(&text(c, "turn")?)?;
                t.insert("provider".into(), provider);
                t.insert("error".into(), field(c, "error"));
                Ok(())
            }
            "guidance_added" => {
                let t = self.turn(&text(c, "turn")?)?;
                t.insert("guidance".into(), field(c, "guidance"));
                Ok(())
            }
            "message_appended" => self.message_appended(c),
            "tool_call_changed" => self.tool_call_changed(c),
            "alias_bound" => {
                let alias = c.get("alias").ok_or("alias_bound without `alias`")?;
                let shown = format!("{}:{}", text(alias, "kind")?, text(alias, "id")?);
                self.session(&text(c, "session")?)?
                    .aliases
                    .push(Value::String(shown));
                Ok(())
            }
            "title_changed" => {
                let s = self.session(&text(c, "session")?)?;
                s.head.insert("title".into(), field(c, "title"));
                Ok(())
            }
            "interaction_changed" => self.interaction_changed(c),
            "cancel_prepared" => self.cancel_prepared(c),
            "cancel_acknowledged" => {
                let t = self.turn(&text(c, "turn")?)?;
                if let Some(Value::Object(mark)) = t.get_mut("cancel") {
                    mark.insert("acknowledged".into(), Value::Bool(true));
                }
                Ok(())
            }
            "cancel_completed" => Ok(()),
            "session_deleted" => self.session_deleted(c),
            other => Err(format!("unknown change type {other}")),
        }
    }

    fn session_created(&mut self, c: &Value) -> Result<(), String> {
        let id = text(c, "session")?;
        let mut head = Map::new();
        head.insert("id".into(), Value::String(id.clone()));
        head.insert("kind".into(), field(c, "kind"));
        head.insert("parent".into(), field(c, "parent"));
        head.insert("root".into(), field(c, "root"));
        head.insert("title".into(), field(c, "title"));
        head.insert("deleted".into(), Value::Bool(false));
        let root_turn = c
            .get("root")
            .and_then(|r| r.get("turn"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.by_id.insert(id, self.sessions.len());
        self.sessions.push(Session {
            head,
            root_turn,
            turns: Vec::new(),
            aliases: Vec::new(),
            messages: Vec::new(),
            tool_calls: BTreeMap::new(),
        });
        Ok(())
    }

    fn turn_opened(&mut self, c: &Value) -> Result<(), String> {
        let id = text(c, "turn")?;
        let (session, n) = split_turn(&id)?;
        let mut t = Map::new();
        t.insert("id".into(), Value::String(id.clone()));
        t.insert("phase".into(), field(c, "phase"));
        t.insert("outcome".into(), Value::Null);
        t.insert("provider".into(), field(c, "provider"));
        t.insert("openedAt".into(), field(c, "openedAt"));
        let s = self.session(&session)?;
        s.turns.push(t);
        if let Some(root_turn) = s.root_turn.clone() {
            self.active
                .entry(root_turn)
                .or_default()
                .insert((session, n));
        }
        Ok(())
    }

    fn turn_settled(&mut self, c: &Value) -> Result<(), String> {
        let id = text(c, "turn")?;
        let t = self.turn(&id)?;
        t.insert("phase".into(), Value::String("settled".into()));
        t.insert("outcome".into(), field(c, "outcome"));
        t.insert("error".into(), field(c, "error"));
        t.insert("settledAt".into(), field(c, "settledAt"));
        let (session, n) = split_turn(&id)?;
        if let Some(root_turn) = self.session(&session)?.root_turn.clone()
            && let Some(set) = self.active.get_mut(&root_turn)
        {
            set.remove(&(session, n));
        }
        Ok(())
    }

    fn message_appended(&mut self, c: &Value) -> Result<(), String> {
        let turn = text(c, "turn")?;
        let (session, _) = split_turn(&turn)?;
        let index = c
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or("message_appended without an `index`")?;
        let added = text(c, "text")?;
        let s = self.session(&session)?;
        if index == s.messages.len() {
            let mut m = Map::new();
            m.insert("turn".into(), Value::String(turn));
            m.insert("id".into(), field(c, "id"));
            m.insert("role".into(), field(c, "role"));
            m.insert("text".into(), Value::String(added));
            m.insert("history".into(), field(c, "history"));
            s.messages.push(m);
            return Ok(());
        }
        let m = s
            .messages
            .get_mut(index)
            .ok_or_else(|| format!("message_appended past the end: {c}"))?;
        let mut whole = m
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        whole.push_str(&added);
        m.insert("text".into(), Value::String(whole));
        Ok(())
    }

    fn tool_call_changed(&mut self, c: &Value) -> Result<(), String> {
        let turn = text(c, "turn")?;
        let (session, n) = split_turn(&turn)?;
        let call = text(c, "call")?;
        let view = json!({"id": call, "turn": turn, "name": field(c, "name"),
            "status": field(c, "status")});
        self.session(&session)?.tool_calls.insert(call, (n, view));
        Ok(())
    }

    fn interaction_changed(&mut self, c: &Value) -> Result<(), String> {
        let turn = text(c, "turn")?;
        let (session, _) = split_turn(&turn)?;
        let request = text(c, "request")?;
        let mut view = json!({"session": session, "turn": turn, "request": request,
            "status": field(c, "status"), "kind": field(c, "kind")});
        for (from, to) in [
            ("providerTurn", "providerTurn"),
            ("toolCall", "toolCall"),
            ("answer", "answer"),
        ] {
            if let Some(v) = c.get(from).filter(|v| !v.is_null())
                && let Some(obj) = view.as_object_mut()
            {
                obj.insert(to.into(), v.clone());
            }
        }
        let key = (turn, request);
        let created = c.get("status").and_then(Value::as_str) == Some("pending");
        match self.interaction_at.get(&key).copied() {
            Some(at) if !created => {
                if let Some(slot) = self.interactions.get_mut(at) {
                    *slot = Some(view);
                }
            }
            old => {
                if let Some(slot) = old.and_then(|at| self.interactions.get_mut(at)) {
                    *slot = None;
                }
                self.interaction_at.insert(key, self.interactions.len());
                self.interactions.push(Some(view));
            }
        }
        Ok(())
    }

    fn cancel_prepared(&mut self, c: &Value) -> Result<(), String> {
        let operation = field(c, "operation");
        let targets = c
            .get("targets")
            .and_then(Value::as_array)
            .ok_or("cancel_prepared without `targets`")?;
        for target in targets {
            let target = target.as_str().ok_or("a target is not a turn id")?;
            let t = self.turn(target)?;
            let acknowledged = t
                .get("cancel")
                .and_then(|m| m.get("acknowledged"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            t.insert(
                "cancel".into(),
                json!({"operation": operation, "acknowledged": acknowledged}),
            );
        }
        Ok(())
    }

    fn session_deleted(&mut self, c: &Value) -> Result<(), String> {
        let id = text(c, "session")?;
        let s = self.session(&id)?;
        s.head.insert("deleted".into(), Value::Bool(true));
        let n = s.turns.len() as u64;
        s.turns.clear();
        s.messages.clear();
        s.tool_calls.clear();
        if let Some(root_turn) = s.root_turn.clone()
            && let Some(set) = self.active.get_mut(&root_turn)
        {
            for k in 1..=n {
                set.remove(&(id.clone(), k));
            }
        }
        for slot in &mut self.interactions {
            if slot
                .as_ref()
                .and_then(|i| i.get("session"))
                .and_then(Value::as_str)
                == Some(&id)
            {
                *slot = None;
            }
        }
        Ok(())
    }

    /// `{"sessions": […], "interactions": […]}` as `replay --format json` writes them.
    pub fn document(&self) -> Value {
        let sessions: Vec<Value> = self.sessions.iter().map(|s| self.session_json(s)).collect();
        let interactions: Vec<Value> = self.interactions.iter().flatten().cloned().collect();
        json!({"sessions": sessions, "interactions": interactions})
    }

    fn session_json(&self, s: &Session) -> Value {
        let mut out = s.head.clone();
        let turns: Vec<Value> = s.turns.iter().map(|t| self.turn_json(t)).collect();
        out.insert("turns".into(), Value::Array(turns));
        if !s.aliases.is_empty() {
            out.insert("aliases".into(), Value::Array(s.aliases.clone()));
        }
        if !s.messages.is_empty() {
            let messages = s.messages.iter().map(|m| {
                let mut out = Map::new();
                for (k, v) in m {
                    let default = match k.as_str() {
                        "id" => v.is_null(),
                        "history" => v != &Value::Bool(true),
                        _ => false,
                    };
                    if !default {
                        out.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(out)
            });
            out.insert("messages".into(), Value::Array(messages.collect()));
        }
        if !s.tool_calls.is_empty() {
            // Ordered by turn, then by call id (stable sort over the id order).
            let mut calls: Vec<&(u64, Value)> = s.tool_calls.values().collect();
            calls.sort_by_key(|(n, _)| *n);
            let calls = calls.into_iter().map(|(_, v)| v.clone()).collect();
            out.insert("toolCalls".into(), Value::Array(calls));
        }
        Value::Object(out)
    }

    fn turn_json(&self, t: &Map<String, Value>) -> Value {
        let get = |k: &str| t.get(k).cloned().unwrap_or(Value::Null);
        let mut out = Map::new();
        out.insert("id".into(), get("id"));
        out.insert("phase".into(), get("phase"));
        out.insert("outcome".into(), get("outcome"));
        for key in ["provider", "cancel", "lateTerminal", "error"] {
            if !get(key).is_null() {
                out.insert(key.into(), get(key));
            }
        }
        if get("guidance").as_u64().is_some_and(|g| g > 0) {
            out.insert("guidance".into(), get("guidance"));
        }
        let id = get("id");
        let active = id.as_str().and_then(|id| self.active.get(id));
        if let Some(set) = active.filter(|s| !s.is_empty()) {
            let list = set.iter().map(|(s, n)| Value::String(format!("{s}#{n}")));
            out.insert("activeChildren".into(), Value::Array(list.collect()));
        }
        for key in ["openedAt", "settledAt", "usage"] {
            if !get(key).is_null() {
                out.insert(key.into(), get(key));
            }
        }
        Value::Object(out)
    }
}

/// The Client view of an `acp` trace rebuilt from its changes alone: the `connection`,
/// `version`, `spec`, `shapes`, `sessions`, `pendingRequests` and `answeredRequests` of
/// `replay --format json`.
#[derive(Debug, Default)]
pub struct AcpFold {
    head: Map<String, Value>,
    sessions: Vec<AcpSession>,
    by_id: BTreeMap<String, usize>,
    /// (side, id order, id text) → the pending request.
    pending: BTreeMap<(u8, IdOrder), Value>,
    answered: Vec<Value>,
}

/// A JSON-RPC id as the view orders it: numbers (by value), then strings, then `null`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum IdOrder {
    Int(i64),
    Text(String),
    Null,
}

impl IdOrder {
    /// From the id's text in a change: a number, a JSON string, or `null`.
    fn read(text: &str) -> Self {
        if text == "null" {
            return IdOrder::Null;
        }
        if let Ok(n) = text.parse() {
            return IdOrder::Int(n);
        }
        match serde_json::from_str::<String>(text) {
            Ok(s) => IdOrder::Text(s),
            Err(_) => IdOrder::Text(text.to_owned()),
        }
    }
}

#[derive(Debug)]
struct AcpSession {
    fields: Map<String, Value>,
    messages: Vec<Value>,
    /// Call id → `{status, locallyCancelled, title, kind}`.
    calls: BTreeMap<String, Value>,
    transcript: Vec<Value>,
    plan: Option<Value>,
}

impl AcpSession {
    fn new(id: &str) -> Self {
        let mut fields = Map::new();
        for (k, v) in [
            ("id", Value::String(id.to_owned())),
            ("kind", Value::Null),
            ("parent", Value::Null),
            ("title", Value::Null),
            ("description", Value::Null),
            ("cwd", Value::Null),
            ("additionalDirectories", Value::Null),
            ("_meta", Value::Null),
            ("conversationTitle", Value::Null),
            ("state", Value::Null),
            ("stateCurrent", Value::Bool(false)),
            ("capabilities", Value::Null),
            ("effectiveCancel", Value::Bool(false)),
            ("announced", Value::Bool(false)),
            ("idleTransitions", Value::from(0)),
            ("usage", Value::Null),
        ] {
            fields.insert(k.into(), v);
        }
        Self {
            fields,
            messages: Vec::new(),
            calls: BTreeMap::new(),
            transcript: Vec::new(),
            plan: None,
        }
    }
}

/// Is this block a plain text block (`{"type":"text","text":…}` and nothing else)?
fn plain_text(block: &Value) -> bool {
    block.get("type") == Some(&Value::String("text".into()))
        && block.get("text").is_some_and(Value::is_string)
        && block.as_object().is_some_and(|o| o.len() == 2)
}

impl AcpFold {
    /// An empty view.
    pub fn new() -> Self {
        Self::default()
    }

    fn session(&mut self, c: &Value) -> Result<&mut AcpSession, String> {
        let id = text(c, "session")?;
        let at = *self
            .by_id
            .get(&id)
            .ok_or_else(|| format!("a change names unknown session {id}"))?;
        self.sessions
            .get_mut(at)
            .ok_or_else(|| format!("lost session {id}"))
    }

    fn set(&mut self, c: &Value, keys: &[(&str, &str)]) -> Result<(), String> {
        let s = self.session(c)?;
        for (from, to) in keys {
            s.fields.insert((*to).into(), field(c, from));
        }
        Ok(())
    }

    /// Applies one change (a JSON object with a `type`); tree changes are refused.
    pub fn apply(&mut self, c: &Value) -> Result<(), String> {
        match text(c, "type")?.as_str() {
            "acp_view_changed" => {
                for key in ["connection", "version", "spec", "shapes"] {
                    self.head.insert(key.into(), field(c, key));
                }
                if c.get("reset") == Some(&Value::Bool(true)) {
                    self.pending.clear();
                }
                Ok(())
            }
            "acp_session_learned" => {
                let id = text(c, "session")?;
                if !self.by_id.contains_key(&id) {
                    self.by_id.insert(id.clone(), self.sessions.len());
                    self.sessions.push(AcpSession::new(&id));
                }
                self.set(c, &[("kind", "kind"), ("parent", "parent")])
            }
            "acp_labels_changed" => self.set(
                c,
                &[
                    ("title", "title"),
                    ("description", "description"),
                    ("cwd", "cwd"),
                    ("additionalDirectories", "additionalDirectories"),
                    ("meta", "_meta"),
                    ("conversationTitle", "conversationTitle"),
                ],
            ),
            "acp_work_state_changed" => self.set(
                c,
                &[
                    ("state", "state"),
                    ("stateCurrent", "stateCurrent"),
                    ("idleTransitions", "idleTransitions"),
                ],
            ),
            "acp_controls_changed" => self.set(
                c,
                &[
                    ("capabilities", "capabilities"),
                    ("effectiveCancel", "effectiveCancel"),
                    ("announced", "announced"),
                ],
            ),
            "acp_usage_changed" => self.set(c, &[("usage", "usage")]),
            "acp_message_changed" => {
                let index = index_of(c)?;
                let message = field(c, "message");
                let s = self.session(c)?;
                let len = s.messages.len();
                match s.messages.get_mut(index) {
                    Some(slot) => *slot = message,
                    None if index == len => s.messages.push(message),
                    None => return Err(format!("message past the end: {c}")),
                }
                Ok(())
            }
            "acp_tool_call_changed" => {
                let call = text(c, "call")?;
                let data = json!({"status": field(c, "status"),
                    "locallyCancelled": field(c, "locallyCancelled"),
                    "title": field(c, "title"), "kind": field(c, "kind")});
                self.session(c)?.calls.insert(call, data);
                Ok(())
            }
            "acp_transcript_entry_added" => {
                let index = index_of(c)?;
                let entry = field(c, "entry");
                let s = self.session(c)?;
                if index != s.transcript.len() {
                    return Err(format!("entry not at the end: {c}"));
                }
                s.transcript.push(entry);
                Ok(())
            }
            "acp_transcript_appended" => self.appended(c),
            "acp_transcript_cleared" => {
                let s = self.session(c)?;
                s.transcript.clear();
                s.plan = None;
                Ok(())
            }
            "acp_plan_changed" => {
                let plan = field(c, "plan");
                self.session(c)?.plan = (!plan.is_null()).then_some(plan);
                Ok(())
            }
            "acp_request_pending" => {
                let key = request_key(c)?;
                let view = json!({"line": field(c, "line"), "from": field(c, "from"),
                    "id": field(c, "id"), "method": field(c, "method"),
                    "session": field(c, "session")});
                self.pending.insert(key, view);
                Ok(())
            }
            "acp_request_closed" => {
                self.pending.remove(&request_key(c)?);
                Ok(())
            }
            "acp_request_answered" => {
                let mut view = json!({"line": field(c, "line"), "answeredAt": field(c, "answeredAt"),
                    "id": field(c, "id"), "method": field(c, "method"), "session": field(c, "session")});
                for key in ["result", "error"] {
                    if let Some(v) = c.get(key).filter(|v| !v.is_null())
                        && let Some(obj) = view.as_object_mut()
                    {
                        obj.insert(key.into(), v.clone());
                    }
                }
                self.answered.push(view);
                Ok(())
            }
            "acp_cancel_sent" | "acp_replay_window" | "acp_mirror_stale" => Ok(()),
            other => Err(format!("not an ACP view change: {other}")),
        }
    }

    fn appended(&mut self, c: &Value) -> Result<(), String> {
        let index = index_of(c)?;
        let block = field(c, "block");
        let s = self.session(c)?;
        let content = s
            .transcript
            .get_mut(index)
            .and_then(|e| e.get_mut("content"))
            .and_then(Value::as_array_mut)
            .ok_or_else(|| format!("no text entry {index}: {c}"))?;
        if plain_text(&block)
            && let Some(last) = content.last_mut().filter(|l| plain_text(l))
            && let (Some(Value::String(text)), Some(more)) = (
                last.get_mut("text"),
                block.get("text").and_then(Value::as_str),
            )
        {
            text.push_str(more);
            return Ok(());
        }
        content.push(block);
        Ok(())
    }

    /// The view's JSON (without `format` and `diagnostics`).
    pub fn document(&self) -> Value {
        let mut out = Map::new();
        for key in ["connection", "version", "spec", "shapes"] {
            out.insert(
                key.into(),
                self.head.get(key).cloned().unwrap_or(Value::Null),
            );
        }
        let connected = self.head.get("connection") == Some(&Value::String("connected".into()));
        let sessions = self.sessions.iter().map(|s| session_view(s, connected));
        out.insert("sessions".into(), Value::Array(sessions.collect()));
        let pending = self.pending.values().cloned().collect();
        out.insert("pendingRequests".into(), Value::Array(pending));
        if !self.answered.is_empty() {
            out.insert(
                "answeredRequests".into(),
                Value::Array(self.answered.clone()),
            );
        }
        Value::Object(out)
    }
}

fn index_of(c: &Value) -> Result<usize, String> {
    c.get("index")
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| format!("change without an `index`: {c}"))
}

fn request_key(c: &Value) -> Result<(u8, IdOrder), String> {
    let side = match text(c, "from")?.as_str() {
        "client" => 0,
        _ => 1,
    };
    Ok((side, IdOrder::read(&text(c, "id")?)))
}

/// What the Client shows as current activity: `disconnected` while the connection is
/// down, else the current state's name, else `unconfirmed`.
fn activity(s: &Map<String, Value>, connected: bool) -> Value {
    if !connected {
        return Value::String("disconnected".into());
    }
    let current = s.get("stateCurrent") == Some(&Value::Bool(true));
    match s.get("state").and_then(|v| v.get("state")) {
        Some(Value::String(name)) if current => Value::String(name.clone()),
        _ => Value::String("unconfirmed".into()),
    }
}

fn session_view(s: &AcpSession, connected: bool) -> Value {
    let f = &s.fields;
    let get = |k: &str| f.get(k).cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    for key in ["id", "kind", "parent", "title", "description"] {
        out.insert(key.into(), get(key));
    }
    for key in ["cwd", "additionalDirectories", "_meta"] {
        if !get(key).is_null() {
            out.insert(key.into(), get(key));
        }
    }
    for key in ["conversationTitle", "state", "stateCurrent"] {
        out.insert(key.into(), get(key));
    }
    out.insert("activity".into(), activity(f, connected));
    for key in [
        "capabilities",
        "effectiveCancel",
        "announced",
        "idleTransitions",
        "usage",
    ] {
        out.insert(key.into(), get(key));
    }
    out.insert("messages".into(), Value::Array(s.messages.clone()));
    let calls = s.calls.iter().map(|(id, c)| {
        json!({"toolCallId": id, "status": c["status"], "locallyCancelled": c["locallyCancelled"]})
    });
    out.insert("toolCalls".into(), Value::Array(calls.collect()));
    if !s.transcript.is_empty() {
        let entries = s.transcript.iter().map(|e| entry_view(s, e));
        out.insert("transcript".into(), Value::Array(entries.collect()));
    }
    if let Some(plan) = &s.plan {
        out.insert("plan".into(), plan.clone());
    }
    Value::Object(out)
}

/// A tool-call entry shows the call's current title, kind and status.
fn entry_view(s: &AcpSession, e: &Value) -> Value {
    if e.get("type") != Some(&Value::String("tool_call".into())) {
        return e.clone();
    }
    let id = e.get("toolCallId").and_then(Value::as_str).unwrap_or("");
    let mut out = Map::new();
    out.insert("type".into(), Value::String("tool_call".into()));
    out.insert("toolCallId".into(), Value::String(id.to_owned()));
    if let Some(call) = s.calls.get(id) {
        for (from, to) in [
            ("title", "title"),
            ("kind", "toolKind"),
            ("status", "status"),
        ] {
            if let Some(v) = call.get(from).filter(|v| !v.is_null()) {
                out.insert(to.into(), v.clone());
            }
        }
    }
    Value::Object(out)
}
