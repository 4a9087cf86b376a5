//! The ACP adapters' own test recordings, read as Agent-side ACP sources.
//!
//! Owns: telling such a line by its shape ([`is_line`]) and turning it into the Agent's
//! JSON-RPC message it records ([`translate`]). Three shapes, one object a line, each
//! holding only what the Agent sent (the harness that answered its requests is not
//! recorded):
//! - `{"kind": "request" | "response" | "notification", "method", "payload"}`
//!   (claude-agent-acp `src/tests/acp-scenarios/__snapshots__/v2/`): a request's or a
//!   notification's payload is its params, a response's is the result of the named method;
//! - `{"kind", "payload"}` with the Client method the adapter called as the kind
//!   (claude-agent-acp `__snapshots__/air/`): `sessionUpdate` (`session/update`),
//!   `requestPermission` (`session/request_permission`), `createElicitation`
//!   (`elicitation/create`), `completeElicitation` (`elicitation/complete`),
//!   `extNotification` (`{method, params}`), or the response it returned: `initialize`,
//!   `newSession` (`session/new`), `loadSession` (`session/load`), `promptResponse`
//!   (`session/prompt`);
//! - `{"direction", "method", "params"}` (codex-acp `src/__tests__/scenarios/data/`):
//!   `response` (the result of the named method), `notify`, `request`, `call` (a Client
//!   method the adapter called by its SDK name, `readTextFile` and the like, with its
//!   arguments as params) and `codexResponse` (the adapter's answer to the Codex
//!   app-server: not ACP).
//!
//! A request gets the line number as its id; a response gets the same number as the id
//! of the Client request it answers, which the checker stands pending for it (the
//! recording names the method, not a request).
//! Never: invents a Client message, a params object or an error; a shape or kind
//! outside these is [`Recorded::Skipped`], said by the checker.

use serde_json::{Map, Value, json};

/// What one recording line records.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Recorded {
    /// An Agent message: a JSON-RPC request, notification or response. `answers` is the
    /// Client method a response answers.
    Message {
        /// The method of the Client request a response answers.
        answers: Option<String>,
        /// The JSON-RPC message.
        message: Value,
    },
    /// Not a message the Agent sent over ACP: what it is, for the note.
    Skipped(String),
}

/// Is this object a line of an ACP adapter's test recording: a `kind` with a `payload`,
/// or a `direction` with a `method`, and none of JSON-RPC's `jsonrpc`/`id`, lineage's
/// `from`/`message` or a stream-json `type`?
pub(crate) fn is_line(obj: &Map<String, Value>) -> bool {
    let foreign = ["jsonrpc", "id", "from", "message", "type", "event"];
    if foreign.iter().any(|k| obj.contains_key(*k)) {
        return false;
    }
    let is_str = |k: &str| obj.get(k).is_some_and(Value::is_string);
    (is_str("kind") && obj.contains_key("payload")) || (is_str("direction") && is_str("method"))
}

/// How a line's message goes on the wire.
enum Shape<'a> {
    Request(&'a str),
    Response(&'a str),
    Notification(&'a str),
}

/// The Agent's message recorded by a line that [`is_line`]; `id` is the id it gets (the
/// line's number). `Err` says why a line of a known kind holds no message.
pub(crate) fn translate(id: usize, obj: &Map<String, Value>) -> Result<Recorded, String> {
    let (shape, payload) = match obj.get("kind").and_then(Value::as_str) {
        Some(kind) => match claude_shape(kind, obj)? {
            Some(found) => found,
            None => return Ok(Recorded::Skipped(format!("kind `{kind}`"))),
        },
        None => match codex_shape(obj) {
            Ok(found) => found,
            Err(what) => return Ok(Recorded::Skipped(what)),
        },
    };
    let message = match shape {
        Shape::Request(method) => {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": payload})
        }
        Shape::Notification(method) => {
            json!({"jsonrpc": "2.0", "method": method, "params": payload})
        }
        Shape::Response(method) => {
            let message = json!({"jsonrpc": "2.0", "id": id, "result": payload});
            return Ok(Recorded::Message {
                answers: Some(method.to_owned()),
                message,
            });
        }
    };
    Ok(Recorded::Message {
        answers: None,
        message,
    })
}

/// A claude-agent-acp line (`kind`): `None` for a kind outside both harnesses'.
fn claude_shape<'a>(
    kind: &'a str,
    obj: &'a Map<String, Value>,
) -> Result<Option<(Shape<'a>, &'a Value)>, String> {
    let payload = obj.get("payload").unwrap_or(&Value::Null);
    let method = || {
        obj.get("method")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("a recorded {kind} without a string `method`"))
    };
    Ok(Some(match kind {
        "request" => (Shape::Request(method()?), payload),
        "response" => (Shape::Response(method()?), payload),
        "notification" => (Shape::Notification(method()?), payload),
        "sessionUpdate" => (Shape::Notification("session/update"), payload),
        "requestPermission" => (Shape::Request("session/request_permission"), payload),
        "createElicitation" => (Shape::Request("elicitation/create"), payload),
        "completeElicitation" => (Shape::Notification("elicitation/complete"), payload),
        "initialize" => (Shape::Response("initialize"), payload),
        "newSession" => (Shape::Response("session/new"), payload),
        "loadSession" => (Shape::Response("session/load"), payload),
        "promptResponse" => (Shape::Response("session/prompt"), payload),
        "extNotification" => {
            let method = payload
                .get("method")
                .and_then(Value::as_str)
                .ok_or("a recorded extNotification without a string `payload.method`")?;
            let params = payload.get("params").unwrap_or(&Value::Null);
            (Shape::Notification(method), params)
        }
        _ => return Ok(None),
    }))
}

/// A codex-acp line (`direction`); `Err` says what a line that is not ACP is.
fn codex_shape(obj: &Map<String, Value>) -> Result<(Shape<'_>, &Value), String> {
    let direction = obj.get("direction").and_then(Value::as_str).unwrap_or("");
    let method = obj.get("method").and_then(Value::as_str).unwrap_or("");
    let params = obj.get("params").unwrap_or(&Value::Null);
    Ok(match direction {
        "response" => (Shape::Response(method), params),
        "notify" => (Shape::Notification(method), params),
        "request" => (Shape::Request(method), params),
        // The SDK call's arguments: the request params first.
        "call" => match client_method(method) {
            Some(acp) => (Shape::Request(acp), params.get(0).unwrap_or(&Value::Null)),
            None => return Err(format!("call `{method}`")),
        },
        "codexResponse" => {
            return Err(
                "direction `codexResponse` (the adapter's answer to the Codex app-server)".into(),
            );
        }
        other => return Err(format!("direction `{other}`")),
    })
}

/// The ACP method of a Client method the TypeScript ACP SDK names in camel case (the
/// harness records the others by their ACP names).
fn client_method(name: &str) -> Option<&'static str> {
    Some(match name {
        "readTextFile" => "fs/read_text_file",
        "writeTextFile" => "fs/write_text_file",
        "createTerminal" => "terminal/create",
        "terminalOutput" => "terminal/output",
        "releaseTerminal" => "terminal/release",
        "waitForTerminalExit" => "terminal/wait_for_exit",
        "killTerminal" => "terminal/kill",
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
