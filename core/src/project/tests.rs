//! The projection over corpus traces: what `lineage check` says of the result is in the
//! corpus-wide test (`traces/tests/convert.rs`); these pin the shapes.

use super::*;
use crate::engine::{Engine, Options as EngineOptions};
use serde_json::json;

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

const NESTED: &str = include_str!("../../../traces/codex/06-nested-grandchild.jsonl");

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
        include_str!("../../../traces/codex/11-user-cancel-full-fanout.jsonl"),
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
        include_str!("../../../traces/codex/08-child-approvals.jsonl"),
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

/// An embedder's loop: the real Client's messages become canonical events, the Agent's
/// side comes out of the projector.
struct Host {
    engine: Engine,
    projector: Projector,
    agent: Vec<AcpMessage>,
}

impl Host {
    fn new(cancel_grants: CancelGrants) -> Self {
        Self {
            engine: Engine::new(EngineOptions::default()),
            projector: Projector::new(Options {
                client: ClientSide::External,
                cancel_grants,
                ..Options::default()
            }),
            agent: Vec::new(),
        }
    }

    fn event(&mut self, event: crate::Event) {
        let out = self.engine.push_event(event, None).unwrap();
        let projected = self.projector.project(self.engine.snapshot(), &out.changes);
        assert!(
            projected.iter().all(|m| m.from == Side::Agent),
            "{projected:?}"
        );
        self.agent.extend(projected);
    }

    fn provider(&mut self, line: &str) {
        let event: crate::Event = serde_json::from_str(line).unwrap();
        self.event(event);
    }

    fn client(&mut self, message: Value) -> ClientInput {
        let input = self
            .projector
            .client_message(self.engine.snapshot(), &message);
        if let ClientInput::Events(events) = &input {
            for e in events.clone() {
                self.event(e);
            }
        }
        input
    }
}

#[test]
fn a_real_clients_prompt_cancel_and_answer_become_canonical_events() {
    let mut host = Host::new(CancelGrants::Children);
    host.provider(r#"{"type":"root_session_created","session":"R"}"#);
    let prompt = json!({"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"R","prompt":[{"type":"text","text":"go"}]}});
    assert!(matches!(host.client(prompt), ClientInput::Events(_)));
    host.provider(r#"{"type":"root_provider_turn_started","session":"R"}"#);
    host.provider(
        r#"{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"t1"}"#,
    );
    host.provider(r#"{"type":"child_turn_started","session":"A"}"#);
    host.provider(
        r#"{"type":"interaction_requested","session":"A","request":"p1","kind":"approval"}"#,
    );
    let ask = host
        .agent
        .iter()
        .find(|m| m.message["method"] == "session/request_permission")
        .unwrap()
        .message
        .clone();
    assert_eq!(ask["params"]["sessionId"], "A");
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"outcome":{"outcome":"selected","optionId":"allow"}}});
    assert!(matches!(host.client(answer), ClientInput::Events(_)));
    let snapshot = host.engine.snapshot();
    let turn = snapshot
        .session(&"A".into())
        .unwrap()
        .active_turn()
        .unwrap()
        .id
        .clone();
    let i = snapshot.interaction(&turn, &"p1".into()).unwrap();
    assert_eq!(i.status, InteractionStatus::Answered);
    assert_eq!(i.answer.as_deref(), Some("allow"));
    // A child-only cancel under the grant the announcement gave.
    let cancel = json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"A"}});
    assert_eq!(
        host.client(cancel),
        ClientInput::Events(vec![crate::Event::CancelRequested {
            session: "A".into()
        }])
    );
    assert_eq!(
        host.engine.snapshot().turn(&turn).map(|t| t.phase),
        Some(Phase::Settling)
    );
    host.provider(r#"{"type":"cancel_acknowledged","session":"A"}"#);
    host.provider(r#"{"type":"cancel_completed","session":"A"}"#);
    let confirmed = host.agent.last().unwrap();
    assert_eq!(
        confirmed.message["params"]["update"]["state"]["stopReason"],
        "cancelled"
    );
    host.provider(r#"{"type":"root_provider_turn_completed","session":"R","outcome":"completed"}"#);
    let response = host.agent.iter().find(|m| m.message["id"] == 7).unwrap();
    assert_eq!(response.message["result"]["stopReason"], "end_turn");
}

#[test]
fn a_real_clients_cancel_of_an_ungranted_child_or_prompt_of_a_child_is_refused() {
    let mut host = Host::new(CancelGrants::None);
    host.provider(r#"{"type":"root_session_created","session":"R"}"#);
    host.provider(r#"{"type":"user_submitted","session":"R","text":"go"}"#);
    host.provider(
        r#"{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"t1"}"#,
    );
    let cancel = json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"A"}});
    assert!(matches!(host.client(cancel), ClientInput::Refused(_)));
    let prompt = json!({"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"A","prompt":[]}});
    assert!(matches!(host.client(prompt), ClientInput::Refused(_)));
    let stray = json!({"jsonrpc":"2.0","id":99,"result":{}});
    assert!(matches!(host.client(stray), ClientInput::Refused(_)));
    // The root's own cancel needs no grant.
    let cancel_root = json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}});
    assert!(matches!(host.client(cancel_root), ClientInput::Events(_)));
}
