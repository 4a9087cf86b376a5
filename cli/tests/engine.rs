//! End-to-end tests of what every command shares through the one engine: the finding
//! catalogue behind every printed code, SARIF rule indexes, standard input, `--at` as a
//! cut in every format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::{lineage, lineage_with_stdin};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

fn traces() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces")
}

/// Every `*.jsonl` file under `traces/`: the corpus and every native capture (raw
/// stream-json, Codex rollouts, Claude Code transcripts), each read as `lineage` reads it.
fn corpus_files() -> Vec<PathBuf> {
    let mut stack = vec![traces()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every code any command prints over the whole corpus (`check` of every file, `replay`
/// of every file, whole and cut) is explained by `lineage rules <code>`.
#[test]
fn every_code_printed_over_the_corpus_is_in_the_catalogue() {
    let mut codes = BTreeSet::new();
    let check = json(&lineage(&[
        "check",
        traces().to_str().unwrap(),
        "--format",
        "json",
    ]));
    for file in check["files"].as_array().unwrap() {
        for f in file["findings"].as_array().unwrap() {
            codes.insert(f["rule"].as_str().unwrap().to_owned());
        }
    }
    for path in corpus_files() {
        let path = path.to_str().unwrap();
        for args in [
            vec!["replay", path, "--format", "json"],
            vec!["replay", path, "--format", "json", "--at", "5"],
        ] {
            let v = json(&lineage(&args));
            for d in v["diagnostics"].as_array().unwrap() {
                codes.insert(d["rule"].as_str().unwrap().to_owned());
            }
        }
    }
    assert!(
        codes.len() > 40,
        "the corpus exercises many codes: {codes:?}"
    );
    for code in &codes {
        let out = lineage(&["rules", code]);
        assert_eq!(out.status.code(), Some(0), "`lineage rules {code}`");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with(code.as_str()), "{text}");
        assert!(
            text.contains("Definition:") && text.contains("Example:"),
            "{text}"
        );
    }
}

#[test]
fn every_sarif_result_points_at_the_rule_with_its_id() {
    let out = lineage(&["check", traces().to_str().unwrap(), "--format", "sarif"]);
    let sarif = json(&out);
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert!(results.len() > 100);
    let mut layers = BTreeSet::new();
    for r in results {
        let index = r["ruleIndex"]
            .as_u64()
            .expect("every result has a ruleIndex") as usize;
        assert_eq!(rules[index]["id"], r["ruleId"], "{r}");
        layers.insert(r["ruleId"].as_str().unwrap().to_owned());
    }
    // Adapter and reducer codes too, not only ACP rules.
    for code in [
        "malformed-record",
        "unknown-thread-request",
        "late-terminal",
    ] {
        assert!(layers.contains(code), "{code} not among {layers:?}");
    }
}

#[test]
fn standard_input_is_read_once_as_a_trace() {
    let path = traces().join("codex/11-user-cancel-full-fanout.jsonl");
    let text = std::fs::read(&path).unwrap();
    let from_file = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    // A headerless copy on stdin, so its format must be told from content in one pass.
    let headerless: Vec<u8> = text.splitn(2, |b| *b == b'\n').nth(1).unwrap().to_vec();
    let piped = lineage_with_stdin(&["replay", "-", "--format", "json"], &headerless);
    assert_eq!(piped.status.code(), from_file.status.code());
    let (a, b) = (json(&from_file), json(&piped));
    assert_eq!(a["sessions"], b["sessions"]);
    assert_eq!(
        a["diagnostics"].as_array().unwrap().len(),
        b["diagnostics"].as_array().unwrap().len()
    );
    let checked = lineage_with_stdin(&["check", "-", "--format", "json"], &text);
    assert_eq!(json(&checked)["files"][0]["format"], "codex-app-server");
}

#[test]
fn at_is_a_cut_with_no_end_of_trace_findings_in_any_format() {
    for (rel, at, code) in [
        (
            "codex/11-user-cancel-full-fanout.jsonl",
            "14",
            "cancel-incomplete",
        ),
        (
            "claude/18-interrupt-incomplete.jsonl",
            "10",
            "cancel-incomplete",
        ),
        (
            "acp/rules/permission-left-pending.fail.jsonl",
            "100",
            "permission-left-pending",
        ),
    ] {
        let path = traces().join(rel);
        let path = path.to_str().unwrap();
        let whole = json(&lineage(&["replay", path, "--format", "json"]));
        let cut = json(&lineage(&["replay", path, "--format", "json", "--at", at]));
        let has = |v: &Value| {
            v["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["rule"] == code)
        };
        assert!(
            has(&whole) || rel.starts_with("codex"),
            "{rel}: the whole trace reports {code}"
        );
        assert!(!has(&cut), "{rel} --at {at}: {}", cut["diagnostics"]);
    }
}

#[test]
fn a_byte_order_mark_before_the_header_is_accepted() {
    let path = traces().join("canonical/03-root-terminal-before-child.jsonl");
    let mut text = "\u{feff}".as_bytes().to_vec();
    text.extend(std::fs::read(&path).unwrap());
    let out = lineage_with_stdin(&["replay", "-", "--format", "json"], &text);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["diagnostics"], serde_json::json!([]));
}
