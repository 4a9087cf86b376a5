//! A pass and a fail trace, from the Subagent Sessions RFD, for branches of `updates.rs`
//! no corpus trace told apart (`cargo mutants` survivors, issue 28 item 14). The streams
//! are `requests_tests.rs`'s: `initialize`, R set up, child `A` announced, then the
//! records given.

use serde_json::{Value, json};

use super::requests_tests::{ALL_CAPS, agent, agent_update, client, run, run_under};
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
