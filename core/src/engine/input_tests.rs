//! Bad input at the engine, whatever the embedder: `at` out of range or going backwards,
//! bytes that are not UTF-8, headers (unknown version or format, a second header, a
//! header that disagrees with the records) and empty ids. Each is a located finding, and
//! the record is kept whenever it can be.

use super::{Engine, Options, Replay};
use crate::finding::{Code, Severity};
use crate::trace::Format;

fn run(format: Option<Format>, lines: &[&[u8]]) -> Replay {
    let mut e = Engine::new(Options {
        format,
        ..Options::default()
    });
    for line in lines {
        e.push_bytes(line).unwrap();
    }
    e.finish().unwrap()
}

fn found(r: &Replay) -> Vec<(usize, Code)> {
    r.findings.iter().map(|f| (f.line, f.rule)).collect()
}

fn message(r: &Replay, code: Code) -> String {
    r.findings
        .iter()
        .find(|f| f.rule == code)
        .map(|f| f.message.clone())
        .unwrap_or_else(|| format!("no {code} in {:?}", r.findings))
}

const ROOT: &[u8] = br#"{"event":{"type":"root_session_created","session":"R"},"at":10}"#;

// ------------------------------------------------------------------ item 5: `at`

#[test]
fn an_at_out_of_range_keeps_the_record_and_is_reported_at_its_line() {
    let r = run(
        None,
        &[
            br#"{"event":{"type":"root_session_created","session":"R"},"at":18446744073709551616}"#,
            br#"{"event":{"type":"user_submitted","session":"R","text":"go"},"at":1e400}"#,
            br#"{"event":{"type":"root_provider_turn_started","session":"R"},"at":"soon"}"#,
            br#"{"event":{"type":"root_provider_turn_completed","session":"R","outcome":"completed"},"at":-1}"#,
        ],
    );
    let turn = r.snapshot().unwrap().turn(&"R#1".parse().unwrap()).unwrap();
    assert!(turn.outcome.is_some(), "every record applied: {turn:?}");
    assert_eq!(
        found(&r),
        [1, 2, 3, 4].map(|line| (line, Code::AtInvalid)),
        "{:?}",
        r.findings
    );
    let text = message(&r, Code::AtInvalid);
    // The value as read (serde_json's `arbitrary_precision`), not as an `f64` prints it.
    assert!(text.contains("got 18446744073709551616;"), "{text}");
    assert!(text.contains("without a time"), "{text}");
}

#[test]
fn an_at_out_of_range_keeps_a_provider_record_too() {
    let r = run(
        Some(Format::ClaudeSdk),
        &[br#"{"from":"cli","message":{"type":"system","subtype":"init","session_id":"S"},"at":1e40}"#],
    );
    assert!(r.snapshot().unwrap().session(&"S".into()).is_some());
    assert_eq!(found(&r), [(1, Code::AtInvalid)]);
}

#[test]
fn an_at_going_backwards_is_a_note() {
    let r = run(
        None,
        &[
            ROOT,
            br#"{"event":{"type":"user_submitted","session":"R","text":"go"},"at":4}"#,
            br#"{"event":{"type":"root_provider_turn_started","session":"R"},"at":12}"#,
        ],
    );
    assert_eq!(found(&r), [(2, Code::AtBackwards)]);
    assert_eq!(r.findings[0].severity, Severity::Note);
    assert!(message(&r, Code::AtBackwards).contains("line 1"));
}

// ------------------------------------------------------------------ item 6: UTF-8

#[test]
fn invalid_utf8_inside_a_string_is_reported_at_its_line_and_the_record_kept() {
    let r = run(
        None,
        &[
            ROOT,
            b"{\"event\":{\"type\":\"session_titled\",\"session\":\"R\",\"title\":\"caf\xE9\"}}",
        ],
    );
    assert_eq!(found(&r), [(2, Code::InvalidUtf8)]);
    assert_eq!(r.findings[0].severity, Severity::Error);
    let title = r
        .snapshot()
        .unwrap()
        .session(&"R".into())
        .unwrap()
        .title
        .clone();
    assert_eq!(title.as_deref(), Some("caf\u{FFFD}"));
    assert!(message(&r, Code::InvalidUtf8).contains("byte 61"));
}

#[test]
fn invalid_utf8_is_reported_in_acp_traces_and_before_the_format_is_known() {
    let r = run(
        None,
        &[b"{\"from\":\"agent\",\"message\":{\"jsonrpc\":\"2.0\",\"method\":\"x\xFF\"}}"],
    );
    assert_eq!(r.format, Format::Acp);
    assert!(
        found(&r).contains(&(1, Code::InvalidUtf8)),
        "{:?}",
        r.findings
    );
}

// ------------------------------------------------------------------ item 9: headers

#[test]
fn an_unknown_header_version_is_a_warning_and_the_records_are_still_read() {
    let r = run(
        None,
        &[
            br#"{"lineage":"trace","format":"canonical","version":7}"#,
            ROOT,
        ],
    );
    assert_eq!(found(&r), [(1, Code::UnknownHeaderVersion)]);
    assert!(message(&r, Code::UnknownHeaderVersion).contains('7'));
    assert!(r.snapshot().unwrap().session(&"R".into()).is_some());
}

#[test]
fn a_header_naming_an_unknown_format_says_so_and_not_that_it_is_not_json() {
    let r = run(
        Some(Format::Canonical),
        &[
            br#"{"lineage":"trace","format":"canonicle","version":1}"#,
            ROOT,
        ],
    );
    let text = message(&r, Code::MalformedRecord);
    assert!(!text.contains("not JSON"), "{text}");
    assert!(text.contains("unknown trace format `canonicle`"), "{text}");
}

#[test]
fn a_second_header_is_named_as_such() {
    let header: &[u8] = br#"{"lineage":"trace","format":"canonical","version":1}"#;
    let r = run(None, &[header, ROOT, header]);
    assert_eq!(found(&r), [(3, Code::MalformedRecord)]);
    let text = message(&r, Code::MalformedRecord);
    assert!(text.contains("a second trace header"), "{text}");
}

#[test]
fn records_that_disagree_with_the_header_say_what_they_look_like() {
    let r = run(
        None,
        &[
            br#"{"lineage":"trace","format":"canonical","version":1}"#,
            br#"{"from":"server","message":{"method":"thread/started","params":{}}}"#,
        ],
    );
    let text = message(&r, Code::MalformedRecord);
    assert!(
        text.contains("the header says `canonical`, but this record looks like `codex-app-server`"),
        "{text}"
    );
}

// ------------------------------------------------------------------ item 11: empty ids

#[test]
fn empty_ids_are_rejected_so_every_printed_turn_id_parses() {
    let r = run(
        None,
        &[
            br#"{"event":{"type":"root_session_created","session":""}}"#,
            ROOT,
            br#"{"event":{"type":"user_submitted","session":"R"}}"#,
            br#"{"event":{"type":"child_spawned","session":"","parent_session":"R"}}"#,
            br#"{"event":{"type":"interaction_requested","session":"R","request":""}}"#,
        ],
    );
    assert_eq!(
        found(&r),
        [(1, Code::EmptyId), (4, Code::EmptyId), (5, Code::EmptyId)]
    );
    let snapshot = r.snapshot().unwrap();
    assert!(snapshot.session(&"".into()).is_none());
    for s in snapshot.sessions() {
        for t in &s.turns {
            assert_eq!(
                t.id.to_string().parse::<crate::TurnId>().ok().as_ref(),
                Some(&t.id)
            );
        }
    }
}

#[test]
fn an_empty_codex_thread_id_is_rejected_too() {
    let r = run(
        Some(Format::CodexAppServer),
        &[
            br#"{"from":"client","message":{"id":1,"method":"turn/start","params":{"threadId":"","input":[]}}}"#,
        ],
    );
    assert!(found(&r).contains(&(1, Code::EmptyId)), "{:?}", r.findings);
    assert_eq!(r.snapshot().unwrap().sessions().count(), 0);
}

// ------------------------------------------------------------------ the acp fast path

/// An `acp` line the fast path decodes (`acp::wire::Line`) reads exactly as the same
/// record read as a `Value`: an extra envelope member, which no reader looks at, sends the
/// twin down the `Value` path.
#[test]
fn an_acp_line_reads_the_same_on_the_fast_path_and_as_a_value() {
    let header = r#"{"lineage":"trace","format":"acp","version":1}"#;
    let lines = [
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}},"at":5}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}},"at":6}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A"}}},"at":4}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}},"at":null}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":8,"method":"x","params":{}},"at":-1}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":9,"method":"x","params":{}},"at":"soon"}"#,
        r#"{"from":"agent","message":{"id":null,"method":"session/update","params":{"sessionId":"R"}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":7,"result":{},"error":{}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"1.0","id":null,"error":{"code":1}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","method":5}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","method":"m","params":"p"}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0"}}"#,
        r#"{"from":"client","message":{}}"#,
        r#"{"from":"client"}"#,
        r#"{"from":"someone","message":{"jsonrpc":"2.0","method":"m"}}"#,
        r#"{"message":{"jsonrpc":"2.0","method":"m"}}"#,
        r#"{"from":"transport"}"#,
        r#"{"from":"transport","event":"disconnected","at":7}"#,
        r#"{"from":"transport","event":"connected","message":{"jsonrpc":"2.0","method":"m"}}"#,
        r#"{"fr\u006fm":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"A","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}}"#,
    ];
    let replay = |lines: &mut dyn Iterator<Item = String>| {
        let mut e = Engine::new(Options::default());
        let mut outputs = Vec::new();
        for line in std::iter::once(header.to_owned()).chain(lines) {
            let out = e.push_line(&line).unwrap();
            outputs.push((out.changes, out.findings));
        }
        let replay = e.finish().unwrap();
        (
            outputs,
            replay.findings.clone(),
            crate::render::json_string(&replay, false),
        )
    };
    for line in lines {
        assert!(crate::acp::wire::Line::decode(line).is_some(), "{line}");
    }
    let fast = replay(&mut lines.iter().map(|l| (*l).to_owned()));
    let slow = replay(&mut lines.iter().map(|l| l.replacen('{', r#"{"x":0,"#, 1)));
    assert!(crate::acp::wire::Line::decode(&lines[0].replacen('{', r#"{"x":0,"#, 1)).is_none());
    assert_eq!(fast, slow);
    assert!(!fast.1.is_empty(), "the lines are not all clean");
}
