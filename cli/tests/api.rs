//! `lineage_cli::api`, the library the bindings call: every document it returns is the
//! exact text the `lineage` binary prints for the same input, over the whole corpus (the
//! scenario traces, the real programs' recordings and the native sources), from a path
//! and from the trace's text; and what cannot be processed is an error with its code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
use common::lineage;

use std::path::{Path, PathBuf};

use lineage_cli::api::{
    self, CheckInput, CheckOptions, ConvertOptions, ConvertTarget, ErrorCode, Input, ReplayOptions,
    ReportFormat,
};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `*.jsonl` trace under `traces/` (native sources included: each is a file the
/// binary reads as a native source when it is one).
fn corpus() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root().join("traces")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
    assert!(out.len() > 300, "the corpus is there: {}", out.len());
    out
}

fn stdout(args: &[&str]) -> (String, Option<i32>) {
    let out = lineage(args);
    (String::from_utf8(out.stdout).unwrap(), out.status.code())
}

fn exit(errors: bool) -> Option<i32> {
    Some(i32::from(errors))
}

#[test]
fn replay_json_and_changes_equal_the_binary_for_every_corpus_trace() {
    let options = ReplayOptions::default();
    for path in corpus() {
        let p = path.to_str().unwrap();
        let (text, code) = stdout(&["replay", p, "--format", "json"]);
        match api::replay_json(Input::Path(&path), &options) {
            Ok(doc) => {
                assert_eq!(doc.text, text, "{p}: replay --format json");
                assert_eq!(exit(doc.errors), code, "{p}");
            }
            Err(e) => assert_eq!(code, Some(2), "{p}: {e}"),
        }
        let (text, code) = stdout(&["replay", p, "--format", "changes"]);
        match api::changes_lines(Input::Path(&path), &options) {
            Ok(lines) => {
                let lines = lines.lines.join("\n") + "\n";
                assert_eq!(lines, text, "{p}: replay --format changes");
            }
            Err(e) => assert_eq!(code, Some(2), "{p}: {e}"),
        }
    }
}

#[test]
fn a_trace_given_as_text_replays_as_its_file_does() {
    let options = ReplayOptions::default();
    for path in corpus()
        .iter()
        .filter(|p| !p.starts_with(root().join("traces/real-native")))
    {
        if lineage_cli::native_source::is_native(path) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let from_path = api::replay_json(Input::Path(path), &options);
        let from_text = api::replay_json(Input::Text(&text), &options);
        assert_eq!(from_path, from_text, "{}", path.display());
    }
}

#[test]
fn check_reports_equal_the_binary_in_every_ci_format() {
    let dirs = ["traces/acp", "traces/real", "traces/real-native"];
    for dir in dirs {
        let path = root().join(dir);
        let p = path.to_str().unwrap();
        for (name, format) in [
            ("json", ReportFormat::Json),
            ("sarif", ReportFormat::Sarif),
            ("junit", ReportFormat::Junit),
            ("github", ReportFormat::Github),
        ] {
            let (text, code) = stdout(&["check", p, "--format", name]);
            let options = CheckOptions {
                format,
                deny_warnings: false,
                spec: None,
            };
            let report = api::check_report(&[CheckInput::Path(path.clone())], options);
            assert_eq!(report.text, text, "check {dir} --format {name}");
            assert!(report.failures.is_empty(), "{dir}");
            assert_eq!(exit(report.fails), code, "{dir}");
        }
    }
}

/// The binary's `convert` is [`api::convert`] of a path; a trace's text converts to the
/// same text, findings and outcome (the findings named `-`).
#[test]
fn a_trace_given_as_text_converts_as_its_file_does() {
    for dir in ["canonical", "codex", "claude"] {
        for path in corpus()
            .iter()
            .filter(|p| p.parent() == Some(&root().join("traces").join(dir)))
        {
            let text = std::fs::read_to_string(path).unwrap();
            for to in [
                ConvertTarget::AcpV1,
                ConvertTarget::AcpV2,
                ConvertTarget::Canonical,
                ConvertTarget::OtlpJson,
            ] {
                let options = ConvertOptions::to(to);
                let from_path = api::convert(Input::Path(path), &options);
                let from_text = api::convert(Input::Text(&text), &options);
                match (from_path, from_text) {
                    (Ok(p), Ok(t)) => {
                        assert_eq!(p.text, t.text, "{}", path.display());
                        assert_eq!(p.errors, t.errors, "{}", path.display());
                        let rules = |c: &api::Converted| -> Vec<_> {
                            c.findings.iter().map(|(_, f)| f.clone()).collect()
                        };
                        assert_eq!(rules(&p), rules(&t), "{}", path.display());
                    }
                    (Err(p), Err(t)) => assert_eq!(p.code, t.code, "{}", path.display()),
                    (p, t) => panic!("{}: {p:?} but {t:?}", path.display()),
                }
            }
        }
    }
}

#[test]
fn what_cannot_be_processed_is_an_error_with_its_code() {
    let options = ReplayOptions::default();
    let code = |input: Input<'_>| api::replay_json(input, &options).unwrap_err().code;
    assert_eq!(
        code(Input::Path(Path::new("/no/such/trace.jsonl"))),
        ErrorCode::Unreadable
    );
    assert_eq!(code(Input::Text("\n \n")), ErrorCode::EmptyInput);
    assert_eq!(
        code(Input::Text("{\"hello\":1}\n")),
        ErrorCode::UnknownFormat
    );
    let acp = root().join("traces/real/codex-acp");
    let first = std::fs::read_dir(&acp)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let converted = api::convert(
        Input::Path(&first),
        &ConvertOptions::to(ConvertTarget::AcpV1),
    );
    assert_eq!(converted.unwrap_err().code, ErrorCode::Usage);
    let report = api::check_report(
        &[CheckInput::Text {
            name: "t".into(),
            text: "{\"hello\":1}".into(),
        }],
        CheckOptions {
            format: ReportFormat::Json,
            deny_warnings: false,
            spec: None,
        },
    );
    assert_eq!(report.failures[0].1.code, ErrorCode::UnknownFormat);
    assert_eq!(
        "nope".parse::<ReportFormat>().unwrap_err().code,
        ErrorCode::Usage
    );
    assert_eq!(ErrorCode::UnknownFormat.as_str(), "unknown-format");
}
