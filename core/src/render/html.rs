//! `--format html`: one self-contained page (inline CSS and JavaScript, no network) that
//! draws a [`Summary`] of a replay: the session tree beside per-session swimlanes on a
//! time axis, interactions, cancels, findings, and a slider showing the state at any line.
//!
//! Owns: the page shell and the embedding of its data. The data is the timeline summary
//! (bounded, see `timeline`) and the findings (at most `timeline::MAX_MARKS`), as JSON in
//! a `<script type="application/json">` element with every `<` written `\u003c`, so no
//! text read from a trace can close the element or inject markup; the script renders
//! every text with `textContent`, never as HTML.

use serde::Serialize;

use crate::engine::Replay;
use crate::finding::Finding;
use crate::timeline::{MAX_MARKS, Summary};

const STYLE: &str = include_str!("html/page.css");
const SCRIPT: &str = include_str!("html/page.js");

#[derive(Serialize)]
struct PageData<'a> {
    title: &'a str,
    format: String,
    ended: bool,
    findings: &'a [Finding],
    elided_findings: usize,
    timeline: &'a Summary,
}

/// The page for `replay` with its recorded `timeline`; `title` names the trace.
///
/// ```
/// use lineage_core::engine::{Engine, Options};
/// use lineage_core::{render, timeline::Timeline};
/// let mut engine = Engine::new(Options::default());
/// let mut timeline = Timeline::default();
/// for line in [
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     r#"{"event":{"type":"user_submitted","session":"R"}}"#,
/// ] {
///     let out = engine.push_line(line).unwrap();
///     timeline.observe(&engine, &out);
/// }
/// let replay = engine.finish().unwrap();
/// let page = render::html(&replay, &timeline.summary(&replay), "t.jsonl <1>");
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// assert!(page.contains(r#""title":"t.jsonl \u003c1>""#));
/// // Self-contained: nothing is loaded from elsewhere.
/// assert!(!page.contains(" src=") && !page.contains("<link") && !page.contains("https://"));
/// ```
pub fn html(replay: &Replay, timeline: &Summary, title: &str) -> String {
    let shown = replay.findings.len().min(MAX_MARKS);
    let data = PageData {
        title,
        format: replay.format.to_string(),
        ended: replay.ended,
        findings: replay.findings.get(..shown).unwrap_or_default(),
        elided_findings: replay.findings.len() - shown,
        timeline,
    };
    let json = serde_json::to_string(&data)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c");
    let mut page = String::with_capacity(json.len() + STYLE.len() + SCRIPT.len() + 1024);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    page.push_str("<title>lineage</title>\n<style>\n");
    page.push_str(STYLE);
    page.push_str(
        "</style>\n</head>\n<body>\n<script type=\"application/json\" id=\"lineage-data\">",
    );
    page.push_str(&json);
    page.push_str("</script>\n<script>\n");
    page.push_str(SCRIPT);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}
