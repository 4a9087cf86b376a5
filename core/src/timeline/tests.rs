//! The timeline recorder over corpus traces and bounds.

use super::*;
use crate::engine::{Engine, Options};

fn record(text: &str) -> (Summary, Replay) {
    let mut engine = Engine::new(Options::default());
    let mut timeline = Timeline::default();
    for line in text.lines() {
        let out = engine.push_line(line).unwrap();
        timeline.observe(&engine, &out);
    }
    let replay = engine.finish().unwrap();
    (timeline.summary(&replay), replay)
}

fn lane<'a>(s: &'a Summary, id: &str) -> &'a Lane {
    s.lanes.iter().find(|l| l.id == id).unwrap()
}

#[test]
fn a_codex_fan_out_cancel_draws_every_turn_settling_then_canceled_with_its_acks() {
    let (s, _) = record(include_str!(
        "../../../traces/codex/11-user-cancel-full-fanout.jsonl"
    ));
    let ids: Vec<&str> = s.lanes.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(
        ids,
        ["019aa0b2-root", "019aa0b3-child-a", "019aa0b4-child-b"]
    );
    let root = lane(&s, "019aa0b2-root");
    assert_eq!(root.bars.len(), 1);
    let bar = &root.bars[0];
    assert_eq!(
        (bar.from, bar.to, bar.outcome.as_deref()),
        (4, Some(22), Some("canceled"))
    );
    let phases: Vec<&str> = bar.phases.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(phases, ["submitted", "running", "settling"]);
    assert_eq!(
        bar.phases[2].0, 14,
        "the cancel is prepared at the root interrupt (line 14)"
    );
    assert_eq!(
        lane(&s, "019aa0b3-child-a").parent.as_deref(),
        Some("019aa0b2-root")
    );
    assert_eq!(s.cancels.len(), 1);
    let cancel = &s.cancels[0];
    assert_eq!((cancel.prepared, cancel.completed), (14, Some(22)));
    assert_eq!(cancel.targets.len(), 3);
    assert!(
        cancel.targets.iter().all(|(_, ack)| ack.is_some()),
        "{cancel:?}"
    );
    // Times come from `at`; the activity curve rises to 3 and ends at 0.
    assert!(s.times.first().is_some_and(|&(line, _)| line <= 4));
    assert_eq!(s.activity.iter().map(|&(_, n)| n).max(), Some(3));
    assert_eq!(s.activity.last().map(|&(_, n)| n), Some(0));
}

#[test]
fn child_approvals_are_asked_and_answered_on_the_child_lane() {
    let (s, replay) = record(include_str!(
        "../../../traces/canonical/09-child-approvals.jsonl"
    ));
    assert!(!s.asks.is_empty());
    let snapshot = replay.snapshot().unwrap();
    for ask in &s.asks {
        let owner = snapshot
            .session(&SessionId::from(ask.session.as_str()))
            .unwrap();
        assert!(owner.relation.is_some(), "{ask:?} is owned by a child");
        assert!(ask.to.is_none_or(|to| to >= ask.from));
    }
}

#[test]
fn an_acp_failed_resume_redraws_every_session_under_it() {
    let (s, _) = record(include_str!(
        "../../../traces/acp/scenarios/13-failed-resume-invalidates-attempt.jsonl"
    ));
    let worker = lane(&s, "worker");
    let last = worker.bars.last().unwrap();
    assert_eq!(last.phases[0].1, "unconfirmed", "{worker:?}");
    assert!(worker.bars.iter().any(|b| b.phases[0].1 == "running"));
    assert!(
        s.windows
            .iter()
            .any(|w| w.kind == "disconnected" && w.to.is_some())
    );
}

#[test]
fn lanes_and_bars_are_bounded() {
    let mut text = String::from(r#"{"event":{"type":"root_session_created","session":"R"}}"#);
    for n in 0..(MAX_BARS + 10) {
        text.push('\n');
        text.push_str(r#"{"event":{"type":"user_submitted","session":"R"}}"#);
        text.push('\n');
        text.push_str(r#"{"event":{"type":"root_provider_turn_started","session":"R"}}"#);
        if n == 0 {
            for c in 0..(MAX_LANES + 5) {
                text.push_str(&format!(
                    "\n{{\"event\":{{\"type\":\"child_spawned\",\"session\":\"C{c}\",\"parent_session\":\"R\",\"tool_call\":\"t{c}\"}}}}\n{{\"event\":{{\"type\":\"child_turn_completed\",\"session\":\"C{c}\",\"outcome\":\"completed\"}}}}"
                ));
            }
        }
        text.push('\n');
        text.push_str(r#"{"event":{"type":"root_provider_turn_completed","session":"R","outcome":"completed"}}"#);
    }
    let (s, _) = record(&text);
    assert_eq!(s.lanes.len(), MAX_LANES);
    assert_eq!(s.elided_lanes, 6, "R and 505 children, 500 drawn");
    let root = lane(&s, "R");
    assert_eq!(root.bars.len(), MAX_BARS);
    assert_eq!(root.elided_bars, 10);
    assert_eq!(root.bars.first().map(|b| b.turn.as_str()), Some("R#1"));
    assert_eq!(root.bars.last().map(|b| b.turn.as_str()), Some("R#210"));
}

#[test]
fn tree_order_puts_children_under_their_parent_without_recursion() {
    let ids: Vec<String> = ["a", "b", "a1", "b1", "a2", "a11"].map(String::from).into();
    let parent = |id: &str| match id {
        "a1" | "a2" => Some("a".to_owned()),
        "b1" => Some("b".to_owned()),
        "a11" => Some("a1".to_owned()),
        _ => None,
    };
    assert_eq!(
        tree_order(&ids, parent),
        ["a", "a1", "a11", "a2", "b", "b1"]
    );
    let deep: Vec<String> = (0..100_000).map(|n| n.to_string()).collect();
    let chain = |id: &str| {
        id.parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .map(|n| (n - 1).to_string())
    };
    assert_eq!(tree_order(&deep, chain).len(), 100_000);
}

#[test]
fn a_resumed_threads_history_turn_draws_its_phases_in_the_order_they_happened() {
    // The `thread/resume` response opens and settles the history turn in one record; the
    // bar starts `submitted`, not with the phase the record ends in.
    let (s, _) = record(include_str!(
        "../../../traces/codex/21-resume-history.jsonl"
    ));
    let root = lane(&s, "019ad0b1-root");
    assert_eq!(root.bars.len(), 2);
    let history = &root.bars[0];
    assert_eq!(
        (history.from, history.to, history.outcome.as_deref()),
        (10, Some(10), Some("completed"))
    );
    let phases: Vec<&str> = history.phases.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(phases, ["submitted", "running", "waiting"]);
}
