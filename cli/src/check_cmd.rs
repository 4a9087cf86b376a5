//! `lineage check <PATH>...`: run traces through the checker and report for people
//! (rustc-style) or CI (JSON contract, JUnit, SARIF 2.1.0, GitHub workflow commands).
//!
//! `acp` traces go through the ACP conformance checker; other formats report the
//! findings of their replay. Exit codes: 0 clean, 1 an error (or, with
//! `--deny-warnings`, a warning), 2 a usage error or an unreadable or untellable path.

mod formats;

use std::path::{Path, PathBuf};

use lineage_core::Severity;
use lineage_core::replay::{self, Finding, Options};
use lineage_core::trace::{self, Format};

use crate::{CheckArgs, CheckFormat, Exit};

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
        match check_file(&path) {
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
        } else if path.is_file() {
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

fn check_file(path: &Path) -> Result<FileReport, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    // Bytes that are not UTF-8 are replaced, so such a line becomes a located finding.
    let text = String::from_utf8_lossy(&bytes);
    let format = sniff(&text).ok_or("cannot tell the trace format: add a header line")?;
    let findings = match format {
        Format::Acp => lineage_core::acp::replay::check(&text).findings,
        _ => {
            let options = Options {
                format: Some(format),
                until_line: None,
            };
            replay::replay(&text, &options)
                .map_err(|e| e.to_string())?
                .findings
        }
    };
    Ok(FileReport {
        path: path.display().to_string(),
        format,
        findings,
        lines: text.lines().map(String::from).collect(),
    })
}

/// The header's format, else what the records look like.
fn sniff(text: &str) -> Option<Format> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match trace::parse_header(first.trim()) {
        Some(Ok(header)) => Some(header.format),
        _ => trace::detect_format(text),
    }
}
