//! The app-server's JSON-RPC envelope (no `"jsonrpc"` field): requests, responses,
//! notifications, and request ids.

use std::fmt;

use serde_json::Value;

use crate::trace::borrowed::JsonRead;

use crate::ids::{RequestId, SessionId};

/// A JSON-RPC id (string or integer), kept as its JSON text so `1` and `"1"` differ.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct RpcId(String);

impl RpcId {
    pub(super) fn from_value(v: &impl JsonRead) -> Self {
        Self(v.json_text())
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
pub(super) enum Kind<'a, J> {
    Request {
        id: RpcId,
        method: &'a str,
        /// Absent params read as `null`.
        params: Option<&'a J>,
    },
    Response {
        id: RpcId,
        ok: bool,
    },
    Notification {
        method: &'a str,
        params: Option<&'a J>,
    },
    Invalid(&'static str),
}

pub(super) fn classify<J: JsonRead>(message: &J) -> Kind<'_, J> {
    if !message.is_object() {
        return Kind::Invalid("the message is not a JSON object");
    }
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    let method = message.get("method").and_then(J::as_str);
    let params = message.get("params");
    match (id, method) {
        (Some(id), Some(method)) => Kind::Request {
            id: RpcId::from_value(id),
            method,
            params,
        },
        (None, Some(method)) => Kind::Notification { method, params },
        (Some(id), None) if message.get("result").is_some() => Kind::Response {
            id: RpcId::from_value(id),
            ok: true,
        },
        (Some(id), None) if message.get("error").is_some() => Kind::Response {
            id: RpcId::from_value(id),
            ok: false,
        },
        _ => Kind::Invalid("neither a request, a response nor a notification"),
    }
}
