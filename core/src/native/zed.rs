//! Zed's ACP log, as "Copy All Messages" writes it: one pretty-printed JSON array of
//! `{"_direction": "incoming" | "outgoing", "_type": "request" | "response" |
//! "notification", "id", "method", "params"}`, seen from Zed, the Client. An outgoing
//! message is the Client's, an incoming one the Agent's; a response's `params` holds its
//! result, or its error (`{"code", "message", "data"?}`); there are no timestamps.
//!
//! Owns: splitting the array into its elements with the line each starts on (a scan of
//! the text, no recursion), and each element as the `acp` record it stands for.
//! Never: guesses a missing direction: an element without one is a `malformed-record`
//! at its line, and the rest is read; a copy cut short ends with a finding at the
//! element it cut.

use serde_json::{Map, Value};

use super::{File, Located, Place, Source, Stream};
use crate::finding::{Code, Finding};
use crate::providers::ProviderRecord;
use crate::trace::Format;

/// Is `head` (the start of a file) a Zed ACP log?
pub(super) fn is_log(head: &str) -> bool {
    head.trim_start().starts_with('[') && head.contains("\"_direction\"")
}

/// Reads the Zed logs `indices` of `files`: one stream each.
pub(super) fn read(files: &[File], indices: &[usize], source: &mut Source) {
    for &index in indices {
        let Some(file) = files.get(index) else {
            continue;
        };
        let mut stream = Stream {
            format: Format::Acp,
            root: String::new(),
            files: vec![index],
            records: Vec::new(),
            findings: Vec::new(),
        };
        let (elements, problem) = split(&file.text);
        for (line, text) in elements {
            let place = Place { file: index, line };
            match element(text) {
                Ok(record) => stream.records.push((place, record)),
                Err(why) => stream.findings.push(Located {
                    file: index,
                    finding: Finding::new(line, Code::MalformedRecord, why),
                }),
            }
        }
        if let Some((line, why)) = problem {
            stream.findings.push(Located {
                file: index,
                finding: Finding::new(line, Code::MalformedRecord, why),
            });
        }
        source.streams.push(stream);
    }
}

/// The elements of the top-level array, each with the line it starts on, and what is
/// wrong with the array itself (not an array, cut short), at its line.
fn split(text: &str) -> (Vec<(usize, &str)>, Option<Problem>) {
    let mut scan = Scan::default();
    for (at, c) in text.char_indices() {
        if let Err(why) = scan.step(text, at, c) {
            return (scan.elements, Some((scan.line, why.into())));
        }
    }
    let problem = match (scan.current, scan.opened, scan.depth) {
        (Some((_, first)), _, _) => Some((
            first,
            "the copy ends inside this message (cut short?); it is not read".into(),
        )),
        (None, true, d) if d > 0 => {
            Some((scan.line, "the array is not closed (cut short?)".into()))
        }
        (None, false, _) => Some((1, "not a JSON array of messages".into())),
        _ => None,
    };
    (scan.elements, problem)
}

/// What is wrong with the array itself, at its line.
type Problem = (usize, String);

/// The state of [`split`]'s scan.
#[derive(Default)]
struct Scan<'a> {
    elements: Vec<(usize, &'a str)>,
    /// The element being read: its byte offset and line.
    current: Option<(usize, usize)>,
    line: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
    opened: bool,
}

impl<'a> Scan<'a> {
    fn step(&mut self, text: &'a str, at: usize, c: char) -> Result<(), &'static str> {
        if self.line == 0 {
            self.line = 1;
        }
        if c == '\n' {
            self.line += 1;
        }
        if self.in_string {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.in_string = false,
                _ => {}
            }
            return Ok(());
        }
        if self.depth == 1
            && self.current.is_none()
            && !c.is_whitespace()
            && !matches!(c, ',' | ']')
        {
            self.current = Some((at, self.line));
        }
        match c {
            '"' => self.in_string = true,
            '[' | '{' if self.depth == 0 => {
                if c == '{' || self.opened {
                    return Err("not a JSON array of messages");
                }
                self.opened = true;
                self.depth = 1;
            }
            '[' | '{' => self.depth += 1,
            ',' | ']' if self.depth == 1 => {
                if let Some((from, first)) = self.current.take() {
                    self.elements
                        .push((first, text.get(from..at).unwrap_or_default()));
                }
                if c == ']' {
                    self.depth = 0;
                }
            }
            ']' | '}' => self.depth = self.depth.saturating_sub(1),
            _ if c.is_whitespace() => {}
            _ if self.depth == 0 => return Err("text outside the array"),
            _ => {}
        }
        Ok(())
    }
}

/// One element as an `acp` record.
fn element(text: &str) -> Result<ProviderRecord, String> {
    let value: Value = crate::trace::json::parse_value(text)
        .map_err(|e| format!("not JSON: {e}"))?
        .value;
    let direction = value.get("_direction").and_then(Value::as_str);
    let from = match direction {
        Some("outgoing") => "client",
        Some("incoming") => "agent",
        _ => return Err("a Zed log message needs `_direction` `incoming` or `outgoing`".into()),
    };
    let field = |k: &str| value.get(k).cloned().unwrap_or(Value::Null);
    let mut message = Map::new();
    message.insert("jsonrpc".into(), Value::from("2.0"));
    match value.get("_type").and_then(Value::as_str) {
        Some("request") => {
            message.insert("id".into(), field("id"));
            message.insert("method".into(), field("method"));
            message.insert("params".into(), field("params"));
        }
        Some("notification") => {
            message.insert("method".into(), field("method"));
            message.insert("params".into(), field("params"));
        }
        Some("response") => {
            message.insert("id".into(), field("id"));
            let params = field("params");
            let key = if is_error(&params) { "error" } else { "result" };
            message.insert(key.into(), params);
        }
        _ => {
            return Err(
                "a Zed log message needs `_type` `request`, `response` or `notification`".into(),
            );
        }
    }
    Ok(ProviderRecord::new(from, Value::Object(message), None))
}

/// A JSON-RPC error object: an integer `code`, a string `message`, at most `data` more.
fn is_error(params: &Value) -> bool {
    params.as_object().is_some_and(|o| {
        o.get("code").is_some_and(Value::is_i64)
            && o.get("message").is_some_and(Value::is_string)
            && o.keys()
                .all(|k| matches!(k.as_str(), "code" | "message" | "data"))
    })
}
