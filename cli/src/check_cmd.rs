//! `lineage check <PATH>...`: run traces through the checker and report for people
//! (rustc-style) or CI (JSON contract, JUnit, SARIF 2.1.0, GitHub workflow commands).
//!
//! Every input goes through the engine: `acp` traces through the ACP conformance
//! checker, other formats report the findings of their replay. Exit codes: 0 clean, 1 an error (or, with
//! `--deny-warnings`, a warning), 2 a usage error or an unreadable or untellable path
//! (which every report format lists as a file with its error).

mod formats;
mod native;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use lineage_core::Severity;
use lineage_core::engine::{Engine, Options, UNKNOWN_FORMAT};
use lineage_core::finding::{Finding, Revision, Shapes};
use lineage_core::trace::Format;

use crate::{CheckArgs, CheckFormat, Exit, input, native_source, terminal, walk};

/// One checked file, or one that could not be checked.
pub(crate) struct FileReport {
    pub path: String,
    /// The trace's format (`None` when the file could not be read or told).
    pub format: Option<Format>,
    pub findings: Vec<Finding>,
    /// Why the file could not be checked (unreadable, untellable format).
    pub error: Option<String>,
    /// The file's lines, for snippets in human output.
    pub lines: Vec<String>,
    /// `acp` traces: the RFD revision checked against and the one whose shapes the
    /// stream follows.
    pub revision: Option<(Revision, Shapes)>,
}

impl FileReport {
    fn failed(path: &Path, error: String) -> Self {
        Self {
            path: path.display().to_string(),
            format: None,
            findings: Vec::new(),
            error: Some(error),
            lines: Vec::new(),
            revision: None,
        }
    }
}

pub(crate) fn run(args: &CheckArgs) -> Exit {
    if args.paths.iter().filter(|p| input::is_stdin(p)).count() > 1 {
        terminal::warn(
            "error: standard input (`-`) is given more than once; it can be read once (save it to a file to check it twice)",
        );
        return Exit::Usage;
    }
    let mut reports = Vec::new();
    for path in &args.paths {
        reports.extend(check_path(path, args));
    }
    for report in &reports {
        if let Some(error) = &report.error {
            terminal::warn(&format!("error: {}: {error}", report.path));
        }
    }
    let text = match args.format {
        CheckFormat::Human => formats::human(&reports, terminal::colors(args.color)),
        CheckFormat::Json => formats::json(&reports),
        CheckFormat::Junit => formats::junit(&reports, args.deny_warnings),
        CheckFormat::Sarif => formats::sarif(&reports),
        CheckFormat::Github => formats::github(&reports),
    };
    if let Err(e) = terminal::print(&text) {
        terminal::warn(&format!("error: standard output: {e}"));
        return Exit::Usage;
    }
    let fails = |f: &Finding| {
        f.severity == Severity::Error || (args.deny_warnings && f.severity == Severity::Warning)
    };
    if reports.iter().any(|r| r.error.is_some()) {
        Exit::Usage
    } else if reports.iter().flat_map(|r| &r.findings).any(fails) {
        Exit::Findings
    } else {
        Exit::Clean
    }
}

/// The reports of one argument: each trace on its own, in walk order, then the native
/// files (rollouts, transcripts, Zed logs) among them, read together as one native
/// source, in path order. In a folder that holds native files, a file whose format
/// cannot be told at all belongs to that source (`native-file-unrelated`), not to the
/// usage errors.
fn check_path(path: &Path, args: &CheckArgs) -> Vec<FileReport> {
    let mut reports = Vec::new();
    let mut native_files = Vec::new();
    let mut untold = Vec::new();
    for input in walk::inputs(std::slice::from_ref(&path.to_path_buf())) {
        match input {
            Ok(path) if native_source::kind(&path).is_some() => native_files.push(path),
            Ok(path) => match check_file(&path, args) {
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
    let files = native_source::with_metas(native_files);
    reports.extend(native::check(&files, args));
    reports
}

/// Checks one input through the engine (ACP transcripts off); keeps its lines only
/// when the report shows snippets.
fn check_file(path: &Path, args: &CheckArgs) -> Result<FileReport, String> {
    let keep_lines = args.format == CheckFormat::Human;
    let mut engine = Engine::new(Options {
        transcripts: false,
        view_changes: false,
        acp_spec: args.spec,
        ..Options::default()
    });
    let mut lines = Vec::new();
    let failed = input::each_line(path, |line| {
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
    let report = FileReport {
        path: path.display().to_string(),
        format: Some(replay.format),
        findings: std::mem::take(&mut replay.findings),
        error: None,
        lines,
        revision,
    };
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
