//! `render::otlp` over the whole corpus: every trace of `traces/` and `traces/real/`
//! (ACP ones as their Client view) and every native source of `traces/real-native/`
//! exported to OTLP/JSON, decoded with the official OTLP protobuf definitions
//! (`opentelemetry-proto`'s serde types), and its span parent links compared with the
//! session tree: each turn is one `invoke_agent` span, a child session's turns hang
//! (through at most the spawning `execute_tool` span) under the turn that spawned it,
//! outcomes and phases are attributes, a failed turn alone has status `ERROR`; an ACP
//! session's span hangs under its parent's. The export is deterministic, every key it
//! writes is in the mapping table, and `docs/otel.md` lists every row of the table.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lineage_core::engine::{Engine, Options, Replay, State};
use lineage_core::native;
use lineage_core::render::otlp::{self, Recorder};
use lineage_core::tree::Outcome;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::{Span, status::StatusCode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every `*.jsonl` under `dir` (walked), sorted.
fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut out = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn line_traces() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in ["canonical", "codex", "claude", "acp", "real"] {
        all.extend(jsonl_under(&root().join(dir)));
    }
    for run in runs("claude-code") {
        all.push(run.join("both.jsonl"));
        all.push(run.join("stdout.jsonl"));
    }
    all
}

/// Every run of the program's native files, each version's folder included.
fn runs(program: &str) -> Vec<PathBuf> {
    lineage_traces::native_runs(program)
}

/// The export of a line trace, with the replay it describes.
fn export_lines(text: &str) -> (String, Replay) {
    let mut engine = Engine::new(Options::default());
    let mut recorder = Recorder::default();
    for line in text.lines() {
        let out = engine.push_line(line).unwrap();
        recorder.observe(&engine, &out);
    }
    let end = engine.end().unwrap();
    recorder.observe_end(&end);
    let replay = engine.finish().unwrap();
    (otlp::export_json(&replay, &recorder), replay)
}

/// The exports of every tree of a native source.
fn export_native(dir: &Path) -> Vec<(String, Replay)> {
    let source = native::read(&lineage_traces::native_files(dir));
    (0..source.streams.len())
        .map(|i| {
            let mut recorder = Recorder::default();
            let r = native::replay_observed(&source, i, native::Options::default(), |e, o, _| {
                recorder.observe(e, o)
            })
            .unwrap();
            recorder.observe_end(&r.end);
            (otlp::export_json(&r.replay, &recorder), r.replay)
        })
        .collect()
}

fn attr(span: &Span, key: &str) -> Option<String> {
    let kv = span.attributes.iter().find(|a| a.key == key)?;
    match kv.value.as_ref()?.value.as_ref()? {
        Any::StringValue(s) => Some(s.clone()),
        Any::IntValue(n) => Some(n.to_string()),
        Any::BoolValue(b) => Some(b.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn decode(json: &str, what: &str) -> Vec<Span> {
    let request: ExportTraceServiceRequest =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{what}: not OTLP/JSON: {e}"));
    assert_eq!(request.resource_spans.len(), 1, "{what}");
    let resource = &request.resource_spans[0];
    assert_eq!(resource.scope_spans.len(), 1, "{what}");
    resource.scope_spans[0].spans.clone()
}

/// A span's nearest `invoke_agent` ancestor (through `execute_tool` spans).
fn agent_parent<'a>(span: &Span, by_id: &BTreeMap<Vec<u8>, &'a Span>) -> Option<&'a Span> {
    let mut parent = span.parent_span_id.clone();
    for _ in 0..=by_id.len() {
        if parent.is_empty() {
            return None;
        }
        let p = by_id
            .get(&parent)
            .unwrap_or_else(|| panic!("dangling parent of {}", span.name));
        if attr(p, "gen_ai.operation.name").as_deref() == Some("invoke_agent") {
            return Some(p);
        }
        parent = p.parent_span_id.clone();
    }
    panic!("a parent cycle above {}", span.name)
}

/// The tree the spans rebuild, as `turn -> (parent turn, phase, outcome)`, for a
/// session tree; `session -> parent session` for an ACP view.
fn rebuilt(spans: &[Span], what: &str) -> BTreeMap<String, (Option<String>, String, String)> {
    let by_id: BTreeMap<Vec<u8>, &Span> = spans.iter().map(|s| (s.span_id.clone(), s)).collect();
    assert_eq!(by_id.len(), spans.len(), "{what}: span ids are unique");
    let mut tree = BTreeMap::new();
    for span in spans {
        let parent = agent_parent(span, &by_id);
        if let Some(p) = parent {
            assert_eq!(
                span.trace_id, p.trace_id,
                "{what}: {} left its trace",
                span.name
            );
        }
        let op = attr(span, "gen_ai.operation.name").unwrap();
        if op == "execute_tool" {
            // A tool call hangs directly under its own turn (or ACP session).
            let p = parent.unwrap();
            let own = attr(span, "lineage.turn.id").or(attr(span, "lineage.session.id"));
            let theirs = attr(p, "lineage.turn.id").or(attr(p, "lineage.session.id"));
            assert_eq!(own, theirs, "{what}: {}", span.name);
            continue;
        }
        assert_eq!(op, "invoke_agent", "{what}");
        let key = |s: &Span| {
            attr(s, "lineage.turn.id")
                .or(attr(s, "lineage.session.id"))
                .unwrap()
        };
        let outcome = attr(span, "lineage.turn.outcome").unwrap_or_default();
        let code = span.status.as_ref().map_or(0, |s| s.code);
        let failed = outcome == "failed";
        assert_eq!(
            code == StatusCode::Error as i32,
            failed,
            "{what}: status of {}",
            key(span)
        );
        let phase = attr(span, "lineage.turn.phase").unwrap_or_default();
        assert!(
            span.end_time_unix_nano >= span.start_time_unix_nano,
            "{what}"
        );
        tree.insert(key(span), (parent.map(key), phase, outcome));
    }
    tree
}

/// The same, read from the replay itself.
fn expected(replay: &Replay) -> BTreeMap<String, (Option<String>, String, String)> {
    let mut tree = BTreeMap::new();
    match &replay.state {
        State::Tree(snapshot) => {
            for s in snapshot.sessions().filter(|s| !s.deleted) {
                let parent = s.relation.as_ref().map(|r| r.parent_turn.to_string());
                for t in &s.turns {
                    let outcome = t
                        .outcome
                        .map(|o: Outcome| o.to_string())
                        .unwrap_or_default();
                    tree.insert(
                        t.id.to_string(),
                        (parent.clone(), t.phase.to_string(), outcome),
                    );
                }
            }
        }
        State::Acp(view) => {
            for s in view.sessions() {
                let parent = s.parent.as_deref().map(str::to_owned);
                tree.insert(s.id.to_string(), (parent, String::new(), String::new()));
            }
        }
    }
    tree
}

/// Every span id seen with its trace id: a span id names one span in one trace, across
/// the whole corpus (backends key spans by span id alone, and several recordings hold
/// children with the same ids under different roots).
type Seen = BTreeMap<Vec<u8>, Vec<u8>>;

fn check(json: &str, replay: &Replay, what: &str, keys: &mut BTreeSet<String>, seen: &mut Seen) {
    let spans = decode(json, what);
    for s in &spans {
        let trace = seen
            .entry(s.span_id.clone())
            .or_insert_with(|| s.trace_id.clone());
        assert_eq!(
            *trace, s.trace_id,
            "{what}: span id of {} reused in another trace",
            s.name
        );
    }
    for s in &spans {
        keys.extend(s.attributes.iter().map(|a| a.key.clone()));
        for e in &s.events {
            keys.extend(e.attributes.iter().map(|a| a.key.clone()));
        }
    }
    assert_eq!(rebuilt(&spans, what), expected(replay), "{what}");
}

#[test]
fn every_trace_s_spans_rebuild_its_session_tree_and_decode_as_otlp() {
    let mut keys = BTreeSet::new();
    let mut seen = Seen::new();
    let traces = line_traces();
    assert!(traces.len() > 200, "{}", traces.len());
    let mut spans = 0;
    for path in &traces {
        let text = std::fs::read_to_string(path).unwrap();
        let (json, replay) = export_lines(&text);
        let what = path.display().to_string();
        check(&json, &replay, &what, &mut keys, &mut seen);
        assert_eq!(json, export_lines(&text).0, "{what}: not deterministic");
        spans += decode(&json, &what).len();
    }
    let mut trees = 0;
    for (program, folder) in [("codex", "sessions"), ("claude-code", "projects")] {
        for run in runs(program) {
            for (json, replay) in export_native(&run.join(folder)) {
                check(
                    &json,
                    &replay,
                    &run.display().to_string(),
                    &mut keys,
                    &mut seen,
                );
                trees += 1;
            }
        }
    }
    assert!(trees >= 39, "{trees}");
    assert!(spans > 900, "{spans}");
    let table: BTreeSet<&str> = otlp::TABLE.iter().map(|r| r.key).collect();
    let unlisted: Vec<&String> = keys
        .iter()
        .filter(|k| !table.contains(k.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "written but not in the mapping table: {unlisted:?}"
    );
}

#[test]
fn the_docs_list_every_row_of_the_mapping_table() {
    let docs = std::fs::read_to_string(root().join("../docs/otel.md")).unwrap();
    for row in otlp::TABLE {
        assert!(
            docs.contains(&format!("`{}`", row.key)),
            "docs/otel.md lacks `{}`",
            row.key
        );
    }
    assert!(docs.contains(otlp::SEMCONV_VERSION));
}

#[test]
fn every_failed_turn_is_an_error_and_canceled_ones_are_not() {
    // The corpus holds both: make sure the status check above saw each kind.
    let mut seen = BTreeSet::new();
    for path in line_traces() {
        let (json, _) = export_lines(&std::fs::read_to_string(&path).unwrap());
        for s in decode(&json, &path.display().to_string()) {
            if let Some(o) = attr(&s, "lineage.turn.outcome") {
                seen.insert(o);
            }
        }
    }
    for outcome in ["completed", "failed", "canceled", "interrupted"] {
        assert!(seen.contains(outcome), "no {outcome} turn in the corpus");
    }
}

/// The last `thread/tokenUsage/updated` total of each (thread, provider turn) of a
/// Codex app-server trace, read straight from its lines: (input, output).
fn codex_totals(text: &str) -> BTreeMap<(String, String), (u64, u64)> {
    let mut totals = BTreeMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let m = &v["message"];
        if m["method"] != "thread/tokenUsage/updated" {
            continue;
        }
        let p = &m["params"];
        let total = &p["tokenUsage"]["total"];
        totals.insert(
            (
                p["threadId"].as_str().unwrap().to_owned(),
                p["turnId"].as_str().unwrap().to_owned(),
            ),
            (
                total["inputTokens"].as_u64().unwrap(),
                total["outputTokens"].as_u64().unwrap(),
            ),
        );
    }
    totals
}

/// A real Codex recording whose child runs two turns: each turn span carries the tokens
/// the trace reports for it. A thread's first turn has the thread's last total for that
/// turn; its second turn what the total grew by after the first (the total runs over the
/// thread's turns).
#[test]
fn a_real_codex_recording_s_turn_spans_carry_the_trace_s_token_counts() {
    let text =
        std::fs::read_to_string(root().join("real/codex/08-follow-up-same-child.jsonl")).unwrap();
    let totals = codex_totals(&text);
    let (json, replay) = export_lines(&text);
    let spans = decode(&json, "08-follow-up-same-child");
    let State::Tree(snapshot) = &replay.state else {
        panic!("a session tree")
    };
    let root = snapshot.roots()[0].id.to_string();
    let child = snapshot.sessions().find(|s| s.relation.is_some()).unwrap();
    let child = child.id.to_string();
    // The provider turns, in the order the trace started them, per thread.
    let turns = |thread: &str| -> Vec<(u64, u64)> {
        let mut seen: Vec<(u64, u64)> = Vec::new();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let p = &v["message"]["params"];
            if v["message"]["method"] == "turn/started" && p["threadId"] == thread {
                let turn = p["turn"]["id"].as_str().unwrap().to_owned();
                seen.push(totals[&(thread.to_owned(), turn)]);
            }
        }
        seen
    };
    let root_turns = turns(&root);
    let child_turns = turns(&child);
    assert_eq!((root_turns.len(), child_turns.len()), (1, 2));
    let tokens = |turn: &str| {
        let span = spans
            .iter()
            .find(|s| {
                attr(s, "lineage.turn.id").as_deref() == Some(turn)
                    && attr(s, "gen_ai.operation.name").as_deref() == Some("invoke_agent")
            })
            .unwrap_or_else(|| panic!("no span for {turn}"));
        let n = |key: &str| attr(span, key).map(|v| v.parse::<u64>().unwrap());
        (
            n("gen_ai.usage.input_tokens"),
            n("gen_ai.usage.output_tokens"),
        )
    };
    let (input, output) = root_turns[0];
    assert_eq!(tokens(&format!("{root}#1")), (Some(input), Some(output)));
    let (input, output) = child_turns[0];
    assert_eq!(tokens(&format!("{child}#1")), (Some(input), Some(output)));
    let (first, second) = (child_turns[0], child_turns[1]);
    assert_eq!(
        tokens(&format!("{child}#2")),
        (Some(second.0 - first.0), Some(second.1 - first.1))
    );
    assert!(second.0 > first.0, "the second turn used tokens");
}
