//! End-to-end tests of `lineage replay`: exit codes, formats, `--at`, located findings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::lineage;
use std::path::PathBuf;

fn write_trace(name: &str, body: &str) -> PathBuf {
    let dir = common::scratch("replay-tests");
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

const CLEAN: &str = r#"{"lineage":"trace","format":"canonical","version":1}
{"event":{"type":"root_session_created","session":"R"},"at":1}
{"event":{"type":"user_submitted","session":"R","text":"go"},"at":2}
{"event":{"type":"root_provider_turn_started","session":"R"},"at":3}
{"event":{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"call_1"},"at":4}
{"event":{"type":"root_provider_turn_completed","session":"R","outcome":"completed"},"at":5}
{"event":{"type":"child_turn_completed","session":"A","outcome":"failed"},"at":6}
"#;

#[test]
fn clean_trace_exits_zero_and_prints_the_tree() {
    let path = write_trace("clean.jsonl", CLEAN);
    let out = lineage(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("R#1 · settled · completed"), "{text}");
    assert!(text.contains("A#1 · settled · failed"), "{text}");
}

#[test]
fn json_format_follows_the_contract() {
    let path = write_trace("json.jsonl", CLEAN);
    let out = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "canonical");
    let a = &v["sessions"][1];
    assert_eq!(a["id"], "A");
    assert_eq!(a["kind"], "child");
    assert_eq!(
        a["parent"],
        serde_json::json!({"session":"R","turn":"R#1","toolCall":"call_1"})
    );
    assert_eq!(a["root"], serde_json::json!({"session":"R","turn":"R#1"}));
    assert_eq!(a["deleted"], false);
    assert_eq!(a["turns"][0]["id"], "A#1");
    assert_eq!(a["turns"][0]["outcome"], "failed");
    assert_eq!(v["sessions"][0]["turns"][0]["phase"], "settled");
    assert!(v["interactions"].as_array().unwrap().is_empty());
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
}

#[test]
fn at_shows_the_snapshot_after_that_physical_line() {
    let path = write_trace("at.jsonl", CLEAN);
    let out = lineage(&[
        "replay",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--at",
        "6",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sessions"][0]["turns"][0]["phase"], "waiting");
    let out = lineage(&[
        "replay",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--at",
        "1",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["sessions"].as_array().unwrap().is_empty(),
        "line 1 is the header"
    );
}

#[test]
fn malformed_lines_are_located_findings_and_processing_goes_on() {
    let body = CLEAN.replace(
        "{\"event\":{\"type\":\"root_provider_turn_started\",\"session\":\"R\"},\"at\":3}",
        "{\"event\":{\"type\":\"root_provider_turn_started\",\"session\":\"R\"},\"at\":3}\n\nnot json\n{\"event\":{\"type\":\"warp\"}}",
    );
    let path = write_trace("malformed.jsonl", &body);
    let out = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "error-level findings exit 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = v["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(
        (d[0]["rule"].as_str(), d[0]["line"].as_u64()),
        (Some("malformed-record"), Some(6))
    );
    assert_eq!(
        (d[1]["rule"].as_str(), d[1]["line"].as_u64()),
        (Some("malformed-record"), Some(7))
    );
    assert_eq!(
        v["sessions"][1]["turns"][0]["outcome"], "failed",
        "later lines still applied"
    );
}

#[test]
fn warnings_alone_exit_zero() {
    let body = format!(
        "{CLEAN}{}\n",
        r#"{"event":{"type":"message","session":"R","text":"late"}}"#
    );
    let path = write_trace("warn.jsonl", &body);
    let out = lineage(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("line 8: warning[late-root-output]")
    );
}

#[test]
fn unreadable_paths_and_usage_errors_exit_two() {
    assert_eq!(
        lineage(&["replay", "/no/such/trace.jsonl"]).status.code(),
        Some(2)
    );
    assert_eq!(lineage(&["replay"]).status.code(), Some(2));
    let path = write_trace("fmt.jsonl", CLEAN);
    assert_eq!(
        lineage(&["replay", path.to_str().unwrap(), "--format", "xml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        lineage(&["replay", path.to_str().unwrap(), "--input-format", "nope"])
            .status
            .code(),
        Some(2)
    );
    let unknown = write_trace("unknown.jsonl", "{\"hello\":1}\n");
    assert_eq!(
        lineage(&["replay", unknown.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn headerless_canonical_traces_are_detected_and_input_format_is_honoured() {
    let body: String = CLEAN.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let path = write_trace("noheader.jsonl", &body);
    let out = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let out = lineage(&[
        "replay",
        path.to_str().unwrap(),
        "--input-format",
        "canonical",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "canonical");
}

#[test]
fn mermaid_output_is_a_flowchart() {
    let path = write_trace("mermaid.jsonl", CLEAN);
    let out = lineage(&["replay", path.to_str().unwrap(), "--format", "mermaid"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("flowchart TD\n"));
    assert!(text.contains("-->|\"call_1\"|"), "{text}");
}

#[test]
fn bytes_that_are_not_utf8_are_a_located_error_and_the_record_still_applies() {
    let path = write_trace("latin1.jsonl", "");
    std::fs::write(
        &path,
        b"{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\",\"title\":\"caf\xE9\"}}\n",
    )
    .unwrap();
    let out = lineage(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("R · root · \"caf\u{FFFD}\""), "{text}");
    assert!(text.contains("line 1: error[invalid-utf8]"), "{text}");
}

/// A Codex app-server connection that started two root threads (real 0.169, with the
/// second root named in the header): both trees are shown, the header's first;
/// `--session` shows one of them, and a root the trace does not have is a usage error
/// that lists the roots.
#[test]
fn session_picks_a_root_of_a_codex_connection_with_several() {
    let trace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/codex/20-two-roots-one-connection.jsonl");
    let trace = trace.to_str().unwrap();
    let all = lineage(&["replay", trace, "--format", "json"]);
    assert_eq!(all.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    let roots: Vec<&str> = json["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "root")
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(roots, ["019ad0a1-root-two", "019ad0a1-root-one"]);
    let one = lineage(&["replay", trace, "--session", "019ad0a1-root-one"]);
    assert_eq!(one.status.code(), Some(0));
    assert!(
        one.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let text = String::from_utf8(one.stdout).unwrap();
    assert!(
        text.contains("019ad0a2-child-a#1 · settled · completed"),
        "{text}"
    );
    assert!(
        !text.contains("root-two") && !text.contains("child-b"),
        "{text}"
    );
    let converted = lineage(&[
        "convert",
        trace,
        "--to",
        "canonical",
        "--session",
        "019ad0a1-root-two",
    ]);
    assert_eq!(converted.status.code(), Some(0));
    let text = String::from_utf8(converted.stdout).unwrap();
    assert!(
        text.contains("019ad0a2-child-b") && !text.contains("root-one"),
        "{text}"
    );
    let none = lineage(&["replay", trace, "--session", "nope"]);
    assert_eq!(none.status.code(), Some(2));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(
        err.contains("no session tree with root `nope` in this trace (roots: 019ad0a1-root-two, 019ad0a1-root-one)"),
        "{err}"
    );
}

/// The turns' `usage` of a `replay --format json` document, in document order.
fn usages(json: &[u8]) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["turns"].as_array().unwrap().iter())
        .map(|t| t["usage"].clone())
        .collect()
}

#[test]
fn a_codex_trace_s_usage_survives_the_canonical_conversion() {
    let trace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/real/codex/08-follow-up-same-child.jsonl");
    let trace = trace.to_str().unwrap();
    let converted = lineage(&["convert", trace, "--to", "canonical"]);
    assert_eq!(converted.status.code(), Some(0));
    let text = String::from_utf8(converted.stdout).unwrap();
    assert!(text.contains(r#""type":"usage_reported""#), "{text}");
    let path = write_trace("usage-canonical.jsonl", &text);
    let from_canonical = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    let from_codex = lineage(&["replay", trace, "--format", "json"]);
    let expected = usages(&from_codex.stdout);
    assert!(expected.iter().all(|u| u["inputTokens"].as_u64().is_some()));
    assert_eq!(usages(&from_canonical.stdout), expected);
}

#[test]
fn a_usage_report_for_a_turn_the_session_lacks_is_an_unknown_turn_error() {
    let path = write_trace(
        "usage-unknown-turn.jsonl",
        &format!(
            "{CLEAN}{}\n",
            r#"{"event":{"type":"usage_reported","turn":"R#2","input_tokens":5},"at":7}"#
        ),
    );
    let out = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["unknown-turn"]);
    assert!(usages(&out.stdout).iter().all(serde_json::Value::is_null));
}
