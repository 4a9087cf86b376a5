//! Native sources through the CLI: a Codex sessions folder, a date folder, one rollout
//! and its siblings; `--session` to pick a tree; `check` reporting each finding under
//! the file that holds it; a folder with a file that is not the program's, a child
//! whose parent is missing, a file cut short.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::lineage;

fn real_native(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../traces/real-native/codex")
        .join(run)
}

fn date_folder(run: &str) -> PathBuf {
    real_native(run).join("sessions/2026/12/01")
}

fn json(out: &std::process::Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    serde_json::from_slice(&out.stdout).expect(&stderr)
}

fn temp(name: &str) -> PathBuf {
    common::scratch(&format!("native-{name}"))
}

#[test]
fn a_sessions_folder_a_date_folder_and_a_rollout_replay_to_the_same_tree() {
    let run = "09-interrupt-root-fan-out";
    let folder = real_native(run);
    let day = date_folder(run);
    let root_file = std::fs::read_dir(&day)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("1e00-7673"))
        .unwrap();
    let views: Vec<Value> = [&folder, &day, &root_file]
        .iter()
        .map(|p| {
            json(&lineage(&[
                "replay",
                "--format",
                "json",
                p.to_str().unwrap(),
            ]))
        })
        .collect();
    for v in &views {
        assert_eq!(v["sessions"], views[0]["sessions"]);
        assert_eq!(v["source"]["files"].as_array().unwrap().len(), 2);
    }
    let turns: Vec<(&str, &str)> = views[0]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["kind"].as_str().unwrap(),
                s["turns"][0]["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(turns, [("root", "canceled"), ("child", "canceled")]);
    let note = &views[0]["diagnostics"][0];
    assert_eq!(note["rule"], "native-source-limits");
    assert!(
        note["file"]
            .as_str()
            .unwrap()
            .ends_with(root_file.file_name().unwrap().to_str().unwrap())
    );
}

#[test]
fn a_folder_of_several_trees_asks_for_one_and_session_picks_it() {
    let all = real_native("").join("..").join("codex");
    let out = lineage(&["replay", all.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds 22 session trees") && stderr.contains("--session"),
        "{stderr}"
    );
    let root = "01a23220-1e00-7673-9b19-4f0832fde1a7";
    let out = lineage(&[
        "replay",
        all.to_str().unwrap(),
        "--session",
        root,
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["sessions"][0]["id"], root);
}

#[test]
fn check_reports_each_finding_under_its_own_file_and_reads_the_rest() {
    let dir = temp("check");
    let day = date_folder("01-one-child");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&day)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in &files {
        std::fs::copy(f, dir.join(f.file_name().unwrap())).unwrap();
    }
    // A child whose parent's rollout is elsewhere, an unrelated file, and the child of the
    // run cut in the middle of its last line.
    let orphan = std::fs::read_to_string(
        date_folder("07-child-fails").join(
            std::fs::read_dir(date_folder("07-child-fails"))
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .find(|n| n.to_string_lossy().contains("1855-77e3"))
                .unwrap(),
        ),
    )
    .unwrap();
    std::fs::write(dir.join("rollout-orphan.jsonl"), orphan).unwrap();
    std::fs::write(dir.join("notes.jsonl"), "{\"todo\":\"ship\"}\n").unwrap();
    let child = dir.join(files[1].file_name().unwrap());
    let text = std::fs::read_to_string(&child).unwrap();
    std::fs::write(&child, &text[..text.len() - 40]).unwrap();
    let out = lineage(&["check", "--format", "json", dir.to_str().unwrap()]);
    let report = json(&out);
    let by_file: Vec<(String, Vec<(String, u64)>)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = Path::new(f["path"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let findings = f["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| {
                    (
                        x["rule"].as_str().unwrap().to_owned(),
                        x["line"].as_u64().unwrap(),
                    )
                })
                .collect();
            (name, findings)
        })
        .collect();
    let lines = text.lines().count() as u64;
    let find = |name: &str| {
        by_file
            .iter()
            .find(|(n, _)| n.contains(name))
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(find("notes"), [("native-file-unrelated".to_owned(), 1)]);
    assert_eq!(find("orphan"), [("native-parent-missing".to_owned(), 1)]);
    assert_eq!(find("fc44-75c1"), [("malformed-record".to_owned(), lines)]);
    assert_eq!(find("fba5-7122"), [("native-source-limits".to_owned(), 1)]);
    // The cut child's earlier records still read: its turn started, so the root waits.
    assert_eq!(out.status.code(), Some(1), "{by_file:?}");
    let replay = json(&lineage(&[
        "replay",
        "--format",
        "json",
        files[0].to_str().unwrap(),
    ]));
    assert_eq!(replay["sessions"].as_array().unwrap().len(), 2);
}

/// The recording `01-one-child` split across midnight in a temporary `sessions` folder:
/// the root's rollout in `2026/12/01`, the child's in `2026/12/02` with the root rollout
/// of another session (`02-two-children`'s). The day folder, the child's file name and
/// the other root's.
fn split_across_midnight(name: &str) -> (PathBuf, std::ffi::OsString, std::ffi::OsString) {
    let base = temp(name);
    let day = base.join("sessions/2026/12/01");
    let next = base.join("sessions/2026/12/02");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::create_dir_all(&next).unwrap();
    let mut child = None;
    for entry in std::fs::read_dir(date_folder("01-one-child")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap_or_default().to_owned();
        let to = if first.contains("parent_thread_id") {
            child = Some(path.file_name().unwrap().to_owned());
            &next
        } else {
            &day
        };
        std::fs::write(to.join(path.file_name().unwrap()), text).unwrap();
    }
    let child = child.expect("the recording has a child rollout");
    // Another session's root rollout, written the next day.
    let other = std::fs::read_dir(date_folder("02-two-children"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let head = std::fs::read_to_string(p).unwrap();
            !head
                .lines()
                .next()
                .unwrap_or_default()
                .contains("parent_thread_id")
        })
        .unwrap();
    std::fs::copy(&other, next.join(other.file_name().unwrap())).unwrap();
    (day, child, other.file_name().unwrap().to_owned())
}

/// A child started after midnight writes its rollout into the next day's folder: read
/// from its parent's day folder (or rollout), the tree is whole; a session rooted in the
/// next day's folder is not this source's and does not make the folder ambiguous.
#[test]
fn a_child_rollout_in_the_next_day_folder_is_found_from_its_parents_folder() {
    let (day, _, _) = split_across_midnight("next-day");
    let original = json(&lineage(&[
        "replay",
        date_folder("01-one-child").to_str().unwrap(),
        "--format",
        "json",
    ]));
    let parent = std::fs::read_dir(&day)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for source in [day, parent] {
        let out = lineage(&["replay", source.to_str().unwrap(), "--format", "json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let moved = json(&out);
        assert_eq!(moved["sessions"].as_array().unwrap().len(), 2, "{moved}");
        assert_eq!(
            moved["sessions"],
            original["sessions"],
            "{}",
            source.display()
        );
    }
}

/// `check` of a day folder reads what `replay` reads: the child's rollout in the next
/// day's folder is checked with its tree (the same findings as the recording's own
/// folder gives, none about a missing parent or subagent), and the next day's other
/// session is left to that day.
#[test]
fn check_of_a_day_folder_reads_the_child_rollout_in_the_next_day_folder() {
    let (day, child, other) = split_across_midnight("check-next-day");
    let report = |folder: &Path| {
        let out = lineage(&["check", "--format", "json", folder.to_str().unwrap()]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let files: Vec<(String, Value, Value)> = json(&out)["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let name = Path::new(f["path"].as_str().unwrap()).file_name().unwrap();
                let name = name.to_string_lossy().into_owned();
                (name, f["format"].clone(), f["findings"].clone())
            })
            .collect();
        files
    };
    let split = report(&day);
    let names: Vec<&str> = split.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names.len(), 2, "{split:?}");
    assert!(names.contains(&child.to_str().unwrap()), "{split:?}");
    assert!(!names.contains(&other.to_str().unwrap()), "{split:?}");
    for (name, format, findings) in &split {
        assert_eq!(format, "codex-app-server", "{name}");
        for f in findings.as_array().unwrap() {
            let rule = f["rule"].as_str().unwrap();
            assert!(
                !rule.starts_with("native-parent") && !rule.starts_with("native-subagent"),
                "{name}: {f}"
            );
        }
    }
    assert_eq!(split, report(&date_folder("01-one-child")));
}

#[test]
fn convert_exits_as_replay_does_on_a_native_sources_own_errors() {
    // A rollout line that is not JSON is the source's own finding (`malformed-record`,
    // an error): `replay` exits 1 on it, and so does `convert`, whatever the target.
    let dir = temp("convert-exit");
    let day = date_folder("01-one-child");
    for entry in std::fs::read_dir(&day).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let child = files.last().unwrap();
    let mut text = std::fs::read_to_string(child).unwrap();
    text.push_str("{\"timestamp\": not json\n");
    std::fs::write(child, text).unwrap();
    let folder = dir.to_str().unwrap();
    let replay = lineage(&["replay", folder]);
    assert_eq!(replay.status.code(), Some(1), "{replay:?}");
    for to in ["canonical", "acp-v1", "otlp-json"] {
        let out = lineage(&["convert", "--to", to, folder]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("malformed-record"), "{to}: {stderr}");
        assert_eq!(out.status.code(), Some(1), "{to}: {stderr}");
        assert!(!out.stdout.is_empty(), "{to}: the trace is still written");
    }
}
