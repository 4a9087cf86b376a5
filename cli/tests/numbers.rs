//! Numbers keep the data as read (issue 27): a record's numbers are JSON text, not `f64`s.
//! An `at` out of range is `at-invalid` and the record applies; a payload number of any
//! size or spelling comes out of `replay --format json` and `--format changes` with its
//! text as written, exponents included (`1E5` stays `1E5`); a time of a canonical trace
//! comes out of `convert` as written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::lineage_with_stdin;
use proptest::prelude::*;

/// An ACP trace whose child's work-state snapshot carries `numbers` in `"n"`.
fn acp_with(numbers: &[String]) -> String {
    let head = [
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}"#,
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}"#,
        r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}"#,
    ];
    let update = format!(
        r#"{{"from":"agent","message":{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"R","update":{{"sessionUpdate":"subagent_update","sessionId":"A","state":{{"state":"running","n":[{}]}}}}}}}}}}"#,
        numbers.join(",")
    );
    format!("{}\n{update}\n", head.join("\n"))
}

/// The numbers of `"n"` as `replay --format json` prints them (one per line).
fn printed_json(out: &str) -> Vec<String> {
    let start = out.find("\"n\": [").expect("the state is shown") + "\"n\": [".len();
    let end = start + out[start..].find(']').unwrap();
    out[start..end]
        .split(',')
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The numbers of `"n"` in the change stream's work-state change (compact JSON).
fn printed_changes(out: &str) -> Vec<String> {
    let start = out.find("\"n\":[").expect("the state changes") + "\"n\":[".len();
    let end = start + out[start..].find(']').unwrap();
    out[start..end].split(',').map(str::to_owned).collect()
}

fn replay(trace: &str, format: &str) -> String {
    let out = lineage_with_stdin(&["replay", "-", "--format", format], trace.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A JSON number as a producer may write it: big integers, `-0`, 17-digit decimals,
/// exponents in every spelling, numbers beyond `f64`'s range.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[1-9][0-9]{19,60}",
        Just("-0".to_owned()),
        Just("-0.0".to_owned()),
        "-?(0|[1-9][0-9]{0,5})\\.[0-9]{17}",
        "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,17})?[eE][+-]?[0-9]{1,4}",
        "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,20})?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn payload_numbers_round_trip_byte_exact(numbers in prop::collection::vec(number(), 1..40)) {
        let trace = acp_with(&numbers);
        prop_assert_eq!(printed_json(&replay(&trace, "json")), numbers.clone());
        prop_assert_eq!(printed_changes(&replay(&trace, "changes")), numbers);
    }
}

#[test]
fn an_exponent_keeps_its_spelling() {
    let numbers = ["1E5", "2e7", "-3.25E-2", "1e400", "1E+5", "0e0"].map(str::to_owned);
    let trace = acp_with(&numbers);
    assert_eq!(printed_json(&replay(&trace, "json")), numbers);
    assert_eq!(printed_changes(&replay(&trace, "changes")), numbers);
    // The same record, as an unenveloped message read through the `Value` path.
    let (head, update) = trace.trim_end().rsplit_once('\n').unwrap();
    let message = update
        .strip_prefix(r#"{"from":"agent","message":"#)
        .unwrap();
    let bare = format!("{head}\n{}\n", message.strip_suffix('}').unwrap());
    assert_eq!(printed_json(&replay(&bare, "json")), numbers, "{bare}");
}

/// A canonical trace whose times are `times`.
fn canonical_at(times: &[String]) -> String {
    let mut trace = String::from(r#"{"event":{"type":"root_session_created","session":"R"}}"#);
    for (i, at) in times.iter().enumerate() {
        trace.push_str(&format!(
            "\n{{\"event\":{{\"type\":\"user_submitted\",\"session\":\"R\",\"text\":\"t{i}\"}},\"at\":{at}}}"
        ));
    }
    trace + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// `convert --to canonical` writes each time as it was read, up to 2^64 - 1.
    #[test]
    fn times_round_trip_byte_exact_through_convert(
        mut times in prop::collection::vec(0u64..=u64::MAX, 1..12)
    ) {
        times.sort_unstable();
        let times: Vec<String> = times.iter().map(u64::to_string).collect();
        let out = lineage_with_stdin(
            &["convert", "-", "--to", "canonical"],
            canonical_at(&times).as_bytes(),
        );
        prop_assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).unwrap();
        let written: Vec<String> = text
            .lines()
            .filter_map(|l| l.rsplit_once(r#","at":"#))
            .map(|(_, at)| at.trim_end_matches('}').to_owned())
            .collect();
        prop_assert_eq!(written, times);
    }
}

#[test]
fn an_at_out_of_range_is_at_invalid_and_the_record_applies() {
    let trace = concat!(
        r#"{"event":{"type":"root_session_created","session":"R"},"at":1e400}"#,
        "\n",
        r#"{"event":{"type":"user_submitted","session":"R","text":"go"},"at":18446744073709551616}"#,
        "\n",
    );
    let out = lineage_with_stdin(&["replay", "-", "--format", "json"], trace.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["sessions"][0]["id"], "R", "the record applied: {text}");
    assert_eq!(v["sessions"][0]["turns"][0]["id"], "R#1", "{text}");
    let rules: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(rules, [(1, "at-invalid"), (2, "at-invalid")], "{text}");
    assert!(text.contains("got 1e+400;"), "{text}");
    assert!(text.contains("got 18446744073709551616;"), "{text}");
    assert!(!text.contains("malformed-record"), "{text}");
}

#[test]
fn big_integers_and_negative_zero_are_printed_as_read() {
    let numbers = [
        "123456789012345678901234567890",
        "-0",
        "18446744073709551616",
    ];
    let numbers = numbers.map(str::to_owned);
    assert_eq!(printed_json(&replay(&acp_with(&numbers), "json")), numbers);
}
