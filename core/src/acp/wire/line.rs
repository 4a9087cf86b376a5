//! The fast path of an `acp` trace line: its envelope and its single JSON-RPC message
//! decoded straight into their members, with no `serde_json::Value` map built for
//! either.
//!
//! Owns: [`Line::decode`], which accepts only the common case: a JSON object whose members
//! are among `from`, `message`, `event` and `at` (`from` and `event` strings), each at most
//! once, and whose `message`, when present, is a JSON object whose members are among
//! `jsonrpc`, `id`, `method`, `params`, `result` and `error`, each at most once.
//! Never: decides anything a `Value` record would be read differently for. Whatever it
//! does not accept (a batch, a conductor event, an unenveloped message, an adapter's
//! recording, a member of another name, a repeated member, a `null` envelope member,
//! a record too deep for serde_json, text that is not JSON) is `None`, and the caller
//! reads the line as a `Value` instead, so both paths report the same.
//!
//! The line is read by the borrowed JSON parser member by member (no tree of the
//! envelope is built), so a number keeps its spelling. The message's members are
//! [`Json`] values borrowed from the text (no `Value` map is built, no key allocated or
//! hashed): the view and the rules read them as they read a `Value` record; `at` is
//! built as a `Value`. A member that is present keeps its presence even when it is
//! `null`.

use std::borrow::Cow;

use serde_json::Value;

use crate::trace::borrowed::{Cursor, Json};

/// One `acp` trace line, decoded on the fast path.
#[derive(Debug, Default)]
pub(crate) struct Line<'a> {
    /// `from`, when present.
    pub(crate) from: Option<Cow<'a, str>>,
    /// `event`, when present (a transport record's).
    pub(crate) event: Option<Cow<'a, str>>,
    /// `at` as written, when present.
    pub(crate) at: Option<Value>,
    /// `message`, when present: one JSON-RPC message (an object; never a batch).
    pub(crate) message: Option<Message<'a>>,
}

/// The members of one JSON-RPC message object, each `Some` exactly when present.
#[derive(Debug, Default)]
pub(crate) struct Message<'a> {
    pub(crate) jsonrpc: Option<Json<'a>>,
    pub(crate) id: Option<Json<'a>>,
    pub(crate) method: Option<Json<'a>>,
    pub(crate) params: Option<Json<'a>>,
    pub(crate) result: Option<Json<'a>>,
    pub(crate) error: Option<Json<'a>>,
}

impl<'a> Line<'a> {
    /// Decodes `text` (one trimmed record line), or `None` when it is not the common
    /// case described in the module documentation.
    pub(crate) fn decode(text: &'a str) -> Option<Line<'a>> {
        if !text.starts_with('{') {
            return None;
        }
        let mut cursor = Cursor::new(text);
        let mut line = Line::default();
        cursor.object(|key, c| match key.as_ref() {
            "from" => once(&mut line.from, text_of(c.value::<Json<'a>>()?)?),
            "event" => once(&mut line.event, text_of(c.value::<Json<'a>>()?)?),
            "at" => once(&mut line.at, c.value::<Value>()?),
            "message" => once(&mut line.message, Message::read(c)?),
            _ => None,
        })?;
        cursor.end()?;
        Some(line)
    }
}

impl<'a> Message<'a> {
    /// The members of a JSON-RPC message object (never a batch), each kept once, each
    /// value borrowed from the text.
    fn read(cursor: &mut Cursor<'a>) -> Option<Message<'a>> {
        let mut m = Message::default();
        cursor.object(|key, c| {
            let slot = match key.as_ref() {
                "jsonrpc" => &mut m.jsonrpc,
                "id" => &mut m.id,
                "method" => &mut m.method,
                "params" => &mut m.params,
                "result" => &mut m.result,
                "error" => &mut m.error,
                _ => return None,
            };
            once(slot, c.value::<Json<'a>>()?)
        })?;
        Some(m)
    }
}

/// A string member's text (borrowed from the line when it has no escapes).
fn text_of(json: Json<'_>) -> Option<Cow<'_, str>> {
    match json {
        Json::Str(text) => Some(text),
        _ => None,
    }
}

/// Sets a member once; a repeated member fails the fast path.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    slot.replace(value).is_none().then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::borrowed::JsonRead;

    #[test]
    fn the_common_record_decodes_with_every_member_kept() {
        let text = r#"{"from":"agent","message":{"jsonrpc":"2.0","id":null,"method":"m","params":{"a":1}},"at":1.50}"#;
        let line = Line::decode(text).unwrap();
        assert!(matches!(line.from, Some(Cow::Borrowed("agent"))));
        assert_eq!(line.at.unwrap().to_string(), "1.50"); // as written
        let m = line.message.unwrap();
        assert_eq!(m.id, Some(Json::Null)); // present, though null
        assert_eq!(m.params.unwrap().to_value().to_string(), r#"{"a":1}"#);
        assert!(m.result.is_none() && m.error.is_none());
    }

    #[test]
    fn anything_else_is_left_to_the_value_path() {
        for text in [
            r#"["agent",{"jsonrpc":"2.0","method":"m"}]"#,
            r#"{"from":"agent","message":[{"jsonrpc":"2.0","method":"m"}]}"#,
            r#"{"from":"agent","message":["2.0",1,"m"]}"#,
            r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"m","extra":1}}"#,
            r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"m","method":"n"}}"#,
            r#"{"from":"agent","from":"client","message":{"jsonrpc":"2.0","method":"m"}}"#,
            r#"{"from":null,"message":{"jsonrpc":"2.0","method":"m"}}"#,
            r#"{"from":"agent","message":null}"#,
            r#"{"type":"request","ts":1,"from":"a","to":"b"}"#,
            r#"{"jsonrpc":"2.0","method":"m"}"#,
            r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"m"}} x"#,
            r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"m"}"#,
        ] {
            assert!(Line::decode(text).is_none(), "{text}");
        }
    }
}
