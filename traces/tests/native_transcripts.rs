//! Claude Code transcripts: the project folder each real run left on disk
//! (`traces/real-native/claude-code/<run>/projects/<dir>/`, recorded from Claude Code
//! 2.1.328 against a scripted model) replays, through `native::read` and `native::replay`,
//! to the same tree as the enveloped stream-json trace of the same run
//! (`traces/real/claude-code/<run>.jsonl`), except where the transcript cannot hold what
//! the stream carried: each such difference is stated per run below, with its reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use lineage_core::engine::Replay;
use lineage_core::native::{self, File};
use lineage_core::render;
use lineage_traces::{corpus, enveloped_path, native_files, replay_text, shape, versions};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every run with a project folder, each version's folder included.
fn runs() -> Vec<PathBuf> {
    lineage_traces::native_runs("claude-code")
        .into_iter()
        .filter(|p| p.join("projects").is_dir())
        .collect()
}

fn project_files(run: &Path) -> Vec<File> {
    native_files(&run.join("projects"))
}

fn enveloped(run: &Path) -> Replay {
    replay_text(&std::fs::read_to_string(enveloped_path(run)).unwrap(), None)
}

/// Sets `shape`'s value at `pointer` to `to`, checking it was `from`: a stated difference
/// that no longer exists fails the test too.
fn change(shape: &mut Value, pointer: &str, from: Value, to: Value) {
    let slot = shape.pointer_mut(pointer).unwrap();
    assert_eq!(*slot, from, "{pointer}");
    *slot = to;
}

/// The permission requests of the run's stream-json trace: request id → the tool use it
/// asked about.
fn permission_tool_uses(run: &Path) -> Vec<(Value, String)> {
    let text = std::fs::read_to_string(enveloped_path(run)).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["message"]["request"]["subtype"] == "can_use_tool")
        .map(|r| {
            let m = &r["message"];
            (
                m["request_id"].clone(),
                m["request"]["tool_use_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A permission the host answered: the transcript keeps the user's decision on the tool
/// result (`permissionDecision.source: user_temporary`) but not the CLI's request id, so
/// the reader names the request after the tool use.
fn answered_named_after_the_tool_use(run: &Path, stream: &mut Value) {
    let asked = permission_tool_uses(run);
    assert!(!asked.is_empty(), "{}", run.display());
    for (request, tool_use) in asked {
        let k = stream["interactions"]
            .as_array()
            .unwrap()
            .iter()
            .position(|i| i[1] == request)
            .unwrap();
        assert_eq!(stream["interactions"][k][2], "answered");
        change(
            stream,
            &format!("/interactions/{k}/1"),
            request,
            json!(format!("permission-{tool_use}")),
        );
    }
}

/// A child's permission request still pending when the user interrupted: a request nobody
/// answered leaves no decision in the transcript, so there is no interaction to supersede.
fn no_superseded_request(run: &Path, stream: &mut Value) {
    let asked: Vec<Value> = permission_tool_uses(run)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    let interactions = stream["interactions"].as_array().unwrap().clone();
    assert_eq!(interactions.len(), asked.len(), "{}", run.display());
    for i in &interactions {
        assert_eq!(i[2], "superseded", "{}", run.display());
        assert!(asked.contains(&i[1]), "{}", run.display());
    }
    change(
        stream,
        "/interactions",
        Value::Array(interactions),
        json!([]),
    );
}

/// The user interrupted after the root's model turn had ended, while background children
/// ran. With no model turn running the CLI writes no `[Request interrupted by user]` in
/// the root: the transcript holds only the children's `killed` notifications (the same as
/// stop_task requests), so the children end canceled and the root turn, whose model turn
/// completed, completes.
fn root_completes(stream: &mut Value) {
    change(
        stream,
        "/sessions/0/turns/0/2",
        json!("canceled"),
        json!("completed"),
    );
}

/// The enveloped run's shape, changed where the transcript cannot say what the stream
/// carried (the same runs in every version's folder). Every other run must agree exactly.
fn as_the_transcript_can_say(run: &Path, mut stream: Value) -> Value {
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    match name.as_str() {
        "05-child-permission" | "26-background-child-permission-after-the-launch-result" => {
            answered_named_after_the_tool_use(run, &mut stream);
        }
        "12-interrupt-during-permission" | "23-interrupt-nested-during-root-turn" => {
            no_superseded_request(run, &mut stream);
        }
        "18-interrupt-with-background-children" => root_completes(&mut stream),
        // Both: the grandchild's request was pending, and the interrupt came after the
        // root's `result`.
        "22-interrupt-nested-after-result" => {
            no_superseded_request(run, &mut stream);
            root_completes(&mut stream);
        }
        _ => {}
    }
    stream
}

#[test]
fn each_real_project_folder_replays_like_the_enveloped_trace_of_its_run() {
    let runs = runs();
    let recorded: usize = versions("real", "claude-code")
        .iter()
        .map(|dir| corpus(dir).len())
        .sum();
    assert_eq!(runs.len(), recorded);
    for run in runs {
        let files = project_files(&run);
        let source = native::read(&files);
        assert_eq!(source.streams.len(), 1, "{}", run.display());
        assert!(
            source.findings.is_empty(),
            "{}: {:?}",
            run.display(),
            source.findings
        );
        let stream = &source.streams[0];
        assert_eq!(stream.format.to_string(), "claude-sdk");
        // The session file first, then every subagent file with its meta file: all of them.
        assert!(source.files[stream.files[0]].ends_with(&format!("{}.jsonl", stream.root)));
        assert_eq!(stream.files.len(), files.len(), "{}", run.display());
        let native = native::replay(&source, 0, native::Options::default()).unwrap();
        let expected = as_the_transcript_can_say(&run, shape(&enveloped(&run)));
        assert_eq!(shape(&native.replay), expected, "{}", run.display());
        // The reader's own findings: only the note of what transcripts do not hold (every
        // record kind in these files is known; no line is malformed; no file is missing),
        // then the notes the wire trace of the run has too (the follow-up of run 16, which
        // spoke after the root turn settled: `late-continuation`).
        let codes: Vec<String> = native
            .findings
            .iter()
            .map(|l| l.finding.rule.to_string())
            .collect();
        let mut expected = vec!["native-source-limits".to_owned()];
        expected.extend(enveloped(&run).findings.iter().map(|f| f.rule.to_string()));
        assert_eq!(codes, expected, "{}", run.display());
    }
}

/// All twenty project folders given as one source: one tree per session file, each the
/// same as when its folder is read alone.
#[test]
fn many_sessions_in_one_source_make_one_tree_each() {
    let runs = runs();
    let all: Vec<File> = runs.iter().flat_map(|r| project_files(r)).collect();
    let source = native::read(&all);
    assert_eq!(source.streams.len(), runs.len());
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    for (k, run) in runs.iter().enumerate() {
        let together = native::replay(&source, k, native::Options::default()).unwrap();
        let alone_source = native::read(&project_files(run));
        let alone = native::replay(&alone_source, 0, native::Options::default()).unwrap();
        assert_eq!(
            shape(&together.replay),
            shape(&alone.replay),
            "{}",
            run.display()
        );
    }
}

/// A foreground child's own text is not in stream-json (only its summary is); the
/// transcript has it, and the replay keeps it in the child session.
#[test]
fn the_transcript_holds_a_foreground_childs_own_text() {
    let run = root().join("real-native/claude-code/01-foreground-child");
    let source = native::read(&project_files(&run));
    let native = native::replay(&source, 0, native::Options::default()).unwrap();
    let view = render::json(&native.replay);
    let child = view["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "toolu_0001_0")
        .unwrap();
    let text = child.to_string();
    assert!(text.contains("There are three files."), "{child}");
    let stream = render::json(&enveloped(&run)).to_string();
    assert!(!stream.contains("There are three files."));
}
