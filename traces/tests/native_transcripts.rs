//! Claude Code transcripts: the project folder each real run left on disk
//! (`traces/real-native/claude-code/<run>/projects/<dir>/`, recorded from Claude Code
//! 2.1.328 against a scripted model) replays, through `native::read` and `native::replay`,
//! to the same tree as the enveloped stream-json trace of the same run
//! (`traces/real/claude-code/<run>.jsonl`), except where the transcript cannot hold what
//! the stream carried: each such difference is stated per run below, with its reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, Options, Replay};
use lineage_core::native::{self, File};
use lineage_core::render;
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn replay(text: &str) -> Replay {
    let mut engine = Engine::new(Options::default());
    for line in text.lines() {
        engine.push_line(line).unwrap();
    }
    engine.finish().unwrap()
}

/// What must agree between two replays of one run (the `shape` of `tests/native.rs`):
/// each session with its kind, parent, title and Client activity, each turn with its
/// phase and outcome, each interaction's status, and the finding codes.
fn shape(replay: &Replay) -> Value {
    let view = render::json(replay);
    let sessions: Vec<Value> = view["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let turns: Vec<Value> = s["turns"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| json!([t["id"], t["phase"], t["outcome"]]))
                .collect();
            json!({"id": s["id"], "kind": s["kind"], "parent": s["parent"], "title": s["title"],
                   "activity": s["activity"], "turns": turns})
        })
        .collect();
    let interactions: Vec<Value> = view["interactions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| json!([i["turn"], i["request"], i["status"]]))
        .collect();
    let mut codes: Vec<String> = replay.findings.iter().map(|f| f.rule.to_string()).collect();
    codes.sort();
    json!({"sessions": sessions, "interactions": interactions, "codes": codes})
}

/// Every file under `dir`, walked in path order.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
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
    walk(&run.join("projects"))
        .into_iter()
        .map(|p| File::new(p.to_string_lossy(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

fn enveloped(run: &Path) -> Replay {
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    let path = root().join("real/claude-code").join(format!("{name}.jsonl"));
    replay(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn diagnose() {
    for run in runs() {
        let source = native::read(&project_files(&run));
        assert_eq!(source.streams.len(), 1, "{}", run.display());
        let native = native::replay(&source, 0, native::Options::default()).unwrap();
        let a = shape(&native.replay);
        let b = shape(&enveloped(&run));
        let name = run.file_name().unwrap().to_string_lossy().into_owned();
        if a == b {
            println!("{name}: EQUAL");
        } else {
            println!("{name}: DIFF\n  native:    {a}\n  enveloped: {b}");
        }
        for f in &native.findings {
            println!("    {} {}:{} {} {}", f.finding.rule, f.file, f.finding.line, f.finding.severity, f.finding.message.chars().take(150).collect::<String>());
        }
        for f in &source.findings {
            println!("    SRC {} {}:{} {}", f.finding.rule, f.file, f.finding.line, f.finding.message);
        }
    }
}
