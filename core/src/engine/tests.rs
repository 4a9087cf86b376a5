//! The engine's own contract: inputs other than text, time as an input, the two ways a
//! trace stops, detection, and the header's byte-order mark.

use serde_json::{Value, json};

use super::{Engine, EngineError, Options};
use crate::finding::Code;
use crate::providers::ProviderRecord;
use crate::trace::Format;
use crate::tree::{Change, Event, Outcome, Phase};
use crate::{SessionId, TurnId};

const CLAUDE_TIMEOUT: &str = include_str!("../../../traces/claude/07-continuation-timeout.jsonl");
const CODEX_CANCEL: &str = include_str!("../../../traces/codex/11-user-cancel-full-fanout.jsonl");

/// The records of a corpus trace, parsed (header skipped).
fn records(trace: &str) -> Vec<ProviderRecord> {
    trace
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn engine(format: Format) -> Engine {
    Engine::new(Options {
        format: Some(format),
        ..Options::default()
    })
}

fn phase(engine: &Engine, turn: &str) -> Option<(Phase, Option<Outcome>)> {
    let turn = engine.snapshot().turn(&turn.parse::<TurnId>().unwrap())?;
    Some((turn.phase, turn.outcome))
}

#[test]
fn parsed_codex_records_go_in_and_their_changes_come_out() {
    let mut e = engine(Format::CodexAppServer);
    let mut changes = Vec::new();
    for r in records(CODEX_CANCEL) {
        changes.extend(e.push_record(r).unwrap().changes);
    }
    let replay = e.finish().unwrap();
    assert!(changes.iter().any(|c| matches!(
        c,
        Change::SessionCreated { session, .. } if session.as_str() == "019aa0b2-root"
    )));
    let settled: Vec<String> = changes
        .iter()
        .filter_map(|c| match c {
            Change::TurnSettled { turn, outcome, .. } => Some(format!("{turn}:{outcome}")),
            _ => None,
        })
        .collect();
    assert!(
        settled.contains(&"019aa0b2-root#1:canceled".to_owned()),
        "{settled:?}"
    );
    // The same records as text give the same tree.
    let text = crate::replay::replay(CODEX_CANCEL, &crate::replay::Options::default()).unwrap();
    assert_eq!(
        crate::render::json_string(&replay, false).replace("\"line\":", ""),
        crate::render::json_string(&text, false).replace("\"line\":", "")
    );
}

#[test]
fn a_codex_root_thread_can_come_from_options_instead_of_a_header() {
    let mut e = Engine::new(Options {
        format: Some(Format::CodexAppServer),
        codex_root_thread: Some("R".into()),
        ..Options::default()
    });
    let out = e
        .push_record(ProviderRecord::new(
            "server",
            json!({"method":"thread/started","params":{"thread":{"id":"R"}}}),
            None,
        ))
        .unwrap();
    assert!(matches!(
        out.changes.first(),
        Some(Change::SessionCreated { session, .. }) if session.as_str() == "R"
    ));
}

#[test]
fn the_claude_continuation_guard_times_out_through_handle_timeout_alone() {
    let root = "c59b2232-5a67-513a-9d52-cbb3e3b8a7f6";
    let all = records(CLAUDE_TIMEOUT);
    let mut e = engine(Format::ClaudeSdk);
    // Up to the final child's completed notification (line 11, at 20 000): the reserved
    // continuation keeps the root turn running.
    for r in all.iter().take(10).cloned() {
        e.push_record(r).unwrap();
    }
    assert_eq!(
        phase(&e, &format!("{root}#1")),
        Some((Phase::Running, None))
    );
    assert_eq!(e.poll_timeout(), Some(50_000));
    // A clock short of the deadline changes nothing.
    assert_eq!(e.handle_timeout(49_999), super::Output::default());
    assert_eq!(
        phase(&e, &format!("{root}#1")),
        Some((Phase::Running, None))
    );
    // The clock reaches it: no record needed.
    let out = e.handle_timeout(50_000);
    assert!(out.changes.iter().any(|c| matches!(
        c,
        Change::TurnSettled { turn, outcome: Outcome::Completed, .. } if turn.to_string() == format!("{root}#1")
    )));
    assert_eq!(e.poll_timeout(), None);
    // The timed-out continuation's output is stale.
    let out = e.push_record(all[11].clone()).unwrap();
    assert_eq!(
        out.findings.iter().map(|f| f.rule).collect::<Vec<_>>(),
        [Code::StaleContinuation]
    );
}

#[test]
fn a_record_past_the_deadline_times_the_guard_out_before_it_applies() {
    let root = "c59b2232-5a67-513a-9d52-cbb3e3b8a7f6";
    let mut e = engine(Format::ClaudeSdk);
    for r in records(CLAUDE_TIMEOUT).into_iter().take(11) {
        e.push_record(r).unwrap();
    }
    assert_eq!(
        phase(&e, &format!("{root}#1")),
        Some((Phase::Settled, Some(Outcome::Completed)))
    );
}

#[test]
fn stopping_at_a_line_gives_no_end_of_trace_findings_in_any_format() {
    let cases = [
        ("codex", CODEX_CANCEL, 14, Code::CancelIncomplete),
        (
            "claude",
            include_str!("../../../traces/claude/18-interrupt-incomplete.jsonl"),
            usize::MAX,
            Code::CancelIncomplete,
        ),
        (
            "acp",
            include_str!("../../../traces/acp/rules/permission-left-pending.fail.jsonl"),
            usize::MAX,
            Code::PermissionLeftPending,
        ),
    ];
    for (name, trace, cut, code) in cases {
        let lines: Vec<&str> = trace.lines().collect();
        let cut = cut.min(lines.len());
        let run = |finish: bool| {
            let mut e = Engine::new(Options::default());
            for line in lines.iter().take(cut) {
                e.push_line(line).unwrap();
            }
            if finish { e.finish() } else { e.stop() }.unwrap()
        };
        let ended = run(true);
        let stopped = run(false);
        assert!(
            ended.findings.iter().any(|f| f.rule == code),
            "{name}: {:?}",
            ended.findings
        );
        assert!(
            stopped.findings.iter().all(|f| f.rule != code),
            "{name}: {:?}",
            stopped.findings
        );
        assert!(ended.ended && !stopped.ended);
    }
}

#[test]
fn canonical_events_are_pushed_as_values() {
    let mut e = Engine::new(Options::default());
    let out = e
        .push_event(
            Event::RootSessionCreated {
                session: SessionId::from("R"),
                title: None,
                aliases: vec![],
            },
            Some(3),
        )
        .unwrap();
    assert_eq!(out.changes.len(), 1);
    assert_eq!(e.format(), Some(Format::Canonical));
    let err = engine(Format::ClaudeSdk)
        .push_event(
            Event::RootSessionCreated {
                session: SessionId::from("R"),
                title: None,
                aliases: vec![],
            },
            None,
        )
        .unwrap_err();
    assert!(matches!(err, EngineError::WrongInput { .. }));
}

#[test]
fn a_byte_order_mark_before_the_header_is_read_as_nothing() {
    let mut e = Engine::new(Options::default());
    let out = e
        .push_line("\u{feff}{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}")
        .unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert_eq!(e.format(), Some(Format::Canonical));
}

#[test]
fn lines_before_the_format_is_told_wait_and_keep_their_numbers() {
    let mut e = Engine::new(Options::default());
    assert!(e.push_line("{oops").unwrap().findings.is_empty());
    assert!(e.push_line("").unwrap().findings.is_empty());
    let out = e
        .push_line(r#"{"event":{"type":"root_session_created","session":"R"}}"#)
        .unwrap();
    assert_eq!(out.findings.len(), 1);
    assert_eq!(
        (out.findings[0].line, out.findings[0].rule),
        (1, Code::MalformedRecord)
    );
    assert_eq!(out.changes.len(), 1);
}

#[test]
fn a_headerless_acp_trace_starting_with_a_transport_record_is_acp() {
    let mut e = Engine::new(Options::default());
    e.push_line(r#"{"from":"transport","event":"connected"}"#)
        .unwrap();
    assert_eq!(e.format(), Some(Format::Acp));
}

#[test]
fn an_untellable_trace_is_a_usage_error_not_a_finding() {
    let mut e = Engine::new(Options::default());
    let mut result = Ok(super::Output::default());
    for _ in 0..super::detect::HOLD_LIMIT {
        result = e.push_line("{}");
        if result.is_err() {
            break;
        }
    }
    assert!(
        matches!(&result, Err(EngineError::UnknownFormat(u)) if u.records == super::detect::HOLD_LIMIT),
        "{result:?}"
    );
    assert_eq!(
        Engine::new(Options::default()).finish().unwrap_err(),
        EngineError::UnknownFormat(super::Untold::default())
    );
}

#[test]
fn acp_records_can_be_pushed_parsed() {
    let mut e = engine(Format::Acp);
    let rec = |from: &str, message: Value| ProviderRecord::new(from, message, None);
    e.push_record(rec(
        "client",
        json!({"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}),
    ))
    .unwrap();
    e.push_record(rec(
        "agent",
        json!({"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}),
    ))
    .unwrap();
    let out = e
        .push_record(rec(
            "agent",
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"A","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}),
        ))
        .unwrap();
    assert_eq!(
        out.findings
            .iter()
            .map(|f| (f.line, f.rule))
            .collect::<Vec<_>>(),
        [(3, Code::TrafficBeforeAnnounce)]
    );
    assert!(e.view().is_some());
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn a_record_nested_ten_thousand_levels_deep_is_accepted_with_a_located_note() {
    let mut e = engine(Format::ClaudeSdk);
    let line = format!(
        r#"{{"from":"cli","message":{{"type":"system","subtype":"init","session_id":"S","extra":{}}}}}"#,
        nested(10_000)
    );
    let out = e.push_line(&line).unwrap();
    assert!(
        e.snapshot().session(&"S".into()).is_some(),
        "{:?}",
        out.findings
    );
    assert_eq!(
        out.findings
            .iter()
            .map(|f| (f.line, f.rule))
            .collect::<Vec<_>>(),
        [(1, Code::ValueDepthLimited)]
    );
    assert!(
        out.findings[0].message.contains("record depth 10002"),
        "{}",
        out.findings[0].message
    );
}

#[test]
fn a_record_nested_past_the_limit_is_a_located_malformed_record_in_every_format() {
    for format in [
        Format::Canonical,
        Format::CodexAppServer,
        Format::ClaudeSdk,
        Format::Acp,
    ] {
        let mut e = engine(format);
        let from = match format {
            Format::CodexAppServer => "server",
            Format::ClaudeSdk => "cli",
            _ => "agent",
        };
        let record = format!(r#"{{"from":"{from}","message":{}}}"#, nested(100_000));
        let out = e.push_line(&record).unwrap();
        assert_eq!(
            out.findings
                .iter()
                .map(|f| (f.line, f.rule))
                .collect::<Vec<_>>(),
            [(1, Code::MalformedRecord)],
            "{format}"
        );
        // Canonical records keep no raw JSON: serde skips an unknown deep field without
        // recursing, so the record is refused for its missing `event` instead.
        let reason = if format == Format::Canonical {
            "missing field `event`"
        } else {
            "nested deeper than"
        };
        assert!(
            out.findings[0].message.contains(reason),
            "{format}: {}",
            out.findings[0].message
        );
    }
}

#[test]
fn a_record_pushed_by_reference_gives_what_the_same_record_moved_in_gives() {
    let cases = [
        (Format::CodexAppServer, CODEX_CANCEL),
        (Format::ClaudeSdk, CLAUDE_TIMEOUT),
        (
            Format::Acp,
            include_str!("../../../traces/acp/rules/permission-left-pending.fail.jsonl"),
        ),
    ];
    for (format, trace) in cases {
        let all = records(trace);
        let (mut moved, mut borrowed) = (engine(format), engine(format));
        let mut outputs = 0;
        for r in &all {
            let a = moved.push_record(r.clone()).unwrap();
            let b = borrowed.push_record_ref(r).unwrap();
            assert_eq!(a, b, "{format:?}");
            outputs += a.changes.len() + a.findings.len();
        }
        let (a, b) = (moved.finish().unwrap(), borrowed.finish().unwrap());
        assert!(
            outputs + a.findings.len() > 0,
            "{format:?}: nothing to compare"
        );
        assert_eq!(a.findings, b.findings, "{format:?}");
        assert_eq!(a.snapshot(), b.snapshot(), "{format:?}");
    }
}

/// A corpus trace's records (header skipped) with three bad ones spliced in after the
/// third: a `from` of another format, then from `side` an `at` earlier than the records
/// before it, an `at` that is no time, and no `at`.
fn with_bad_records(trace: &str, [side, wrong_from]: [&str; 2], message: &Value) -> Vec<String> {
    let mut lines: Vec<String> = trace.lines().skip(1).map(str::to_owned).collect();
    let bad = [
        json!({"from": wrong_from, "message": message, "at": 1_500}),
        json!({"from": side, "message": message, "at": 3}),
        json!({"from": side, "message": message, "at": -4}),
        json!({"from": side, "message": message}),
    ];
    for (i, record) in bad.iter().enumerate() {
        lines.insert(3 + i, record.to_string());
    }
    lines
}

/// Pushes each line to one engine and the record it holds to another, asserting that
/// both report the same findings after each push, at the end, and the same state.
fn assert_same_both_ways(format: Option<Format>, lines: &[String]) {
    let options = Options {
        format,
        ..Options::default()
    };
    let (mut by_line, mut by_record) = (Engine::new(options.clone()), Engine::new(options));
    for line in lines {
        let record: ProviderRecord = serde_json::from_str(line).unwrap();
        let (a, b) = (by_line.push_line(line), by_record.push_record(record));
        assert_eq!(
            a.map(|o| o.findings),
            b.map(|o| o.findings),
            "{format:?}: {line}"
        );
        assert_eq!(by_line.poll_timeout(), by_record.poll_timeout(), "{line}");
    }
    let (a, b) = (by_line.finish().unwrap(), by_record.finish().unwrap());
    assert_eq!(a.findings, b.findings, "{format:?}");
    let codes: Vec<Code> = a.findings.iter().map(|f| f.rule).collect();
    for code in [Code::MalformedRecord, Code::AtBackwards, Code::AtInvalid] {
        assert!(codes.contains(&code), "{format:?}: {code:?} in {codes:?}");
    }
    assert_eq!(
        crate::render::json_string(&a, false),
        crate::render::json_string(&b, false)
    );
}

#[test]
fn a_record_pushed_parsed_reports_what_the_same_record_as_a_line_reports() {
    let note = json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"none"}});
    let acp = include_str!("../../../traces/acp/scenarios/01-reused-child-two-assignments.jsonl");
    let claude_note = json!({"type":"keep_alive"});
    let codex_note = json!({"method":"warning","params":{"message":"slow"}});
    for format in [None, Some(Format::CodexAppServer)] {
        assert_same_both_ways(
            format,
            &with_bad_records(CODEX_CANCEL, ["server", "cli"], &codex_note),
        );
    }
    for format in [None, Some(Format::ClaudeSdk)] {
        assert_same_both_ways(
            format,
            &with_bad_records(CLAUDE_TIMEOUT, ["cli", "server"], &claude_note),
        );
    }
    for format in [None, Some(Format::Acp)] {
        assert_same_both_ways(format, &with_bad_records(acp, ["client", "server"], &note));
    }
}

#[test]
fn records_that_tell_no_format_are_held_alike_both_ways() {
    let lines: Vec<String> = [
        json!({"from":"client","message":{"jsonrpc":"2.0","id":7,"result":{}},"at":5}),
        json!({"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"x"}}},"at":6}),
        json!({"from":"server","message":{"id":0,"result":{"userAgent":"x"}},"at":4}),
        json!({"from":"cli","message":{}, "at": 7}),
        json!({"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"thread/start","params":{}},"at":-1}),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    assert_same_both_ways(None, &lines);
}
