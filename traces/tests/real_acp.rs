//! Real ACP adapters, recorded offline by the lab (`lab/record.mjs claude-agent-acp`,
//! `lab/record.mjs codex-acp`): `@agentclientprotocol/claude-agent-acp` and
//! `@agentclientprotocol/codex-acp` driven by an ACP Client that advertises `subagents`,
//! against a scripted model on loopback. Only the model was scripted; every record is
//! what the adapter sent.
//!
//! Each trace's header states what the Subagent Sessions RFD expects of it, in the ACP
//! corpus's format (`"expect":{"findings":[…],"connection":…,"sessions":{…}}`), written by
//! the scenario from the RFD and from the ids the traffic showed, never from lineage's
//! output. `findings` must match exactly (a multiset of `line:rule`), session fields are
//! compared with the Client view's JSON, and the checker (transcripts off) and the replay
//! (transcripts on) must agree. Well-behaved traffic gives no warning or error: a trace
//! whose header expects one must say in `violation` which RFD sentence the adapter breaks.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use lineage_core::finding::{Revision, Severity};
use lineage_core::render;
use lineage_core::replay::{self, Finding, Options};
use serde_json::Value;

fn path(program: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("real")
        .join(program)
        .join(file)
}

/// The recordings of `program`, in name order.
fn recordings(program: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(path(program, ""))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

fn sorted(findings: &[Finding]) -> Vec<String> {
    let mut got: Vec<(usize, &str)> = findings.iter().map(|f| (f.line, f.rule.as_str())).collect();
    got.sort_unstable();
    got.into_iter().map(|(l, r)| format!("{l}:{r}")).collect()
}

fn sorted_strings(want: &Value) -> Vec<String> {
    let mut want: Vec<(usize, String)> = want
        .as_array()
        .expect("every recording states its expected findings")
        .iter()
        .filter_map(Value::as_str)
        .map(|s| {
            let (l, r) = s.split_once(':').unwrap_or(("0", s));
            (l.parse().unwrap_or(0), r.to_owned())
        })
        .collect();
    want.sort();
    want.into_iter().map(|(l, r)| format!("{l}:{r}")).collect()
}

/// The view's sessions (and `connection`) against the header's expectation.
fn compare_view(view: &Value, expect: &Value, failures: &mut Vec<String>) {
    if let Some(want) = expect.get("connection")
        && &view["connection"] != want
    {
        failures.push(format!(
            "connection: expected {want}, got {}",
            view["connection"]
        ));
    }
    let sessions = expect.get("sessions").and_then(Value::as_object);
    for (id, fields) in sessions.into_iter().flatten() {
        let got = view["sessions"]
            .as_array()
            .and_then(|all| all.iter().find(|s| s["id"] == id.as_str()));
        let Some(got) = got else {
            failures.push(format!("session {id} is not in the view"));
            continue;
        };
        for (field, want) in fields.as_object().into_iter().flatten() {
            if &got[field] != want {
                failures.push(format!(
                    "session {id}.{field}: expected {want}, got {}",
                    got[field]
                ));
            }
        }
    }
}

/// Checks one recording against its header; panics with every unmet expectation.
fn recording(program: &str, file: &str) {
    let path = path(program, file);
    let text = std::fs::read_to_string(&path).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["format"], "acp", "{file}: an acp trace");
    assert_eq!(
        header["provider"]["package"],
        format!("@agentclientprotocol/{program}"),
        "{file}: the header names the adapter"
    );
    assert!(header["provider"]["version"].is_string());
    assert!(
        header["protocolVersion"].is_u64(),
        "{file}: protocolVersion from the initialize exchange"
    );
    let options = Options {
        format: None,
        until_line: None,
        spec: None,
    };
    let replayed = replay::replay(&text, &options).unwrap();
    let checked = replay::check(&text, None).unwrap();
    let mut failures = Vec::new();
    let want = sorted_strings(&header["expect"]["findings"]);
    let got = sorted(&checked.findings);
    if got != want {
        failures.push(format!("findings: expected {want:?}, got {got:?}"));
    }
    if sorted(&replayed.findings) != got {
        failures.push("the replay (transcripts on) and the checker disagree".into());
    }
    let loud = checked
        .findings
        .iter()
        .filter(|f| matches!(f.severity, Severity::Warning | Severity::Error))
        .count();
    if loud > 0 && !header["violation"].is_string() {
        failures.push(format!(
            "{loud} warning(s) or error(s) on traffic whose header names no violation"
        ));
    }
    compare_view(&render::json(&replayed), &header["expect"], &mut failures);
    assert!(
        failures.is_empty(),
        "{program}/{file} does not meet its header:\n  {}",
        failures.join("\n  ")
    );
}

macro_rules! recordings {
    ($program:literal: $($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() { recording($program, $file); })*
    };
}

mod claude_agent_acp {
    use super::recording;
    recordings! { "claude-agent-acp":
        one_child => "01-one-child.jsonl",
        two_children => "02-two-children.jsonl",
        child_permission => "03-child-permission.jsonl",
        child_cancel => "04-child-cancel.jsonl",
        root_cancel => "05-root-cancel.jsonl",
        cancel_during_permission => "06-cancel-during-permission.jsonl",
        load_after_restart => "07-load-after-restart.jsonl",
        nested_child => "08-nested-child.jsonl",
        child_fails => "09-child-fails.jsonl",
        follow_up_same_child => "10-follow-up-same-child.jsonl",
        background_child_outlives_root_cancel => "11-background-child-root-cancel.jsonl",
        nested_cancel => "12-nested-cancel.jsonl",
    }
}

mod codex_acp {
    use super::recording;
    recordings! { "codex-acp":
        one_child => "01-one-child.jsonl",
        two_children => "02-two-children.jsonl",
        nested_child => "03-nested-child.jsonl",
        child_permission => "04-child-permission.jsonl",
        child_cancel => "05-child-cancel.jsonl",
        root_cancel => "06-root-cancel.jsonl",
        load_after_restart => "07-load-after-restart.jsonl",
        cancel_during_permission => "08-cancel-during-permission.jsonl",
        child_fails => "09-child-fails.jsonl",
        follow_up_same_child => "10-follow-up-same-child.jsonl",
        nested_cancel => "11-nested-cancel.jsonl",
        one_child_through_lineage_record => "12-one-child-through-lineage-record.jsonl",
        one_child_through_the_acp_conductor => "13-one-child-through-the-acp-conductor.jsonl",
    }
}

/// `lineage record` in front of the real codex-acp (lab scenario 12): the lab checked
/// that lineage's own trace holds the messages both sides exchanged (the Client's lines
/// byte for byte); here that trace replays to the same Client view as the Client's
/// recording of the same run, with no finding.
#[test]
fn lineage_records_trace_of_a_real_adapter_replays_like_the_clients() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("real");
    let theirs =
        std::fs::read_to_string(root.join("lineage-record/codex-acp-one-child.jsonl")).unwrap();
    let ours =
        std::fs::read_to_string(root.join("codex-acp/12-one-child-through-lineage-record.jsonl"))
            .unwrap();
    // The Client's recording declares the final revision in its header; lineage's own
    // trace has no such header, so it is checked against the same revision here.
    let options = Options {
        spec: Some(Revision::Final),
        ..Options::default()
    };
    let a = replay::replay(&theirs, &options).unwrap();
    let b = replay::replay(&ours, &options).unwrap();
    let rules = |r: &replay::Replay| -> Vec<(Severity, &str)> {
        r.findings
            .iter()
            .map(|f| (f.severity, f.rule.as_str()))
            .collect()
    };
    // Only the note on codex-acp's Agent-side capability, the same in both traces.
    assert_eq!(rules(&a), [(Severity::Note, "agent-subagent-capability")]);
    assert_eq!(rules(&a), rules(&b));
    assert_eq!(render::json(&a)["sessions"], render::json(&b)["sessions"]);
    // Every message of the run is in lineage's trace, in order, from the same side.
    let messages = |text: &str| -> Vec<(String, Value)> {
        text.lines()
            .skip(1)
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r.get("message").is_some())
            .map(|r| {
                (
                    r["from"].as_str().unwrap_or("").to_owned(),
                    r["message"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(messages(&theirs), messages(&ours));
}

/// Every committed recording has a named test above.
#[test]
fn every_recording_has_a_named_test() {
    let named: [(&str, &[&str]); 2] = [
        (
            "claude-agent-acp",
            &[
                "01-one-child.jsonl",
                "02-two-children.jsonl",
                "03-child-permission.jsonl",
                "04-child-cancel.jsonl",
                "05-root-cancel.jsonl",
                "06-cancel-during-permission.jsonl",
                "07-load-after-restart.jsonl",
                "08-nested-child.jsonl",
                "09-child-fails.jsonl",
                "10-follow-up-same-child.jsonl",
                "11-background-child-root-cancel.jsonl",
                "12-nested-cancel.jsonl",
            ],
        ),
        (
            "codex-acp",
            &[
                "01-one-child.jsonl",
                "02-two-children.jsonl",
                "03-nested-child.jsonl",
                "04-child-permission.jsonl",
                "05-child-cancel.jsonl",
                "06-root-cancel.jsonl",
                "07-load-after-restart.jsonl",
                "08-cancel-during-permission.jsonl",
                "09-child-fails.jsonl",
                "10-follow-up-same-child.jsonl",
                "11-nested-cancel.jsonl",
                "12-one-child-through-lineage-record.jsonl",
                "13-one-child-through-the-acp-conductor.jsonl",
            ],
        ),
    ];
    for (program, files) in named {
        let found: Vec<String> = recordings(program)
            .iter()
            .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
            .collect();
        assert_eq!(found, files, "{program}: recordings and named tests differ");
    }
}

/// Every `session/update` the adapters sent deserializes with the official
/// `agent-client-protocol-schema` 1.20.0 (the stabilized shapes: the `error` stop reason,
/// `cwd`, `senderMessageId` / `recipientMessageId`), so the later-revision shapes the
/// checker accepts are the ecosystem's, not inventions of the adapters.
#[test]
fn adapter_session_updates_deserialize_with_the_official_schema() {
    use agent_client_protocol_schema as acp;
    let mut checked = 0;
    let mut failures = Vec::new();
    for program in ["claude-agent-acp", "codex-acp"] {
        for path in recordings(program) {
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate().skip(1) {
                let record: Value = serde_json::from_str(line).unwrap();
                if record["message"]["method"] != "session/update" {
                    continue;
                }
                let params = record["message"]["params"].clone();
                checked += 1;
                if let Err(e) = serde_json::from_value::<acp::v1::SessionNotification>(params) {
                    failures.push(format!("{}:{}: {e}", path.display(), i + 1));
                }
            }
        }
    }
    assert!(checked > 300, "only {checked} updates checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Checked against the seed's revision (2026-09-24) instead of the final one their
/// headers declare, the recordings differ only by the later-revision findings: a note
/// for each field only the final revision defines (`cwd`, `senderMessageId`, …) and a
/// warning for the v1 idle `stopReason: "error"` (defined from 2026-10-01), which both
/// adapters send when a child fails. Never an error.
#[test]
fn under_the_seed_revision_later_shapes_are_noted_and_the_error_stop_reason_warned() {
    for program in ["claude-agent-acp", "codex-acp"] {
        for path in recordings(program) {
            let text = std::fs::read_to_string(&path).unwrap();
            let under = |spec| {
                let options = Options {
                    spec: Some(spec),
                    ..Options::default()
                };
                replay::check_with(&text, &options).unwrap().findings
            };
            let (seed, last) = (under(Revision::Seed), under(Revision::Final));
            let mut extra: Vec<&Finding> = seed.iter().filter(|f| !last.contains(f)).collect();
            assert!(
                last.iter().all(|f| seed.contains(f)),
                "{}: a finding of the final revision is missing under 2026-09-24",
                path.display()
            );
            let stop_reasons = extra
                .iter()
                .filter(|f| f.rule == "later-revision-stop-reason")
                .count();
            let fails = path.to_string_lossy().ends_with("09-child-fails.jsonl");
            assert_eq!(stop_reasons, usize::from(fails), "{}", path.display());
            extra.retain(|f| f.rule != "later-revision-stop-reason");
            assert!(
                extra
                    .iter()
                    .all(|f| f.rule == "later-revision-field" && f.severity == Severity::Note),
                "{}: {extra:?}",
                path.display()
            );
            assert!(
                !extra.is_empty(),
                "{}: no later shape noted",
                path.display()
            );
        }
    }
}
