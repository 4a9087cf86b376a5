//! The change stream is self-contained: folding the serialized changes alone (no
//! snapshot, no reducer) rebuilds exactly the final snapshot's `sessions` and
//! `interactions` (or, for `acp`, the Client view's JSON), for every trace of the corpus,
//! the real programs' recordings and native sources, and for generated traces of every
//! format (a property test). The fold (`lineage_traces::fold`) reads JSON only, as a
//! host in another language would.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, Options, Output};
use lineage_core::native;
use lineage_core::trace::Format;
use lineage_core::{Change, render};
use lineage_traces::fold::{AcpFold, Fold};
use lineage_traces::generator::{Shape, generate};
use proptest::prelude::*;
use serde_json::Value;

/// A consumer of the serialized changes: the session tree's or the ACP view's.
trait Consumer {
    fn apply(&mut self, change: &Value) -> Result<(), String>;
}

impl Consumer for Fold {
    fn apply(&mut self, change: &Value) -> Result<(), String> {
        Fold::apply(self, change)
    }
}

impl Consumer for AcpFold {
    fn apply(&mut self, change: &Value) -> Result<(), String> {
        AcpFold::apply(self, change)
    }
}

/// Folds one output's changes, checking that each survives a serde round trip.
fn fold_output(fold: &mut impl Consumer, out: &Output, name: &str) {
    for change in &out.changes {
        let text = serde_json::to_string(change).unwrap();
        let back: Change = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{name}: {text} does not read back: {e}"));
        assert_eq!(&back, change, "{name}: {text} reads back as another change");
        let value: Value = serde_json::from_str(&text).unwrap();
        fold.apply(&value)
            .unwrap_or_else(|e| panic!("{name}: cannot fold {text}: {e}"));
    }
}

/// Replays `text` line by line; `None` when it is not a tree format.
fn check_text(name: &str, text: &str) -> Option<()> {
    let mut engine = Engine::new(Options::default());
    let mut fold = Fold::new();
    for line in text.lines() {
        match engine.push_line(line) {
            Ok(out) => fold_output(&mut fold, &out, name),
            Err(_) => return None,
        }
    }
    // The engine's document as it stands is the one a cut there gives.
    assert_eq!(
        render::engine_json(&engine),
        render::json(&engine.clone().stop().ok()?),
        "{name}"
    );
    let end = engine.end().ok()?;
    fold_output(&mut fold, &end, name);
    let replay = engine.finish().ok()?;
    let expected = render::snapshot_json(replay.snapshot()?);
    compare(name, &fold.document(), &expected);
    Some(())
}

/// The folded document equals the engine's, value for value and byte for byte.
fn compare(name: &str, folded: &Value, expected: &Value) {
    if folded != expected {
        let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap();
        let (e, f) = (pretty(expected), pretty(folded));
        let first = e
            .lines()
            .zip(f.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        let around = |t: &str| {
            t.lines()
                .skip(first.saturating_sub(10))
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{name}: the folded changes differ from the engine's document near line {first}:\n--- engine\n{}\n--- folded\n{}",
            around(&e),
            around(&f)
        );
    }
    // Byte for byte too (member order included).
    assert_eq!(
        serde_json::to_string(folded).unwrap(),
        serde_json::to_string(expected).unwrap(),
        "{name}: same values, another member order"
    );
}

fn corpus_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
}

#[test]
fn folding_the_changes_of_every_corpus_trace_rebuilds_its_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs: Vec<String> = ["canonical", "codex", "claude"].map(String::from).to_vec();
    dirs.extend(lineage_traces::versions("real", "codex"));
    dirs.extend(lineage_traces::versions("real", "claude-code"));
    for dir in dirs {
        corpus_files(&root.join(dir), &mut files);
    }
    // The real programs' own output, without lineage's envelope or a header.
    for run in runs("claude-code") {
        files.push(run.join("both.jsonl"));
        files.push(run.join("stdout.jsonl"));
    }
    let mut folded = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.strip_prefix(root).unwrap().display().to_string();
        if check_text(&name, &text).is_some() {
            folded += 1;
        }
    }
    assert_eq!(folded, files.len(), "every trace of a tree format folds");
}

/// Every run of the program's native files, each version's folder included.
fn runs(program: &str) -> Vec<PathBuf> {
    lineage_traces::native_runs(program)
}

/// The files the real programs keep (Codex rollouts, Claude Code transcripts), read as
/// native sources: every tree's changes, its end's included, fold to its snapshot.
#[test]
fn folding_the_changes_of_native_sources_rebuilds_their_snapshots() {
    let mut trees = 0;
    for program in ["codex", "claude-code"] {
        for run in runs(program) {
            let files = lineage_traces::native_files(&run);
            let files: Vec<_> = files
                .into_iter()
                .filter(|f| !f.path.ends_with("both.jsonl") && !f.path.ends_with("stdout.jsonl"))
                .collect();
            let source = native::read(&files);
            for index in 0..source.streams.len() {
                let name = format!("{} tree {index}", run.display());
                let mut fold = Fold::new();
                let replayed = native::replay_observed(
                    &source,
                    index,
                    native::Options::default(),
                    |_, out, _| fold_output(&mut fold, out, &name),
                )
                .unwrap();
                fold_output(&mut fold, &replayed.end, &name);
                let expected = render::snapshot_json(replayed.replay.snapshot().unwrap());
                compare(&name, &fold.document(), &expected);
                trees += 1;
            }
        }
    }
    assert!(trees >= 30, "only {trees} native trees");
}

/// Folds an ACP trace's changes and compares the result with the final view's JSON.
fn check_acp_text(name: &str, text: &str) {
    let mut engine = Engine::new(Options::default());
    let mut fold = AcpFold::new();
    for line in text.lines() {
        let out = engine.push_line(line).unwrap();
        fold_output(&mut fold, &out, name);
    }
    assert_eq!(
        render::engine_json(&engine),
        render::json(&engine.clone().stop().unwrap()),
        "{name}"
    );
    let end = engine.end().unwrap();
    fold_output(&mut fold, &end, name);
    let replay = engine.finish().unwrap();
    assert_eq!(replay.format, Format::Acp, "{name}");
    let mut expected = render::json(&replay);
    if let Some(obj) = expected.as_object_mut() {
        obj.shift_remove("v");
        obj.shift_remove("format");
        obj.shift_remove("diagnostics");
    }
    compare(name, &fold.document(), &expected);
}

#[test]
fn folding_the_changes_of_every_acp_trace_rebuilds_its_client_view() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["acp", "real/claude-agent-acp", "real/codex-acp", "adapters"] {
        corpus_files(&root.join(dir), &mut files);
    }
    // The ACP conductor's own trace of a real run (the hop to the Agent is read).
    for run in runs("codex-acp") {
        files.push(run.join("conductor-trace.jsons"));
    }
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.strip_prefix(root).unwrap().display().to_string();
        check_acp_text(&name, &text);
    }
    assert!(files.len() > 100, "{}", files.len());
}

/// A generated trace's shape: wide fan-outs, deep nesting, long runs.
fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (1..12_usize).prop_map(|children| Shape::Wide { children }),
        (1..12_usize).prop_map(|depth| Shape::Deep { depth }),
        (20..300_usize).prop_map(|records| Shape::Long { records }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any generated trace of a tree format: its changes fold to its snapshot.
    #[test]
    fn folding_the_changes_of_generated_traces_rebuilds_their_snapshots(
        format in prop_oneof![
            Just(Format::Canonical),
            Just(Format::CodexAppServer),
            Just(Format::ClaudeSdk),
        ],
        shape in shapes(),
        seed in any::<u64>(),
    ) {
        let text = generate(format, shape, seed);
        let name = format!("{format}/{shape:?}/seed{seed}");
        prop_assert!(check_text(&name, &text).is_some(), "{} did not replay", name);
    }

    /// Any generated ACP trace: its changes fold to its Client view.
    #[test]
    fn folding_the_changes_of_generated_acp_traces_rebuilds_their_views(
        shape in shapes(),
        seed in any::<u64>(),
    ) {
        let text = generate(Format::Acp, shape, seed);
        check_acp_text(&format!("acp/{shape:?}/seed{seed}"), &text);
    }
}
