//! ACP wire decoding: `acp` trace records, JSON-RPC messages and the subagent fields.
//!
//! Owns: turning one record into borrowed, classified parts: a JSON-RPC message is read
//! as a [`Json`] borrowed from the line (the fast path, [`Line`]) or from the record's
//! `Value` ([`Json::of_value`]), so one reading serves both; and the *lenient* field
//! reads the view uses together with the *strict* type facts the checker reports
//! (`field-invalid`). A field of the wrong JSON type reads as
//! [`Patch::Invalid`], which the view treats as omitted, exactly as the official schema
//! crate's `DefaultOnError` does, while the checker still sees the raw value.
//! Never: allocates for what it only looks at; every read borrows from the record.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::finding::Shapes;
use crate::trace::borrowed::{Json, JsonRead, Object};

mod line;

pub(crate) use line::{Line, Message};

/// Which end of the connection sent a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// The Client (editor, UI).
    Client,
    /// The Agent.
    Agent,
}

impl Side {
    /// The other end.
    pub fn other(self) -> Side {
        match self {
            Side::Client => Side::Agent,
            Side::Agent => Side::Client,
        }
    }

    /// `client` or `agent`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Agent => "agent",
        }
    }
}

/// A transport event of an `acp` trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    /// `{"from":"transport","event":"connected"}`: a new connection starts.
    Connected,
    /// `{"from":"transport","event":"disconnected"}`: the connection is lost.
    Disconnected,
}

/// One record of an `acp` trace, borrowed from its parsed line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Record<'a> {
    /// A JSON-RPC message or batch sent by one side.
    Message {
        /// The sender.
        from: Side,
        /// The messages, in array order (one for a plain message).
        entries: &'a [Value],
        /// Whether the message was a JSON-RPC batch (an array).
        batch: bool,
    },
    /// A transport event.
    Transport(Transport),
}

/// Reads one `acp` record: `{"from":"client"|"agent","message":…}` or
/// `{"from":"transport","event":"connected"|"disconnected"}`; `at` must be a
/// non-negative number when present.
pub(crate) fn parse_record(value: &Value) -> Result<Record<'_>, String> {
    let Some(obj) = value.as_object() else {
        return Err(format!(
            "a record must be a JSON object, got {}",
            crate::trace::kind_of(value)
        ));
    };
    check_at(obj.get("at"))?;
    let from = obj.get("from").and_then(Value::as_str);
    let event = obj.get("event").and_then(Value::as_str);
    record_of(from, obj.get("message"), event)
}

/// A record's `at`, when present, is a non-negative number.
fn check_at(at: Option<&Value>) -> Result<(), String> {
    match at {
        Some(at) if !at.as_f64().is_some_and(|n| n >= 0.0) => Err(format!(
            "`at` must be a non-negative number of milliseconds, got {at}"
        )),
        _ => Ok(()),
    }
}

/// Who wrote a record: a side of the connection, or the transport (with its event).
enum Sender {
    Side(Side),
    Transport(Transport),
}

/// The sender a record's `from` (and, for the transport, `event`) names.
fn sender(from: Option<&str>, event: Option<&str>) -> Result<Sender, String> {
    match from {
        Some("client") => Ok(Sender::Side(Side::Client)),
        Some("agent") => Ok(Sender::Side(Side::Agent)),
        Some("transport") => match event {
            Some("connected") => Ok(Sender::Transport(Transport::Connected)),
            Some("disconnected") => Ok(Sender::Transport(Transport::Disconnected)),
            _ => Err("a transport record needs `event`: \"connected\" or \"disconnected\"".into()),
        },
        Some(other) => Err(format!(
            "`from` must be \"client\", \"agent\" or \"transport\", got {other:?}"
        )),
        None => Err("a record needs `from`: \"client\", \"agent\" or \"transport\"".into()),
    }
}

/// One `acp` record from its parts: who sent it (`from`), and its `message` or, for the
/// transport, its `event`. A record the engine already holds typed is read here without
/// being rebuilt as a JSON envelope.
pub(crate) fn record_of<'a>(
    from: Option<&str>,
    message: Option<&'a Value>,
    event: Option<&str>,
) -> Result<Record<'a>, String> {
    let from = match sender(from, event)? {
        Sender::Side(side) => side,
        Sender::Transport(event) => return Ok(Record::Transport(event)),
    };
    match message {
        Some(Value::Array(entries)) if entries.is_empty() => {
            Err("`message` is an empty JSON-RPC batch".into())
        }
        Some(Value::Array(entries)) => Ok(Record::Message {
            from,
            entries,
            batch: true,
        }),
        Some(message @ Value::Object(_)) => Ok(Record::Message {
            from,
            entries: std::slice::from_ref(message),
            batch: false,
        }),
        Some(_) => Err("`message` must be a JSON-RPC message object or batch array".into()),
        None => Err(NO_MESSAGE.into()),
    }
}

const NO_MESSAGE: &str = "a client or agent record needs `message`";

/// A record decoded on the fast path ([`Line`]): one message of a side, or a transport
/// event.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LineRecord<'a> {
    /// A single JSON-RPC message (the fast path takes no batch).
    Message {
        /// The sender.
        from: Side,
        /// Its members.
        message: &'a Message<'a>,
    },
    /// A transport event.
    Transport(Transport),
}

/// Reads a fast-path line as [`parse_record`] reads the same record as a `Value`. `at`
/// is `None` when the engine found it not a time (it applies without one).
pub(crate) fn line_record<'a>(
    line: &'a Line<'_>,
    at: Option<&Value>,
) -> Result<LineRecord<'a>, String> {
    check_at(at)?;
    match sender(line.from.as_deref(), line.event.as_deref())? {
        Sender::Transport(event) => Ok(LineRecord::Transport(event)),
        Sender::Side(from) => match &line.message {
            Some(message) => Ok(LineRecord::Message { from, message }),
            None => Err(NO_MESSAGE.into()),
        },
    }
}

/// A JSON-RPC request id (a number or a string), compared by value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RpcId {
    /// An integer id.
    Int(i64),
    /// A string id (or any other JSON value, shown as JSON).
    Text(Arc<str>),
    /// `null`: only an error response may carry it (JSON-RPC 2.0: the request id could
    /// not be read); it answers no request.
    Null,
}

impl RpcId {
    /// Reads an id as a JSON value: an integral number is one id however it is
    /// written (`5` and `5.0` are equal JSON numbers), a string is a string, and `null`
    /// (a response to a request whose id could not be read) is [`RpcId::Null`].
    fn read(value: &Json<'_>) -> RpcId {
        match value {
            // `Value::as_i64` and `as_f64` of a number kept as its text.
            Json::Number(n) => match (
                n.parse::<i64>().ok(),
                n.parse::<f64>().ok().filter(|f| f.is_finite()),
            ) {
                (Some(i), _) => RpcId::Int(i),
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                    // Exactly representable below 2^53, so the conversion is exact.
                    #[allow(clippy::cast_possible_truncation)]
                    RpcId::Int(f as i64)
                }
                _ => RpcId::Text((*n).into()),
            },
            Json::Str(s) => RpcId::Text(s.as_ref().into()),
            Json::Null => RpcId::Null,
            other => RpcId::Text(other.to_value().to_string().into()),
        }
    }
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcId::Int(n) => write!(f, "{n}"),
            RpcId::Text(s) => write!(f, "{s:?}"),
            RpcId::Null => f.write_str("null"),
        }
    }
}

/// One classified JSON-RPC message.
#[derive(Debug, Clone)]
pub(crate) enum Rpc<'a> {
    /// A request (has `id` and `method`).
    Request {
        /// Its id.
        id: RpcId,
        /// Its method.
        method: &'a str,
        /// Its params (`Null` when absent).
        params: &'a Json<'a>,
    },
    /// A notification (`method` without `id`).
    Notification {
        /// Its method.
        method: &'a str,
        /// Its params (`Null` when absent).
        params: &'a Json<'a>,
    },
    /// A response (`id` with `result` or `error`).
    Response {
        /// The id of the request it answers.
        id: RpcId,
        /// `Ok(result)` or `Err(error)`.
        outcome: Result<&'a Json<'a>, &'a Json<'a>>,
    },
}

static NULL: Json<'static> = Json::Null;

/// Classifies one JSON-RPC message (one entry of a batch).
pub(crate) fn classify<'a>(entry: &'a Json<'a>) -> Result<Rpc<'a>, String> {
    let Some(obj) = entry.as_object() else {
        return Err("a JSON-RPC message must be an object".into());
    };
    classify_members(Members {
        params: obj.get("params"),
        method: obj.get("method"),
        id: obj.get("id"),
        result: obj.get("result"),
        error: obj.get("error"),
    })
}

/// The members of a JSON-RPC message object that tell what it is, each when present.
struct Members<'a> {
    params: Option<&'a Json<'a>>,
    method: Option<&'a Json<'a>>,
    id: Option<&'a Json<'a>>,
    result: Option<&'a Json<'a>>,
    error: Option<&'a Json<'a>>,
}

impl Message<'_> {
    /// Classifies the message, as [`classify`] does its `Value`.
    pub(crate) fn classify(&self) -> Result<Rpc<'_>, String> {
        classify_members(Members {
            params: self.params.as_ref(),
            method: self.method.as_ref(),
            id: self.id.as_ref(),
            result: self.result.as_ref(),
            error: self.error.as_ref(),
        })
    }

    /// Does it carry `"jsonrpc": "2.0"`?
    pub(crate) fn has_jsonrpc_version(&self) -> bool {
        self.jsonrpc.as_ref().and_then(Json::as_str) == Some("2.0")
    }
}

fn classify_members(m: Members<'_>) -> Result<Rpc<'_>, String> {
    let params = match m.params {
        None => &NULL,
        Some(p @ (Json::Object(_) | Json::Array(_))) => p,
        Some(_) => return Err("JSON-RPC `params` must be an object or an array".into()),
    };
    match (m.method, m.id) {
        (Some(Json::Str(method)), Some(id)) if !id.is_null() => Ok(Rpc::Request {
            id: RpcId::read(id),
            method,
            params,
        }),
        (Some(Json::Str(method)), _) => Ok(Rpc::Notification { method, params }),
        (Some(_), _) => Err("JSON-RPC `method` must be a string".into()),
        (None, Some(id)) => {
            let id = RpcId::read(id);
            match (m.result, m.error) {
                (Some(result), None) => Ok(Rpc::Response {
                    id,
                    outcome: Ok(result),
                }),
                (None, Some(error)) => Ok(Rpc::Response {
                    id,
                    outcome: Err(error),
                }),
                _ => Err("a JSON-RPC response needs exactly one of `result` and `error`".into()),
            }
        }
        (None, None) => Err("not a JSON-RPC message: no `method` and no `id`".into()),
    }
}

/// Does a JSON-RPC message carry `"jsonrpc": "2.0"`?
pub(crate) fn has_jsonrpc_version(entry: &Json<'_>) -> bool {
    entry.get("jsonrpc").and_then(Json::as_str) == Some("2.0")
}

/// The fields of an update that only the final revision defines, by name: `cwd` and
/// `additionalDirectories` on an association, `senderMessageId` / `recipientMessageId`
/// on a session message, `session` content items on a tool call.
pub(crate) fn final_only_fields(kind: &str, update: &Object<'_>) -> Vec<&'static str> {
    let keys: &[&'static str] = match kind {
        "subagent_update" => &["cwd", "additionalDirectories"],
        "session_message" | "session_message_chunk" => &["senderMessageId", "recipientMessageId"],
        _ => &[],
    };
    let mut found: Vec<&'static str> = keys
        .iter()
        .copied()
        .filter(|k| update.contains_key(k))
        .collect();
    if matches!(kind, "tool_call" | "tool_call_update") && !session_references(update).is_empty() {
        found.push("`session` tool-call content");
    }
    found
}

/// The `sessionId`s of a tool call's `{"type":"session","sessionId":…}` content items
/// (the final revision's session reference).
pub(crate) fn session_references<'a>(update: &'a Object<'_>) -> Vec<&'a str> {
    update
        .get("content")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter(|c| c.get("type").and_then(Json::as_str) == Some("session"))
        .filter_map(|c| c.get("sessionId").and_then(Json::as_str))
        .collect()
}

/// Is a work-state snapshot `idle` with `stopReason: "error"` (defined from 2026-10-01)?
pub(crate) fn is_error_idle(snapshot: &Object<'_>) -> bool {
    snapshot.get("state").and_then(Json::as_str) == Some("idle")
        && snapshot.get("stopReason").and_then(Json::as_str) == Some("error")
}

/// The earlier draft an update's shape follows, if any: 2026-08-31 for
/// `subagent_spawned` / `subagent_state_update` and the terminal lifecycle states,
/// 2026-09-15 for `subagentSessionId` / `name` / `task` on `subagent_update`.
pub(crate) fn draft_of(kind: &str, update: &Object<'_>) -> Option<Shapes> {
    if matches!(kind, "subagent_spawned" | "subagent_state_update") {
        return Some(Shapes::Draft0831);
    }
    let state = match update.get("state") {
        Some(Json::Str(s)) => Some(s.as_ref()),
        Some(other) => other.get("state").and_then(Json::as_str),
        None => None,
    };
    if matches!(kind, "subagent_update" | "state_update")
        && state.is_some_and(|s| LEGACY_STATES.contains(&s))
    {
        return Some(Shapes::Draft0831);
    }
    (kind == "subagent_update"
        && ["subagentSessionId", "name", "task"]
            .iter()
            .any(|k| update.contains_key(k)))
    .then_some(Shapes::Draft0915)
}

/// A nullable patch field as read from the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Patch<'a, T> {
    /// The key is absent: unchanged.
    Omitted,
    /// `null`: clears.
    Null,
    /// A value of the expected type: replaces.
    Set(T),
    /// A value of the wrong JSON type (lenient readers treat it as omitted).
    Invalid(&'a Json<'a>),
}

impl<'a, T> Patch<'a, T> {
    /// Reads `key` of `obj`, converting a present non-null value with `read`.
    pub fn read(obj: &'a Object<'a>, key: &str, read: impl Fn(&'a Json<'a>) -> Option<T>) -> Self {
        match obj.get(key) {
            None => Patch::Omitted,
            Some(Json::Null) => Patch::Null,
            Some(v) => read(v).map_or(Patch::Invalid(v), Patch::Set),
        }
    }

    /// The value when set.
    pub fn set(self) -> Option<T> {
        match self {
            Patch::Set(v) => Some(v),
            _ => None,
        }
    }

    /// The invalid raw value, if any.
    pub fn invalid(&self) -> Option<&'a Json<'a>> {
        match self {
            Patch::Invalid(v) => Some(v),
            _ => None,
        }
    }
}

/// Reads a nullable string field.
pub(crate) fn string_patch<'a>(obj: &'a Object<'a>, key: &str) -> Patch<'a, &'a str> {
    Patch::read(obj, key, Json::as_str)
}

/// Reads a nullable object field.
pub(crate) fn object_patch<'a>(obj: &'a Object<'a>, key: &str) -> Patch<'a, &'a Object<'a>> {
    Patch::read(obj, key, Json::as_object)
}

/// `params.sessionId` when it is a string.
pub(crate) fn session_id<'a>(params: &'a Json<'_>) -> Option<&'a str> {
    params.get("sessionId").and_then(Json::as_str)
}

/// A `session/update` notification's addressing: the outer session and the update.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionUpdate<'a> {
    /// `params.sessionId`: whose transcript or entities the update addresses.
    pub session: &'a str,
    /// `params.update.sessionUpdate`.
    pub kind: &'a str,
    /// `params.update`.
    pub update: &'a Object<'a>,
}

/// Reads `session/update` params; `Err` names the missing required field.
pub(crate) fn session_update<'a>(params: &'a Json<'a>) -> Result<SessionUpdate<'a>, String> {
    let session = session_id(params).ok_or("`session/update` needs a string `params.sessionId`")?;
    let update = params
        .get("update")
        .and_then(Json::as_object)
        .ok_or("`session/update` needs an object `params.update`")?;
    let kind = update
        .get("sessionUpdate")
        .and_then(Json::as_str)
        .ok_or("`params.update` needs a string `sessionUpdate`")?;
    Ok(SessionUpdate {
        session,
        kind,
        update,
    })
}

/// A work-state snapshot as compared by the mirror rules: `state` and `stopReason`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct StateKey {
    /// The state discriminator.
    pub state: Arc<str>,
    /// The stop reason, as JSON text (`None` when omitted or null).
    pub stop_reason: Option<Arc<str>>,
}

impl StateKey {
    /// Reads the key of a snapshot object (`{"state":…, "stopReason":…}`).
    pub fn of(snapshot: &Map<String, Value>) -> Option<StateKey> {
        Self::read(|key| snapshot.get(key))
    }

    /// [`StateKey::of`] a snapshot as read from a message.
    pub fn of_object(snapshot: &Object<'_>) -> Option<StateKey> {
        Self::read(|key| snapshot.get(key))
    }

    /// The key of the object whose members `get` reads: a `null` or absent `stopReason`
    /// is none, a non-string one is its JSON text.
    fn read<'v, J: JsonRead + 'v>(get: impl Fn(&str) -> Option<&'v J>) -> Option<StateKey> {
        let state = get("state").and_then(J::as_str)?;
        let stop_reason = match get("stopReason") {
            None => None,
            Some(v) if v.same_as(&Value::Null) => None,
            Some(v) => Some(v.as_str().map_or_else(|| v.json_text().into(), Arc::from)),
        };
        Some(StateKey {
            state: state.into(),
            stop_reason,
        })
    }
}

impl fmt::Display for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.stop_reason {
            Some(r) => write!(f, "{}/{}", self.state, r),
            None => f.write_str(&self.state),
        }
    }
}

/// The work states the RFD defines.
pub(crate) const KNOWN_STATES: [&str; 4] = ["running", "requires_action", "unknown", "idle"];
/// Terminal states of the earlier draft.
pub(crate) const LEGACY_STATES: [&str; 4] = ["completed", "failed", "cancelled", "disconnected"];

/// A `state_update` (v2, child stream) as a snapshot object: the update without its
/// `sessionUpdate` tag, so it compares equal to the parent-carried copy.
pub(crate) fn state_update_snapshot(update: &Object<'_>) -> Map<String, Value> {
    update
        .entries()
        .into_iter()
        .filter(|(k, _)| *k != "sessionUpdate")
        .map(|(k, v)| (k.to_owned(), v.to_value()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_is_a_message_batch_or_a_transport_event() {
        let v = json!({"from":"agent","message":[{"jsonrpc":"2.0","method":"x"}]});
        let Ok(Record::Message {
            from,
            entries,
            batch,
        }) = parse_record(&v)
        else {
            panic!("not a message: {v}")
        };
        assert_eq!((from, entries.len(), batch), (Side::Agent, 1, true));
        assert!(parse_record(&json!({"from":"server"})).is_err());
    }

    #[test]
    fn a_json_rpc_message_is_classified_by_its_members() {
        let v = json!({"jsonrpc":"2.0","id":3,"result":{}});
        assert!(matches!(
            classify(&Json::of_value(&v)),
            Ok(Rpc::Response { outcome: Ok(_), .. })
        ));
        assert!(classify(&Json::of_value(&json!({"jsonrpc":"2.0"}))).is_err());
    }

    #[test]
    fn patches_tell_omitted_null_set_and_invalid() {
        let v = json!({"a":null,"b":"x","c":3});
        let v = Json::of_value(&v);
        let o = v.as_object().unwrap();
        assert_eq!(string_patch(o, "z"), Patch::Omitted);
        assert_eq!(string_patch(o, "a"), Patch::Null);
        assert_eq!(string_patch(o, "b"), Patch::Set("x"));
        assert!(string_patch(o, "c").invalid().is_some());
    }

    #[test]
    fn ids_compare_by_value() {
        let (va, vb) = (
            json!({"id":1,"method":"m"}),
            json!({"id":"1","result":null}),
        );
        let (va, vb) = (Json::of_value(&va), Json::of_value(&vb));
        let (a, b) = (classify(&va).unwrap(), classify(&vb).unwrap());
        let (Rpc::Request { id: a, .. }, Rpc::Response { id: b, .. }) = (a, b) else {
            panic!()
        };
        assert_ne!(a, b);
        assert_eq!(a.to_string(), "1");
        assert_eq!(b.to_string(), "\"1\"");
    }

    #[test]
    fn ids_compare_as_json_values() {
        let id = |v: Value| match classify(&Json::of_value(&v)).unwrap() {
            Rpc::Request { id, .. } | Rpc::Response { id, .. } => id,
            Rpc::Notification { .. } => panic!("{v}"),
        };
        let five = id(json!({"jsonrpc":"2.0","id":5,"method":"m"}));
        assert_eq!(five, id(json!({"jsonrpc":"2.0","id":5.0,"result":{}})));
        assert_ne!(five, id(json!({"jsonrpc":"2.0","id":5.5,"result":{}})));
        assert_ne!(five, id(json!({"jsonrpc":"2.0","id":"5","result":{}})));
        let null = id(json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}));
        assert_eq!(
            (null.clone(), null.to_string()),
            (RpcId::Null, "null".into())
        );
    }

    #[test]
    fn later_revision_shapes_and_drafts_are_told() {
        let u = json!({"sessionId":"A","cwd":"/w","task":"x"});
        let u = Json::of_value(&u);
        let u = u.as_object().unwrap();
        assert_eq!(final_only_fields("subagent_update", u), vec!["cwd"]);
        assert_eq!(draft_of("subagent_update", u), Some(Shapes::Draft0915));
        assert_eq!(draft_of("subagent_spawned", u), Some(Shapes::Draft0831));
        let call = json!({"toolCallId":"c","content":[{"type":"session","sessionId":"A"}]});
        let call = Json::of_value(&call);
        let call = call.as_object().unwrap();
        assert_eq!(session_references(call), vec!["A"]);
        assert_eq!(final_only_fields("tool_call", call).len(), 1);
        let idle = json!({"state":"idle","stopReason":"error"});
        assert!(is_error_idle(Json::of_value(&idle).as_object().unwrap()));
        assert!(!has_jsonrpc_version(&Json::of_value(
            &json!({"id":1,"method":"m"})
        )));
    }

    #[test]
    fn bad_records_are_errors() {
        assert!(parse_record(&json!([])).is_err());
        assert!(parse_record(&json!({"from":"agent","message":[]})).is_err());
        assert!(parse_record(&json!({"from":"agent","message":1})).is_err());
        assert!(parse_record(&json!({"from":"transport","event":"x"})).is_err());
        assert!(parse_record(&json!({"from":"agent","message":{},"at":-1})).is_err());
        assert!(matches!(
            parse_record(&json!({"from":"transport","event":"disconnected"})),
            Ok(Record::Transport(Transport::Disconnected))
        ));
    }
}
