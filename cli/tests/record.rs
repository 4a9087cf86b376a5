//! `lineage record`: the proxy forwards bytes unchanged both ways, writes every line as a
//! record with `at`, passes the exit code and signals through, and `--check` reports
//! findings live. The program here is a small POSIX shell agent; the lab runs the same
//! proxy in front of the real ACP adapters.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

mod common;
use common::lineage_with_stdin;

fn dir() -> PathBuf {
    common::scratch("record-tests")
}

/// A fake ACP agent: answers each request with a result naming a session, then exits 3.
const AGENT: &str = r#"#!/bin/sh
n=0
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  if [ -n "$id" ]; then printf '{"jsonrpc":"2.0", "id":%s,"result":{"sessionId":"S%s"}}\n' "$id" "$n"; fi
  n=$((n+1))
done
printf 'agent done\n' >&2
exit 3
"#;

/// Writes the agent script for one test. It is run as `sh FILE`, never executed itself:
/// executing a file this process just wrote races with other test threads' forks, which
/// hold the write descriptor until their exec (`ETXTBSY`, "Text file busy").
fn agent(test: &str) -> PathBuf {
    let path = dir().join(format!("{test}-agent.sh"));
    std::fs::write(&path, AGENT).unwrap();
    path
}

const INPUT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"subagents":{}}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}"#,
    "\n",
);

fn run(args: &[&str], input: &str) -> std::process::Output {
    lineage_with_stdin(args, input.as_bytes())
}

#[test]
fn both_directions_pass_unchanged_and_every_line_is_a_record() {
    let agent = agent("both");
    let trace = dir().join("both.jsonl");
    let direct = Command::new("sh")
        .arg(&agent)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map(|mut c| {
            c.stdin.take().unwrap().write_all(INPUT.as_bytes()).unwrap();
            c.wait_with_output().unwrap()
        })
        .unwrap();
    let out = run(
        &[
            "record",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "sh",
            agent.to_str().unwrap(),
        ],
        INPUT,
    );
    assert_eq!(
        out.stdout, direct.stdout,
        "the program's output passes byte for byte"
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "the program's exit code is lineage's"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("agent done"),
        "stderr passes through"
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["format"], "acp");
    let froms: Vec<&str> = lines[1..]
        .iter()
        .map(|r| r["from"].as_str().unwrap())
        .collect();
    assert_eq!(froms.iter().filter(|f| **f == "client").count(), 2);
    assert_eq!(froms.iter().filter(|f| **f == "agent").count(), 2);
    assert!(lines[1..].iter().all(|r| r["at"].as_u64().is_some()));
    // Each record holds its line exactly as written (the agent's odd spacing included).
    let input_lines: Vec<&str> = INPUT.lines().collect();
    let output_text = String::from_utf8(direct.stdout).unwrap();
    let output_lines: Vec<&str> = output_text.lines().collect();
    for record in text.lines().skip(1) {
        let start = record.find("\"message\":").unwrap() + "\"message\":".len();
        let end = record.rfind(",\"at\":").unwrap();
        let message = &record[start..end];
        assert!(
            input_lines.contains(&message) || output_lines.contains(&message),
            "{message}"
        );
    }
    // The trace replays: the Client view has the session the agent returned.
    let replay = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(["replay", "--format", "json", trace.to_str().unwrap()])
        .output()
        .unwrap();
    let view: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(view["sessions"][0]["id"], "S1");
}

#[test]
fn check_reports_findings_as_they_arrive_and_bad_lines_are_kept() {
    let agent = agent("check");
    let trace = dir().join("check.jsonl");
    let input = format!("{INPUT}not json\n");
    let out = run(
        &[
            "record",
            "--check",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "sh",
            agent.to_str().unwrap(),
        ],
        &input,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(":4: error[malformed-record]"), "{stderr}");
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.contains(r#"{"from":"client","message":"not json","#),
        "{text}"
    );
}

#[test]
fn a_signal_to_lineage_reaches_the_program() {
    let trace = dir().join("signal.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args([
            "record",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "trap 'echo \"{\\\"type\\\":\\\"bye\\\"}\"; exit 42' TERM; echo '{\"type\":\"ready\"}'; while true; do sleep 0.05; done",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the program runs (its first line is in the trace), then signal lineage.
    for _ in 0..200 {
        if std::fs::read_to_string(&trace).is_ok_and(|t| t.contains("ready")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(42),
        "the program got SIGTERM and its exit code came back"
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.contains(r#""format":"claude-sdk""#), "{text}");
    assert!(
        text.contains(r#"{"from":"cli","message":{"type":"bye"}"#),
        "{text}"
    );
}

#[test]
fn a_trace_that_cannot_be_written_is_one_error_and_exit_2() {
    let agent = agent("full");
    let out = run(
        &[
            "record",
            "-o",
            "/dev/full",
            "--",
            "sh",
            agent.to_str().unwrap(),
        ],
        INPUT,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let errors: Vec<_> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [
            "error: /dev/full: cannot write the trace (No space left on device (os error 28)): \
          4 line(s) of the program's traffic were forwarded but not recorded (the program \
          exited with 3)"
        ],
        "{stderr}"
    );
    // The traffic itself still went through.
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
}

#[test]
fn a_program_that_does_not_exist_leaves_no_trace_file_and_exits_127() {
    let trace = dir().join("never.jsonl");
    let out = run(
        &[
            "record",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "/no/such/program",
        ],
        INPUT,
    );
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot run `/no/such/program`: No such file or directory (os error 2); no \
         trace was written\n"
    );
    assert!(!trace.exists(), "no file is left behind");
    // A file that was there before is left as it was.
    std::fs::write(&trace, "kept\n").unwrap();
    let out = run(
        &[
            "record",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "/no/such/program",
        ],
        INPUT,
    );
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), "kept\n");
}

#[test]
fn check_prints_the_first_findings_of_each_rule_and_counts_the_rest() {
    let trace = dir().join("repeated.jsonl");
    // 20 lines that are not JSON (`malformed-record`, error) alternating with 20
    // responses to no request (`unknown-response`, warning); the program only reads.
    let input: String = (0..20)
        .map(|i| format!("not json {i}\n{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}\n"))
        .collect();
    let out = run(
        &[
            "record",
            "--check",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "cat > /dev/null",
        ],
        &input,
    );
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let path = trace.to_str().unwrap();
    // The header is line 1: the bad lines are 2, 4, 6, …, the responses 3, 5, 7, ….
    let printed: Vec<&str> = stderr.lines().filter(|l| l.contains("]: ")).collect();
    let expected: Vec<String> = (0..5)
        .flat_map(|i| {
            [
                format!("{path}:{}: error[malformed-record]", 2 + 2 * i),
                format!("{path}:{}: warning[unknown-response]", 3 + 2 * i),
            ]
        })
        .collect();
    assert_eq!(printed.len(), 10, "{stderr}");
    for (line, start) in printed.iter().zip(&expected) {
        assert!(line.starts_with(start.as_str()), "{line} / {start}");
    }
    for rule in ["malformed-record", "unknown-response"] {
        let summary = format!(
            "{path}: {rule}: 15 more finding(s) not printed (the first 5 of each rule are); \
             `lineage check {path}` lists every one"
        );
        assert!(stderr.lines().any(|l| l == summary), "{summary}\n{stderr}");
    }
    assert_eq!(stderr.lines().count(), 12, "{stderr}");
    // Every line is still recorded.
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(text.lines().count(), 41);
}

#[test]
fn a_program_that_closes_its_output_first_still_gets_all_its_input() {
    // More lines than lineage queues: recording them must not wait on the program's
    // end, which waits for the end of its input.
    let trace = dir().join("reader.jsonl");
    let count = dir().join("reader-count.txt");
    let input: String = (0..5000)
        .map(|i| format!("{{\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{{\"n\":{i}}}}}\n"))
        .collect();
    let program = format!("exec 1>&-; wc -l > '{}'", count.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args([
            "record",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            &program,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let status = status.expect("lineage record ends within two minutes");
    writer.join().unwrap().unwrap();
    assert_eq!(status.code(), Some(0));
    let read = std::fs::read_to_string(&count).unwrap();
    assert_eq!(read.trim(), "5000");
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(text.lines().count(), 5001, "the header and every line");
}
