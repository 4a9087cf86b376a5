//! Replays every committed fuzz corpus input and crash reproducer through the fuzz bodies,
//! so `cargo test` exercises them on stable (cargo-fuzz itself needs nightly flags).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(rd) = std::fs::read_dir(fuzz.join(dir).join(target)) {
            files.extend(
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.is_file()),
            );
        }
    }
    files.sort();
    files
}

fn replay(target: &str, body: fn(&[u8])) {
    let files = inputs(target);
    assert!(
        !files.is_empty(),
        "no committed corpus for fuzz target {target}"
    );
    for file in files {
        let data = std::fs::read(&file).unwrap();
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(outcome.is_ok(), "fuzz input {} fails", file.display());
    }
}

#[test]
fn fuzz_corpus_events_replays_clean() {
    replay("events", lineage_core::fuzz::events);
}

#[test]
fn fuzz_corpus_trace_bytes_replays_clean() {
    replay("trace_bytes", lineage_core::fuzz::trace_bytes);
}

#[test]
fn fuzz_corpus_native_files_replays_clean() {
    replay("native_files", lineage_core::fuzz::native_files);
}

#[test]
fn fuzz_corpus_json_text_replays_clean() {
    replay("json_text", lineage_core::fuzz::json_text);
}
