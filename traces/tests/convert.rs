//! `project` over the whole corpus: every canonical, Codex and Claude trace (and the
//! real recordings) projected to ACP v1 (with and without the Client's `subagents`) and
//! v2. For each: `lineage check` of the result has no error and no warning; the view
//! rebuilt from it has the canonical tree's parents, labels, current work states,
//! pending requests and cancel grants; a v1 stream without the capability holds no
//! subagent variant; every projected message deserializes with the official
//! `agent-client-protocol-schema` types; the projection is deterministic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::PathBuf;

use agent_client_protocol_schema as acp;
use lineage_core::engine::{Engine, Options as EngineOptions, Replay};
use lineage_core::project::{Converter, Options, Version};
use lineage_core::tree::{Outcome, Phase, Snapshot};
use lineage_core::{SessionId, Severity};
use serde_json::Value;

fn corpus() -> Vec<PathBuf> {
    [
        "canonical",
        "codex",
        "claude",
        "real/codex",
        "real/claude-code",
    ]
    .iter()
    .flat_map(|dir| lineage_traces::corpus(dir))
    .collect()
}

fn convert(text: &str, options: Options) -> (String, Replay) {
    let mut c = Converter::new(EngineOptions::default(), options);
    let mut out = c.header();
    for line in text.lines() {
        out.push_str(&c.push_line(line).unwrap());
    }
    let (tail, replay) = c.finish().unwrap();
    out.push_str(&tail);
    (out, replay)
}

fn check(text: &str) -> Replay {
    let mut engine = Engine::new(EngineOptions::default());
    for line in text.lines() {
        engine.push_line(line).unwrap();
    }
    engine.finish().unwrap()
}

/// Every warning and error of `checked`, located, for a failure message.
fn loud(checked: &Replay, path: &std::path::Path, mode: &str) -> Vec<String> {
    checked
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning)
        .map(|f| {
            format!(
                "{} ({mode}): {}:{} {}",
                path.display(),
                f.line,
                f.rule,
                f.message
            )
        })
        .collect()
}

const MODES: [(&str, Options); 4] = [
    (
        "v1",
        Options {
            version: Version::V1,
            client_subagents: true,
            prompt_response: lineage_core::project::PromptResponse::AtRootSettlement,
            cancel_grants: lineage_core::project::CancelGrants::Children,
            client: lineage_core::project::ClientSide::Synthesized,
            reconnect: false,
        },
    ),
    (
        "v1-flat",
        Options {
            version: Version::V1,
            client_subagents: false,
            prompt_response: lineage_core::project::PromptResponse::AtRootSettlement,
            cancel_grants: lineage_core::project::CancelGrants::Children,
            client: lineage_core::project::ClientSide::Synthesized,
            reconnect: false,
        },
    ),
    (
        "v2",
        Options {
            version: Version::V2,
            client_subagents: true,
            prompt_response: lineage_core::project::PromptResponse::AtRootSettlement,
            cancel_grants: lineage_core::project::CancelGrants::Children,
            client: lineage_core::project::ClientSide::Synthesized,
            reconnect: false,
        },
    ),
    (
        "v1-prompt-at-provider-end",
        Options {
            version: Version::V1,
            client_subagents: true,
            prompt_response: lineage_core::project::PromptResponse::AtProviderEnd,
            cancel_grants: lineage_core::project::CancelGrants::None,
            client: lineage_core::project::ClientSide::Synthesized,
            reconnect: false,
        },
    ),
];

#[test]
fn every_projected_corpus_trace_passes_check_without_error_or_warning() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (mode, options) in MODES {
            let (acp, _) = convert(&text, options);
            let checked_replay = check(&acp);
            checked += 1;
            failures.extend(loud(&checked_replay, &path, mode));
        }
    }
    assert!(checked >= 200, "{checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What the view must show for each canonical session.
fn expected_state(snapshot: &Snapshot, id: &SessionId) -> Option<&'static str> {
    let turn = snapshot.session(id)?.last_turn()?;
    Some(match (turn.phase, turn.outcome) {
        (_, Some(Outcome::Completed | Outcome::Canceled | Outcome::Failed)) => "idle",
        (_, Some(Outcome::Interrupted)) => "unknown",
        (Phase::Submitted, None) => return None,
        // The log ended with it at work: observation is lost.
        (_, None) => "unknown",
    })
}

#[test]
fn the_view_rebuilt_from_the_projection_is_the_canonical_tree() {
    let mut failures = Vec::new();
    for path in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (mode, options) in [MODES[0], MODES[2]] {
            let (acp, replay) = convert(&text, options);
            let snapshot = replay.snapshot().unwrap();
            let checked = check(&acp);
            let view = checked.view().unwrap();
            let mut fail =
                |what: String| failures.push(format!("{} ({mode}): {what}", path.display()));
            for s in snapshot.sessions().filter(|s| !s.deleted) {
                let id = s.id.as_str();
                let Some(v) = view.session(id) else {
                    fail(format!("session {id} missing from the view"));
                    continue;
                };
                let parent = s.relation.as_ref().map(|r| r.parent_session.to_string());
                if v.parent.as_deref().map(String::from) != parent {
                    fail(format!("{id}: parent {:?}, canonical {parent:?}", v.parent));
                }
                if s.relation.is_some() {
                    if v.title.as_deref() != s.title.as_deref() {
                        fail(format!(
                            "{id}: title {:?}, canonical {:?}",
                            v.title, s.title
                        ));
                    }
                    let want = expected_state(snapshot, &s.id);
                    if want.is_some() && v.state_name() != want {
                        fail(format!(
                            "{id}: state {:?}, canonical {want:?}",
                            v.state_name()
                        ));
                    }
                    let active = s.active_turn().is_some();
                    if view.effective_cancel(id) != active && active {
                        fail(format!(
                            "{id}: effective cancel {} while at work",
                            view.effective_cancel(id)
                        ));
                    }
                }
            }
            let pending_canonical = snapshot
                .interactions()
                .iter()
                .filter(|i| i.status == lineage_core::InteractionStatus::Pending)
                .count();
            let pending_view = view
                .pending_requests()
                .filter(|p| {
                    matches!(
                        &*p.method,
                        "session/request_permission" | "elicitation/create"
                    )
                })
                .count();
            if pending_canonical != pending_view {
                fail(format!(
                    "pending requests: view {pending_view}, canonical {pending_canonical}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn messages(acp: &str) -> Vec<(String, Value)> {
    acp.lines()
        .skip(1)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["from"].as_str().unwrap().to_owned(), v["message"].clone())
        })
        .collect()
}

#[test]
fn v1_without_subagents_sends_no_subagent_variant() {
    for path in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (acp, _) = convert(&text, MODES[1].1);
        for (_, m) in messages(&acp) {
            let kind = m["params"]["update"]["sessionUpdate"]
                .as_str()
                .unwrap_or("");
            assert!(
                !matches!(
                    kind,
                    "subagent_update" | "session_message" | "session_message_chunk"
                ),
                "{}: {m}",
                path.display()
            );
        }
    }
}

/// Deserializes one projected message with the official types of its version.
fn official(v2: bool, from: &str, m: &Value) -> Result<(), String> {
    let params = m["params"].clone();
    let method = m["method"].as_str();
    let e = |e: serde_json::Error| e.to_string();
    match (v2, from, method) {
        (false, "agent", Some("session/update")) => {
            serde_json::from_value::<acp::v1::SessionNotification>(params)
                .map(|_| ())
                .map_err(e)
        }
        (true, "agent", Some("session/update")) => {
            serde_json::from_value::<acp::v2::UpdateSessionNotification>(params)
                .map(|_| ())
                .map_err(e)
        }
        (false, "agent", Some("session/request_permission")) => {
            serde_json::from_value::<acp::v1::RequestPermissionRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (true, "agent", Some("session/request_permission")) => {
            serde_json::from_value::<acp::v2::RequestPermissionRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (true, "client", Some("initialize")) => {
            serde_json::from_value::<acp::v2::InitializeRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (true, "client", Some("session/new")) => {
            serde_json::from_value::<acp::v2::NewSessionRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (true, "client", Some("session/prompt")) => {
            serde_json::from_value::<acp::v2::PromptRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (true, "client", Some("session/cancel")) => {
            serde_json::from_value::<acp::v2::CancelSessionNotification>(params)
                .map(|_| ())
                .map_err(e)
        }
        (false, "client", Some("initialize")) => {
            serde_json::from_value::<acp::v1::InitializeRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (false, "client", Some("session/new")) => {
            serde_json::from_value::<acp::v1::NewSessionRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (false, "client", Some("session/prompt")) => {
            serde_json::from_value::<acp::v1::PromptRequest>(params)
                .map(|_| ())
                .map_err(e)
        }
        (false, "client", Some("session/cancel")) => {
            serde_json::from_value::<acp::v1::CancelNotification>(params)
                .map(|_| ())
                .map_err(e)
        }
        _ => Ok(()),
    }
}

/// Deserializes a success response to `method` with the official types.
fn official_response(v2: bool, method: &str, result: &Value) -> Result<(), String> {
    let r = result.clone();
    let e = |e: serde_json::Error| e.to_string();
    match (v2, method) {
        (false, "initialize") => serde_json::from_value::<acp::v1::InitializeResponse>(r)
            .map(|_| ())
            .map_err(e),
        (false, "session/new") => serde_json::from_value::<acp::v1::NewSessionResponse>(r)
            .map(|_| ())
            .map_err(e),
        (false, "session/prompt") => serde_json::from_value::<acp::v1::PromptResponse>(r)
            .map(|_| ())
            .map_err(e),
        (false, "session/request_permission") => {
            serde_json::from_value::<acp::v1::RequestPermissionResponse>(r)
                .map(|_| ())
                .map_err(e)
        }
        (true, "initialize") => serde_json::from_value::<acp::v2::InitializeResponse>(r)
            .map(|_| ())
            .map_err(e),
        (true, "session/new") => serde_json::from_value::<acp::v2::NewSessionResponse>(r)
            .map(|_| ())
            .map_err(e),
        (true, "session/prompt") => serde_json::from_value::<acp::v2::PromptResponse>(r)
            .map(|_| ())
            .map_err(e),
        (true, "session/request_permission") => {
            serde_json::from_value::<acp::v2::RequestPermissionResponse>(r)
                .map(|_| ())
                .map_err(e)
        }
        _ => Ok(()),
    }
}

#[test]
fn projected_messages_deserialize_with_the_official_schema() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (mode, options) in MODES {
            let v2 = options.version == Version::V2;
            let (acp, _) = convert(&text, options);
            let mut asked = std::collections::BTreeMap::new();
            for (from, m) in messages(&acp) {
                checked += 1;
                let outcome = match (m.get("method"), m.get("result")) {
                    (Some(method), _) => {
                        if m.get("id").is_some() {
                            asked.insert(
                                (from.clone(), m["id"].to_string()),
                                method.as_str().unwrap_or("").to_owned(),
                            );
                        }
                        official(v2, &from, &m)
                    }
                    (None, Some(result)) => {
                        let asker = if from == "agent" { "client" } else { "agent" };
                        let method = asked
                            .remove(&(asker.to_owned(), m["id"].to_string()))
                            .unwrap_or_default();
                        official_response(v2, &method, result)
                    }
                    _ => Ok(()),
                };
                if let Err(e) = outcome {
                    failures.push(format!("{} ({mode}): {e}: {m}", path.display()));
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn projection_is_deterministic() {
    for path in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (_, options) in MODES {
            assert_eq!(convert(&text, options).0, convert(&text, options).0);
        }
    }
}

/// `convert --to canonical`: the events a provider trace normalizes to
/// (`Options::record_events`), written as a canonical trace, replay to the same tree.
#[test]
fn provider_traces_normalize_to_canonical_traces_of_the_same_tree() {
    let mut checked = 0;
    for dir in ["codex", "claude", "real/codex", "real/claude-code"] {
        for path in lineage_traces::corpus(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut engine = Engine::new(EngineOptions {
                record_events: true,
                ..EngineOptions::default()
            });
            let mut canonical =
                String::from("{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n");
            for line in text.lines() {
                for (event, at) in engine.push_line(line).unwrap().events {
                    let mut record = serde_json::json!({"event": event});
                    if let Some(at) = at {
                        record["at"] = serde_json::json!(at);
                    }
                    canonical.push_str(&format!("{record}\n"));
                }
            }
            let provider = engine.finish().unwrap();
            let replayed = check(&canonical);
            let a = lineage_core::render::json(&provider);
            let b = lineage_core::render::json(&replayed);
            assert_eq!(a["sessions"], b["sessions"], "{}", path.display());
            assert_eq!(a["interactions"], b["interactions"], "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 70, "{checked}");
}

/// `--reconnect`: after the log, a new connection loads every root. `check` passes the
/// stream; the rebuilt view has each child's parent and title (replayed before the
/// response), its current state and, for a child still at work, a current cancel grant
/// (sent after the response: the freshness boundary).
#[test]
fn a_projected_reconnection_restores_parents_states_and_grants_after_the_response() {
    let mut failures = Vec::new();
    for path in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (mode, options) in [MODES[0], MODES[2]] {
            let options = Options {
                reconnect: true,
                ..options
            };
            let (acp, replay) = convert(&text, options);
            assert!(acp.contains(r#""event":"connected""#));
            let checked = check(&acp);
            failures.extend(loud(&checked, &path, mode));
            let snapshot = replay.snapshot().unwrap();
            let view = checked.view().unwrap();
            for s in snapshot
                .sessions()
                .filter(|s| !s.deleted && s.relation.is_some())
            {
                let id = s.id.as_str();
                let Some(v) = view.session(id) else {
                    failures.push(format!("{} ({mode}): {id} not replayed", path.display()));
                    continue;
                };
                let parent = s.relation.as_ref().map(|r| r.parent_session.to_string());
                if v.parent.as_deref().map(String::from) != parent
                    || v.title.as_deref() != s.title.as_deref()
                {
                    failures.push(format!("{} ({mode}): {id} parent or title", path.display()));
                }
                let want = expected_state(snapshot, &s.id);
                if want.is_some() && view.current_state(id) != want {
                    failures.push(format!(
                        "{} ({mode}): {id} current {:?}, want {want:?}",
                        path.display(),
                        view.current_state(id)
                    ));
                }
                if view.effective_cancel(id) != s.active_turn().is_some() {
                    failures.push(format!(
                        "{} ({mode}): {id} effective cancel {}",
                        path.display(),
                        view.effective_cancel(id)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
