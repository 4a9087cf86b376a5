//! Lines for the tests of the native readers' head reading: objects whose members are the
//! ones a head reads (and others), with kinds a reader skips and kinds it reads, values of
//! the wrong type, repeated members, escapes serde_json takes and lineage's parser refuses
//! (a lone surrogate), nested payloads, and a line cut short or followed by more text.

use proptest::prelude::*;

/// A JSON text a head may meet in place of a member's value.
fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "summary",
            "progress",
            "user",
            "assistant",
            "attachment",
            "queue-operation",
            "event_msg",
            "response_item",
            "session_meta",
            "turn_context",
            "token_count",
            "task_started",
            "item_completed",
        ])
        .prop_map(|k| format!("\"{k}\"")),
        prop::sample::select(vec![
            "null",
            "true",
            "false",
            "5",
            "\"S\"",
            "\"\\ud800\"",
            "\"typ\\u0065\"",
            "[]",
            "{}",
        ])
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("[{}]", v.join(","))),
            members(inner).prop_map(|m| format!("{{{m}}}")),
        ]
    })
}

/// Members `key: value`, the keys those a head reads and a few others.
fn members(value: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "type",
        "payload",
        "sessionId",
        "agentId",
        "timestamp",
        "isSidechain",
        "message",
        "x",
        "typ\\u0065",
    ]);
    prop::collection::vec((key, value), 0..6).prop_map(|members| {
        let members: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect();
        members.join(",")
    })
}

/// A line: an object of such members (most often led by a `type`), whole, cut short, or
/// followed by more text.
pub(super) fn line() -> impl Strategy<Value = String> {
    let kind = prop::sample::select(vec![
        "summary",
        "progress",
        "response_item",
        "turn_context",
        "event_msg",
        "user",
    ]);
    (
        prop::option::weighted(0.8, kind),
        members(value()),
        prop::sample::select(vec!["", "", "", " ", " x", "}", ","]),
        any::<prop::sample::Index>(),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(kind, members, tail, cut, whole)| {
            let kind = kind.map(|k| format!("\"type\":\"{k}\""));
            let members: Vec<String> = kind
                .into_iter()
                .chain(Some(members).filter(|m| !m.is_empty()))
                .collect();
            let line = format!("{{{}}}{tail}", members.join(","));
            if whole {
                return line;
            }
            let at = cut.index(line.len() + 1);
            line.get(..at).unwrap_or(&line).to_owned()
        })
}
