//! `lineage check` of native files: the rollouts and transcripts of one argument read as
//! one native source (with the next day's rollouts of a Codex day folder, as `replay`
//! reads it), each of its session trees replayed, each finding reported under the file
//! that holds its line.

use std::collections::BTreeMap;

use lineage_core::finding::{Code, Finding, Revision, Shapes};
use lineage_core::native::{self, Located, Source};
use lineage_core::trace::Format;

use super::FileReport;
use super::Settings;
use crate::native_source::{self, SourceFiles};

/// One report per file of the source (in path order): its own files, and the next day's
/// rollouts that belong to its trees; a file that could not be read is a failed report.
pub(super) fn check(files: &SourceFiles, settings: Settings) -> Vec<FileReport> {
    let (source, errors) = native_source::read(&files.all());
    let here = files.streams_in(&source);
    let mut reported = files.own_in(&source);
    for stream in here.iter().filter_map(|&k| source.streams.get(k)) {
        for &file in &stream.files {
            if let Some(slot) = reported.get_mut(file) {
                *slot = true;
            }
        }
    }
    let replayed = replay_trees(&source, &here, settings);
    let mut reports: Vec<FileReport> = source
        .files
        .iter()
        .enumerate()
        .filter(|(index, _)| reported.get(*index).copied().unwrap_or(false))
        .map(|(index, path)| replayed.report(index, path, settings.keep_lines))
        .collect();
    reports.extend(
        errors
            .into_iter()
            .map(|(path, error)| FileReport::failed(&path, error)),
    );
    reports
}

/// What replaying a source's trees found, by file.
struct Replayed {
    located: Vec<Located>,
    formats: Vec<Option<Format>>,
    revisions: Vec<Option<(Revision, Shapes)>>,
}

impl Replayed {
    /// The report of file `index` (at `path`).
    fn report(&self, index: usize, path: &str, keep_lines: bool) -> FileReport {
        let mut findings: Vec<_> = self
            .located
            .iter()
            .filter(|l| l.file == index)
            .map(|l| l.finding.clone())
            .collect();
        findings.sort_by_key(|f| f.line);
        let lines = if keep_lines {
            lines_at(path, &findings)
        } else {
            BTreeMap::new()
        };
        FileReport {
            path: path.to_owned(),
            format: self.formats.get(index).copied().flatten(),
            findings,
            error: None,
            lines,
            revision: self.revisions.get(index).copied().flatten(),
        }
    }
}

/// Replays the trees `here` of `source`: the source's findings, then each tree's.
fn replay_trees(source: &Source, here: &[usize], settings: Settings) -> Replayed {
    let mut out = Replayed {
        located: source.findings.clone(),
        formats: vec![None; source.files.len()],
        revisions: vec![None; source.files.len()],
    };
    for &index in here {
        let Some(stream) = source.streams.get(index) else {
            continue;
        };
        for &file in &stream.files {
            if let Some(slot) = out.formats.get_mut(file) {
                *slot = Some(stream.format);
            }
        }
        let options = native::Options {
            acp_spec: settings.spec,
            transcripts_off: true,
            ..native::Options::default()
        };
        match native::replay(source, index, options) {
            Ok(replayed) => {
                let revision = replayed.replay.view().map(|v| (v.spec(), v.shapes()));
                for &file in &stream.files {
                    if let Some(slot) = out.revisions.get_mut(file) {
                        *slot = revision;
                    }
                }
                out.located.extend(replayed.findings);
            }
            Err(e) => {
                let root = stream.files.first().copied().unwrap_or(0);
                let finding = Finding::new(1, Code::MalformedRecord, e.to_string());
                out.located.push(Located {
                    file: root,
                    finding,
                });
            }
        }
    }
    out
}

/// The lines of a file its findings point at, for snippets (read again: the source
/// keeps its own copy).
fn lines_at(path: &str, findings: &[Finding]) -> BTreeMap<usize, String> {
    let Ok(bytes) = std::fs::read(path) else {
        return BTreeMap::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    findings
        .iter()
        .filter_map(|f| Some((f.line, (*lines.get(f.line.checked_sub(1)?)?).to_owned())))
        .collect()
}
