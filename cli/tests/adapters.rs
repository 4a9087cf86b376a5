//! `lineage check` and `lineage replay` of the ACP adapters' own test recordings
//! (`traces/adapters/`, see its `SOURCE.md`): one file of each shape, with no header and
//! no `--input-format`, is told `acp` and read as an Agent-side source; the tree and the
//! findings are those the Subagent Sessions RFD expects of what the Agent sent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::lineage;
use std::path::PathBuf;

use serde_json::Value;

fn recording(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/adapters")
        .join(rel)
        .display()
        .to_string()
}

/// `line:rule` of every finding of `check --format json`, and its exit code.
fn checked(rel: &str) -> (Option<i32>, Vec<String>) {
    let out = lineage(&["check", &recording(rel), "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["format"], "acp", "{rel}: {report}");
    let findings = file["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["line"], f["rule"].as_str().unwrap()))
        .collect();
    (out.status.code(), findings)
}

/// `(id, parent, state)` of every session of `replay --format json`.
fn tree(rel: &str) -> Vec<(String, Value, Value)> {
    let out = lineage(&["replay", &recording(rel), "--format", "json"]);
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["format"], "acp", "{rel}");
    view["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["id"].as_str().unwrap().to_owned();
            (id, s["parent"].clone(), s["state"]["state"].clone())
        })
        .collect()
}

fn s(id: &str, parent: Option<&str>, state: Option<&str>) -> (String, Value, Value) {
    (id.into(), parent.into(), state.into())
}

/// claude-agent-acp `__snapshots__/v2/` (`{kind: request|response|notification, method,
/// payload}`): the root's own session, its work reported inline (this profile has no
/// subagent sessions); the permission request the harness answered is not a finding.
#[test]
fn a_claude_agent_acp_v2_recording_is_the_agent_s_stream() {
    let rel = "claude-agent-acp/v2/subagent-native-sessions.jsonl";
    let (code, findings) = checked(rel);
    assert_eq!(code, Some(0), "{findings:?}");
    assert_eq!(findings, ["1:native-source-limits"]);
    assert_eq!(tree(rel), [s("<session>", None, Some("idle"))]);
}

/// claude-agent-acp `__snapshots__/air/` (`{kind: sessionUpdate|…|promptResponse,
/// payload}`): a child announced under the root and a grandchild under it, each idle.
#[test]
fn a_claude_agent_acp_air_recording_shows_the_nested_children() {
    let rel = "claude-agent-acp/air/subagent-nested.jsonl";
    let (code, findings) = checked(rel);
    assert_eq!(code, Some(0), "{findings:?}");
    assert_eq!(findings, ["1:native-source-limits"]);
    assert_eq!(
        tree(rel),
        [
            s("<session>", None, None),
            s("agent_outer", Some("<session>"), Some("idle")),
            s("agent_inner", Some("agent_outer"), Some("idle")),
        ]
    );
}

/// codex-acp `src/__tests__/scenarios/data/` (`{direction, method, params}`): the
/// adapter announces its child with the earlier draft's `subagent_spawned` and ends it
/// with `subagent_state_update` `completed` (the RFD's shapes are `subagent_update` and
/// its `state`), and advertises a subagent capability of its own.
#[test]
fn a_codex_acp_recording_reports_the_draft_shapes_it_sends() {
    let rel = "codex-acp/air/native-subagent-session.jsonl";
    let (code, findings) = checked(rel);
    assert_eq!(code, Some(0), "{findings:?}");
    assert_eq!(
        findings,
        [
            "1:native-source-limits",
            "1:agent-subagent-capability",
            "3:legacy-draft-shape",
            "10:legacy-draft-shape",
        ]
    );
    // A draft `subagent_spawned` is not an announcement: no child is shown.
    assert_eq!(
        tree(rel),
        [s("session-1", None, None), s("child-thread", None, None)]
    );
}
