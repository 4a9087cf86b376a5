//! Adapter tests on small inline traces; the corpus in `traces/codex/` covers the rest.

use crate::TurnId;
use crate::replay::{Options, Replay, replay};

fn run(records: &[&str]) -> Replay {
    let mut text = String::from(
        r#"{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"R"}"#,
    );
    for r in records {
        text.push('\n');
        text.push_str(r);
    }
    replay(&text, &Options::default()).unwrap()
}

fn state(r: &Replay, turn: &str) -> String {
    match r.snapshot().unwrap().turn(&turn.parse::<TurnId>().unwrap()) {
        None => "absent".into(),
        Some(t) => t
            .outcome
            .map_or_else(|| t.phase.to_string(), |o| format!("settled:{o}")),
    }
}

fn rules(r: &Replay) -> Vec<String> {
    r.findings
        .iter()
        .map(|f| format!("{}:{}", f.line, f.rule))
        .collect()
}

const START: [&str; 2] = [
    r#"{"from":"client","message":{"id":1,"method":"turn/start","params":{"threadId":"R","input":[{"type":"text","text":"go"}]}}}"#,
    r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"R","turn":{"id":"tr1","items":[],"status":"inProgress"}}}}"#,
];

fn spawn(child: &str) -> String {
    format!(
        r#"{{"from":"server","message":{{"method":"item/completed","params":{{"threadId":"R","turnId":"tr1","item":{{"type":"collabAgentToolCall","id":"call_{child}","tool":"spawnAgent","status":"completed","senderThreadId":"R","receiverThreadIds":["{child}"],"agentsStates":{{}}}}}}}}}}"#
    )
}

fn with(more: &[&str]) -> Vec<String> {
    START
        .iter()
        .map(|s| s.to_string())
        .chain(more.iter().map(|s| s.to_string()))
        .collect()
}

fn run_owned(records: &[String]) -> Replay {
    let refs: Vec<&str> = records.iter().map(String::as_str).collect();
    run(&refs)
}

#[test]
fn root_interrupt_answered_before_the_fan_out_waits_for_the_child_interrupts() {
    let a = spawn("A");
    let records = with(&[
        &a,
        r#"{"from":"client","message":{"id":7,"method":"turn/interrupt","params":{"threadId":"R","turnId":"tr1"}}}"#,
        r#"{"from":"server","message":{"id":7,"result":{}}}"#,
        r#"{"from":"client","message":{"id":8,"method":"turn/interrupt","params":{"threadId":"A","turnId":"ta1"}}}"#,
        r#"{"from":"server","message":{"id":8,"result":{}}}"#,
    ]);
    let after_root_response = run_owned(&records[..5]);
    assert_eq!(
        state(&after_root_response, "A#1"),
        "settling",
        "A's interrupt is still to come"
    );
    let r = run_owned(&records);
    assert_eq!(state(&r, "A#1"), "settled:canceled");
    assert_eq!(state(&r, "R#1"), "settled:canceled");
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn held_records_replay_in_order_into_the_single_initial_child_turn() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"inProgress"}}}}"#,
        r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"A","turnId":"ta1","itemId":"m1","delta":"hel"}}}"#,
        r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"A","turnId":"ta1","itemId":"m1","delta":"lo"}}}"#,
        &a,
    ]));
    assert_eq!(state(&r, "A#1"), "running");
    assert_eq!(state(&r, "A#2"), "absent");
    let session = r.snapshot().unwrap().session(&"A".into()).unwrap();
    assert_eq!(session.messages[0].text, "hello");
    assert_eq!(
        state(&r, "R#1"),
        "running",
        "nothing attributed to the root"
    );
}

#[test]
fn both_spawn_shapes_repeated_register_one_child() {
    let activity = r#"{"from":"server","message":{"method":"item/completed","params":{"threadId":"R","turnId":"tr1","item":{"type":"subAgentActivity","id":"call_A","kind":"started","agentThreadId":"A","agentPath":"/a"}}}}"#;
    let a = spawn("A");
    let r = run_owned(&with(&[activity, activity, &a]));
    let session = r.snapshot().unwrap().session(&"A".into()).unwrap();
    assert_eq!(session.turns.len(), 1);
    assert_eq!(
        session
            .relation
            .as_ref()
            .unwrap()
            .tool_call
            .as_ref()
            .unwrap()
            .as_str(),
        "call_A"
    );
    assert_eq!(rules(&r), ["5:duplicate-spawn", "6:duplicate-spawn"]);
}

#[test]
fn a_request_on_an_unregistered_thread_is_never_given_to_the_root() {
    let r = run_owned(&with(&[
        r#"{"from":"server","message":{"id":3,"method":"item/commandExecution/requestApproval","params":{"threadId":"Z","turnId":"tz","itemId":"c","startedAtMs":1}}}"#,
        r#"{"from":"client","message":{"id":3,"result":{"decision":"accept"}}}"#,
    ]));
    assert!(r.snapshot().unwrap().interactions().is_empty());
    assert_eq!(
        rules(&r),
        ["4:unknown-thread-request", "5:unclaimed-thread-events"]
    );
}

#[test]
fn an_answer_to_a_held_request_waits_with_it() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        r#"{"from":"server","message":{"id":3,"method":"item/commandExecution/requestApproval","params":{"threadId":"A","turnId":"ta","itemId":"c","startedAtMs":1}}}"#,
        r#"{"from":"client","message":{"id":3,"result":{"decision":"accept"}}}"#,
        &a,
    ]));
    let i = r
        .snapshot()
        .unwrap()
        .find_interaction(&"A".into(), &"3".into())
        .unwrap();
    assert_eq!(i.status, crate::InteractionStatus::Answered);
    assert_eq!(i.turn.to_string(), "A#1");
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}
