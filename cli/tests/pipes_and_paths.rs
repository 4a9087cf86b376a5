//! End-to-end tests of how the CLI meets the operating system: standard input, FIFOs and
//! `/dev/stdin`, directory walks (symlink cycles, order), a closed standard output, and
//! files that cannot be read or told, which every report format lists.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
use common::{lineage, lineage_with_stdin};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("pipes-tests-{name}"))
}

fn corpus(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces")
        .join(rel)
        .display()
        .to_string()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

const CANONICAL: &str = concat!(
    r#"{"event":{"type":"root_session_created","session":"R"}}"#,
    "\n",
    r#"{"event":{"type":"user_submitted","session":"R","text":"go"}}"#,
    "\n",
);

fn paths_of(report: &Value) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

// ------------------------------------------------------------------ item 2: stdin, FIFOs

#[test]
fn dev_stdin_is_read_once_by_replay_and_check() {
    let replayed = lineage_with_stdin(
        &["replay", "/dev/stdin", "--input-format", "canonical"],
        CANONICAL.as_bytes(),
    );
    assert_eq!(replayed.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&replayed.stdout),
        "R · root\n└─ R#1 · submitted\n"
    );
    let checked = lineage_with_stdin(
        &["check", "/dev/stdin", "--format", "json"],
        CANONICAL.as_bytes(),
    );
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert_eq!(json(&checked)["files"][0]["format"], "canonical");
}

/// Writes `body` into a new FIFO from another thread while `args` (with the FIFO's path
/// in place of `{}`) run.
fn through_fifo(name: &str, args: &[&str], body: &'static str) -> Output {
    let fifo = scratch(name).join("trace.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, body))
    };
    let path = fifo.display().to_string();
    let args: Vec<&str> = args
        .iter()
        .map(|a| if *a == "{}" { path.as_str() } else { a })
        .collect();
    let out = lineage(&args);
    if !writer.is_finished() {
        // lineage never opened the FIFO: read it here so the writer can finish.
        let _ = Command::new("cat").arg(&fifo).output();
    }
    let _ = writer.join();
    out
}

#[test]
fn a_fifo_is_read_once_by_replay_and_check() {
    let replayed = through_fifo("fifo-replay", &["replay", "{}"], CANONICAL);
    assert_eq!(replayed.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&replayed.stdout),
        "R · root\n└─ R#1 · submitted\n"
    );
    let checked = through_fifo(
        "fifo-check",
        &["check", "{}", "--format", "json"],
        CANONICAL,
    );
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert_eq!(json(&checked)["files"][0]["format"], "canonical");
}

// ------------------------------------------------------------------ item 3: directory walks

fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn symlink_cycles_are_walked_once_in_sorted_depth_first_order() {
    let dir = scratch("cycles");
    std::fs::create_dir_all(dir.join("m/sub")).unwrap();
    for f in ["z.jsonl", "a.jsonl", "m/sub/b.jsonl", "m/c.jsonl"] {
        std::fs::write(dir.join(f), CANONICAL).unwrap();
    }
    // Two loops back to the top, one into a subdirectory, one to a file already walked.
    symlink(".", &dir.join("loop1"));
    symlink(".", &dir.join("loop2"));
    symlink("..", &dir.join("m/up"));
    symlink("a.jsonl", &dir.join("b-again.jsonl"));
    let out = lineage(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let d = dir.display();
    assert_eq!(
        paths_of(&json(&out)),
        [
            format!("{d}/a.jsonl"),
            format!("{d}/m/c.jsonl"),
            format!("{d}/m/sub/b.jsonl"),
            format!("{d}/z.jsonl"),
        ]
    );
}

#[test]
fn an_empty_directory_is_a_usage_error_that_says_so() {
    let dir = scratch("empty");
    std::fs::write(dir.join("notes.txt"), "not a trace").unwrap();
    let out = lineage(&["check", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no *.jsonl file"), "{stderr}");
}

// ------------------------------------------------------------------ item 4: closed stdout

/// Runs `args` with a standard output whose reading end is already closed.
fn into_closed_pipe(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_the_run_quietly_with_the_usual_exit_code() {
    let big = scratch("pipe").join("long.jsonl");
    let generated = lineage(&[
        "gen",
        "--format",
        "canonical",
        "--shape",
        "long:300",
        "-o",
        big.to_str().unwrap(),
    ]);
    assert_eq!(generated.status.code(), Some(0));
    let usual = lineage(&["replay", big.to_str().unwrap(), "--format", "json"]);
    let rules = corpus("acp/rules");
    for (args, code) in [
        (vec!["check", "--format", "sarif", rules.as_str()], Some(1)),
        (vec!["check", rules.as_str()], Some(1)),
        (
            vec!["replay", big.to_str().unwrap(), "--format", "json"],
            usual.status.code(),
        ),
        (
            vec!["gen", "--format", "acp", "--shape", "long:300"],
            Some(0),
        ),
        (vec!["rules"], Some(0)),
    ] {
        let out = into_closed_pipe(&args);
        assert_eq!(out.status.code(), code, "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

// ------------------------------------------------------------------ item 10: reports

#[test]
fn unreadable_and_untellable_files_are_in_every_report_with_their_error() {
    let dir = scratch("reports");
    let good = dir.join("good.jsonl");
    std::fs::write(&good, CANONICAL).unwrap();
    let untellable = dir.join("untellable.jsonl");
    std::fs::write(&untellable, "{\"hello\":1}\n").unwrap();
    let missing = dir.join("missing.jsonl");
    let args = |format: &'static str| {
        vec![
            "check".to_owned(),
            good.display().to_string(),
            untellable.display().to_string(),
            missing.display().to_string(),
            "--format".to_owned(),
            format.to_owned(),
        ]
    };
    let run = |format| {
        let a = args(format);
        lineage(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let report = run("json");
    assert_eq!(report.status.code(), Some(2));
    let v = json(&report);
    assert_eq!(v["files"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["files"][0]["format"], "canonical");
    assert!(v["files"][0].get("error").is_none());
    assert_eq!(v["files"][1]["format"], Value::Null);
    assert!(
        v["files"][1]["error"]
            .as_str()
            .unwrap()
            .contains("cannot tell the trace format")
    );
    assert!(v["files"][2]["error"].as_str().is_some(), "{v}");
    assert_eq!(v["summary"]["files"], 3);
    assert_eq!(v["summary"]["unreadable"], 2);

    let junit = String::from_utf8(run("junit").stdout).unwrap();
    assert!(junit.contains("untellable.jsonl"), "{junit}");
    assert!(junit.contains("missing.jsonl"), "{junit}");
    assert!(junit.contains("<error"), "{junit}");

    let sarif = json(&run("sarif"));
    let notes = &sarif["runs"][0]["invocations"][0];
    assert_eq!(notes["executionSuccessful"], false);
    let uris: Vec<&str> = notes["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(uris.len(), 2, "{sarif}");
    assert!(uris[0].ends_with("untellable.jsonl") && uris[1].ends_with("missing.jsonl"));

    let github = String::from_utf8(run("github").stdout).unwrap();
    assert!(github.contains("::error file=") && github.contains("untellable.jsonl"));
}
