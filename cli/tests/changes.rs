//! `lineage replay --format changes`: the live change stream. Every line validates
//! against the committed JSON Schema (`docs/changes.schema.json`) and reads back as a
//! `lineage_core` value; the stream opens with `start` and closes with `end`; a FIFO
//! written record by record gets each record's lines before the next record is written
//! (flushed per record), and the whole stream equals the one read from the file.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
use common::{lineage, lineage_with_stdin};

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use lineage_core::render::changes::{Item, StreamLine};
use serde_json::Value;

fn traces(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces")
        .join(rel)
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/changes.schema.json"),
    )
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft202012::options().build(&schema).unwrap()
}

/// The stream of `replay <path> --format changes`, checked line by line.
fn stream(path: &str) -> (Vec<String>, Option<i32>) {
    let out = lineage(&["replay", path, "--format", "changes"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    check_lines(path, &lines);
    (lines, out.status.code())
}

fn check_lines(name: &str, lines: &[String]) {
    let validator = validator();
    assert!(lines.len() >= 2, "{name}: {lines:?}");
    for (i, line) in lines.iter().enumerate() {
        let value: Value = serde_json::from_str(line).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {line}\n{errors:#?}");
        let read: StreamLine = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{name}: {line} does not read back: {e}"));
        let first = i == 0;
        let last = i + 1 == lines.len();
        match read.item {
            Item::Start { .. } => assert!(first, "{name}: start at line {i}"),
            Item::End(_) => assert!(last, "{name}: end at line {i}"),
            _ => assert!(!first && !last, "{name}: {line}"),
        }
    }
}

#[test]
fn every_corpus_trace_streams_lines_the_schema_accepts() {
    for path in jsonl_files(&[
        "canonical",
        "codex",
        "claude",
        "real/codex",
        "real/claude-code",
        "acp/scenarios",
        "acp/rules",
        "acp/view",
        "acp/revisions",
        "real/claude-agent-acp",
        "real/codex-acp",
    ]) {
        let (_, code) = stream(&path.display().to_string());
        assert!(
            matches!(code, Some(0 | 1)),
            "{}: exit {code:?}",
            path.display()
        );
    }
}

/// The `*.jsonl` files of these corpus folders, each folder's in path order.
fn jsonl_files(dirs: &[&str]) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(traces(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        all.extend(files);
    }
    all
}

#[test]
fn the_end_line_counts_the_findings_and_an_error_fails_the_run() {
    let path = traces("canonical/05-cancel-with-late-child-events.jsonl");
    let (lines, code) = stream(&path.display().to_string());
    let end: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let errors = lines
        .iter()
        .filter(|l| l.contains(r#""severity":"error""#))
        .count();
    assert_eq!(end["end"]["errors"], errors);
    assert_eq!(code, Some(i32::from(errors > 0)));
    // A trace whose every line is malformed: errors, and exit 1.
    let out = lineage_with_stdin(
        &[
            "replay",
            "-",
            "--format",
            "changes",
            "--input-format",
            "canonical",
        ],
        b"{\"event\":{\"type\":\"root_session_created\"}}\nnot json\n",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    check_lines("stdin", &lines);
    assert!(
        lines[1].contains(r#""rule":"malformed-record""#),
        "{lines:?}"
    );
    assert!(lines.last().unwrap().contains(r#""errors":2"#), "{lines:?}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_cut_with_at_has_no_end_of_trace_findings_and_says_it_did_not_end() {
    let path = traces("real/codex/01-one-child.jsonl")
        .display()
        .to_string();
    let (lines, _) = stream(&path);
    let out = lineage(&["replay", &path, "--format", "changes", "--at", "5"]);
    let cut: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    check_lines("cut", &cut);
    assert!(cut.last().unwrap().contains(r#""ended":false"#), "{cut:?}");
    // The cut's lines are the whole stream's lines up to line 5.
    let upto: Vec<&String> = lines
        .iter()
        .filter(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["line"].as_u64().unwrap() <= 5 && v.get("end").is_none()
        })
        .collect();
    assert_eq!(cut[..cut.len() - 1].iter().collect::<Vec<_>>(), upto);
}

/// Each record written into a FIFO gets its stream lines back before the next record is
/// written: the stream is flushed per record, so a host follows a live run.
#[test]
fn a_fifo_written_record_by_record_is_streamed_live_and_equals_the_file_run() {
    let path = traces("real/codex/01-one-child.jsonl");
    let (expected, _) = stream(&path.display().to_string());
    let text = std::fs::read_to_string(&path).unwrap();
    let dir = common::scratch("changes-fifo");
    let fifo = dir.join("live.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(["replay", &fifo.display().to_string(), "--format", "changes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let mut got: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        writer.write_all(line.as_bytes()).unwrap();
        writer.write_all(b"\n").unwrap();
        writer.flush().unwrap();
        // Every expected line of this record (but the end) arrives before the next write.
        let n = i + 1;
        let due = expected
            .iter()
            .filter(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["line"].as_u64() == Some(n as u64) && v.get("end").is_none()
            })
            .count();
        for _ in 0..due {
            let line = rx
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("record {n}: a stream line did not arrive"));
            got.push(line);
        }
    }
    drop(writer);
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(20)) {
        got.push(line);
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(got, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `replay --format json` of every corpus trace and of native sources validates against
/// the committed schema of the documents (`docs/replay.schema.json`).
#[test]
fn replay_json_documents_validate_against_their_schema() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/replay.schema.json"),
    )
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::draft202012::options().build(&schema).unwrap();
    let mut paths = jsonl_files(&[
        "canonical",
        "codex",
        "claude",
        "acp/rules",
        "acp/scenarios",
        "real/codex",
        "real/claude-agent-acp",
    ]);
    paths.push(traces("real-native/codex/01-one-child"));
    paths.push(traces("real-native/claude-code/02-two-children/projects"));
    for path in paths {
        let shown = path.display().to_string();
        let out = lineage(&["replay", &shown, "--format", "json"]);
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{shown}: not JSON: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .take(5)
            .collect();
        assert!(errors.is_empty(), "{shown}: {errors:#?}");
    }
}
