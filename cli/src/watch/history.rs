//! The fold behind `lineage watch`: one engine fed record by record, and the states it
//! passed through, kept for time travel.
//!
//! Owns: the engine, the frames (the tree or ACP view after each record that changed
//! something or raised a finding), the findings pane's entries in arrival order, and a
//! native source's incremental reading (the records already applied; a re-read whose
//! order still starts with them only applies the new ones, any other starts over).
//! Never: does I/O or reads a clock. A frame is an O(1) clone of a persistent snapshot,
//! so keeping one per record costs what the record changed, not a copy of the tree.

use std::collections::BTreeMap;

use lineage_core::acp::view::View;
use lineage_core::engine::{Engine, Options, Output};
use lineage_core::finding::{Finding, Revision};
use lineage_core::native::{Source, Stream};
use lineage_core::{Change, InteractionStatus, Millis, Severity, Snapshot};

/// The state shown for one point of the history.
#[derive(Debug, Clone)]
pub(crate) enum Shown {
    /// Nothing read yet (or the format is not known yet).
    Empty,
    /// The session tree (canonical and provider formats).
    Tree(Snapshot),
    /// The Client's view of an ACP stream.
    Acp(Box<View>),
}

/// One point of the history: the state after a record, and what was known by then.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// The physical line (for a native source, the record's position in the merged
    /// order) after which this is the state.
    pub line: usize,
    /// The state.
    pub state: Shown,
    /// The trace's clock by then (the latest `at`).
    pub at: Option<Millis>,
    /// How many entries of the findings pane existed by then.
    pub notes: usize,
}

/// One entry of the findings pane: a finding of the trace, located, or something the
/// watcher itself has to say (a truncated file, the program's standard error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    /// The file the line is in (a native source's file), when not the trace itself.
    pub file: Option<String>,
    /// The line concerned (0: none).
    pub line: usize,
    /// The finding's level and code; `None` for the watcher's own notices.
    pub rule: Option<(Severity, String)>,
    /// The text.
    pub message: String,
}

impl Note {
    fn finding(f: &Finding, file: Option<String>) -> Self {
        Self {
            file,
            line: f.line,
            rule: Some((f.severity, f.rule.to_string())),
            message: f.message.clone(),
        }
    }

    /// A notice of the watcher itself (not a finding of the trace).
    pub(crate) fn notice(message: impl Into<String>) -> Self {
        Self {
            file: None,
            line: 0,
            rule: None,
            message: message.into(),
        }
    }
}

/// A native source being followed: its stream as last read, and how far it applied.
#[derive(Debug, Clone)]
struct Native {
    files: Vec<String>,
    stream: Stream,
    applied: usize,
    reader: Vec<Note>,
}

/// The engine and every state it passed through.
#[derive(Debug, Clone)]
pub(crate) struct History {
    options: Options,
    engine: Engine,
    frames: Vec<Frame>,
    notes: Vec<Note>,
    native: Option<Native>,
    /// When each interaction (turn id, request) last became pending, on the trace's
    /// clock (read from the change stream).
    pending_since: BTreeMap<(String, String), Millis>,
    /// The engine was ended (the input ended): nothing more comes.
    ended: bool,
    /// The engine refused the input (a format it cannot tell): said once, then idle.
    failed: bool,
}

impl History {
    /// A history of an input read with `format` (a trace without header) and `spec`.
    pub(crate) fn new(format: Option<lineage_core::trace::Format>, spec: Option<Revision>) -> Self {
        let options = Options {
            format,
            acp_spec: spec,
            ..Options::default()
        };
        Self {
            engine: Engine::new(options.clone()),
            options,
            frames: vec![Frame {
                line: 0,
                state: Shown::Empty,
                at: None,
                notes: 0,
            }],
            notes: Vec::new(),
            native: None,
            pending_since: BTreeMap::new(),
            ended: false,
            failed: false,
        }
    }

    /// The frames, oldest first; the first is the empty state before any record.
    pub(crate) fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The findings pane's entries, in arrival order.
    pub(crate) fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// When each interaction last became pending (turn id, request), on the trace's clock.
    pub(crate) fn pending_since(&self) -> &BTreeMap<(String, String), Millis> {
        &self.pending_since
    }

    /// The last line read.
    pub(crate) fn last_line(&self) -> usize {
        self.engine.line()
    }

    /// The trace's format, once known.
    pub(crate) fn format(&self) -> Option<lineage_core::trace::Format> {
        self.engine.format()
    }

    /// Whether the input ended (a pipe closed, the recorded program exited).
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    /// A physical line of a trace.
    pub(crate) fn push_line(&mut self, bytes: &[u8]) {
        if self.ended || self.failed {
            return;
        }
        match self.engine.push_bytes(bytes) {
            Ok(out) => self.record(&out),
            Err(e) => self.fail(&e),
        }
    }

    /// The input ended: the end-of-trace findings (requests left pending, cancels never
    /// confirmed) and the changes they cause.
    pub(crate) fn end(&mut self) {
        if self.ended || self.failed {
            return;
        }
        self.ended = true;
        match self.engine.end() {
            Ok(out) => {
                let notes = self.locate(&out.findings);
                self.record_located(&out, notes);
            }
            Err(e) => self.fail(&e),
        }
    }

    /// Something the watcher has to say in the findings pane.
    pub(crate) fn notice(&mut self, message: impl Into<String>) {
        self.notes.push(Note::notice(message));
    }

    /// Starts over from an empty state (the file was truncated or replaced), keeping
    /// the findings pane (with `why` said in it).
    pub(crate) fn restart(&mut self, why: impl Into<String>) {
        let notes = std::mem::take(&mut self.notes);
        *self = Self {
            notes,
            ..Self::new(self.options.format, self.options.acp_spec)
        };
        self.notice(why);
    }

    fn fail(&mut self, e: &lineage_core::engine::EngineError) {
        self.failed = true;
        self.notice(format!("error: {e}"));
    }

    /// Keeps what one input caused: its findings in the pane, and a frame when it
    /// changed the state or raised a finding.
    fn record(&mut self, out: &Output) {
        let notes = out
            .findings
            .iter()
            .map(|f| Note::finding(f, None))
            .collect();
        self.record_located(out, notes);
    }

    /// [`History::record`] with the findings already located (`notes`).
    fn record_located(&mut self, out: &Output, notes: Vec<Note>) {
        self.notes.extend(notes);
        if let Some(at) = self.engine.latest_time() {
            for change in &out.changes {
                if let Change::InteractionChanged {
                    turn,
                    request,
                    status: InteractionStatus::Pending,
                    ..
                } = change
                {
                    self.pending_since
                        .insert((turn.to_string(), request.to_string()), at);
                }
            }
        }
        if out.changes.is_empty() && out.findings.is_empty() {
            return;
        }
        let state = match self.engine.view() {
            Some(view) => Shown::Acp(Box::new(view.clone())),
            None if self.engine.format().is_some() => Shown::Tree(self.engine.snapshot().clone()),
            None => Shown::Empty,
        };
        self.frames.push(Frame {
            line: self.engine.line(),
            state,
            at: self.engine.latest_time(),
            notes: self.notes.len(),
        });
    }

    /// What the native reader itself says about the source's files as last read (lines
    /// that are not records, what the source cannot hold): shown below the engine's
    /// findings, replaced at every read.
    pub(crate) fn reader_notes(&self) -> &[Note] {
        self.native.as_ref().map_or(&[], |n| n.reader.as_slice())
    }

    /// A native source, (re-)read: the stream of its tree `index`. Records already
    /// applied are skipped when the new order starts with them; otherwise the history
    /// starts over with the whole stream (said in the pane).
    pub(crate) fn push_native(&mut self, source: &Source, index: usize) {
        let Some(stream) = source.streams.get(index) else {
            return;
        };
        if self.ended || self.failed {
            return;
        }
        let continues = self.native.as_ref().is_some_and(|n| {
            n.stream.root == stream.root
                && n.stream.format == stream.format
                && stream.records.get(..n.applied) == n.stream.records.get(..n.applied)
        });
        if !continues {
            let spec = self.options.acp_spec;
            if self.native.is_some() {
                self.restart("new records of the source came before ones already shown: read again from its start");
            }
            self.options = Options {
                acp_spec: spec,
                ..stream.engine_options()
            };
            self.engine = Engine::new(self.options.clone());
            self.native = None;
        }
        let applied = self.native.as_ref().map_or(0, |n| n.applied);
        let reader = stream
            .findings
            .iter()
            .chain(&source.findings)
            .map(|l| Note::finding(&l.finding, source.files.get(l.file).cloned()))
            .collect();
        self.native = Some(Native {
            files: source.files.clone(),
            stream: stream.clone(),
            applied,
            reader,
        });
        for (k, (_, record)) in stream.records.iter().enumerate().skip(applied) {
            match self.engine.push_record_ref(record) {
                Ok(out) => {
                    let notes = self.locate(&out.findings);
                    self.record_located(&out, notes);
                }
                Err(e) => {
                    self.fail(&e);
                    break;
                }
            }
            if let Some(n) = self.native.as_mut() {
                n.applied = k + 1;
            }
        }
    }

    /// Findings of a native source's engine, each in its file at its line.
    fn locate(&self, findings: &[Finding]) -> Vec<Note> {
        let Some(native) = &self.native else {
            return findings.iter().map(|f| Note::finding(f, None)).collect();
        };
        findings
            .iter()
            .map(|f| {
                let at = native.stream.place(f.line);
                let mut note = Note::finding(f, native.files.get(at.file).cloned());
                note.line = at.line;
                note
            })
            .collect()
    }
}
