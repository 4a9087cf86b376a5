//! A pass and a fail trace, from the Subagent Sessions RFD, for branches of `updates.rs`
//! no corpus trace told apart (`cargo mutants` survivors, issue 28 item 14). The streams
//! are `requests_tests.rs`'s: `initialize`, R set up, child `A` announced, then the
//! records given.

use serde_json::{Value, json};

use super::Checker;
use super::requests_tests::{
    ALL_CAPS, agent, agent_update, client, findings_at_end, run, run_under,
};
use crate::acp::view::ViewOptions;
use crate::finding::Revision;

fn a_state(state: Value) -> Value {
    agent_update(
        "R",
        json!({"sessionUpdate":"subagent_update","sessionId":"A","state":state}),
    )
}

fn a_chunk(text: &str) -> Value {
    agent_update(
        "A",
        json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":text}}),
    )
}

/// v1: "When the v1 Agent observes child foreground work starting, resuming, or stopping,
/// it MUST report the corresponding `running` or `idle` state": output while idle that the
/// next report shows was foreground work (`running`) came before its `running`. After a
/// cancelled idle it is the cancelled work's late output instead ("abort the affected
/// work and send its pending updates before confirming cancellation"; the Client "SHOULD
/// still accept subsequent Agent updates for those calls"), and a later assignment's
/// `running` does not make it new work.
#[test]
fn output_after_a_cancelled_idle_is_fallout_not_unreported_work() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    // Idle after its work ended, then output, then running: the output was new work.
    let ended = run(
        1,
        &caps,
        &[
            a_state(json!({"state":"running"})),
            a_state(json!({"state":"idle","stopReason":"end_turn"})),
            a_chunk("more"),
            a_state(json!({"state":"running"})),
        ],
    );
    assert_eq!(ended, ["8:work-without-running"]);
    // The Client cancels R's turn; A confirms; its late output; then a new assignment.
    let cancelled = run(
        1,
        &caps,
        &[
            a_state(json!({"state":"running"})),
            client(json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}})),
            a_state(json!({"state":"idle","stopReason":"cancelled"})),
            a_chunk("late"),
            a_state(json!({"state":"running"})),
        ],
    );
    assert!(cancelled.is_empty(), "{cancelled:?}");
    // The Agent cancels A's work on its own ("The per-child capability … does not prevent
    // the Agent from cancelling its own delegated work"): no Client cancel, the same
    // cancelled idle, the same late output.
    let own_cancel = run(
        1,
        &caps,
        &[
            a_state(json!({"state":"running"})),
            a_state(json!({"state":"idle","stopReason":"cancelled"})),
            a_chunk("late"),
            a_state(json!({"state":"running"})),
        ],
    );
    assert!(own_cancel.is_empty(), "{own_cancel:?}");
}

/// "Cancellation retains ordinary session semantics: abort the affected work and send its
/// pending updates before confirming cancellation. A child confirms cancellation with
/// `idle` and `stopReason: "cancelled"`": an update of the cancelled call after that
/// confirmation comes late. "A cancellation racing with already-ended work does not
/// rewrite that work's outcome": an `end_turn` idle is no confirmation, and the call's
/// update after it is not late.
#[test]
fn only_a_cancelled_idle_confirms_the_cancel_an_update_may_not_follow() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |stop: &str| {
        run(
            1,
            &caps,
            &[
                a_state(json!({"state":"running"})),
                agent_update(
                    "A",
                    json!({"sessionUpdate":"tool_call","toolCallId":"c1","title":"Run tests","status":"in_progress"}),
                ),
                client(
                    json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}}),
                ),
                a_state(json!({"state":"idle","stopReason":stop})),
                agent_update(
                    "A",
                    json!({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}),
                ),
            ],
        )
    };
    assert_eq!(trace("cancelled"), ["10:update-after-cancel-confirmed"]);
    assert!(trace("end_turn").is_empty(), "{:?}", trace("end_turn"));
}

/// v2: "Agents SHOULD also mirror each reported child state on the immediate parent's
/// `subagent_update.state`". The announcement may carry the first copy; a root's own
/// `state_update` has no parent association to be mirrored on. A child idle reported on
/// its own stream only is not mirrored.
#[test]
fn only_a_child_s_states_are_mirrored_and_the_announcement_carries_a_copy() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let idle = json!({"state":"idle","stopReason":"end_turn"});
    let trace = |mirror_idle: bool| {
        let mut rest = vec![
            // Line 5, the announcement, carried A's `running`; this is A's own copy.
            agent_update(
                "A",
                json!({"sessionUpdate":"state_update","state":"running"}),
            ),
            agent_update(
                "R",
                json!({"sessionUpdate":"state_update","state":"running"}),
            ),
            agent_update(
                "A",
                json!({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}),
            ),
        ];
        if mirror_idle {
            rest.push(a_state(idle.clone()));
        }
        rest.push(agent_update(
            "R",
            json!({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}),
        ));
        run(2, &caps, &rest)
    };
    assert!(trace(true).is_empty(), "{:?}", trace(true));
    assert_eq!(trace(false), ["8:state-not-mirrored"]);
}

/// "A child confirms cancellation with `idle` and `stopReason: \"cancelled\"`": after the
/// Client's cancel reached a working child, a `requires_action` or `running` report is no
/// confirmation (acceptance "is not, by itself, evidence that the work has stopped"); only
/// a later `idle` is.
#[test]
fn a_cancel_is_confirmed_by_idle_not_by_another_working_state() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |after_cancel: &[Value]| {
        let mut rest = vec![
            a_state(json!({"state":"running"})),
            client(json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}})),
        ];
        rest.extend(after_cancel.iter().cloned());
        run(1, &caps, &rest)
    };
    let blocked = a_state(json!({"state":"requires_action"}));
    assert_eq!(
        trace(std::slice::from_ref(&blocked)),
        ["7:cancel-not-confirmed"]
    );
    let confirmed = trace(&[
        blocked,
        a_state(json!({"state":"idle","stopReason":"cancelled"})),
    ]);
    assert!(confirmed.is_empty(), "{confirmed:?}");
}

/// From the 2026-10-05 revision of the RFD a cancel no longer resolves a descendant's
/// permission requests by itself: "Once a descendant reports `idle` with `stopReason:
/// \"cancelled\"`, the Client cleans up that descendant's requests … as if it had
/// cancelled it directly; until then the user can still answer them". A descendant whose
/// work ended on its own (`end_turn`) keeps its request answerable.
#[test]
fn after_a_narrowed_cancel_only_a_cancelled_idle_makes_a_descendant_s_request_cancelled() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |stop: &str| {
        run_under(
            Revision::Narrowed,
            1,
            &caps,
            &[
                agent(
                    json!({"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}}),
                ),
                client(
                    json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}}),
                ),
                a_state(json!({"state":"idle","stopReason":stop})),
                client(
                    json!({"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}),
                ),
            ],
        )
    };
    assert_eq!(trace("cancelled"), ["9:permission-not-cancelled"]);
    assert!(trace("end_turn").is_empty(), "{:?}", trace("end_turn"));
}

/// "`messageId`: required, non-nullable, and unique within the enclosing session, just like
/// other message IDs": every ordinary message id of a session is remembered, not only its
/// first, so a session message reusing the second one conflicts.
#[test]
fn a_session_message_conflicts_with_any_earlier_ordinary_message_id() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let chunk = |id: &str| {
        agent_update(
            "A",
            json!({"sessionUpdate":"agent_message_chunk","messageId":id,"content":{"type":"text","text":"x"}}),
        )
    };
    let trace = |reused: &str| {
        run(
            1,
            &caps,
            &[
                chunk("m1"),
                chunk("m2"),
                chunk("m2"),
                agent_update(
                    "A",
                    json!({"sessionUpdate":"session_message","messageId":reused,"senderSessionId":"A","recipientSessionId":"R","content":[]}),
                ),
            ],
        )
    };
    assert_eq!(trace("m2"), ["9:message-id-conflict"]);
    assert_eq!(trace("m1"), ["9:message-id-conflict"]);
    assert!(trace("m3").is_empty(), "{:?}", trace("m3"));
}

/// The final revision adds `cwd` and `additionalDirectories` (an array of absolute paths)
/// to the association as "nullable patches: omission means unchanged, `null` clears the
/// field, and a concrete value replaces the whole previous field": `null` is a valid
/// clear, a string or an array of non-strings is not a path list.
#[test]
fn additional_directories_are_null_or_an_array_of_path_strings() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |dirs: Value| {
        run_under(
            Revision::Final,
            1,
            &caps,
            &[a_state_with(json!({"additionalDirectories":dirs}))],
        )
    };
    assert!(trace(Value::Null).is_empty(), "{:?}", trace(Value::Null));
    assert!(trace(json!(["/w/lib"])).is_empty());
    assert_eq!(trace(json!("/w/lib")), ["6:field-invalid"]);
    assert_eq!(trace(json!(["/w/lib", 1])), ["6:field-invalid"]);
}

fn a_state_with(fields: Value) -> Value {
    let mut update = json!({"sessionUpdate":"subagent_update","sessionId":"A"});
    for (k, v) in fields.as_object().unwrap() {
        update[k] = v.clone();
    }
    agent_update("R", update)
}

/// The checker after a v1 stream: `initialize` with `client_caps`, `session/new` → R,
/// then `rest`, checked against `spec`.
fn checked(spec: Revision, client_caps: Value, rest: &[Value]) -> Checker {
    let mut lines = vec![
        client(
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":client_caps}}),
        ),
        agent(json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}})),
        client(json!({"jsonrpc":"2.0","id":1,"method":"session/new","params":{}})),
        agent(json!({"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}})),
    ];
    lines.extend(rest.iter().cloned());
    let mut checker = Checker::with_view_options(ViewOptions {
        transcripts: false,
        header_version: Some(1),
        spec,
        changes: false,
    });
    for (i, line) in lines.iter().enumerate() {
        checker.push_line(i + 1, &line.to_string());
    }
    checker
}

/// The `line:rule` findings of a v1 stream whose Client did not advertise `subagents`:
/// `initialize`, `session/new` → R, then `rest`, checked against `spec`.
fn run_without_subagents(spec: Revision, rest: &[Value]) -> Vec<String> {
    findings_at_end(checked(spec, json!({}), rest))
}

/// Final revision: a tool call's `{"type":"session"}` content is sent in v1 "only to
/// Clients that advertised `subagents`" ("In v1, an Agent MUST NOT send the updates
/// defined by this RFD unless the Client advertised `subagents`"): a reference is one
/// such update, a final-only message field alone is not a second one.
#[test]
fn a_session_reference_needs_the_subagents_capability_a_message_field_does_not_add_one() {
    let reference = agent_update(
        "R",
        json!({"sessionUpdate":"tool_call","toolCallId":"c1","title":"Delegate","status":"completed","content":[{"type":"session","sessionId":"R"}]}),
    );
    assert_eq!(
        run_without_subagents(Revision::Final, &[reference]),
        ["5:subagents-not-negotiated"]
    );
    let message = agent_update(
        "R",
        json!({"sessionUpdate":"session_message","messageId":"m1","senderMessageId":"x","content":[]}),
    );
    assert_eq!(
        run_without_subagents(Revision::Final, &[message]),
        ["5:subagents-not-negotiated"]
    );
}

/// v2: "Agents MUST NOT place an announcement and traffic that depends on it in the same
/// JSON-RPC batch": a later `subagent_update` of an already announced child patches it and
/// announces nothing, so a batch of it and the child's traffic is fine.
#[test]
fn a_batch_may_patch_a_known_child_beside_its_traffic() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |child: &str| {
        let patch = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":child,"title":"worker"}}});
        let chunk = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":child,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}});
        run(2, &caps, &[agent(json!([patch, chunk]))])
    };
    let known = trace("A");
    assert!(known.is_empty(), "{known:?}");
    assert_eq!(trace("B"), ["6:batch-dependency"]);
}

/// v2: "the successful response is the freshness boundary for child work-state and
/// mutation-capability snapshots", and "the response and current snapshots that depend on
/// this boundary MUST NOT share a JSON-RPC batch": a `state` snapshot in the response's
/// batch depends on it, a title-only patch of the association carries no snapshot.
#[test]
fn only_a_snapshot_in_the_resume_response_s_batch_depends_on_it() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |fields: Value| {
        let mut update = json!({"sessionUpdate":"subagent_update","sessionId":"A"});
        for (k, v) in fields.as_object().unwrap() {
            update[k] = v.clone();
        }
        let patch = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":update}});
        run(
            2,
            &caps,
            &[
                client(
                    json!({"jsonrpc":"2.0","id":5,"method":"session/resume","params":{"sessionId":"R","cwd":"/p","replayFrom":{"type":"start"}}}),
                ),
                agent(json!([{"jsonrpc":"2.0","id":5,"result":{}}, patch])),
            ],
        )
    };
    let title = trace(json!({"title":"worker"}));
    assert!(title.is_empty(), "{title:?}");
    let state = trace(json!({"state":{"state":"running"}}));
    assert_eq!(state, ["7:batch-dependency"]);
}

/// Tool call ids belong to a session's own stream ("Existing session updates are addressed
/// to the child in the normal way"): when R opens a call with the id A already used, A's
/// update of its own call stays A's, not R's call updated on a foreign stream; an update on
/// a session that never opened the id is.
#[test]
fn a_session_s_update_of_its_own_tool_call_is_not_foreign_when_another_reuses_the_id() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let open = |session: &str| {
        agent_update(
            session,
            json!({"sessionUpdate":"tool_call","toolCallId":"c1","title":"Run","status":"in_progress"}),
        )
    };
    let done = |session: &str| {
        agent_update(
            session,
            json!({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}),
        )
    };
    let own = run(1, &caps, &[open("A"), open("R"), done("A")]);
    assert!(own.is_empty(), "{own:?}");
    let foreign = run(1, &caps, &[open("R"), done("A")]);
    assert_eq!(foreign, ["7:tool-call-foreign"]);
}

/// "`state` is an optional current-work snapshot" and, like the association's other
/// optional fields, a nullable patch ("`null` clears the field"): a number is neither a
/// snapshot object nor `null`.
#[test]
fn an_association_state_is_an_object_or_null() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    assert_eq!(run(1, &caps, &[a_state(json!(5))]), ["6:field-invalid"]);
    let cleared = run(1, &caps, &[a_state(Value::Null)]);
    assert!(cleared.is_empty(), "{cleared:?}");
}

/// The 2026-08-31 draft's two notifications were merged: "Use separate `subagent_spawned`
/// and `subagent_state_update` notifications, as an earlier draft of this RFD did. Merged
/// into one upsert-style update". Each legacy kind's finding names what replaces it: an
/// announcement for `subagent_spawned`, a work-state report for `subagent_state_update`.
#[test]
fn each_draft_notification_is_named_with_its_replacement() {
    let legacy = |kind: &str| {
        let mut checker = checked(
            Revision::Seed,
            json!({"subagents":{}}),
            &[agent_update(
                "R",
                json!({"sessionUpdate":kind,"subagentSessionId":"A"}),
            )],
        );
        checker.end();
        let findings = checker.take_findings();
        let messages: Vec<&str> = findings
            .iter()
            .filter(|f| f.rule.as_str() == "legacy-draft-shape")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(messages.len(), 1, "{kind}: {findings:?}");
        messages[0].to_owned()
    };
    let spawned = legacy("subagent_spawned");
    assert!(spawned.contains("not an announcement"), "{spawned}");
    let state = legacy("subagent_state_update");
    assert!(state.contains("not a work-state report"), "{state}");
}

/// v2: "When replay is requested, the successful response is the freshness boundary for
/// child work-state and mutation-capability snapshots: Before the response, these
/// snapshots are historical … Current snapshots are sent after the response", and "the
/// response and current snapshots that depend on this boundary MUST NOT share a JSON-RPC
/// batch": a child's own `state_update` after the response in its batch is a current
/// snapshot sharing it; one before the response is still replayed history.
#[test]
fn a_child_s_own_state_shares_the_resume_batch_only_after_the_response() {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    let trace = |response_first: bool| {
        let state = json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"A","update":{"sessionUpdate":"state_update","state":"running"}}});
        let response = json!({"jsonrpc":"2.0","id":5,"result":{}});
        let batch = if response_first {
            json!([response, state])
        } else {
            json!([state, response])
        };
        run(
            2,
            &caps,
            &[
                client(
                    json!({"jsonrpc":"2.0","id":5,"method":"session/resume","params":{"sessionId":"R","cwd":"/p","replayFrom":{"type":"start"}}}),
                ),
                agent_update(
                    "R",
                    json!({"sessionUpdate":"subagent_update","sessionId":"A"}),
                ),
                agent(batch),
                a_state(json!({"state":"running"})),
            ],
        )
    };
    assert_eq!(trace(true), ["8:batch-dependency"]);
    let history = trace(false);
    assert!(history.is_empty(), "{history:?}");
}
