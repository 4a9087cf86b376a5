//! Reducer tests, one per client-semantics rule of the seed, through one helper: a list of
//! compact records in, the view out (every intermediate view is also kept and checked
//! unchanged by later steps).

use serde_json::{Value, json};

use super::{View, ViewOptions};

const PRELUDE: [&str; 4] = [
    r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}}}"#,
    r#"{"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}"#,
    r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}"#,
    r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}"#,
];

fn upd(session: &str, update: Value) -> String {
    json!({"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":session,"update":update}}}).to_string()
}

fn sub(parent: &str, child: &str, fields: Value) -> String {
    let mut u = json!({"sessionUpdate":"subagent_update","sessionId":child});
    if let (Some(o), Some(f)) = (u.as_object_mut(), fields.as_object()) {
        o.extend(f.clone());
    }
    upd(parent, u)
}

fn client(method: &str, id: Option<u64>, params: Value) -> String {
    let mut m = json!({"jsonrpc":"2.0","method":method,"params":params});
    if let Some(id) = id {
        m["id"] = id.into();
    }
    json!({"from":"client","message":m}).to_string()
}

fn agent_result(id: u64, result: Value) -> String {
    json!({"from":"agent","message":{"jsonrpc":"2.0","id":id,"result":result}}).to_string()
}

/// Folds the prelude and `records`; checks that no step changed an earlier view.
fn check(records: &[String]) -> View {
    let mut views = vec![View::new(ViewOptions::default())];
    let lines: Vec<String> = PRELUDE
        .iter()
        .map(|s| (*s).to_owned())
        .chain(records.iter().cloned())
        .collect();
    let mut rendered = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let last = views.last().unwrap();
        rendered.push(format!("{:?}", last.sessions()));
        let next = last.apply(i + 1, line);
        views.push(next);
    }
    for (view, before) in views.iter().zip(&rendered) {
        assert_eq!(
            &format!("{:?}", view.sessions()),
            before,
            "a later step changed an earlier view"
        );
    }
    views.pop().unwrap()
}

fn texts(view: &View, session: &str, message: &str) -> Vec<String> {
    view.session(session)
        .and_then(|s| s.message(message))
        .map(|m| {
            m.content
                .iter()
                .filter_map(|c| c["text"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn announcement_registers_the_child_and_patches_follow_the_nullable_convention() {
    let v = check(&[
        sub("R", "A", json!({"title":"t","description":"d"})),
        sub("R", "A", json!({"description":null})),
        sub("R", "A", json!({"title":7})),
    ]);
    let a = v.session("A").unwrap();
    assert_eq!(a.parent.as_deref(), Some("R"));
    assert_eq!(
        a.title.as_deref(),
        Some("t"),
        "omitted and invalid leave it unchanged"
    );
    assert_eq!(a.description, None, "null clears");
    assert!(v.announced("A") && v.is_child("A") && !v.is_child("R"));
}

#[test]
fn capabilities_and_state_are_replaced_whole() {
    let v = check(&[
        sub(
            "R",
            "A",
            json!({"capabilities":{"cancel":{}},"state":{"state":"idle","stopReason":"end_turn"}}),
        ),
        sub("R", "A", json!({"state":{"state":"running"}})),
    ]);
    assert!(v.effective_cancel("A"));
    assert_eq!(
        v.session("A").unwrap().state,
        Some(json!({"state":"running"}))
    );
    let v = check(&[
        sub("R", "A", json!({"capabilities":{"cancel":{}}})),
        sub("R", "A", json!({"capabilities":{"cancel":null}})),
    ]);
    assert!(!v.effective_cancel("A"));
    let v = check(&[
        sub(
            "R",
            "A",
            json!({"capabilities":{"cancel":{}},"state":{"state":"running"}}),
        ),
        sub("R", "A", json!({"capabilities":null,"state":null})),
    ]);
    assert!(!v.effective_cancel("A"));
    assert_eq!(
        v.current_state("A"),
        None,
        "a cleared state is unconfirmed, not idle"
    );
}

#[test]
fn nesting_uses_the_outer_id_and_no_association_rewrites_a_parent() {
    let v = check(&[
        sub("R", "A", json!({})),
        sub("A", "B", json!({})),
        sub("R", "B", json!({})),
        sub("B", "A", json!({})),
        sub("A", "A", json!({})),
    ]);
    assert_eq!(v.session("B").unwrap().parent.as_deref(), Some("A"));
    assert_eq!(v.session("A").unwrap().parent.as_deref(), Some("R"));
    assert_eq!(
        v.descendants("R"),
        ["A".into(), "B".into()] as [super::Id; 2]
    );
}

#[test]
fn upserts_replace_chunks_append_and_identities_are_retained() {
    let chunk = |t: &str, extra: Value| {
        let mut u = json!({"sessionUpdate":"session_message_chunk","messageId":"m","content":{"type":"text","text":t}});
        if let (Some(o), Some(f)) = (u.as_object_mut(), extra.as_object()) {
            o.extend(f.clone());
        }
        upd("A", u)
    };
    let v = check(&[
        sub("R", "A", json!({})),
        chunk("a", json!({})),
        chunk("b", json!({"senderSessionId":"R"})),
        upd(
            "A",
            json!({"sessionUpdate":"session_message","messageId":"m","content":[{"type":"text","text":"whole"}],"recipientSessionId":"A"}),
        ),
        chunk(
            "c",
            json!({"senderSessionId":null,"recipientSessionId":null}),
        ),
    ]);
    assert_eq!(texts(&v, "A", "m"), ["whole", "c"]);
    let m = v.session("A").unwrap().message("m").unwrap();
    assert_eq!(
        (m.sender.as_deref(), m.recipient.as_deref()),
        (Some("R"), Some("A"))
    );
    let v = check(&[
        sub("R", "A", json!({})),
        chunk("a", json!({})),
        upd(
            "A",
            json!({"sessionUpdate":"session_message","messageId":"m","content":[]}),
        ),
    ]);
    assert!(texts(&v, "A", "m").is_empty(), "content [] clears");
}

#[test]
fn incoming_and_outgoing_views_stay_apart() {
    let v = check(&[
        sub("R", "A", json!({})),
        upd(
            "R",
            json!({"sessionUpdate":"session_message","messageId":"m1","senderSessionId":"R","recipientSessionId":"A","content":[]}),
        ),
    ]);
    assert!(
        v.session("A").unwrap().messages.is_empty(),
        "no incoming entry is inferred"
    );
    assert_eq!(v.session("R").unwrap().messages.len(), 1);
}

#[test]
fn unknown_and_future_states_are_preserved_with_their_payload() {
    let v = check(&[
        sub("R", "A", json!({"state":{"state":"_paused","why":"quota"}})),
        sub("R", "B", json!({"state":{"state":"unknown"}})),
    ]);
    assert_eq!(
        v.session("A").unwrap().state,
        Some(json!({"state":"_paused","why":"quota"}))
    );
    assert_eq!(v.current_state("B"), Some("unknown"));
}

#[test]
fn mirrored_state_is_one_idempotent_state() {
    let idle = json!({"state":"idle","stopReason":"end_turn"});
    let v = check(&[
        sub("R", "A", json!({})),
        upd(
            "A",
            json!({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}),
        ),
        sub("R", "A", json!({"state":idle})),
        sub("R", "A", json!({"state":idle})),
    ]);
    let a = v.session("A").unwrap();
    assert_eq!(a.state, Some(idle));
    assert_eq!(
        a.idle_transitions, 1,
        "copies do not count completion twice"
    );
}

#[test]
fn disconnect_shows_no_current_state_and_no_grant() {
    let v = check(&[
        sub(
            "R",
            "A",
            json!({"capabilities":{"cancel":{}},"state":{"state":"running"}}),
        ),
        r#"{"from":"transport","event":"disconnected"}"#.into(),
    ]);
    assert!(!v.connected());
    assert_eq!(v.current_state("A"), None);
    assert!(!v.effective_cancel("A"));
    assert_eq!(
        v.session("A").unwrap().state,
        Some(json!({"state":"running"})),
        "history stays"
    );
}

#[test]
fn load_is_a_freshness_boundary() {
    let v = check(&[
        sub("R", "A", json!({"capabilities":{"cancel":{}}})),
        client("session/load", Some(9), json!({"sessionId":"R"})),
        sub(
            "R",
            "A",
            json!({"capabilities":{"cancel":{}},"state":{"state":"running"}}),
        ),
    ]);
    assert!(v.in_replay());
    assert!(
        !v.effective_cancel("A"),
        "historical grants never populate the effective set"
    );
    assert_eq!(v.current_state("A"), None);
    let v = v
        .apply(20, &agent_result(9, Value::Null))
        .apply(21, &sub("R", "A", json!({"title":"x"})));
    assert!(
        !v.effective_cancel("A"),
        "an omitted current capability set keeps controls off"
    );
    let v = v.apply(22, &sub("R", "A", json!({"capabilities":{"cancel":{}}})));
    assert!(v.effective_cancel("A"));
}

#[test]
fn a_failed_resume_voids_what_it_received() {
    let v = check(&[
        sub("R", "A", json!({})),
        client("session/resume", Some(9), json!({"sessionId":"R"})),
        sub(
            "R",
            "A",
            json!({"capabilities":{"cancel":{}},"state":{"state":"running"}}),
        ),
    ]);
    assert!(
        !v.effective_cancel("A"),
        "no child cancel before the success response"
    );
    assert_eq!(
        v.current_state("A"),
        Some("running"),
        "non-replay snapshots are current"
    );
    let failed = v.apply(
        30,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"x"}}}"#,
    );
    assert!(!failed.effective_cancel("A"));
    assert_eq!(failed.current_state("A"), None);
    assert!(
        failed.session("A").unwrap().parent.is_some(),
        "routing is retained"
    );
    let ok = v.apply(30, &agent_result(9, json!({})));
    assert!(ok.effective_cancel("A"));
}

#[test]
fn costs_are_the_latest_cumulative_value_per_session() {
    let usage = |s: &str, amount: f64| {
        upd(
            s,
            json!({"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":amount,"currency":"USD"}}),
        )
    };
    let v = check(&[
        sub("R", "A", json!({})),
        usage("A", 0.1),
        usage("A", 0.3),
        usage("R", 1.2),
    ]);
    let cost = |s: &str| v.session(s).unwrap().usage.as_ref().unwrap()["cost"]["amount"].as_f64();
    assert_eq!((cost("R"), cost("A")), (Some(1.2), Some(0.3)));
}

#[test]
fn cancel_marks_unfinished_tool_calls_until_the_agent_reports() {
    let v = check(&[
        sub("R", "A", json!({"capabilities":{"cancel":{}}})),
        upd(
            "A",
            json!({"sessionUpdate":"tool_call","toolCallId":"c1","title":"t","status":"in_progress"}),
        ),
        upd(
            "A",
            json!({"sessionUpdate":"tool_call","toolCallId":"c2","title":"t","status":"completed"}),
        ),
        client("session/cancel", None, json!({"sessionId":"R"})),
    ]);
    let calls = &v.session("A").unwrap().tool_calls;
    assert!(calls.get("c1").unwrap().locally_cancelled);
    assert_eq!(&*calls.get("c2").unwrap().status, "completed");
    let v = v.apply(
        40,
        &upd(
            "A",
            json!({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"}),
        ),
    );
    assert_eq!(
        &*v.session("A").unwrap().tool_calls.get("c1").unwrap().status,
        "failed"
    );
}
