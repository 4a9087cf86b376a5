//! The `acp` line loop shared by `lineage replay`, `lineage check`, the corpus tests and
//! embedders: header handling, physical line numbers, the view and the findings.
//!
//! Owns: feeding lines to a [`Checker`] (which drives the [`View`]).
//! Never: reads files; every line read is either applied or reported.

use crate::replay::Finding;
use crate::trace::{self, Format, Header};

use super::rules::Checker;
use super::view::{View, ViewOptions};

/// The result of replaying or checking an `acp` trace.
#[derive(Debug, Clone)]
pub struct AcpReplay {
    /// The header, when the trace has one.
    pub header: Option<Header>,
    /// The Client's view after the last line read.
    pub view: View,
    /// Every finding, in line order.
    pub findings: Vec<Finding>,
    /// The last physical line read.
    pub last_line: usize,
}

/// Feeds an `acp` trace line by line.
///
/// ```
/// use lineage_core::acp::replay::AcpReplayer;
/// let mut r = AcpReplayer::new(true);
/// r.push_line(r#"{"lineage":"trace","format":"acp","version":1,"protocolVersion":1}"#);
/// r.push_line(r#"{"from":"transport","event":"disconnected"}"#);
/// let replay = r.finish(true);
/// assert!(!replay.view.connected());
/// assert_eq!(replay.view.version(), Some(1));
/// ```
#[derive(Debug, Clone)]
pub struct AcpReplayer {
    checker: Checker,
    header: Option<Header>,
    line: usize,
    seen_content: bool,
}

impl AcpReplayer {
    /// A replayer; `transcripts` keeps message content in the view (off for checking).
    pub fn new(transcripts: bool) -> Self {
        Self {
            checker: Checker::with_view_options(ViewOptions {
                transcripts,
                header_version: None,
            }),
            header: None,
            line: 0,
            seen_content: false,
        }
    }

    /// The physical number of the last line pushed.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The view so far.
    pub fn view(&self) -> &View {
        self.checker.view()
    }

    /// Applies the next physical line.
    pub fn push_line(&mut self, text: &str) {
        self.line += 1;
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let first = !self.seen_content;
        self.seen_content = true;
        if first && let Some(header) = trace::parse_header(text) {
            match header {
                Ok(h) if h.format == Format::Acp => {
                    let version = h.fields.get("protocolVersion").and_then(|v| v.as_u64());
                    self.checker.set_header_version(version);
                    self.header = Some(h);
                }
                Ok(h) => self.checker.malformed(
                    self.line,
                    format!("the header declares format `{}`, not `acp`", h.format),
                ),
                Err(e) => self.checker.malformed(self.line, e.to_string()),
            }
            return;
        }
        self.checker.push_line(self.line, text);
    }

    /// Ends the replay. With `end_of_trace`, the end-of-trace rules run (requests left
    /// pending, unconfirmed cancels, undecided mirrors); `--at` replays pass `false`.
    pub fn finish(self, end_of_trace: bool) -> AcpReplay {
        let (view, findings) = if end_of_trace {
            self.checker.finish()
        } else {
            let mut findings = self.checker.findings().to_vec();
            findings.sort_by_key(|f| f.line);
            (self.checker.view().clone(), findings)
        };
        AcpReplay {
            header: self.header,
            view,
            findings,
            last_line: self.line,
        }
    }
}

/// Checks a whole `acp` trace text (message content is not kept).
pub fn check(text: &str) -> AcpReplay {
    let mut r = AcpReplayer::new(false);
    for line in text.lines() {
        r.push_line(line);
    }
    r.finish(true)
}

/// Replays a whole `acp` trace text up to physical line `until_line` (the end-of-trace
/// rules run only when the whole text was read).
pub fn replay(text: &str, until_line: Option<usize>) -> AcpReplay {
    let mut r = AcpReplayer::new(true);
    let mut complete = true;
    for line in text.lines() {
        if until_line.is_some_and(|stop| r.line() >= stop) {
            complete = false;
            break;
        }
        r.push_line(line);
    }
    r.finish(complete)
}
