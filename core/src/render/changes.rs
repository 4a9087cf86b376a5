//! `replay --format changes`: the change stream, one JSON line per change or finding.
//!
//! Owns: the protocol a host in any language consumes while a trace is read (documented
//! in `docs/changes.md`, with the JSON Schema `docs/changes.schema.json`). Every line is
//! an object with `"v": 1`, the physical `line` whose reading produced it, and exactly
//! one of:
//!
//! - `start`: `{"format"}`, once, when the trace's format is known (before its first
//!   change or finding);
//! - `change`: one [`Change`], self-contained (a consumer folds them into its own copy of
//!   the tree);
//! - `finding`: one [`Finding`] (`line` inside it is the record it concerns, which for an
//!   end-of-trace finding is earlier than the outer `line`);
//! - `end`: the [`Summary`], always the last line.
//!
//! A record's changes come before its findings. Never: buffers a record's lines past the
//! record, or reads anything but the [`Output`] it is handed.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use crate::engine::{Output, Replay};
use crate::finding::Finding;
use crate::trace::Format;
use crate::tree::{Change, Severity};

/// The version every line carries (`"v"`); a consumer rejects a version it does not know.
pub const VERSION: u32 = 1;

/// One line of the stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamLine {
    /// Always [`VERSION`].
    pub v: u32,
    /// The physical line (or record) whose reading produced this line.
    pub line: usize,
    /// Native sources: the file a finding's `line` is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// What it says.
    #[serde(flatten)]
    pub item: Item,
}

/// What a stream line says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Item {
    /// The trace's format is known.
    Start {
        /// The format.
        format: Format,
    },
    /// One change.
    Change(Change),
    /// One finding.
    Finding(Finding),
    /// The end of the stream.
    End(Summary),
}

/// The last line: what the whole trace came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The trace's format.
    pub format: Format,
    /// The trace ended (`false`: cut by `--at`, so no end-of-trace findings).
    pub ended: bool,
    /// The last physical line read.
    pub lines: usize,
    /// How many findings of each level the stream carried.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Notes.
    pub notes: usize,
}

/// Writes an engine's outputs as stream lines, as they come.
///
/// ```
/// use lineage_core::engine::{Engine, Options};
/// use lineage_core::render::changes::ChangeWriter;
///
/// let mut engine = Engine::new(Options::default());
/// let mut writer = ChangeWriter::default();
/// let mut out = Vec::new();
/// for line in [
///     r#"{"event":{"type":"root_session_created","session":"R","title":"fix the build"}}"#,
///     r#"{"event":{"type":"user_submitted","session":"R","text":"go"}}"#,
/// ] {
///     let output = engine.push_line(line).unwrap();
///     writer.write(engine.format(), engine.line(), &output, &mut out).unwrap();
/// }
/// let end = engine.end().unwrap();
/// writer.write(engine.format(), engine.line(), &end, &mut out).unwrap();
/// writer.finish(&engine.finish().unwrap(), &mut out).unwrap();
/// let text = String::from_utf8(out).unwrap();
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[0], r#"{"v":1,"line":1,"start":{"format":"canonical"}}"#);
/// assert!(lines[1].contains(r#""change":{"type":"session_created","session":"R","kind":"root""#));
/// assert!(lines[1].contains(r#""title":"fix the build""#));
/// assert!(lines.last().unwrap().contains(r#""end":{"format":"canonical","ended":true,"lines":2"#));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ChangeWriter {
    started: bool,
    errors: usize,
    warnings: usize,
    notes: usize,
}

impl ChangeWriter {
    /// Writes the lines of one output (read at `line`), each followed by a newline; the
    /// `start` line first, once `format` is known. Returns how many lines it wrote (a
    /// live writer flushes when that is not zero).
    pub fn write(
        &mut self,
        format: Option<Format>,
        line: usize,
        output: &Output,
        mut w: impl Write,
    ) -> io::Result<usize> {
        let mut written = 0;
        if !self.started
            && let Some(format) = format
        {
            self.started = true;
            write_line(&mut w, line, Item::Start { format })?;
            written += 1;
        }
        for change in &output.changes {
            write_line(&mut w, line, ItemRef::Change(change))?;
        }
        for finding in &output.findings {
            self.count(finding);
            write_line(&mut w, line, ItemRef::Finding(finding))?;
        }
        Ok(written + output.changes.len() + output.findings.len())
    }

    /// Writes one finding of a native source, located in `file` (the stream line carries
    /// `"file"`; the finding's `line` is that file's line).
    pub fn write_finding_in(
        &mut self,
        line: usize,
        finding: &Finding,
        file: &str,
        mut w: impl Write,
    ) -> io::Result<()> {
        self.count(finding);
        let located = LineRef {
            v: VERSION,
            line,
            file: Some(file),
            item: ItemRef::Finding(finding),
        };
        serde_json::to_writer(&mut w, &located).map_err(io::Error::from)?;
        w.write_all(b"\n")
    }

    fn count(&mut self, finding: &Finding) {
        match finding.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Note => self.notes += 1,
        }
    }

    /// Writes the `end` line for the trace as it finished or stopped (the `start` line
    /// first, if no output ever said the format).
    pub fn finish(&mut self, replay: &Replay, mut w: impl Write) -> io::Result<()> {
        let line = replay.last_line;
        if !self.started {
            self.started = true;
            let format = replay.format;
            write_line(&mut w, line, Item::Start { format })?;
        }
        let summary = Summary {
            format: replay.format,
            ended: replay.ended,
            lines: line,
            errors: self.errors,
            warnings: self.warnings,
            notes: self.notes,
        };
        write_line(&mut w, line, Item::End(summary))
    }
}

/// A borrowed [`Item`], so a change is written without a copy.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum ItemRef<'a> {
    Change(&'a Change),
    Finding(&'a Finding),
}

#[derive(Serialize)]
struct LineRef<'a, T> {
    v: u32,
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(flatten)]
    item: T,
}

fn write_line(w: &mut impl Write, line: usize, item: impl Serialize) -> io::Result<()> {
    let line = LineRef {
        v: VERSION,
        line,
        file: None,
        item,
    };
    serde_json::to_writer(&mut *w, &line).map_err(io::Error::from)?;
    w.write_all(b"\n")
}
