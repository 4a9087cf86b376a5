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
//! The members' values stay `Value`s: `params`, `result` and `error` are what the view
//! and the rules read; `id`, `method`, `jsonrpc` and `at` are read as they would be from a
//! `Value` record. A member that is present keeps its presence even when it is `null`.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, MapAccess, Visitor};
use serde_json::Value;

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
    pub(crate) message: Option<Message>,
}

/// The members of one JSON-RPC message object, each `Some` exactly when present.
#[derive(Debug, Default)]
pub(crate) struct Message {
    pub(crate) jsonrpc: Option<Value>,
    pub(crate) id: Option<Value>,
    pub(crate) method: Option<Value>,
    pub(crate) params: Option<Value>,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<Value>,
}

impl<'a> Line<'a> {
    /// Decodes `text` (one trimmed record line), or `None` when it is not the common
    /// case described in the module documentation.
    pub(crate) fn decode(text: &'a str) -> Option<Line<'a>> {
        if !text.starts_with('{') {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let line = de.deserialize_map(LineVisitor).ok()?;
        de.end().ok()?;
        Some(line)
    }
}

/// A string borrowed from the line when it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
        d.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v.to_owned())))
    }
}

/// Sets a member once; a repeated member fails the fast path.
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
    if slot.replace(value).is_some() {
        return Err(E::custom("repeated member"));
    }
    Ok(())
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an acp record object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'de>, A::Error> {
        let mut line = Line::default();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match &*key {
                "from" => once(&mut line.from, map.next_value::<Text<'de>>()?.0)?,
                "event" => once(&mut line.event, map.next_value::<Text<'de>>()?.0)?,
                "at" => once(&mut line.at, map.next_value::<Value>()?)?,
                "message" => once(&mut line.message, map.next_value::<Message>()?)?,
                _ => return Err(de::Error::custom("another member")),
            }
        }
        Ok(line)
    }
}

impl<'de> serde::Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Message, D::Error> {
        // A map only: a JSON array (a batch) is not taken as the struct's fields.
        d.deserialize_map(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut m = Message::default();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let slot = match &*key {
                "jsonrpc" => &mut m.jsonrpc,
                "id" => &mut m.id,
                "method" => &mut m.method,
                "params" => &mut m.params,
                "result" => &mut m.result,
                "error" => &mut m.error,
                _ => return Err(de::Error::custom("another member")),
            };
            once(slot, map.next_value::<Value>()?)?;
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_record_decodes_with_every_member_kept() {
        let text = r#"{"from":"agent","message":{"jsonrpc":"2.0","id":null,"method":"m","params":{"a":1}},"at":1.50}"#;
        let line = Line::decode(text).unwrap();
        assert!(matches!(line.from, Some(Cow::Borrowed("agent"))));
        assert_eq!(line.at.unwrap().to_string(), "1.50"); // as written
        let m = line.message.unwrap();
        assert_eq!(m.id, Some(Value::Null)); // present, though null
        assert_eq!(m.params.unwrap().to_string(), r#"{"a":1}"#);
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
