//! End-to-end tests of `lineage check`, `lineage rules` and `lineage replay` of `acp`
//! traces: exit codes, every report format, directory walking, located findings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::lineage;
use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

fn corpus(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/acp")
        .join(rel)
        .display()
        .to_string()
}

fn write_trace(name: &str, body: &str) -> PathBuf {
    let dir = common::scratch("check-tests");
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

const PRELUDE: &str = r#"{"lineage":"trace","format":"acp","version":1}
{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}}}
{"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}
{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}}
{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}
{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A"}}}}
"#;

#[test]
fn a_conformant_trace_exits_zero() {
    let out = lineage(&[
        "check",
        &corpus("scenarios/01-reused-child-two-assignments.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("checked 1 file(s): 0 error(s), 0 warning(s)"));
}

#[test]
fn json_report_follows_the_contract() {
    let path = corpus("rules/cancel-not-granted.fail.jsonl");
    let out = lineage(&["check", &path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&v), ["files", "summary"]);
    assert_eq!(keys(&v["summary"]), ["errors", "files", "warnings"]);
    let file = &v["files"][0];
    assert_eq!(keys(file), ["findings", "format", "path", "shapes", "spec"]);
    assert_eq!(
        (file["spec"].as_str(), file["shapes"].as_str()),
        (Some("2026-09-24"), Some("2026-09-24"))
    );
    assert_eq!(file["path"], path.as_str());
    assert_eq!(file["format"], "acp");
    let f = &file["findings"][0];
    assert_eq!(keys(f), ["line", "message", "rule", "severity"]);
    assert_eq!(
        (
            f["rule"].as_str(),
            f["severity"].as_str(),
            f["line"].as_u64()
        ),
        (Some("cancel-not-granted"), Some("error"), Some(7))
    );
    assert_eq!(v["summary"]["errors"], 5);
    assert_eq!(v["summary"]["files"], 1);
}

#[test]
fn warnings_exit_zero_unless_denied() {
    let path = corpus("rules/state-not-mirrored.fail.jsonl");
    assert_eq!(lineage(&["check", &path]).status.code(), Some(0));
    assert_eq!(
        lineage(&["check", &path, "--deny-warnings"]).status.code(),
        Some(1)
    );
    let notes = corpus("rules/unknown-state.fail.jsonl");
    assert_eq!(
        lineage(&["check", &notes, "--deny-warnings"]).status.code(),
        Some(0)
    );
}

#[test]
fn directories_are_walked_for_jsonl_files() {
    let out = lineage(&["check", &corpus(""), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let walked = v["files"].as_array().unwrap().len();
    let on_disk = ["rules", "scenarios", "revisions", "view"]
        .iter()
        .map(|d| std::fs::read_dir(corpus(d)).unwrap().count())
        .sum::<usize>();
    assert_eq!(walked, on_disk);
    assert!(
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["format"] == "acp")
    );
}

#[test]
fn malformed_lines_are_located_and_checking_goes_on() {
    let body = format!(
        "{PRELUDE}not json\n{}\n",
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"A","prompt":[]}}}"#
    );
    let path = write_trace("malformed.jsonl", &body);
    let out = lineage(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Vec<(u64, String)> = json(&out)["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        findings,
        [
            (7, "malformed-record".to_owned()),
            (8, "child-mutation".to_owned())
        ]
    );
}

#[test]
fn human_output_is_rustc_style_and_points_at_file_and_line() {
    let path = corpus("rules/child-mutation.fail.jsonl");
    let out = lineage(&["check", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("error[child-mutation]: `session/prompt` names `A`"),
        "{text}"
    );
    assert!(text.contains(&format!("{path}:7")), "{text}");
    assert!(text.contains("warning[child-mutation]"), "{text}");
    assert!(
        text.contains("see `lineage rules child-mutation`"),
        "{text}"
    );
}

/// The human report shows the line each finding points at, whether the trace is a file
/// (read again for those lines only) or standard input (kept while it is checked).
#[test]
fn snippets_show_the_lines_findings_point_at_from_a_file_and_from_standard_input() {
    let path = corpus("rules/child-mutation.fail.jsonl");
    let body = std::fs::read(&path).unwrap();
    let from_file = stdout(&lineage(&["check", "--color", "never", &path]));
    let from_stdin = stdout(&common::lineage_with_stdin(
        &["check", "--color", "never", "-"],
        &body,
    ));
    let prompt = r#""method":"session/prompt","params":{"sessionId":"A""#;
    assert!(from_file.contains(prompt), "{from_file}");
    assert_eq!(from_file.replace(&path, "-"), from_stdin);
    // A finding on the last line of a longer trace: the file is read up to it.
    let mut long = String::from_utf8(body).unwrap();
    long.push_str(&"\n".repeat(500));
    long.push_str(r#"{"from":"client","message":{"jsonrpc":"2.0","id":99,"method":"session/steer","params":{"sessionId":"A","late":1}}}"#);
    long.push('\n');
    let lines = long.lines().count();
    let path = write_trace("late-finding.jsonl", &long);
    let text = stdout(&lineage(&[
        "check",
        "--color",
        "never",
        &path.display().to_string(),
    ]));
    assert!(
        text.contains(&format!(
            r#"{lines} | {{"from":"client","message":{{"jsonrpc":"2.0","id":99,"#
        )),
        "{text}"
    );
    assert!(text.contains(r#""late":1"#), "{text}");
}

#[test]
fn junit_sarif_and_github_formats() {
    let path = corpus("rules/permission-not-cancelled.fail.jsonl");
    let junit = stdout(&lineage(&["check", &path, "--format", "junit"]));
    assert!(junit.starts_with("<?xml"), "{junit}");
    assert!(junit.contains("<testsuite name=\""), "{junit}");
    assert!(junit.contains("failures=\"2\""), "{junit}");
    assert!(
        junit.contains("see `lineage rules permission-not-cancelled`"),
        "the catalogue explains each failure: {junit}"
    );
    assert!(
        junit.contains("type=\"permission-not-cancelled\""),
        "{junit}"
    );

    let out = lineage(&["check", &path, "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let sarif = json(&out);
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "lineage");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.len() > 31, "the driver lists the whole catalogue");
    assert!(rules.iter().any(|r| r["id"] == "reparent-rejected"));
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "permission-not-cancelled");
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        10
    );
    assert_eq!(
        run["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "permission-not-cancelled"
    );

    let github = stdout(&lineage(&["check", &path, "--format", "github"]));
    let first = github.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "::error file={},line=10,title=permission-not-cancelled::",
            path.replace(':', "%3A").replace(',', "%2C")
        )),
        "{first}"
    );
}

#[test]
fn usage_errors_and_unreadable_paths_exit_two() {
    assert_eq!(lineage(&["check"]).status.code(), Some(2));
    assert_eq!(
        lineage(&["check", "/no/such/trace.jsonl"]).status.code(),
        Some(2)
    );
    let ok = corpus("rules/reparent.pass.jsonl");
    assert_eq!(
        lineage(&["check", &ok, "--format", "xml"]).status.code(),
        Some(2)
    );
    let unknown = write_trace("unknown.jsonl", "{\"hello\":1}\n");
    assert_eq!(
        lineage(&["check", unknown.to_str().unwrap()]).status.code(),
        Some(2)
    );
    assert_eq!(lineage(&["rules", "no-such-rule"]).status.code(), Some(2));
}

#[test]
fn an_untellable_trace_is_a_usage_error_that_says_which_lines_and_why() {
    let untellable = write_trace(
        "extension-methods.jsonl",
        "{\"jsonrpc\":\"2.0\",\"method\":\"_x/ping\",\"params\":{}}\n\
         {\"jsonrpc\":\"2.0\",\"method\":\"_x/ping\",\"params\":{}}\n",
    );
    for command in ["check", "replay"] {
        let out = lineage(&[command, untellable.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("lines 1, 2: method `_x/ping` is in neither"),
            "{command}: {said}"
        );
    }
}

#[test]
fn rules_lists_the_catalogue_and_explains_one() {
    let out = lineage(&["rules"]);
    assert_eq!(out.status.code(), Some(0));
    let list = stdout(&out);
    for id in [
        "subagents-not-negotiated",
        "traffic-before-announce",
        "cancel-not-granted",
        "malformed-record",
        "child-listed",
    ] {
        assert!(list.contains(id), "{id} missing from:\n{list}");
    }
    let listed = list
        .lines()
        .filter(|l| l.contains("  error ") || l.contains("  warning ") || l.contains("  note "))
        .count();
    assert!(
        listed > 31,
        "every code, not only the 31 ACP rules: {listed}"
    );
    for id in [
        "reparent-rejected",
        "cancel-incomplete",
        "stale-continuation",
    ] {
        assert!(list.contains(id), "{id} missing from:\n{list}");
    }
    let one = stdout(&lineage(&["rules", "cancel-not-granted"]));
    assert!(
        one.starts_with("cancel-not-granted (error, client side)"),
        "{one}"
    );
    assert!(
        one.contains("If `capabilities.cancel` is a non-null object"),
        "{one}"
    );
    assert!(one.contains("Example:"), "{one}");
}

#[test]
fn replay_of_an_acp_trace_shows_the_client_view() {
    let path = corpus("scenarios/12-resume-without-history.jsonl");
    let out = lineage(&["replay", &path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["format"], "acp");
    assert_eq!(v["connection"], "connected");
    let worker = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "worker")
        .unwrap();
    assert_eq!(worker["parent"], "coordinator");
    assert_eq!(
        worker["state"],
        serde_json::json!({"state":"idle","stopReason":"cancelled"})
    );
    for key in [
        "id",
        "parent",
        "title",
        "description",
        "state",
        "capabilities",
        "effectiveCancel",
        "messages",
    ] {
        assert!(worker.get(key).is_some(), "{key} missing");
    }
    // Before the resume succeeded the grant was not effective yet.
    let out = lineage(&["replay", &path, "--format", "json", "--at", "14"]);
    let v = json(&out);
    let worker = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "worker")
        .unwrap();
    assert_eq!(worker["effectiveCancel"], false);
    let tree = stdout(&lineage(&["replay", &path]));
    assert!(tree.contains("└─ coordinator"), "{tree}");
    let mermaid = stdout(&lineage(&["replay", &path, "--format", "mermaid"]));
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    let failing = corpus("rules/reparent.fail.jsonl");
    assert_eq!(lineage(&["replay", &failing]).status.code(), Some(1));
}

/// `--spec`: the issue's acceptance stream (a root cancel leaves a background child
/// running with its permission request pending; the user answers it later) is clean
/// under 2026-10-05, the revision its header names, and an error under 2026-09-24,
/// which `--spec` selects over the header.
#[test]
fn spec_selects_the_rfd_revision_checked_against() {
    let path = corpus("revisions/narrowed-cascade-answer-after-cancel.pass.jsonl");
    let narrowed = lineage(&["check", &path, "--spec", "2026-10-05", "--format", "json"]);
    assert_eq!(narrowed.status.code(), Some(0));
    let v = json(&narrowed);
    assert_eq!(v["files"][0]["findings"], serde_json::json!([]));
    assert_eq!(v["files"][0]["spec"], "2026-10-05");
    let seed = lineage(&["check", &path, "--spec", "2026-09-24", "--format", "json"]);
    assert_eq!(seed.status.code(), Some(1));
    let v = json(&seed);
    assert_eq!(
        v["files"][0]["findings"][0]["rule"],
        "permission-not-cancelled"
    );
    let bad = lineage(&["check", &path, "--spec", "2026-10-01"]);
    assert_eq!(bad.status.code(), Some(2));
    let replayed = lineage(&["replay", &path, "--spec", "final", "--format", "json"]);
    assert_eq!(json(&replayed)["spec"], "final");
}

/// The human summary says when a stream's shapes belong to another revision than the
/// one checked against, and `lineage rules` shows the revisions each rule applies to.
#[test]
fn shapes_and_rule_revisions_are_shown() {
    let path = corpus("rules/later-revision-field.fail.jsonl");
    let out = lineage(&["check", &path]);
    assert!(
        stdout(&out).contains("checked against the Subagent Sessions RFD revision 2026-09-24, but its shapes match final"),
        "{}",
        stdout(&out)
    );
    let list = stdout(&lineage(&["rules"]));
    assert!(list.contains("later-revision-stop-reason") && list.contains("[2026-09-24]"));
    let one = stdout(&lineage(&["rules", "chunk-participants"]));
    assert!(one.contains("Applies to RFD revisions: final"), "{one}");
}
