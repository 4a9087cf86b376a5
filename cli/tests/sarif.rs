//! Every SARIF log `lineage check --format sarif` writes is valid against the official
//! SARIF 2.1.0 JSON schema, `format`s included (`uri`, `uri-reference`, `date-time`).
//!
//! `tests/data/sarif-schema-2.1.0.json` is the OASIS schema, unchanged: the file
//! `sarif-2.1/schema/sarif-schema-2.1.0.json` of the OASIS SARIF TC's repository
//! (`oasis-tcs/sarif-spec`, commit a560296ca8c921f3bdb8d4a8db57ab83dae968a7, 2024-05-02;
//! its `id` is https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json).
//! It declares draft-04, whose vocabulary has no `uri-reference` format; it uses no keyword
//! whose meaning changed in draft-07 (no `exclusiveMinimum`/`exclusiveMaximum`), so it is
//! checked as draft-07 (as json.schemastore.org publishes it, the `$schema` our logs name),
//! with format assertions on, so `artifactLocation.uri` must be a real URI reference.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::lineage;
use std::path::PathBuf;

use serde_json::Value;

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(include_str!("data/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

/// The SARIF log of `check <paths>`, checked against the schema.
fn assert_valid_sarif(paths: &[&str]) -> Value {
    let mut args = vec!["check", "--format", "sarif"];
    args.extend_from_slice(paths);
    let out = lineage(&args);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = validator()
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{paths:?}: {errors:#?}");
    log
}

fn traces(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces")
        .join(rel)
        .display()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    common::scratch("sarif-tests").join(name)
}

#[test]
fn the_schema_rejects_what_it_should() {
    // The check can fail: a uri with a space is no uri-reference.
    let bad = serde_json::json!({"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},
        "results":[{"message":{"text":"m"},"locations":[{"physicalLocation":
        {"artifactLocation":{"uri":"my trace.jsonl"}}}]}]}]});
    assert!(!validator().is_valid(&bad));
}

#[test]
fn the_whole_corpus_gives_valid_sarif() {
    let log = assert_valid_sarif(&[&traces("")]);
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());
}

#[test]
fn paths_that_need_percent_encoding_give_valid_sarif_uris() {
    let trace = std::fs::read_to_string(traces("acp/rules/reparent.fail.jsonl")).unwrap();
    let odd = scratch("my trace#1 100%é.jsonl");
    std::fs::write(&odd, trace).unwrap();
    let log = assert_valid_sarif(&[odd.to_str().unwrap()]);
    let uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"]
        .as_str()
        .unwrap();
    assert!(
        uri.ends_with("/my%20trace%231%20100%25%C3%A9.jsonl"),
        "{uri}"
    );
}

#[test]
fn files_that_cannot_be_checked_give_valid_sarif() {
    let untellable = scratch("untellable one.jsonl");
    std::fs::write(&untellable, "{\"hello\":1}\n").unwrap();
    let missing = scratch("missing.jsonl");
    let log = assert_valid_sarif(&[untellable.to_str().unwrap(), missing.to_str().unwrap()]);
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
}
