//! Replay: trace text → the snapshot after each line, with located findings.
//!
//! Owns: the line loop shared by the CLI, the tests and embedders that replay captured
//! traces: header handling, format resolution, `malformed-record` findings, stopping
//! after a given physical line.
//! Never: reads files or stops at a bad line; every line read is either applied or
//! reported.

use crate::providers::{self, Sink, claude::ClaudeAdapter, codex::CodexAdapter};
use crate::trace::{self, Format, Header, RecordError};
use crate::tree::{Diagnostic, Event, Severity, Snapshot, Step};

/// Replay options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The format when the trace has no header (`--input-format`); detected from content
    /// when `None`.
    pub format: Option<Format>,
    /// Stop after this physical line (`--at`); the header is line 1.
    pub until_line: Option<usize>,
}

/// A located finding: a reducer diagnostic or a malformed record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Physical, 1-based line of the record concerned.
    pub line: usize,
    /// Stable kebab-case rule id.
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// What happened and what to fix.
    pub message: String,
}

impl Finding {
    pub(crate) fn from_diagnostic(line: usize, d: &Diagnostic) -> Self {
        Self {
            line,
            rule: d.code(),
            severity: d.severity(),
            message: d.to_string(),
        }
    }

    pub(crate) fn malformed(line: usize, e: &RecordError) -> Self {
        Self {
            line,
            rule: "malformed-record",
            severity: Severity::Error,
            message: e.to_string(),
        }
    }
}

/// The trace cannot be replayed at all (a usage error, not a finding).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// No header, no `--input-format`, and no record whose shape tells the format.
    #[error("cannot tell the trace format: add a header line or pass --input-format")]
    UnknownFormat,
    /// The format is recognised but this build cannot replay it yet.
    #[error("replaying `{0}` traces is not supported yet")]
    Unsupported(Format),
}

/// The result of a replay.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The trace's format.
    pub format: Format,
    /// The header, when the trace has one.
    pub header: Option<Header>,
    /// The snapshot after the last applied line.
    pub snapshot: Snapshot,
    /// Every finding, in line order.
    pub findings: Vec<Finding>,
    /// The last physical line read.
    pub last_line: usize,
}

/// Feeds a trace line by line. Use [`replay`] for whole texts.
///
/// ```
/// use lineage_core::replay::{Options, Replayer};
/// let mut r = Replayer::new(&Options::default());
/// r.push_line(r#"{"event":{"type":"root_session_created","session":"R"}}"#).unwrap();
/// r.push_line("{oops").unwrap();
/// let replay = r.finish().unwrap();
/// assert_eq!(replay.findings[0].line, 2);
/// assert_eq!(replay.findings[0].rule, "malformed-record");
/// ```
#[derive(Debug, Clone)]
pub struct Replayer {
    fallback: Option<Format>,
    format: Option<Format>,
    pipeline: Option<Pipeline>,
    header: Option<Header>,
    snapshot: Snapshot,
    findings: Vec<Finding>,
    line: usize,
    seen_content: bool,
}

impl Replayer {
    /// A replayer with these options (`until_line` is the caller's to enforce).
    pub fn new(options: &Options) -> Self {
        Self {
            fallback: options.format,
            format: None,
            pipeline: None,
            header: None,
            snapshot: Snapshot::new(),
            findings: Vec::new(),
            line: 0,
            seen_content: false,
        }
    }

    /// The snapshot so far.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The physical number of the last line pushed.
    pub fn line(&self) -> usize {
        self.line
    }

    /// Applies the next physical line. Calls `on_step` for each applied canonical event.
    pub fn push_line_with(
        &mut self,
        line: &str,
        mut on_step: impl FnMut(usize, &Event, &Step),
    ) -> Result<(), ReplayError> {
        self.line += 1;
        let text = line.trim();
        if text.is_empty() {
            return Ok(());
        }
        let first = !self.seen_content;
        self.seen_content = true;
        if first && let Some(header) = trace::parse_header(text) {
            match header {
                Ok(h) => {
                    self.format = Some(h.format);
                    self.header = Some(h);
                }
                Err(e) => self.findings.push(Finding::malformed(self.line, &e)),
            }
            return Ok(());
        }
        self.resolve_format(text)?;
        let Self {
            pipeline,
            snapshot,
            findings,
            line,
            ..
        } = self;
        let line = *line;
        let mut sink = Sink {
            snapshot,
            findings,
            on_step: &mut on_step,
        };
        match pipeline {
            None => {}
            Some(Pipeline::Canonical) => match trace::parse_canonical(text) {
                Ok(record) => sink.emit(line, record.at, record.event),
                Err(e) => sink.malformed(line, &e),
            },
            Some(Pipeline::Codex(adapter)) => {
                match providers::parse_record(text, Format::CodexAppServer, ["server", "client"]) {
                    Ok(record) => adapter.record(line, &record, &mut sink),
                    Err(e) => sink.malformed(line, &e),
                }
            }
            Some(Pipeline::Claude(adapter)) => {
                match providers::parse_record(text, Format::ClaudeSdk, ["cli", "host"]) {
                    Ok(record) => adapter.record(line, &record, &mut sink),
                    Err(e) => sink.malformed(line, &e),
                }
            }
        }
        Ok(())
    }

    /// Applies the next physical line.
    pub fn push_line(&mut self, line: &str) -> Result<(), ReplayError> {
        self.push_line_with(line, |_, _, _| {})
    }

    fn resolve_format(&mut self, line: &str) -> Result<(), ReplayError> {
        if self.pipeline.is_some() {
            return Ok(());
        }
        let format = match self.format {
            Some(f) => f,
            None => self
                .fallback
                .or_else(|| trace::detect_format(line))
                .ok_or(ReplayError::UnknownFormat)?,
        };
        self.format = Some(format);
        self.pipeline = Some(match format {
            Format::Canonical => Pipeline::Canonical,
            Format::CodexAppServer => {
                let root = self
                    .header
                    .as_ref()
                    .and_then(|h| h.fields.get("rootThreadId"))
                    .and_then(serde_json::Value::as_str);
                Pipeline::Codex(Box::new(CodexAdapter::new(root)))
            }
            Format::ClaudeSdk => Pipeline::Claude(Box::new(ClaudeAdapter::new())),
            other => return Err(ReplayError::Unsupported(other)),
        });
        Ok(())
    }

    /// Ends the replay: adapters report what is still pending (held records, incomplete
    /// cancels) at the lines those concern; findings come back in line order.
    pub fn finish(self) -> Result<Replay, ReplayError> {
        self.finish_with(|_, _, _| {})
    }

    /// [`Replayer::finish`], calling `on_step` for events applied while finishing.
    pub fn finish_with(
        mut self,
        mut on_step: impl FnMut(usize, &Event, &Step),
    ) -> Result<Replay, ReplayError> {
        let mut sink = Sink {
            snapshot: &mut self.snapshot,
            findings: &mut self.findings,
            on_step: &mut on_step,
        };
        match &mut self.pipeline {
            Some(Pipeline::Codex(adapter)) => adapter.finish(&mut sink),
            Some(Pipeline::Claude(adapter)) => adapter.finish(&mut sink),
            Some(Pipeline::Canonical) | None => {}
        }
        self.findings.sort_by_key(|f| f.line);
        let format = self
            .format
            .or(self.fallback)
            .ok_or(ReplayError::UnknownFormat)?;
        Ok(Replay {
            format,
            header: self.header,
            snapshot: self.snapshot,
            findings: self.findings,
            last_line: self.line,
        })
    }
}

/// How records of the resolved format reach the reducer.
#[derive(Debug, Clone)]
enum Pipeline {
    /// Canonical events, applied as they are.
    Canonical,
    /// Codex app-server messages through the Codex adapter.
    Codex(Box<CodexAdapter>),
    /// Claude stream-json messages through the Claude adapter.
    Claude(Box<ClaudeAdapter>),
}

/// Replays a whole trace text (up to `options.until_line`).
pub fn replay(text: &str, options: &Options) -> Result<Replay, ReplayError> {
    replay_with(text, options, |_, _, _| {})
}

/// Replays a whole trace text, calling `on_step` with the line, event and step of every
/// applied canonical event (tests use it to check invariants after each step).
pub fn replay_with(
    text: &str,
    options: &Options,
    mut on_step: impl FnMut(usize, &Event, &Step),
) -> Result<Replay, ReplayError> {
    let mut replayer = Replayer::new(options);
    if replayer.fallback.is_none() && trace::parse_header(first_non_blank(text)).is_none() {
        replayer.fallback = trace::detect_format(text);
    }
    for line in text.lines() {
        if options.until_line.is_some_and(|stop| replayer.line >= stop) {
            break;
        }
        replayer.push_line_with(line, &mut on_step)?;
    }
    replayer.finish_with(on_step)
}

fn first_non_blank(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}
