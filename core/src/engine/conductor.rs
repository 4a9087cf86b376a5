//! The ACP conductor's `--trace` events (`agent-client-protocol-conductor`): one JSON
//! object a line, `{"type": "request" | "response" | "notification", "ts", "protocol",
//! "from", "to", "id", "method", "params" | "is_error", "payload"}`, where `from` and `to`
//! name the components of the chain (`Client`, `Proxy(N)`, `Agent`) and `ts` counts
//! seconds from the trace's start.
//!
//! Owns: reading such an event as the `acp` record of the hop that reaches the Agent
//! (`from: Agent` is the Agent's; anything sent `to: Agent` is the Client side's, be it
//! the Client or the last proxy), with `at` = `ts` in milliseconds.
//! Never: checks other hops (Client ↔ proxy, proxy ↔ proxy: the same conversation
//! before the proxies changed it) or MCP-over-ACP messages; the engine says once that
//! they were not checked.

use serde_json::{Map, Value};

/// Is `value` a conductor trace event?
pub(super) fn is_event(value: &Value) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    let kind = obj.get("type").and_then(Value::as_str);
    matches!(kind, Some("request" | "response" | "notification"))
        && obj.get("ts").is_some_and(Value::is_number)
        && obj.get("from").is_some_and(Value::is_string)
        && obj.get("to").is_some_and(Value::is_string)
}

/// The `acp` record (`{"from", "message", "at"}`) of an event on the Agent's hop; `None`
/// for an event of another hop or of MCP.
pub(super) fn record(event: &Value) -> Option<Value> {
    if event.get("protocol").and_then(Value::as_str) == Some("mcp") {
        return None;
    }
    let from = match (
        event.get("from").and_then(Value::as_str),
        event.get("to").and_then(Value::as_str),
    ) {
        (Some("Agent"), _) => "agent",
        (_, Some("Agent")) => "client",
        _ => return None,
    };
    let mut message = Map::new();
    message.insert("jsonrpc".into(), Value::from("2.0"));
    let field = |k: &str| event.get(k).cloned().unwrap_or(Value::Null);
    match event.get("type").and_then(Value::as_str) {
        Some("response") => {
            message.insert("id".into(), field("id"));
            let is_error = event.get("is_error").and_then(Value::as_bool) == Some(true);
            let key = if is_error { "error" } else { "result" };
            message.insert(key.into(), field("payload"));
        }
        Some(kind) => {
            if kind == "request" {
                message.insert("id".into(), field("id"));
            }
            message.insert("method".into(), field("method"));
            if let Some(params) = event.get("params") {
                message.insert("params".into(), params.clone());
            }
        }
        None => return None,
    }
    let mut record = Map::new();
    record.insert("from".into(), Value::from(from));
    record.insert("message".into(), Value::Object(message));
    let ms = event.get("ts").and_then(Value::as_f64).map(|s| s * 1000.0);
    if let Some(ms) = ms.filter(|ms| ms.is_finite() && *ms >= 0.0 && *ms < 9.0e15) {
        // Whole milliseconds: `ts` is a float of seconds.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = ms.round() as u64;
        record.insert("at".into(), Value::from(ms));
    }
    Some(Value::Object(record))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_agent_s_hop_becomes_acp_records_with_their_time() {
        let req = json!({"type":"request","ts":0.25,"protocol":"acp","from":"Proxy(0)","to":"Agent","id":3,"method":"session/new","params":{"cwd":"/"}});
        assert!(is_event(&req));
        assert_eq!(
            record(&req),
            Some(
                json!({"from":"client","message":{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/"}},"at":250})
            )
        );
        let err = json!({"type":"response","ts":1.0,"from":"Agent","to":"Proxy(0)","id":3,"is_error":true,"payload":{"code":-32601,"message":"no"}});
        assert_eq!(
            record(&err),
            Some(
                json!({"from":"agent","message":{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}},"at":1000})
            )
        );
        let note = json!({"type":"notification","ts":2,"protocol":"acp","from":"Agent","to":"Client","method":"session/update","params":{}});
        assert_eq!(
            record(&note).unwrap()["message"]["method"],
            "session/update"
        );
    }

    #[test]
    fn other_hops_and_mcp_are_not_the_agent_s_conversation() {
        let hop = json!({"type":"request","ts":0.1,"protocol":"acp","from":"Client","to":"Proxy(0)","id":1,"method":"initialize","params":{}});
        assert!(is_event(&hop));
        assert_eq!(record(&hop), None);
        let mcp = json!({"type":"request","ts":0.1,"protocol":"mcp","from":"Agent","to":"Proxy(0)","id":1,"method":"tools/call","params":{}});
        assert_eq!(record(&mcp), None);
        assert!(!is_event(&json!({"from":"client","message":{}})));
    }
}
