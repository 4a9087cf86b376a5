//! The operations of the `lineage` command as functions that return their documents
//! instead of printing them: what the Node.js and Python bindings call.
//!
//! Owns: the inputs a binding hands over (a path or a trace's text), the options of
//! `replay`, `check` and `convert`, and one error type whose [`ErrorCode`] is stable.
//! Every document is the exact text the command prints for the same input and options.
//! Never: prints, exits or reads a clock; panics on input (a binding also catches any
//! panic at its boundary and reports [`ErrorCode::Internal`]).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, EngineError, Options, Replay};
use lineage_core::finding::{Finding, Revision};
use lineage_core::native::{self, Located, NativeReplay, Source};
use lineage_core::render;
use lineage_core::trace::Format;
use serde_json::Value;

use crate::check::{self, FileReport, Settings, formats};
use crate::{input, native_source};

pub use crate::convert::{ClientCaps, ConvertOptions, ConvertTarget, Converted, convert};

/// What went wrong, as a stable kebab-case code (a binding's `error.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A usage error: an option or argument that cannot be used (what the CLI exits 2 for).
    Usage,
    /// A path that cannot be read.
    Unreadable,
    /// No header, no format given, and no record that tells the format.
    UnknownFormat,
    /// An input with no record (nothing, or blank lines only).
    EmptyInput,
    /// An input that is not UTF-8 text at all (UTF-16).
    Encoding,
    /// Writing the result failed.
    Output,
    /// An engine used after `finish()`.
    Finished,
    /// A broken internal invariant (a panic caught at a binding's boundary).
    Internal,
}

impl ErrorCode {
    /// The code's stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Usage => "usage",
            ErrorCode::Unreadable => "unreadable",
            ErrorCode::UnknownFormat => "unknown-format",
            ErrorCode::EmptyInput => "empty-input",
            ErrorCode::Encoding => "encoding",
            ErrorCode::Output => "output",
            ErrorCode::Finished => "finished",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An input that cannot be processed at all (never a finding: findings are data).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What happened, for people.
    pub message: String,
}

impl Error {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// A reader's error text ([`input::each_line`]), by what it says.
    pub(crate) fn reading(message: String) -> Self {
        let code = match message.as_str() {
            input::EMPTY => ErrorCode::EmptyInput,
            input::UTF16 => ErrorCode::Encoding,
            _ => ErrorCode::Unreadable,
        };
        Self::new(code, message)
    }

    /// A native source's error: unreadable when the path is, a usage error otherwise
    /// (no such session tree, several trees and no choice).
    pub(crate) fn native(path: &Path, message: String) -> Self {
        if std::fs::metadata(path).is_err() {
            Self::new(ErrorCode::Unreadable, message)
        } else {
            Self::new(ErrorCode::Usage, message)
        }
    }
}

impl From<EngineError> for Error {
    fn from(e: EngineError) -> Self {
        let code = match e {
            EngineError::UnknownFormat(_) => ErrorCode::UnknownFormat,
            _ => ErrorCode::Usage,
        };
        Self::new(code, e.to_string())
    }
}

/// A trace handed to an operation: a path (a file, `-` for standard input, or a native
/// source) or the text of a trace.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// A path, as the command line takes it.
    Path(&'a Path),
    /// A trace's text (JSONL).
    Text(&'a str),
    /// A trace's bytes (JSONL; bytes that are not UTF-8 are an `invalid-utf8` finding at
    /// their line, as in a file).
    Bytes(&'a [u8]),
}

impl Input<'_> {
    /// The native source this input is, if it is one (a path, and no format given).
    pub(crate) fn native_path(&self, format: Option<Format>) -> Option<&Path> {
        match self {
            Input::Path(path) if format.is_none() && native_source::is_native(path) => Some(path),
            _ => None,
        }
    }

    /// Feeds each physical line's bytes to `each` until it breaks (see
    /// [`input::each_line`]).
    pub(crate) fn each_line<E>(
        &self,
        each: impl FnMut(&[u8]) -> ControlFlow<E>,
    ) -> Result<Option<E>, Error> {
        match self {
            Input::Path(path) => input::each_line(path, each),
            Input::Text(text) => input::each_line_in(text.as_bytes(), each),
            Input::Bytes(bytes) => input::each_line_in(*bytes, each),
        }
        .map_err(Error::reading)
    }
}

/// The options of `lineage replay`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// The trace format when it has no header (`--input-format`).
    pub format: Option<Format>,
    /// ACP: the RFD revision to check against (`--spec`).
    pub spec: Option<Revision>,
    /// A native source with several trees: the root to show (`--session`).
    pub session: Option<String>,
    /// Codex: the root thread id (else the header's, else the first thread started).
    pub root_thread: Option<String>,
    /// Cut after this physical line (`--at`): no end-of-trace findings.
    pub at: Option<usize>,
}

impl ReplayOptions {
    /// The engine's options for a trace (not a native source).
    pub fn engine(&self) -> Options {
        Options {
            format: self.format,
            acp_spec: self.spec,
            codex_root_thread: self.root_thread.clone(),
            ..Options::default()
        }
    }

    pub(crate) fn native(&self) -> native::Options {
        native::Options {
            until: self.at,
            acp_spec: self.spec,
            ..native::Options::default()
        }
    }
}

/// A document and whether its findings include an error (the command exits 1 then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The text the command prints.
    pub text: String,
    /// Whether a finding is at error level.
    pub errors: bool,
}

/// `lineage replay --format json`: the document it prints (pretty JSON and a newline).
pub fn replay_json(input: Input<'_>, options: &ReplayOptions) -> Result<Document, Error> {
    if let Some(path) = input.native_path(options.format) {
        let (source, index) = native_source::open(path, options.session.as_deref())
            .map_err(|e| Error::native(path, e))?;
        let mut replayed = native::replay(&source, index, options.native())?;
        replayed.findings.extend(source.findings.iter().cloned());
        let errors = any_error(replayed.findings.iter().map(|l| &l.finding));
        let text = native_json(&source, index, &mut replayed);
        return Ok(Document { text, errors });
    }
    let replay = replay_trace(input, options)?;
    let errors = any_error(&replay.findings);
    Ok(Document {
        text: render::json_string(&replay, true) + "\n",
        errors,
    })
}

/// A trace through the engine, to its end or cut at `options.at`.
pub fn replay_trace(input: Input<'_>, options: &ReplayOptions) -> Result<Replay, Error> {
    let mut engine = Engine::new(options.engine());
    let failed = input.each_line(|line| {
        if options.at.is_some_and(|stop| engine.line() >= stop) {
            return ControlFlow::Break(None);
        }
        match engine.push_bytes(line) {
            Ok(_) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(Some(e)),
        }
    })?;
    match failed {
        Some(Some(e)) => Err(e.into()),
        _ if options.at.is_some() => Ok(engine.stop()?),
        _ => Ok(engine.finish()?),
    }
}

fn any_error<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> bool {
    findings
        .into_iter()
        .any(|f| f.severity == lineage_core::Severity::Error)
}

/// The `replay --format json` document of a native source's tree: each diagnostic with
/// its `file`, and the `source` (the root and the files read). Moves the located
/// findings into the replay.
pub fn native_json(source: &Source, index: usize, replayed: &mut NativeReplay) -> String {
    let file = |l: &Located| source.files.get(l.file).cloned().unwrap_or_default();
    let located = &replayed.findings;
    let replay = &mut replayed.replay;
    replay.findings = located.iter().map(|l| l.finding.clone()).collect();
    let mut view = render::json(replay);
    if let Some(diagnostics) = view.get_mut("diagnostics").and_then(Value::as_array_mut) {
        for (d, l) in diagnostics.iter_mut().zip(located) {
            d["file"] = Value::String(file(l));
        }
    }
    if let (Some(obj), Some(stream)) = (view.as_object_mut(), source.streams.get(index)) {
        let files: Vec<Value> = stream
            .files
            .iter()
            .filter_map(|f| source.files.get(*f))
            .map(|p| Value::String(p.clone()))
            .collect();
        obj.insert(
            "source".into(),
            serde_json::json!({"root": stream.root, "files": files}),
        );
    }
    serde_json::to_string_pretty(&view).unwrap_or_default() + "\n"
}

/// `lineage replay --format changes`: every line of the change stream (each without its
/// newline), as the command writes them.
pub fn changes_lines(input: Input<'_>, options: &ReplayOptions) -> Result<Lines, Error> {
    let mut out = Vec::new();
    let errors = crate::changes::stream(input, options, &mut out)?;
    let text = String::from_utf8_lossy(&out);
    Ok(Lines {
        lines: text.lines().map(str::to_owned).collect(),
        errors,
    })
}

/// The lines of a stream and whether a finding among them is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lines {
    /// The lines, in order, without newlines.
    pub lines: Vec<String>,
    /// Whether a finding is at error level.
    pub errors: bool,
}

/// The report formats of `lineage check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReportFormat {
    /// rustc-style diagnostics, without colour.
    Human,
    /// The JSON contract (`check --format json`).
    Json,
    /// JUnit XML.
    Junit,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow commands.
    Github,
}

impl std::str::FromStr for ReportFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Ok(match s {
            "human" => ReportFormat::Human,
            "json" => ReportFormat::Json,
            "junit" => ReportFormat::Junit,
            "sarif" => ReportFormat::Sarif,
            "github" => ReportFormat::Github,
            _ => {
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!("unknown report format `{s}` (human, json, junit, sarif, github)"),
                ));
            }
        })
    }
}

/// The options of `lineage check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    /// The report to write.
    pub format: ReportFormat,
    /// Warnings fail too (`--deny-warnings`).
    pub deny_warnings: bool,
    /// ACP: the RFD revision to check against (`--spec`).
    pub spec: Option<Revision>,
}

/// A check's report and its outcome.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// The document the command prints.
    pub text: String,
    /// Whether it fails (an error, or a warning with `deny_warnings`): exit 1.
    pub fails: bool,
    /// The inputs that could not be checked (exit 2), with why.
    pub failures: Vec<(String, Error)>,
    /// Every file's report.
    pub files: Vec<FileReport>,
}

/// A trace to check: a path (walked as the command walks it) or a named text.
#[derive(Debug, Clone)]
pub enum CheckInput {
    /// A file, a folder or `-`.
    Path(PathBuf),
    /// A trace's text, reported under `name`.
    Text {
        /// The name the report gives it.
        name: String,
        /// The trace.
        text: String,
    },
}

/// `lineage check`: the report of these inputs in the chosen format.
pub fn check_report(inputs: &[CheckInput], options: CheckOptions) -> CheckReport {
    let settings = Settings {
        spec: options.spec,
        keep_lines: options.format == ReportFormat::Human,
    };
    let files: Vec<FileReport> = inputs
        .iter()
        .flat_map(|input| match input {
            CheckInput::Path(path) => check::check_path(path, settings),
            CheckInput::Text { name, text } => vec![check::check_text(name, text, settings)],
        })
        .collect();
    let text = match options.format {
        ReportFormat::Human => formats::human(&files, false),
        ReportFormat::Json => formats::json(&files),
        ReportFormat::Junit => formats::junit(&files, options.deny_warnings),
        ReportFormat::Sarif => formats::sarif(&files),
        ReportFormat::Github => formats::github(&files),
    };
    let failures = files
        .iter()
        .filter_map(|f| {
            let error = f.error.as_ref()?;
            let code = if error.starts_with(lineage_core::engine::UNKNOWN_FORMAT) {
                ErrorCode::UnknownFormat
            } else {
                Error::reading(error.clone()).code
            };
            Some((
                f.path.clone(),
                Error::new(code, format!("{}: {error}", f.path)),
            ))
        })
        .collect();
    CheckReport {
        fails: formats::fails(&files, options.deny_warnings),
        text,
        failures,
        files,
    }
}
