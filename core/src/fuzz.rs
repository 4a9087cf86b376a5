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
