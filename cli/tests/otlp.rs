//! `convert --to otlp-json` and `--otlp-endpoint` through the binary, against a tiny
//! OTLP/HTTP collector in the test (a `TcpListener` on loopback that answers each
//! request with the next scripted status): the body posted is the export `--to
//! otlp-json` writes, as `application/json` to `/v1/traces`; a retryable answer is
//! retried and a refused or failing endpoint is an error that names it (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use common::lineage;

const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../traces/real/claude-code/04-nested-child.jsonl"
);

/// One request the collector received: request line, `Content-Type`, body.
#[derive(Debug, Clone)]
struct Received {
    line: String,
    content_type: String,
    body: String,
}

/// A collector answering its requests with `statuses` in order; its address and what
/// it received.
fn collector(statuses: &[u16]) -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&received);
    let statuses = statuses.to_vec();
    std::thread::spawn(move || {
        for status in statuses {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let (mut length, mut content_type) = (0, String::new());
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                let (name, value) = header.split_once(':').unwrap();
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "content-type" => content_type = value.trim().to_owned(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            log.lock().unwrap().push(Received {
                line: line.trim_end().to_owned(),
                content_type,
                body: String::from_utf8(body).unwrap(),
            });
            let mut stream = stream;
            write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
            )
            .unwrap();
        }
    });
    (address, received)
}

#[test]
fn the_endpoint_receives_the_export_as_json_on_the_traces_path() {
    let written = lineage(&["convert", TRACE, "--to", "otlp-json"]);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    let (address, received) = collector(&[200]);
    let sent = lineage(&["convert", TRACE, "--otlp-endpoint", &address]);
    assert_eq!(
        sent.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );
    assert!(sent.stdout.is_empty(), "without --to nothing is written");
    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].line, "POST /v1/traces HTTP/1.1");
    assert_eq!(received[0].content_type, "application/json");
    assert_eq!(
        format!("{}\n", received[0].body),
        String::from_utf8(written.stdout).unwrap()
    );
    let export: serde_json::Value = serde_json::from_str(&received[0].body).unwrap();
    let spans = &export["resourceSpans"][0]["scopeSpans"][0]["spans"];
    assert_eq!(spans.as_array().unwrap().len(), 5);
}

#[test]
fn a_retryable_answer_is_retried_and_both_outputs_are_made() {
    let (address, received) = collector(&[503, 200]);
    let out = lineage(&[
        "convert",
        TRACE,
        "--to",
        "otlp-json",
        "--otlp-endpoint",
        &format!("{address}/v1/traces"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.starts_with(b"{\"resourceSpans\""));
    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, received[1].body);
}

#[test]
fn a_rejecting_collector_is_an_error_without_retry() {
    let (address, received) = collector(&[400, 200]);
    let out = lineage(&["convert", TRACE, "--otlp-endpoint", &address]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("OTLP endpoint {address}/v1/traces")),
        "{stderr}"
    );
    assert!(stderr.contains("HTTP 400"), "{stderr}");
    assert_eq!(received.lock().unwrap().len(), 1);
}

#[test]
fn a_refusing_endpoint_is_an_error_that_names_it() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The listener is dropped: nothing listens on the port any more.
    let endpoint = format!("http://127.0.0.1:{port}/v1/traces");
    let out = lineage(&["convert", TRACE, "--otlp-endpoint", &endpoint]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("error: OTLP endpoint {endpoint}")),
        "{stderr}"
    );
    assert!(stderr.contains("no spans were accepted"), "{stderr}");
}

#[test]
fn the_endpoint_goes_with_otlp_json_only_and_acp_traces_export_their_view() {
    let out = lineage(&[
        "convert",
        TRACE,
        "--to",
        "acp-v1",
        "--otlp-endpoint",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--otlp-endpoint"));
    let acp = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/real/codex-acp/03-nested-child.jsonl"
    );
    let out = lineage(&["convert", acp, "--to", "otlp-json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let export: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap();
    assert!(
        spans
            .iter()
            .filter(|s| s.get("parentSpanId").is_some())
            .count()
            >= 2
    );
}

#[test]
fn record_sends_each_turn_s_spans_as_it_settles_and_the_rest_at_the_end() {
    let run = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/real-native/claude-code/04-nested-child"
    );
    let dir = common::scratch("otlp-record");
    let trace = dir.join("trace.jsonl");
    let (address, received) = collector(&[200; 20]);
    let out = common::lineage_with_stdin(
        &[
            "record",
            "-o",
            trace.to_str().unwrap(),
            "--otlp-endpoint",
            &address,
            "--",
            "cat",
            &format!("{run}/stdout.jsonl"),
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let whole = lineage(&["convert", trace.to_str().unwrap(), "--to", "otlp-json"]);
    let whole: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    let span_ids = |export: &serde_json::Value| -> Vec<String> {
        export["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["spanId"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut expected = span_ids(&whole);
    expected.sort();
    let posts = received.lock().unwrap().clone();
    // Three turns settle one by one (the grandchild, the child, the root): one post each.
    assert!(posts.len() >= 3, "{posts:?}");
    let mut live: Vec<String> = posts
        .iter()
        .flat_map(|p| span_ids(&serde_json::from_str(&p.body).unwrap()))
        .collect();
    live.sort();
    assert_eq!(
        live, expected,
        "every span once, the same ids as convert writes"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
