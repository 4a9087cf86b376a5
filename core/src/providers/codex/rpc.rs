//! The app-server's JSON-RPC envelope (no `"jsonrpc"` field): requests, responses,
//! notifications, and request ids.

use std::fmt;

use serde_json::Value;

use crate::ids::{RequestId, SessionId};

/// A JSON-RPC id (string or integer), kept as its JSON text so `1` and `"1"` differ.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct RpcId(String);

impl RpcId {
    pub(super) fn from_value(v: &Value) -> Self {
        Self(v.to_string())
    }

    /// The canonical request id: a number as its digits, a string as itself.
    pub(super) fn request_id(&self) -> RequestId {
        match serde_json::from_str::<Value>(&self.0) {
            Ok(Value::String(s)) => RequestId::from(s),
            _ => RequestId::from(self.0.as_str()),
        }
    }
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a client request was, so its response can be interpreted.
#[derive(Debug, Clone)]
pub(super) enum ClientRequest {
    /// `thread/start`: its response names a root thread.
    ThreadStart,
    /// `thread/resume`: its response names the thread and carries its earlier turns.
    ThreadResume,
    /// `turn/interrupt` of `thread`, part of the cancel of `operation`'s session.
    Interrupt {
        thread: SessionId,
        /// The provider turn it names.
        turn: Option<String>,
        operation: SessionId,
    },
    /// Anything else.
    Other,
}

/// The shape of one message.
pub(super) enum Kind<'a> {
    Request {
        id: RpcId,
        method: &'a str,
        params: &'a Value,
    },
    Response {
        id: RpcId,
        ok: bool,
    },
    Notification {
        method: &'a str,
        params: &'a Value,
    },
    Invalid(&'static str),
}

static NO_PARAMS: Value = Value::Null;

pub(super) fn classify(message: &Value) -> Kind<'_> {
    let Some(obj) = message.as_object() else {
        return Kind::Invalid("the message is not a JSON object");
    };
    let id = obj.get("id").filter(|id| id.is_string() || id.is_number());
    let method = obj.get("method").and_then(Value::as_str);
    let params = obj.get("params").unwrap_or(&NO_PARAMS);
    match (id, method) {
        (Some(id), Some(method)) => Kind::Request {
            id: RpcId::from_value(id),
            method,
            params,
        },
        (None, Some(method)) => Kind::Notification { method, params },
        (Some(id), None) if obj.contains_key("result") => Kind::Response {
            id: RpcId::from_value(id),
            ok: true,
        },
        (Some(id), None) if obj.contains_key("error") => Kind::Response {
            id: RpcId::from_value(id),
            ok: false,
        },
        _ => Kind::Invalid("neither a request, a response nor a notification"),
    }
}
