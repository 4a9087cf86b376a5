//! Views of an `acp` replay: the docs/contract.md JSON contract, a unicode tree, a Mermaid
//! flowchart; and `lineage check --format json` for files of every format.
//!
//! Owns: presentation only. Every state, grant and participant shown is read from the
//! [`View`]; nothing is re-derived here. Never: recurses on the depth of the session
//! tree (walks keep an explicit stack) or writes trace text into a Mermaid chart
//! unescaped (labels go through [`super::escape`]).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::escape;
use crate::acp::activity;
use crate::acp::view::json::{MessageJson, kind, message, sorted};
use crate::acp::view::{Entry, Session, View};
use crate::finding::{Finding, Revision, Shapes};
use crate::trace::Format;

// The JSON is written from these structs (fixed field order) and raw payloads are
// re-keyed in sorted order, so the bytes do not depend on serde_json's `preserve_order`
// feature, which other crates of a build may switch on.

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ViewJson<'a> {
    /// The document's version.
    v: u32,
    format: &'static str,
    connection: &'static str,
    version: Option<u64>,
    /// The RFD revision the view follows (`--spec`).
    spec: &'static str,
    /// The revision whose shapes the stream follows.
    shapes: &'static str,
    sessions: Vec<SessionJson<'a>>,
    pending_requests: Vec<PendingJson<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    answered_requests: Vec<AnsweredJson<'a>>,
    diagnostics: Vec<FindingJson<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionJson<'a> {
    id: &'a str,
    kind: &'static str,
    parent: Option<&'a str>,
    title: Option<&'a str>,
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_directories: Option<Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Value>,
    conversation_title: Option<&'a str>,
    state: Value,
    state_current: bool,
    activity: String,
    capabilities: Value,
    effective_cancel: bool,
    announced: bool,
    idle_transitions: u64,
    usage: Value,
    messages: Vec<MessageJson<'a>>,
    tool_calls: Vec<ToolCallJson<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    transcript: Vec<EntryJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<Value>,
}

/// One entry of a session's ordinary transcript: `{"type":"agent_message"|
/// "user_message"|"agent_thought","messageId"?,"content":[…]}` (adjacent text blocks
/// joined) or `{"type":"tool_call","toolCallId","title"?,"toolKind"?,"status"}` (the
/// call's current title and status).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Vec<Value>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnsweredJson<'a> {
    line: usize,
    answered_at: usize,
    id: String,
    method: &'a str,
    session: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallJson<'a> {
    tool_call_id: &'a str,
    status: &'a str,
    locally_cancelled: bool,
}

#[derive(Serialize)]
struct PendingJson<'a> {
    line: usize,
    from: &'static str,
    id: String,
    method: &'a str,
    session: Option<&'a str>,
}

/// A finding as in the JSON contracts: `{"rule","severity","line","message"}`.
#[derive(Serialize)]
struct FindingJson<'a> {
    rule: &'static str,
    severity: String,
    line: usize,
    message: &'a str,
}

impl<'a> From<&'a Finding> for FindingJson<'a> {
    fn from(f: &'a Finding) -> Self {
        Self {
            rule: f.rule.as_str(),
            severity: f.severity.to_string(),
            line: f.line,
            message: &f.message,
        }
    }
}

fn view_json<'a>(view: &'a View, findings: &'a [Finding]) -> ViewJson<'a> {
    ViewJson {
        v: crate::render::changes::VERSION,
        format: "acp",
        connection: if view.connected() {
            "connected"
        } else {
            "disconnected"
        },
        version: view.version(),
        spec: view.spec().as_str(),
        shapes: view.shapes().as_str(),
        sessions: view.sessions().map(|s| session(view, s)).collect(),
        pending_requests: view
            .pending_requests()
            .map(|p| PendingJson {
                line: p.line,
                from: p.from.as_str(),
                id: p.id.to_string(),
                method: &p.method,
                session: p.session.as_deref(),
            })
            .collect(),
        answered_requests: view
            .answered()
            .map(|a| AnsweredJson {
                line: a.request.line,
                answered_at: a.line,
                id: a.request.id.to_string(),
                method: &a.request.method,
                session: a.request.session.as_deref(),
                result: a.outcome.as_ref().ok().map(sorted),
                error: a.outcome.as_ref().err().map(sorted),
            })
            .collect(),
        diagnostics: findings.iter().map(FindingJson::from).collect(),
    }
}

/// The replay as the docs/contract.md JSON object: `format`, `connection`, `sessions` (the
/// Client's view), plus `version`, `pendingRequests` and `diagnostics`.
pub(crate) fn json(view: &View, findings: &[Finding]) -> Value {
    crate::trace::borrowed::to_value(&view_json(view, findings)).unwrap_or_default()
}

/// [`json`] as text (pretty when asked), with a fixed key order.
pub(crate) fn json_string(view: &View, findings: &[Finding], pretty: bool) -> String {
    let value = view_json(view, findings);
    let text = if pretty {
        serde_json::to_string_pretty(&value)
    } else {
        serde_json::to_string(&value)
    };
    text.unwrap_or_default()
}

/// One checked file of `lineage check`.
#[derive(Debug, Clone, Copy)]
pub struct CheckedFile<'a> {
    /// The path as given or walked.
    pub path: &'a str,
    /// The trace's format (`None` when the file could not be read or told).
    pub format: Option<Format>,
    /// Its findings, in line order.
    pub findings: &'a [Finding],
    /// Why the file could not be checked.
    pub error: Option<&'a str>,
    /// `acp` traces: the RFD revision checked against and the one whose shapes the
    /// stream follows (both omitted from the JSON when `None`).
    pub revision: Option<(Revision, Shapes)>,
}

#[derive(Serialize)]
struct CheckJson<'a> {
    files: Vec<FileJson<'a>>,
    summary: SummaryJson,
}

#[derive(Serialize)]
struct FileJson<'a> {
    path: &'a str,
    format: Option<&'static str>,
    findings: Vec<FindingJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    spec: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shapes: Option<&'static str>,
}

#[derive(Serialize)]
struct SummaryJson {
    files: usize,
    errors: usize,
    warnings: usize,
    /// Files that could not be checked (omitted when none).
    #[serde(skip_serializing_if = "is_zero")]
    unreadable: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `lineage check --format json` (docs/contract.md): `{"files":[{"path","format","findings":
/// [{"rule","severity","line","message"}]}],"summary":{"files","errors","warnings"}}`.
///
/// ```
/// use lineage_core::render::{check_json_string, CheckedFile};
/// let file = CheckedFile { path: "t.jsonl", format: Some(lineage_core::trace::Format::Acp), findings: &[], error: None, revision: None };
/// let text = check_json_string(&[file], false);
/// assert!(text.starts_with(r#"{"files":[{"path":"t.jsonl","format":"acp","findings":[]}]"#));
/// ```
pub fn check_json_string(files: &[CheckedFile<'_>], pretty: bool) -> String {
    let all = || files.iter().flat_map(|f| f.findings.iter());
    let count = |s| all().filter(|f| f.severity == s).count();
    let report = CheckJson {
        files: files
            .iter()
            .map(|f| FileJson {
                path: f.path,
                format: f.format.map(Format::as_str),
                findings: f.findings.iter().map(FindingJson::from).collect(),
                error: f.error,
                spec: f.revision.map(|(r, _)| r.as_str()),
                shapes: f.revision.map(|(_, s)| s.as_str()),
            })
            .collect(),
        summary: SummaryJson {
            files: files.len(),
            errors: count(crate::tree::Severity::Error),
            warnings: count(crate::tree::Severity::Warning),
            unreadable: files.iter().filter(|f| f.error.is_some()).count(),
        },
    };
    if pretty {
        serde_json::to_string_pretty(&report).unwrap_or_default()
    } else {
        serde_json::to_string(&report).unwrap_or_default()
    }
}

fn session<'a>(view: &View, s: &'a Session) -> SessionJson<'a> {
    SessionJson {
        id: &s.id,
        kind: kind(view, s),
        parent: s.parent.as_deref(),
        title: s.title.as_deref(),
        description: s.description.as_deref(),
        cwd: s.detail().cwd.as_deref(),
        additional_directories: s.detail().additional_directories.as_deref().map(sorted),
        meta: s.detail().meta.as_deref().map(sorted),
        conversation_title: s.detail().conversation_title.as_deref(),
        state: s.state.as_deref().map(sorted).unwrap_or(Value::Null),
        state_current: view.state_is_current(&s.id),
        activity: activity(view, s),
        capabilities: s.capabilities.as_deref().map(sorted).unwrap_or(Value::Null),
        effective_cancel: view.effective_cancel(&s.id),
        announced: view.announced(&s.id),
        idle_transitions: s.idle_transitions,
        usage: s
            .detail()
            .usage
            .as_deref()
            .map(sorted)
            .unwrap_or(Value::Null),
        messages: s.detail().messages.iter().map(|m| message(s, m)).collect(),
        tool_calls: s
            .detail()
            .tool_calls
            .iter()
            .map(|(id, t)| ToolCallJson {
                tool_call_id: id,
                status: &t.status,
                locally_cancelled: t.locally_cancelled,
            })
            .collect(),
        transcript: s.detail().transcript.iter().map(|e| entry(s, e)).collect(),
        plan: s.detail().plan.as_deref().map(sorted),
    }
}

fn entry<'a>(s: &'a Session, e: &'a Entry) -> EntryJson<'a> {
    match e {
        Entry::Text {
            kind,
            message_id,
            content,
        } => {
            let mut blocks: Vec<Value> = Vec::new();
            for block in content.iter().map(sorted) {
                let joined = match (blocks.last_mut(), block.get("text")) {
                    (Some(last), Some(Value::String(more)))
                        if block.get("type") == Some(&"text".into())
                            && block.as_object().is_some_and(|o| o.len() == 2)
                            && last.get("type") == Some(&"text".into())
                            && last.as_object().is_some_and(|o| o.len() == 2) =>
                    {
                        match last.get_mut("text") {
                            Some(Value::String(text)) => {
                                text.push_str(more);
                                true
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !joined {
                    blocks.push(block);
                }
            }
            EntryJson {
                kind,
                message_id: message_id.as_deref(),
                tool_call_id: None,
                title: None,
                tool_kind: None,
                status: None,
                content: Some(blocks),
            }
        }
        Entry::ToolCall(id) => {
            let call = s.detail().tool_calls.get(id);
            EntryJson {
                kind: "tool_call",
                message_id: None,
                tool_call_id: Some(id),
                title: call.and_then(|c| c.title.as_deref()),
                tool_kind: call.and_then(|c| c.kind.as_deref()),
                status: call.map(|c| &*c.status),
                content: None,
            }
        }
    }
}

/// A readable unicode tree: roots, their children (nested), each with its label, current
/// activity, cancel control and transcript size; then the findings.
pub(crate) fn tree(view: &View, findings: &[Finding]) -> String {
    let mut out = String::new();
    let version = view
        .version()
        .map_or_else(|| "unknown".into(), |v| format!("v{v}"));
    let _ = writeln!(
        out,
        "connection: {} · protocol {version}",
        if view.connected() {
            "connected"
        } else {
            "disconnected"
        }
    );
    // The walk keeps its own stack of (session, indent, is it the last child), so the
    // depth of the tree never reaches the call stack. Roots come out in order, each
    // followed by its subtree.
    let mut stack: Vec<(&Session, String, Option<bool>)> = view
        .sessions()
        .filter(|s| s.parent.is_none())
        .rev()
        .map(|root| (root, String::new(), None))
        .collect();
    while let Some((s, indent, last)) = stack.pop() {
        let (branch, below) = match last {
            None => ("", indent.clone()),
            Some(true) => ("└─ ", format!("{indent}   ")),
            Some(false) => ("├─ ", format!("{indent}│  ")),
        };
        line(&mut out, view, s, &indent, branch);
        let kids: Vec<&Session> = s.children.iter().filter_map(|c| view.session(c)).collect();
        let count = kids.len();
        for (i, child) in kids.into_iter().enumerate().rev() {
            stack.push((child, below.clone(), Some(i + 1 == count)));
        }
    }
    if !findings.is_empty() {
        out.push('\n');
        for f in findings {
            let _ = writeln!(
                out,
                "line {}: {}[{}]: {}",
                f.line, f.severity, f.rule, f.message
            );
        }
    }
    out
}

fn line(out: &mut String, view: &View, s: &Session, indent: &str, branch: &str) {
    let _ = write!(out, "{indent}{branch}{}", s.id);
    if s.parent.is_none() {
        out.push_str(if view.is_unknown(&s.id) {
            " · unknown session"
        } else {
            " · root"
        });
    }
    if let Some(title) = &s.title {
        let _ = write!(out, " · {}", super::quoted(title));
    }
    if s.parent.is_some() || s.state.is_some() || !view.connected() {
        let _ = write!(out, " · {}", activity(view, s));
    }
    if s.parent.is_some() {
        out.push_str(if view.effective_cancel(&s.id) {
            " · cancel allowed"
        } else {
            " · no cancel"
        });
    }
    if !s.detail().messages.is_empty() {
        let _ = write!(out, " · {} message(s)", s.detail().messages.len());
    }
    out.push('\n');
}

/// A Mermaid flowchart: ownership edges, and dotted edges for session-directed messages
/// whose sender and recipient are both known.
pub(crate) fn mermaid(view: &View) -> String {
    let mut out = String::from("flowchart TD\n");
    let sessions: Vec<&Session> = view.sessions().collect();
    let index: std::collections::BTreeMap<&str, usize> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (&*s.id, i))
        .collect();
    let node = |id: &str| index.get(id).map(|i| format!("s{i}"));
    for (i, s) in sessions.iter().enumerate() {
        let label = escape(s.title.as_deref().unwrap_or(&s.id));
        let activity = activity(view, s);
        let _ = writeln!(out, "    s{i}[\"{label}<br/>{}\"]", escape(&activity));
    }
    for (i, s) in sessions.iter().enumerate() {
        if let Some(p) = s.parent.as_deref().and_then(node) {
            let _ = writeln!(out, "    {p} --> s{i}");
        }
    }
    for s in &sessions {
        for m in s.detail().messages.iter() {
            if let (Some(from), Some(to)) = (
                m.sender.as_deref().and_then(node),
                m.recipient.as_deref().and_then(node),
            ) {
                let _ = writeln!(out, "    {from} -. \"{}\" .-> {to}", escape(&m.id));
            }
        }
    }
    out
}
