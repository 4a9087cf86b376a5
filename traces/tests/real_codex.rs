//! Real Codex app-server traffic (`traces/real/codex/`), recorded by `lab/record.mjs codex`
//! from `@openai/codex` against a scripted model. Each header states what the scenario
//! expects (written from the "Provider-Native Subagents" seed and from the ids the traffic
//! showed); every one of these runs is well behaved, so besides meeting its header a trace
//! must give no warning and no error, and only the notes its header lists. An insta
//! snapshot of each `replay --format json` keeps the whole tree (titles, messages, tool
//! calls) reviewable.
//!
//! `traces/real/codex/` holds the lab's first pin (0.169.0); each later pin's recordings
//! of the same scenarios are in `traces/real/codex@<version>/` beside it. Every named test
//! checks its scenario in each folder; the snapshot is kept of the first pin's run only
//! (a later run's ids differ; its header says what it must give).

use std::path::Path;

use lineage_traces::{expect_well_behaved, unnamed, versions};

const DIR: &str = "real/codex";

/// Every folder of the program's recordings, the first pin's (`DIR`) first.
fn dirs() -> Vec<String> {
    versions("real", "codex")
}

/// Checks one real trace of `dir`; returns its `replay --format json` text for the
/// snapshot.
fn expect_real_in(dir: &str, file: &str) -> String {
    lineage_core::render::json_string(&expect_well_behaved(dir, file), true)
}

macro_rules! real {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() {
            for dir in dirs() {
                let json = expect_real_in(&dir, $file);
                if dir == DIR {
                    insta::assert_snapshot!($file.trim_end_matches(".jsonl"), json);
                }
            }
        })*

        #[test]
        fn every_real_codex_trace_has_a_named_test() {
            for dir in dirs() {
                let missing = unnamed(&dir, &[$($file),*]);
                assert!(missing.is_empty(), "{dir}: traces without a named test: {missing:?}");
            }
        }
    };
}

real! {
    one_child_settles_after_its_root => "01-one-child.jsonl",
    two_children_one_after_the_other => "02-two-children.jsonl",
    parallel_children_settle_each_exact_child_turn => "03-parallel-children.jsonl",
    nested_grandchild_records_its_child_parent => "04-nested-grandchild.jsonl",
    child_approval_is_owned_by_the_child_turn => "05-child-approval.jsonl",
    root_provider_turn_ending_first_leaves_the_root_waiting => "06-root-ends-first.jsonl",
    failed_child_never_fails_the_root => "07-child-fails.jsonl",
    follow_up_to_the_same_child_is_a_second_child_turn => "08-follow-up-same-child.jsonl",
    root_interrupt_fan_out_settles_root_and_child_canceled => "09-interrupt-root-fan-out.jsonl",
    child_only_interrupt_leaves_the_root_to_complete => "10-child-only-interrupt.jsonl",
    interrupt_during_a_pending_approval_supersedes_it => "11-interrupt-during-approval.jsonl",
    steer_while_a_child_runs_joins_the_root_turn => "12-guidance-steer-while-child-runs.jsonl",
    second_turn_start_while_a_child_runs_joins_the_root_turn => "13-guidance-start-after-root-ended.jsonl",
    multi_agent_v2_spawn_is_one_edge_labelled_by_its_path => "14-multi-agent-v2.jsonl",
    multi_agent_v2_interrupt_fan_out => "15-multi-agent-v2-interrupt.jsonl",
    multi_agent_v2_follow_up_is_a_second_child_turn => "16-multi-agent-v2-follow-up.jsonl",
    root_question_while_a_child_runs_is_owned_by_the_root_turn => "17-root-question-while-child-runs.jsonl",
    interrupts_sent_at_once_settle_root_and_child_canceled => "18-interrupt-fan-out-at-once.jsonl",
    root_interrupt_aborting_a_spawn_in_flight_creates_no_child => "19-spawn-racing-root-interrupt.jsonl",
    every_thread_start_on_one_connection_is_a_root => "20-two-roots-one-connection.jsonl",
    resume_history_makes_the_next_turn_the_thread_s_next => "21-resume-history.jsonl",
}

/// Every real trace of every version's folder, each with its text.
#[allow(clippy::panic)] // a test reports failure by panicking
fn real_traces() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for dir in dirs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut here: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        here.sort();
        files.extend(here);
    }
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{e}"));
            (p.display().to_string(), text)
        })
        .collect()
}

/// The replay's JSON without its findings: the tree alone.
#[allow(clippy::panic)]
fn tree_json(text: &str) -> (lineage_core::serde_json::Value, Vec<String>) {
    let replay = lineage_core::replay::replay(text, &lineage_core::replay::Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut json: lineage_core::serde_json::Value =
        lineage_core::serde_json::from_str(&lineage_core::render::json_string(&replay, false))
            .unwrap_or_else(|e| panic!("{e}"));
    if let Some(doc) = json.as_object_mut() {
        doc.remove("diagnostics");
    }
    let rules = replay
        .findings
        .iter()
        .map(|f| format!("{}:{}", f.line, f.rule))
        .collect();
    (json, rules)
}

#[test]
fn every_record_captured_twice_gives_the_same_tree_and_one_note() {
    for (name, text) in real_traces() {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        let mut doubled = format!("{header}\n");
        for line in lines {
            doubled.push_str(&format!("{line}\n{line}\n"));
        }
        let (original, _) = tree_json(&text);
        let (twice, rules) = tree_json(&doubled);
        assert_eq!(
            twice, original,
            "{name}: duplicated records changed the tree"
        );
        assert_eq!(rules, ["3:duplicate-record"], "{name}");
    }
}

#[test]
fn the_second_half_alone_says_the_trace_starts_mid_session() {
    for (name, text) in real_traces() {
        let lines: Vec<&str> = text.lines().skip(1).collect();
        let half = lines.get(lines.len() / 2..).unwrap_or_default().join("\n");
        let (_, mut rules) = tree_json(&half);
        // The cut may leave the answer to a request of the first half first.
        rules.retain(|r| !r.ends_with(":unknown-response"));
        if half.contains(r#""method":"turn/start""#) {
            continue; // the root is identified again by a later turn/start
        }
        assert_eq!(
            rules
                .first()
                .map(|r| r.ends_with(":trace-starts-mid-session")),
            Some(true),
            "{name}: {rules:?}"
        );
        assert!(
            !rules.iter().any(|r| r.ends_with(":unclaimed-thread-events")
                || r.ends_with(":unknown-thread-request")),
            "{name}: {rules:?}"
        );
    }
}
