//! Detection by vocabulary: a trace without its header line is told by its methods and
//! shapes, never by `"jsonrpc"` alone.
//!
//! - Every real Codex app-server capture (`traces/real/codex/` and each later version's
//!   `traces/real/codex@<version>/`) replays to the same tree
//!   without its header: its client sends `"jsonrpc":"2.0"` like an ACP Client, but its
//!   `initialize` carries `clientInfo` and no `protocolVersion`, and its methods are
//!   `thread/*`, `turn/*`, `item/*`. None of these headers names a `rootThreadId`, so the
//!   root comes from the first `thread/start` response either way; the test checks that.
//! - An ACP adapter's test recording (`{kind, method, payload}` lines) is told `acp` and
//!   read as an Agent-side source, with or without `--input-format acp`, not as an
//!   empty Codex tree.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lineage_core::finding::Code;
use lineage_core::render::json;
use lineage_core::replay::{Options, replay};
use lineage_core::trace::Format;
use lineage_traces::{corpus, versions};
use serde_json::{Value, json};

/// `(rule, severity, line)` of every diagnostic, lines shifted by `shift`.
fn located(view: &Value, shift: u64) -> Vec<Value> {
    view["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            json!([
                d["rule"],
                d["severity"],
                d["line"].as_u64().unwrap() - shift
            ])
        })
        .collect()
}

#[test]
fn every_real_codex_trace_gives_the_same_tree_without_its_header() {
    let traces: Vec<_> = versions("real", "codex")
        .iter()
        .flat_map(|dir| corpus(dir))
        .collect();
    assert!(traces.len() >= 19, "the real Codex corpus: {traces:?}");
    for path in traces {
        let text = std::fs::read_to_string(&path).unwrap();
        let (header, rest) = text.split_once('\n').unwrap();
        let header: Value = serde_json::from_str(header).unwrap();
        assert_eq!(
            header["lineage"], "trace",
            "{path:?} starts with its header"
        );
        assert!(
            header.get("rootThreadId").is_none(),
            "{path:?}: a header root would need the same option without it"
        );
        let with = replay(&text, &Options::default()).unwrap();
        let without = replay(rest, &Options::default())
            .unwrap_or_else(|e| panic!("{path:?} without its header: {e}"));
        assert_eq!(without.format, Format::CodexAppServer, "{path:?}");
        let (with, without) = (json(&with), json(&without));
        assert!(
            !with["sessions"].as_array().unwrap().is_empty(),
            "{path:?} has a tree"
        );
        assert_eq!(with["sessions"], without["sessions"], "{path:?}: sessions");
        assert_eq!(
            with["interactions"], without["interactions"],
            "{path:?}: interactions"
        );
        // The same findings, each one line earlier (the header was line 1).
        assert_eq!(
            located(&with, 1),
            located(&without, 0),
            "{path:?}: findings"
        );
    }
}

/// An ACP adapter's own test recording (claude-agent-acp's `__snapshots__/v2/` shape):
/// one object a line with the Agent message's kind, its method and its payload, but
/// neither JSON-RPC's `id` nor lineage's `from`.
const ADAPTER_RECORDING: &str = r#"{"kind":"response","method":"initialize","payload":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}
{"kind":"response","method":"session/new","payload":{"sessionId":"S1"}}
{"kind":"notification","method":"session/update","payload":{"sessionId":"S1","update":{"sessionUpdate":"subagent_update","sessionId":"C1","title":"child","state":{"state":"running"}}}}
{"kind":"notification","method":"session/update","payload":{"sessionId":"C1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}
{"kind":"request","method":"session/request_permission","payload":{"sessionId":"C1","toolCall":{"toolCallId":"t1"},"options":[]}}
"#;

#[test]
fn an_acp_adapter_test_recording_is_read_as_an_agent_side_acp_source() {
    let replayed = replay(ADAPTER_RECORDING, &Options::default()).unwrap();
    assert_eq!(replayed.format, Format::Acp);
    let view = json(&replayed);
    let sessions: Vec<(&str, &Value)> = view["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), &s["parent"]))
        .collect();
    assert_eq!(sessions, [("S1", &Value::Null), ("C1", &json!("S1"))]);
    // What the source lacks is said once; the permission request left unanswered is
    // the recording's nature, not the Client's fault.
    let rules: Vec<(u64, &str)> = view["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(rules, [(1, Code::NativeSourceLimits.as_str())]);
    // `--input-format acp` reads it the same.
    let forced = replay(
        ADAPTER_RECORDING,
        &Options {
            format: Some(Format::Acp),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(json(&forced), view);
}
