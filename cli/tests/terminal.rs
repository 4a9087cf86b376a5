//! What reaches a terminal: control characters read from a trace (ESC, U+0001, a
//! newline inside an id or message, C1 controls) are escaped in every human output
//! (`replay` tree, `check` human and github, messages on standard error).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::lineage;
use std::path::PathBuf;

/// JSON escapes, so the file itself holds no control character.
const HOSTILE: &str = concat!(
    r#"{"lineage":"trace","format":"canonical","version":1}"#,
    "\n",
    r#"{"event":{"type":"root_session_created","session":"R\u001b[2J","title":"t\u0001"}}"#,
    "\n",
    r#"{"event":{"type":"user_submitted","session":"R\u001b[2J","text":"go"}}"#,
    "\n",
    r#"{"event":{"type":"child_turn_started","session":"A\u0007\u009b"}}"#,
    "\n",
    r#"{"event":{"type":"nope\u001b]0;owned\u0007","session":"R"}}"#,
    "\n",
);

fn hostile_trace() -> PathBuf {
    let dir = common::scratch("terminal-tests");
    // A control character in the file name too.
    let path = dir.join("hostile\u{1b}[1m.jsonl");
    std::fs::write(&path, HOSTILE).unwrap();
    path
}

/// No control character but the line break.
fn assert_printable(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect();
    assert!(bad.is_empty(), "{what}: {bad:?} in\n{text}");
}

#[test]
fn control_characters_from_a_trace_are_escaped_in_every_human_output() {
    let path = hostile_trace();
    let path = path.to_str().unwrap();
    let tree = lineage(&["replay", path]);
    assert_printable("replay tree", &tree.stdout);
    let text = String::from_utf8_lossy(&tree.stdout);
    assert!(text.contains(r"R\u{1b}[2J · root"), "{text}");
    assert!(text.contains(r"nope\u{1b}]0;owned\u{7}"), "{text}");
    assert_printable(
        "replay stderr",
        &lineage(&["replay", path, "--format", "mermaid"]).stderr,
    );
    for format in ["human", "github"] {
        let out = lineage(&["check", path, "--format", format]);
        assert_printable(format, &out.stdout);
        assert_printable(format, &out.stderr);
        assert!(String::from_utf8_lossy(&out.stdout).contains(r"\u{1b}"));
    }
    let missing = format!("{path}.missing\u{1}");
    assert_printable("usage error", &lineage(&["replay", &missing]).stderr);
}

#[test]
fn machine_outputs_keep_the_data_as_read() {
    let path = hostile_trace();
    let json = lineage(&["replay", path.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["sessions"][0]["id"], "R\u{1b}[2J");
    assert_eq!(v["sessions"][0]["title"], "t\u{1}");
}
