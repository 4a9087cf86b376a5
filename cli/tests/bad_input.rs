//! Bad or unusual input says what it is (issue 27): an empty input, UTF-16 text, a trace
//! that is only a header, a record that is a JSON scalar.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;
use common::{lineage, lineage_with_stdin};
use std::path::PathBuf;

fn write(name: &str, body: &[u8]) -> PathBuf {
    let dir = common::scratch("bad-input");
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const EMPTY: &str = "empty input: no record was read (a trace is one JSON record per line)";

#[test]
fn an_empty_input_says_it_is_empty() {
    let empty = write("empty.jsonl", b"");
    let blank = write("blank.jsonl", b"\n  \n");
    for path in [
        empty.to_str().unwrap(),
        blank.to_str().unwrap(),
        "/dev/null",
    ] {
        for command in ["replay", "check"] {
            let out = lineage(&[command, path]);
            assert_eq!(out.status.code(), Some(2), "{command} {path}");
            assert!(
                stderr(&out).contains(&format!("{path}: {EMPTY}")),
                "{}",
                stderr(&out)
            );
        }
    }
    let out = lineage_with_stdin(&["replay", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), format!("error: -: {EMPTY}\n"));
}

#[test]
fn utf16_text_is_one_clear_error_with_or_without_a_format() {
    let text = "{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\"}}\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let bom_le = [&[0xFF, 0xFE][..], &le].concat();
    let bom_be = [&[0xFE, 0xFF][..], &be].concat();
    for (name, bytes) in [
        ("le", le),
        ("be", be),
        ("bom-le", bom_le),
        ("bom-be", bom_be),
    ] {
        let path = write(&format!("{name}.jsonl"), &bytes);
        let path = path.to_str().unwrap();
        for args in [
            &["replay", path][..],
            &["replay", path, "--input-format", "canonical"],
            &["check", path],
        ] {
            let out = lineage(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = stderr(&out);
            assert!(
                err.contains(&format!(
                    "error: {path}: the input is UTF-16 text: lineage reads UTF-8 (convert it: \
                     `iconv -f UTF-16 -t UTF-8`)"
                )),
                "{args:?}: {err}"
            );
            assert!(!err.contains("expected value"), "{err}");
        }
    }
}

#[test]
fn a_header_only_trace_shows_an_empty_tree_in_words() {
    let path = write(
        "header-only.jsonl",
        b"{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n",
    );
    let out = lineage(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "no sessions: the trace holds no record that creates one\n"
    );
}

#[test]
fn a_record_that_is_not_an_object_says_so_in_plain_words() {
    let body = b"1\n\"x\"\n[1]\nnull\ntrue\n";
    for format in ["canonical", "codex-app-server", "claude-sdk", "acp"] {
        let path = write(&format!("scalars-{format}.jsonl"), body);
        let out = lineage(&[
            "replay",
            path.to_str().unwrap(),
            "--input-format",
            format,
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let messages: Vec<&str> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap())
            .collect();
        let got = ["a number", "a string", "an array", "null", "a boolean"];
        let expected: Vec<String> = got
            .iter()
            .map(|kind| {
                format!("not a valid {format} record: a record must be a JSON object, got {kind}")
            })
            .collect();
        assert_eq!(messages, expected, "{format}");
    }
}

#[test]
fn convert_of_an_acp_trace_is_a_usage_error_that_says_why() {
    let acp = concat!(
        r#"{"lineage":"trace","format":"acp","version":1}"#,
        "\n",
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}"#,
        "\n",
    );
    let path = write("convert-acp.jsonl", acp.as_bytes());
    let path = path.to_str().unwrap();
    for to in ["acp-v1", "acp-v2", "canonical"] {
        let out = lineage(&["convert", path, "--to", to]);
        assert_eq!(out.status.code(), Some(2), "{to}");
        assert!(out.stdout.is_empty(), "nothing half-converted is printed");
        assert_eq!(
            stderr(&out),
            format!(
                "error: {path}: is an `acp` trace: convert projects the session tree of a \
                 provider (codex-app-server, claude-sdk) or canonical trace to ACP, and an ACP \
                 trace has none; check it with `lineage check`, or view it with `lineage \
                 replay`\n"
            )
        );
    }
}

#[test]
fn at_past_the_end_says_so() {
    let trace = concat!(
        r#"{"lineage":"trace","format":"canonical","version":1}"#,
        "\n",
        r#"{"event":{"type":"root_session_created","session":"R"}}"#,
        "\n",
    );
    let path = write("past-end.jsonl", trace.as_bytes());
    let out = lineage(&["replay", path.to_str().unwrap(), "--at", "99999"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stderr(&out),
        "note: --at 99999 is past the end of the trace (its last line is 2): the whole trace \
         is shown, as a cut, without the end-of-trace findings\n"
    );
    let out = lineage(&["replay", path.to_str().unwrap(), "--at", "2"]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_negative_at_is_told_what_at_takes() {
    let out = lineage(&["replay", "-", "--at", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "error: invalid value '-1' for '--at <LINE>': `--at` takes a line number of the \
             trace, 1 or more (1 is its first line), got `-1`"
        ),
        "{err}"
    );
    assert!(!err.contains("-- -1"), "{err}");
}

fn corpus(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces")
        .join(rel)
        .display()
        .to_string()
}

/// `replay` of a folder of traces: one short line saying what to run instead, not every
/// file's reason.
#[test]
fn replay_of_a_folder_of_traces_says_what_to_run_instead() {
    let dir = corpus("canonical");
    let out = lineage(&["replay", &dir]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 400, "{err}");
    assert!(err.contains("a folder of 19 trace files"), "{err}");
    assert!(
        err.contains(&format!("`lineage check {dir}` checks them all")),
        "{err}"
    );
}

/// Options that do nothing on this input say so; the output stays the same.
#[test]
fn ignored_options_are_said_and_change_nothing() {
    let trace = corpus("canonical/03-root-terminal-before-child.jsonl");
    let plain = lineage(&["replay", &trace, "--format", "json"]);
    let session = lineage(&["replay", &trace, "--format", "json", "--session", "X"]);
    assert_eq!(session.stdout, plain.stdout);
    assert_eq!(session.status.code(), Some(0));
    assert!(
        stderr(&session).contains("--session picks one session tree of a native source"),
        "{}",
        stderr(&session)
    );
    let format = lineage(&[
        "replay",
        &trace,
        "--format",
        "json",
        "--input-format",
        "acp",
    ]);
    assert_eq!(format.stdout, plain.stdout);
    assert!(
        stderr(&format).contains("its header says `canonical`, which wins over --input-format acp"),
        "{}",
        stderr(&format)
    );
    // The same format as the header's: nothing to say.
    let same = lineage(&["replay", &trace, "--input-format", "canonical"]);
    assert!(stderr(&same).is_empty(), "{}", stderr(&same));
}

#[test]
fn standard_input_given_twice_is_a_usage_error() {
    let out = lineage_with_stdin(&["check", "-", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("standard input (`-`) is given more than once; it can be read once"),
        "{}",
        stderr(&out)
    );
}

/// A Zed "Copy All Messages" log is one JSON array; pasted into a pipe
/// (`pbpaste | lineage check -`) it is read as from a file.
#[test]
fn a_zed_log_on_standard_input_is_read_as_from_a_file() {
    let log = br#"[
  {"_direction":"outgoing","_type":"request","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}},
  {"_direction":"incoming","_type":"response","id":1,"method":"initialize","params":{"protocolVersion":1}},
  {"_direction":"outgoing","_type":"request","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}},
  {"_direction":"incoming","_type":"response","id":2,"method":"session/new","params":{"sessionId":"R"}},
  {"_direction":"incoming","_type":"notification","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A","title":"worker"}}},
  {"_direction":"outgoing","_type":"notification","method":"session/cancel","params":{"sessionId":"A"}}
]
"#;
    let file = write("zed-acp-log.json", log);
    let file = file.to_str().unwrap();
    for command in [
        ["check", "--format", "json"],
        ["replay", "--format", "json"],
    ] {
        let from_file = lineage(&[command[0], file, command[1], command[2]]);
        let piped = lineage_with_stdin(&[command[0], "-", command[1], command[2]], log);
        assert_eq!(piped.status.code(), from_file.status.code(), "{command:?}");
        let shown =
            |out: &std::process::Output| String::from_utf8_lossy(&out.stdout).replace(file, "-");
        assert_eq!(
            shown(&piped),
            shown(&from_file),
            "{command:?}: {}",
            stderr(&piped)
        );
    }
    // The unannounced-cancel breach is found either way.
    let piped = lineage_with_stdin(&["check", "-"], log);
    assert_eq!(piped.status.code(), Some(1), "{}", stderr(&piped));
    assert!(
        String::from_utf8_lossy(&piped.stdout).contains("cancel-not-granted"),
        "{}",
        String::from_utf8_lossy(&piped.stdout)
    );
}

/// A capture written twice (every line doubled) replays to the tree of the original, with
/// one note saying so; the second half of a capture says it starts mid-session.
#[test]
fn a_doubled_capture_and_a_half_capture_say_what_they_are() {
    let original = corpus("real/codex/01-one-child.jsonl");
    let text = std::fs::read_to_string(&original).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let doubled: String = std::iter::once(format!("{header}\n"))
        .chain(lines.map(|l| format!("{l}\n{l}\n")))
        .collect();
    let doubled = write("doubled.jsonl", doubled.as_bytes());
    let json = |path: &str| {
        let out = lineage(&["replay", path, "--format", "json"]);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), doc)
    };
    let (code, twice) = json(doubled.to_str().unwrap());
    let (_, once) = json(&original);
    assert_eq!(code, Some(0));
    assert_eq!(twice["sessions"], once["sessions"]);
    let rules: Vec<&str> = twice["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert_eq!(rules, ["duplicate-record"], "{twice}");
    // The second half, without its header.
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let half: String = lines[lines.len() / 2..]
        .iter()
        .flat_map(|l| [*l, "\n"])
        .collect();
    let half = write("half.jsonl", half.as_bytes());
    let out = lineage(&["check", "--format", "json", half.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("trace-starts-mid-session"), "{report}");
    assert!(!report.contains("unclaimed-thread-events"), "{report}");
}
