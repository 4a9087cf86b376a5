//! A pass and a fail trace for the checker's connection boundary in `mod.rs` (`cargo
//! mutants` survivors, issue 28 item 14). The model of a trace: "the trace start, a
//! `{"from":"transport","event":"connected"}` record or a Client `initialize` request
//! starts [a connection]; a disconnect ends it", and `cancel-not-confirmed` is owed only
//! "with no disconnect or reload since the cancel". The streams are `requests_tests.rs`'s:
//! `initialize`, R set up, child `A` announced, then the records given.

use serde_json::{Value, json};

use super::requests_tests::{ALL_CAPS, agent_update, client, run};

/// The Client cancels R while A runs, then `after` comes and the trace ends with no
/// `idle` or `unknown` from A.
fn cancel_then(after: Value) -> Vec<String> {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    run(
        1,
        &caps,
        &[
            agent_update(
                "R",
                json!({"sessionUpdate":"subagent_update","sessionId":"A","state":{"state":"running"}}),
            ),
            client(json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}})),
            after,
        ],
    )
}

/// A new connection (a Client `initialize` request, a transport `connected` or
/// `disconnected` record) drops the confirmation A owed; another Client request on the
/// same connection does not, nor does an `initialize` the Agent sends.
#[test]
fn only_a_new_connection_drops_the_confirmation_a_cancel_awaits() {
    let initialize = |from: &str| json!({"from":from,"message":{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}}});
    for event in ["connected", "disconnected"] {
        let dropped = cancel_then(json!({"from":"transport","event":event}));
        assert!(dropped.is_empty(), "{event}: {dropped:?}");
    }
    let reconnected = cancel_then(initialize("client"));
    assert!(reconnected.is_empty(), "{reconnected:?}");
    let prompt = client(
        json!({"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"R","prompt":[]}}),
    );
    assert_eq!(cancel_then(prompt), ["7:cancel-not-confirmed"]);
    assert_eq!(cancel_then(initialize("agent")), ["7:cancel-not-confirmed"]);
}

/// A session's ordinary message ids, kept without a set while it has one: a second id
/// makes the set, and every id stays known ("unique within the enclosing session").
#[test]
fn a_session_s_message_ids_are_all_known_one_few_or_many() {
    let mut ids = super::MessageIds::One("m1".into());
    ids.insert("m1");
    assert!(matches!(ids, super::MessageIds::One(_)));
    assert!(ids.contains("m1") && !ids.contains("m2"));
    ids.insert("m2");
    ids.insert("m1");
    ids.insert("m3");
    assert!(matches!(&ids, super::MessageIds::Few(few) if few.len() == 3));
    assert!(["m1", "m2", "m3"].iter().all(|id| ids.contains(id)));
    assert!(!ids.contains("m4"));
    let names: Vec<String> = (1..=20).map(|i| format!("m{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        ids.insert(name);
        ids.insert("m2");
        let few = i < super::MessageIds::FEW;
        assert_eq!(
            matches!(ids, super::MessageIds::Few(_)),
            few,
            "after {name}"
        );
        assert!(
            names[..=i].iter().all(|id| ids.contains(id)),
            "after {name}"
        );
        assert!(!ids.contains("m21") && !ids.contains(""), "after {name}");
    }
}
