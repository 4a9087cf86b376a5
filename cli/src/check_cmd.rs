//! `lineage check <PATH>...`: run traces through the checker and report for people
//! (rustc-style) or CI (JSON contract, JUnit, SARIF 2.1.0, GitHub workflow commands).
//!
//! Every input goes through the engine: `acp` traces through the ACP conformance
//! checker, other formats report the findings of their replay. Exit codes: 0 clean, 1 an error (or, with
//! `--deny-warnings`, a warning), 2 a usage error or an unreadable or untellable path.

mod formats;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use lineage_core::Severity;
use lineage_core::engine::{Engine, Options};
use lineage_core::finding::Finding;
use lineage_core::trace::Format;

use crate::{CheckArgs, CheckFormat, Exit, input};

/// One checked file.
pub(crate) struct FileReport {
    pub path: String,
    pub format: Format,
    pub findings: Vec<Finding>,
    /// The file's lines, for snippets in human output.
    pub lines: Vec<String>,
}

pub(crate) fn run(args: &CheckArgs) -> Exit {
    let mut usage_error = false;
    let mut reports = Vec::new();
    for path in collect(&args.paths, &mut usage_error) {
        match check_file(&path, args.format == CheckFormat::Human) {
            Ok(report) => reports.push(report),
            Err(message) => {
                eprintln!("error: {}: {message}", path.display());
                usage_error = true;
            }
        }
    }
    let text = match args.format {
        CheckFormat::Human => formats::human(&reports),
        CheckFormat::Json => formats::json(&reports),
        CheckFormat::Junit => formats::junit(&reports, args.deny_warnings),
        CheckFormat::Sarif => formats::sarif(&reports),
        CheckFormat::Github => formats::github(&reports),
    };
    print!("{text}");
    let fails = |f: &Finding| {
        f.severity == Severity::Error || (args.deny_warnings && f.severity == Severity::Warning)
    };
    if usage_error {
        Exit::Usage
    } else if reports.iter().flat_map(|r| &r.findings).any(fails) {
        Exit::Findings
    } else {
        Exit::Clean
    }
}

/// The files to check: each file path as given, each directory walked (sorted,
/// recursively) for `*.jsonl`. A missing path is a usage error.
fn collect(paths: &[PathBuf], usage_error: &mut bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files, usage_error);
        } else if path.is_file() || input::is_stdin(path) {
            files.push(path.clone());
        } else {
            eprintln!("error: {}: no such file or directory", path.display());
            *usage_error = true;
        }
    }
    files
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, usage_error: &mut bool) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            *usage_error = true;
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, files, usage_error);
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            files.push(path);
        }
    }
}

/// Checks one input through the engine (ACP transcripts off); keeps its lines only
/// when the report shows snippets.
fn check_file(path: &Path, keep_lines: bool) -> Result<FileReport, String> {
    let mut engine = Engine::new(Options {
        transcripts: false,
        ..Options::default()
    });
    let mut lines = Vec::new();
    let failed = input::each_line(path, |line| {
        if keep_lines {
            lines.push(line.to_owned());
        }
        match engine.push_line(line) {
            Ok(_) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    })?;
    if let Some(e) = failed {
        return Err(e.to_string());
    }
    let replay = engine.finish().map_err(|e| e.to_string())?;
    Ok(FileReport {
        path: path.display().to_string(),
        format: replay.format,
        findings: replay.findings,
        lines,
    })
}
