//! Native inputs: the files the real programs wrote, read without lineage's envelope or a
//! header, replay to the same tree as the enveloped trace of the same run.
//!
//! - `traces/real-native/claude-code/<run>/both.jsonl`: both pipes of `claude -p`
//!   stream-json as they crossed (the host's lines and the CLI's), no envelope;
//! - `…/stdout.jsonl`: the CLI's standard output alone (`claude -p … > out.jsonl`);
//! - the Codex app-server and ACP recordings of `traces/real/` with their envelope
//!   removed: the JSON-RPC lines a proxy writes, both directions.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use lineage_core::Severity;
use lineage_core::engine::Replay;
use lineage_traces::{enveloped_path, replay_text, shape, versions};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn replay(text: &str) -> Replay {
    replay_text(text, None)
}

/// Every run of the program's native files, each version's folder included.
fn runs(program: &str) -> Vec<PathBuf> {
    lineage_traces::native_runs(program)
}

/// The enveloped trace of the same run (`real/<folder>/<run>.jsonl`).
fn enveloped(run: &Path) -> Replay {
    replay(&std::fs::read_to_string(enveloped_path(run)).unwrap())
}

#[test]
fn claude_stream_json_of_both_pipes_replays_like_the_enveloped_trace() {
    let runs = runs("claude-code");
    assert!(runs.len() >= 20, "{}", runs.len());
    for run in runs {
        let both = std::fs::read_to_string(run.join("both.jsonl")).unwrap();
        let native = replay(&both);
        assert_eq!(native.format.to_string(), "claude-sdk", "{}", run.display());
        assert_eq!(shape(&native), shape(&enveloped(&run)), "{}", run.display());
    }
}

#[test]
fn claude_stdout_alone_replays_the_same_sessions() {
    for run in runs("claude-code") {
        let stdout = std::fs::read_to_string(run.join("stdout.jsonl")).unwrap();
        let native = replay(&stdout);
        let full = enveloped(&run);
        let ids = |r: &Replay| -> Vec<(Value, Value)> {
            shape(r)["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| (s["id"].clone(), s["parent"].clone()))
                .collect()
        };
        assert_eq!(ids(&native), ids(&full), "{}", run.display());
        // The turns end as in the full trace: the CLI's side shows the interrupts (their
        // answers) and the prompts (model output after a `result` with no notification
        // due). Run 18 is the exception said: its interrupt is answered after the root
        // turn settled in what stdout shows (the stops come first), so stdout alone
        // cannot tell it from the CLI's own stops and the root ends `completed`.
        let mut expected = turns(&full);
        if run.ends_with("18-interrupt-with-background-children") {
            let root = format!("{}#1", shape(&full)["sessions"][0]["id"].as_str().unwrap());
            for turn in &mut expected {
                if turn.0.as_str() == Some(root.as_str()) {
                    assert_eq!(turn.2, "canceled");
                    turn.2 = Value::from("completed");
                }
            }
        }
        assert_eq!(turns(&native), expected, "{}", run.display());
        assert!(
            native.findings.iter().all(|f| f.severity < Severity::Error),
            "{}: {:?}",
            run.display(),
            native.findings
        );
    }
}

/// Every turn's id, phase and outcome.
fn turns(r: &Replay) -> Vec<(Value, Value, Value)> {
    let shape = shape(r);
    let mut turns: Vec<(Value, Value, Value)> = shape["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["turns"].as_array().cloned().unwrap_or_default())
        .map(|t| (t[0].clone(), t[1].clone(), t[2].clone()))
        .collect();
    turns.sort_by_key(|t| t.0.to_string());
    turns
}

/// The messages of an enveloped trace, one per line, as the program wrote them.
fn unenveloped(text: &str) -> String {
    text.lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| r.get("message").map(Value::to_string))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn json_rpc_lines_of_both_directions_replay_like_the_enveloped_trace() {
    let mut checked = 0;
    let dirs = ["codex", "codex-acp", "claude-agent-acp"]
        .iter()
        .flat_map(|program| versions("real", program));
    for dir in dirs {
        for path in lineage_traces::corpus(&dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            if text.contains(r#""from":"transport""#) {
                continue; // a restart is not in the lines a proxy of one process writes
            }
            // The header's RFD revision (`"spec"`) is not in the lines a proxy writes:
            // the unenveloped lines are checked against the same revision.
            let spec = text
                .lines()
                .next()
                .and_then(|l| serde_json::from_str::<Value>(l).ok())
                .and_then(|h| h["spec"].as_str().and_then(|s| s.parse().ok()));
            let native = replay_text(&unenveloped(&text), spec);
            assert_eq!(shape(&native), shape(&replay(&text)), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked}");
}

/// What stdout alone cannot hold is said, not guessed: the host's requests are not in it
/// (a `host-side-missing` note); the interrupt still is, through the CLI's answer to it,
/// so the root and its children end canceled as in the full trace.
#[test]
fn claude_stdout_alone_says_the_host_side_is_missing() {
    let run = root().join("real-native/claude-code/09-interrupt-with-children");
    let stdout = std::fs::read_to_string(run.join("stdout.jsonl")).unwrap();
    let native = replay(&stdout);
    let notes: Vec<&str> = native
        .findings
        .iter()
        .filter(|f| f.rule == "host-side-missing")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", native.findings);
    let canceled = turns(&native)
        .iter()
        .all(|t| t.1 == "settled" && t.2 == "canceled");
    assert!(canceled, "{:?}", turns(&native));
    let both = replay(&std::fs::read_to_string(run.join("both.jsonl")).unwrap());
    assert!(both.findings.iter().all(|f| f.rule != "host-side-missing"));
}
