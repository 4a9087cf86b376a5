//! Codex rollouts: the files Codex itself wrote during the lab's runs
//! (`traces/real-native/codex/<run>/sessions/YYYY/MM/DD/rollout-*.jsonl`), read as one
//! native source, replay to the same tree as the app-server trace of the same run
//! (`traces/real/codex/<run>.jsonl`), except for what rollouts do not keep.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, Options, Replay};
use lineage_core::native;
use lineage_traces::{enveloped_path, native_files, replay_text, shape};
use serde_json::Value;

/// Every run of the Codex native files, each version's folder included.
fn runs() -> Vec<PathBuf> {
    lineage_traces::native_runs("codex")
}

fn enveloped(run: &Path, root: Option<&str>) -> Replay {
    let text = std::fs::read_to_string(enveloped_path(run)).unwrap();
    let Some(root) = root else {
        return replay_text(&text, None);
    };
    let mut engine = Engine::new(Options {
        codex_session: Some(root.to_owned()),
        ..Options::default()
    });
    for line in text.lines() {
        engine.push_line(line).unwrap();
    }
    engine.finish().unwrap()
}

/// The shape without what a rollout cannot hold: interactions (approvals and questions
/// are not persisted) and the findings about them; the native reader's own note is
/// left out too.
fn comparable(mut shape: Value) -> Value {
    shape["interactions"] = Value::Array(Vec::new());
    let codes: Vec<Value> = shape["codes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| *c != "native-source-limits")
        .cloned()
        .collect();
    shape["codes"] = Value::Array(codes);
    shape
}

#[test]
fn every_run_s_rollouts_replay_to_the_app_server_trace_s_tree() {
    let runs = runs();
    assert!(runs.len() >= 19, "{}", runs.len());
    let mut counted = 0;
    for run in runs {
        let files = native_files(&run.join("sessions"));
        let source = native::read(&files);
        assert!(
            source.findings.is_empty(),
            "{}: {:?}",
            run.display(),
            source.findings
        );
        let trees = source.streams.len();
        // One tree per root thread: run 20's connection started two.
        let two_roots = run.ends_with("20-two-roots-one-connection");
        assert_eq!(trees, if two_roots { 2 } else { 1 }, "{}", run.display());
        let read: usize = source.streams.iter().map(|s| s.files.len()).sum();
        assert_eq!(read, files.len(), "{}", run.display());
        for (k, stream) in source.streams.iter().enumerate() {
            let native = native::replay(&source, k, native::Options::default()).unwrap();
            let wire = enveloped(&run, two_roots.then_some(stream.root.as_str()));
            assert_eq!(shape(&native.replay)["interactions"], serde_json::json!([]));
            assert_eq!(
                messages(&native.replay),
                messages(&wire),
                "{}",
                run.display()
            );
            assert_eq!(
                comparable(shape(&native.replay)),
                comparable(shape(&wire)),
                "{}",
                run.display()
            );
            let native_usage = usage(&native.replay);
            let wire_usage = usage(&wire);
            assert_eq!(native_usage.len(), wire_usage.len(), "{}", run.display());
            for ((id, n), (_, w)) in native_usage.iter().zip(&wire_usage) {
                // A resumed thread's earlier turns reach the wire in the resume response,
                // which carries no counts; their rollout still holds them.
                let history = run.ends_with("21-resume-history") && w.is_null();
                assert!(n == w || history, "{}: {id}: {n} ≠ {w}", run.display());
            }
            counted += native_usage.iter().filter(|(_, u)| !u.is_null()).count();
        }
    }
    // The rollouts' `token_count` records give each turn the figures the app-server's
    // `thread/tokenUsage/updated` gave it (most turns of these runs called the model).
    assert!(counted >= 40, "{counted} turns with usage");
}

/// Each turn's token usage, as `replay --format json` shows it (null when unknown).
fn usage(replay: &Replay) -> Vec<(Value, Value)> {
    let view = lineage_core::render::json(replay);
    let sessions = view["sessions"].as_array().unwrap();
    sessions
        .iter()
        .flat_map(|s| s["turns"].as_array().unwrap().iter())
        .map(|t| {
            (
                t["id"].clone(),
                t.get("usage").cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// Each session's messages: role and text, in order.
fn messages(replay: &Replay) -> Value {
    let view = lineage_core::render::json(replay);
    let sessions = view["sessions"].as_array().unwrap();
    sessions
        .iter()
        .map(|s| {
            let texts: Vec<Value> = s["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| serde_json::json!([m["role"], m["text"]]))
                .collect();
            serde_json::json!([s["id"], texts])
        })
        .collect()
}
