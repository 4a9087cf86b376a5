use serde_json::json;

use super::*;
use crate::engine::{Engine, Options};

/// A client record of lineage's envelope carrying `message`.
fn client(message: &Value) -> String {
    json!({"from": "client", "message": message}).to_string()
}

#[test]
fn formats_are_told_from_record_shapes() {
    assert_eq!(from_line(r#"{"event":{}}"#), Ok(Format::Canonical));
    assert_eq!(
        from_line(r#"{"from":"client","message":{"id":1,"method":"turn/start"}}"#),
        Ok(Format::CodexAppServer)
    );
    assert_eq!(
        from_line(r#"{"from":"cli","message":{}}"#),
        Ok(Format::ClaudeSdk)
    );
    assert_eq!(
        from_line(r#"{"from":"server","message":{"id":0,"result":{}}}"#),
        Ok(Format::CodexAppServer)
    );
    assert_eq!(
        from_line(r#"{"from":"transport","event":"connected"}"#),
        Ok(Format::Acp)
    );
    assert_eq!(from_line("not json"), Err(Why::NotAnObject));
    assert_eq!(from_line("{}"), Err(Why::NoShape));
    assert_eq!(
        from_line(r#"{"from":"proxy","message":{}}"#),
        Err(Why::UnknownFrom("\"proxy\"".into()))
    );
}

#[test]
fn jsonrpc_alone_tells_nothing_the_method_does() {
    let acp = json!({"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/"}});
    let codex = json!({"jsonrpc":"2.0","id":1,"method":"thread/start","params":{}});
    assert_eq!(from_line(&client(&acp)), Ok(Format::Acp));
    assert_eq!(from_line(&client(&codex)), Ok(Format::CodexAppServer));
    // Codex's `fs/*` methods are camel-case, ACP's snake-case.
    let read = |m: &str| json!({"jsonrpc":"2.0","id":2,"method":m,"params":{}});
    assert_eq!(
        from_line(&client(&read("fs/readFile"))),
        Ok(Format::CodexAppServer)
    );
    assert_eq!(
        from_line(&read("fs/read_text_file").to_string()),
        Ok(Format::Acp)
    );
    assert_eq!(
        from_line(&read("item/tool/requestUserInput").to_string()),
        Ok(Format::CodexAppServer)
    );
    assert_eq!(
        from_line(&read("_zed/custom").to_string()),
        Err(Why::Method("_zed/custom".into()))
    );
    assert_eq!(
        from_line(&client(&json!({"jsonrpc":"2.0","method":"initialized"}))),
        Err(Why::Method("initialized".into()))
    );
}

#[test]
fn initialize_is_told_by_its_params() {
    // What a Codex app-server client sends (the real captures' first line).
    let codex = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "clientInfo":{"name":"lab","title":"lab","version":"0.1.0"},"capabilities":{"experimentalApi":true}}});
    let acp = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}},"clientInfo":{"name":"zed"}}});
    let neither = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}});
    for (message, told) in [
        (&codex, Ok(Format::CodexAppServer)),
        (&acp, Ok(Format::Acp)),
        (&neither, Err(Why::Initialize)),
    ] {
        assert_eq!(from_line(&client(message)), told, "{message}");
        assert_eq!(
            from_line(&message.to_string()),
            told,
            "unenveloped {message}"
        );
    }
    // A batch is told by its first element that tells.
    let batch = json!([{"jsonrpc":"2.0","id":9,"result":{}}, codex]);
    assert_eq!(from_line(&client(&batch)), Ok(Format::CodexAppServer));
}

#[test]
fn unenveloped_lines_are_told_by_type_or_method() {
    let told = |v: Value| from_line(&v.to_string());
    assert_eq!(
        told(json!({"type":"system","subtype":"init"})),
        Ok(Format::ClaudeSdk)
    );
    assert_eq!(
        told(json!({"type":"session_meta"})),
        Err(Why::Type("session_meta".into()))
    );
    assert_eq!(told(json!({"id":1,"result":{}})), Err(Why::Response));
    assert_eq!(
        told(json!({"method":"turn/started","params":{}})),
        Ok(Format::CodexAppServer)
    );
}

/// The ACP adapters' own test recordings tell `acp` from their first line, whatever
/// method it names (a codex-acp `codexResponse` names a Codex app-server method).
#[test]
fn each_shape_of_an_acp_adapter_recording_tells_acp() {
    let told = |v: Value| from_line(&v.to_string());
    for line in [
        // claude-agent-acp, __snapshots__/v2
        json!({"kind":"response","method":"initialize","payload":{"protocolVersion":2}}),
        json!({"kind":"notification","method":"session/update","payload":{"sessionId":"<session>","update":{}}}),
        json!({"kind":"request","method":"session/request_permission","payload":{"sessionId":"<session>"}}),
        // claude-agent-acp, __snapshots__/air
        json!({"kind":"sessionUpdate","payload":{"sessionId":"<session>","update":{}}}),
        json!({"kind":"promptResponse","payload":{"stopReason":"end_turn"}}),
        // codex-acp, src/__tests__/scenarios/data
        json!({"direction":"response","method":"initialize","params":{"protocolVersion":1}}),
        json!({"direction":"notify","method":"session/update","params":{"sessionId":"session-1"}}),
        json!({"direction":"codexResponse","method":"item/commandExecution/requestApproval","params":{}}),
    ] {
        assert_eq!(told(line.clone()), Ok(Format::Acp), "{line}");
        let obj = line.as_object().unwrap();
        assert_eq!(super::unenveloped(obj), Ok(Format::Acp), "{line}");
    }
    // A JSON-RPC message with a `kind` of its own is not a recording line.
    assert_eq!(
        told(json!({"jsonrpc":"2.0","id":1,"kind":"x","payload":{},"method":"thread/start"})),
        Ok(Format::CodexAppServer)
    );
}

#[test]
fn responses_only_prefixes_are_held_until_a_request_tells() {
    let mut e = Engine::new(Options::default());
    let response = client(&json!({"jsonrpc":"2.0","id":0,"result":{}}));
    for _ in 0..3 {
        let out = e.push_line(&response).unwrap();
        assert!(out.findings.is_empty() && out.changes.is_empty());
        assert_eq!(e.format(), None);
    }
    let start = json!({"jsonrpc":"2.0","id":1,"method":"thread/start","params":{}});
    e.push_line(&client(&start)).unwrap();
    assert_eq!(e.format(), Some(Format::CodexAppServer));
}

#[test]
fn a_trace_that_never_tells_is_a_located_usage_error() {
    let mut e = Engine::new(Options::default());
    let lines = [
        r#"{"jsonrpc":"2.0","method":"_x/ping","params":{}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"result":{}}}"#,
        r#"{"jsonrpc":"2.0","method":"_x/ping","params":{}}"#,
    ];
    for line in lines {
        assert!(e.push_line(line).is_ok());
    }
    let error = e.finish().unwrap_err();
    let EngineError::UnknownFormat(untold) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(untold.records, 3);
    let located: Vec<(&[usize], usize)> = untold
        .reasons
        .iter()
        .map(|r| (r.lines.as_slice(), r.count))
        .collect();
    assert_eq!(located, [(&[1, 3][..], 2), (&[2][..], 1)]);
    let text = error.to_string();
    assert!(text.starts_with(crate::engine::UNKNOWN_FORMAT), "{text}");
    assert!(
        text.contains("lines 1, 3: method `_x/ping` is in neither"),
        "{text}"
    );
    assert!(text.contains("line 2: a JSON-RPC response"), "{text}");
}

#[test]
fn holding_stops_at_the_limit_and_says_why() {
    let mut d = Detector::default();
    for line in 1..HOLD_LIMIT {
        assert!(
            d.hold(line, Held::Line("{}".into()), &Why::NoShape).is_ok(),
            "line {line}"
        );
    }
    let Err(EngineError::UnknownFormat(untold)) =
        d.hold(HOLD_LIMIT, Held::Line("{}".into()), &Why::NoShape)
    else {
        panic!("the limit");
    };
    assert_eq!(untold.records, HOLD_LIMIT);
    assert_eq!(
        untold.to_string(),
        format!("lines 1, 2, 3 ({HOLD_LIMIT} in all): {}", Why::NoShape)
    );
}
