//! Reducer tests, one per client-semantics rule of the seed, through one helper: a list of
//! compact records in, the view out (every intermediate view is also kept and checked
//! unchanged by later steps).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Id, ToolCall, View, ViewOptions};
use crate::acp::wire::{self, Record, Transport};

/// The tests fold lines straight into a view; outside them the engine is the one way in.
impl View {
    /// The view after one more trace line (a new view; `self` is unchanged). Lines that
    /// are not valid `acp` records (a header, a malformed line) change nothing; batch
    /// entries apply in array order.
    fn apply(&self, line: usize, text: &str) -> View {
        let mut next = self.clone();
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return next;
        };
        match wire::parse_record(&value) {
            Ok(Record::Transport(Transport::Connected)) => next.connect(),
            Ok(Record::Transport(Transport::Disconnected)) => next.disconnect(),
            Ok(Record::Message { from, entries, .. }) => {
                for entry in entries {
                    let entry = crate::trace::borrowed::Json::of_value(entry);
                    if let Ok(rpc) = wire::classify(&entry) {
                        next.apply_rpc(line, from, &rpc);
                    }
                }
            }
            Err(_) => {}
        }
        next
    }
}

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
        rendered.push(format!("{:?}", last.sessions().collect::<Vec<_>>()));
        let next = last.apply(i + 1, line);
        views.push(next);
    }
    for (view, before) in views.iter().zip(&rendered) {
        assert_eq!(
            &format!("{:?}", view.sessions().collect::<Vec<_>>()),
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
        v.session("A").unwrap().state.as_deref(),
        Some(&json!({"state":"running"}))
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
        v.session("A").unwrap().detail().messages.is_empty(),
        "no incoming entry is inferred"
    );
    assert_eq!(v.session("R").unwrap().detail().messages.len(), 1);
}

#[test]
fn unknown_and_future_states_are_preserved_with_their_payload() {
    let v = check(&[
        sub("R", "A", json!({"state":{"state":"_paused","why":"quota"}})),
        sub("R", "B", json!({"state":{"state":"unknown"}})),
    ]);
    assert_eq!(
        v.session("A").unwrap().state.as_deref(),
        Some(&json!({"state":"_paused","why":"quota"}))
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
    assert_eq!(a.state.as_deref(), Some(&idle));
    assert_eq!(
        a.idle_transitions, 1,
        "copies do not count completion twice"
    );
}

#[test]
fn association_cwd_is_kept_as_a_nullable_patch() {
    // codex-acp 2.6 sends the final revision's `cwd` in its own `subagent_update`.
    let v = check(&[
        sub("R", "A", json!({"description":"task"})),
        sub("R", "A", json!({"cwd":"/w"})),
        sub("R", "A", json!({"state":{"state":"running"}})),
    ]);
    let a = v.session("A").unwrap();
    assert_eq!(a.detail().cwd.as_deref(), Some("/w"), "omitted keeps it");
    assert_eq!(a.description.as_deref(), Some("task"));
    let cleared = v.apply(8, &sub("R", "A", json!({"cwd":null})));
    assert_eq!(
        cleared.session("A").unwrap().detail().cwd,
        None,
        "null clears it"
    );
}

#[test]
fn replayed_idle_never_counts_as_a_new_transition() {
    // As claude-agent-acp 0.101 replays a child on `session/load` after a restart: its
    // recorded `running → idle`, then the same idle as the current snapshot.
    let running = json!({"state":"running"});
    let idle = json!({"state":"idle","stopReason":"end_turn"});
    let v = check(&[
        client("session/prompt", Some(2), json!({"sessionId":"R"})),
        sub(
            "R",
            "A",
            json!({"capabilities":{"cancel":{}},"state":running}),
        ),
        sub("R", "A", json!({"state":idle})),
        agent_result(2, json!({"stopReason":"end_turn"})),
        r#"{"from":"transport","event":"disconnected"}"#.to_owned(),
        r#"{"from":"transport","event":"connected"}"#.to_owned(),
        PRELUDE[0].to_owned(),
        PRELUDE[1].to_owned(),
        client("session/load", Some(1), json!({"sessionId":"R"})),
        sub("R", "A", json!({"state":running})),
        sub("R", "A", json!({"state":idle})),
        agent_result(1, json!({})),
        sub("R", "A", json!({"state":idle})),
    ]);
    let a = v.session("A").unwrap();
    assert_eq!(a.state.as_deref(), Some(&idle));
    assert_eq!(
        a.idle_transitions, 1,
        "one assignment, one transition into idle"
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
        v.session("A").unwrap().state.as_deref(),
        Some(&json!({"state":"running"})),
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
    let cost =
        |s: &str| v.session(s).unwrap().detail().usage.as_ref().unwrap()["cost"]["amount"].as_f64();
    assert_eq!((cost("R"), cost("A")), (Some(1.2), Some(0.3)));
}

#[test]
fn reported_numbers_are_kept_exactly_as_sent() {
    // claude-agent-acp reports costs such as this one, one ulp from the nearest short
    // decimal; the view must give the same number back, not 0.001815.
    let line = r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":0.0018150000000000002,"currency":"USD"}}}}}"#;
    let v = check(&[line.to_owned()]);
    let usage = v.session("R").unwrap().detail().usage.clone().unwrap();
    assert_eq!(
        serde_json::to_string(&usage["cost"]["amount"]).unwrap(),
        "0.0018150000000000002"
    );
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
    let calls = &v.session("A").unwrap().detail().tool_calls;
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
        &*v.session("A")
            .unwrap()
            .detail()
            .tool_calls
            .get("c1")
            .unwrap()
            .status,
        "failed"
    );
}

/// The live indexes hold exactly what their definitions say, after every record of
/// seeded pseudo-random streams (associations, state reports, tool calls, messages,
/// permission requests, cancels, load/resume with either outcome, reconnects); the
/// tour's descendant test answers what walking up the parent chain answers; a cancel
/// through the indexes reaches exactly what walking the target's subtree reaches, and
/// a load/resume resets every descendant the walk finds.
#[test]
fn live_indexes_answer_what_a_subtree_walk_answers() {
    for seed in 1..=60u64 {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            usize::try_from(x % n as u64).unwrap_or_default()
        };
        let mut v = View::new(ViewOptions::default());
        for line in PRELUDE {
            v = v.apply(0, line);
        }
        let mut request = 100;
        for line in 1..400 {
            let record = random_record(&mut next, &mut request);
            let before = v.clone();
            v = v.apply(line, &record);
            v.assert_live_indexes();
            assert_ancestry_matches_walk(&v, &IDS);
            if record.contains("session/cancel") {
                let target = wire_target(&record);
                assert_cancel_matches_walk(&before, &v, &target);
            }
            if record.contains("session/load") || record.contains("session/resume\"") {
                assert_reset_matches_walk(&v, &wire_target(&record));
            }
        }
    }
}

const IDS: [&str; 8] = ["R", "S", "A", "B", "C", "D", "E", "F"];

/// One pseudo-random record of the stream of `live_indexes_answer_what_a_subtree_walk_answers`.
fn random_record(next: &mut impl FnMut(usize) -> usize, request: &mut u64) -> String {
    const STATES: [&str; 5] = ["running", "requires_action", "idle", "unknown", "_x"];
    const STATUSES: [&str; 5] = ["pending", "in_progress", "completed", "failed", "cancelled"];
    let pick = |i: usize| IDS.get(i).copied().unwrap_or("R");
    let (a, b) = (pick(next(IDS.len())), pick(next(IDS.len())));
    match next(12) {
        0..=2 => {
            let state = STATES.get(next(STATES.len())).copied().unwrap_or("idle");
            sub(
                a,
                b,
                json!({"capabilities":{"cancel":{}},"state":{"state":state}}),
            )
        }
        3 => {
            let state = STATES.get(next(STATES.len())).copied().unwrap_or("idle");
            upd(a, json!({"sessionUpdate":"state_update","state":state}))
        }
        4..=5 => {
            let status = STATUSES.get(next(STATUSES.len())).copied();
            let kind = ["tool_call", "tool_call_update"][next(2)];
            let call = format!("c{}", next(3));
            let mut u = json!({"sessionUpdate":kind,"toolCallId":call});
            if next(4) > 0 {
                u["status"] = status.unwrap_or("pending").into();
            }
            upd(a, u)
        }
        6..=7 => client("session/cancel", None, json!({"sessionId":a})),
        8 => {
            *request += 1;
            let method = ["session/load", "session/resume"][next(2)];
            let mut params = json!({"sessionId":a});
            if next(2) == 0 {
                params["replayFrom"] = "x".into();
            }
            client(method, Some(*request), params)
        }
        9 => {
            let id = *request - next(3) as u64;
            if next(3) == 0 {
                json!({"from":"agent","message":{"jsonrpc":"2.0","id":id,"error":{"code":1,"message":"no"}}}).to_string()
            } else {
                agent_result(id, json!({}))
            }
        }
        10 if next(2) == 0 => {
            *request += 1;
            json!({"from":"agent","message":{"jsonrpc":"2.0","id":*request,"method":"session/request_permission","params":{"sessionId":a,"toolCall":{"toolCallId":"c1"}}}}).to_string()
        }
        10 => upd(
            a,
            json!({"sessionUpdate":"session_message_chunk","messageId":"m","content":{"type":"text","text":"x"}}),
        ),
        11 if next(8) == 0 => {
            let event = ["connected", "disconnected"][next(2)];
            json!({"from":"transport","event":event}).to_string()
        }
        _ => sub(a, b, json!({})),
    }
}

/// The permission requests a cancel of `target` reaches: the target's, and those of
/// its descendants (by the parent walk) not confirmed idle.
fn assert_interactions_match_walk(before: &View, target: &str) {
    let mut reached: Vec<String> = before
        .pending_requests()
        .filter(|p| {
            p.from == crate::acp::wire::Side::Agent && &*p.method == "session/request_permission"
        })
        .filter(|p| {
            p.session.as_deref().is_some_and(|s| {
                s == target
                    || (before.ancestors_or_self(s).skip(1).any(|a| a == target)
                        && before.current_state(s) != Some("idle"))
            })
        })
        .map(|p| p.id.to_string())
        .collect();
    reached.sort();
    let mut indexed: Vec<String> = before
        .interactions_reached(target, true)
        .into_iter()
        .map(|p| p.id.to_string())
        .collect();
    indexed.sort();
    assert_eq!(indexed, reached, "interactions reached from `{target}`");
}

/// The oracle of the tour: the walk up the parent chain.
fn assert_ancestry_matches_walk(v: &View, ids: &[&str]) {
    for x in ids {
        for a in ids {
            let walked = v.ancestors_or_self(x).skip(1).any(|p| p == *a);
            assert_eq!(
                v.is_descendant(x, a),
                walked,
                "is `{x}` a descendant of `{a}`?"
            );
        }
    }
}

/// After a load/resume of `root`, no descendant the walk finds is announced, granted or
/// current.
fn assert_reset_matches_walk(after: &View, root: &str) {
    for d in after.descendants(root) {
        assert!(
            !after.announced(&d) && !after.state_is_current(&d) && !after.effective_cancel(&d),
            "`{d}` survived the reset of `{root}`"
        );
    }
}

fn wire_target(record: &str) -> String {
    let value: Value = serde_json::from_str(record).unwrap_or_default();
    value["message"]["params"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The walk the indexes replace: the target, then its descendants (those not confirmed
/// idle for tool calls; the working ones for confirmations).
fn assert_cancel_matches_walk(before: &View, after: &View, target: &str) {
    let mut working: Vec<String> = std::iter::once(target.to_owned())
        .chain(before.descendants(target).iter().map(|d| d.to_string()))
        .filter(|id| {
            matches!(
                before.current_state(id),
                Some("running" | "requires_action")
            )
        })
        .collect();
    working.sort();
    let indexed: Vec<String> = before
        .working_within(target)
        .map(|id| id.to_string())
        .collect();
    assert_eq!(indexed, working, "working sessions under `{target}`");
    assert_interactions_match_walk(before, target);
    let mut affected = vec![Id::from(target)];
    affected.extend(
        before
            .descendants(target)
            .into_iter()
            .filter(|d| before.current_state(d) != Some("idle")),
    );
    for s in before.sessions() {
        for (call, c) in &s.detail().tool_calls {
            let now = after
                .session(&s.id)
                .and_then(|a| a.detail().tool_calls.get(call));
            let open = matches!(&*c.status, "pending" | "in_progress");
            let expected = if open && affected.contains(&s.id) {
                ToolCall {
                    status: "cancelled".into(),
                    locally_cancelled: true,
                    ..c.clone()
                }
            } else {
                c.clone()
            };
            assert_eq!(now, Some(&expected), "tool call `{call}` of `{}`", s.id);
        }
    }
}

/// Folds the prelude and `records` under revision `spec` (no history check).
fn under(spec: crate::finding::Revision, records: &[String]) -> View {
    let mut view = View::new(ViewOptions {
        spec,
        ..ViewOptions::default()
    });
    for (i, line) in PRELUDE
        .iter()
        .map(|s| (*s).to_owned())
        .chain(records.iter().cloned())
        .enumerate()
    {
        view = view.apply(i + 1, &line);
    }
    view.assert_live_indexes();
    view
}

fn call(session: &str, kind: &str, id: &str, status: &str) -> String {
    upd(
        session,
        json!({"sessionUpdate":kind,"toolCallId":id,"title":"t","status":status}),
    )
}

#[test]
fn unknown_sessions_are_neither_roots_nor_cancellable() {
    let v = check(&[upd(
        "X",
        json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"?"}}),
    )]);
    assert!(v.is_unknown("X") && v.is_unknown("never-seen"));
    assert!(!v.effective_cancel("X") && !v.effective_cancel("never-seen"));
    assert!(!v.is_unknown("R") && v.effective_cancel("R"));
}

/// "The child's own messages, plans, and tool calls have outer `sessionId`
/// "sess_child_1". They update the child's history, not the parent session."
#[test]
fn a_tool_call_update_on_another_session_moves_and_invents_nothing() {
    let v = check(&[
        sub("R", "A", json!({"state":{"state":"running"}})),
        call("A", "tool_call", "c", "in_progress"),
        call("R", "tool_call_update", "c", "completed"),
    ]);
    assert!(v.session("R").unwrap().detail().tool_calls.is_empty());
    assert_eq!(
        &*v.session("A").unwrap().detail().tool_calls["c"].status,
        "in_progress"
    );
    assert_eq!(v.tool_call_owner("c").map(|s| &**s), Some("A"));
}

/// Cancellation, 2026-10-05: a root cancel marks the root's own unfinished tool calls;
/// a descendant's only once it reports `idle` with `stopReason: "cancelled"`.
#[test]
fn the_narrowed_cascade_marks_a_descendant_at_its_cancelled_idle() {
    use crate::finding::Revision;
    let records = [
        sub("R", "A", json!({"state":{"state":"running"}})),
        call("A", "tool_call", "c", "pending"),
        client("session/cancel", None, json!({"sessionId":"R"})),
    ];
    let status = |v: &View| {
        v.session("A").unwrap().detail().tool_calls["c"]
            .status
            .to_string()
    };
    assert_eq!(status(&under(Revision::Seed, &records)), "cancelled");
    let narrowed = under(Revision::Narrowed, &records);
    assert_eq!(status(&narrowed), "pending");
    let mut more = records.to_vec();
    more.push(sub(
        "R",
        "A",
        json!({"state":{"state":"idle","stopReason":"cancelled"}}),
    ));
    assert_eq!(status(&under(Revision::Narrowed, &more)), "cancelled");
}

#[test]
fn a_session_without_messages_calls_or_patches_shares_the_empty_detail() {
    // The detail is copied on its first write only: announcing, labelling, a work
    // state, a cancel grant and an idle report write none of it (a root's setup does:
    // roots are few).
    let v = check(&[
        sub("R", "A", json!({"title":"t","state":{"state":"running"}})),
        sub(
            "A",
            "B",
            json!({"description":"d","capabilities":{"cancel":{}}}),
        ),
        upd(
            "B",
            json!({"sessionUpdate":"state_update","state":{"state":"idle"}}),
        ),
        client("session/cancel", None, json!({"sessionId":"B"})),
    ]);
    for id in ["A", "B"] {
        let s = v.session(id).unwrap();
        assert!(Arc::ptr_eq(&s.detail, &v.empty_detail), "{id}");
    }
    let v = check(&[
        sub("R", "A", json!({"cwd":"/w"})),
        upd(
            "A",
            json!({"sessionUpdate":"usage_update","used":1,"size":2}),
        ),
    ]);
    let a = v.session("A").unwrap();
    assert!(!Arc::ptr_eq(&a.detail, &v.empty_detail));
    assert_eq!(a.detail().cwd.as_deref(), Some("/w"));
    assert!(v.empty_detail.cwd.is_none() && v.empty_detail.usage.is_none());
}

#[test]
fn a_stamp_is_a_connection_number_or_none_in_eight_bytes() {
    use super::Stamp;
    assert_eq!(std::mem::size_of::<Stamp>(), 8);
    assert!(Stamp::on(3).is_on(3) && !Stamp::on(3).is_on(2) && Stamp::on(1).is_set());
    assert!(!Stamp::NONE.is_set() && !Stamp::NONE.is_on(0) && !Stamp::on(0).is_set());
    assert_eq!(Stamp::on_if(true, 4), Stamp::on(4));
    assert_eq!(Stamp::on_if(false, 4), Stamp::NONE);
}
