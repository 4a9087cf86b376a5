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
use lineage_traces::{native_files, replay_text, shape};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn runs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("real-native/claude-code"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("projects").is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn project_files(run: &Path) -> Vec<File> {
    native_files(&run.join("projects"))
}

fn enveloped(run: &Path) -> Replay {
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    let path = root()
        .join("real/claude-code")
        .join(format!("{name}.jsonl"));
    replay_text(&std::fs::read_to_string(path).unwrap(), None)
}

fn name(run: &Path) -> String {
    run.file_name().unwrap().to_string_lossy().into_owned()
}

/// Sets `shape`'s value at `pointer` to `to`, checking it was `from`: a stated difference
/// that no longer exists fails the test too.
fn change(shape: &mut Value, pointer: &str, from: Value, to: Value) {
    let slot = shape.pointer_mut(pointer).unwrap();
    assert_eq!(*slot, from, "{pointer}");
    *slot = to;
}

/// The enveloped run's shape, changed where the transcript cannot say what the stream
/// carried. Every other run must agree exactly.
fn as_the_transcript_can_say(run: &str, mut stream: Value) -> Value {
    match run {
        // A permission the host answered: the transcript keeps the user's decision on the
        // tool result (`permissionDecision.source: user_temporary`) but not the CLI's
        // request id, so the reader names the request after the tool use.
        "05-child-permission" => change(
            &mut stream,
            "/interactions/0/1",
            json!("08e2a5df-cb90-4925-9785-a9ec94775b0a"),
            json!("permission-toolu_0002_0"),
        ),
        // The child's permission request was still pending when the user interrupted:
        // a request nobody answered leaves no decision in the transcript, so there is no
        // interaction to supersede.
        "12-interrupt-during-permission" => {
            let superseded = json!([[
                "toolu_0001_0#1",
                "a76eecf9-42c2-4a4f-a2f9-3cae213242f4",
                "superseded"
            ]]);
            change(&mut stream, "/interactions", superseded, json!([]));
        }
        // The user interrupted after the root's model turn had ended, while two
        // background children ran. With no model turn running the CLI writes no
        // `[Request interrupted by user]` in the root: the transcript holds only the
        // children's `killed` notifications (the same as two stop_task requests), so the
        // children end canceled and the root turn, whose model turn completed, completes.
        "18-interrupt-with-background-children" => change(
            &mut stream,
            "/sessions/0/turns/0/2",
            json!("canceled"),
            json!("completed"),
        ),
        _ => {}
    }
    stream
}

#[test]
fn each_real_project_folder_replays_like_the_enveloped_trace_of_its_run() {
    let runs = runs();
    assert_eq!(runs.len(), 20);
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
        let expected = as_the_transcript_can_say(&name(&run), shape(&enveloped(&run)));
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
