//! The Claude adapter against the shapes and orders real Claude Code 2.1.328 sends (as
//! recorded under `traces/real/claude-code/`), each case cut down to the records it needs.

use serde_json::{Value, json};

use crate::engine::{Engine, Options, Replay};
use crate::finding::Code;
use crate::trace::Format;
use crate::tree::{InteractionKind, InteractionStatus, Outcome};
use crate::{RequestId, TurnId};

const R: &str = "sess-real";

fn cli(message: Value) -> String {
    json!({"from": "cli", "message": message}).to_string()
}

fn host(message: Value) -> String {
    json!({"from": "host", "message": message}).to_string()
}

fn replay(lines: &[String]) -> Replay {
    let mut e = Engine::new(Options {
        format: Some(Format::ClaudeSdk),
        ..Options::default()
    });
    for line in lines {
        e.push_line(line).unwrap();
    }
    e.finish().unwrap()
}

fn outcome(replay: &Replay, turn: &str) -> Option<Outcome> {
    replay
        .snapshot()?
        .turn(&turn.parse::<TurnId>().unwrap())?
        .outcome
}

fn codes(replay: &Replay) -> Vec<Code> {
    replay.findings.iter().map(|f| f.rule).collect()
}

/// The messages of the findings of `rule`, in order.
fn messages(replay: &Replay, rule: Code) -> Vec<&str> {
    replay
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.message.as_str())
        .collect()
}

fn user(text: &str) -> String {
    host(
        json!({"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": null, "session_id": ""}),
    )
}

fn init() -> String {
    cli(json!({"type": "system", "subtype": "init", "session_id": R}))
}

fn assistant(parent: Option<&str>, content: Value) -> String {
    cli(
        json!({"type": "assistant", "message": {"id": "m", "role": "assistant", "content": content}, "parent_tool_use_id": parent, "session_id": R}),
    )
}

fn launch(id: &str, background: bool) -> String {
    assistant(
        None,
        json!([{"type": "tool_use", "id": id, "name": "Agent", "input": {"description": id, "prompt": "p", "run_in_background": background}}]),
    )
}

fn task(kind: &str, task: &str, tool_use: &str, background: bool) -> String {
    cli(
        json!({"type": "system", "subtype": "task_started", "task_id": task, "tool_use_id": tool_use, "task_type": kind, "is_backgrounded": background, "session_id": R}),
    )
}

fn notification(task: &str, tool_use: &str, status: &str) -> String {
    cli(
        json!({"type": "system", "subtype": "task_notification", "task_id": task, "tool_use_id": tool_use, "status": status, "summary": "s", "session_id": R}),
    )
}

fn killed(task: &str) -> String {
    cli(
        json!({"type": "system", "subtype": "task_updated", "task_id": task, "patch": {"status": "killed"}, "session_id": R}),
    )
}

/// The launch result real 2.1.328 gives a launch the interrupt stopped.
fn rejected(tool_use: &str) -> String {
    cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use, "is_error": true, "content": "The user doesn't want to proceed with this tool use. The tool use was rejected."}]},
        "parent_tool_use_id": null, "session_id": R, "tool_use_result": "User rejected tool use",
        "tool_result_meta": [{"id": tool_use, "non_execution_kind": "user-rejected"}]}),
    )
}

/// The launch result of a background child; its `agentId` is the task id the tests give
/// `toolu_<x>` (`t<x>`).
fn async_launched(tool_use: &str) -> String {
    let agent = tool_use.replace("toolu_", "t");
    cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use, "content": "Async agent launched successfully."}]},
        "parent_tool_use_id": null, "session_id": R, "tool_use_result": {"status": "async_launched", "agentId": agent}}),
    )
}

fn result(subtype: &str) -> String {
    cli(
        json!({"type": "result", "subtype": subtype, "is_error": subtype != "success", "result": "r", "session_id": R}),
    )
}

fn control(id: &str, request: Value) -> String {
    host(json!({"type": "control_request", "request_id": id, "request": request}))
}

fn answered(id: &str, response: Value) -> String {
    cli(
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": response}}),
    )
}

fn text(line: &str) -> String {
    assistant(None, json!([{"type": "text", "text": line}]))
}

#[test]
fn a_launch_the_user_rejected_during_an_interrupt_is_canceled_not_failed() {
    // Real order: control_response, task_updated killed, task_notification stopped, then
    // the launch result with `non_execution_kind: "user-rejected"`, then the result.
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        control("h1", json!({"subtype": "interrupt"})),
        answered("h1", json!({"still_queued": []})),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        rejected("toolu_a"),
        result("error_during_execution"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Canceled));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn a_permission_withdrawn_by_an_interrupt_is_superseded_by_the_cancel() {
    // Real order: interrupt, control_cancel_request, control_response, the rejected launch
    // result, then killed and stopped.
    let ask = cli(
        json!({"type": "control_request", "request_id": "perm1", "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "touch x"}, "tool_use_id": "toolu_b", "agent_id": "ta"}}),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        ask,
        control("h1", json!({"subtype": "interrupt"})),
        cli(json!({"type": "control_cancel_request", "request_id": "perm1"})),
        answered("h1", json!({"still_queued": []})),
        rejected("toolu_a"),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        result("error_during_execution"),
    ]);
    let turn: TurnId = "toolu_a#1".parse().unwrap();
    let status = r
        .snapshot()
        .and_then(|s| s.interaction(&turn, &RequestId::from("perm1")))
        .map(|i| i.status);
    assert_eq!(status, Some(InteractionStatus::Superseded));
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn a_withdrawn_permission_outside_a_cancel_is_resolved() {
    let ask = cli(
        json!({"type": "control_request", "request_id": "perm1", "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, "tool_use_id": "toolu_b"}}),
    );
    let r = replay(&[
        user("go"),
        init(),
        ask,
        cli(json!({"type": "control_cancel_request", "request_id": "perm1"})),
    ]);
    let turn: TurnId = format!("{R}#1").parse().unwrap();
    let status = r
        .snapshot()
        .and_then(|s| s.interaction(&turn, &RequestId::from("perm1")))
        .map(|i| i.status);
    assert_eq!(status, Some(InteractionStatus::Resolved));
}

/// One background child, stopped after the root's result, then what real 2.1.328 writes
/// after the stop: the child's interrupt marker and the CLI's own follow-up model turn.
fn stop_the_last_background_child() -> Vec<String> {
    vec![
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        text("started"),
        result("success"),
        control("h1", json!({"subtype": "stop_task", "task_id": "ta"})),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        answered("h1", json!({})),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}, "parent_tool_use_id": "toolu_a", "agent_id": "ta", "session_id": R}),
        ),
        init(),
        text("The background subagent was stopped."),
        result("success"),
    ]
}

#[test]
fn the_stopped_childs_interrupt_marker_is_no_late_history() {
    let r = replay(&stop_the_last_background_child());
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert!(
        !codes(&r).contains(&Code::LateChildOutput),
        "{:?}",
        codes(&r)
    );
}

/// The root's model stops its own background child with the TaskStop tool (real 2.1.328,
/// `traces/real/claude-code/28-model-stops-its-background-child.jsonl`): no host cancel,
/// the `stopped` notification settles the child canceled, and the child's
/// "[Request interrupted by user]" that follows is the stop's fallout, as after a
/// `stop_task` ("A provider terminal caused by cancel … is not historical progress").
#[test]
fn a_model_stopped_childs_interrupt_marker_is_no_late_history() {
    let stop = assistant(
        None,
        json!([{"type": "tool_use", "id": "toolu_stop", "name": "TaskStop", "input": {"task_id": "ta"}}]),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        stop,
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_stop", "content": "Successfully stopped task: ta"}]}, "parent_tool_use_id": null, "session_id": R}),
        ),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}, "parent_tool_use_id": "toolu_a", "agent_id": "ta", "session_id": R}),
        ),
        text("Stopped the background subagent."),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn the_follow_up_after_stopping_the_last_child_warns_nothing_and_opens_no_turn() {
    let r = replay(&stop_the_last_background_child());
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#2")), None);
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn the_follow_up_after_a_background_bash_exits_warns_nothing() {
    let bash = assistant(
        None,
        json!([{"type": "tool_use", "id": "toolu_sh", "name": "Bash", "input": {"command": "sleep 2", "run_in_background": true}}]),
    );
    let r = replay(&[
        user("go"),
        init(),
        bash,
        task("local_bash", "b1", "toolu_sh", true),
        text("started"),
        result("success"),
        notification("b1", "toolu_sh", "completed"),
        init(),
        text("The background command finished."),
        result("success"),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn root_output_after_settlement_without_a_notification_is_still_late() {
    let r = replay(&[user("go"), init(), text("a"), result("success"), text("b")]);
    assert_eq!(codes(&r), [Code::LateRootOutput]);
}

#[test]
fn a_prompt_given_on_the_command_line_opens_the_root_turn() {
    // No host `user` record: `system/init`, then the first assistant.
    let r = replay(&[
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        notification("ta", "toolu_a", "completed"),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}]}, "parent_tool_use_id": null, "session_id": R, "tool_use_result": {"status": "completed"}}),
        ),
        text("done"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    let parent = r
        .snapshot()
        .and_then(|s| s.session(&"toolu_a".into()))
        .and_then(|s| s.relation.as_ref())
        .map(|rel| rel.parent_turn.to_string());
    assert_eq!(parent, Some(format!("{R}#1")));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn answers_to_hook_callbacks_are_no_unknown_responses() {
    let hook = cli(
        json!({"type": "control_request", "request_id": "hk1", "request": {"subtype": "hook_callback", "callback_id": "hook_0", "input": {}}}),
    );
    let reply = |id: &str| {
        host(
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {"continue": true}}}),
        )
    };
    let r = replay(&[user("go"), init(), hook, reply("hk1"), reply("nobody")]);
    let lines: Vec<(usize, Code)> = r.findings.iter().map(|f| (f.line, f.rule)).collect();
    assert_eq!(lines, [(5, Code::UnknownResponse)]);
}

#[test]
fn an_overflow_names_the_bound_it_hit() {
    // Host records before any SDK session id are held, at most 4096 of them.
    let lines: Vec<String> = (0..=super::HOLD_LIMIT).map(|_| user("go")).collect();
    let r = replay(&lines);
    let overflow = r
        .findings
        .iter()
        .find(|f| f.rule == Code::HeldEventsOverflow)
        .map(|f| f.message.clone())
        .unwrap_or_default();
    assert!(overflow.contains("4096"), "{overflow}");
}

#[test]
fn send_message_to_a_finished_child_starts_its_next_turn() {
    // Real order: the child's foreground turn ends, then `SendMessage` restarts the same
    // task under the SendMessage tool use, in the background.
    let send = assistant(
        None,
        json!([{"type": "tool_use", "id": "toolu_send", "name": "SendMessage", "input": {"to": "ta", "message": "again"}}]),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        notification("ta", "toolu_a", "completed"),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}]}, "parent_tool_use_id": null, "session_id": R, "tool_use_result": {"status": "completed"}}),
        ),
        send,
        task("local_agent", "ta", "toolu_send", true),
        assistant(
            Some("toolu_a"),
            json!([{"type": "text", "text": "again: done"}]),
        ),
        notification("ta", "toolu_send", "completed"),
        text("done"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, "toolu_a#2"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn a_notification_during_a_live_provider_turn_is_still_followed_up() {
    // The notification arrived while the root's model call was in flight; the CLI still
    // answers it with its own model turn after the result, when the root has settled: a
    // continuation of a background child's completion, reported (never silence), not
    // attached.
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        notification("ta", "toolu_a", "completed"),
        text("done"),
        result("success"),
        init(),
        text("The background subagent finished."),
        result("success"),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#2")), None);
    assert_eq!(codes(&r), [Code::LateContinuation]);
}

#[test]
fn a_permission_overflow_names_the_bound_it_hit() {
    let mut lines = vec![user("go"), init()];
    for n in 0..=super::HOLD_LIMIT {
        lines.push(cli(json!({"type": "control_request", "request_id": format!("p{n}"),
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, "agent_id": "ghost"}})));
    }
    let r = replay(&lines);
    let overflow = messages(&r, Code::HeldEventsOverflow);
    assert_eq!(overflow.len(), 1);
    assert!(overflow.iter().all(|m| m.contains("4096")), "{overflow:?}");
}

#[test]
fn the_launch_result_of_a_confirmed_stop_says_nothing_new() {
    // Real order of a stop_task of a foreground child: killed, stopped, control_response,
    // then the launch result `[Request interrupted by user for tool use]`.
    let interrupted = cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": true, "content": "[Request interrupted by user for tool use]"}]},
        "parent_tool_use_id": null, "session_id": R, "tool_use_result": "Error: [Request interrupted by user for tool use]",
        "tool_result_meta": [{"id": "toolu_a", "non_execution_kind": "interrupted"}]}),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        control("h1", json!({"subtype": "stop_task", "task_id": "ta"})),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        answered("h1", json!({})),
        interrupted,
        text("stopped"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// `claude -p --output-format stream-json --verbose --include-partial-messages > out.jsonl`:
/// unenveloped lines, the partial messages among them as `stream_event`s (whose payload is
/// a top-level `event` member).
fn partial_messages_capture() -> Vec<String> {
    let stream = |event: Value| {
        json!({"type": "stream_event", "event": event, "parent_tool_use_id": null, "session_id": R, "uuid": "u"}).to_string()
    };
    vec![
        json!({"type": "system", "subtype": "init", "session_id": R}).to_string(),
        stream(json!({"type": "message_start", "message": {"id": "m1"}})),
        stream(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}})),
        stream(json!({"type": "message_stop"})),
        json!({"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}, "parent_tool_use_id": null, "session_id": R, "uuid": "a1"}).to_string(),
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "hi", "session_id": R, "uuid": "r1"}).to_string(),
    ]
}

#[test]
fn unenveloped_partial_messages_are_read_not_malformed() {
    // docs/real-providers.md: stream-json is raw lines of SDK messages, no envelope;
    // `stream_event` is one of them (its `event` member is the SDK's, not lineage's).
    let r = replay(&partial_messages_capture());
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn unenveloped_partial_messages_tell_the_claude_format() {
    let mut e = Engine::new(Options::default());
    for line in partial_messages_capture().iter().skip(1) {
        e.push_line(line).unwrap();
    }
    let r = e.finish().unwrap();
    assert_eq!(r.format, Format::ClaudeSdk);
    assert_eq!(codes(&r), Vec::<Code>::new());
}

fn permission_of(id: &str, agent: &str) -> String {
    cli(
        json!({"type": "control_request", "request_id": id, "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "touch x"}, "tool_use_id": "toolu_x", "agent_id": agent}}),
    )
}

fn interaction_status(r: &Replay, turn: &str, request: &str) -> Option<InteractionStatus> {
    let turn: TurnId = turn.parse().ok()?;
    r.snapshot()?
        .interaction(&turn, &RequestId::from(request))
        .map(|i| i.status)
}

/// A background child `toolu_a` whose own foreground child `toolu_g` holds a permission
/// when the host interrupts; `live` keeps the root's provider turn running until after
/// the interrupt. `order` lays out the interrupt's answer (`R`), the children's stop
/// reports (`S`) and the root's result (`X`) after the interrupt.
fn interrupt_with_nested_children(live: bool, order: &str) -> Vec<String> {
    let mut lines = vec![
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        assistant(
            Some("toolu_a"),
            json!([{"type": "tool_use", "id": "toolu_g", "name": "Agent", "input": {"description": "g", "prompt": "p", "run_in_background": false}}]),
        ),
        task("local_agent", "tg", "toolu_g", false),
        permission_of("perm1", "tg"),
    ];
    if !live {
        lines.extend([text("started"), result("success")]);
    }
    lines.push(control("h1", json!({"subtype": "interrupt"})));
    for step in order.chars() {
        match step {
            'R' => lines.push(answered("h1", json!({"still_queued": []}))),
            'S' => lines.extend([
                killed("tg"),
                notification("tg", "toolu_g", "stopped"),
                killed("ta"),
                notification("ta", "toolu_a", "stopped"),
            ]),
            _ => lines.push(result("error_during_execution")),
        }
    }
    lines
}

#[test]
fn cancellation_an_interrupt_covers_nested_children_whatever_the_order() {
    // "Provider-Native Subagents", *Cancellation*: "Claude SDK uses its root-query cancel
    // primitive when the target set includes the root; that native operation covers the
    // Task executions in the same query." Event order must not change the result.
    for (live, order) in [
        (false, "RS"),
        (false, "SR"),
        (true, "RSX"),
        (true, "SRX"),
        (true, "RXS"),
    ] {
        let r = replay(&interrupt_with_nested_children(live, order));
        let case = format!("live {live}, order {order}: {:?}", codes(&r));
        assert_eq!(
            outcome(&r, &format!("{R}#1")),
            Some(Outcome::Canceled),
            "{case}"
        );
        assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled), "{case}");
        assert_eq!(outcome(&r, "toolu_g#1"), Some(Outcome::Canceled), "{case}");
        let status = interaction_status(&r, "toolu_g#1", "perm1");
        assert_eq!(status, Some(InteractionStatus::Superseded), "{case}");
        assert_eq!(codes(&r), Vec::<Code>::new(), "{case}");
    }
}

#[test]
fn cancellation_during_the_notification_wait_cancels_the_reserved_turn() {
    // *Claude Code SDK Mapping*: "Cancellation during the notification wait uses the
    // existing root-query interrupt. It cancels the reserved synthetic provider turn …
    // No timeout completion or late continuation may overwrite the canceled canonical
    // outcome."
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        text("started"),
        result("success"),
        notification("ta", "toolu_a", "completed"),
        control("h1", json!({"subtype": "interrupt"})),
        answered("h1", json!({"still_queued": []})),
        init(),
        text("late"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#2")), None);
    assert!(
        !codes(&r).contains(&Code::NothingToCancel),
        "{:?}",
        codes(&r)
    );
}

#[test]
fn claude_aliases_the_agent_id_of_the_launch_result_scopes_a_permission() {
    // *Session And Turn Semantics*: "The Claude adapter resolves that alias to the
    // already-recorded child session and turn before emitting the canonical interaction."
    let launched = cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "Async agent launched successfully."}]},
        "parent_tool_use_id": null, "session_id": R, "tool_use_result": {"status": "async_launched", "agentId": "ag1"}}),
    );
    for permission_first in [false, true] {
        let mut lines = vec![user("go"), init(), launch("toolu_a", true)];
        if permission_first {
            lines.extend([permission_of("perm1", "ag1"), launched.clone()]);
        } else {
            lines.extend([launched.clone(), permission_of("perm1", "ag1")]);
        }
        let r = replay(&lines);
        let status = interaction_status(&r, "toolu_a#1", "perm1");
        assert_eq!(
            status,
            Some(InteractionStatus::Pending),
            "{permission_first}"
        );
        assert_eq!(codes(&r), Vec::<Code>::new(), "{permission_first}");
    }
}

/// A task notification the CLI hands to the agent that launched the task (`parent`: a
/// child's tool use, or `None` for the root) as a user message string.
fn notice_to(parent: Option<&str>, task: &str, tool_use: &str, status: &str) -> String {
    let text = format!(
        "<task-notification>\n<task-id>{task}</task-id>\n<tool-use-id>{tool_use}</tool-use-id>\n<status>{status}</status>\n<summary>Agent \"{task}\" {status}</summary>\n</task-notification>"
    );
    cli(
        json!({"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": parent, "session_id": R, "uuid": "n1"}),
    )
}

#[test]
fn claude_aliases_a_task_notification_in_a_user_message_settles_the_grandchild() {
    // *Claude Code SDK Mapping*: "Completion comes from child result, task notification,
    // or SDK completion hooks." The CLI hands a background grandchild's notification to
    // its parent agent as a user message string.
    let notice = notice_to(Some("toolu_a"), "tg", "toolu_g", "completed");
    let nested_launched = cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_g", "content": "Async agent launched successfully."}]},
        "parent_tool_use_id": "toolu_a", "session_id": R, "uuid": "l1", "tool_use_result": {"status": "async_launched", "agentId": "tg"}}),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        assistant(
            Some("toolu_a"),
            json!([{"type": "tool_use", "id": "toolu_g", "name": "Agent", "input": {"description": "g", "prompt": "p", "run_in_background": true}}]),
        ),
        nested_launched,
        notice,
        notification("ta", "toolu_a", "completed"),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}]}, "parent_tool_use_id": null, "session_id": R, "tool_use_result": {"status": "completed"}}),
        ),
        text("done"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_g#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

fn updated(task: &str, status: &str) -> String {
    cli(
        json!({"type": "system", "subtype": "task_updated", "task_id": task, "patch": {"status": status, "end_time": 1}, "session_id": R}),
    )
}

#[test]
fn task_updated_with_a_terminal_status_is_the_tasks_terminal() {
    // *Claude Code SDK Mapping*: "Completion comes from child result, task notification,
    // or SDK completion hooks"; a `killed` patch is a stop ("A stopped task terminal is
    // the exception").
    for (status, expected) in [
        ("completed", Outcome::Completed),
        ("failed", Outcome::Failed),
        ("killed", Outcome::Canceled),
    ] {
        let r = replay(&[
            user("go"),
            init(),
            launch("toolu_a", true),
            task("local_agent", "ta", "toolu_a", true),
            async_launched("toolu_a"),
            text("started"),
            result("success"),
            updated("ta", status),
            init(),
            text("followed up"),
            result("success"),
        ]);
        assert_eq!(outcome(&r, "toolu_a#1"), Some(expected), "{status}");
        assert_eq!(
            outcome(&r, &format!("{R}#1")),
            Some(Outcome::Completed),
            "{status}"
        );
        assert_eq!(codes(&r), Vec::<Code>::new(), "{status}");
    }
}

#[test]
fn task_system_work_whose_start_was_seen_is_tracked_silently() {
    // *Claude Code SDK Mapping*: "SDK task-system work that has no subagent identity … is
    // tracked separately from delegated child work."
    let r = replay(&[
        user("go"),
        init(),
        cli(
            json!({"type": "system", "subtype": "task_started", "task_id": "w1", "task_type": "local_agent", "description": "internal", "session_id": R}),
        ),
        text("working"),
        cli(
            json!({"type": "system", "subtype": "task_notification", "task_id": "w1", "status": "completed", "summary": "s", "session_id": R}),
        ),
        result("success"),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// Real 09 (interrupt while two foreground children run) as `claude -p … > out.jsonl`
/// captures it: the CLI's lines only; `answer` keeps the interrupt's `control_response`,
/// `marker` the CLI's `[Request interrupted by user for tool use]` record.
fn stdout_only_interrupt(answer: bool, marker: bool) -> Vec<String> {
    let mut lines = vec![
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        launch("toolu_b", false),
        task("local_agent", "tb", "toolu_b", false),
    ];
    if answer {
        lines.push(answered("host_req_2", json!({"still_queued": []})));
    }
    lines.extend([
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        rejected("toolu_a"),
        killed("tb"),
        notification("tb", "toolu_b", "stopped"),
        rejected("toolu_b"),
    ]);
    if marker {
        lines.push(cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}, "parent_tool_use_id": null, "session_id": R, "uuid": "m1"}),
        ));
    }
    lines.push(result("error_during_execution"));
    lines
}

#[test]
fn cancellation_a_stdout_only_interrupt_is_read_from_the_clis_side() {
    // *Cancellation*: "User cancellation cancels the root turn and every child agent owned
    // by that turn"; the interrupt's answer (`still_queued`) and the CLI's interrupt
    // record are the CLI's own evidence of it.
    for (answer, marker) in [(true, true), (true, false), (false, true)] {
        let r = replay(&stdout_only_interrupt(answer, marker));
        let case = format!("answer {answer}, marker {marker}: {:?}", codes(&r));
        assert_eq!(
            outcome(&r, &format!("{R}#1")),
            Some(Outcome::Canceled),
            "{case}"
        );
        assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled), "{case}");
        assert_eq!(outcome(&r, "toolu_b#1"), Some(Outcome::Canceled), "{case}");
        let expected = if answer {
            vec![Code::HostSideMissing]
        } else {
            vec![]
        };
        assert_eq!(codes(&r), expected, "{case}");
    }
}

#[test]
fn session_and_turn_semantics_a_stdout_only_second_prompt_opens_the_next_root_turn() {
    // *Session And Turn Semantics*: "A root turn is initiated by a user submission"; the
    // CLI starts a model turn on its own only to answer a task notification, so root
    // output after a `result` with none pending answers a prompt the capture lacks.
    let r = replay(&[
        init(),
        text("first answer"),
        result("success"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        notification("ta", "toolu_a", "completed"),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}]}, "parent_tool_use_id": null, "session_id": R, "tool_use_result": {"status": "completed"}}),
        ),
        text("second answer"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#2")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    let parent = r
        .snapshot()
        .and_then(|s| s.session(&"toolu_a".into()))
        .and_then(|s| s.relation.as_ref())
        .map(|rel| rel.parent_turn.to_string());
    assert_eq!(parent, Some(format!("{R}#2")));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// The root launches two background children, answers and ends its turn; then each
/// child's task notification comes.
fn two_background_children_notified() -> Vec<String> {
    vec![
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        launch("toolu_b", true),
        task("local_agent", "tb", "toolu_b", true),
        async_launched("toolu_b"),
        text("started"),
        result("success"),
        notification("ta", "toolu_a", "completed"),
        notification("tb", "toolu_b", "completed"),
    ]
}

#[test]
fn two_task_notifications_two_continuations_nothing_said_is_lost() {
    // *Claude Code SDK Mapping*: "A continuation caused by a child task notification is
    // another root provider turn attached to the same canonical root WorkspaceAgentTurn."
    // Where the root has settled before a continuation speaks, what it says is reported.
    let mut lines = two_background_children_notified();
    lines.extend([
        init(),
        text("A finished."),
        result("success"),
        init(),
        text("B finished."),
        result("success"),
    ]);
    let r = replay(&lines);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#2")), None);
    let late = messages(&r, Code::LateContinuation);
    assert_eq!(late.len(), 1, "{:?}", r.findings);
    assert!(late.iter().all(|m| m.contains("B finished.")), "{late:?}");
    assert_eq!(codes(&r), [Code::LateContinuation]);
}

#[test]
fn cancellation_a_stdout_only_interrupt_supersedes_the_permission_it_withdrew() {
    // Real 12 as stdout holds it: the CLI withdraws the child's pending permission, then
    // answers the interrupt. *Cancellation*: the cancel operation's "pending interaction
    // supersession" commits with it; the withdrawal is the interrupt's fallout.
    let r = replay(&[
        answered("host_req_1", json!({"commands": []})),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        permission_of("perm1", "ta"),
        cli(json!({"type": "control_cancel_request", "request_id": "perm1"})),
        answered("host_req_2", json!({"still_queued": []})),
        rejected("toolu_a"),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        result("error_during_execution"),
    ]);
    let status = interaction_status(&r, "toolu_a#1", "perm1");
    assert_eq!(status, Some(InteractionStatus::Superseded));
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Canceled));
    assert_eq!(codes(&r), [Code::HostSideMissing]);
}

/// A stdout-only capture: the CLI asks a permission of the root turn and withdraws it,
/// then `after` comes. The permission's status.
fn withdrawn_permission_then(after: &[String]) -> Option<InteractionStatus> {
    let mut records = vec![
        answered("host_req_1", json!({"commands": []})),
        init(),
        text("asking"),
        cli(
            json!({"type": "control_request", "request_id": "perm1", "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, "tool_use_id": "toolu_b"}}),
        ),
        cli(json!({"type": "control_cancel_request", "request_id": "perm1"})),
    ];
    records.extend_from_slice(after);
    interaction_status(&replay(&records), &format!("{R}#1"), "perm1")
}

#[test]
fn a_withdrawn_permission_in_a_stdout_only_capture_is_still_resolved() {
    let status = withdrawn_permission_then(&[]);
    assert_eq!(status, Some(InteractionStatus::Resolved));
}

fn result_with_usage(input: u64, read: u64, created: u64, output: u64) -> String {
    cli(
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "r", "session_id": R,
        "usage": {"input_tokens": input, "cache_read_input_tokens": read, "cache_creation_input_tokens": created, "output_tokens": output, "output_tokens_details": {"thinking_tokens": 3}}}),
    )
}

/// A child's assistant line (one content block) of message `id` with its usage.
fn child_said(parent: &str, id: &str, input: u64, output: u64) -> String {
    cli(
        json!({"type": "assistant", "message": {"id": id, "role": "assistant", "content": [{"type": "text", "text": "x"}],
        "usage": {"input_tokens": input, "cache_read_input_tokens": 1, "cache_creation_input_tokens": 0, "output_tokens": output}},
        "parent_tool_use_id": parent, "session_id": R}),
    )
}

fn usage_of(r: &Replay, turn: &str) -> Option<crate::tree::Usage> {
    r.snapshot()?
        .turn(&turn.parse::<TurnId>().unwrap())?
        .usage
        .as_deref()
        .copied()
}

#[test]
fn the_root_turn_counts_its_results_and_a_child_its_own_assistant_lines() {
    let mut lines = stop_the_last_background_child();
    // Every result of the root turn counts, the follow-up's after settlement too.
    let last = lines.len() - 1;
    lines[last] = result_with_usage(10, 2, 1, 5);
    let first = lines
        .iter()
        .position(|l| l.contains(r#""type":"result""#))
        .unwrap();
    lines[first] = result_with_usage(20, 0, 0, 10);
    // The child's lines: two blocks of m1 (counted once), then m2.
    let at = lines
        .iter()
        .position(|l| l.contains("async_launched"))
        .unwrap()
        + 1;
    lines.insert(at, child_said("toolu_a", "m1", 7, 1));
    lines.insert(at + 1, child_said("toolu_a", "m1", 7, 1));
    lines.insert(at + 2, child_said("toolu_a", "m2", 9, 1));
    let r = replay(&lines);
    let root = usage_of(&r, &format!("{R}#1")).unwrap();
    assert_eq!(root.input_tokens, Some(33), "20 + (10 + 2 + 1)");
    assert_eq!(root.output_tokens, Some(15));
    assert_eq!(root.cache_read_input_tokens, Some(2));
    assert_eq!(root.cache_creation_input_tokens, Some(1));
    assert_eq!(root.reasoning_output_tokens, Some(6));
    let child = usage_of(&r, "toolu_a#1").unwrap();
    assert_eq!(child.input_tokens, Some(18), "(7 + 1) + (9 + 1), m1 once");
    assert_eq!(child.cache_read_input_tokens, Some(2));
    // A line's output count is not final: not taken.
    assert_eq!(child.output_tokens, None);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn a_result_without_usage_leaves_the_root_turn_without_figures() {
    let r = replay(&stop_the_last_background_child());
    assert_eq!(usage_of(&r, &format!("{R}#1")), None);
    assert_eq!(usage_of(&r, "toolu_a#1"), None);
}

/// Replays `lines`, checking that the adapter opened no synthetic (reserved) provider
/// turn for the root while it read them.
fn without_a_synthetic_turn(lines: &[String]) -> Replay {
    let started = provider_turns_started(lines);
    assert!(
        started.iter().all(|t| !t.starts_with("synthetic")),
        "{started:?}"
    );
    replay(lines)
}

/// The canonical events the adapter normalized `lines` to, each with the index in
/// `lines` of the record it came from.
fn normalized_events(lines: &[String]) -> Vec<(usize, crate::tree::Event)> {
    let mut e = Engine::new(Options {
        format: Some(Format::ClaudeSdk),
        record_events: true,
        ..Options::default()
    });
    let mut events = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        for (event, _) in e.push_line(line).unwrap().events {
            events.push((at, event));
        }
    }
    events
}

/// The provider turns the adapter opened for the root while it read `lines`: their ids.
fn provider_turns_started(lines: &[String]) -> Vec<String> {
    normalized_events(lines)
        .into_iter()
        .filter_map(|(_, event)| match event {
            crate::tree::Event::RootProviderTurnStarted { provider_turn, .. } => {
                Some(provider_turn.unwrap_or_default())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn no_continuation_is_reserved_while_the_root_provider_turn_runs() {
    // *Claude Code SDK Mapping*: "When the final active async child is about to become
    // terminal and no root provider turn is active, the Claude sidecar opens a synthetic
    // provider turn". Here the root's own turn is still streaming when it ends.
    let lines = [
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        notification("ta", "toolu_a", "completed"),
        text("done"),
        result("success"),
    ];
    let r = without_a_synthetic_turn(&lines);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn no_continuation_is_reserved_for_a_root_turn_whose_cancel_is_prepared() {
    // *Claude Code SDK Mapping*: "Cancellation during the notification wait uses the
    // existing root-query interrupt. It cancels the reserved synthetic provider turn";
    // a turn whose cancel is already prepared has no wait to reserve: nothing may reopen
    // it ("No timeout completion or late continuation may overwrite the canceled
    // canonical outcome").
    let lines = [
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        text("started"),
        result("success"),
        control("h1", json!({"subtype": "interrupt"})),
        notification("ta", "toolu_a", "completed"),
        answered("h1", json!({"still_queued": []})),
    ];
    let r = without_a_synthetic_turn(&lines);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Canceled));
}

#[test]
fn only_the_final_async_child_reserves_a_continuation_not_a_foreground_one() {
    // *Claude Code SDK Mapping*: "When the final active async child is about to become
    // terminal …". A foreground child's end reserves nothing: the root settles once its
    // provider turn and the child have ended.
    let lines = [
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        text("waiting"),
        result("success"),
        notification("ta", "toolu_a", "completed"),
    ];
    let r = without_a_synthetic_turn(&lines);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
}

/// Seed, *Session And Turn Semantics*: permission callbacks become "the canonical
/// interaction"; an `elicitation` (or `request_user_dialog`) asks the user a question, in
/// the turn it came from, and is no hook callback.
#[test]
fn an_elicitation_is_a_question_of_the_root_turn() {
    for subtype in ["elicitation", "request_user_dialog"] {
        let ask = cli(
            json!({"type": "control_request", "request_id": "q1", "request": {"subtype": subtype, "title": "Which target?"}}),
        );
        let r = replay(&[user("go"), init(), ask]);
        let turn: TurnId = format!("{R}#1").parse().unwrap();
        let asked = r
            .snapshot()
            .and_then(|s| s.interaction(&turn, &RequestId::from("q1")))
            .map(|i| (i.kind, i.status));
        let question = (InteractionKind::Question, InteractionStatus::Pending);
        assert_eq!(asked, Some(question), "{subtype}");
    }
}

/// A `stop_task` "completes when its control_response and the task's `stopped`
/// notification have both arrived" (seed: "root/child turns settle canceled only from
/// provider confirmation"): one that never completed says which of the two is missing.
#[test]
fn an_incomplete_stop_task_names_the_evidence_it_lacks() {
    let incomplete = |evidence: String| {
        let r = replay(&[
            user("go"),
            init(),
            launch("toolu_a", true),
            task("local_agent", "ta", "toolu_a", true),
            async_launched("toolu_a"),
            control("h1", json!({"subtype": "stop_task", "task_id": "ta"})),
            evidence,
        ]);
        messages(&r, Code::CancelIncomplete)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        incomplete(answered("h1", json!({}))),
        ["the cancel of `toolu_a` never completed (no stopped notification)"]
    );
    assert_eq!(
        incomplete(notification("ta", "toolu_a", "stopped")),
        ["the cancel of `toolu_a` never completed (no control_response)"]
    );
}

/// Hook callbacks waiting for the host's answer are remembered "bounded by `HOLD_LIMIT`":
/// the first 4096 are, and their answers match; the answer to one past the bound finds
/// nothing to match and says so, as any answer to a request the trace did not keep.
#[test]
fn hook_callbacks_past_the_bound_are_not_remembered() {
    let mut lines = vec![user("go"), init()];
    for n in 0..=super::HOLD_LIMIT {
        lines.push(cli(
            json!({"type": "control_request", "request_id": format!("hk{n}"),
            "request": {"subtype": "hook_callback", "callback_id": "hook_0", "input": {}}}),
        ));
    }
    let reply = |id: String| {
        host(
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {"continue": true}}}),
        )
    };
    lines.push(reply(format!("hk{}", super::HOLD_LIMIT - 1)));
    lines.push(reply(format!("hk{}", super::HOLD_LIMIT)));
    let r = replay(&lines);
    let unknown = messages(&r, Code::UnknownResponse);
    assert_eq!(
        unknown,
        ["control_response for `hk4096` answers no permission request seen in this trace"]
    );
}

/// *Claude Code SDK Mapping*: "SDK task-system work that has no subagent identity … is
/// tracked separately from delegated child work": a `stop_task` of such work (a background
/// Bash) cancels no child and is no error, while one of a task never seen says so.
#[test]
fn a_stop_task_of_task_system_work_is_silent_and_of_an_unknown_task_is_not() {
    let r = replay(&[
        user("go"),
        init(),
        assistant(
            None,
            json!([{"type": "tool_use", "id": "toolu_sh", "name": "Bash", "input": {"command": "sleep 60", "run_in_background": true}}]),
        ),
        task("local_bash", "bsh", "toolu_sh", true),
        control("h1", json!({"subtype": "stop_task", "task_id": "bsh"})),
        control("h2", json!({"subtype": "stop_task", "task_id": "nope"})),
    ]);
    let unknown = messages(&r, Code::UnknownTask);
    assert_eq!(
        unknown,
        ["stop_task for task `nope`, which is no subagent; no child to cancel"]
    );
}

/// A withdrawal in a capture of the CLI's output alone is the interrupt's fallout only
/// when the next record is the interrupt's answer (`still_queued`); otherwise "the
/// provider resolved it" (seed, *Cancellation*: "Sending cancel is not a terminal fact").
#[test]
fn a_withdrawal_followed_by_another_answer_is_resolved() {
    let status = withdrawn_permission_then(&[answered("host_req_2", json!({}))]);
    assert_eq!(status, Some(InteractionStatus::Resolved));
}

/// Seed: "root/child turns settle canceled only from provider confirmation; unconfirmed
/// child turns use the generic interrupted timeout." An interrupt the CLI answered with
/// an error confirms nothing: the child it targeted is not canceled by it.
#[test]
fn an_interrupt_answered_with_an_error_confirms_no_child() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        control("h1", json!({"subtype": "interrupt"})),
        cli(
            json!({"type": "control_response", "response": {"subtype": "error", "request_id": "h1", "error": "not running"}}),
        ),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Interrupted));
}

/// A `task_started` of a subagent whose launching tool use this trace never showed.
fn unseen_launch_started(task: &str, tool_use: &str) -> String {
    cli(
        json!({"type": "system", "subtype": "task_started", "task_id": task, "tool_use_id": tool_use, "task_type": "local_agent", "is_backgrounded": true, "description": "Survey the repo", "session_id": R}),
    )
}

/// *Claude Code SDK Mapping*: delegated state is recreated "only when the message carries
/// explicit subagent identity": a `local_agent` task with its `tool_use_id` is that child,
/// under the root turn, reachable by its task id (a `stop_task` of it cancels it).
#[test]
fn a_subagent_task_whose_launch_was_not_seen_is_recreated_from_its_tool_use_id() {
    let r = replay(&[
        user("go"),
        init(),
        text("working"),
        unseen_launch_started("ta", "toolu_a"),
        control("h1", json!({"subtype": "stop_task", "task_id": "ta"})),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        answered("h1", json!({})),
        text("stopped it"),
        result("success"),
    ]);
    let child = r.snapshot().and_then(|s| s.session(&"toolu_a".into()));
    let parent = child
        .and_then(|s| s.relation.as_ref())
        .map(|rel| rel.parent_turn.to_string());
    assert_eq!(parent, Some(format!("{R}#1")));
    assert_eq!(
        child.and_then(|s| s.title.as_deref()),
        Some("Survey the repo")
    );
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// Seed: "Later guidance may create more turns inside that same child session": only a
/// start under another tool use (`SendMessage`) is such guidance. The same task's start
/// repeated under its own launch after the child finished is no new delegation.
#[test]
fn a_repeated_task_started_under_the_launch_does_not_reopen_the_finished_child() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        notification("ta", "toolu_a", "completed"),
        task("local_agent", "ta", "toolu_a", true),
        text("done"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    let turns = r
        .snapshot()
        .and_then(|s| s.session(&"toolu_a".into()))
        .map(|s| s.turns.len());
    assert_eq!(turns, Some(1));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
}

/// *Cancellation*: "The adapter returns the exact subset of supplied targets whose native
/// cancel operation was acknowledged." A child target that completed on its own before
/// the interrupt was answered is no longer waiting for its stop: the answer acknowledges
/// the children still running, not that one (its outcome stays its own).
#[test]
fn cancellation_an_interrupts_answer_acknowledges_no_child_that_already_ended() {
    let lines = [
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        launch("toolu_b", false),
        task("local_agent", "tb", "toolu_b", false),
        control("h1", json!({"subtype": "interrupt"})),
        notification("ta", "toolu_a", "completed"),
        answered("h1", json!({"still_queued": []})),
        killed("tb"),
        notification("tb", "toolu_b", "stopped"),
        result("error_during_execution"),
    ];
    let answer = lines
        .iter()
        .position(|l| l.contains("still_queued"))
        .unwrap();
    let acknowledged: Vec<String> = normalized_events(&lines)
        .into_iter()
        .filter_map(|(at, event)| match event {
            crate::tree::Event::CancelAcknowledged { session } if at == answer => {
                Some(session.to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(acknowledged, ["toolu_b"]);
    let r = replay(&lines);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, "toolu_b#1"), Some(Outcome::Canceled));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Canceled));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// A grandchild's notification handed to its parent child is answered by that child, not
/// by the root's model: root output after the root turn settled is no follow-up of it and
/// is reported as late root output (never mistaken for a continuation).
#[test]
fn a_task_notification_handed_to_a_child_asks_no_follow_up_of_the_root() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        assistant(
            Some("toolu_a"),
            json!([{"type": "tool_use", "id": "toolu_g", "name": "Agent", "input": {"description": "g", "prompt": "p", "run_in_background": true}}]),
        ),
        task("local_agent", "tg", "toolu_g", true),
        notice_to(Some("toolu_a"), "tg", "toolu_g", "completed"),
        notification("ta", "toolu_a", "completed"),
        text("done"),
        result("success"),
        text("and one more thing"),
    ]);
    assert_eq!(outcome(&r, "toolu_g#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), [Code::LateRootOutput]);
}

/// A notification of a task the root launched, handed to the root as a user message, is
/// answered by the CLI's own model turn like a `task_notification` record: when the root
/// turn settled before that turn spoke, what it says is reported as a late continuation.
#[test]
fn a_task_notification_handed_to_the_root_is_followed_up() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", true),
        task("local_agent", "ta", "toolu_a", true),
        async_launched("toolu_a"),
        notice_to(None, "ta", "toolu_a", "completed"),
        text("done"),
        result("success"),
        init(),
        text("The background subagent finished."),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), [Code::LateContinuation]);
}

/// *Cancellation*: "The adapter returns the exact subset of supplied targets whose native
/// cancel operation was acknowledged", and "Sending cancel is not a terminal fact": a
/// `stopped` report while a `stop_task` is in flight is normalized to that
/// acknowledgement, not to a child terminal. The child stays settling until the stop's
/// answer completes the operation, which settles it canceled.
#[test]
fn cancellation_a_stop_report_during_a_stop_task_is_its_acknowledgement() {
    let lines = [
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        control("h1", json!({"subtype": "stop_task", "task_id": "ta"})),
        killed("ta"),
        notification("ta", "toolu_a", "stopped"),
        answered("h1", json!({})),
    ];
    let of_the_child: Vec<(usize, &str)> = normalized_events(&lines)
        .into_iter()
        .filter_map(|(at, event)| match event {
            crate::tree::Event::CancelAcknowledged { session } if session.as_str() == "toolu_a" => {
                Some((at, "acknowledged"))
            }
            crate::tree::Event::ChildTurnCompleted { session, .. }
                if session.as_str() == "toolu_a" =>
            {
                Some((at, "completed"))
            }
            _ => None,
        })
        .collect();
    assert_eq!(of_the_child, [(5, "acknowledged"), (6, "acknowledged")]);
    let mut e = Engine::new(Options {
        format: Some(Format::ClaudeSdk),
        ..Options::default()
    });
    let child: TurnId = "toolu_a#1".parse().unwrap();
    let (answer, before) = lines.split_last().unwrap();
    for line in before {
        e.push_line(line).unwrap();
    }
    let turn = e.snapshot().turn(&child).cloned().unwrap();
    assert_eq!(turn.phase, crate::tree::Phase::Settling);
    assert!(
        turn.cancel.as_ref().is_some_and(|m| m.acknowledged),
        "{turn:?}"
    );
    e.push_line(answer).unwrap();
    assert_eq!(
        e.snapshot().turn(&child).and_then(|t| t.outcome),
        Some(Outcome::Canceled)
    );
    assert_eq!(codes(&e.finish().unwrap()), Vec::<Code>::new());
}

/// *Claude Code SDK Mapping*: "After targeted cancellation, however, late stopped,
/// tool_failed, or equivalent events for a closed child are cancellation fallout and
/// cannot emit a second child terminal": a stop reported after an unconfirmed interrupt
/// closed the child (interrupted) is dropped, and said so.
#[test]
fn cancellation_a_stop_after_an_unconfirmed_interrupt_closed_the_child_is_fallout() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        control("h1", json!({"subtype": "interrupt"})),
        cli(
            json!({"type": "control_response", "response": {"subtype": "error", "request_id": "h1", "error": "not running"}}),
        ),
        killed("ta"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Interrupted));
    assert_eq!(
        messages(&r, Code::CancelFallout),
        ["stop of `toolu_a` after its cancel closed it is cancellation fallout; dropped"]
    );
}

/// *Claude Code SDK Mapping*: late events for a closed child "cannot emit a second child
/// terminal or reclassify canceled as failed": a `failed` report after the interrupt
/// settled the child canceled is dropped as cancellation fallout.
#[test]
fn cancellation_a_failure_reported_after_the_interrupt_closed_the_child_is_fallout() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        control("h1", json!({"subtype": "interrupt"})),
        answered("h1", json!({"still_queued": []})),
        result("error_during_execution"),
        notification("ta", "toolu_a", "failed"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled));
    assert_eq!(
        messages(&r, Code::CancelFallout),
        [
            "terminal `failed` for `toolu_a` after its cancel closed it is cancellation fallout; dropped"
        ]
    );
    assert_eq!(codes(&r), [Code::CancelFallout]);
}

/// *Claude Code SDK Mapping*: "When the final active async child is about to become
/// terminal and no root provider turn is active, the Claude sidecar opens a synthetic
/// provider turn before emitting the child terminal." Of two background children, the
/// first one's completion reserves nothing: the synthetic provider turn opens at the
/// final one's notification.
#[test]
fn only_the_final_of_two_async_children_reserves_the_continuation() {
    let lines = two_background_children_notified();
    let synthetic: Vec<(usize, String)> = normalized_events(&lines)
        .into_iter()
        .filter_map(|(at, event)| match event {
            crate::tree::Event::RootProviderTurnStarted {
                provider_turn: Some(turn),
                ..
            } if turn.starts_with("synthetic") => Some((at, turn)),
            _ => None,
        })
        .collect();
    assert_eq!(synthetic, [(11, "synthetic-2".to_owned())]);
    let r = replay(&lines);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&r, "toolu_b#1"), Some(Outcome::Completed));
    assert_eq!(
        outcome(&r, &format!("{R}#1")),
        None,
        "the continuation is awaited"
    );
}

/// *Claude Code SDK Mapping*: "taskId and agentId are aliases. They must bind back to the
/// existing child session/turn." Real child frames carry `parent_tool_use_id` and
/// `agent_id`: a child's own assistant line binds its agent id, so a permission callback
/// naming it belongs to that child even when no `task_started` was seen.
#[test]
fn claude_aliases_the_agent_id_of_a_child_assistant_line_scopes_a_permission() {
    let said = cli(
        json!({"type": "assistant", "message": {"id": "mc", "role": "assistant", "content": [{"type": "text", "text": "looking"}]},
        "parent_tool_use_id": "toolu_a", "agent_id": "ag1", "session_id": R}),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", true),
        said,
        permission_of("perm1", "ag1"),
    ]);
    let status = interaction_status(&r, "toolu_a#1", "perm1");
    assert_eq!(status, Some(InteractionStatus::Pending));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// Real Claude Code: the launch input's `run_in_background` defaults to true, so a
/// model may leave it out; the launch result's structured status (`async_launched`)
/// then is what says the child runs in the background. *Claude Code SDK Mapping*: "An
/// async/background Task does not settle from the launch tool result; it waits for the
/// matching task lifecycle terminal."
#[test]
fn an_async_launched_result_keeps_a_child_launched_without_the_flag_running() {
    let unflagged = assistant(
        None,
        json!([{"type": "tool_use", "id": "toolu_a", "name": "Agent", "input": {"description": "a", "prompt": "p"}}]),
    );
    let r = replay(&[
        user("go"),
        init(),
        unflagged,
        async_launched("toolu_a"),
        text("started"),
        result("success"),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), None, "still running");
    assert_eq!(outcome(&r, &format!("{R}#1")), None, "gated by the child");
}

/// A late continuation's words are reported ("never dropped in silence"), cut to their
/// first 200 characters: an ellipsis marks a cut, and only a cut.
#[test]
fn a_late_continuation_reports_its_first_200_characters() {
    let said = |words: &str| {
        let r = replay(&[
            user("go"),
            init(),
            launch("toolu_a", true),
            task("local_agent", "ta", "toolu_a", true),
            async_launched("toolu_a"),
            notification("ta", "toolu_a", "completed"),
            text("done"),
            result("success"),
            init(),
            text(words),
            result("success"),
        ]);
        messages(&r, Code::LateContinuation)
            .into_iter()
            .map(|m| m.rsplit("it said: ").next().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    let whole = "x".repeat(200);
    assert_eq!(said(&whole), [format!("«{whole}»")]);
    assert_eq!(said(&format!("{whole}y")), [format!("«{whole}…»")]);
}

/// Real 2.1.328 marks a launch the interrupt stopped twice: `tool_use_result: "User
/// rejected tool use"` and `tool_result_meta[].non_execution_kind: "user-rejected"`.
/// Either is the cancellation-fallout marker on its own: the launch call is canceled,
/// and the child stays canceled, no failure reported after the cancel closed it (seed,
/// *Cancellation*: "A provider terminal caused by cancel … is not historical progress").
#[test]
fn cancellation_either_user_rejected_marker_alone_makes_the_launch_result_fallout() {
    for (meta, string) in [(true, false), (false, true)] {
        let mut launch_result = json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": true, "content": "The user doesn't want to proceed with this tool use. The tool use was rejected."}]},
            "parent_tool_use_id": null, "session_id": R});
        if meta {
            launch_result["tool_result_meta"] =
                json!([{"id": "toolu_a", "non_execution_kind": "user-rejected"}]);
        }
        if string {
            launch_result["tool_use_result"] = json!("User rejected tool use");
        }
        let r = replay(&[
            user("go"),
            init(),
            launch("toolu_a", false),
            task("local_agent", "ta", "toolu_a", false),
            control("h1", json!({"subtype": "interrupt"})),
            answered("h1", json!({"still_queued": []})),
            killed("ta"),
            notification("ta", "toolu_a", "stopped"),
            cli(launch_result),
            result("error_during_execution"),
        ]);
        let case = format!("meta {meta}, string {string}: {:?}", codes(&r));
        let call = r
            .snapshot()
            .and_then(|s| s.session(&R.into()))
            .and_then(|s| s.tool_calls.get(&crate::CallId::from("toolu_a")))
            .map(|c| c.status);
        assert_eq!(call, Some(crate::tree::ToolStatus::Canceled), "{case}");
        assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Canceled), "{case}");
        assert_eq!(codes(&r), Vec::<Code>::new(), "{case}");
    }
}

/// `record` with the capture's time `at` (ms).
fn at(record: String, at: u64) -> String {
    let mut v: Value = serde_json::from_str(&record).unwrap();
    v["at"] = json!(at);
    v.to_string()
}

/// *Claude Code SDK Mapping*: "The sidecar waits at most 30 seconds for the first root
/// stream or assistant event. Once root output begins, the timeout is disarmed": a
/// partial message (`stream_event`) of the root is such output.
#[test]
fn a_root_stream_event_disarms_the_continuation_timeout() {
    let stream = cli(
        json!({"type": "stream_event", "event": {"type": "message_start", "message": {"id": "m2"}}, "parent_tool_use_id": null, "session_id": R}),
    );
    let continued = cli(
        json!({"type": "assistant", "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "The background subagent finished."}]}, "parent_tool_use_id": null, "session_id": R}),
    );
    let r = after_the_final_notification(&[
        (stream, 40_000),
        (continued, 60_000),
        (result("success"), 60_100),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
    let texts: Vec<String> = r
        .snapshot()
        .and_then(|s| s.session(&R.into()))
        .map(|s| {
            s.messages
                .iter()
                .filter(|m| !m.history)
                .map(|m| m.text.to_string())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        texts,
        ["go", "started", "The background subagent finished."]
    );
}

/// A child's user text after `stop_the_last_background_child`'s stop completed, in place
/// of its interrupt marker; the child's messages (text, kept as history?) and the codes.
fn after_the_stop(text: &str) -> (Vec<(String, bool)>, Vec<Code>) {
    let mut lines = stop_the_last_background_child();
    let marker = lines
        .iter()
        .position(|l| l.contains("[Request interrupted by user]"))
        .unwrap();
    lines[marker] = cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}, "parent_tool_use_id": "toolu_a", "agent_id": "ta", "session_id": R}),
    );
    let r = replay(&lines);
    let said = r
        .snapshot()
        .and_then(|s| s.session(&"toolu_a".into()))
        .map(|s| {
            s.messages
                .iter()
                .map(|m| (m.text.to_string(), m.history))
                .collect()
        })
        .unwrap_or_default();
    (said, codes(&r))
}

/// *Cancellation*: "Late child output after cancellation is allowed to arrive, but it is
/// appended as historical child-session progress only when it can be scoped to an
/// existing child session and turn." Only the CLI's own interrupt marker is the stop's
/// fallout; other text the stopped child receives is kept as its history, and reported.
#[test]
fn cancellation_other_late_child_text_after_a_stop_is_kept_as_history() {
    let (said, codes) = after_the_stop("Also look at the tests.");
    assert_eq!(said, [("Also look at the tests.".to_owned(), true)]);
    assert_eq!(codes, [Code::LateChildOutput]);
    let (said, codes) = after_the_stop("[Request interrupted by user]");
    assert_eq!(said, Vec::<(String, bool)>::new());
    assert_eq!(codes, Vec::<Code>::new());
}

/// The interrupt marker is dropped only as the fallout of a stop or cancel ("A provider
/// terminal caused by cancel … is not historical progress"): on a child that completed
/// on its own, nothing stopped it, so the line is late child output like any other.
#[test]
fn an_interrupt_marker_on_a_child_nothing_stopped_is_late_output() {
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        notification("ta", "toolu_a", "completed"),
        cli(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}, "parent_tool_use_id": "toolu_a", "agent_id": "ta", "session_id": R}),
        ),
    ]);
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Completed));
    assert_eq!(codes(&r), [Code::LateChildOutput]);
}

/// Seed, *Cancellation*: "the activity event contract permits turn errors only for
/// failed or interrupted." A root `result` that is an error (no cancel in flight) fails
/// the root turn with the result's text as its error; a successful one ends its provider
/// turn with no error at all.
#[test]
fn an_error_result_fails_the_root_turn_with_its_text_and_a_success_carries_none() {
    let failed = cli(
        json!({"type": "result", "subtype": "error_during_execution", "is_error": true, "result": "API Error: 500", "session_id": R}),
    );
    let r = replay(&[user("go"), init(), text("working"), failed]);
    let turn = r
        .snapshot()
        .and_then(|s| s.turn(&format!("{R}#1").parse().unwrap()))
        .cloned();
    assert_eq!(turn.as_ref().and_then(|t| t.outcome), Some(Outcome::Failed));
    assert_eq!(
        turn.and_then(|t| t.error.as_deref().map(str::to_owned)),
        Some("API Error: 500".to_owned())
    );
    let errors: Vec<Option<String>> =
        normalized_events(&[user("go"), init(), text("done"), result("success")])
            .into_iter()
            .filter_map(|(_, event)| match event {
                crate::tree::Event::RootProviderTurnCompleted { error, .. } => Some(error),
                _ => None,
            })
            .collect();
    assert_eq!(errors, [None]);
}

/// The status of the root's tool call `call`.
fn root_call_status(r: &Replay, call: &str) -> Option<crate::tree::ToolStatus> {
    r.snapshot()?
        .session(&R.into())?
        .tool_calls
        .get(&crate::CallId::from(call))
        .map(|c| c.status)
}

/// Real 2.1.328 (`traces/real/claude-code/06-child-fails.jsonl`): a foreground child whose
/// model call is refused fails; its launch `tool_result` has `is_error`, the API error as
/// its text, and a `tool_result_meta` entry for the launch carrying only the permission
/// decision. Seed, *Root Turn Lifecycle*: "A failed child turn does not automatically fail
/// the root turn." Neither that text nor that meta entry is a cancellation marker: the
/// launch call failed, it was not canceled.
#[test]
fn a_failed_launch_result_with_a_permission_meta_entry_is_a_failure_not_a_cancel() {
    let failed = cli(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": true,
        "content": "Agent terminated early due to an API error: Prompt is too long (error type invalid_request, HTTP 400)"}]},
        "parent_tool_use_id": null, "session_id": R,
        "tool_result_meta": [{"id": "toolu_a", "permission_decision": {"decision": "accept", "source": "config"}}]}),
    );
    let r = replay(&[
        user("go"),
        init(),
        launch("toolu_a", false),
        task("local_agent", "ta", "toolu_a", false),
        notification("ta", "toolu_a", "failed"),
        failed,
        text("The subagent failed."),
        result("success"),
    ]);
    assert_eq!(
        root_call_status(&r, "toolu_a"),
        Some(crate::tree::ToolStatus::Failed)
    );
    assert_eq!(outcome(&r, "toolu_a#1"), Some(Outcome::Failed));
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// Claude Code reports an API error of a headless run as a `result` of subtype `success`
/// with `is_error: true` and the error text as its `result`, after a synthetic assistant
/// line saying it (Claude Code issue 79500, "Headless `claude -p`: API errors … return
/// `subtype:"success"`"). `is_error` wins over the subtype: the root turn fails with that
/// text (seed, *Cancellation*: "the activity event contract permits turn errors only for
/// failed or interrupted").
#[test]
fn a_success_result_that_is_an_error_fails_the_root_turn() {
    let said = cli(
        json!({"type": "assistant", "message": {"id": "m1", "model": "<synthetic>", "role": "assistant", "content": [{"type": "text", "text": "API Error: 403 access disabled"}]},
        "parent_tool_use_id": null, "session_id": R, "error": "oauth_org_not_allowed", "is_api_error_message": true}),
    );
    let failed = cli(
        json!({"type": "result", "subtype": "success", "is_error": true, "terminal_reason": "api_error", "api_error_status": 403,
        "result": "API Error: 403 access disabled", "session_id": R}),
    );
    let r = replay(&[user("go"), init(), said, failed]);
    let turn = r
        .snapshot()
        .and_then(|s| s.turn(&format!("{R}#1").parse().unwrap()))
        .cloned();
    assert_eq!(turn.as_ref().and_then(|t| t.outcome), Some(Outcome::Failed));
    assert_eq!(
        turn.and_then(|t| t.error.as_deref().map(str::to_owned)),
        Some("API Error: 403 access disabled".to_owned())
    );
}

/// Seed, *Session And Turn Semantics*: "A root turn is initiated by a user submission."
/// In a capture of the CLI's output alone only model output can show a prompt the
/// capture lacks; a `result` with no model output before it, after the root turn
/// settled, shows none: it opens no root turn and is reported as a late provider
/// terminal.
#[test]
fn session_and_turn_semantics_a_bare_result_after_settlement_opens_no_root_turn() {
    let r = replay(&[init(), text("answer"), result("success"), result("success")]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&r, &format!("{R}#2")), None);
    assert_eq!(codes(&r), [Code::LateProviderTerminal]);
}

/// A prompt given on the command line is not echoed (real 2.1.328: "the first root
/// record is `system/init`"); when its run ends before any model output, the `result`
/// is the first sign of the submission: it opens the root turn and ends it (seed,
/// *Session And Turn Semantics*: "A root turn is initiated by a user submission").
#[test]
fn a_command_line_prompt_whose_run_ends_before_any_output_opens_its_root_turn() {
    let r = replay(&[init(), result("error_during_execution")]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Failed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

/// Only a root turn that settled has a follow-up to keep out of it ("a settled root turn
/// never reopens"). In a capture of the CLI's output alone that begins with a task
/// notification (of work the capture never saw start), the model output that follows
/// comes before any root turn: it opens the root turn and is kept, never dropped in
/// silence as the follow-up of a settled one.
#[test]
fn a_notification_before_any_root_turn_makes_no_output_late() {
    let r = replay(&[
        init(),
        notification("b1", "toolu_sh", "completed"),
        text("The background command finished."),
        result("success"),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), [Code::UnknownTask]);
}

/// A `system/init` read before any submission (the CLI starting up) opens nothing: the
/// host's prompt that follows is the root turn's one submission (seed, *Session And Turn
/// Semantics*: "A root turn is initiated by a user submission").
#[test]
fn session_and_turn_semantics_an_init_before_the_prompt_submits_nothing() {
    let lines = [init(), user("go"), text("hi"), result("success")];
    let submitted: Vec<(usize, Option<String>)> = normalized_events(&lines)
        .into_iter()
        .filter_map(|(at, event)| match event {
            crate::tree::Event::UserSubmitted { text, .. } => Some((at, text)),
            _ => None,
        })
        .collect();
    assert_eq!(submitted, [(1, Some("go".to_owned()))]);
    let r = replay(&lines);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
}

#[test]
fn cancellation_the_interrupted_query_s_late_result_is_one_note_whatever_the_order() {
    // "Provider-Native Subagents", *Cancellation*: the root-query interrupt covers the
    // query; a `result` for it after the root's own result (its provider turn had ended)
    // is that query's terminal. Before or after the interrupt's answer or the children's
    // stops, it opens no provider turn during the cancel and is one note.
    for order in ["RXS", "XRS", "XSR", "SXR", "RX", "XR"] {
        let r = replay(&interrupt_with_nested_children(false, order));
        let case = format!("order {order}: {:?}", codes(&r));
        for turn in [format!("{R}#1"), "toolu_a#1".into(), "toolu_g#1".into()] {
            assert_eq!(
                outcome(&r, &turn),
                Some(Outcome::Canceled),
                "{turn}, {case}"
            );
        }
        assert_eq!(codes(&r), [Code::LateProviderTerminal], "{case}");
    }
}

/// A root turn with one background child, up to the child's completed notification at
/// 20 000 ms (the continuation's 30 s run to 50 000), then `after`, each with its time.
fn after_the_final_notification(after: &[(String, u64)]) -> Replay {
    let mut lines = vec![
        at(user("go"), 1_000),
        at(init(), 1_100),
        at(launch("toolu_a", true), 1_200),
        at(task("local_agent", "ta", "toolu_a", true), 1_300),
        at(async_launched("toolu_a"), 1_400),
        at(text("started"), 1_500),
        at(result("success"), 1_600),
        at(notification("ta", "toolu_a", "completed"), 20_000),
    ];
    lines.extend(after.iter().map(|(line, ms)| at(line.clone(), *ms)));
    replay(&lines)
}

/// *Claude Code SDK Mapping*: "The sidecar waits at most 30 seconds for the first root
/// stream or assistant event. Once root output begins, the timeout is disarmed." A
/// `system/init` of the continuation is its first output: in time, it disarms the
/// timeout (a reply long after is still the continuation's); after the timeout, it is
/// the stale continuation's output.
#[test]
fn a_continuation_s_system_init_disarms_its_timeout_in_time_and_is_stale_after_it() {
    let r = after_the_final_notification(&[
        (init(), 30_000),
        (text("The background subagent finished."), 70_000),
        (result("success"), 70_100),
    ]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), Vec::<Code>::new());
    let r = after_the_final_notification(&[(init(), 60_000)]);
    assert_eq!(outcome(&r, &format!("{R}#1")), Some(Outcome::Completed));
    assert_eq!(codes(&r), [Code::StaleContinuation]);
}
