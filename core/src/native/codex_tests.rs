//! The rollout reader on hand-made rollouts modelled on Codex 0.169's (the real ones are
//! replayed in `traces/tests/native_rollouts.rs`): linking, ordering, older shapes, and
//! bad input.

use serde_json::{Value, json};

use crate::native::{self, File, Options};
use crate::{Phase, SessionId, TurnId};

fn line(ts: &str, kind: &str, payload: Value) -> String {
    json!({"timestamp": format!("2026-12-01T15:01:{ts}Z"), "type": kind, "payload": payload})
        .to_string()
}

fn meta(id: &str, parent: Option<&str>) -> String {
    let source = match parent {
        Some(p) => json!({"subagent": {"thread_spawn": {"parent_thread_id": p, "depth": 1}}}),
        None => json!("cli"),
    };
    line(
        "00.000",
        "session_meta",
        json!({"id": id, "source": source}),
    )
}

fn ev(ts: &str, payload: Value) -> String {
    line(ts, "event_msg", payload)
}

fn user(ts: &str, thread: &str, turn: &str, text: &str) -> String {
    ev(
        ts,
        json!({"type": "item_completed", "thread_id": thread, "turn_id": turn,
                  "item": {"type": "UserMessage", "id": format!("u-{ts}"), "content": [{"type": "text", "text": text}]}}),
    )
}

fn root_file(spawn: Value) -> String {
    [
        meta("R", None),
        ev("01.000", json!({"type": "task_started", "turn_id": "r1"})),
        user("01.100", "R", "r1", "go"),
        ev("01.200", spawn),
        ev(
            "03.000",
            json!({"type": "task_complete", "turn_id": "r1", "error": null}),
        ),
    ]
    .join("\n")
}

fn v1_spawn() -> Value {
    json!({"type": "item_completed", "thread_id": "R", "turn_id": "r1",
           "item": {"type": "CollabAgentToolCall", "id": "call_1", "tool": "spawn_agent", "status": "completed",
                    "sender_thread_id": "R", "receiver_thread_ids": ["A"], "prompt": "count"}})
}

fn child_file(end: &str) -> String {
    [
        meta("A", Some("R")),
        ev("01.300", json!({"type": "task_started", "turn_id": "a1"})),
        user("01.310", "A", "a1", "count"),
        ev(
            "02.000",
            json!({"type": end, "turn_id": "a1", "reason": "interrupted"}),
        ),
    ]
    .join("\n")
}

fn phase(source: &native::Source, turn: &str) -> Option<(Phase, Option<crate::Outcome>)> {
    let replayed = native::replay(source, 0, Options::default()).ok()?;
    let (session, n) = turn.split_once('#')?;
    let t = replayed
        .replay
        .snapshot()?
        .turn(&TurnId::new(SessionId::from(session), n.parse().ok()?))?
        .clone();
    Some((t.phase, t.outcome))
}

#[test]
fn a_child_is_linked_by_its_session_meta_and_the_root_waits_for_it() {
    let files = [
        File::new("r.jsonl", root_file(v1_spawn())),
        File::new("a.jsonl", child_file("task_complete")),
    ];
    let source = native::read(&files);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    assert_eq!(source.streams.len(), 1);
    assert_eq!(source.streams[0].files, [0, 1]);
    assert_eq!(phase(&source, "R#1").map(|p| p.0), Some(Phase::Settled));
    assert_eq!(phase(&source, "A#1").map(|p| p.0), Some(Phase::Settled));
    let replayed = native::replay(&source, 0, Options::default()).unwrap();
    let tree = replayed.replay.snapshot().unwrap();
    let child = tree.session(&"A".into()).unwrap();
    let parent = child.relation.as_ref().map(|r| r.parent_session.as_str());
    assert_eq!(parent, Some("R"));
}

#[test]
fn a_cut_keeps_the_root_waiting_on_the_child_still_running() {
    let files = [
        File::new("r.jsonl", root_file(v1_spawn())),
        File::new("a.jsonl", child_file("task_complete")),
    ];
    let source = native::read(&files);
    // Records in order: the root's submission (request, answer), turn start, spawn,
    // the child's turn start, its task message, … — stop before the child ends.
    let until = source.streams[0]
        .records
        .iter()
        .position(|(p, _)| p.file == 1 && p.line == 4)
        .unwrap();
    let replayed = native::replay(
        &source,
        0,
        Options {
            until: Some(until),
            ..Options::default()
        },
    )
    .unwrap();
    let tree = replayed.replay.snapshot().unwrap();
    let root = tree.turn(&TurnId::new("R".into(), 1)).unwrap();
    assert_ne!(root.phase, Phase::Settled, "{root:?}");
}

#[test]
fn an_interrupted_child_is_canceled_and_an_older_spawn_record_links_too() {
    let spawn = json!({"type": "collab_agent_spawn_end", "call_id": "call_1", "sender_thread_id": "R", "new_thread_id": "A", "prompt": "count"});
    let files = [
        File::new("r.jsonl", root_file(spawn)),
        File::new("a.jsonl", child_file("turn_aborted")),
    ];
    let source = native::read(&files);
    let child = phase(&source, "A#1").unwrap();
    assert_eq!(child, (Phase::Settled, Some(crate::Outcome::Canceled)));
    assert_eq!(phase(&source, "R#1").map(|p| p.0), Some(Phase::Settled));
}

#[test]
fn a_child_without_its_parent_s_file_is_reported_not_guessed() {
    let files = [File::new("a.jsonl", child_file("task_complete"))];
    let source = native::read(&files);
    assert!(source.streams.is_empty());
    assert_eq!(source.findings.len(), 1);
    assert_eq!(source.findings[0].finding.rule, "native-parent-missing");
    assert_eq!(
        (source.findings[0].file, source.findings[0].finding.line),
        (0, 1)
    );
}

#[test]
fn a_truncated_last_line_unknown_kinds_and_an_unrelated_file_are_located() {
    let mut root = root_file(v1_spawn());
    root.push('\n');
    root.push_str(&line("04.000", "galaxy_state", json!({})));
    root.push('\n');
    root.push_str(&ev("04.100", json!({"type": "nebula_event"})));
    root.push_str("\n{\"timestamp\":\"2026-12-01T15:01:05.000Z\",\"type\":\"event_msg\",\"pay");
    let files = [
        File::new("r.jsonl", root),
        File::new("a.jsonl", child_file("task_complete")),
        File::new("notes.jsonl", "{\"todo\":\"ship\"}\n"),
    ];
    let source = native::read(&files);
    assert_eq!(source.findings.len(), 1);
    assert_eq!(source.findings[0].file, 2);
    assert_eq!(source.findings[0].finding.rule, "native-file-unrelated");
    let findings: Vec<(usize, usize, &str)> = source.streams[0]
        .findings
        .iter()
        .map(|l| (l.file, l.finding.line, l.finding.rule.as_str()))
        .collect();
    assert_eq!(
        findings,
        [
            (0, 1, "native-source-limits"),
            (0, 8, "malformed-record"),
            (0, 6, "native-record-skipped")
        ]
    );
    let skipped = &source.streams[0].findings[2].finding.message;
    assert!(
        skipped.contains("`galaxy_state` (1)") && skipped.contains("`event_msg/nebula_event` (1)"),
        "{skipped}"
    );
    // The rest is still read: the tree settles.
    assert_eq!(phase(&source, "R#1").map(|p| p.0), Some(Phase::Settled));
}

#[test]
fn a_v2_child_skips_the_parent_history_it_starts_with() {
    let child = [
        line(
            "00.000",
            "session_meta",
            json!({"id": "A", "parent_thread_id": "R", "subagent_history_start_ordinal": 2}),
        ),
        // The copied history of the root: a turn that is the root's, not the child's.
        json!({"timestamp": "2026-12-01T15:01:01.250Z", "ordinal": 1, "type": "event_msg",
               "payload": {"type": "task_started", "turn_id": "copied"}})
        .to_string(),
        json!({"timestamp": "2026-12-01T15:01:01.300Z", "ordinal": 2, "type": "event_msg",
               "payload": {"type": "task_started", "turn_id": "a1"}})
        .to_string(),
        json!({"timestamp": "2026-12-01T15:01:02.000Z", "ordinal": 3, "type": "event_msg",
               "payload": {"type": "task_complete", "turn_id": "a1"}})
        .to_string(),
    ]
    .join("\n");
    let files = [
        File::new("r.jsonl", root_file(v1_spawn())),
        File::new("a.jsonl", child),
    ];
    let source = native::read(&files);
    let replayed = native::replay(&source, 0, Options::default()).unwrap();
    let tree = replayed.replay.snapshot().unwrap();
    assert_eq!(tree.session(&"A".into()).unwrap().turns.len(), 1);
    assert_eq!(phase(&source, "A#1").map(|p| p.0), Some(Phase::Settled));
}

#[test]
fn a_steer_in_the_root_turn_is_guidance_and_a_failed_turn_says_why() {
    let root = [
        meta("R", None),
        ev("01.000", json!({"type": "task_started", "turn_id": "r1"})),
        user("01.100", "R", "r1", "go"),
        user("01.500", "R", "r1", "and be brief"),
        ev("02.000", json!({"type": "task_complete", "turn_id": "r1", "error": {"message": "model unavailable"}})),
    ]
    .join("\n");
    let source = native::read(&[File::new("r.jsonl", root)]);
    let replayed = native::replay(&source, 0, Options::default()).unwrap();
    let tree = replayed.replay.snapshot().unwrap();
    let session = tree.session(&"R".into()).unwrap();
    assert_eq!(session.turns.len(), 1, "guidance joins the running turn");
    let texts: Vec<String> = session.messages.iter().map(|m| m.text.to_text()).collect();
    let has = |t: &str| texts.iter().any(|x| x == t);
    assert!(has("and be brief") && has("model unavailable"), "{texts:?}");
    assert_eq!(
        phase(&source, "R#1"),
        Some((Phase::Settled, Some(crate::Outcome::Failed)))
    );
}

#[test]
fn an_older_rollout_without_items_reads_its_message_events() {
    let root = [
        meta("R", None),
        ev("01.000", json!({"type": "task_started", "turn_id": "r1"})),
        ev("01.100", json!({"type": "user_message", "message": "go"})),
        ev(
            "01.900",
            json!({"type": "agent_message", "message": "done"}),
        ),
        ev("02.000", json!({"type": "task_complete", "turn_id": "r1"})),
    ]
    .join("\n");
    let source = native::read(&[File::new("r.jsonl", root)]);
    let replayed = native::replay(&source, 0, Options::default()).unwrap();
    let tree = replayed.replay.snapshot().unwrap();
    let session = tree.session(&"R".into()).unwrap();
    let texts: Vec<String> = session.messages.iter().map(|m| m.text.to_text()).collect();
    assert_eq!(texts, ["go", "done"]);
    assert_eq!(
        phase(&source, "R#1"),
        Some((Phase::Settled, Some(crate::Outcome::Completed)))
    );
}

/// Which rollout lines are skipped unread is decided as serde_json's reading of the head
/// decides it: early at a `type` (or an `event_msg`'s `payload.type`) the reader reads,
/// whatever follows; at the end for a silent one, whose whole line must be JSON; and by
/// serde_json itself for a line lineage's parser refuses (a lone surrogate escape).
#[test]
fn a_rollout_line_is_silent_as_serde_json_reads_its_head() {
    let lines = [
        r#"{"timestamp":"T","type":"response_item","payload":{"type":"message","content":[1]}}"#,
        r#"{"type":"response_item","payload":{"type":"message"}} trailing"#,
        r#"{"type":"response_item","payload":{"type":"message""#,
        r#"{"type":"event_msg","payload":{"type":"token_count","info":null}}"#,
        r#"{"type":"event_msg","payload":{"type":"task_started"},"x":[}"#,
        r#"{"payload":{"type":"task_started"},"type":"compacted"}"#,
        r#"{"payload":{"type":"token_count"},"type":"event_msg"}"#,
        r#"{"type":"event_msg","payload":{"type":"token_count","type":"token_count"}}"#,
        r#"{"type":"event_msg","payload":["token_count"]}"#,
        r#"{"type":"event_msg","payload":"token_count"}"#,
        r#"{"type":"event_msg","payload":null}"#,
        r#"{"type":"event_msg"}"#,
        r#"{"type":"session_meta","payload":{}}"#,
        r#"{"type":"turn_context","type":"turn_context"}"#,
        r#"{"type":"turn_context","payload":{"x":"\ud800"}}"#,
        r#"{"typ\u0065":"turn_context"}"#,
        r#"{"type":7}"#,
        r#"{"type":"event_msg","payload":{"type":5}}"#,
        r#"["response_item"]"#,
        r#"{}"#,
    ];
    for line in lines {
        assert_eq!(
            super::is_silent(line),
            super::serde_is_silent(line),
            "{line}"
        );
    }
    assert!(super::is_silent(lines[0]));
    assert!(super::is_silent(lines[14]), "serde_json takes it");
    assert!(!super::is_silent(lines[4]));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
    /// [`a_rollout_line_is_silent_as_serde_json_reads_its_head`] over generated lines.
    #[test]
    fn any_rollout_line_is_silent_as_serde_json_reads_its_head(
        line in super::super::head_lines::line()
    ) {
        proptest::prop_assert_eq!(super::is_silent(&line), super::serde_is_silent(&line), "{}", line);
    }
}
