//! ACP captures users can make without lineage: Zed's "Copy All Messages" array and the
//! ACP conductor's `--trace` events. Neither program runs here, so each real ACP recording
//! of the lab (claude-agent-acp, codex-acp) is rewritten in those shapes exactly as the
//! two programs write them (Zed: a pretty-printed array seen from the Client, no times;
//! the conductor: one event a line, seconds since the start, every message traced on the
//! hop to a proxy and again on the hop to the Agent), and must give the same Client view
//! and the same findings as the recording itself.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use lineage_core::engine::Replay;
use lineage_core::finding::Revision;
use lineage_core::native::{self, File};
use lineage_core::render;
use lineage_traces::replay_text;
use serde_json::{Value, json};

fn replay_lines(text: &str) -> Replay {
    replay_text(text, None)
}

/// The revision a recording's header declares (the rewritten copies have no header).
fn spec_of(text: &str) -> Option<Revision> {
    let header: Value = serde_json::from_str(text.lines().next()?).ok()?;
    header["spec"].as_str().map(|s| s.parse().unwrap())
}

/// The Client view's sessions and the finding codes, without the line numbers a request
/// carries (the copies number their records otherwise).
fn view(replay: &Replay) -> Value {
    let mut v = render::json(replay);
    for list in ["pendingRequests", "answeredRequests"] {
        for request in v[list].as_array_mut().into_iter().flatten() {
            if let Some(obj) = request.as_object_mut() {
                obj.remove("line");
                obj.remove("answeredAt");
            }
        }
    }
    let mut codes: Vec<String> = replay.findings.iter().map(|f| f.rule.to_string()).collect();
    codes.sort();
    v["diagnostics"] = json!(codes);
    v
}

/// The messages of an enveloped `acp` recording: (from, message, at).
fn messages(text: &str) -> Vec<(String, Value, Option<u64>)> {
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r.get("message").is_some())
        .map(|r| {
            (
                r["from"].as_str().unwrap().to_owned(),
                r["message"].clone(),
                r["at"].as_u64(),
            )
        })
        .collect()
}

fn kind(m: &Value) -> &'static str {
    match (m.get("method").is_some(), m.get("id").is_some()) {
        (true, true) => "request",
        (true, false) => "notification",
        _ => "response",
    }
}

/// Zed's copy: seen from Zed (the Client), a response's `params` holds its result or error.
fn zed_copy(text: &str) -> String {
    let elements: Vec<Value> = messages(text)
        .into_iter()
        .map(|(from, m, _)| {
            let params = m
                .get("params")
                .or(m.get("result"))
                .or(m.get("error"))
                .cloned();
            json!({
                "_direction": if from == "client" { "outgoing" } else { "incoming" },
                "_type": kind(&m),
                "id": m.get("id").cloned().unwrap_or(Value::Null),
                "method": m.get("method").cloned().unwrap_or(json!("session/prompt")),
                "params": params.unwrap_or(Value::Null),
            })
        })
        .collect();
    serde_json::to_string_pretty(&elements).unwrap()
}

/// The conductor's events with one proxy: every message on both hops.
fn conductor_trace(text: &str) -> String {
    let all = messages(text);
    let start = all.iter().find_map(|(_, _, at)| *at).unwrap_or(0);
    let mut out = String::new();
    for (from, m, at) in all {
        let ts = at.map_or(0.0, |at| (at - start) as f64 / 1000.0);
        let hops = if from == "client" {
            [("Client", "Proxy(0)"), ("Proxy(0)", "Agent")]
        } else {
            [("Agent", "Proxy(0)"), ("Proxy(0)", "Client")]
        };
        for (from, to) in hops {
            let mut event =
                json!({"type": kind(&m), "ts": ts, "protocol": "acp", "from": from, "to": to});
            if kind(&m) == "response" {
                event["id"] = m["id"].clone();
                event["is_error"] = json!(m.get("error").is_some());
                event["payload"] = m
                    .get("result")
                    .or(m.get("error"))
                    .cloned()
                    .unwrap_or(Value::Null);
            } else {
                if let Some(id) = m.get("id") {
                    event["id"] = id.clone();
                }
                event["method"] = m["method"].clone();
                event["params"] = m.get("params").cloned().unwrap_or(Value::Null);
            }
            out.push_str(&event.to_string());
            out.push('\n');
        }
    }
    out
}

fn recordings() -> Vec<std::path::PathBuf> {
    let mut all = lineage_traces::corpus("real/claude-agent-acp");
    all.extend(lineage_traces::corpus("real/codex-acp"));
    // A restart is not in one process's log.
    all.retain(|p| {
        !std::fs::read_to_string(p)
            .unwrap()
            .contains(r#""from":"transport""#)
    });
    all
}

#[test]
fn zed_copies_of_the_real_acp_recordings_give_the_same_view() {
    let recordings = recordings();
    assert!(recordings.len() >= 20, "{}", recordings.len());
    for path in recordings {
        let text = std::fs::read_to_string(&path).unwrap();
        let copy = zed_copy(&text);
        let source = native::read(&[File::new("zed-acp-log.json", copy)]);
        assert!(
            source.findings.is_empty(),
            "{}: {:?}",
            path.display(),
            source.findings
        );
        let options = native::Options {
            acp_spec: spec_of(&text),
            ..native::Options::default()
        };
        let replayed = native::replay(&source, 0, options).unwrap();
        let expected = view(&replay_lines(&text));
        assert!(
            !expected["sessions"].as_array().unwrap().is_empty(),
            "{}",
            path.display()
        );
        assert_eq!(view(&replayed.replay), expected, "{}", path.display());
    }
}

#[test]
fn conductor_traces_of_the_real_acp_recordings_give_the_same_view() {
    for path in recordings() {
        let text = std::fs::read_to_string(&path).unwrap();
        let replayed = replay_text(&conductor_trace(&text), spec_of(&text));
        let mut codes = view(&replayed);
        // The Client ↔ proxy hop is said once not to be checked.
        let skipped = json!("native-record-skipped");
        let list = codes["diagnostics"].as_array_mut().unwrap();
        let at = list
            .iter()
            .position(|c| *c == skipped)
            .expect("the skipped hop is said");
        list.remove(at);
        assert_eq!(codes, view(&replay_lines(&text)), "{}", path.display());
    }
}

#[test]
fn a_zed_copy_cut_short_and_a_message_without_direction_are_located_and_the_rest_is_read() {
    let text = std::fs::read_to_string(&lineage_traces::corpus("real/codex-acp")[0]).unwrap();
    let copy = zed_copy(&text);
    // Drop the direction of the second message and cut the copy inside the last one.
    let second = copy.match_indices("\"_direction\"").nth(1).unwrap().0;
    let mut broken = format!(
        "{}\"_dir\"{}",
        &copy[..second],
        &copy[second + "\"_direction\"".len()..]
    );
    let last = broken.rfind("\"_direction\"").unwrap();
    broken.truncate(last + 20);
    let source = native::read(&[File::new("zed.json", broken.clone())]);
    let stream = &source.streams[0];
    let found: Vec<(usize, &str)> = stream
        .findings
        .iter()
        .map(|l| (l.finding.line, l.finding.message.as_str()))
        .collect();
    let line_of = |offset: usize| broken[..offset].matches('\n').count() + 1;
    assert_eq!(found.len(), 2, "{found:?}");
    // Each finding is at the line where its element starts (`{` is the line before the key).
    assert_eq!(found[0].0, line_of(second) - 1, "{found:?}");
    assert!(found[0].1.contains("_direction"), "{found:?}");
    assert_eq!(found[1].0, line_of(last) - 1, "{found:?}");
    assert!(found[1].1.contains("cut short"), "{found:?}");
    let replayed = native::replay(&source, 0, native::Options::default()).unwrap();
    assert!(replayed.replay.view().unwrap().sessions().next().is_some());
}

/// The conductor itself (agent-client-protocol-conductor 5.0.0, `--trace`) in front of the
/// real codex-acp, recorded by the lab: its trace of the run gives the Client view the
/// Client's own recording of the same run gives.
#[test]
fn the_real_conductor_trace_gives_the_view_of_the_client_s_recording() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = "13-one-child-through-the-acp-conductor";
    let traced = dir.join(format!("real-native/codex-acp/{run}/conductor-trace.jsons"));
    let client = dir.join(format!("real/codex-acp/{run}.jsonl"));
    let traced = std::fs::read_to_string(traced).unwrap();
    let client = std::fs::read_to_string(client).unwrap();
    let spec = spec_of(&client);
    let from_conductor = replay_text(&traced, spec);
    let expected = view(&replay_text(&client, spec));
    assert!(!expected["sessions"].as_array().unwrap().is_empty());
    assert_eq!(view(&from_conductor)["sessions"], expected["sessions"]);
    assert_eq!(
        view(&from_conductor)["diagnostics"],
        expected["diagnostics"]
    );
}
