//! Format detection: the one place a trace format is told from content.
//!
//! Owns: reading a record's shape (`event` ⇒ canonical; `from` of `cli`/`host` ⇒
//! claude-sdk, `server` ⇒ codex-app-server, `agent`/`transport` ⇒ acp; `client` ⇒ acp
//! when its message carries `"jsonrpc"`, codex-app-server otherwise; a message without
//! the envelope by its own shape, see `raw`) and holding the lines read before any
//! record told.
//! Never: applies a record or guesses past [`HOLD_LIMIT`] records.

use serde_json::Value;

use super::EngineError;
use crate::trace::Format;

/// At most this many records are read before the format must be known.
pub(super) const HOLD_LIMIT: usize = 50;

/// The format a record line's shape tells, if any.
pub(super) fn from_line(text: &str) -> Option<Format> {
    let (value, _) = crate::trace::parse_line::<Value>(text, Format::Canonical).ok()?;
    let obj = value.as_object()?;
    if obj.contains_key("event") && !obj.contains_key("from") {
        return Some(Format::Canonical);
    }
    if super::conductor::is_event(&value) {
        return Some(Format::Acp);
    }
    let Some(from) = obj.get("from").and_then(Value::as_str) else {
        // A message without lineage's envelope, as the program wrote it.
        return super::raw::format_of(&value);
    };
    from_record(from, obj.get("message").unwrap_or(&Value::Null))
}

/// The format a provider-style record (`from`, `message`) tells, if any.
pub(super) fn from_record(from: &str, message: &Value) -> Option<Format> {
    match from {
        "cli" | "host" => Some(Format::ClaudeSdk),
        "server" => Some(Format::CodexAppServer),
        "agent" | "transport" => Some(Format::Acp),
        "client" => {
            let first = message
                .as_array()
                .and_then(|a| a.first())
                .unwrap_or(message);
            if first.is_null() {
                return None;
            }
            Some(if first.get("jsonrpc").is_some() {
                Format::Acp
            } else {
                Format::CodexAppServer
            })
        }
        _ => None,
    }
}

/// Lines read while the format is unknown, in order.
#[derive(Debug, Clone, Default)]
pub(super) struct Detector {
    held: Vec<(usize, String)>,
}

impl Detector {
    /// Holds a record line; fails once [`HOLD_LIMIT`] records told nothing.
    pub(super) fn hold(&mut self, line: usize, text: &str) -> Result<(), EngineError> {
        if self.held.len() + 1 >= HOLD_LIMIT {
            return Err(EngineError::UnknownFormat);
        }
        self.held.push((line, text.to_owned()));
        Ok(())
    }

    /// The held lines, once the format is known.
    pub(super) fn take(&mut self) -> Vec<(usize, String)> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_from_record_shapes() {
        assert_eq!(from_line(r#"{"event":{}}"#), Some(Format::Canonical));
        assert_eq!(
            from_line(r#"{"from":"client","message":{"id":1,"method":"turn/start"}}"#),
            Some(Format::CodexAppServer)
        );
        assert_eq!(
            from_line(
                r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"initialize"}}"#
            ),
            Some(Format::Acp)
        );
        assert_eq!(
            from_line(r#"{"from":"cli","message":{}}"#),
            Some(Format::ClaudeSdk)
        );
        assert_eq!(
            from_line(r#"{"from":"transport","event":"connected"}"#),
            Some(Format::Acp)
        );
        assert_eq!(from_line("not json"), None);
        assert_eq!(from_line("{}"), None);
    }

    #[test]
    fn holding_stops_at_the_limit() {
        let mut d = Detector::default();
        for line in 1..HOLD_LIMIT {
            assert!(d.hold(line, "{}").is_ok(), "line {line}");
        }
        assert_eq!(d.hold(HOLD_LIMIT, "{}"), Err(EngineError::UnknownFormat));
    }
}
