//! What a lane shows on click, read from the end state: labels, the last messages, tool
//! calls, ACP capabilities and state. Every text is cut to a bounded length.

use crate::engine::{Replay, State};
use crate::tree::Session;
use crate::{SessionId, acp};

/// Characters kept of one detail text.
const MAX_TEXT: usize = 400;
/// Messages and tool calls listed per session (the last ones).
const MAX_ITEMS: usize = 8;

/// A lane's text fields.
pub(super) type Described = (
    Option<String>,
    Option<String>,
    Option<String>,
    Vec<(String, String)>,
);

/// `(parent, parent turn, label, details)` of session `id` in `end`.
pub(super) fn describe(end: &Replay, id: &str) -> Described {
    match &end.state {
        State::Tree(snapshot) => snapshot
            .session(&SessionId::from(id))
            .map(tree_session)
            .unwrap_or_default(),
        State::Acp(view) => view
            .session(id)
            .map(|s| acp_session(view, s))
            .unwrap_or_default(),
    }
}

fn tree_session(s: &Session) -> Described {
    let mut details = vec![("kind".into(), name(&s.kind))];
    if let Some(r) = &s.relation {
        if let Some(call) = &r.tool_call {
            details.push(("spawned by".into(), call.to_string()));
        }
        details.push(("root turn".into(), r.root_turn.to_string()));
    }
    details.push(("turns".into(), s.turns.len().to_string()));
    let skip = s.messages.len().saturating_sub(MAX_ITEMS);
    for m in s.messages.iter().skip(skip) {
        details.push((
            format!("{} (turn {})", name(&m.role), m.turn),
            cut(&m.text.to_text()),
        ));
    }
    let calls = s.tool_calls.values();
    let skip = s.tool_calls.len().saturating_sub(MAX_ITEMS);
    for c in calls.skip(skip) {
        let what = c.title.as_deref().or(c.name.as_deref()).unwrap_or("");
        details.push((
            format!("tool {}", c.id),
            cut(&format!("{} · {what}", name(&c.status))),
        ));
    }
    (
        s.relation.as_ref().map(|r| r.parent_session.to_string()),
        s.relation.as_ref().map(|r| r.parent_turn.to_string()),
        s.title.as_deref().map(cut),
        details,
    )
}

fn acp_session(view: &acp::view::View, s: &acp::view::Session) -> Described {
    let mut details = vec![
        ("activity".into(), acp::activity(view, s)),
        (
            "effective cancel".into(),
            view.effective_cancel(&s.id).to_string(),
        ),
        ("idle transitions".into(), s.idle_transitions.to_string()),
    ];
    if let Some(d) = &s.description {
        details.push(("description".into(), cut(d)));
    }
    if let Some(c) = &s.capabilities {
        details.push(("capabilities".into(), cut(&c.to_string())));
    }
    if let Some(state) = &s.state {
        details.push(("state".into(), cut(&state.to_string())));
    }
    let skip = s.detail().messages.len().saturating_sub(MAX_ITEMS);
    for m in s.detail().messages.iter().skip(skip) {
        let way = match (&m.sender, &m.recipient) {
            (Some(from), _) if *from != s.id => format!("from {from}"),
            (_, Some(to)) if *to != s.id => format!("to {to}"),
            _ => "message".into(),
        };
        let text: Vec<String> = m.content.iter().map(|c| c.to_string()).collect();
        details.push((format!("{way} ({})", m.id), cut(&text.join(" "))));
    }
    for (id, call) in s.detail().tool_calls.iter().take(MAX_ITEMS) {
        details.push((format!("tool {id}"), call.status.to_string()));
    }
    (
        s.parent.as_deref().map(String::from),
        None,
        s.title.as_deref().map(cut),
        details,
    )
}

/// `text` cut to [`MAX_TEXT`] characters (with `…` when cut).
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => format!("{}…", text.get(..i).unwrap_or_default()),
        None => text.to_owned(),
    }
}

/// The serialized (snake_case) name of a unit enum value.
fn name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}
