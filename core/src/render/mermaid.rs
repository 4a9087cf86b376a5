//! `replay --format mermaid`: a flowchart of sessions and turns.
//!
//! Owns: the chart's syntax, its node ids and [`escape`], the one way any text from a
//! trace enters a Mermaid label. Never: writes trace text into the chart unescaped, uses
//! it as a node id, or recurses on the depth of the session tree (the walk keeps an
//! explicit stack).

use std::borrow::Cow;
use std::fmt::Write;

use super::Children;
use crate::ids::CallId;
use crate::tree::{Session, SessionKind, Snapshot, Turn};

/// The replay's tree as a Mermaid `flowchart TD`.
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     r#"{"event":{"type":"root_session_created","session":"R"}}"#,
///     &replay::Options::default(),
/// ).unwrap();
/// assert!(render::mermaid(&r).starts_with("flowchart TD\n"));
/// ```
pub(crate) fn mermaid(snapshot: &Snapshot) -> String {
    let mut out = String::from("flowchart TD\n");
    // Node ids are positional (`s0`, `s0t1`, …, numbered in visiting order) so that
    // arbitrary session ids never break Mermaid syntax; labels carry the real ids.
    let mut next = 0usize;
    let mut stack: Vec<Step<'_>> = snapshot
        .roots()
        .into_iter()
        .rev()
        .map(|s| Step::Session { s, parent: None })
        .collect();
    while let Some(step) = stack.pop() {
        match step {
            Step::Session { s, parent } => {
                let node = format!("s{next}");
                next += 1;
                session(snapshot, s, node, parent, &mut out, &mut stack);
            }
            Step::Turn { t, children, node } => turn(t, children, &node, &mut out, &mut stack),
            Step::Edge { from, to, call } => match call {
                Some(call) => {
                    let _ = writeln!(out, "  {from} -->|\"{}\"| {to}", escape(call.as_str()));
                }
                None => {
                    let _ = writeln!(out, "  {from} --> {to}");
                }
            },
        }
    }
    out
}

/// What is left to write, innermost last.
enum Step<'a> {
    /// A session's node, its turns and orphans, then the edge from `parent` into it.
    Session {
        s: &'a Session,
        parent: Option<Parent<'a>>,
    },
    /// A turn's node (`node` is its session's), its edge, then its children (in spawn
    /// order).
    Turn {
        t: &'a Turn,
        children: Vec<&'a Session>,
        node: String,
    },
    /// An edge, written once the subtree it leads to is.
    Edge {
        from: String,
        to: String,
        call: Option<&'a CallId>,
    },
}

/// Where a session hangs: the node it is drawn from and the delegating call, if shown.
struct Parent<'a> {
    node: String,
    call: Option<&'a CallId>,
}

/// Writes the session's node and schedules its turns, its orphaned children, and last
/// the edge from its parent.
fn session<'a>(
    snapshot: &'a Snapshot,
    s: &'a Session,
    node: String,
    parent: Option<Parent<'a>>,
    out: &mut String,
    stack: &mut Vec<Step<'a>>,
) {
    let kind = match s.kind {
        SessionKind::Root => "root",
        SessionKind::Child => "child",
    };
    let _ = write!(out, "  {node}[\"{} · {kind}", escape(s.id.as_str()));
    if let Some(title) = &s.title {
        let _ = write!(out, "<br/>{}", escape(title));
    }
    if s.deleted {
        out.push_str("<br/>deleted");
    }
    out.push_str("\"]\n");
    if let Some(p) = parent {
        stack.push(Step::Edge {
            from: p.node,
            to: node.clone(),
            call: p.call,
        });
    }
    let Children { by_turn, orphans } = Children::of(snapshot, s);
    for c in orphans.into_iter().rev() {
        let parent = Parent {
            node: node.clone(),
            call: None,
        };
        stack.push(Step::Session {
            s: c,
            parent: Some(parent),
        });
    }
    for (t, children) in s.turns.iter().zip(by_turn).rev() {
        let node = node.clone();
        stack.push(Step::Turn { t, children, node });
    }
}

/// Writes the turn's node and its edge, and schedules its children.
fn turn<'a>(
    t: &'a Turn,
    children: Vec<&'a Session>,
    node: &str,
    out: &mut String,
    stack: &mut Vec<Step<'a>>,
) {
    let tnode = format!("{node}t{}", t.id.ordinal());
    let _ = write!(
        out,
        "  {tnode}([\"{}#{} · {}",
        escape(t.id.session().as_str()),
        t.id.ordinal(),
        t.phase
    );
    if let Some(o) = t.outcome {
        let _ = write!(out, " · {o}");
    }
    let _ = writeln!(out, "\"])\n  {node} --> {tnode}");
    for c in children.into_iter().rev() {
        let call = c.relation.as_ref().and_then(|r| r.tool_call.as_ref());
        let parent = Parent {
            node: tnode.clone(),
            call,
        };
        stack.push(Step::Session {
            s: c,
            parent: Some(parent),
        });
    }
}

/// `text` as it may stand inside a quoted Mermaid label: every character Mermaid reads
/// as markup or syntax is written as its entity code (`#quot;`, `#lt;`, `#35;`, …), so
/// the label shows exactly `text` and cannot end the label, the line or the chart.
///
/// `"` ends the label and `` ` `` opens a Markdown string; `<`, `>` and `&` are HTML in a
/// label; `#` starts an entity code; `|` ends an edge label; `%` starts a comment or a
/// directive, which Mermaid looks for before parsing; a line break or any other control
/// character would end the statement.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            c if needs_escape(c) => {
                let _ = write!(out, "#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '"' | '&' | '<' | '>' | '#' | '`' | '|' | '%' | '\u{2028}' | '\u{2029}'
    ) || c.is_control()
}
