//! What `lineage check <PATH>...` finds: traces run through the checker, one report per
//! file, and the report documents for people (rustc-style) or CI (JSON contract, JUnit,
//! SARIF 2.1.0, GitHub workflow commands).
//!
//! Every input goes through the engine: `acp` traces through the ACP conformance
//! checker, other formats report the findings of their replay. An unreadable or
//! untellable path is a report with its error (every report format lists it).
//! Never: prints or decides an exit code (the `check` command and the bindings do).

pub mod formats;
mod native;

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, Options, UNKNOWN_FORMAT};
use lineage_core::finding::{Finding, Revision, Shapes};
use lineage_core::trace::Format;

use crate::{input, native_source, walk};

/// How files are checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    /// ACP: the Subagent Sessions RFD revision to check against (`--spec`).
    pub spec: Option<Revision>,
    /// Keep the lines the findings point at (the `human` report shows them as snippets).
    pub keep_lines: bool,
}

/// One checked file, or one that could not be checked.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: String,
    /// The trace's format (`None` when the file could not be read or told).
    pub format: Option<Format>,
    pub findings: Vec<Finding>,
    /// Why the file could not be checked (unreadable, untellable format).
    pub error: Option<String>,
    /// The lines the findings point at, by line number (from 1), for the snippets of
    /// the human report; only those, so a long trace is not held in memory.
    pub lines: BTreeMap<usize, String>,
    /// `acp` traces: the RFD revision checked against and the one whose shapes the
    /// stream follows.
    pub revision: Option<(Revision, Shapes)>,
}

impl FileReport {
    pub(crate) fn failed(path: &Path, error: String) -> Self {
        Self {
            path: path.display().to_string(),
            format: None,
            findings: Vec::new(),
            error: Some(error),
            lines: BTreeMap::new(),
            revision: None,
        }
    }
}

/// The reports of every path, in order (see [`check_path`]).
pub fn check_paths(paths: &[PathBuf], settings: Settings) -> Vec<FileReport> {
    paths
        .iter()
        .flat_map(|path| check_path(path, settings))
        .collect()
}

/// The reports of one argument: each trace on its own, in walk order, then the native
/// files (rollouts, transcripts, Zed logs) among them, read together as one native
/// source, in path order. In a folder that holds native files, a file whose format
/// cannot be told at all belongs to that source (`native-file-unrelated`), not to the
/// usage errors. A Codex day folder's source also reads the next day's rollouts, as
/// `replay` does ([`native_source::SourceFiles`]): those of its trees' children are
/// reported with it, the trees rooted in the next day are not.
pub fn check_path(path: &Path, settings: Settings) -> Vec<FileReport> {
    let mut reports = Vec::new();
    let mut native_files = Vec::new();
    let mut untold = Vec::new();
    for input in walk::inputs(std::slice::from_ref(&path.to_path_buf())) {
        match input {
            Ok(path) if native_source::kind(&path).is_some() => native_files.push(path),
            Ok(path) => match check_file(&path, settings) {
                Ok(report) => reports.push(report),
                Err(error) if error.starts_with(UNKNOWN_FORMAT) => {
                    untold.push(reports.len());
                    reports.push(FileReport::failed(&path, error));
                }
                Err(error) => reports.push(FileReport::failed(&path, error)),
            },
            Err((path, error)) => reports.push(FileReport::failed(&path, error)),
        }
    }
    if native_files.is_empty() {
        return reports;
    }
    for &k in untold.iter().rev() {
        native_files.push(PathBuf::from(reports.remove(k).path));
    }
    // A folder is read as `replay` reads it (with the next day's rollouts, for the
    // children started after midnight); a file given on its own is checked alone.
    let files = if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        native_source::SourceFiles::of(path, native_files)
    } else {
        native_source::SourceFiles {
            own: native_source::with_metas(native_files),
            next_day: Vec::new(),
        }
    };
    reports.extend(native::check(&files, settings));
    reports
}

/// Checks one input through the engine (ACP transcripts off). When the report shows
/// snippets, a file is read again for the lines its findings point at; standard input,
/// which cannot be read twice, keeps its lines while it is checked.
fn check_file(path: &Path, settings: Settings) -> Result<FileReport, String> {
    let keep_while = settings.keep_lines && input::is_stdin(path);
    let name = path.display().to_string();
    let mut report = check_lines(&name, settings, keep_while, |each| {
        input::each_line(path, each)
    })?;
    if settings.keep_lines && !keep_while {
        report.lines = lines_at(&report.findings, |each| input::each_line(path, each));
    }
    Ok(report)
}

/// Checks a trace given as text, reported under `name`; blank text is an error, as an
/// empty file is.
pub fn check_text(name: &str, text: &str, settings: Settings) -> FileReport {
    let checked = check_lines(name, settings, false, |each| {
        input::each_line_in(text.as_bytes(), each)
    });
    match checked {
        Ok(mut report) => {
            if settings.keep_lines {
                report.lines = lines_at(&report.findings, |each| {
                    input::each_line_in(text.as_bytes(), each)
                });
            }
            report
        }
        Err(error) => FileReport::failed(Path::new(name), error),
    }
}

/// The lines `findings` point at, read again by `read` (a line that is not UTF-8 shown
/// with its bad bytes replaced).
fn lines_at(
    findings: &[Finding],
    read: impl FnOnce(&mut dyn FnMut(&[u8]) -> ControlFlow<()>) -> Result<Option<()>, String>,
) -> BTreeMap<usize, String> {
    let wanted: std::collections::BTreeSet<usize> = findings.iter().map(|f| f.line).collect();
    let Some(&last) = wanted.last() else {
        return BTreeMap::new();
    };
    let mut lines = BTreeMap::new();
    let mut number = 0;
    // A file that cannot be read again shows its findings without snippets.
    let _ = read(&mut |line| {
        number += 1;
        if wanted.contains(&number) {
            lines.insert(number, String::from_utf8_lossy(line).into_owned());
        }
        if number < last {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    });
    lines
}

/// Checks the lines `read` hands over, one by one, through the engine.
fn check_lines(
    name: &str,
    settings: Settings,
    keep_lines: bool,
    read: impl FnOnce(
        &mut dyn FnMut(&[u8]) -> ControlFlow<lineage_core::engine::EngineError>,
    ) -> Result<Option<lineage_core::engine::EngineError>, String>,
) -> Result<FileReport, String> {
    let mut engine = Engine::new(Options {
        transcripts: false,
        view_changes: false,
        acp_spec: settings.spec,
        ..Options::default()
    });
    let mut lines = Vec::new();
    let failed = read(&mut |line| {
        if keep_lines {
            lines.push(String::from_utf8_lossy(line).into_owned());
        }
        match engine.push_bytes(line) {
            Ok(_) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    })?;
    if let Some(e) = failed {
        return Err(e.to_string());
    }
    let mut replay = engine.finish().map_err(|e| e.to_string())?;
    let revision = replay.view().map(|v| (v.spec(), v.shapes()));
    let mut report = FileReport {
        path: name.to_owned(),
        format: Some(replay.format),
        findings: std::mem::take(&mut replay.findings),
        error: None,
        lines: BTreeMap::new(),
        revision,
    };
    if keep_lines {
        report.lines = lines_at(&report.findings, |each| {
            let _ = lines.iter().try_for_each(|line| each(line.as_bytes()));
            Ok(None)
        });
    }
    discard(replay);
    Ok(report)
}

/// Frees a file's final state on a thread of its own: freeing a long trace's view node by
/// node costs about a tenth of its check, and the next file (or the report) need not wait.
/// The process may end before the thread is done; the system takes the memory back.
fn discard<T: Send + 'static>(value: T) {
    // With no thread to spare, `spawn` drops the closure, and the value with it, here; a
    // handle that is never joined detaches its thread.
    let _detached = std::thread::Builder::new()
        .name("discard".into())
        .spawn(move || drop(value));
}
