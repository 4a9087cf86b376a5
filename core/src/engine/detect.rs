//! Format detection: the one place a trace format is told from content.
//!
//! Owns: telling a record's format by its vocabulary, and holding the lines read before
//! any record told.
//! - Lineage's envelope: `event` (without a Claude `type`: a `stream_event` has its own
//!   `event`) ⇒ canonical; `from` of `cli`/`host` ⇒ claude-sdk, `server` ⇒
//!   codex-app-server, `agent`/`transport` ⇒ acp; `client` ⇒ by its message's method, as
//!   below. An ACP conductor event ⇒ acp.
//! - A message without the envelope, as the program wrote it: a `type` of Claude Code's
//!   stream-json ⇒ claude-sdk; a JSON-RPC message ⇒ by its method, as below; a line of
//!   an ACP adapter's own test recording (`{kind, payload}`, `{direction, method,
//!   params}`) ⇒ acp, read as an Agent-side-only source.
//! - Methods: ACP's are `session/*`, `terminal/*`, `elicitation/*`, `authenticate`,
//!   `fs/read_text_file`, `fs/write_text_file`; Codex app-server's are its namespaces
//!   (`thread/*`, `turn/*`, `item/*`, `account/*`, `config/*`, `mcpServer/*`, …), its
//!   camel-case `fs/*` methods and its approval and warning methods. Both send
//!   `initialize`: its params tell (ACP's carry `protocolVersion` and
//!   `clientCapabilities`, Codex's `clientInfo` and no `protocolVersion`).
//!
//! `"jsonrpc"` tells nothing (Codex clients send it too), and neither does a response,
//! an extension method or an `initialize` whose params say neither: such a line is
//! held, with why, until a later record tells. Never: applies a record or guesses past
//! [`HOLD_LIMIT`] records; when none told, the error lists the lines read and why each
//! told nothing.

use std::fmt;

use serde_json::{Map, Value};

use super::{EngineError, Untold};
use crate::acp::recording;
use crate::providers::ProviderRecord;
use crate::trace::Format;

/// At most this many records are read before the format must be known.
pub(super) const HOLD_LIMIT: usize = 50;

/// Why a record tells no format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Why {
    /// Not a JSON object.
    NotAnObject,
    /// An object of no known shape.
    NoShape,
    /// A `from` that names no side.
    UnknownFrom(String),
    /// A JSON-RPC response (both JSON-RPC formats have them).
    Response,
    /// An `initialize` whose params tell neither ACP nor Codex.
    Initialize,
    /// A method in neither vocabulary.
    Method(String),
    /// A `type` that is not a Claude Code stream-json message.
    Type(String),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::NotAnObject => f.write_str("not a JSON object"),
            Why::NoShape => f.write_str(
                "neither lineage's envelope (`from`, `event`) nor a message (`method`, `id`, `type`)",
            ),
            Why::UnknownFrom(from) => write!(f, "`from` {from} names no side lineage reads"),
            Why::Response => f.write_str(
                "a JSON-RPC response or a message without a method (ACP and Codex app-server alike)",
            ),
            Why::Initialize => f.write_str(
                "an `initialize` whose params carry neither ACP's `protocolVersion` nor Codex's `clientInfo`",
            ),
            Why::Method(m) => write!(
                f,
                "method `{m}` is in neither ACP's nor Codex app-server's vocabulary"
            ),
            Why::Type(t) => write!(f, "`type` `{t}` is not a Claude Code stream-json message"),
        }
    }
}

/// The format a record line tells, or why it tells none.
pub(super) fn from_line(text: &str) -> Result<Format, Why> {
    let Ok((value, _)) = crate::trace::parse_value_line(text, Format::Canonical) else {
        return Err(Why::NotAnObject);
    };
    let obj = value.as_object().ok_or(Why::NotAnObject)?;
    if obj.contains_key("event") && !obj.contains_key("from") && !has_claude_type(obj) {
        return Ok(Format::Canonical);
    }
    if super::conductor::is_event(&value) {
        return Ok(Format::Acp);
    }
    match obj.get("from") {
        Some(Value::String(from)) => from_record(from, obj.get("message").unwrap_or(&Value::Null)),
        Some(other) => Err(Why::UnknownFrom(short(&other.to_string()))),
        // A message without lineage's envelope, as the program wrote it.
        None => unenveloped(obj),
    }
}

/// The format a provider-style record (`from`, `message`) tells, or why it tells none.
pub(super) fn from_record(from: &str, message: &Value) -> Result<Format, Why> {
    match from {
        "cli" | "host" => Ok(Format::ClaudeSdk),
        "server" => Ok(Format::CodexAppServer),
        "agent" | "transport" => Ok(Format::Acp),
        "client" => json_rpc(message),
        other => Err(Why::UnknownFrom(format!("{:?}", short(other)))),
    }
}

/// The format a message without lineage's envelope tells, or why it tells none.
pub(super) fn unenveloped(obj: &Map<String, Value>) -> Result<Format, Why> {
    if recording::is_line(obj) {
        return Ok(Format::Acp);
    }
    match obj.get("type") {
        Some(Value::String(kind)) if CLAUDE_TYPES.contains(&kind.as_str()) => Ok(Format::ClaudeSdk),
        Some(Value::String(kind)) => Err(Why::Type(short(kind))),
        _ if obj.contains_key("method") || obj.contains_key("id") => json_rpc_object(obj),
        _ => Err(Why::NoShape),
    }
}

/// Does this object carry a Claude Code stream-json `type` (a canonical record has no
/// top-level `type`; a Claude `stream_event` has an `event` member of its own)?
pub(super) fn has_claude_type(obj: &Map<String, Value>) -> bool {
    obj.get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| CLAUDE_TYPES.contains(&kind))
}

/// A JSON-RPC message or batch: the first element whose method tells.
fn json_rpc(message: &Value) -> Result<Format, Why> {
    match message {
        Value::Object(obj) => json_rpc_object(obj),
        Value::Array(batch) => {
            let mut why = Why::Response;
            for element in batch {
                match element.as_object().map(json_rpc_object) {
                    Some(Ok(format)) => return Ok(format),
                    Some(Err(w)) if why == Why::Response => why = w,
                    _ => {}
                }
            }
            Err(why)
        }
        _ => Err(Why::NoShape),
    }
}

fn json_rpc_object(obj: &Map<String, Value>) -> Result<Format, Why> {
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return Err(Why::Response);
    };
    if method == "initialize" {
        let params = obj.get("params");
        let has = |k: &str| params.and_then(|p| p.get(k)).is_some();
        return if has("protocolVersion") || has("clientCapabilities") {
            Ok(Format::Acp)
        } else if has("clientInfo") {
            Ok(Format::CodexAppServer)
        } else {
            Err(Why::Initialize)
        };
    }
    if is_acp_method(method) {
        Ok(Format::Acp)
    } else if is_codex_method(method) {
        Ok(Format::CodexAppServer)
    } else {
        Err(Why::Method(short(method)))
    }
}

fn is_acp_method(method: &str) -> bool {
    ACP_NAMESPACES.iter().any(|p| method.starts_with(p)) || ACP_METHODS.contains(&method)
}

fn is_codex_method(method: &str) -> bool {
    let namespace = method.split_once('/').map(|(ns, _)| ns);
    namespace.is_some_and(|ns| CODEX_NAMESPACES.contains(&ns)) || CODEX_METHODS.contains(&method)
}

/// At most 60 characters of an input-derived name, for a message.
fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", s.get(..end).unwrap_or_default()),
        None => s.to_owned(),
    }
}

/// `type`s of Claude Code stream-json messages (either direction).
const CLAUDE_TYPES: [&str; 10] = [
    "system",
    "assistant",
    "user",
    "result",
    "stream_event",
    "control_request",
    "control_response",
    "control_cancel_request",
    "keep_alive",
    "tool_progress",
];

/// ACP method namespaces (no Codex method starts so).
const ACP_NAMESPACES: [&str; 3] = ["session/", "terminal/", "elicitation/"];

/// ACP methods outside those namespaces (Codex's `fs/*` methods are camel-case).
const ACP_METHODS: [&str; 3] = ["authenticate", "fs/read_text_file", "fs/write_text_file"];

/// Codex app-server method namespaces (the part before the first `/`), from its schema's
/// client requests, server requests and server notifications.
const CODEX_NAMESPACES: [&str; 29] = [
    "thread",
    "turn",
    "item",
    "account",
    "app",
    "attestation",
    "command",
    "config",
    "configRequirements",
    "experimentalFeature",
    "externalAgentConfig",
    "feedback",
    "fuzzyFileSearch",
    "hook",
    "hooks",
    "marketplace",
    "mcpServer",
    "mcpServerStatus",
    "model",
    "modelProvider",
    "permissionProfile",
    "plugin",
    "process",
    "remoteControl",
    "review",
    "serverRequest",
    "skills",
    "windows",
    "windowsSandbox",
];

/// Codex app-server methods outside those namespaces.
const CODEX_METHODS: [&str; 18] = [
    "applyPatchApproval",
    "execCommandApproval",
    "configWarning",
    "deprecationNotice",
    "error",
    "guardianWarning",
    "warning",
    "fuzzyFileSearch",
    "fs/copy",
    "fs/createDirectory",
    "fs/getMetadata",
    "fs/readDirectory",
    "fs/readFile",
    "fs/remove",
    "fs/unwatch",
    "fs/watch",
    "fs/writeFile",
    "fs/changed",
];

/// One input read while the format is unknown.
#[derive(Debug, Clone)]
pub(super) enum Held {
    /// A text line.
    Line(String),
    /// An already-parsed provider record.
    Record(ProviderRecord),
}

/// The inputs read while the format is unknown, in order, and why each told nothing.
#[derive(Debug, Clone, Default)]
pub(super) struct Detector {
    held: Vec<(usize, Held)>,
    untold: Untold,
}

impl Detector {
    /// Holds an input that told no format; fails once [`HOLD_LIMIT`] records told nothing.
    pub(super) fn hold(&mut self, line: usize, input: Held, why: &Why) -> Result<(), EngineError> {
        self.untold.note(line, why.to_string());
        if self.held.len() + 1 >= HOLD_LIMIT {
            return Err(EngineError::UnknownFormat(self.untold.clone()));
        }
        self.held.push((line, input));
        Ok(())
    }

    /// The held inputs, once the format is known.
    pub(super) fn take(&mut self) -> Vec<(usize, Held)> {
        self.untold = Untold::default();
        std::mem::take(&mut self.held)
    }

    /// Why no format is known: the records read and what each told.
    pub(super) fn untold(&self) -> Untold {
        self.untold.clone()
    }
}

#[cfg(test)]
mod tests;
