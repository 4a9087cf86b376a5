//! `lineage check` of native files: the rollouts and transcripts of one argument read as
//! one native source, each session tree replayed, each finding reported under the file
//! that holds its line.

use std::path::PathBuf;

use lineage_core::native::{self, Located};

use super::FileReport;
use super::Settings;
use crate::native_source;

/// One report per file of the source (in path order); a file that could not be read is
/// a failed report.
pub(super) fn check(paths: &[PathBuf], settings: Settings) -> Vec<FileReport> {
    let keep_lines = settings.keep_lines;
    let (source, errors) = native_source::read(paths);
    let mut located: Vec<Located> = source.findings.clone();
    let mut formats = vec![None; source.files.len()];
    let mut revisions = vec![None; source.files.len()];
    for (index, stream) in source.streams.iter().enumerate() {
        for &file in &stream.files {
            if let Some(slot) = formats.get_mut(file) {
                *slot = Some(stream.format);
            }
        }
        let options = native::Options {
            acp_spec: settings.spec,
            transcripts_off: true,
            ..native::Options::default()
        };
        match native::replay(&source, index, options) {
            Ok(replayed) => {
                let revision = replayed.replay.view().map(|v| (v.spec(), v.shapes()));
                for &file in &stream.files {
                    if let Some(slot) = revisions.get_mut(file) {
                        *slot = revision;
                    }
                }
                located.extend(replayed.findings);
            }
            Err(e) => {
                let root = stream.files.first().copied().unwrap_or(0);
                let finding = lineage_core::finding::Finding::new(
                    1,
                    lineage_core::finding::Code::MalformedRecord,
                    e.to_string(),
                );
                located.push(Located {
                    file: root,
                    finding,
                });
            }
        }
    }
    let mut reports: Vec<FileReport> = source
        .files
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let mut findings: Vec<_> = located
                .iter()
                .filter(|l| l.file == index)
                .map(|l| l.finding.clone())
                .collect();
            findings.sort_by_key(|f| f.line);
            FileReport {
                path: path.clone(),
                format: formats.get(index).copied().flatten(),
                findings,
                error: None,
                lines: if keep_lines {
                    lines_of(path)
                } else {
                    Vec::new()
                },
                revision: revisions.get(index).copied().flatten(),
            }
        })
        .collect();
    reports.extend(
        errors
            .into_iter()
            .map(|(path, error)| FileReport::failed(&path, error)),
    );
    reports
}

/// A file's lines for snippets (read again: the source keeps its own copy).
fn lines_of(path: &str) -> Vec<String> {
    std::fs::read(path)
        .map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}
