//! Fuzz bodies (feature `fuzz`). The `fuzz/` targets are three-line shims over these,
//! and `core/tests/fuzz_corpus.rs` replays every committed corpus and crash file through
//! them on stable, so CI exercises them without cargo-fuzz.
//!
//! Each body panics only when lineage is wrong: a broken invariant, a rejected event that
//! changed the snapshot, a non-deterministic step, or a panic inside the library.

#![allow(clippy::panic)] // a fuzz body reports a bug by panicking

use arbitrary::{Arbitrary, Unstructured};

use crate::replay::{self, Options};
use crate::trace::Format;
use crate::tree::{Event, Level, Severity, Snapshot};

/// Folds an arbitrary `Vec<Event>` (with arbitrary `at`s), checking after every step that
/// every invariant holds, that a rejection leaves the snapshot unchanged, that the step is
/// deterministic and that the previous snapshot was not modified.
pub fn events(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(events) = Vec::<(Event, Option<u16>)>::arbitrary(&mut u) else {
        return;
    };
    let mut snapshot = Snapshot::new();
    for (event, at) in &events {
        let at = at.map(u64::from);
        let before = snapshot.clone();
        let step = snapshot.apply(event, at);
        if let Err(v) = step.snapshot.check_invariants(Level::Full) {
            panic!("invariant broken after {event:?}: {v}");
        }
        let rejected = step
            .diagnostics
            .iter()
            .any(|d| d.severity() >= Severity::Warning);
        if rejected && step.snapshot != before {
            panic!(
                "a rejected event changed the snapshot: {event:?} {:?}",
                step.diagnostics
            );
        }
        if rejected && !step.changes.is_empty() {
            panic!("a rejected event reported changes: {event:?}");
        }
        let again = snapshot.apply(event, at);
        if again.snapshot != step.snapshot
            || again.changes != step.changes
            || again.diagnostics != step.diagnostics
        {
            panic!("non-deterministic step for {event:?}");
        }
        if snapshot != before {
            panic!("apply modified its input snapshot");
        }
        snapshot = step.snapshot;
    }
}

/// Replays arbitrary bytes as a trace of every format this build can replay (and content
/// detection), checking invariants of the result. Must never panic.
pub fn trace_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for format in [
        None,
        Some(Format::Canonical),
        Some(Format::CodexAppServer),
        Some(Format::ClaudeSdk),
        Some(Format::Acp),
    ] {
        let options = Options {
            format,
            until_line: None,
            spec: None,
        };
        if let Ok(r) = replay::replay(&text, &options) {
            if let Some(snapshot) = r.snapshot()
                && let Err(v) = snapshot.check_invariants(Level::Full)
            {
                panic!("invariant broken after replaying bytes: {v}");
            }
            let _ = crate::render::json_string(&r, false);
            let _ = crate::render::tree(&r);
            let _ = crate::render::mermaid(&r);
        }
    }
}

/// Reads arbitrary bytes as the files of a native source (`\0` separates files; their
/// names cycle through a rollout's, a session transcript's, a subagent's and its
/// `.meta.json`, and a Zed log's), replays every tree it finds and renders it, checking
/// invariants. Must never panic.
pub fn native_files(data: &[u8]) {
    const NAMES: [&str; 5] = [
        "rollout-0.jsonl",
        "session.jsonl",
        "session/subagents/agent-a1.jsonl",
        "session/subagents/agent-a1.meta.json",
        "zed-acp-log.json",
    ];
    let files: Vec<crate::native::File> = data
        .split(|b| *b == 0)
        .take(16)
        .zip(NAMES.iter().cycle())
        .enumerate()
        .map(|(i, (bytes, name))| {
            let text = String::from_utf8_lossy(bytes).into_owned();
            crate::native::File::new(format!("{i}/{name}"), text)
        })
        .collect();
    let source = crate::native::read(&files);
    for index in 0..source.streams.len() {
        let options = crate::native::Options::default();
        let Ok(replayed) = crate::native::replay(&source, index, options) else {
            continue;
        };
        if let Some(snapshot) = replayed.replay.snapshot()
            && let Err(v) = snapshot.check_invariants(Level::Full)
        {
            panic!("invariant broken after a native source: {v}");
        }
        if replayed.findings.iter().any(|l| l.file >= files.len()) {
            panic!("a finding names a file the source does not hold");
        }
        let _ = crate::render::json_string(&replayed.replay, false);
        let _ = crate::render::tree(&replayed.replay);
    }
}

/// Reads arbitrary bytes as one JSON text with lineage's borrowed parser and with
/// serde_json: whatever one accepts the other accepts, and reads to the same value up to
/// an exponent's spelling (which only the borrowed parser keeps). The borrowed tree
/// equals its `Value` (`same_as`), and a `Json` borrowed back from that `Value` does too.
pub fn json_text(data: &[u8]) {
    use crate::trace::borrowed::{self, Json, JsonRead};
    use serde_json::Value;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let json = borrowed::parse_as::<Json<'_>>(text);
    let ours = json.as_ref().map(JsonRead::to_value);
    if borrowed::parse_as::<Value>(text) != ours {
        panic!("built as a Value differently from the borrowed tree: {text:?}");
    }
    if let (Some(json), Some(value)) = (&json, &ours)
        && !(json.same_as(value) && Json::of_value(value).same_as(value))
    {
        panic!("a Json and its Value compare unequal: {text:?}");
    }
    if borrowed::parse_as::<borrowed::Skipped>(text).is_some() != ours.is_some() {
        panic!("checked without building, accepted differently: {text:?}");
    }
    match (ours, serde_json::from_str::<Value>(text)) {
        (Some(value), Ok(theirs)) => {
            let respelled = serde_json::from_str::<Value>(&value.to_string());
            if respelled.ok().as_ref() != Some(&theirs) {
                panic!("read differently from serde_json: {text:?}");
            }
        }
        (None, Ok(_)) => panic!("refused a text serde_json reads: {text:?}"),
        (Some(_), Err(e)) => panic!("accepted a text serde_json refuses ({e}): {text:?}"),
        (None, Err(_)) => {}
    }
}
