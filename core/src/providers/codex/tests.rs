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
    // The same edge (same parent, same spawn call) reported three times is one
    // registration: no note (seed: "registration and normalized events remain idempotent").
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(
        session.title.as_deref(),
        Some("/a"),
        "v2: agentPath labels the child"
    );
}

#[test]
fn a_spawn_of_the_same_child_under_another_call_is_still_reported() {
    let a = spawn("A");
    let other = a.replace(r#""id":"call_A""#, r#""id":"call_other""#);
    let r = run_owned(&with(&[&a, &other]));
    assert_eq!(rules(&r), ["5:reparent-rejected"]);
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

const CHILD_TURN: &str = r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"inProgress"}}}}"#;

/// Real Codex 0.169 answers `{}` to each `turn/interrupt` before the turn completes
/// `interrupted`; after the fan-out the child's terminal is the cancel's own fallout.
#[test]
fn interrupted_terminals_after_the_interrupt_answers_add_no_note() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        &a,
        CHILD_TURN,
        r#"{"from":"server","message":{"method":"item/started","params":{"threadId":"R","turnId":"tr1","item":{"type":"collabAgentToolCall","id":"call_wait","tool":"wait","status":"inProgress","receiverThreadIds":["A"]}}}}"#,
        r#"{"from":"server","message":{"method":"item/started","params":{"threadId":"A","turnId":"ta1","item":{"type":"commandExecution","id":"cmd1","status":"inProgress"}}}}"#,
        r#"{"from":"client","message":{"id":7,"method":"turn/interrupt","params":{"threadId":"R","turnId":"tr1"}}}"#,
        r#"{"from":"server","message":{"id":7,"result":{}}}"#,
        r#"{"from":"client","message":{"id":8,"method":"turn/interrupt","params":{"threadId":"A","turnId":"ta1"}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"R","turn":{"id":"tr1","items":[],"status":"interrupted"}}}}"#,
        r#"{"from":"server","message":{"id":8,"result":{}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"interrupted"}}}}"#,
    ]));
    assert_eq!(state(&r, "R#1"), "settled:canceled");
    assert_eq!(state(&r, "A#1"), "settled:canceled");
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    let snapshot = r.snapshot().unwrap();
    for (session, call) in [("R", "call_wait"), ("A", "cmd1")] {
        let tool =
            &snapshot.session(&session.into()).unwrap().tool_calls[&crate::CallId::from(call)];
        assert_eq!(
            tool.status,
            crate::ToolStatus::Canceled,
            "{call} left open by the interrupt ends with its turn"
        );
    }
}

#[test]
fn a_completed_terminal_after_a_cancel_is_still_a_late_terminal() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        &a,
        CHILD_TURN,
        r#"{"from":"client","message":{"id":8,"method":"turn/interrupt","params":{"threadId":"A","turnId":"ta1"}}}"#,
        r#"{"from":"server","message":{"id":8,"result":{}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"completed"}}}}"#,
    ]));
    assert_eq!(state(&r, "A#1"), "settled:canceled");
    assert_eq!(rules(&r), ["8:late-terminal"]);
}

#[test]
fn a_request_resolved_after_the_interrupt_superseded_it_adds_no_note() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        &a,
        CHILD_TURN,
        r#"{"from":"server","message":{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"A","turnId":"ta1","itemId":"cmd1","startedAtMs":1}}}"#,
        r#"{"from":"client","message":{"id":8,"method":"turn/interrupt","params":{"threadId":"A","turnId":"ta1"}}}"#,
        r#"{"from":"server","message":{"id":8,"result":{}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"interrupted"}}}}"#,
        r#"{"from":"server","message":{"method":"serverRequest/resolved","params":{"threadId":"A","requestId":0}}}"#,
    ]));
    let i = r
        .snapshot()
        .unwrap()
        .find_interaction(&"A".into(), &"0".into())
        .unwrap();
    assert_eq!(i.status, crate::InteractionStatus::Superseded);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

/// Server request ids start at 0, like the client's: a response is matched by direction.
#[test]
fn overlapping_client_and_server_request_ids_and_threadless_requests_match_by_direction() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        &a,
        CHILD_TURN,
        r#"{"from":"server","message":{"id":1,"method":"item/commandExecution/requestApproval","params":{"threadId":"A","turnId":"ta1","itemId":"cmd1","startedAtMs":1}}}"#,
        r#"{"from":"server","message":{"id":2,"method":"account/chatgptAuthTokens/refresh","params":{"reason":"unauthorized"}}}"#,
        r#"{"from":"server","message":{"id":1,"result":{"turn":{"id":"tr1"}}}}"#,
        r#"{"from":"client","message":{"id":2,"result":{}}}"#,
        r#"{"from":"client","message":{"id":1,"result":{"decision":"accept"}}}"#,
    ]));
    let i = r
        .snapshot()
        .unwrap()
        .find_interaction(&"A".into(), &"1".into())
        .unwrap();
    assert_eq!(i.status, crate::InteractionStatus::Answered);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn a_childs_task_prompt_is_its_first_message_and_the_v1_prompt_its_label() {
    let a = spawn("A").replace(
        r#""status":"completed","#,
        r#""status":"completed","prompt":"Count to three\nthen stop","#,
    );
    let r = run_owned(&with(&[
        &a,
        CHILD_TURN,
        r#"{"from":"server","message":{"method":"item/completed","params":{"threadId":"A","turnId":"ta1","item":{"type":"userMessage","id":"u1","content":[{"type":"text","text":"Count to three\nthen stop"}]}}}}"#,
        r#"{"from":"server","message":{"method":"item/completed","params":{"threadId":"R","turnId":"tr1","item":{"type":"userMessage","id":"u0","content":[{"type":"text","text":"go"}]}}}}"#,
    ]));
    let snapshot = r.snapshot().unwrap();
    let child = snapshot.session(&"A".into()).unwrap();
    assert_eq!(child.title.as_deref(), Some("Count to three"));
    assert_eq!(child.messages.len(), 1);
    assert_eq!(child.messages[0].role, crate::Role::User);
    assert_eq!(child.messages[0].text, "Count to three\nthen stop");
    let root = snapshot.session(&"R".into()).unwrap();
    assert_eq!(
        root.messages.iter().filter(|m| m.text == "go").count(),
        1,
        "the root's userMessage repeats its turn/start input: not a second message"
    );
}

/// Without an envelope `at`, the provider's own `emittedAtMs` is the record's time.
#[test]
fn emitted_at_ms_times_a_record_without_at() {
    let r = run(&[
        START[0],
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"R","turn":{"id":"tr1","items":[],"status":"inProgress"}},"emittedAtMs":1500}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"R","turn":{"id":"tr1","items":[],"status":"completed"}},"emittedAtMs":2500}}"#,
    ]);
    let turn = r
        .snapshot()
        .unwrap()
        .turn(&"R#1".parse::<TurnId>().unwrap())
        .unwrap()
        .clone();
    assert_eq!(turn.settled_at, Some(2500));
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn a_tool_item_left_open_by_a_failed_turn_fails_with_it() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        &a,
        CHILD_TURN,
        r#"{"from":"server","message":{"method":"item/started","params":{"threadId":"A","turnId":"ta1","item":{"type":"commandExecution","id":"cmd1","status":"inProgress"}}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"failed","error":{"message":"stream disconnected"}}}}}"#,
    ]));
    assert_eq!(state(&r, "A#1"), "settled:failed");
    let snapshot = r.snapshot().unwrap();
    let tool = &snapshot.session(&"A".into()).unwrap().tool_calls[&crate::CallId::from("cmd1")];
    assert_eq!(tool.status, crate::ToolStatus::Failed);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn a_repeated_turn_start_id_is_reported_and_not_a_second_submission() {
    let r = run(&[
        START[0],
        START[1],
        r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"R","turnId":"tr1","itemId":"m","delta":"hi"}}}"#,
        START[0],
        r#"{"from":"server","message":{"id":1,"result":{}}}"#,
        START[0],
    ]);
    assert_eq!(
        rules(&r),
        ["5:duplicate-request-id", "7:duplicate-request-id"],
        "{:?}",
        r.findings
    );
    assert!(
        r.findings[0].message.contains("line 2, still pending"),
        "{}",
        r.findings[0].message
    );
    assert!(
        r.findings[1].message.contains("line 2, already answered"),
        "{}",
        r.findings[1].message
    );
    let root = r
        .snapshot()
        .unwrap()
        .turn(&"R#1".parse::<TurnId>().unwrap())
        .unwrap();
    assert_eq!(root.guidance, 0, "a repeated request is no guidance");
}

#[test]
fn a_repeated_server_request_id_is_one_interaction() {
    let ask = r#"{"from":"server","message":{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"R","turnId":"tr1","itemId":"c1","command":"ls"}}}"#;
    let r = run_owned(&with(&[
        ask,
        r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"R","turnId":"tr1","itemId":"m","delta":"hi"}}}"#,
        ask,
    ]));
    assert_eq!(rules(&r), ["6:duplicate-request-id"], "{:?}", r.findings);
}

#[test]
fn records_equal_to_the_one_before_are_skipped_and_said_once() {
    // A record with no time (`turn/started` here has no `emittedAtMs`) applies again.
    let delta = r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"R","turnId":"tr1","itemId":"m","delta":"hi"},"emittedAtMs":5}}"#;
    let start = START[0].replace("}}}", r#"}},"at":3}"#);
    let r = run(&[&start, &start, START[1], START[1], delta, delta, delta]);
    assert_eq!(rules(&r), ["3:duplicate-record"], "{:?}", r.findings);
    assert!(
        r.findings[0].message.contains("3 record(s)")
            && r.findings[0]
                .message
                .contains("1 request(s), 0 response(s), 2 notification(s)"),
        "{}",
        r.findings[0].message
    );
    let root = r
        .snapshot()
        .unwrap()
        .turn(&"R#1".parse::<TurnId>().unwrap())
        .unwrap();
    assert_eq!(root.guidance, 0);
}

#[test]
fn a_line_is_a_duplicate_only_byte_for_byte_and_a_record_pushed_as_data_when_equal() {
    use crate::engine::{Engine, Options as EngineOptions};
    use crate::providers::ProviderRecord;
    let delta = r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"R","turnId":"tr1","itemId":"m","delta":"hi"},"emittedAtMs":5}}"#;
    // The same JSON written with other spacing is not a capture's duplicate: it applies.
    let spaced = delta.replace(",\"emittedAtMs\"", ", \"emittedAtMs\"");
    let r = run(&[START[0], START[1], delta, &spaced]);
    assert!(rules(&r).is_empty(), "{:?}", r.findings);
    let text = |r: &Replay| {
        let session = r.snapshot().unwrap().session(&"R".into()).unwrap().clone();
        session
            .messages
            .iter()
            .map(|m| m.text.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(text(&r).last().map(String::as_str), Some("hihi"));
    // Pushed as data, a record equal to the one before it is the duplicate.
    let mut engine = Engine::new(EngineOptions::default());
    engine
        .push_line(
            r#"{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"R"}"#,
        )
        .unwrap();
    for line in START {
        engine.push_line(line).unwrap();
    }
    let value: serde_json::Value = serde_json::from_str(delta).unwrap();
    let record = ProviderRecord::new("server", value["message"].clone(), None);
    engine.push_record(record.clone()).unwrap();
    engine.push_record(record).unwrap();
    let r = engine.finish().unwrap();
    assert_eq!(rules(&r), ["5:duplicate-record"], "{:?}", r.findings);
    assert_eq!(text(&r).last().map(String::as_str), Some("hi"));
}

#[test]
fn a_trace_without_its_beginning_says_it_starts_mid_session() {
    let text = [
        r#"{"from":"server","message":{"method":"item/agentMessage/delta","params":{"threadId":"R","turnId":"tr1","itemId":"m","delta":"hi"}}}"#,
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"inProgress"}}}}"#,
        r#"{"from":"server","message":{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"A","turnId":"ta1","itemId":"c1","command":"ls"}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"R","turn":{"id":"tr1","items":[],"status":"completed"}}}}"#,
    ]
    .join("\n");
    let r = replay(&text, &Options::default()).unwrap();
    assert_eq!(
        rules(&r),
        ["1:trace-starts-mid-session"],
        "{:?}",
        r.findings
    );
    let message = &r.findings[0].message;
    assert!(
        message.contains("`R`: 2 record(s), lines 1, 4")
            && message.contains("`A`: 2 record(s), lines 2, 3"),
        "{message}"
    );
    assert!(message.contains(r#""rootThreadId""#), "{message}");
}

/// Replays `records` under `header` (and `--session`, when given).
fn run_with(header: &str, session: Option<&str>, records: &[String]) -> Replay {
    let mut engine = crate::engine::Engine::new(crate::engine::Options {
        codex_session: session.map(String::from),
        ..crate::engine::Options::default()
    });
    engine.push_line(header).unwrap();
    for r in records {
        engine.push_line(r).unwrap();
    }
    engine.finish().unwrap()
}

const PLAIN: &str = r#"{"lineage":"trace","format":"codex-app-server","version":1}"#;

/// A root thread's whole life on the connection: `thread/start` (request `n`), a turn
/// that spawns `child`, the child's turn, the root's terminal.
fn root_life(n: u32, root: &str, child: &str) -> Vec<String> {
    let turn = format!("t{root}");
    [
        format!(r#"{{"from":"client","message":{{"id":{n},"method":"thread/start","params":{{}}}}}}"#),
        format!(r#"{{"from":"server","message":{{"id":{n},"result":{{"thread":{{"id":"{root}","turns":[]}}}}}}}}"#),
        format!(r#"{{"from":"client","message":{{"id":{},"method":"turn/start","params":{{"threadId":"{root}","input":[{{"type":"text","text":"go"}}]}}}}}}"#, n + 1),
        format!(r#"{{"from":"server","message":{{"method":"turn/started","params":{{"threadId":"{root}","turn":{{"id":"{turn}","items":[],"status":"inProgress"}}}}}}}}"#),
        format!(r#"{{"from":"server","message":{{"method":"item/completed","params":{{"threadId":"{root}","turnId":"{turn}","item":{{"type":"collabAgentToolCall","id":"call_{child}","tool":"spawnAgent","status":"completed","senderThreadId":"{root}","receiverThreadIds":["{child}"],"agentsStates":{{}}}}}}}}}}"#),
        format!(r#"{{"from":"server","message":{{"method":"turn/started","params":{{"threadId":"{child}","turn":{{"id":"t{child}","items":[],"status":"inProgress"}}}}}}}}"#),
        format!(r#"{{"from":"server","message":{{"method":"turn/completed","params":{{"threadId":"{child}","turn":{{"id":"t{child}","items":[],"status":"completed"}}}}}}}}"#),
        format!(r#"{{"from":"server","message":{{"method":"turn/completed","params":{{"threadId":"{root}","turn":{{"id":"{turn}","items":[],"status":"completed"}}}}}}}}"#),
    ]
    .into()
}

fn roots(r: &Replay) -> Vec<String> {
    let snapshot = r.snapshot().unwrap();
    snapshot.roots().iter().map(|s| s.id.to_string()).collect()
}

fn parent(r: &Replay, child: &str) -> Option<String> {
    let snapshot = r.snapshot().unwrap();
    let child = snapshot.session(&child.into())?;
    Some(child.relation.as_ref()?.parent_turn.to_string())
}

#[test]
fn every_thread_start_on_one_connection_is_a_root_with_its_own_children() {
    let records: Vec<String> = root_life(1, "R1", "A")
        .into_iter()
        .chain(root_life(3, "R2", "B"))
        .collect();
    let r = run_with(PLAIN, None, &records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(roots(&r), ["R1", "R2"]);
    for turn in ["R1#1", "A#1", "R2#1", "B#1"] {
        assert_eq!(state(&r, turn), "settled:completed", "{turn}");
    }
    assert_eq!(parent(&r, "A").as_deref(), Some("R1#1"));
    assert_eq!(parent(&r, "B").as_deref(), Some("R2#1"));
    // The header's root is the one shown first; the other is still a root.
    let header =
        r#"{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"R2"}"#;
    let r = run_with(header, None, &records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(roots(&r), ["R2", "R1"]);
    assert_eq!(state(&r, "B#1"), "settled:completed");
    assert_eq!(state(&r, "A#1"), "settled:completed");
}

#[test]
fn session_folds_the_tree_of_one_root_and_skips_the_others_silently() {
    let records: Vec<String> = root_life(1, "R1", "A")
        .into_iter()
        .chain(root_life(3, "R2", "B"))
        .collect();
    let r = run_with(PLAIN, Some("R2"), &records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(roots(&r), ["R2"]);
    assert_eq!(state(&r, "B#1"), "settled:completed");
    assert_eq!(state(&r, "A#1"), "absent");
    let r = run_with(PLAIN, Some("R1"), &records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(roots(&r), ["R1"]);
    assert_eq!(state(&r, "B#1"), "absent");
    // The header naming another root changes nothing; naming this one, it is the root
    // even when its `thread/start` was not captured.
    let names = |root: &str| {
        format!(
            r#"{{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"{root}"}}"#
        )
    };
    let r = run_with(&names("R2"), Some("R1"), &records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(roots(&r), ["R1"]);
    let without_start = &records[2..8];
    let r = run_with(&names("R1"), Some("R1"), without_start);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(state(&r, "A#1"), "settled:completed");
}

/// The resume response's shape is the app-server protocol v2's `ThreadResumeResponse`
/// (openai/codex `codex-rs/app-server-protocol/src/protocol/v2/thread.rs`): `thread`,
/// whose `turns` hold the earlier turns with their items (populated unless the request
/// set `excludeTurns`), as real 0.169 sent it in `traces/real/codex/21-resume-history.jsonl`.
#[test]
fn a_resumed_thread_s_earlier_turns_are_history_and_the_next_turn_is_its_second() {
    let records: Vec<String> = [
        r#"{"from":"client","message":{"id":1,"method":"thread/resume","params":{"threadId":"R"}}}"#,
        r#"{"from":"server","message":{"id":1,"result":{"thread":{"id":"R","status":{"type":"idle"},"turns":[{"id":"tr1","items":[{"type":"userMessage","id":"u1","content":[{"type":"text","text":"delegate"}]},{"type":"collabAgentToolCall","id":"call_1","tool":"spawnAgent","status":"completed","senderThreadId":"R","receiverThreadIds":["A"],"prompt":"[task:A] count","agentsStates":{"A":{"status":"pendingInit","message":null}}},{"type":"collabAgentToolCall","id":"call_2","tool":"wait","status":"completed","senderThreadId":"R","receiverThreadIds":["A"],"agentsStates":{"A":{"status":"completed","message":"1 2 3"}}},{"type":"agentMessage","id":"m1","text":"done"}],"status":"completed","error":null}]},"model":"m"}}}"#,
        r#"{"from":"client","message":{"id":2,"method":"turn/start","params":{"threadId":"R","input":[{"type":"text","text":"again"}]}}}"#,
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"R","turn":{"id":"tr2","items":[],"status":"inProgress"}}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"R","turn":{"id":"tr2","items":[],"status":"completed"}}}}"#,
    ]
    .map(String::from)
    .into();
    let r = run_with(PLAIN, None, &records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(state(&r, "R#1"), "settled:completed");
    assert_eq!(state(&r, "A#1"), "settled:completed");
    assert_eq!(parent(&r, "A").as_deref(), Some("R#1"));
    assert_eq!(state(&r, "R#2"), "settled:completed");
    assert_eq!(state(&r, "R#3"), "absent");
    let snapshot = r.snapshot().unwrap();
    let child = snapshot.session(&"A".into()).unwrap();
    let texts: Vec<String> = child.messages.iter().map(|m| m.text.to_string()).collect();
    assert_eq!(texts, ["[task:A] count", "1 2 3"]);
}

/// After the root's cancel: the server starts another root turn (tr2).
fn cancelled_then_server_turn() -> Vec<String> {
    with(&[
        r#"{"from":"client","message":{"id":7,"method":"turn/interrupt","params":{"threadId":"R","turnId":"tr1"}}}"#,
        r#"{"from":"server","message":{"id":7,"result":{}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"R","turn":{"id":"tr1","items":[],"status":"interrupted"}}}}"#,
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"R","turn":{"id":"tr2","items":[],"status":"inProgress"}}}}"#,
    ])
}

/// Seed, *Codex App-Server Mapping*: "After root cancellation, a later turn/started on
/// the root thread is not an ordinary unowned turn: interrupt it immediately."
#[test]
fn a_server_turn_after_a_root_cancel_that_the_host_interrupts_is_no_finding() {
    let mut records = cancelled_then_server_turn();
    records.extend([
        r#"{"from":"client","message":{"id":8,"method":"turn/interrupt","params":{"threadId":"R","turnId":"tr2"}}}"#,
        r#"{"from":"server","message":{"id":8,"result":{}}}"#,
        r#"{"from":"server","message":{"method":"item/completed","params":{"threadId":"R","turnId":"tr2","item":{"type":"agentMessage","id":"m9","text":"resuming"}}}}"#,
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"R","turn":{"id":"tr2","items":[],"status":"interrupted"}}}}"#,
    ].map(String::from));
    let r = run_owned(&records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(state(&r, "R#1"), "settled:canceled");
    assert_eq!(state(&r, "R#2"), "absent");
    // The next user turn is the root's second, as usual.
    records.extend([
        r#"{"from":"client","message":{"id":9,"method":"turn/start","params":{"threadId":"R","input":[{"type":"text","text":"next"}]}}}"#,
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"R","turn":{"id":"tr3","items":[],"status":"inProgress"}}}}"#,
    ].map(String::from));
    let r = run_owned(&records);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
    assert_eq!(state(&r, "R#2"), "running");
}

#[test]
fn a_server_turn_after_a_root_cancel_left_running_is_still_unowned_at_its_line() {
    let mut records = cancelled_then_server_turn();
    records.push(
        r#"{"from":"server","message":{"method":"item/completed","params":{"threadId":"R","turnId":"tr2","item":{"type":"agentMessage","id":"m9","text":"resuming"}}}}"#.into(),
    );
    let r = run_owned(&records);
    // Line 7 is the server's turn/started (header 1, START 2-3, then 4-7).
    assert_eq!(rules(&r), ["7:unowned-provider-turn", "8:late-root-output"]);
    let r = run_owned(&cancelled_then_server_turn());
    assert_eq!(rules(&r), ["7:unowned-provider-turn"]);
}

fn token_usage(thread: &str, turn: &str, input: u64, cached: u64, output: u64) -> String {
    format!(
        r#"{{"from":"server","message":{{"method":"thread/tokenUsage/updated","params":{{"threadId":"{thread}","turnId":"{turn}","tokenUsage":{{"total":{{"totalTokens":{t},"inputTokens":{input},"cachedInputTokens":{cached},"cacheWriteInputTokens":1,"outputTokens":{output},"reasoningOutputTokens":2}},"last":{{"totalTokens":1,"inputTokens":1,"cachedInputTokens":0,"outputTokens":0,"reasoningOutputTokens":0}},"modelContextWindow":1000}}}}}}}}"#,
        t = input + output
    )
}

fn usage(r: &Replay, turn: &str) -> Option<(Option<u64>, Option<u64>, Option<u64>)> {
    let t = r.snapshot()?.turn(&turn.parse::<TurnId>().ok()?)?;
    t.usage
        .as_deref()
        .map(|u| (u.input_tokens, u.cache_read_input_tokens, u.output_tokens))
}

#[test]
fn a_token_usage_notification_sets_the_turn_s_figures_from_the_thread_total() {
    let r = run_owned(&with(&[
        &token_usage("R", "tr1", 10, 4, 5),
        &token_usage("R", "tr1", 30, 8, 15),
        // A repeated total (Codex reports again when rate limits change) adds nothing.
        &token_usage("R", "tr1", 30, 8, 15),
    ]));
    assert_eq!(usage(&r, "R#1"), Some((Some(30), Some(8), Some(15))));
    let t = r.snapshot().unwrap().turn(&"R#1".parse().unwrap()).unwrap();
    assert_eq!(t.usage.as_deref().unwrap().reasoning_output_tokens, Some(2));
    // The thread's total never grew in cache writes: 1 on the first report, then 0.
    assert_eq!(
        t.usage.as_deref().unwrap().cache_creation_input_tokens,
        Some(1)
    );
    assert_eq!(state(&r, "R#1"), "running");
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn a_child_thread_s_usage_lands_on_the_child_turn_and_its_next_turn_gets_the_growth() {
    let a = spawn("A");
    let r = run_owned(&with(&[
        &a,
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"inProgress"}}}}"#,
        &token_usage("A", "ta1", 10, 0, 5),
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"A","turn":{"id":"ta1","items":[],"status":"completed"}}}}"#,
        // Reported after the child's turn ended: still that turn's (accounting).
        &token_usage("A", "ta1", 12, 0, 6),
        &token_usage("R", "tr1", 7, 0, 3),
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"A","turn":{"id":"ta2","items":[],"status":"inProgress"}}}}"#,
        &token_usage("A", "ta2", 40, 0, 20),
    ]));
    assert_eq!(usage(&r, "A#1"), Some((Some(12), Some(0), Some(6))));
    assert_eq!(usage(&r, "A#2"), Some((Some(28), Some(0), Some(14))));
    assert_eq!(usage(&r, "R#1"), Some((Some(7), Some(0), Some(3))));
    assert_eq!(state(&r, "A#1"), "settled:completed");
}

#[test]
fn a_report_for_a_turn_not_seen_starting_is_only_the_thread_s_baseline() {
    let r = run_owned(&with(&[
        // The thread's total before this trace's turn (an earlier turn's): no turn gets it.
        &token_usage("R", "tr0", 100, 0, 50),
        &token_usage("R", "tr1", 130, 0, 65),
    ]));
    assert_eq!(usage(&r, "R#1"), Some((Some(30), Some(0), Some(15))));
}
