//! The engine: one sans-I/O state machine for every trace format.
//!
//! Owns: the input side (text lines, parsed provider records, canonical events), the
//! header and the detection of a trace's format from its content, physical
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

mod conductor;
mod detect;
mod raw;
mod reader;

use std::borrow::Cow;

use serde_json::Value;

use crate::acp::recording;
use crate::acp::rules::Checker;
use crate::acp::view::{Head, View, ViewOptions};
pub use crate::output::Output;

use crate::finding::{Code, Finding, Revision};
use crate::providers::{
    self, Ctx, ProviderRecord, Rec, claude::ClaudeAdapter, codex::CodexAdapter,
};
use crate::trace::borrowed::JsonRead;
use crate::trace::{self, At, CanonicalRecord, Format, Header};
use crate::tree::{Change, Event, Millis, Snapshot};
use detect::{Detector, Held};
use raw::Sides;
use reader::{Clock, Declared};

/// What the engine needs that a trace header may also say. A header's format wins over
/// [`Options::format`] (which is for traces without one); of the other fields, one that is
/// set wins and the header fills those that are not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The format when the trace has no header (detected from content when `None`).
    pub format: Option<Format>,
    /// Codex: the root thread shown first (else the header's `rootThreadId`, else the
    /// first `thread/start` response or `turn/start` request). Every other root thread of
    /// the connection is folded too.
    pub codex_root_thread: Option<String>,
    /// Codex (`replay --session`): fold only the tree of this root thread; the records of
    /// the connection's other roots and their descendants are skipped.
    pub codex_session: Option<String>,
    /// ACP: the protocol version until an `initialize` response tells (else the
    /// header's `protocolVersion`).
    pub acp_protocol_version: Option<u64>,
    /// ACP: keep message content in the Client view (`replay`); `check` turns it off.
    pub transcripts: bool,
    /// ACP: the Subagent Sessions RFD revision to check against (`--spec`; else the
    /// header's `"spec"`, else 2026-09-24).
    pub acp_spec: Option<Revision>,
    /// Report the canonical events each input was normalized to ([`Output::events`]).
    pub record_events: bool,
    /// ACP: report what each record changed in the Client view ([`Output::changes`]);
    /// on by default, `check` turns it off (the conformance findings need none).
    pub view_changes: bool,
    /// Keep every finding for [`Engine::findings`] and the final [`Replay`] (on by
    /// default). Off, each finding is only in the [`Output`] that reports it, and the
    /// engine's memory does not grow with the findings of a stream that never ends
    /// (`lineage record --check` prints each as it comes).
    pub keep_findings: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            format: None,
            codex_root_thread: None,
            codex_session: None,
            acp_protocol_version: None,
            transcripts: true,
            acp_spec: None,
            record_events: false,
            view_changes: true,
            keep_findings: true,
        }
    }
}

/// How an [`EngineError::UnknownFormat`] message begins.
pub const UNKNOWN_FORMAT: &str = "cannot tell the trace format";

/// The input cannot be processed at all (a usage error, not a finding).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// No header, no [`Options::format`], and no record whose shape tells the format
    /// (within the first 50 records, or before the trace ended): which lines were read
    /// and why each told nothing.
    #[error("cannot tell the trace format: {0}; add a header line or pass --input-format")]
    UnknownFormat(Untold),
    /// This kind of input does not belong to the trace's format.
    #[error("{input} cannot be pushed into a `{format}` trace")]
    WrongInput {
        /// The trace's format.
        format: Format,
        /// What was pushed.
        input: &'static str,
    },
}

/// Why a trace's format could not be told: the records read and what each told.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Untold {
    /// How many records were read.
    pub records: usize,
    /// Each reason, in the order first met.
    pub reasons: Vec<UntoldReason>,
}

/// One reason records told no format, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntoldReason {
    /// Why.
    pub why: String,
    /// The first (at most three) physical lines that gave it.
    pub lines: Vec<usize>,
    /// How many lines gave it.
    pub count: usize,
}

impl Untold {
    /// The record at `line` told no format, because of `why`.
    fn note(&mut self, line: usize, why: String) {
        self.records += 1;
        match self.reasons.iter_mut().find(|r| r.why == why) {
            Some(reason) => {
                reason.count += 1;
                if reason.lines.len() < 3 {
                    reason.lines.push(line);
                }
            }
            None => self.reasons.push(UntoldReason {
                why,
                lines: vec![line],
                count: 1,
            }),
        }
    }
}

impl std::fmt::Display for Untold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.reasons.is_empty() {
            return f.write_str("no record was read");
        }
        for (i, reason) in self.reasons.iter().enumerate() {
            let lines: Vec<String> = reason.lines.iter().map(ToString::to_string).collect();
            let plural = if reason.count > 1 { "lines" } else { "line" };
            let sep = if i == 0 { "" } else { "; " };
            write!(f, "{sep}{plural} {}", lines.join(", "))?;
            if reason.count > reason.lines.len() {
                write!(f, " ({} in all)", reason.count)?;
            }
            write!(f, ": {}", reason.why)?;
        }
        Ok(())
    }
}

/// The state a trace folds into.
#[derive(Debug, Clone)]
pub enum State {
    /// The canonical session tree (canonical and provider formats).
    Tree(Snapshot),
    /// The Client's view of an ACP stream.
    Acp(Box<View>),
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
    /// Every finding but the ACP checker's (which it keeps itself).
    findings: Vec<Finding>,
    line: usize,
    seen_content: bool,
    /// The line of the header, when the trace has one.
    header_line: Option<usize>,
    clock: Clock,
    /// Who wrote each unenveloped message (`raw`).
    sides: Sides,
    /// Whether a conductor event of another hop was skipped (said once).
    conductor_skipped: bool,
    /// [`Engine::end`] was called.
    ended: bool,
    /// `acp`: the view-wide values as last reported in a change.
    acp_head: Option<Head>,
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
            header_line: None,
            clock: Clock::default(),
            sides: Sides::default(),
            conductor_skipped: false,
            ended: false,
            acp_head: None,
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

    /// The format an unenveloped message (a line as a program wrote it, without
    /// lineage's `from` envelope) tells by its shape, as detection reads it.
    ///
    /// ```
    /// use lineage_core::engine::Engine;
    /// use lineage_core::trace::Format;
    /// let m = serde_json::json!({"jsonrpc":"2.0","id":0,"method":"session/new","params":{}});
    /// assert_eq!(Engine::message_format(&m), Some(Format::Acp));
    /// ```
    pub fn message_format(message: &Value) -> Option<Format> {
        let obj = message.as_object()?;
        if obj.contains_key("from") || obj.contains_key("event") {
            return None;
        }
        detect::unenveloped(obj).ok()
    }

    /// The latest time the records' clock reached (`at`, ms), if any record had one.
    pub fn latest_time(&self) -> Option<Millis> {
        self.clock.latest()
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

    /// Every finding so far, in the order raised (a record's findings in line order;
    /// end-of-trace ones, from [`Engine::end`], point back at the records they concern).
    /// The [`Replay`] sorts them by line once.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Keeps a copy of an output's findings for the final [`Replay`], after adding the
    /// findings the ACP checker raised since it was last asked (it reports into a buffer
    /// the engine drains after every record, as the view leaves its changes).
    fn keep(&mut self, mut out: Output) -> Output {
        if let Some(Arm::Acp(checker)) = &mut self.arm {
            out.findings.extend(checker.take_findings());
        }
        if self.options.keep_findings {
            self.findings.extend(out.findings.iter().cloned());
        }
        out
    }

    /// How the trace's format was declared, for a malformed line's message.
    fn declared(&self) -> Declared {
        match (&self.header, self.options.format) {
            (Some(h), _) => Declared::Header(h.format),
            (None, Some(f)) => Declared::Options(f),
            (None, None) => Declared::Detected,
        }
    }

    /// Pushes the next physical line as the bytes read. Bytes that are not UTF-8 are
    /// reported at this line (`invalid-utf8`) and replaced by U+FFFD; the line is then
    /// read as [`Engine::push_line`] reads it, so the record still applies.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// let mut engine = Engine::new(Options::default());
    /// let out = engine.push_bytes(b"{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\xFF\"}}").unwrap();
    /// assert_eq!(out.findings[0].rule, "invalid-utf8");
    /// assert!(engine.snapshot().session(&"R\u{FFFD}".into()).is_some());
    /// ```
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<Output, EngineError> {
        let offset = match std::str::from_utf8(bytes) {
            Ok(text) => return self.push_line(text),
            Err(e) => e.valid_up_to(),
        };
        let finding = reader::invalid_utf8(self.line + 1, offset);
        if self.options.keep_findings {
            self.findings.push(finding.clone());
        }
        let mut out = self.push_line(&String::from_utf8_lossy(bytes))?;
        out.findings.insert(0, finding);
        Ok(out)
    }

    /// Pushes the next physical line of a trace (a header, a record or a blank line).
    /// Lines read before the format is known are held (at most 50 records) and applied
    /// once it is.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// use lineage_core::trace::Format;
    ///
    /// let mut engine = Engine::new(Options::default());
    /// engine.push_line("").unwrap(); // a blank line counts: line numbers are physical
    /// let out = engine.push_line(r#"{"event":{"type":"root_session_created","session":"R"}}"#).unwrap();
    /// assert_eq!(engine.format(), Some(Format::Canonical)); // told by its vocabulary
    /// assert!(!out.changes.is_empty());
    /// let out = engine.push_line("{oops").unwrap();
    /// assert_eq!((out.findings[0].line, out.findings[0].rule.as_str()), (3, "malformed-record"));
    /// ```
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
        if trace::may_be_header(text)
            && let Some(header) = trace::parse_header(text)
        {
            let findings = reader::header_findings(self.line, self.header_line, first, &header);
            if let (true, Ok(h)) = (first, header) {
                self.header_line = Some(self.line);
                self.set_header(h);
            }
            let out = Output {
                findings,
                ..Output::default()
            };
            return Ok(self.keep(out));
        }
        if self.arm.is_none() {
            match self
                .options
                .format
                .map_or_else(|| detect::from_line(text), Ok)
            {
                Ok(format) => self.start(format),
                Err(why) => {
                    return self
                        .detector
                        .hold(self.line, Held::Line(text.to_owned()), &why)
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
    /// as the next line, and reports what [`Engine::push_line`] reports for a line holding
    /// it: a `from` that is not one of the format's sides is a `malformed-record` (the
    /// record is not applied), a bad `at` (a record deserialized from a line keeps why)
    /// is `at-invalid`, an `at` earlier than an earlier record's is `at-backwards`. Before
    /// the format is known, a record that tells none (a client's response, say) is held
    /// like a line. A record without `at` does not move time (see
    /// [`Engine::poll_timeout`]).
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
        self.push_provider(Cow::Owned(record))
    }

    /// [`Engine::push_record`] of a record the caller keeps: every arm reads it in place
    /// (nothing is copied). The output is the same as pushing a copy.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// use lineage_core::providers::ProviderRecord;
    /// use lineage_core::trace::Format;
    /// use serde_json::json;
    ///
    /// let records = [ProviderRecord::new("cli", json!({"type":"system","subtype":"init","session_id":"S"}), Some(5))];
    /// let mut engine = Engine::new(Options { format: Some(Format::ClaudeSdk), ..Options::default() });
    /// for record in &records {
    ///     engine.push_record_ref(record).unwrap();
    /// }
    /// assert!(engine.snapshot().session(&"S".into()).is_some());
    /// ```
    pub fn push_record_ref(&mut self, record: &ProviderRecord) -> Result<Output, EngineError> {
        self.push_provider(Cow::Borrowed(record))
    }

    fn push_provider(&mut self, record: Cow<'_, ProviderRecord>) -> Result<Output, EngineError> {
        self.line += 1;
        self.seen_content = true;
        if self.arm.is_none() {
            let told = self
                .options
                .format
                .map_or_else(|| detect::from_record(&record.from, &record.message), Ok);
            match told {
                Ok(format) => self.start(format),
                Err(why) => {
                    let held = Held::Record(record.into_owned());
                    return self
                        .detector
                        .hold(self.line, held, &why)
                        .map(|()| Output::default());
                }
            }
        }
        let line = self.line;
        let mut out = self.release_held();
        out.append(self.record(line, record)?);
        Ok(self.keep(out))
    }

    /// One parsed record of the resolved format, read as a line holding it would be: its
    /// `at` is stamped (`at-invalid`, `at-backwards`), and a Codex or Claude record whose
    /// `from` is not one of the format's two sides is a `malformed-record`, not applied.
    fn record(
        &mut self,
        line: usize,
        record: Cow<'_, ProviderRecord>,
    ) -> Result<Output, EngineError> {
        let mut out = Output::default();
        let format = match self.arm.as_mut() {
            Some(Arm::Acp(checker)) => {
                let problem = record.at_problem();
                self.clock
                    .stamp(line, record.at, problem, &mut out.findings);
                checker.push_message(line, &record.from, &record.message);
                out.changes = view_changes(checker, &mut self.acp_head);
                return Ok(out);
            }
            Some(Arm::Canonical) | None => {
                return Err(EngineError::WrongInput {
                    format: Format::Canonical,
                    input: "a provider record",
                });
            }
            Some(Arm::Codex(_)) => Format::CodexAppServer,
            Some(Arm::Claude(_)) => Format::ClaudeSdk,
        };
        if let Err(e) = providers::check_side(format, &record.from) {
            let looks = detect::from_record(&record.from, &record.message).ok();
            let finding = reader::malformed_as(line, &e, self.declared(), looks);
            out.findings.push(finding);
            return Ok(out);
        }
        let problem = record.at_problem();
        self.clock
            .stamp(line, record.at, problem, &mut out.findings);
        out.append(self.provider_record(line, record));
        Ok(out)
    }

    /// Pushes a canonical event (a `canonical` trace, or no format yet); it counts as the
    /// next line.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, EngineError, Options};
    /// use lineage_core::trace::Format;
    /// use lineage_core::Event;
    ///
    /// let created: Event =
    ///     serde_json::from_value(serde_json::json!({"type":"root_session_created","session":"R"})).unwrap();
    /// let mut engine = Engine::new(Options::default());
    /// let out = engine.push_event(created.clone(), Some(1_000)).unwrap();
    /// assert!(!out.changes.is_empty());
    /// assert!(engine.snapshot().session(&"R".into()).is_some());
    ///
    /// let mut acp = Engine::new(Options { format: Some(Format::Acp), ..Options::default() });
    /// assert!(matches!(acp.push_event(created, None), Err(EngineError::WrongInput { .. })));
    /// ```
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
        self.clock.stamp(self.line, at, None, &mut out.findings);
        let mut cx = Ctx::new(self.line, at, &mut self.snapshot, &mut out)
            .recording(self.options.record_events);
        cx.emit(event);
        Ok(self.keep(out))
    }

    /// The next instant (ms, the records' clock) at which a time rule fires if no record
    /// arrives first: the Claude continuation guard's 30 s wait.
    ///
    /// Time comes only from records' `at`. A record without one neither advances time
    /// (no due rule fires at it) nor arms a deadline: a continuation reserved at such a
    /// record has no deadline, so this stays `None` and the reservation never times out;
    /// it ends only when the continuation's root output arrives or the root turn is
    /// canceled.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// use lineage_core::Phase;
    ///
    /// let mut engine = Engine::new(Options::default());
    /// for line in [
    ///     r#"{"lineage":"trace","format":"claude-sdk","version":1}"#,
    ///     r#"{"from":"host","message":{"type":"user","message":{"role":"user","content":"go"},"session_id":""},"at":1000}"#,
    ///     r#"{"from":"cli","message":{"type":"system","subtype":"init","session_id":"S"},"at":1001}"#,
    ///     r#"{"from":"cli","message":{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"prompt":"p","run_in_background":true}}]},"parent_tool_use_id":null,"session_id":"S"},"at":1002}"#,
    ///     r#"{"from":"cli","message":{"type":"system","subtype":"task_started","task_id":"k","tool_use_id":"t1","is_backgrounded":true,"session_id":"S"},"at":1003}"#,
    ///     r#"{"from":"cli","message":{"type":"result","subtype":"success","is_error":false,"session_id":"S"},"at":1004}"#,
    /// ] {
    ///     engine.push_line(line).unwrap();
    ///     assert_eq!(engine.poll_timeout(), None);
    /// }
    /// // The last background child completes: the root may continue, for 30 s.
    /// engine.push_line(r#"{"from":"cli","message":{"type":"system","subtype":"task_notification","task_id":"k","tool_use_id":"t1","status":"completed","session_id":"S"},"at":20000}"#).unwrap();
    /// assert_eq!(engine.poll_timeout(), Some(50_000));
    /// let phase = |e: &Engine| e.snapshot().session(&"S".into()).unwrap().turns[0].phase;
    /// assert_eq!(phase(&engine), Phase::Running);
    /// ```
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.arm {
            Some(Arm::Claude(adapter)) => adapter.deadline(),
            _ => None,
        }
    }

    /// Time has reached `now` (ms, the records' clock): every time rule due by then
    /// fires. Records with an `at` advance time the same way before they apply.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// use lineage_core::Phase;
    ///
    /// let mut engine = Engine::new(Options::default());
    /// for line in [
    ///     r#"{"lineage":"trace","format":"claude-sdk","version":1}"#,
    ///     r#"{"from":"host","message":{"type":"user","message":{"role":"user","content":"go"},"session_id":""},"at":1000}"#,
    ///     r#"{"from":"cli","message":{"type":"system","subtype":"init","session_id":"S"},"at":1001}"#,
    ///     r#"{"from":"cli","message":{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"prompt":"p","run_in_background":true}}]},"parent_tool_use_id":null,"session_id":"S"},"at":1002}"#,
    ///     r#"{"from":"cli","message":{"type":"system","subtype":"task_started","task_id":"k","tool_use_id":"t1","is_backgrounded":true,"session_id":"S"},"at":1003}"#,
    ///     r#"{"from":"cli","message":{"type":"result","subtype":"success","is_error":false,"session_id":"S"},"at":1004}"#,
    ///     r#"{"from":"cli","message":{"type":"system","subtype":"task_notification","task_id":"k","tool_use_id":"t1","status":"completed","session_id":"S"},"at":20000}"#,
    /// ] {
    ///     engine.push_line(line).unwrap();
    /// }
    /// let phase = |e: &Engine| e.snapshot().session(&"S".into()).unwrap().turns[0].phase;
    /// assert!(engine.handle_timeout(49_999).changes.is_empty()); // not due yet
    /// assert_eq!(phase(&engine), Phase::Running);
    /// let out = engine.handle_timeout(50_000); // no continuation came: the root settles
    /// assert!(!out.changes.is_empty());
    /// assert_eq!((phase(&engine), engine.poll_timeout()), (Phase::Settled, None));
    /// ```
    pub fn handle_timeout(&mut self, now: Millis) -> Output {
        let out = self.timeouts(self.line, now);
        self.keep(out)
    }

    /// The trace ended: adapters and the checker report what is still pending (held
    /// records, incomplete cancels, unanswered requests) at the lines those concern, and
    /// the changes that causes come back with those findings. Called once; a second call
    /// (and any push after it) finds nothing more to end and returns an empty output.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    /// let mut engine = Engine::new(Options::default());
    /// engine.push_line(r#"{"lineage":"trace","format":"claude-sdk","version":1}"#).unwrap();
    /// engine.push_line(r#"{"from":"cli","message":{"type":"system","subtype":"init","session_id":"S"}}"#).unwrap();
    /// let end = engine.end().unwrap();
    /// assert!(end.findings.is_empty());
    /// let replay = engine.finish().unwrap(); // the same state, ended
    /// assert!(replay.ended);
    /// ```
    pub fn end(&mut self) -> Result<Output, EngineError> {
        self.start_untold()?;
        if std::mem::replace(&mut self.ended, true) {
            return Ok(Output::default());
        }
        let mut out = self.release_held();
        let mut cx = Ctx::new(self.line, None, &mut self.snapshot, &mut out)
            .recording(self.options.record_events);
        match &mut self.arm {
            Some(Arm::Codex(adapter)) => adapter.finish(&mut cx),
            Some(Arm::Claude(adapter)) => adapter.finish(&mut cx),
            Some(Arm::Acp(checker)) => checker.end(),
            Some(Arm::Canonical) | None => {}
        }
        Ok(self.keep(out))
    }

    /// The trace ended ([`Engine::end`], if not called yet): the final state with every
    /// finding, end-of-trace ones included.
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    ///
    /// let mut engine = Engine::new(Options::default());
    /// for line in [
    ///     r#"{"lineage":"trace","format":"acp","version":1}"#,
    ///     r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}"#,
    ///     r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}"#,
    ///     r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A"}}}}"#,
    ///     r#"{"from":"agent","message":{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}}}"#,
    /// ] {
    ///     engine.push_line(line).unwrap();
    /// }
    /// let ended = engine.finish().unwrap();
    /// assert!(ended.ended);
    /// // Request 7 was still unanswered when the trace ended.
    /// assert_eq!((ended.findings[0].line, ended.findings[0].rule.as_str()), (5, "child-request-unanswered"));
    /// ```
    pub fn finish(mut self) -> Result<Replay, EngineError> {
        self.end()?;
        Ok(self.into_replay())
    }

    /// The trace is cut here (as `--at`): the state as it stands, with no end-of-trace
    /// findings (nothing has ended).
    ///
    /// ```
    /// use lineage_core::engine::{Engine, Options};
    ///
    /// let mut engine = Engine::new(Options::default());
    /// for line in [
    ///     r#"{"lineage":"trace","format":"acp","version":1}"#,
    ///     r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}"#,
    ///     r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}"#,
    ///     r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A"}}}}"#,
    ///     r#"{"from":"agent","message":{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}}}"#,
    /// ] {
    ///     engine.push_line(line).unwrap();
    /// }
    /// let cut = engine.clone().stop().unwrap();
    /// assert!(!cut.ended);
    /// assert!(cut.findings.is_empty()); // request 7 may still be answered
    /// assert!(cut.view().unwrap().session("A").is_some());
    /// assert_eq!(engine.finish().unwrap().findings.len(), 1); // what ending it would report
    /// ```
    pub fn stop(mut self) -> Result<Replay, EngineError> {
        self.start_untold()?;
        let out = self.release_held();
        self.keep(out);
        Ok(self.into_replay())
    }

    fn into_replay(self) -> Replay {
        let ended = self.ended;
        let format = self.format().unwrap_or(Format::Canonical);
        let mut findings = self.findings;
        let state = match self.arm {
            Some(Arm::Acp(checker)) => State::Acp(Box::new(checker.into_view())),
            _ => State::Tree(self.snapshot),
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
        if self.options.acp_spec.is_none() {
            self.options.acp_spec = field("spec")
                .and_then(Value::as_str)
                .and_then(|s| s.parse().ok());
        }
        if self.options.acp_protocol_version.is_none() {
            self.options.acp_protocol_version = field("protocolVersion").and_then(Value::as_u64);
        }
        let format = header.format;
        self.header = Some(header);
        self.start(format);
    }

    /// The trace ends (or is cut) before any record told its format: the arm of
    /// `Options::format`, or the error that says why none was told.
    fn start_untold(&mut self) -> Result<(), EngineError> {
        if self.arm.is_none() {
            let format = self
                .options
                .format
                .ok_or_else(|| EngineError::UnknownFormat(self.detector.untold()))?;
            self.start(format);
        }
        Ok(())
    }

    fn start(&mut self, format: Format) {
        let options = &self.options;
        self.arm = Some(match format {
            Format::Canonical => Arm::Canonical,
            Format::CodexAppServer => {
                let adapter = CodexAdapter::new(options.codex_root_thread.as_deref());
                Arm::Codex(Box::new(match &options.codex_session {
                    Some(session) => adapter.selecting(session),
                    None => adapter,
                }))
            }
            Format::ClaudeSdk => Arm::Claude(Box::new(ClaudeAdapter::new())),
            Format::Acp => Arm::Acp(Box::new(Checker::with_view_options(ViewOptions {
                transcripts: options.transcripts,
                header_version: options.acp_protocol_version,
                spec: options.acp_spec.unwrap_or_default(),
                changes: options.view_changes,
            }))),
        });
    }

    /// Applies the lines and records held while the format was unknown.
    fn release_held(&mut self) -> Output {
        let mut out = Output::default();
        for (line, held) in self.detector.take() {
            match held {
                Held::Line(text) => out.append(self.line_record(line, &text)),
                Held::Record(record) => match self.record(line, Cow::Owned(record)) {
                    Ok(applied) => out.append(applied),
                    // A canonical trace holds no provider record: its format is never
                    // detected from one.
                    Err(e) => {
                        out.findings
                            .push(Finding::new(line, Code::MalformedRecord, e.to_string()))
                    }
                },
            }
        }
        out
    }

    /// One record line of the resolved format.
    /// One record line of the resolved format (the ACP checker keeps its own findings).
    fn line_record(&mut self, line: usize, text: &str) -> Output {
        let mut out = Output::default();
        let declared = self.declared();
        match &mut self.arm {
            None => {}
            Some(Arm::Canonical) => {
                match trace::parse_line::<CanonicalRecord>(text, Format::Canonical) {
                    Ok((record, note)) => {
                        depth_note(&mut out, line, note);
                        let (at, problem) = (record.at, record.at_problem.as_deref());
                        self.clock.stamp(line, at, problem, &mut out.findings);
                        let mut cx = Ctx::new(line, record.at, &mut self.snapshot, &mut out)
                            .recording(self.options.record_events);
                        cx.emit(record.event);
                    }
                    Err(e) => out
                        .findings
                        .push(reader::malformed(line, &e, declared, text)),
                }
            }
            Some(Arm::Acp(_)) => out.append(self.acp_line(line, text)),
            Some(Arm::Codex(_) | Arm::Claude(_)) => {
                let format = self.format().unwrap_or(Format::CodexAppServer);
                // A record is read in place; anything that path does not accept takes the
                // ordinary one, which reads and reports it.
                if let Some(record) = providers::LineRecord::decode(text, format) {
                    let problem = record.at_problem.as_deref();
                    self.clock
                        .stamp(line, record.at, problem, &mut out.findings);
                    out.append(self.record_in_place(line, text, &record));
                    return out;
                }
                match providers::parse_record(text, format) {
                    Ok((record, note)) => {
                        depth_note(&mut out, line, note);
                        let problem = record.at_problem();
                        self.clock
                            .stamp(line, record.at, problem, &mut out.findings);
                        out.append(self.provider_record(line, Cow::Owned(record)));
                    }
                    Err(e) => match self.raw_record(format, text) {
                        Some(record) => {
                            out.append(self.provider_record(line, Cow::Owned(record)));
                        }
                        None => out
                            .findings
                            .push(reader::malformed(line, &e, declared, text)),
                    },
                }
            }
        }
        out
    }

    /// One line of an `acp` trace: a conductor event or an unenveloped message becomes the
    /// record it carries (a line of an ACP adapter's test recording, the Agent message it
    /// records); its `at` is stamped, then the checker reads it (and keeps its
    /// own findings).
    fn acp_line(&mut self, line: usize, text: &str) -> Output {
        let mut out = Output::default();
        let Some(Arm::Acp(checker)) = &mut self.arm else {
            return out;
        };
        // The common record, decoded without a `Value` of its envelope and message; any
        // other line takes the `Value` path below, which reads it the same way.
        if let Some(record) = crate::acp::wire::Line::decode(text) {
            let at = record.at.as_ref().map_or(At::Absent, At::read);
            let (at, problem) = at.split();
            self.clock
                .stamp(line, at, problem.as_deref(), &mut out.findings);
            // A bad `at` is reported once (`at-invalid`): the record applies without it.
            let at = record.at.as_ref().filter(|_| problem.is_none());
            checker.push_decoded(line, &record, at);
            out.changes = view_changes(checker, &mut self.acp_head);
            return out;
        }
        match trace::parse_value_line(text, Format::Acp) {
            Ok((value, note)) => {
                depth_note(&mut out, line, note);
                let value = if conductor::is_event(&value) {
                    match conductor::record(&value) {
                        Some(record) => record,
                        None => {
                            if !std::mem::replace(&mut self.conductor_skipped, true) {
                                out.findings.push(Finding::new(
                                    line,
                                    Code::NativeRecordSkipped,
                                    CONDUCTOR_SKIPPED,
                                ));
                            }
                            return out;
                        }
                    }
                } else if let Some(obj) = value.as_object().filter(|o| recording::is_line(o)) {
                    // An ACP adapter's test recording: the Agent's messages only.
                    checker.push_recorded(line, obj);
                    out.changes = view_changes(checker, &mut self.acp_head);
                    return out;
                } else {
                    value
                };
                // An unenveloped JSON-RPC message: its side is read from it.
                let value = if raw::is_message_of(Format::Acp, &value) {
                    let from = self.sides.infer(Format::Acp, &value);
                    // Built member by member: `json!` would respell the message's
                    // numbers (it converts through serde_json's serializer).
                    let mut record = serde_json::Map::new();
                    record.insert("from".to_owned(), Value::from(from));
                    record.insert("message".to_owned(), value);
                    Value::Object(record)
                } else {
                    value
                };
                let at = value.get("at").map_or(At::Absent, At::read);
                let (at, problem) = at.split();
                self.clock
                    .stamp(line, at, problem.as_deref(), &mut out.findings);
                // A bad `at` is reported once (`at-invalid`), and the record applies
                // without a time, as a parsed record does.
                let mut value = value;
                if let (Some(_), Some(obj)) = (&problem, value.as_object_mut()) {
                    obj.shift_remove("at");
                }
                checker.push_value(line, &value);
                out.changes = view_changes(checker, &mut self.acp_head);
            }
            Err(e) => checker.malformed(line, e.to_string()),
        }
        out
    }

    /// An unenveloped message of `format` (no `from`), with the side that wrote it.
    fn raw_record(&mut self, format: Format, text: &str) -> Option<ProviderRecord> {
        let (value, _) = trace::parse_value_line(text, format).ok()?;
        raw::is_message_of(format, &value).then(|| {
            let from = self.sides.infer(format, &value);
            ProviderRecord::new(from, value, None)
        })
    }

    /// A provider record through its adapter: time advances to its `at` first (time
    /// rules due by then fire), then the record applies, then every record the adapter
    /// released (held records whose owner became known) applies in order. The Codex
    /// adapter then keeps the record (moved when the engine owns it) to tell a capture's
    /// duplicate of it.
    fn provider_record(&mut self, line: usize, record: Cow<'_, ProviderRecord>) -> Output {
        let out = self.apply_record(line, record.view(), None);
        if let Some(Arm::Codex(adapter)) = &mut self.arm {
            adapter.remember(record.into_owned());
        }
        out
    }

    /// A provider record read in place from its line, as [`Engine::provider_record`]
    /// applies a parsed one; the Codex adapter keeps the line's text instead.
    fn record_in_place(
        &mut self,
        line: usize,
        text: &str,
        record: &providers::LineRecord<'_>,
    ) -> Output {
        let out = self.apply_record(line, record.view(), Some(text));
        if let Some(Arm::Codex(adapter)) = &mut self.arm {
            adapter.remember_line(text);
        }
        out
    }

    /// The record (and `text`, its line, when read from one) through the provider arm,
    /// with the time rules due by its `at` first and the records it released after.
    fn apply_record<J: JsonRead>(
        &mut self,
        line: usize,
        record: Rec<'_, J>,
        text: Option<&str>,
    ) -> Output {
        let mut out = Output::default();
        if let Some(at) = record.at {
            out.append(self.timeouts(line, at));
        }
        let mut cx = Ctx::new(line, record.at, &mut self.snapshot, &mut out)
            .recording(self.options.record_events);
        match &mut self.arm {
            Some(Arm::Codex(adapter)) => {
                adapter.record(&mut cx, record, text);
                while let Some((held_line, held)) = adapter.take_released() {
                    adapter.normalize(&mut cx.relocate(held_line, held.at), held.view());
                }
            }
            Some(Arm::Claude(adapter)) => {
                adapter.record(&mut cx, record);
                while let Some((held_line, held)) = adapter.take_released() {
                    adapter.record(&mut cx.relocate(held_line, held.at), held.view());
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
            let mut cx = Ctx::new(line, Some(now), &mut self.snapshot, &mut out)
                .recording(self.options.record_events);
            adapter.handle_timeout(&mut cx);
        }
        out
    }
}

/// The note for the conductor events that are not on the Agent's hop.
const CONDUCTOR_SKIPPED: &str = "conductor trace: events between the Client and a proxy, between proxies, and MCP-over-ACP messages are not checked (this one and any later); the events to and from the Agent are";

/// The changes of the Client view since the last call (the view reports what it wrote;
/// `head` is what was last said of the view as a whole).
fn view_changes(checker: &mut Checker, head: &mut Option<Head>) -> Vec<Change> {
    let view = checker.view_mut();
    let changes = view.take_changes(head.as_ref());
    *head = Some(view.head());
    changes
}

/// Reports what a very deeply nested record did not keep (the record still applies).
fn depth_note(out: &mut Output, line: usize, note: Option<String>) {
    if let Some(note) = note {
        out.findings
            .push(Finding::new(line, Code::ValueDepthLimited, note));
    }
}

#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod tests;
