#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::Value;

use super::{Recorder, export_json};
use crate::engine::{Engine, Options};

/// A root turn that spawns A through a tool call and B without one, then is cancelled:
/// A acknowledges (canceled), B fails on its own.
const CANCEL: &str = r#"{"event":{"type":"root_session_created","session":"R","title":"CI"},"at":1000}
{"event":{"type":"user_submitted","session":"R","text":"go"},"at":1001}
{"event":{"type":"root_provider_turn_started","session":"R"},"at":1002}
{"event":{"type":"tool_call_started","session":"R","call":"c1","name":"spawnAgent"},"at":1003}
{"event":{"type":"child_spawned","session":"A","parent_session":"R","tool_call":"c1","title":"linux"},"at":1004}
{"event":{"type":"tool_call_completed","session":"R","call":"c1","status":"completed"},"at":1005}
{"event":{"type":"child_spawned","session":"B","parent_session":"R","title":"macos"},"at":1006}
{"event":{"type":"child_turn_started","session":"A"},"at":1007}
{"event":{"type":"child_turn_started","session":"B"},"at":1008}
{"event":{"type":"cancel_requested","session":"R"},"at":1010}
{"event":{"type":"child_turn_completed","session":"A","outcome":"interrupted"},"at":1011}
{"event":{"type":"child_turn_completed","session":"B","outcome":"failed","error":"no runner"},"at":1012}
{"event":{"type":"cancel_completed","session":"R"},"at":1013}
{"event":{"type":"message","session":"A","text":"late"},"at":1014}
"#;

fn export_of(text: &str) -> String {
    let mut engine = Engine::new(Options::default());
    let mut recorder = Recorder::default();
    for line in text.lines() {
        let out = engine.push_line(line).unwrap();
        recorder.observe(&engine, &out);
    }
    let end = engine.end().unwrap();
    recorder.observe_end(&end);
    export_json(&engine.finish().unwrap(), &recorder)
}

fn spans(json: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .clone()
}

fn attr<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

fn by_name<'a>(spans: &'a [Value], turn: &str) -> &'a Value {
    spans
        .iter()
        .find(|s| {
            attr(s, "lineage.turn.id").is_some_and(|v| v["stringValue"] == turn)
                && s["name"].as_str().unwrap().starts_with("invoke_agent")
        })
        .unwrap()
}

#[test]
fn children_hang_under_the_spawning_tool_call_or_turn_with_outcomes() {
    let spans = spans(&export_of(CANCEL));
    assert_eq!(spans.len(), 4, "{spans:#?}");
    let root = by_name(&spans, "R#1");
    let tool = spans
        .iter()
        .find(|s| s["name"] == "execute_tool spawnAgent")
        .unwrap();
    let (a, b) = (by_name(&spans, "A#1"), by_name(&spans, "B#1"));
    assert_eq!(root["name"], "invoke_agent CI");
    assert!(root.get("parentSpanId").is_none());
    assert_eq!(tool["parentSpanId"], root["spanId"]);
    assert_eq!(a["parentSpanId"], tool["spanId"]);
    assert_eq!(b["parentSpanId"], root["spanId"]);
    assert!(spans.iter().all(|s| s["traceId"] == root["traceId"]));
    // canceled: unset status, outcome attribute; failed: error.
    assert_eq!(root["status"], serde_json::json!({}));
    assert_eq!(
        attr(root, "lineage.turn.outcome").unwrap()["stringValue"],
        "canceled"
    );
    assert_eq!(
        attr(a, "lineage.turn.outcome").unwrap()["stringValue"],
        "canceled"
    );
    assert_eq!(
        attr(a, "lineage.cancel.target").unwrap()["stringValue"],
        "R#1"
    );
    assert_eq!(
        b["status"],
        serde_json::json!({"code": 2, "message": "no runner"})
    );
    assert_eq!(
        attr(b, "gen_ai.conversation.id").unwrap()["stringValue"],
        "R"
    );
    assert_eq!(attr(b, "gen_ai.agent.id").unwrap()["stringValue"], "B");
    // times from `at`, in nanoseconds as strings.
    assert_eq!(root["startTimeUnixNano"], "1001000000");
    assert_eq!(root["endTimeUnixNano"], "1013000000");
    assert_eq!(tool["endTimeUnixNano"], "1005000000");
    // the cancel's moments as events; the late message's finding on A's span.
    let names = |s: &Value| -> Vec<String> {
        s["events"].as_array().map_or(vec![], |e| {
            e.iter()
                .map(|e| e["name"].as_str().unwrap().to_owned())
                .collect()
        })
    };
    assert_eq!(
        names(root),
        ["lineage.cancel.prepared", "lineage.cancel.completed"]
    );
    assert_eq!(names(a), ["lineage.cancel.acknowledged", "lineage.finding"]);
    let prepared = &root["events"][0];
    assert_eq!(prepared["timeUnixNano"], "1010000000");
    assert_eq!(prepared["attributes"][1]["value"]["intValue"], "3");
}

#[test]
fn without_at_times_are_record_order_and_the_resource_says_so() {
    let untimed: String = CANCEL
        .lines()
        .map(|l| format!("{}}}\n", l.split(",\"at\"").next().unwrap()))
        .collect();
    let json = export_of(&untimed);
    let v: Value = serde_json::from_str(&json).unwrap();
    let resource = &v["resourceSpans"][0]["resource"]["attributes"];
    assert!(
        resource
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["key"] == "lineage.time.source"
                && a["value"]["stringValue"] == "record-order")
    );
    let spans = spans(&json);
    let root = by_name(&spans, "R#1");
    assert_eq!(root["startTimeUnixNano"], "2000000"); // line 2
    assert_eq!(root["endTimeUnixNano"], "13000000"); // line 13
    let timed: Value = serde_json::from_str(&export_of(CANCEL)).unwrap();
    assert!(
        timed["resourceSpans"][0]["resource"]["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["value"]["stringValue"] == "at")
    );
}

#[test]
fn the_same_input_gives_the_same_bytes_and_ids_follow_the_ids_not_the_run() {
    assert_eq!(export_of(CANCEL), export_of(CANCEL));
    // A different trace with the same session and turn ids keeps their span ids.
    let shorter: String = CANCEL.lines().take(9).map(|l| format!("{l}\n")).collect();
    let (a, b) = (spans(&export_of(CANCEL)), spans(&export_of(&shorter)));
    assert_eq!(by_name(&a, "A#1")["spanId"], by_name(&b, "A#1")["spanId"]);
    assert_eq!(by_name(&a, "R#1")["traceId"], by_name(&b, "R#1")["traceId"]);
    // An open turn ends where the trace does, with its phase and no outcome.
    let open = by_name(&b, "A#1");
    assert_eq!(open["endTimeUnixNano"], "1008000000");
    assert_eq!(
        attr(open, "lineage.turn.phase").unwrap()["stringValue"],
        "running"
    );
    assert!(attr(open, "lineage.turn.outcome").is_none());
}

#[test]
fn live_spans_are_the_spans_of_the_turns_a_push_settled() {
    let mut engine = Engine::new(Options::default());
    let mut recorder = Recorder::default();
    let mut live = Vec::new();
    for line in CANCEL.lines() {
        let out = engine.push_line(line).unwrap();
        recorder.observe(&engine, &out);
        if let Some(request) = super::settled(&engine, &recorder, &out) {
            live.extend(spans(&serde_json::to_string(&request).unwrap()));
        }
    }
    let whole = spans(&export_of(CANCEL));
    let ids = |s: &[Value]| -> Vec<Value> {
        let mut ids: Vec<Value> = s.iter().map(|s| s["spanId"].clone()).collect();
        ids.sort_by_key(|v| v.to_string());
        ids
    };
    assert_eq!(ids(&live), ids(&whole));
    let b = by_name(&live, "B#1");
    assert_eq!(b, by_name(&whole, "B#1"));
}
