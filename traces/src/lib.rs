//! The trace corpus (`traces/<format>/*.jsonl`) and the one helper that checks it.
//!
//! A corpus trace states what the seed demands of it in its header, written from the
//! seed text rather than from the reducer's output:
//!
//! ```json
//! {"lineage":"trace","format":"canonical","version":1,
//!  "scenario":"…","seed":"003 <section>: <rule>",
//!  "expectAt":{"5":{"turns":{"R#1":"waiting"}}},
//!  "expect":{"turns":{"R#1":"settled:completed"},"parents":{"A":"R#1"},
//!            "interactions":{"A#1/0":"pending"},"deleted":["A"],"absent":["C"],
//!            "findings":["7:spawn-after-cancel"]}}
//! ```
//!
//! [`check_trace`] replays the file and compares every expectation, after the stated lines
//! and at the end; `findings` must match exactly. Every applied step is also checked
//! against `check_invariants(Full)`.

// `serde_json::Value` indexing returns `Null` for a missing key; it never panics.
#![allow(clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, Options as EngineOptions, Replay};
use lineage_core::{Level, SessionId, Snapshot, TurnId};
use serde_json::Value;

/// A program's recording folders under `traces/<base>` (`real` or `real-native`): the
/// lab's first pinned version in `<base>/<program>`, then every later pin's recordings of
/// the same scenarios in `<base>/<program>@<version>` beside it (see `lab/README.md`), in
/// name order. A provider upgrade is the difference between two of these folders.
pub fn versions(base: &str, program: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(base);
    let prefix = format!("{program}@");
    let mut later: Vec<String> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(String::from))
                .filter(|name| name.starts_with(&prefix))
                .map(|name| format!("{base}/{name}"))
                .collect()
        })
        .unwrap_or_default();
    later.sort();
    let mut all = vec![format!("{base}/{program}")];
    all.extend(later);
    all
}

/// Every run folder of a program's native files, in each version's folder in turn
/// (`real-native/<program>/<run>/`, then `real-native/<program>@<version>/<run>/`).
#[allow(clippy::panic)] // a test helper: an unreadable corpus folder is a failed test
pub fn native_runs(program: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in versions("real-native", program) {
        let mut runs: Vec<PathBuf> = std::fs::read_dir(root.join(&dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        runs.sort();
        all.extend(runs);
    }
    all
}

/// The enveloped trace of the run whose native files are in `run`
/// (`real-native/<folder>/<run>/` → `real/<folder>/<run>.jsonl`).
pub fn enveloped_path(run: &Path) -> PathBuf {
    let name = run
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = run
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("real")
        .join(folder)
        .join(format!("{name}.jsonl"))
}

/// Every `*.jsonl` file of `traces/<dir>`, sorted.
pub fn corpus(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Checks `traces/<dir>/<file>` against its header and returns its `replay --format json`
/// text for the caller's snapshot. Panics with every unmet expectation listed.
#[allow(clippy::panic)] // a test helper reports failure by panicking
pub fn expect_trace(dir: &str, file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(file);
    let checked = check_trace(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checked.failures.is_empty(),
        "{dir}/{file} does not meet its expectations:\n  {}",
        checked.failures.join("\n  ")
    );
    lineage_core::render::json_string(&checked.replay, true)
}

/// Names of the `*.jsonl` files of `traces/<dir>` that are not in `named`.
pub fn unnamed(dir: &str, named: &[&str]) -> Vec<String> {
    corpus(dir)
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(String::from))
        .filter(|f| !named.contains(&f.as_str()))
        .collect()
}

/// The result of checking one trace: the replay, and every unmet expectation.
#[derive(Debug)]
pub struct Checked {
    /// The full replay.
    pub replay: Replay,
    /// Unmet expectations, as readable lines (empty when the trace passes).
    pub failures: Vec<String>,
}

/// Checks a real run's trace, `file` of the folder `dir` (relative to this crate), and
/// panics unless it was recorded, meets its header and gave nothing above a note (a
/// well-behaved real run). Returns the replay.
#[allow(clippy::panic)] // a test reports failure by panicking
pub fn expect_well_behaved(dir: &str, file: &str) -> Replay {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(file);
    assert!(
        path.exists(),
        "{dir}/{file}: not recorded with this version"
    );
    let checked = check_trace(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checked.failures.is_empty(),
        "{dir}/{file} does not meet its expectations:\n  {}",
        checked.failures.join("\n  ")
    );
    let loud: Vec<String> = checked
        .replay
        .findings
        .iter()
        .filter(|f| f.severity > lineage_core::Severity::Note)
        .map(|f| format!("{}:{} {}", f.line, f.rule, f.message))
        .collect();
    assert!(
        loud.is_empty(),
        "{dir}/{file}: a well-behaved real run gave warnings or errors:\n  {}",
        loud.join("\n  ")
    );
    checked.replay
}

/// Replays `path` and checks the expectations in its header. `Err` when the file cannot
/// be read or replayed at all.
pub fn check_trace(path: &Path) -> Result<Checked, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header: Value = text
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null);
    let mut failures = Vec::new();
    let mut snapshots: BTreeMap<usize, Snapshot> = BTreeMap::new();
    let wanted_lines: Vec<usize> = header["expectAt"]
        .as_object()
        .map(|m| m.keys().filter_map(|k| k.parse().ok()).collect())
        .unwrap_or_default();
    // Feed the lines one by one so that `expectAt` sees the state after each physical
    // line with all its consequences (an adapter may apply held records of earlier lines
    // when a later line registers their thread), exactly as `replay --at` does. Debug
    // builds also check every invariant after each reducer step.
    let mut engine = Engine::new(EngineOptions::default());
    for line in text.lines() {
        engine
            .push_line(line)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if let Err(v) = engine.snapshot().check_invariants(Level::Full) {
            failures.push(format!("line {}: invariant broken: {v}", engine.line()));
        }
        if wanted_lines.contains(&engine.line()) {
            snapshots.insert(engine.line(), engine.snapshot().clone());
        }
    }
    let replay = engine
        .finish()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let empty = Snapshot::new();
    let end = replay.snapshot().unwrap_or(&empty);
    if let Some(at) = header["expectAt"].as_object() {
        for (line, expect) in at {
            let n: usize = line.parse().unwrap_or(0);
            match snapshots.get(&n) {
                Some(s) => compare(s, expect, &format!("after line {n}"), &mut failures),
                None => failures.push(format!("expectAt {line}: the trace has no such line")),
            }
        }
    }
    compare(end, &header["expect"], "at the end", &mut failures);
    if let Some(want) = header["expect"]["findings"].as_array() {
        let want: Vec<String> = want
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        let got: Vec<String> = replay
            .findings
            .iter()
            .map(|f| format!("{}:{}", f.line, f.rule))
            .collect();
        if want != got {
            failures.push(format!("findings: expected {want:?}, got {got:?}"));
        }
    }
    Ok(Checked { replay, failures })
}

/// `"phase"` for an active turn, `"settled:<outcome>"` for a settled one.
pub fn turn_state(snapshot: &Snapshot, id: &TurnId) -> String {
    match snapshot.turn(id) {
        None => "absent".into(),
        Some(t) => match t.outcome {
            Some(o) => format!("settled:{o}"),
            None => t.phase.to_string(),
        },
    }
}

fn compare(snapshot: &Snapshot, expect: &Value, when: &str, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("{when}: {what}"));
    for (turn, want) in expect["turns"].as_object().into_iter().flatten() {
        let Ok(id) = turn.parse::<TurnId>() else {
            fail(format!("bad turn id {turn}"));
            continue;
        };
        let got = turn_state(snapshot, &id);
        if Some(got.as_str()) != want.as_str() {
            fail(format!("turn {turn}: expected {want}, got {got}"));
        }
    }
    for (child, want) in expect["parents"].as_object().into_iter().flatten() {
        let got = snapshot
            .session(&SessionId::from(child.as_str()))
            .and_then(|s| s.relation.as_ref())
            .map(|r| r.parent_turn.to_string());
        if got.as_deref() != want.as_str() {
            fail(format!("parent of {child}: expected {want}, got {got:?}"));
        }
    }
    for (key, want) in expect["interactions"].as_object().into_iter().flatten() {
        let got = key.rsplit_once('/').and_then(|(turn, request)| {
            let turn: TurnId = turn.parse().ok()?;
            snapshot
                .interaction(&turn, &request.into())
                .map(|i| i.status.to_string())
        });
        if got.as_deref() != want.as_str() {
            fail(format!("interaction {key}: expected {want}, got {got:?}"));
        }
    }
    for id in expect["deleted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !snapshot.session(&id.into()).is_some_and(|s| s.deleted) {
            fail(format!("session {id} should be deleted"));
        }
    }
    for id in expect["absent"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if snapshot.session(&id.into()).is_some() {
            fail(format!("session {id} should not exist"));
        }
    }
}

pub mod fold;
pub mod generator;

/// What must agree between two replays of one run: each session with its kind, parent,
/// title and Client activity, each turn with its phase and outcome, each interaction's
/// status, and the finding codes (times and line numbers may differ).
pub fn shape(replay: &Replay) -> Value {
    let view = lineage_core::render::json(replay);
    let sessions: Vec<Value> = view["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let turns: Vec<Value> = s["turns"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| serde_json::json!([t["id"], t["phase"], t["outcome"]]))
                .collect();
            serde_json::json!({"id": s["id"], "kind": s["kind"], "parent": s["parent"], "title": s["title"],
                   "activity": s["activity"], "turns": turns})
        })
        .collect();
    let interactions: Vec<Value> = view["interactions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| serde_json::json!([i["turn"], i["request"], i["status"]]))
        .collect();
    let mut codes: Vec<String> = replay.findings.iter().map(|f| f.rule.to_string()).collect();
    codes.sort();
    serde_json::json!({"sessions": sessions, "interactions": interactions, "codes": codes})
}

/// Replays a trace's text through the engine to its end, checked against `spec` (the ACP
/// RFD revision; the header's, or the default, when `None`).
#[allow(clippy::unwrap_used)] // a test helper: an untellable trace is a failed test
pub fn replay_text(text: &str, spec: Option<lineage_core::finding::Revision>) -> Replay {
    let mut engine = Engine::new(EngineOptions {
        acp_spec: spec,
        ..EngineOptions::default()
    });
    for line in text.lines() {
        engine.push_line(line).unwrap();
    }
    engine.finish().unwrap()
}

/// Every file under `dir` (walked with an explicit stack), in path order, read as the
/// files of a native source.
#[allow(clippy::unwrap_used)] // a test helper: an unreadable corpus file is a failed test
pub fn native_files(dir: &Path) -> Vec<lineage_core::native::File> {
    let mut stack = vec![dir.to_path_buf()];
    let mut paths = Vec::new();
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            lineage_core::native::File::new(p.display().to_string(), text)
        })
        .collect()
}
