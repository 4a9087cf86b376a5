//! Unenveloped input: the lines a program wrote, without lineage's `{"from", "message"}`
//! envelope (`claude -p --output-format stream-json > out.jsonl`, a `tee` of both pipes,
//! a proxy's JSON-RPC log). Each line is one message; which side wrote it is read from
//! the message itself.
//!
//! Owns: telling the side of such a line (its format is told by `detect`):
//! - Claude Code stream-json: a `user` message without a `uuid` is the host's (the CLI's
//!   own `user` records carry one); a `control_request` is the CLI's when it asks the host
//!   (`can_use_tool`, `hook_callback`, `mcp_message`, `elicitation`), the host's otherwise
//!   (`initialize`, `interrupt`, `stop_task`, …); a `control_response` comes from the side
//!   that did not send the request it answers; everything else is the CLI's.
//! - Codex app-server JSON-RPC: requests are the client's but approvals, questions and
//!   elicitations (the server asks); notifications are the server's but `initialized`; a
//!   response comes from the side that did not send the pending request with its id
//!   (ids overlap between the sides: a `decision` answers the server).
//! - ACP JSON-RPC: `session/update`, `session/request_permission`, `fs/*`, `terminal/*`
//!   and `elicitation/*` are the Agent's, other methods the Client's; responses as above.
//!
//! Never: invents a message; a line whose side cannot be told is read as the side a
//! stdout-only capture holds (the program's).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::trace::Format;

/// Is `value` an unenveloped message of `format`, the format being known already? Any
/// object without the envelope is: a JSON-RPC message (a response or an extension method
/// tells no format by itself) for ACP and Codex, a typed message for Claude.
pub(super) fn is_message_of(format: Format, value: &Value) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    // Lineage's canonical record is `{event, at}`; a Claude `stream_event` (partial
    // messages) also has a top-level `event`, but with its stream-json `type`.
    let canonical = obj.contains_key("event") && !super::detect::has_claude_type(obj);
    if obj.contains_key("from") || canonical || crate::acp::recording::is_line(obj) {
        return false;
    }
    match format {
        Format::Acp | Format::CodexAppServer => ["jsonrpc", "method", "id"]
            .iter()
            .any(|k| obj.contains_key(*k)),
        Format::ClaudeSdk => obj.get("type").is_some_and(Value::is_string),
        Format::Canonical => false,
    }
}

/// Pending requests per side, to tell who answers.
#[derive(Debug, Clone, Default)]
pub(super) struct Sides {
    /// Request id (as text) → the side that asked, per format's side names.
    asked: BTreeMap<String, Vec<&'static str>>,
}

impl Sides {
    /// The side that wrote `value`, an unenveloped message of `format`.
    pub(super) fn infer(&mut self, format: Format, value: &Value) -> &'static str {
        match format {
            Format::ClaudeSdk => self.claude(value),
            Format::Acp => self.json_rpc(value, ["client", "agent"], acp_agent_method),
            Format::CodexAppServer | Format::Canonical => {
                self.json_rpc(value, ["client", "server"], codex_server_method)
            }
        }
    }

    fn claude(&mut self, value: &Value) -> &'static str {
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "user" if value.get("uuid").is_none() => "host",
            "control_request" => {
                let subtype = value.pointer("/request/subtype").and_then(Value::as_str);
                let side = match subtype {
                    Some("can_use_tool" | "hook_callback" | "mcp_message" | "elicitation") => "cli",
                    _ => "host",
                };
                if let Some(id) = value.get("request_id") {
                    self.ask(id_text(id), side);
                }
                side
            }
            "control_response" => {
                let id = value
                    .pointer("/response/request_id")
                    .map(id_text)
                    .unwrap_or_default();
                match self.answered(&id) {
                    Some("host") => "cli",
                    Some(_) => "host",
                    None => "cli",
                }
            }
            _ => "cli",
        }
    }

    /// JSON-RPC: `sides` is [the client's name, the other side's]; `other_asks` tells
    /// the methods the other side (server/agent) calls.
    fn json_rpc(
        &mut self,
        value: &Value,
        sides: [&'static str; 2],
        other_asks: fn(&str) -> bool,
    ) -> &'static str {
        let [client, other] = sides;
        let id = value.get("id").map(id_text);
        match (value.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => {
                let side = if other_asks(method) { other } else { client };
                self.ask(id, side);
                side
            }
            (Some(method), None) => {
                let client_notifies = matches!(method, "initialized" | "session/cancel")
                    || method.starts_with("$/") && !other_asks(method);
                if client_notifies { client } else { other }
            }
            (None, Some(id)) => {
                // Ids overlap between the sides: a decision or a permission outcome
                // answers the other side's request; anything else answers the oldest
                // pending request under that id, the client's first.
                let decision = value.pointer("/result/decision").is_some()
                    || value.pointer("/result/outcome").is_some();
                if decision {
                    let _ = self.answered_by(&id, other, client);
                    return client;
                }
                match self.answered_by(&id, client, other) {
                    Some(asker) if asker == client => other,
                    Some(_) => client,
                    None => other,
                }
            }
            (None, None) => other,
        }
    }

    fn ask(&mut self, id: String, side: &'static str) {
        self.asked.entry(id).or_default().push(side);
    }

    /// The side whose pending request `id` this answers (the oldest), removed.
    fn answered(&mut self, id: &str) -> Option<&'static str> {
        let pending = self.asked.get_mut(id)?;
        let side = (!pending.is_empty()).then(|| pending.remove(0));
        if pending.is_empty() {
            self.asked.remove(id);
        }
        side
    }

    /// Like [`Sides::answered`], preferring `first`'s request when both sides have one
    /// pending under `id`.
    fn answered_by(
        &mut self,
        id: &str,
        first: &'static str,
        second: &'static str,
    ) -> Option<&'static str> {
        let pending = self.asked.get_mut(id)?;
        let at = pending
            .iter()
            .position(|s| *s == first)
            .or_else(|| pending.iter().position(|s| *s == second))?;
        let side = pending.remove(at);
        if pending.is_empty() {
            self.asked.remove(id);
        }
        Some(side)
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn acp_agent_method(method: &str) -> bool {
    method == "session/update"
        || method == "session/request_permission"
        || ["fs/", "terminal/", "elicitation/"]
            .iter()
            .any(|p| method.starts_with(p))
}

fn codex_server_method(method: &str) -> bool {
    method.contains("requestApproval")
        || method.contains("requestUserInput")
        || method.ends_with("Approval")
        || method.contains("elicitation")
        || method.ends_with("/refresh")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_sides_are_read_from_the_messages() {
        let mut s = Sides::default();
        let host_prompt = json!({"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":""});
        assert_eq!(s.infer(Format::ClaudeSdk, &host_prompt), "host");
        let echo = json!({"type":"user","uuid":"u1","session_id":"S","message":{}});
        assert_eq!(s.infer(Format::ClaudeSdk, &echo), "cli");
        let ask = json!({"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool"}});
        assert_eq!(s.infer(Format::ClaudeSdk, &ask), "cli");
        let answer =
            json!({"type":"control_response","response":{"subtype":"success","request_id":"r1"}});
        assert_eq!(s.infer(Format::ClaudeSdk, &answer), "host");
        let interrupt =
            json!({"type":"control_request","request_id":"h2","request":{"subtype":"interrupt"}});
        assert_eq!(s.infer(Format::ClaudeSdk, &interrupt), "host");
        let ack =
            json!({"type":"control_response","response":{"subtype":"success","request_id":"h2"}});
        assert_eq!(s.infer(Format::ClaudeSdk, &ack), "cli");
        assert_eq!(s.infer(Format::ClaudeSdk, &json!({"type":"result"})), "cli");
    }

    #[test]
    fn codex_sides_tell_overlapping_ids_apart() {
        let mut s = Sides::default();
        let start = json!({"id":0,"method":"thread/start","params":{}});
        assert_eq!(s.infer(Format::CodexAppServer, &start), "client");
        let approval = json!({"id":0,"method":"item/commandExecution/requestApproval","params":{}});
        assert_eq!(s.infer(Format::CodexAppServer, &approval), "server");
        let decision = json!({"id":0,"result":{"decision":"accept"}});
        assert_eq!(s.infer(Format::CodexAppServer, &decision), "client");
        let started = json!({"id":0,"result":{"thread":{"id":"T"}}});
        assert_eq!(s.infer(Format::CodexAppServer, &started), "server");
        assert_eq!(
            s.infer(
                Format::CodexAppServer,
                &json!({"method":"turn/started","params":{}})
            ),
            "server"
        );
        assert_eq!(
            s.infer(Format::CodexAppServer, &json!({"method":"initialized"})),
            "client"
        );
    }

    #[test]
    fn acp_sides_follow_the_methods_and_the_pending_requests() {
        let mut s = Sides::default();
        let init =
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}});
        assert_eq!(
            crate::engine::Engine::message_format(&init),
            Some(Format::Acp)
        );
        assert_eq!(s.infer(Format::Acp, &init), "client");
        assert_eq!(
            s.infer(Format::Acp, &json!({"jsonrpc":"2.0","id":0,"result":{}})),
            "agent"
        );
        let ask = json!({"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}});
        assert_eq!(s.infer(Format::Acp, &ask), "agent");
        let answer = json!({"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}});
        assert_eq!(s.infer(Format::Acp, &answer), "client");
        let update = json!({"jsonrpc":"2.0","method":"session/update","params":{}});
        assert_eq!(s.infer(Format::Acp, &update), "agent");
        let cancel = json!({"jsonrpc":"2.0","method":"session/cancel","params":{}});
        assert_eq!(s.infer(Format::Acp, &cancel), "client");
    }

    #[test]
    fn formats_are_told_from_unenveloped_messages() {
        assert_eq!(
            crate::engine::Engine::message_format(&json!({"type":"system","subtype":"init"})),
            Some(Format::ClaudeSdk)
        );
        assert_eq!(
            crate::engine::Engine::message_format(&json!({"id":1,"method":"turn/start"})),
            Some(Format::CodexAppServer)
        );
        assert_eq!(
            crate::engine::Engine::message_format(&json!({"from":"cli","message":{}})),
            None
        );
        assert_eq!(
            crate::engine::Engine::message_format(&json!({"type":"unknown-thing"})),
            None
        );
        assert_eq!(
            crate::engine::Engine::message_format(&json!({"id":1,"result":{}})),
            None
        );
    }
}
