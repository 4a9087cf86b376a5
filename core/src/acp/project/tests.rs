//! The projection over corpus traces: what `lineage check` says of the result is in the
//! corpus-wide test (`traces/tests/convert.rs`); these pin the shapes.

use super::*;
use crate::engine::{Engine, Options as EngineOptions};

fn project(text: &str, options: Options) -> Vec<AcpMessage> {
    let mut engine = Engine::new(EngineOptions::default());
    let mut projector = Projector::new(options);
    let mut stream = projector.start();
    for line in text.lines() {
        let out = engine.push_line(line).unwrap();
        stream.extend(projector.project(engine.snapshot(), &out.changes));
    }
    stream
}

fn updates<'a>(stream: &'a [AcpMessage], kind: &str) -> Vec<&'a Value> {
    stream
        .iter()
        .filter(|m| m.message["params"]["update"]["sessionUpdate"] == kind)
        .map(|m| &m.message)
        .collect()
}

const NESTED: &str = include_str!("../../../../traces/codex/06-nested-grandchild.jsonl");

#[test]
fn v1_announces_each_child_under_its_own_parent_before_its_traffic() {
    let stream = project(NESTED, Options::default());
    let announced: Vec<(&str, &str)> = updates(&stream, "subagent_update")
        .iter()
        .filter(|u| u["params"]["update"].get("capabilities").is_some())
        .map(|u| {
            (
                u["params"]["sessionId"].as_str().unwrap(),
                u["params"]["update"]["sessionId"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(announced.len(), 2, "{announced:?}");
    let (root, child) = announced[0];
    assert_eq!(
        announced[1].0, child,
        "the grandchild is announced under the child, not the root"
    );
    assert_ne!(root, child);
    for (parent, session) in announced {
        let first_mention = stream
            .iter()
            .position(|m| {
                m.message["params"]["sessionId"] == session
                    || m.message["params"]["update"]["sessionId"] == session
            })
            .unwrap();
        let first_own = stream
            .iter()
            .position(|m| m.message["params"]["sessionId"] == session);
        assert!(
            first_own.is_none_or(|own| own > first_mention),
            "{parent} → {session}"
        );
    }
}

#[test]
fn v1_without_subagents_flattens_children_into_the_root() {
    let options = Options {
        client_subagents: false,
        ..Options::default()
    };
    let stream = project(NESTED, options);
    assert!(updates(&stream, "subagent_update").is_empty());
    let init = &stream[0].message;
    assert!(
        init["params"]["clientCapabilities"]
            .get("subagents")
            .is_none()
    );
    let roots: BTreeSet<&str> = stream
        .iter()
        .filter_map(|m| m.message["params"]["sessionId"].as_str())
        .collect();
    assert_eq!(roots.len(), 1, "every update is on the root: {roots:?}");
}

#[test]
fn v2_reports_each_child_state_on_its_stream_then_mirrors_it() {
    let options = Options {
        version: Version::V2,
        ..Options::default()
    };
    let stream = project(NESTED, options);
    for (i, m) in stream.iter().enumerate() {
        let update = &m.message["params"]["update"];
        if update["sessionUpdate"] == "state_update"
            && m.message["params"]["sessionId"] != stream_root(&stream)
        {
            let child = &m.message["params"]["sessionId"];
            let mirror = &stream[i + 1].message["params"]["update"];
            assert_eq!(mirror["sessionUpdate"], "subagent_update");
            assert_eq!(&mirror["sessionId"], child);
            assert_eq!(mirror["state"]["state"], update["state"]);
        }
    }
    assert!(!updates(&stream, "state_update").is_empty());
}

fn stream_root(stream: &[AcpMessage]) -> Value {
    stream
        .iter()
        .find(|m| m.message["method"] == "session/prompt")
        .map(|m| m.message["params"]["sessionId"].clone())
        .unwrap()
}

#[test]
fn a_root_cancel_is_the_clients_session_cancel_and_children_confirm_with_idle_cancelled() {
    let stream = project(
        include_str!("../../../../traces/codex/11-user-cancel-full-fanout.jsonl"),
        Options::default(),
    );
    let cancel = stream
        .iter()
        .position(|m| m.message["method"] == "session/cancel")
        .unwrap();
    assert_eq!(stream[cancel].from, Side::Client);
    let confirmed: Vec<&Value> = stream[cancel..]
        .iter()
        .filter(|m| m.message["params"]["update"]["state"]["stopReason"] == "cancelled")
        .map(|m| &m.message)
        .collect();
    assert_eq!(confirmed.len(), 2, "both children confirm");
    let response = stream
        .iter()
        .rfind(|m| {
            m.message
                .get("result")
                .and_then(|r| r.get("stopReason"))
                .is_some()
        })
        .unwrap();
    assert_eq!(response.message["result"]["stopReason"], "cancelled");
}

#[test]
fn child_approvals_are_asked_on_the_child_session_and_answered_by_the_client() {
    let stream = project(
        include_str!("../../../../traces/codex/08-child-approvals.jsonl"),
        Options::default(),
    );
    let asks: Vec<&AcpMessage> = stream
        .iter()
        .filter(|m| m.message["method"] == "session/request_permission")
        .collect();
    assert!(!asks.is_empty());
    for ask in asks {
        assert_eq!(ask.from, Side::Agent);
        let session = ask.message["params"]["sessionId"].as_str().unwrap();
        assert!(session.contains("child"), "{session}");
        let id = &ask.message["id"];
        let answers = stream
            .iter()
            .filter(|m| {
                m.from == Side::Client
                    && &m.message["id"] == id
                    && m.message.get("result").is_some()
            })
            .count();
        assert_eq!(answers, 1, "request {id} answered once");
    }
}
