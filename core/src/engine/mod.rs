//! The engine: one sans-I/O state machine for every trace format.
//!
//! Owns: the input side (text lines, parsed provider records, canonical events), the
//! header and format detection (the only place a format is told from content), physical
//! line numbering, time as an input ([`Engine::poll_timeout`] /
//! [`Engine::handle_timeout`]), the queue of held records an adapter releases, and the
//! two ways a trace stops: [`Engine::finish`] (the trace ended: end-of-trace findings)
//! and [`Engine::stop`] (a cut, as `--at`: none).
//! Never: does I/O, reads a clock or decides a lifecycle rule. Each push returns what it
//! caused ([`Output`]); every record read is either applied or reported.
//!
//! Arms: `canonical` events go to the reducer as they are; `codex-app-server` and
//! `claude-sdk` records go through their adapter, whose events the reducer applies;
//! `acp` records go through the conformance checker, which drives the Client view.
//!
//! ```
//! use lineage_core::engine::{Engine, Options};
//! use lineage_core::Phase;
//!
//! let mut engine = Engine::new(Options::default());
//! for line in [
//!     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
//!     r#"{"event":{"type":"user_submitted","session":"R","text":"go"}}"#,
//!     r#"{"event":{"type":"root_provider_turn_started","session":"R"}}"#,
//!     r#"{"event":{"type":"root_provider_turn_completed","session":"R","outcome":"completed"}}"#,
//! ] {
//!     let out = engine.push_line(line).unwrap();
//!     assert!(out.findings.is_empty());
//! }
//! let replay = engine.finish().unwrap();
//! let root = replay.snapshot().unwrap().session(&"R".into()).unwrap();
//! assert_eq!(root.turns.last().unwrap().phase, Phase::Settled);
//! ```

mod detect;

use serde_json::Value;

use crate::acp::rules::Checker;
use crate::acp::view::{View, ViewOptions};
pub use crate::output::Output;

use crate::finding::{Code, Finding};
use crate::providers::{self, Ctx, ProviderRecord, claude::ClaudeAdapter, codex::CodexAdapter};
use crate::trace::{self, CanonicalRecord, Format, Header};
use crate::tree::{Event, Millis, Snapshot};
use detect::Detector;

/// What the engine needs that a trace header may also say. Options win over the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The format when the trace has no header (detected from content when `None`).
    pub format: Option<Format>,
    /// Codex: the root thread id (else the header's `rootThreadId`, else the first
    /// `thread/start` response or `turn/start` request).
    pub codex_root_thread: Option<String>,
    /// ACP: the protocol version until an `initialize` response tells (else the
    /// header's `protocolVersion`).
    pub acp_protocol_version: Option<u64>,
    /// ACP: keep message content in the Client view (`replay`); `check` turns it off.
    pub transcripts: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            format: None,
            codex_root_thread: None,
            acp_protocol_version: None,
            transcripts: true,
        }
    }
}

/// The input cannot be processed at all (a usage error, not a finding).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// No header, no [`Options::format`], and no record whose shape tells the format.
    #[error("cannot tell the trace format: add a header line or pass --input-format")]
    UnknownFormat,
    /// This kind of input does not belong to the trace's format.
    #[error("{input} cannot be pushed into a `{format}` trace")]
    WrongInput {
        /// The trace's format.
        format: Format,
        /// What was pushed.
        input: &'static str,
    },
}

/// The state a trace folds into.
#[derive(Debug, Clone)]
pub enum State {
    /// The canonical session tree (canonical and provider formats).
    Tree(Snapshot),
    /// The Client's view of an ACP stream.
    Acp(View),
}

/// A finished (or stopped) trace.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The trace's format.
    pub format: Format,
    /// The header, when the trace has one.
    pub header: Option<Header>,
    /// The tree or view after the last line read.
    pub state: State,
    /// Every finding, in line order (stable for equal lines).
    pub findings: Vec<Finding>,
    /// The last physical line read.
    pub last_line: usize,
    /// Whether the trace ended ([`Engine::finish`]) rather than being cut
    /// ([`Engine::stop`]); end-of-trace findings exist only when it ended.
    pub ended: bool,
}

impl Replay {
    /// The session tree (canonical and provider formats).
    pub fn snapshot(&self) -> Option<&Snapshot> {
        match &self.state {
            State::Tree(s) => Some(s),
            State::Acp(_) => None,
        }
    }

    /// The Client view (`acp`).
    pub fn view(&self) -> Option<&View> {
        match &self.state {
            State::Acp(v) => Some(v),
            State::Tree(_) => None,
        }
    }
}

/// How records of the resolved format are processed.
#[derive(Debug, Clone)]
enum Arm {
    Canonical,
    Codex(Box<CodexAdapter>),
    Claude(Box<ClaudeAdapter>),
    Acp(Box<Checker>),
}

/// One state machine for every trace format: push inputs, read outputs.
#[derive(Debug, Clone)]
pub struct Engine {
    options: Options,
    header: Option<Header>,
    detector: Detector,
    arm: Option<Arm>,
    snapshot: Snapshot,
    findings: Vec<Finding>,
    line: usize,
    seen_content: bool,
}

impl Engine {
    /// An engine; the format comes from a header, [`Options::format`] or the content.
    pub fn new(options: Options) -> Self {
        Self {
            options,
            header: None,
            detector: Detector::default(),
            arm: None,
            snapshot: Snapshot::new(),
            findings: Vec::new(),
            line: 0,
            seen_content: false,
        }
    }

    /// The trace's format, once known.
    pub fn format(&self) -> Option<Format> {
        self.arm.as_ref().map(|arm| match arm {
            Arm::Canonical => Format::Canonical,
            Arm::Codex(_) => Format::CodexAppServer,
            Arm::Claude(_) => Format::ClaudeSdk,
            Arm::Acp(_) => Format::Acp,
        })
    }

    /// The physical number of the last line (or record) pushed.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The session tree so far (empty for `acp`).
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The Client view so far (`acp` only).
    pub fn view(&self) -> Option<&View> {
        match &self.arm {
            Some(Arm::Acp(checker)) => Some(checker.view()),
            _ => None,
        }
    }

    /// Every finding so far, in the order raised (end-of-trace ones come from
    /// [`Engine::finish`]).
    pub fn findings(&self) -> &[Finding] {
        match &self.arm {
            Some(Arm::Acp(checker)) => checker.findings(),
            _ => &self.findings,
        }
    }

    /// Keeps a copy of an output's findings for the final [`Replay`] (the checker keeps
    /// its own).
    fn keep(&mut self, out: Output) -> Output {
        if !matches!(self.arm, Some(Arm::Acp(_))) {
            self.findings.extend(out.findings.iter().cloned());
        }
        out
    }

    /// Pushes the next physical line of a trace (a header, a record or a blank line).
    /// Lines read before the format is known are held (at most 50 records) and applied
    /// once it is.
    pub fn push_line(&mut self, text: &str) -> Result<Output, EngineError> {
        self.line += 1;
        let text = if self.line == 1 {
            trace::strip_bom(text)
        } else {
            text
        };
        let text = text.trim();
        if text.is_empty() {
            return Ok(Output::default());
        }
        let first = !self.seen_content;
        self.seen_content = true;
        if first && let Some(header) = trace::parse_header(text) {
            let mut out = Output::default();
            match header {
                Ok(h) => self.set_header(h),
                Err(e) => out.findings.push(Finding::new(
                    self.line,
                    Code::MalformedRecord,
                    e.to_string(),
                )),
            }
            return Ok(self.keep(out));
        }
        if self.arm.is_none() {
            match self.options.format.or_else(|| detect::from_line(text)) {
                Some(format) => self.start(format),
                None => {
                    return self
                        .detector
                        .hold(self.line, text)
                        .map(|()| Output::default());
                }
            }
        }
        let mut out = self.release_held();
        out.append(self.line_record(self.line, text));
        Ok(self.keep(out))
    }

    /// Pushes an already-parsed provider record (`codex-app-server`, `claude-sdk`, or an
    /// `acp` message as `{from, message}`; ACP transport events go in as lines); it counts
    /// as the next line.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// use lineage_core::providers::ProviderRecord;
    /// use lineage_core::trace::Format;
    /// use serde_json::json;
    ///
    /// let mut engine = Engine::new(Options { format: Some(Format::ClaudeSdk), ..Options::default() });
    /// let record = ProviderRecord::new("cli", json!({"type":"system","subtype":"init","session_id":"S"}), Some(5));
    /// let out = engine.push_record(record).unwrap();
    /// assert!(!out.changes.is_empty()); // the root session was created
    /// assert!(engine.snapshot().session(&"S".into()).is_some());
    /// ```
    pub fn push_record(&mut self, record: ProviderRecord) -> Result<Output, EngineError> {
        self.line += 1;
        self.seen_content = true;
        if self.arm.is_none() {
            let format = self
                .options
                .format
                .or_else(|| detect::from_record(&record.from, &record.message))
                .ok_or(EngineError::UnknownFormat)?;
            self.start(format);
        }
        let line = self.line;
        let mut out = self.release_held();
        out.append(match self.arm.as_mut() {
            Some(Arm::Acp(checker)) => {
                let before = checker.findings().len();
                checker.push_value(line, &record.into_acp_value());
                Output {
                    changes: Vec::new(),
                    findings: checker
                        .findings()
                        .get(before..)
                        .unwrap_or_default()
                        .to_vec(),
                }
            }
            Some(Arm::Canonical) | None => {
                return Err(EngineError::WrongInput {
                    format: Format::Canonical,
                    input: "a provider record",
                });
            }
            Some(_) => self.provider_record(line, record),
        });
        Ok(self.keep(out))
    }

    /// Pushes a canonical event (a `canonical` trace, or no format yet); it counts as the
    /// next line.
    pub fn push_event(&mut self, event: Event, at: Option<Millis>) -> Result<Output, EngineError> {
        self.line += 1;
        self.seen_content = true;
        if self.arm.is_none() {
            self.start(self.options.format.unwrap_or(Format::Canonical));
        }
        if let Some(format) = self.format().filter(|f| *f != Format::Canonical) {
            return Err(EngineError::WrongInput {
                format,
                input: "a canonical event",
            });
        }
        let mut out = Output::default();
        let mut cx = Ctx::new(self.line, at, &mut self.snapshot, &mut out);
        cx.emit(event);
        Ok(self.keep(out))
    }

    /// The next instant (ms, the records' clock) at which a time rule fires if no record
    /// arrives first: the Claude continuation guard's 30 s wait.
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.arm {
            Some(Arm::Claude(adapter)) => adapter.deadline(),
            _ => None,
        }
    }

    /// Time has reached `now` (ms, the records' clock): every time rule due by then
    /// fires. Records with an `at` advance time the same way before they apply.
    pub fn handle_timeout(&mut self, now: Millis) -> Output {
        let out = self.timeouts(self.line, now);
        self.keep(out)
    }

    /// The trace ended: adapters and the checker report what is still pending (held
    /// records, incomplete cancels, unanswered requests) at the lines those concern.
    pub fn finish(mut self) -> Result<Replay, EngineError> {
        if self.arm.is_none() {
            let format = self.options.format.ok_or(EngineError::UnknownFormat)?;
            self.start(format);
        }
        let mut out = self.release_held();
        let mut cx = Ctx::new(self.line, None, &mut self.snapshot, &mut out);
        match &mut self.arm {
            Some(Arm::Codex(adapter)) => adapter.finish(&mut cx),
            Some(Arm::Claude(adapter)) => adapter.finish(&mut cx),
            Some(Arm::Acp(_) | Arm::Canonical) | None => {}
        }
        self.keep(out);
        Ok(self.into_replay(true))
    }

    /// The trace is cut here (as `--at`): the state as it stands, with no end-of-trace
    /// findings (nothing has ended).
    pub fn stop(mut self) -> Result<Replay, EngineError> {
        if self.arm.is_none() {
            let format = self.options.format.ok_or(EngineError::UnknownFormat)?;
            self.start(format);
        }
        let out = self.release_held();
        self.keep(out);
        Ok(self.into_replay(false))
    }

    fn into_replay(self, ended: bool) -> Replay {
        let format = self.format().unwrap_or(Format::Canonical);
        let (state, mut findings) = match self.arm {
            Some(Arm::Acp(checker)) if ended => {
                let (view, findings) = checker.finish();
                (State::Acp(view), findings)
            }
            Some(Arm::Acp(checker)) => (
                State::Acp(checker.view().clone()),
                checker.findings().to_vec(),
            ),
            _ => (State::Tree(self.snapshot), self.findings),
        };
        findings.sort_by_key(|f| f.line);
        Replay {
            format,
            header: self.header,
            state,
            findings,
            last_line: self.line,
            ended,
        }
    }

    fn set_header(&mut self, header: Header) {
        let field = |name: &str| header.fields.get(name);
        if self.options.codex_root_thread.is_none() {
            self.options.codex_root_thread = field("rootThreadId")
                .and_then(Value::as_str)
                .map(String::from);
        }
        if self.options.acp_protocol_version.is_none() {
            self.options.acp_protocol_version = field("protocolVersion").and_then(Value::as_u64);
        }
        let format = header.format;
        self.header = Some(header);
        self.start(format);
    }

    fn start(&mut self, format: Format) {
        let options = &self.options;
        self.arm = Some(match format {
            Format::Canonical => Arm::Canonical,
            Format::CodexAppServer => Arm::Codex(Box::new(CodexAdapter::new(
                options.codex_root_thread.as_deref(),
            ))),
            Format::ClaudeSdk => Arm::Claude(Box::new(ClaudeAdapter::new())),
            Format::Acp => Arm::Acp(Box::new(Checker::with_view_options(ViewOptions {
                transcripts: options.transcripts,
                header_version: options.acp_protocol_version,
            }))),
        });
    }

    /// Applies the lines held while the format was unknown.
    fn release_held(&mut self) -> Output {
        let mut out = Output::default();
        for (line, text) in self.detector.take() {
            out.append(self.line_record(line, &text));
        }
        out
    }

    /// One record line of the resolved format.
    fn line_record(&mut self, line: usize, text: &str) -> Output {
        let mut out = Output::default();
        match &mut self.arm {
            None => {}
            Some(Arm::Canonical) => {
                match trace::parse_line::<CanonicalRecord>(text, Format::Canonical) {
                    Ok((record, note)) => {
                        depth_note(&mut out, line, note);
                        let mut cx = Ctx::new(line, record.at, &mut self.snapshot, &mut out);
                        cx.emit(record.event);
                    }
                    Err(e) => {
                        out.findings
                            .push(Finding::new(line, Code::MalformedRecord, e.to_string()))
                    }
                }
            }
            Some(Arm::Acp(checker)) => {
                let before = checker.findings().len();
                match trace::parse_line::<Value>(text, Format::Acp) {
                    Ok((value, note)) => {
                        depth_note(&mut out, line, note);
                        checker.push_value(line, &value);
                    }
                    Err(e) => checker.malformed(line, e.to_string()),
                }
                let new = checker.findings().get(before..).unwrap_or_default();
                out.findings.extend(new.iter().cloned());
            }
            Some(Arm::Codex(_) | Arm::Claude(_)) => {
                let format = self.format().unwrap_or(Format::CodexAppServer);
                match providers::parse_record(text, format) {
                    Ok((record, note)) => {
                        depth_note(&mut out, line, note);
                        out.append(self.provider_record(line, record));
                    }
                    Err(e) => {
                        out.findings
                            .push(Finding::new(line, Code::MalformedRecord, e.to_string()))
                    }
                }
            }
        }
        out
    }

    /// A provider record through its adapter: time advances to its `at` first (time
    /// rules due by then fire), then the record applies, then every record the adapter
    /// released (held records whose owner became known) applies in order.
    fn provider_record(&mut self, line: usize, record: ProviderRecord) -> Output {
        let mut out = Output::default();
        if let Some(at) = record.at {
            out.append(self.timeouts(line, at));
        }
        let mut cx = Ctx::new(line, record.at, &mut self.snapshot, &mut out);
        match &mut self.arm {
            Some(Arm::Codex(adapter)) => {
                adapter.record(&mut cx, &record);
                while let Some((held_line, held)) = adapter.take_released() {
                    adapter.record(&mut cx.relocate(held_line, held.at), &held);
                }
            }
            Some(Arm::Claude(adapter)) => {
                adapter.record(&mut cx, &record);
                while let Some((held_line, held)) = adapter.take_released() {
                    adapter.record(&mut cx.relocate(held_line, held.at), &held);
                }
            }
            _ => {}
        }
        out
    }

    /// Fires every time rule due by `now`, reporting at `line`.
    fn timeouts(&mut self, line: usize, now: Millis) -> Output {
        let mut out = Output::default();
        if let Some(Arm::Claude(adapter)) = &mut self.arm
            && adapter.deadline().is_some_and(|d| now >= d)
        {
            let mut cx = Ctx::new(line, Some(now), &mut self.snapshot, &mut out);
            adapter.handle_timeout(&mut cx);
        }
        out
    }
}

/// Reports what a very deeply nested record did not keep (the record still applies).
fn depth_note(out: &mut Output, line: usize, note: Option<String>) {
    if let Some(note) = note {
        out.findings
            .push(Finding::new(line, Code::ValueDepthLimited, note));
    }
}

#[cfg(test)]
mod tests;
