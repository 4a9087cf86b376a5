//! The documents of `replay --format json` read back as `lineage_core::render::document`
//! values and write again byte for byte (every corpus trace, both documents), and the
//! committed JSON Schema of the documents (`docs/replay.schema.json`) is the one their
//! types give. After a change of the types, regenerate it with
//! `LINEAGE_SCHEMA=write cargo test -p lineage-traces --test documents`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use lineage_core::render::{
    self,
    document::{TreeDocument, ViewDocument},
};
use lineage_core::trace::Format;
use lineage_traces::replay_text;
use serde_json::{Value, json};

fn all_traces() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "src" | "tests" | "target" | "real-native") {
                    stack.push(path);
                }
            } else if name.ends_with(".jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Reads `text` as `T` and writes it again: the same bytes.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(name: &str, text: &str) {
    let doc: T = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{name}: the document does not read back: {e}"));
    let again = serde_json::to_string(&doc).unwrap();
    assert_eq!(
        again, text,
        "{name}: the document reads back as another one"
    );
}

#[test]
fn every_corpus_document_reads_back_and_writes_the_same_bytes() {
    let files = all_traces();
    assert!(files.len() > 200, "{}", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let replay = replay_text(&text, None);
        let name = path.display().to_string();
        let written = render::json_string(&replay, false);
        if replay.format == Format::Acp {
            round_trip::<ViewDocument>(&name, &written);
        } else {
            round_trip::<TreeDocument>(&name, &written);
        }
    }
}

/// The schema of both documents, as their types give it.
fn schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let tree = generator.subschema_for::<TreeDocument>();
    let view = generator.subschema_for::<ViewDocument>();
    let defs = generator.take_definitions(true);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/lineage-rs/lineage/docs/replay.schema.json",
        "title": "lineage replay --format json",
        "description": "The document `lineage replay --format json` prints: a session tree (canonical, Codex and Claude traces) or an ACP Client view (`acp` traces). Generated from lineage_core::render::document.",
        "oneOf": [tree, view],
        "$defs": defs,
    })
}

#[test]
fn the_committed_schema_is_the_one_the_document_types_give() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/replay.schema.json");
    let generated = serde_json::to_string_pretty(&schema()).unwrap() + "\n";
    if std::env::var("LINEAGE_SCHEMA").as_deref() == Ok("write") {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/replay.schema.json is not the schema of the document types: regenerate it with LINEAGE_SCHEMA=write cargo test -p lineage-traces --test documents"
    );
}
