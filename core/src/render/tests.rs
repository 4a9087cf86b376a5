//! Renderer tests: every view of a very deep tree on a 2 MiB stack (no renderer may
//! recurse on depth), and Mermaid labels that stay text whatever a trace puts in them.
//!
//! The deep tree is built directly (a settled chain that passes `check_invariants(Full)`),
//! not replayed: in a debug build the reducer re-checks every invariant after each event,
//! which makes replaying a deep chain cubic in its depth.

use std::sync::Arc;

use imbl::{OrdSet, Vector};

use super::escape;
use crate::ids::{SessionId, TurnId};
use crate::replay::{Options, Replay, State, replay};
use crate::trace::Format;
use crate::tree::{
    CreatorRelation, Level, Outcome, Phase, ProviderLifecycle, ProviderPhase, RootGate, Session,
    SessionKind, Snapshot, Turn,
};

/// The stack of every thread these tests render on (a spawned Rust thread's default).
const STACK: usize = 2 << 20;

/// Runs `f` on a fresh thread with a [`STACK`]-byte stack. A stack overflow aborts the
/// whole test binary, which fails the run.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("a thread starts")
        .join()
        .expect("the thread does not panic")
}

fn settled_turn(session: &SessionId, root: bool) -> Arc<Turn> {
    Arc::new(Turn {
        id: TurnId::new(session.clone(), 1),
        phase: Phase::Settled,
        outcome: Some(Outcome::Completed),
        started: true,
        pending_interactions: 0,
        cancel: None,
        late_terminal: None,
        error: None,
        guidance: 0,
        opened_at: None,
        settled_at: None,
        usage: None,
        gate: root.then(|| {
            Box::new(RootGate {
                provider: ProviderLifecycle {
                    phase: ProviderPhase::Completed,
                    provider_turn: None,
                    outcome: Some(Outcome::Completed),
                    turns: 1,
                },
                active_descendants: OrdSet::new(),
            })
        }),
    })
}

fn chain_session(ids: &[SessionId], i: usize) -> Session {
    let id = ids[i].clone();
    let relation = i.checked_sub(1).map(|p| {
        Arc::new(CreatorRelation {
            parent_session: ids[p].clone(),
            parent_turn: TurnId::new(ids[p].clone(), 1),
            tool_call: Some(format!("call-{p}").as_str().into()),
            root_session: ids[0].clone(),
            root_turn: TurnId::new(ids[0].clone(), 1),
        })
    });
    Session {
        kind: if i == 0 {
            SessionKind::Root
        } else {
            SessionKind::Child
        },
        relation,
        title: (i > 0).then(|| format!("worker {}", i - 1).into()),
        deleted: false,
        seq: i as u64,
        turns: Vector::unit(settled_turn(&id, i == 0)).into(),
        children: ids.get(i + 1).cloned().into_iter().collect(),
        aliases: Default::default(),
        messages: Default::default(),
        message_index: Default::default(),
        tool_calls: Default::default(),
        requests: Default::default(),
        closed: Default::default(),
        id,
    }
}

/// A settled chain `R` → `c0` → `c1` → … `depth` children deep, as a replay.
fn deep_chain(depth: usize) -> Replay {
    let ids: Vec<SessionId> = std::iter::once("R".to_string())
        .chain((0..depth).map(|i| format!("c{i}")))
        .map(|s| s.as_str().into())
        .collect();
    let mut snapshot = Snapshot::new();
    for i in 0..ids.len() {
        let s = Arc::new(chain_session(&ids, i));
        if i == 0 {
            snapshot.sessions.insert(s.id.clone(), s);
        } else {
            snapshot.archive.insert(s.id.clone(), s);
        }
    }
    snapshot.next_seq = ids.len() as u64;
    snapshot
        .check_invariants(Level::Full)
        .expect("the hand-built chain is a valid snapshot");
    Replay {
        format: Format::Canonical,
        header: None,
        state: State::Tree(snapshot),
        findings: Vec::new(),
        last_line: 0,
        ended: true,
    }
}

const DEEP: usize = 100_000;

#[test]
fn mermaid_of_a_chain_100000_deep_renders_on_a_small_stack() {
    let chart = on_small_stack(|| super::mermaid(&deep_chain(DEEP)));
    let lines: Vec<&str> = chart.lines().collect();
    // The header; per session its node, its turn's node and the edge between them; per
    // child the edge from its parent turn.
    assert_eq!(lines.len(), 1 + 3 * (DEEP + 1) + DEEP);
    assert_eq!(lines[1], "  s0[\"R · root\"]");
    let deepest = DEEP - 1;
    let node = format!("  s{DEEP}[\"c{deepest} · child<br/>worker {deepest}\"]");
    let turn = format!("  s{DEEP}t1([\"c{deepest}#1 · settled · completed\"])");
    let edge = format!("  s{DEEP} --> s{DEEP}t1");
    let at = lines
        .iter()
        .position(|l| *l == node)
        .expect("the deepest node");
    assert_eq!(lines[at + 1], turn);
    assert_eq!(lines[at + 2], edge);
    // Its parent turn's edge into it follows at once: it has no children.
    assert_eq!(
        lines[at + 3],
        format!("  s{}t1 -->|\"call-{deepest}\"| s{DEEP}", DEEP - 1)
    );
    // Edges into a child come after the child's subtree: the root's comes last.
    assert_eq!(lines.last(), Some(&"  s0t1 -->|\"call-0\"| s1"));
}

/// What the JSON test reads back of each session.
#[derive(serde::Deserialize)]
struct SessionIds {
    id: String,
    parent: Option<ParentId>,
}

#[derive(serde::Deserialize)]
struct ParentId {
    session: String,
}

#[derive(serde::Deserialize)]
struct Sessions {
    sessions: Vec<SessionIds>,
}

#[test]
fn json_of_a_chain_100000_deep_renders_on_a_small_stack() {
    let text = on_small_stack(|| super::json_string(&deep_chain(DEEP), true));
    let doc: Sessions = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(doc.sessions.len(), DEEP + 1);
    assert_eq!(doc.sessions[0].id, "R");
    assert!(doc.sessions[0].parent.is_none());
    for (i, pair) in doc.sessions.windows(2).enumerate() {
        assert_eq!(pair[1].id, format!("c{i}"));
        let parent = pair[1].parent.as_ref().map(|p| p.session.as_str());
        assert_eq!(parent, Some(pair[0].id.as_str()));
    }
}

/// The tree draws 32 levels of guides and labels deeper lines with their level, so its
/// size grows with depth, not with its square; 100 000 levels overflow any walk that
/// recurses once per level on 2 MiB.
#[test]
fn tree_of_a_chain_100000_deep_renders_on_a_small_stack() {
    let text = on_small_stack(|| super::tree(&deep_chain(DEEP)));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 * (DEEP + 1));
    assert_eq!(lines[0], "R · root");
    assert_eq!(
        lines[1],
        "└─ R#1 · settled · completed · provider completed"
    );
    let last = DEEP - 1;
    // The deepest child's line is 2·DEEP − 1 levels down, its turn's one more.
    let guides = " ".repeat(3 * 32);
    assert_eq!(
        lines[2 * DEEP],
        format!(
            "{guides}[level {}] └─ c{last} · child via call-{last} · \"worker {last}\"",
            2 * DEEP - 1
        )
    );
    assert_eq!(
        lines[2 * DEEP + 1],
        format!(
            "{guides}[level {}] └─ c{last}#1 · settled · completed",
            2 * DEEP
        )
    );
    // Above the cut, levels are drawn as before.
    assert_eq!(lines[2], "   └─ c0 · child via call-0 · \"worker 0\"");
}

/// Labels a trace may carry: HTML, quotes and brackets, edge-label and statement
/// separators, line breaks, Markdown backticks, entity codes, directives and comments.
const HOSTILE: [&str; 9] = [
    "<session>",
    "Fix <b>the</b> build",
    "say \"hi\"] s9[\"x",
    "a]b|c;d",
    "line\nbreak\r\tend",
    "`tick` **md**",
    "#quot; #35; #9829; #lt;",
    "%%{init: {\"theme\":\"dark\"}}%%\n%% comment",
    "&amp; & &lt;",
];

#[test]
fn escape_writes_markup_as_entity_codes() {
    let cases = [
        ("<b>", "#lt;b#gt;"),
        ("Fix <b>the</b> build", "Fix #lt;b#gt;the#lt;/b#gt; build"),
        ("say \"hi\"", "say #quot;hi#quot;"),
        ("a]b;c", "a]b;c"),
        ("a|b", "a#124;b"),
        ("a\nb\r", "a#10;b#13;"),
        ("`x`", "#96;x#96;"),
        ("#quot;", "#35;quot;"),
        ("&lt;", "#amp;lt;"),
        ("%%{init}%%", "#37;#37;{init}#37;#37;"),
        ("a\u{2028}b", "a#8232;b"),
        ("worker 0 (ok) [1]", "worker 0 (ok) [1]"),
    ];
    for (text, want) in cases {
        assert_eq!(escape(text), want, "{text:?}");
    }
    assert!(matches!(
        escape("plain"),
        std::borrow::Cow::Borrowed("plain")
    ));
}

/// Mermaid's own decoding of a label: `#name;` and `#number;` become the character.
fn decode(label: &str) -> String {
    let mut out = String::new();
    let mut rest = label;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let word = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        let decoded = after[word..]
            .starts_with(';')
            .then(|| match &after[..word] {
                "quot" => Some('"'),
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                n => n.parse().ok().and_then(char::from_u32),
            })
            .flatten();
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &after[word + 1..];
            }
            None => {
                out.push('#');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A node id is positional: `s<n>` or `s<n>t<n>`.
fn node_id(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(text.len());
    let (id, rest) = text.split_at(end);
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let valid = id
        .strip_prefix('s')
        .is_some_and(|n| match n.split_once('t') {
            Some((a, b)) => digits(a) && digits(b),
            None => digits(n),
        });
    assert!(valid, "node id {id:?}");
    (id, rest)
}

/// A quoted label up to `close` (which starts with its closing quote), then the rest.
fn quoted<'a>(text: &'a str, close: &str) -> (&'a str, &'a str) {
    let end = text.find('"').expect("a closing quote");
    let (label, rest) = text.split_at(end);
    let rest = rest
        .strip_prefix(close)
        .expect("the label's closing bracket");
    for part in label.split("<br/>") {
        assert!(
            !part.contains(['<', '>', '`', '|', '%']) && !part.contains(char::is_control),
            "unescaped markup in {label:?}"
        );
    }
    (label, rest)
}

/// Checks that every line of `chart` is one statement of the shapes the renderers
/// write (nodes, edges, labelled edges, dotted message edges) and returns the labels,
/// each split at its `<br/>` and decoded.
fn chart_labels(chart: &str) -> Vec<Vec<String>> {
    let mut lines = chart.lines();
    assert_eq!(lines.next(), Some("flowchart TD"));
    let mut labels = Vec::new();
    for line in lines {
        let (_, rest) = node_id(line.trim_start_matches(' '));
        let (label, to) = if let Some(r) = rest.strip_prefix("([\"") {
            (Some(quoted(r, "\"])").0), None)
        } else if let Some(r) = rest.strip_prefix("[\"") {
            (Some(quoted(r, "\"]").0), None)
        } else if let Some(r) = rest.strip_prefix(" -->|\"") {
            let (label, r) = quoted(r, "\"| ");
            (Some(label), Some(r))
        } else if let Some(r) = rest.strip_prefix(" -. \"") {
            let (label, r) = quoted(r, "\" .-> ");
            (Some(label), Some(r))
        } else {
            (None, Some(rest.strip_prefix(" --> ").expect("an edge")))
        };
        if let Some(to) = to {
            assert_eq!(node_id(to).1, "", "{line:?}");
        }
        if let Some(label) = label {
            labels.push(label.split("<br/>").map(decode).collect());
        }
    }
    labels
}

fn canonical_hostile_trace() -> String {
    let mut lines = vec![
        serde_json::json!({"event":{"type":"root_session_created","session":HOSTILE[0],"title":HOSTILE[1]}}),
        serde_json::json!({"event":{"type":"user_submitted","session":HOSTILE[0]}}),
        serde_json::json!({"event":{"type":"root_provider_turn_started","session":HOSTILE[0]}}),
    ];
    for (i, h) in HOSTILE.iter().enumerate() {
        lines.push(
            serde_json::json!({"event":{"type":"child_spawned","session":format!("{h}/{i}"),
            "parent_session":HOSTILE[0],"tool_call":format!("call {h}"),"title":h}}),
        );
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn canonical_mermaid_labels_show_hostile_text_as_text() {
    let r = replay(&canonical_hostile_trace(), &Options::default()).expect("replays");
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let labels = chart_labels(&super::mermaid(&r));
    let root = format!("{} · root", HOSTILE[0]);
    assert!(labels.contains(&vec![root, HOSTILE[1].to_string()]));
    assert!(labels.contains(&vec![format!("{}#1 · running", HOSTILE[0])]));
    for (i, h) in HOSTILE.iter().enumerate() {
        let node = vec![format!("{h}/{i} · child"), h.to_string()];
        assert!(labels.contains(&node), "no node {node:?} in {labels:?}");
        assert!(labels.contains(&vec![format!("{h}/{i}#1 · submitted")]));
        assert!(labels.contains(&vec![format!("call {h}")]));
    }
    assert_eq!(labels.len(), 2 * (1 + HOSTILE.len()) + HOSTILE.len());
}

fn acp_hostile_trace() -> String {
    let update = |session: &str, update: serde_json::Value| {
        serde_json::json!({"from":"agent","message":{"jsonrpc":"2.0","method":"session/update",
            "params":{"sessionId":session,"update":update}}})
    };
    let root = HOSTILE[0];
    let mut lines = vec![
        serde_json::json!({"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize",
            "params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}}}),
        serde_json::json!({"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}),
        serde_json::json!({"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}),
        serde_json::json!({"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":root}}}),
    ];
    for (i, h) in HOSTILE.iter().enumerate() {
        let child = format!("{h}/{i}");
        lines.push(update(
            root,
            serde_json::json!({"sessionUpdate":"subagent_update",
            "sessionId":child,"title":h,"state":{"state":h}}),
        ));
        lines.push(update(
            &child,
            serde_json::json!({"sessionUpdate":"session_message",
            "messageId":format!("m {h}"),"senderSessionId":child,"recipientSessionId":root,
            "content":[{"type":"text","text":h}]}),
        ));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn acp_mermaid_labels_show_hostile_text_as_text() {
    let r = replay(&acp_hostile_trace(), &Options::default()).expect("replays");
    let labels = chart_labels(&super::mermaid(&r));
    assert!(labels.contains(&vec![HOSTILE[0].to_string(), "unconfirmed".to_string()]));
    for h in HOSTILE {
        let node = vec![h.to_string(), h.to_string()];
        assert!(labels.contains(&node), "no node {node:?} in {labels:?}");
        assert!(labels.contains(&vec![format!("m {h}")]));
    }
    assert_eq!(labels.len(), 1 + 2 * HOSTILE.len());
}

/// The tree shows a label as written (emoji with their variation selector, joiners,
/// combining marks), escaping only what could change how it reads: quotes, backslashes,
/// control characters and bidirectional overrides.
#[test]
fn tree_labels_keep_ordinary_text_and_escape_controls_and_bidi_overrides() {
    let title = "✈️ trip 👩\u{200d}💻 cafe\u{301} \u{202e}evil\u{202c} \"q\" \\ \u{1b}[2J";
    let trace = format!(
        "{}\n",
        serde_json::json!({"event":{"type":"root_session_created","session":"R","title":title}})
    );
    let r = replay(&trace, &Options::default()).unwrap();
    let tree = super::tree(&r);
    assert_eq!(
        tree.lines().next().unwrap(),
        "R · root · \"✈️ trip 👩\u{200d}💻 cafe\u{301} \\u{202e}evil\\u{202c} \\\"q\\\" \\\\ \\u{1b}[2J\""
    );
}

/// An ACP source whose protocol version is not known (an adapter's test recording that
/// starts after `initialize`) says so in words, not as a version number.
#[test]
fn acp_tree_says_an_unknown_protocol_version_in_words() {
    let line = serde_json::json!({"kind":"sessionUpdate","payload":{"sessionId":"R",
        "update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}});
    let r = replay(&format!("{line}\n"), &Options::default()).unwrap();
    let tree = super::tree(&r);
    assert_eq!(
        tree.lines().next(),
        Some("connection: connected · protocol unknown")
    );
}

/// A number in a kept ACP payload is written as the trace wrote it, in the document of
/// the Client view and in the change that carries a session-directed message (both are
/// converted to `Value`s on the way, and serde_json's own conversion respells `5E-1`).
#[test]
fn acp_payload_numbers_keep_their_spelling_in_the_document_and_the_changes() {
    let trace = include_str!(
        "../../../traces/acp/scenarios/05-streaming-chunks-snapshot-late-metadata.jsonl"
    )
    .replace(
        r#""text":"Start by reproducing the failure on Linux.""#,
        r#""text":"Start by reproducing the failure on Linux.","annotations":{"priority":5E-1}"#,
    );
    assert!(trace.contains("5E-1"), "the scenario still has its message");
    let replayed = replay(&trace, &Options::default()).expect("the trace replays");
    let document = super::json(&replayed).to_string();
    assert!(document.contains(r#""priority":5E-1"#), "{document}");
    assert!(!document.contains("5e-1"), "{document}");

    let mut engine = crate::engine::Engine::new(crate::engine::Options::default());
    let mut changes = String::new();
    for line in trace.lines() {
        let out = engine.push_line(line).expect("the engine takes the line");
        for change in &out.changes {
            changes.push_str(&serde_json::to_string(change).expect("a change serializes"));
        }
    }
    assert!(changes.contains("acp_message_changed"), "{changes}");
    assert!(changes.contains(r#""priority":5E-1"#), "{changes}");
}
