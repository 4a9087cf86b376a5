//! The view's values as JSON: what the contract view (`replay --format json`) and the
//! view's changes both show of a session, so the two never differ.
//!
//! Owns: the JSON shape of a session's kind and of a session-directed message, and the
//! one ordering of raw payloads (object keys sorted, so the bytes do not depend on
//! serde_json's `preserve_order`). Never: decides a fact; it only reads the view.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Message, Session, View};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MessageJson<'a> {
    message_id: &'a str,
    sender: Option<&'a str>,
    recipient: Option<&'a str>,
    direction: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sender_message_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recipient_message_id: Option<&'a str>,
    content: Vec<Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Value>,
}

/// A raw payload with every object's keys in sorted order.
pub(crate) fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                if let Some(x) = o.get(k) {
                    out.insert(k.clone(), sorted(x));
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

pub(crate) fn message<'a>(s: &Session, m: &'a Message) -> MessageJson<'a> {
    let direction = match (&m.sender, &m.recipient) {
        (Some(x), _) if *x == s.id => Some("outgoing"),
        (_, Some(x)) if *x == s.id => Some("incoming"),
        _ => None,
    };
    MessageJson {
        message_id: &m.id,
        sender: m.sender.as_deref(),
        recipient: m.recipient.as_deref(),
        direction,
        sender_message_id: m.sender_message.as_deref(),
        recipient_message_id: m.recipient_message.as_deref(),
        content: m.content.iter().map(sorted).collect(),
        meta: m.meta.as_ref().map(sorted),
    }
}

/// `child`, `root`, or `unknown` for a session the Client never saw set up or
/// announced (stray traffic names it): no root, no cancel control.
pub(crate) fn kind(view: &View, s: &Session) -> &'static str {
    if s.parent.is_some() {
        "child"
    } else if view.is_unknown(&s.id) {
        "unknown"
    } else {
        "root"
    }
}
