//! The JSON-RPC messages of the projection, built from plain values (no state).

use serde_json::{Value, json};

/// A `session/update` notification of `session` carrying `update`.
pub(super) fn update(session: &str, update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}})
}

/// A request `method` with `id`.
pub(super) fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification `method`.
pub(super) fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A success response to `id`.
pub(super) fn response(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response to `id` (a failed prompt turn).
pub(super) fn error_response(id: u64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}})
}

/// A message chunk update of `kind` (`agent_message_chunk`, …) with its `messageId`.
pub(super) fn chunk(kind: &str, message_id: &str, text_delta: &str) -> Value {
    json!({"sessionUpdate": kind, "messageId": message_id, "content": text(text_delta)})
}

/// One text content block.
pub(super) fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A work-state snapshot: `{"state": s}` with `stopReason` when known.
pub(super) fn state(state: &str, stop_reason: Option<&str>) -> Value {
    match stop_reason {
        Some(reason) => json!({"state": state, "stopReason": reason}),
        None => json!({"state": state}),
    }
}

/// The params of a permission request for tool call `call` of `session`: v1 names the
/// tool call; v2 titles the request and names the call as its subject.
pub(super) fn permission_params(v2: bool, session: &str, call: &str, title: &str) -> Value {
    let options = json!([
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
    ]);
    if v2 {
        json!({
            "sessionId": session,
            "title": title,
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": call}},
            "options": options,
        })
    } else {
        json!({"sessionId": session, "toolCall": {"toolCallId": call, "title": title}, "options": options})
    }
}

/// The Client's answer to a permission request: the option an answer text names
/// (`deny`, `decline`, `reject`, `no`… select `reject`), or `cancelled`.
pub(super) fn permission_outcome(answer: Option<&str>) -> Value {
    match answer {
        None => json!({"outcome": {"outcome": "cancelled"}}),
        Some(text) => {
            let lower = text.to_ascii_lowercase();
            let reject = ["deny", "decline", "reject", "abort", "no"]
                .iter()
                .any(|w| lower == *w || lower.starts_with(&format!("{w} ")) || lower.contains(w));
            let option = if reject { "reject" } else { "allow" };
            json!({"outcome": {"outcome": "selected", "optionId": option}})
        }
    }
}

/// The Client's answer to an elicitation: `accept` with the answer, or `cancel`.
pub(super) fn elicitation_outcome(answer: Option<&str>) -> Value {
    match answer {
        Some(text) => json!({"action": "accept", "content": {"answer": text}}),
        None => json!({"action": "cancel"}),
    }
}
