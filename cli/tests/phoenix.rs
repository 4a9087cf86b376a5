//! The export in a real tracing backend: Arize Phoenix (`pip install arize-phoenix`),
//! started on 127.0.0.1 with its SQLite default in a fresh working directory, receives
//! `lineage convert --otlp-endpoint` of real Codex and Claude Code recordings
//! (`traces/real/`), and its REST API gives every span back with the trace, the parent,
//! the name, the status and the attributes `convert --to otlp-json` wrote: the session
//! tree's nesting (child turns under the spawning tool call or turn) as Phoenix stores it.
//!
//! Opt-in (Phoenix takes a minute to start): set `LINEAGE_PHOENIX` to the `phoenix`
//! executable (`LINEAGE_PHOENIX=$(which phoenix) cargo test -p lineage-cli --test
//! phoenix`); without it the test is skipped with a message, and with
//! `LINEAGE_REQUIRE_PHOENIX=1` a missing Phoenix fails it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::lineage;
use serde_json::Value;

const RECORDINGS: [&str; 4] = [
    "real/codex/04-nested-grandchild.jsonl",
    "real/codex/09-interrupt-root-fan-out.jsonl",
    "real/claude-code/04-nested-child.jsonl",
    "real/claude-code/06-child-fails.jsonl",
];

/// Phoenix, killed when dropped.
struct Phoenix {
    child: Child,
    url: String,
    _dir: TempDir,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(executable: &str) -> Phoenix {
    let dir = common::scratch("phoenix");
    let port = free_port();
    let log = std::fs::File::create(dir.join("phoenix.log")).unwrap();
    let child = Command::new(executable)
        .arg("serve")
        .env("PHOENIX_WORKING_DIR", &dir)
        .env("PHOENIX_HOST", "127.0.0.1")
        .env("PHOENIX_PORT", port.to_string())
        .env("PHOENIX_GRPC_PORT", free_port().to_string())
        .env("PHOENIX_TELEMETRY_ENABLED", "false")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let phoenix = Phoenix {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _dir: TempDir(dir),
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    while get(&format!("{}/v1/projects", phoenix.url)).is_none() {
        assert!(
            Instant::now() < deadline,
            "Phoenix did not start in 5 minutes"
        );
        std::thread::sleep(Duration::from_secs(2));
    }
    phoenix
}

/// A GET through `curl`-free plain HTTP: the CLI's own client is not a library, so the
/// test speaks HTTP/1.1 itself.
fn get(url: &str) -> Option<Value> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut stream = std::net::TcpStream::connect(host).ok()?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\nConnection: close\r\n\r\n").ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    serde_json::from_str(&body).ok()
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

/// Every span Phoenix holds in its default project, by span id.
fn phoenix_spans(url: &str) -> BTreeMap<String, Value> {
    let mut spans = BTreeMap::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = match &cursor {
            Some(c) => format!("{url}/v1/projects/default/spans?limit=1000&cursor={c}"),
            None => format!("{url}/v1/projects/default/spans?limit=1000"),
        };
        let page = get(&page).expect("Phoenix lists the spans");
        for s in page["data"].as_array().unwrap() {
            spans.insert(
                s["context"]["span_id"].as_str().unwrap().to_owned(),
                s.clone(),
            );
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return spans,
        }
    }
}

fn attributes(span: &Value) -> BTreeMap<String, String> {
    span["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let v = &a["value"];
            let text = v["stringValue"]
                .as_str()
                .map(str::to_owned)
                .or(v["intValue"].as_str().map(str::to_owned))
                .unwrap_or_else(|| v["boolValue"].to_string());
            (a["key"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

#[test]
fn phoenix_stores_the_session_trees_of_real_recordings_as_nested_spans() {
    let Ok(executable) = std::env::var("LINEAGE_PHOENIX") else {
        assert!(
            std::env::var("LINEAGE_REQUIRE_PHOENIX").is_err(),
            "LINEAGE_REQUIRE_PHOENIX is set but LINEAGE_PHOENIX is not"
        );
        eprintln!(
            "skipped: set LINEAGE_PHOENIX to the `phoenix` executable (pip install arize-phoenix) to run it"
        );
        return;
    };
    let phoenix = start(&executable);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/");
    let mut written = Vec::new();
    for recording in RECORDINGS {
        let path = format!("{root}{recording}");
        let sent = lineage(&[
            "convert",
            &path,
            "--otlp-endpoint",
            &phoenix.url,
            "--otlp-protocol",
            "http/protobuf",
        ]);
        assert_eq!(
            sent.status.code(),
            Some(0),
            "{recording}: {}",
            String::from_utf8_lossy(&sent.stderr)
        );
        let export: Value =
            serde_json::from_slice(&lineage(&["convert", &path, "--to", "otlp-json"]).stdout)
                .unwrap();
        for span in export["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .unwrap()
        {
            written.push((recording, span.clone()));
        }
    }
    // Phoenix ingests in the background: wait until it holds every span.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut stored = phoenix_spans(&phoenix.url);
    while stored.len() < written.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(1));
        stored = phoenix_spans(&phoenix.url);
    }
    assert_eq!(stored.len(), written.len(), "Phoenix holds every span");
    let (mut nested, mut errors) = (0, 0);
    for (recording, span) in &written {
        let id = span["spanId"].as_str().unwrap();
        let got = &stored[id];
        let what = format!("{recording} {}", span["name"]);
        assert_eq!(got["context"]["trace_id"], span["traceId"], "{what}");
        assert_eq!(
            got["parent_id"],
            span.get("parentSpanId").cloned().unwrap_or(Value::Null),
            "{what}"
        );
        assert_eq!(got["name"], span["name"], "{what}");
        let kind = if span["name"].as_str().unwrap().starts_with("invoke_agent") {
            "AGENT"
        } else {
            "TOOL"
        };
        assert_eq!(got["span_kind"], kind, "{what}");
        let failed = span["status"]["code"] == 2;
        assert_eq!(
            got["status_code"],
            if failed { "ERROR" } else { "UNSET" },
            "{what}"
        );
        // `openinference.span.kind` is Phoenix's `span_kind`, checked above.
        for (key, value) in attributes(span)
            .into_iter()
            .filter(|(k, _)| k != "openinference.span.kind")
        {
            let theirs = &got["attributes"][&key];
            let theirs = theirs
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| theirs.to_string());
            assert_eq!(theirs, value, "{what}: {key}");
        }
        nested += usize::from(
            span["name"].as_str().unwrap().starts_with("invoke_agent")
                && span.get("parentSpanId").is_some(),
        );
        errors += usize::from(failed);
    }
    assert!(nested >= 5, "{nested} child turn spans nested");
    assert!(errors >= 1, "a failed child turn is an ERROR span");
}
