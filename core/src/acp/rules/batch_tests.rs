//! A pass and a fail trace for `batch-dependency` (`mod.rs`'s `batch_dependencies`, `cargo
//! mutants` survivors, issue 28 item 14), from the Subagent Sessions RFD: "batch entries
//! may be processed in any order", so an announcement and the traffic bearing its child,
//! or the resume response and a current snapshot of the resumed subtree, "MUST NOT share a
//! JSON-RPC batch". The streams are `requests_tests.rs`'s (v2): `initialize`, R set up,
//! child `A` announced, then the records given.

use serde_json::{Value, json};

use super::requests_tests::{ALL_CAPS, agent, client, run};

fn update(session: &str, update: Value) -> Value {
    json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":session,"update":update}})
}

fn chunk(session: &str) -> Value {
    update(
        session,
        json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}),
    )
}

/// An announcement of B is a dependency only of the traffic that bears B: a batch of the
/// announcement and R's own output is fine.
#[test]
fn an_announcement_conflicts_only_with_traffic_bearing_its_child() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |traffic: Value| {
        let announce = update(
            "R",
            json!({"sessionUpdate":"subagent_update","sessionId":"B","state":{"state":"running"}}),
        );
        run(2, &caps, &[agent(json!([announce, traffic]))])
    };
    assert_eq!(trace(chunk("B")), ["6:batch-dependency"]);
    let unrelated = trace(chunk("R"));
    assert!(unrelated.is_empty(), "{unrelated:?}");
}

/// After the success response to R's resume with replay, a `state_update` in the same
/// batch depends on it when it is of R's subtree, R itself included; one of another root
/// S does not.
#[test]
fn a_resume_response_conflicts_only_with_snapshots_of_the_resumed_subtree() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |session: &str| {
        let resume = json!({"sessionId":"R","cwd":"/p","replayFrom":{"type":"start"}});
        let state = update(
            session,
            json!({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}),
        );
        run(
            2,
            &caps,
            &[
                client(json!({"jsonrpc":"2.0","id":3,"method":"session/new","params":{}})),
                agent(json!({"jsonrpc":"2.0","id":3,"result":{"sessionId":"S"}})),
                client(json!({"jsonrpc":"2.0","id":5,"method":"session/resume","params":resume})),
                agent(json!([{"jsonrpc":"2.0","id":5,"result":{}}, state])),
            ],
        )
    };
    assert_eq!(trace("R"), ["9:batch-dependency"]);
    let other_root = trace("S");
    assert!(other_root.is_empty(), "{other_root:?}");
}
