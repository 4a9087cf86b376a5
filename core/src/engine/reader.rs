//! What the engine reports about a line before any format reads it: bytes that are not
//! UTF-8, a record's `at` (out of range, or earlier than an earlier record's), headers
//! (an unknown version, a header after the first line) and, for a line its format
//! rejects, what it looks like instead.
//! Never: drops a line. Each finding is located at its line, and the line is still read
//! (with U+FFFD for invalid bytes, without a time for a bad `at`) whenever it can be.

use super::detect;
use crate::finding::{Code, Finding};
use crate::trace::{Format, Header, RecordError};
use crate::tree::Millis;

/// The `invalid-utf8` finding of a line whose first invalid byte is at `offset`.
pub(super) fn invalid_utf8(line: usize, offset: usize) -> Finding {
    Finding::new(
        line,
        Code::InvalidUtf8,
        format!(
            "the line is not valid UTF-8 (byte {} is the first invalid one); it is read with \
             U+FFFD in place of the invalid bytes",
            offset + 1
        ),
    )
}

/// The latest `at` read so far, and its line.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Clock {
    latest: Option<(Millis, usize)>,
}

impl Clock {
    /// The latest `at` read so far.
    pub(super) fn latest(&self) -> Option<Millis> {
        self.latest.map(|(at, _)| at)
    }

    /// Reads the `at` of the record at `line` (its time, or why it has none) and reports
    /// a bad one (`at-invalid`) or one earlier than the latest so far (`at-backwards`).
    pub(super) fn stamp(
        &mut self,
        line: usize,
        at: Option<Millis>,
        problem: Option<&str>,
        findings: &mut Vec<Finding>,
    ) {
        if let Some(why) = problem {
            findings.push(Finding::new(line, Code::AtInvalid, why));
        }
        let Some(at) = at else { return };
        match self.latest {
            Some((latest, at_line)) if at < latest => findings.push(Finding::new(
                line,
                Code::AtBackwards,
                format!(
                    "`at` {at} is earlier than {latest}, the `at` of line {at_line}; records \
                     are applied in line order"
                ),
            )),
            _ => self.latest = Some((at, line)),
        }
    }
}

/// The findings of a header line: at the first non-blank line, an unknown version or
/// why it is not a valid header; later, that a header is only allowed first.
pub(super) fn header_findings(
    line: usize,
    first_header: Option<usize>,
    is_first: bool,
    header: &Result<Header, RecordError>,
) -> Vec<Finding> {
    let malformed = |message: String| vec![Finding::new(line, Code::MalformedRecord, message)];
    match (is_first, header) {
        (true, Ok(h)) => h
            .version_problem()
            .map(|why| Finding::new(line, Code::UnknownHeaderVersion, why))
            .into_iter()
            .collect(),
        (true, Err(e)) => malformed(e.to_string()),
        (false, _) => malformed(match first_header {
            Some(first) => format!(
                "a second trace header (the first is line {first}); a header is only allowed as \
                 the first line, so this one is ignored"
            ),
            None => "a trace header after the first record; a header is only allowed as the \
                     first line, so this one is ignored"
                .to_owned(),
        }),
    }
}

/// Who declared the trace's format, for [`malformed`].
#[derive(Debug, Clone, Copy)]
pub(super) enum Declared {
    /// The header.
    Header(Format),
    /// The embedder's options (`--input-format`).
    Options(Format),
    /// Detected from the records: nothing to disagree with.
    Detected,
}

/// The `malformed-record` finding of a line its format rejects; when a header or the
/// options declared that format and the line looks like a record of another, says so.
pub(super) fn malformed(line: usize, e: &RecordError, declared: Declared, text: &str) -> Finding {
    malformed_as(line, e, declared, detect::from_line(text).ok())
}

/// [`malformed`] of a record that `looks` like a record of that format, if any.
pub(super) fn malformed_as(
    line: usize,
    e: &RecordError,
    declared: Declared,
    looks: Option<Format>,
) -> Finding {
    let mut message = e.to_string();
    let (who, format) = match declared {
        Declared::Header(f) => ("the header says", f),
        Declared::Options(f) => ("the format given is", f),
        Declared::Detected => return Finding::new(line, Code::MalformedRecord, message),
    };
    if let Some(looks) = looks.filter(|looks| *looks != format) {
        message.push_str(&format!(
            "; {who} `{format}`, but this record looks like `{looks}`"
        ));
    }
    Finding::new(line, Code::MalformedRecord, message)
}
