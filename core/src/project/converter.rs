//! [`Converter`]: the engine and a [`Projector`] together, one input line at a time,
//! writing `acp` trace records (what `lineage convert` runs).

use std::fmt::Write as _;

use super::{AcpMessage, Options, Projector, Version};
use crate::tree::Change;

/// A trace of any format in, an `acp` trace out: the engine and a [`Projector`]
/// together, one line at a time (what `lineage convert` runs).
///
/// ```
/// use lineage_core::project::{Converter, Options};
/// let mut c = Converter::new(Default::default(), Options::default());
/// let mut out = c.header();
/// for line in [
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     r#"{"event":{"type":"user_submitted","session":"R","text":"go"}}"#,
/// ] {
///     out.push_str(&c.push_line(line).unwrap());
/// }
/// let (tail, replay) = c.finish().unwrap();
/// out.push_str(&tail);
/// assert!(out.starts_with(r#"{"lineage":"trace","format":"acp","version":1,"protocolVersion":1}"#));
/// assert!(out.contains(r#""method":"session/prompt""#));
/// assert!(replay.findings.is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Converter {
    engine: crate::engine::Engine,
    projector: Projector,
    version: Version,
    started: bool,
}

impl Converter {
    /// A converter reading with `engine` options and projecting with `options`.
    pub fn new(engine: crate::engine::Options, options: Options) -> Self {
        Self {
            engine: crate::engine::Engine::new(engine),
            projector: Projector::new(options),
            version: options.version,
            started: false,
        }
    }

    /// The output's header line.
    pub fn header(&self) -> String {
        let version = if self.version == Version::V2 { 2 } else { 1 };
        format!(
            "{{\"lineage\":\"trace\",\"format\":\"acp\",\"version\":1,\"protocolVersion\":{version}}}\n"
        )
    }

    /// One input line (bytes, as read); returns the output records it caused.
    pub fn push_bytes(&mut self, line: &[u8]) -> Result<String, crate::engine::EngineError> {
        let out = self.engine.push_bytes(line)?;
        Ok(self.records(&out.changes))
    }

    /// One parsed provider record (a native source's, see [`crate::native`]); returns the
    /// output records it caused.
    pub fn push_record(
        &mut self,
        record: crate::providers::ProviderRecord,
    ) -> Result<String, crate::engine::EngineError> {
        let out = self.engine.push_record(record)?;
        Ok(self.records(&out.changes))
    }

    /// One input line of text; returns the output records it caused.
    pub fn push_line(&mut self, line: &str) -> Result<String, crate::engine::EngineError> {
        self.push_bytes(line.as_bytes())
    }

    fn records(&mut self, changes: &[Change]) -> String {
        let mut messages = if self.started {
            Vec::new()
        } else {
            self.started = true;
            self.projector.start()
        };
        messages.extend(self.projector.project(self.engine.snapshot(), changes));
        self.write(messages)
    }

    /// The records of `messages`, each message's JSON written straight into the text.
    fn write(&self, messages: Vec<AcpMessage>) -> String {
        let at = self.engine.latest_time();
        let mut text = String::new();
        for m in messages {
            text.push_str("{\"from\":\"");
            text.push_str(m.from.as_str());
            text.push_str("\",\"message\":");
            // `Display` of a JSON value is its compact text, as `to_string` gives it.
            let _ = write!(text, "{}", m.message);
            if let Some(at) = at {
                let _ = write!(text, ",\"at\":{at}");
            }
            text.push_str("}\n");
        }
        text
    }

    /// The end of the input: the last records (children still at work report
    /// `unknown`; with [`Options::reconnect`], a reconnection and the load of every root
    /// follow) and the input's replay (its findings).
    pub fn finish(mut self) -> Result<(String, crate::engine::Replay), crate::engine::EngineError> {
        let mut tail = self.records(&[]);
        let last = self.projector.finish(self.engine.snapshot());
        tail.push_str(&self.write(last));
        if self.projector.options.reconnect {
            tail.push_str("{\"from\":\"transport\",\"event\":\"disconnected\"}\n");
            tail.push_str("{\"from\":\"transport\",\"event\":\"connected\"}\n");
            let reloaded = self.projector.reconnect(self.engine.snapshot());
            tail.push_str(&self.write(reloaded));
        }
        Ok((tail, self.engine.finish()?))
    }
}
