use serde_json::{Value, json};

use super::{Recorded, is_line, translate};

fn obj(v: &Value) -> &serde_json::Map<String, Value> {
    v.as_object().unwrap()
}

fn message(id: usize, line: &Value) -> (Option<String>, Value) {
    match translate(id, obj(line)) {
        Ok(Recorded::Message { answers, message }) => (answers, message),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn the_three_shapes_are_recording_lines_and_nothing_else_is() {
    for line in [
        json!({"kind":"notification","method":"session/update","payload":{}}),
        json!({"kind":"sessionUpdate","payload":{"sessionId":"S"}}),
        json!({"direction":"notify","method":"session/update","params":{}}),
        json!({"direction":"codexResponse","method":"item/x","params":{}}),
    ] {
        assert!(is_line(obj(&line)), "{line}");
    }
    for line in [
        json!({"jsonrpc":"2.0","method":"session/update","params":{}}),
        json!({"from":"agent","message":{}}),
        json!({"type":"request","ts":0,"from":"Agent","to":"Client","kind":"x","payload":{}}),
        json!({"kind":"sessionUpdate"}),
        json!({"direction":"notify"}),
        json!({"kind":"request","id":1,"method":"x","payload":{}}),
    ] {
        assert!(!is_line(obj(&line)), "{line}");
    }
}

#[test]
fn a_v2_line_is_the_agent_message_it_names() {
    let (answers, m) = message(
        4,
        &json!({"kind":"response","method":"session/new","payload":{"sessionId":"<session>"}}),
    );
    assert_eq!(answers.as_deref(), Some("session/new"));
    assert_eq!(
        m,
        json!({"jsonrpc":"2.0","id":4,"result":{"sessionId":"<session>"}})
    );
    let (answers, m) = message(
        9,
        &json!({"kind":"request","method":"session/request_permission","payload":{"sessionId":"S"}}),
    );
    assert_eq!(answers, None);
    assert_eq!(
        m,
        json!({"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"S"}})
    );
    let (_, m) = message(
        2,
        &json!({"kind":"notification","method":"session/update","payload":{"sessionId":"S"}}),
    );
    assert_eq!(
        m,
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S"}})
    );
}

#[test]
fn an_air_kind_names_its_method_and_a_response_the_method_it_answers() {
    let cases = [
        ("sessionUpdate", None, Some("session/update"), false),
        (
            "requestPermission",
            None,
            Some("session/request_permission"),
            true,
        ),
        ("createElicitation", None, Some("elicitation/create"), true),
        (
            "completeElicitation",
            None,
            Some("elicitation/complete"),
            false,
        ),
        ("initialize", Some("initialize"), None, true),
        ("newSession", Some("session/new"), None, true),
        ("loadSession", Some("session/load"), None, true),
        ("promptResponse", Some("session/prompt"), None, true),
    ];
    for (kind, answers, method, has_id) in cases {
        let (got, m) = message(7, &json!({"kind":kind,"payload":{"p":1}}));
        assert_eq!(got.as_deref(), answers, "{kind}");
        assert_eq!(m.get("method").and_then(Value::as_str), method, "{kind}");
        assert_eq!(m.get("id").is_some(), has_id, "{kind}");
        let body = if answers.is_some() {
            "result"
        } else {
            "params"
        };
        assert_eq!(m[body], json!({"p":1}), "{kind}");
    }
    let (_, m) = message(
        3,
        &json!({"kind":"extNotification","payload":{"method":"_x/y","params":{"a":1}}}),
    );
    assert_eq!(m, json!({"jsonrpc":"2.0","method":"_x/y","params":{"a":1}}));
}

#[test]
fn a_codex_acp_direction_names_the_message_and_what_is_not_acp_is_skipped() {
    let (answers, m) = message(
        1,
        &json!({"direction":"response","method":"initialize","params":{"protocolVersion":1}}),
    );
    assert_eq!(answers.as_deref(), Some("initialize"));
    assert_eq!(m["result"], json!({"protocolVersion":1}));
    let (_, m) = message(
        5,
        &json!({"direction":"call","method":"readTextFile","params":[{"sessionId":"S","path":"/a"}]}),
    );
    assert_eq!(
        m,
        json!({"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"sessionId":"S","path":"/a"}})
    );
    let (_, m) = message(
        6,
        &json!({"direction":"request","method":"elicitation/create","params":{}}),
    );
    assert_eq!(m["id"], 6);
    for (line, what) in [
        (
            json!({"direction":"codexResponse","method":"item/commandExecution/requestApproval","params":{}}),
            "codexResponse",
        ),
        (
            json!({"direction":"call","method":"somethingElse","params":[]}),
            "somethingElse",
        ),
        (json!({"kind":"futureKind","payload":{}}), "futureKind"),
    ] {
        match translate(1, obj(&line)) {
            Ok(Recorded::Skipped(said)) => assert!(said.contains(what), "{said}"),
            other => panic!("{line}: {other:?}"),
        }
    }
    let err = translate(1, obj(&json!({"kind":"response","payload":{}}))).unwrap_err();
    assert!(err.contains("`method`"), "{err}");
}

/// RFD *Subagent Sessions*, Revision history ("Merged `subagent_spawned` and
/// `subagent_state_update` into a single upsert-style `subagent_update`"): a draft state
/// update is reported as what it is, a state report in the old shape, not as an
/// announcement (codex-acp's and claude-agent-acp's `air` recordings send both).
#[test]
fn a_draft_state_update_is_named_a_state_report_not_an_announcement() {
    let lines = [
        json!({"kind":"sessionUpdate","payload":{"sessionId":"R","update":{
            "sessionUpdate":"subagent_spawned","subagentSessionId":"C","name":"n","task":"t"}}}),
        json!({"kind":"sessionUpdate","payload":{"sessionId":"R","update":{
            "sessionUpdate":"subagent_state_update","subagentSessionId":"C","state":"completed"}}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let checked = crate::replay::check(&text, None).unwrap();
    let legacy: Vec<&str> = checked
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == "legacy-draft-shape")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(legacy.len(), 2, "{legacy:?}");
    assert!(legacy[0].contains("`subagent_spawned` (the 2026-08-31 draft; not an announcement"));
    assert!(
        legacy[1]
            .contains("`subagent_state_update` (the 2026-08-31 draft; not a work-state report")
    );
    assert!(!legacy[1].contains("announcement"), "{}", legacy[1]);
}
