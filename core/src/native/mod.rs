//! Native sources: the files the programs themselves keep on disk, read without lineage's
//! envelope or a header. A Codex `sessions` folder of rollout files, a Claude Code
//! project folder of transcripts: many files make one source, and one source may hold
//! several session trees (one per root).
//!
//! Owns: telling a native file's kind from its first record ([`kind_of`]); grouping the
//! files of a source into one [`Stream`] per root (children found by the links their own
//! records carry); translating each native record into the provider records the
//! adapters already read (a rollout becomes Codex app-server notifications, a transcript
//! Claude stream-json messages), in one order across files; and mapping every finding
//! back to the file and line it concerns ([`Place`]).
//! Never: reads a file (the caller hands in each file's path and text), invents what a
//! source does not hold (approvals are not in rollouts: a note says so), or drops a line
//! silently: a line that is not a record of its file's kind is a finding at that line.
//!
//! ```
//! use lineage_core::native::{self, File};
//!
//! let root = r#"{"timestamp":"2026-12-01T15:01:26.610Z","type":"session_meta","payload":{"id":"T1","source":"cli"}}
//! {"timestamp":"2026-12-01T15:01:26.611Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}
//! {"timestamp":"2026-12-01T15:01:26.700Z","type":"event_msg","payload":{"type":"item_completed","thread_id":"T1","turn_id":"u1","item":{"type":"UserMessage","id":"m1","content":[{"type":"text","text":"hi"}]}}}
//! {"timestamp":"2026-12-01T15:01:26.910Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"u1"}}
//! "#;
//! let source = native::read(&[File::new("rollout-T1.jsonl", root)]);
//! let replayed = native::replay(&source, 0, native::Options::default()).unwrap();
//! let tree = replayed.replay.snapshot().unwrap();
//! assert_eq!(tree.session(&"T1".into()).unwrap().turns.len(), 1);
//! ```

mod claude;
mod codex;
#[cfg(test)]
mod head_lines;
mod merge;
mod time;
mod zed;

use serde_json::Value;

use crate::engine::{Engine, EngineError, Options as EngineOptions, Output, Replay, Untold};
use crate::finding::{Code, Finding};
use crate::providers::ProviderRecord;
use crate::trace::Format;

pub use time::parse_timestamp;

/// One file of a native source: its path (as the caller names it; the reader looks at
/// the file name and its folder) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// The path, `/`-separated or as the platform writes it.
    pub path: String,
    /// The whole text of the file.
    pub text: String,
}

impl File {
    /// A file named `path` holding `text`.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            text: text.into(),
        }
    }

    /// The last component of the path.
    pub fn name(&self) -> &str {
        self.path
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(self.path.as_str())
    }
}

/// What kind of native file a file is, told from its first record (and its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A Codex rollout (`rollout-*.jsonl`: `{"timestamp","type","payload"}` records,
    /// the first a `session_meta`).
    CodexRollout,
    /// A Claude Code transcript (`<session>.jsonl` or `agent-<id>.jsonl`: records with
    /// `type`, `uuid`, `sessionId`).
    ClaudeTranscript,
    /// A Claude Code subagent's `agent-<id>.meta.json`.
    ClaudeMeta,
    /// Zed's ACP log ("Copy All Messages": a JSON array of `_direction`-tagged messages).
    ZedAcpLog,
}

impl Kind {
    /// The format of the provider records this kind is translated into.
    pub fn format(self) -> Format {
        match self {
            Kind::CodexRollout => Format::CodexAppServer,
            Kind::ClaudeTranscript | Kind::ClaudeMeta => Format::ClaudeSdk,
            Kind::ZedAcpLog => Format::Acp,
        }
    }
}

/// The kind of a native file, from its name and its beginning (`head`: at least its
/// first non-blank line; a Zed log is told from its first kilobytes); `None` for a
/// trace lineage reads line by line (enveloped or not) or an unrelated file.
///
/// ```
/// use lineage_core::native::{kind_of, Kind};
/// let rollout = r#"{"timestamp":"2026-12-01T15:01:26.610Z","type":"session_meta","payload":{"id":"T1"}}"#;
/// assert_eq!(kind_of("rollout-T1.jsonl", rollout), Some(Kind::CodexRollout));
/// assert_eq!(kind_of("zed.json", "[\n  {\n    \"_direction\": \"outgoing\","), Some(Kind::ZedAcpLog));
/// assert_eq!(kind_of("t.jsonl", r#"{"from":"client","message":{}}"#), None);
/// ```
pub fn kind_of(name: &str, head: &str) -> Option<Kind> {
    if name.ends_with(".meta.json") {
        return Some(Kind::ClaudeMeta);
    }
    let head = crate::trace::strip_bom(head);
    if zed::is_log(head) {
        return Some(Kind::ZedAcpLog);
    }
    let first_line = head.lines().find(|l| !l.trim().is_empty())?;
    let value: Value = crate::trace::json::parse_value(first_line.trim())
        .ok()?
        .value;
    let obj = value.as_object()?;
    if obj.contains_key("timestamp") && obj.contains_key("payload") && obj.contains_key("type") {
        return Some(Kind::CodexRollout);
    }
    // Transcript records name their session `sessionId` (stream-json says `session_id`);
    // a few record kinds exist only in transcripts and may come first.
    let kind = obj.get("type").and_then(Value::as_str);
    let claude = obj.contains_key("sessionId") && kind.is_some()
        || kind.is_some_and(|k| TRANSCRIPT_ONLY.contains(&k));
    claude.then_some(Kind::ClaudeTranscript)
}

/// Record kinds only Claude Code transcripts hold.
const TRANSCRIPT_ONLY: [&str; 6] = [
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "ai-title",
    "custom-title",
    "last-prompt",
];

/// The record kinds of one file a reader does not know, counted for one
/// `native-record-skipped` note at the first of them.
#[derive(Debug, Clone, Default)]
struct Skipped {
    counts: std::collections::BTreeMap<String, usize>,
    first: Option<usize>,
}

impl Skipped {
    /// A record of unknown `kind` at `line` was skipped.
    fn add(&mut self, line: usize, kind: &str) {
        *self.counts.entry(kind.to_owned()).or_default() += 1;
        self.first.get_or_insert(line);
    }

    /// The note for `file`, if anything was skipped.
    fn finding(&self, file: usize) -> Option<Located> {
        let line = self.first?;
        let kinds: Vec<String> = self
            .counts
            .iter()
            .map(|(k, n)| format!("`{k}` ({n})"))
            .collect();
        let message = format!(
            "records of kinds this reader does not know were skipped: {}",
            kinds.join(", ")
        );
        Some(Located {
            file,
            finding: Finding::new(line, Code::NativeRecordSkipped, message),
        })
    }
}

/// Where an input came from: the file (an index into [`Source::files`]) and its
/// physical, 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    /// Index into [`Source::files`].
    pub file: usize,
    /// Physical, 1-based line of that file.
    pub line: usize,
}

/// A finding located in a file of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file (index into [`Source::files`]).
    pub file: usize,
    /// The finding, its `line` the file's physical line.
    pub finding: Finding,
}

/// One session tree's inputs, in the order they apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// The format of the records.
    pub format: Format,
    /// The root session's id (the root thread, the root transcript's session).
    pub root: String,
    /// The files this tree was read from (indices into [`Source::files`]), root first.
    pub files: Vec<usize>,
    /// The provider records, each with the line it was read from.
    pub records: Vec<(Place, ProviderRecord)>,
    /// What the reader itself found: lines that are not records, links to files the
    /// source does not hold, what the source cannot say.
    pub findings: Vec<Located>,
}

/// A native source, read: its files and one stream per session tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Source {
    /// The path of each file, as handed in.
    pub files: Vec<String>,
    /// One stream per root, in the order of their root files.
    pub streams: Vec<Stream>,
    /// Findings about files that belong to no stream (unrelated files, children whose
    /// root is not in the source).
    pub findings: Vec<Located>,
}

/// Reads a native source: files of any native kind (a Codex sessions folder, a Claude
/// Code project folder, a mix), grouped into one stream per root. Files of no native
/// kind are reported (`native-file-unrelated`) and otherwise skipped.
///
/// ```
/// use lineage_core::native::{self, File};
///
/// let rollout = r#"{"timestamp":"2026-12-01T15:01:26.610Z","type":"session_meta","payload":{"id":"T1","source":"cli"}}
/// {"timestamp":"2026-12-01T15:01:26.611Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}
/// {"timestamp":"2026-12-01T15:01:26.700Z","type":"event_msg","payload":{"type":"item_completed","thread_id":"T1","turn_id":"u1","item":{"type":"UserMessage","id":"m1","content":[{"type":"text","text":"hi"}]}}}
/// {"timestamp":"2026-12-01T15:01:26.910Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"u1"}}
/// "#;
/// let source = native::read(&[File::new("rollout-T1.jsonl", rollout), File::new("notes.txt", "hi")]);
/// assert_eq!(source.streams.len(), 1);
/// assert_eq!((source.streams[0].root.as_str(), source.streams[0].records.len()), ("T1", 4));
/// assert_eq!((source.findings[0].file, source.findings[0].finding.rule.as_str()), (1, "native-file-unrelated"));
/// ```
pub fn read(files: &[File]) -> Source {
    let mut source = Source {
        files: files.iter().map(|f| f.path.clone()).collect(),
        ..Source::default()
    };
    let mut rollouts = Vec::new();
    let mut claude = Vec::new();
    let mut zed_logs = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let empty = file.text.trim().is_empty();
        match kind_of(file.name(), head(&file.text)) {
            Some(Kind::CodexRollout) => rollouts.push(index),
            Some(Kind::ClaudeTranscript | Kind::ClaudeMeta) => claude.push(index),
            Some(Kind::ZedAcpLog) => zed_logs.push(index),
            None => source.findings.push(unrelated(index, file, empty)),
        }
    }
    codex::read(files, &rollouts, &mut source);
    zed::read(files, &zed_logs, &mut source);
    claude::read(files, &claude, &mut source);
    source
}

/// The first kilobytes of a text (on a character boundary), for [`kind_of`].
pub fn head(text: &str) -> &str {
    let mut end = text.len().min(HEAD);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// How much of a file [`kind_of`] needs.
pub const HEAD: usize = 64 * 1024;

fn unrelated(index: usize, file: &File, empty: bool) -> Located {
    let why = if empty {
        "is empty"
    } else {
        "is not a Codex rollout, a Claude Code transcript or a Zed ACP log (its first record tells no native kind)"
    };
    Located {
        file: index,
        finding: Finding::new(
            1,
            Code::NativeFileUnrelated,
            format!("`{}` {why}; it is not read", file.name()),
        ),
    }
}

/// How a stream is replayed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Stop after this many records of the stream's order (`--at`), without end-of-trace
    /// findings; `None` reads them all.
    pub until: Option<usize>,
    /// Report the canonical events each record was normalized to.
    pub record_events: bool,
    /// ACP (a Zed log): the Subagent Sessions RFD revision to check against.
    pub acp_spec: Option<crate::finding::Revision>,
    /// ACP: keep the sessions' transcripts in the Client view (`check` turns it off).
    pub transcripts_off: bool,
}

/// A replayed stream: the replay (its findings' lines are those of their files) and
/// every finding with its file, the reader's included, in order.
#[derive(Debug, Clone)]
pub struct NativeReplay {
    /// The tree after the stream.
    pub replay: Replay,
    /// Every finding located in its file: the reader's and the engine's.
    pub findings: Vec<Located>,
    /// What the stream's end caused ([`Engine::end`]; empty when cut by `until`): its
    /// changes follow those handed to `observe`, and its findings are also in `findings`.
    pub end: Output,
}

/// Replays stream `index` of `source` through the engine (to its end, or cut after
/// [`Options::until`] records).
///
/// ```
/// use lineage_core::{native::{self, File}, Phase};
///
/// let rollout = r#"{"timestamp":"2026-12-01T15:01:26.610Z","type":"session_meta","payload":{"id":"T1","source":"cli"}}
/// {"timestamp":"2026-12-01T15:01:26.611Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}
/// {"timestamp":"2026-12-01T15:01:26.700Z","type":"event_msg","payload":{"type":"item_completed","thread_id":"T1","turn_id":"u1","item":{"type":"UserMessage","id":"m1","content":[{"type":"text","text":"hi"}]}}}
/// {"timestamp":"2026-12-01T15:01:26.910Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"u1"}}
/// "#;
/// let source = native::read(&[File::new("rollout-T1.jsonl", rollout)]);
/// let cut = native::replay(&source, 0, native::Options { until: Some(2), ..Default::default() }).unwrap();
/// let turn = |r: &native::NativeReplay| r.replay.snapshot().unwrap().session(&"T1".into()).unwrap().turns[0].phase;
/// assert!(!cut.replay.ended);
/// assert_eq!(turn(&cut), Phase::Submitted);
/// let whole = native::replay(&source, 0, native::Options::default()).unwrap();
/// assert_eq!(turn(&whole), Phase::Settled);
/// assert_eq!(whole.findings[0].finding.rule.as_str(), "native-source-limits"); // no approvals in rollouts
/// ```
pub fn replay(
    source: &Source,
    index: usize,
    options: Options,
) -> Result<NativeReplay, EngineError> {
    replay_observed(source, index, options, |_, _, _| {})
}

/// [`replay`], handing `observe` the engine, the output and the record after each
/// record (a timeline or a projection follows the replay this way).
///
/// ```
/// use lineage_core::native::{self, File};
///
/// let rollout = r#"{"timestamp":"2026-12-01T15:01:26.610Z","type":"session_meta","payload":{"id":"T1","source":"cli"}}
/// {"timestamp":"2026-12-01T15:01:26.611Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}
/// {"timestamp":"2026-12-01T15:01:26.700Z","type":"event_msg","payload":{"type":"item_completed","thread_id":"T1","turn_id":"u1","item":{"type":"UserMessage","id":"m1","content":[{"type":"text","text":"hi"}]}}}
/// {"timestamp":"2026-12-01T15:01:26.910Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"u1"}}
/// "#;
/// let source = native::read(&[File::new("rollout-T1.jsonl", rollout)]);
/// let mut changes = Vec::new();
/// native::replay_observed(&source, 0, native::Options::default(), |_, out, _| {
///     changes.push(out.changes.len());
/// }).unwrap();
/// assert_eq!(changes.len(), 4); // one call per provider record
/// assert!(changes[0] > 0); // the root session and its turn
/// ```
pub fn replay_observed(
    source: &Source,
    index: usize,
    options: Options,
    mut observe: impl FnMut(&Engine, &Output, &ProviderRecord),
) -> Result<NativeReplay, EngineError> {
    let stream = source
        .streams
        .get(index)
        .ok_or_else(|| EngineError::UnknownFormat(Untold::default()))?;
    let mut engine = Engine::new(EngineOptions {
        record_events: options.record_events,
        acp_spec: options.acp_spec,
        transcripts: !options.transcripts_off,
        view_changes: !options.transcripts_off,
        ..stream.engine_options()
    });
    let count = options
        .until
        .unwrap_or(usize::MAX)
        .min(stream.records.len());
    for (_, record) in stream.records.iter().take(count) {
        let out = engine.push_record_ref(record)?;
        observe(&engine, &out, record);
    }
    let end = if options.until.is_some() {
        Output::default()
    } else {
        engine.end()?
    };
    let mut replay = if options.until.is_some() {
        engine.stop()?
    } else {
        engine.finish()?
    };
    let mut findings: Vec<Located> = stream.findings.clone();
    for finding in &mut replay.findings {
        let at = stream.place(finding.line);
        finding.line = at.line;
        findings.push(Located {
            file: at.file,
            finding: finding.clone(),
        });
    }
    findings.sort_by_key(|l| (l.file, l.finding.line));
    Ok(NativeReplay {
        replay,
        findings,
        end,
    })
}

impl Stream {
    /// The engine options its records are read with (the format, the Codex root thread).
    pub fn engine_options(&self) -> EngineOptions {
        EngineOptions {
            format: Some(self.format),
            codex_root_thread: (self.format == Format::CodexAppServer).then(|| self.root.clone()),
            ..EngineOptions::default()
        }
    }

    /// The file and line of the stream's `position`th record (1-based, as the engine
    /// numbers the records it is given); the root file's first line when out of range.
    pub fn place(&self, position: usize) -> Place {
        position
            .checked_sub(1)
            .and_then(|k| self.records.get(k))
            .map_or(
                Place {
                    file: self.files.first().copied().unwrap_or(0),
                    line: 1,
                },
                |(p, _)| *p,
            )
    }
}

/// An object of `members` in order, each value moved in: the messages the readers make
/// (`json!` would copy each value by serializing it).
pub(super) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}
