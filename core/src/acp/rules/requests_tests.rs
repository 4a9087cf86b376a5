//! A pass and a fail trace, from the Subagent Sessions RFD, for branches of
//! `requests.rs` no corpus trace told apart (`cargo mutants` survivors, issue 28 item
//! 14): closing a parent reaches its children's permission requests as a cancel does,
//! each `fs/*_text_file` capability guards its own method, only a successful resume
//! with replay is a freshness boundary, and only an answer before the replay request
//! makes a request reissued. `updates_tests.rs` uses the same stream helpers.

use serde_json::{Value, json};

use super::Checker;
use crate::acp::view::ViewOptions;
use crate::finding::Revision;

/// The `line:rule` findings of a v`version` stream: `initialize` with `caps` (plus
/// `subagents`), `session/new` → R, `A` announced under R running, then `rest`.
pub(super) fn run(version: u64, caps: &Value, rest: &[Value]) -> Vec<String> {
    run_under(Revision::Seed, version, caps, rest)
}

/// [`run`], checked against the RFD revision `spec`.
pub(super) fn run_under(spec: Revision, version: u64, caps: &Value, rest: &[Value]) -> Vec<String> {
    let mut caps = caps.clone();
    caps["subagents"] = json!({});
    let mut lines = vec![
        json!({"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version,"clientCapabilities":caps}}}),
        json!({"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":version}}}),
        json!({"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}),
        json!({"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}),
        agent_update(
            "R",
            json!({"sessionUpdate":"subagent_update","sessionId":"A","state":{"state":"running"}}),
        ),
    ];
    lines.extend(rest.iter().cloned());
    let mut checker = Checker::with_view_options(ViewOptions {
        transcripts: false,
        header_version: Some(version),
        spec,
        changes: false,
    });
    for (i, line) in lines.iter().enumerate() {
        checker.push_line(i + 1, &line.to_string());
    }
    findings_at_end(checker)
}

/// The checker's findings once its stream ended, as `line:rule`.
pub(super) fn findings_at_end(mut checker: Checker) -> Vec<String> {
    checker.end();
    checker
        .take_findings()
        .iter()
        .map(|f| format!("{}:{}", f.line, f.rule.as_str()))
        .collect()
}

pub(super) fn agent_update(session: &str, update: Value) -> Value {
    json!({"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":session,"update":update}}})
}

pub(super) fn agent(message: Value) -> Value {
    json!({"from":"agent","message":message})
}

pub(super) fn client(message: Value) -> Value {
    json!({"from":"client","message":message})
}

pub(super) const ALL_CAPS: &str =
    r#"{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}"#;

/// "Closing the ordinary parent session cancels its active descendant work", whose
/// pending permission requests the Client must answer with the cancelled outcome: a
/// `session/close` of R reaches A's request as a cancel of R would.
#[test]
fn closing_a_parent_reaches_its_child_s_pending_permission() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |outcome: Value| {
        run(
            1,
            &caps,
            &[
                agent(
                    json!({"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}}),
                ),
                client(
                    json!({"jsonrpc":"2.0","id":2,"method":"session/close","params":{"sessionId":"R"}}),
                ),
                client(json!({"jsonrpc":"2.0","id":7,"result":{"outcome":outcome}})),
                agent(json!({"jsonrpc":"2.0","id":2,"result":{}})),
            ],
        )
    };
    let answered = trace(json!({"outcome":"selected","optionId":"allow"}));
    assert_eq!(answered, ["8:permission-not-cancelled"]);
    assert!(trace(json!({"outcome":"cancelled"})).is_empty());
}

/// "Agents MUST NOT use a child to circumvent restrictions the Client imposed on the
/// parent session": each `fs/*_text_file` method of a child needs its own capability,
/// and is fine with it.
#[test]
fn each_text_file_method_needs_its_own_capability() {
    for (method, cap) in [
        ("fs/read_text_file", "readTextFile"),
        ("fs/write_text_file", "writeTextFile"),
    ] {
        let trace = |allowed: bool| {
            let mut caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
            caps["fs"][cap] = allowed.into();
            run(
                1,
                &caps,
                &[
                    agent(
                        json!({"jsonrpc":"2.0","id":7,"method":method,"params":{"sessionId":"A","path":"/p/x","content":""}}),
                    ),
                    client(json!({"jsonrpc":"2.0","id":7,"result":{}})),
                ],
            )
        };
        assert_eq!(trace(false), ["6:child-capability-bypass"], "{method}");
        assert!(trace(true).is_empty(), "{method}: {:?}", trace(true));
    }
}

/// The resume response and the current snapshots that follow it "MUST NOT share a
/// JSON-RPC batch": this concerns the success response to a resume with replay; a resume without `replayFrom` has no replay window
/// to end, and a failed resume ends nothing current.
#[test]
fn only_a_successful_replay_resume_is_a_freshness_boundary() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |params: Value, response: Value| {
        let snapshot = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A","capabilities":{"cancel":{}}}}});
        run(
            2,
            &caps,
            &[
                client(json!({"jsonrpc":"2.0","id":5,"method":"session/resume","params":params})),
                agent_update(
                    "R",
                    json!({"sessionUpdate":"subagent_update","sessionId":"A"}),
                ),
                agent(json!([response, snapshot])),
            ],
        )
    };
    let replay = json!({"sessionId":"R","cwd":"/p","replayFrom":{"type":"start"}});
    let success = json!({"jsonrpc":"2.0","id":5,"result":{}});
    let failure = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"no"}});
    assert_eq!(
        trace(replay.clone(), success.clone()),
        ["8:batch-dependency"]
    );
    assert!(trace(replay, failure).is_empty());
    assert!(trace(json!({"sessionId":"R","cwd":"/p"}), success).is_empty());
}

/// "Replay MUST NOT reissue recorded permission, elicitation, or other Agent-to-Client
/// requests": a permission answered on the line before the resume request is recorded
/// history, so asking for the same tool call inside the replay window is a reissue. An
/// answer in the same batch as the resume is not known to precede it ("batch entries may
/// be processed in any order"; here it even follows the resume in array order), so the
/// request may still have been pending when the replay started: not a reissue.
#[test]
fn a_permission_answered_before_the_replay_request_is_not_reissued() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let permission = |id: u64| {
        agent(
            json!({"jsonrpc":"2.0","id":id,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}}),
        )
    };
    let allow = |id: u64| json!({"jsonrpc":"2.0","id":id,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}});
    let resume = json!({"jsonrpc":"2.0","id":5,"method":"session/resume","params":{"sessionId":"R","cwd":"/p","replayFrom":{"type":"start"}}});
    let trace = |answer_then_resume: &[Value]| {
        let mut rest = vec![permission(7)];
        rest.extend(answer_then_resume.iter().cloned());
        rest.extend([
            agent_update(
                "R",
                json!({"sessionUpdate":"subagent_update","sessionId":"A"}),
            ),
            permission(8),
            client(allow(8)),
            agent(json!({"jsonrpc":"2.0","id":5,"result":{}})),
        ]);
        run(2, &caps, &rest)
    };
    // Answered on line 7, the replay requested on line 8, reissued on line 10.
    assert_eq!(
        trace(&[client(allow(7)), client(resume.clone())]),
        ["10:request-reissued"]
    );
    // The resume and the answer share line 7; the request comes on line 9.
    assert!(trace(&[client(json!([resume, allow(7)]))]).is_empty());
}
