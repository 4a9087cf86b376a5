//! `replay --format mermaid`: a flowchart of sessions and turns.

use std::fmt::Write;

use super::{children_of, orphaned_children};
use crate::tree::{Session, SessionKind, Snapshot};

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
    let mut ids = Ids::default();
    for root in snapshot.roots() {
        session(snapshot, root, &mut ids, &mut out);
    }
    out
}

/// Node ids are positional (`s0`, `s0t1`, …) so that arbitrary session ids never break
/// Mermaid syntax; labels carry the real ids, quoted.
#[derive(Default)]
struct Ids {
    next: usize,
}

fn label(text: &str) -> String {
    text.replace('"', "#quot;")
}

fn session(snapshot: &Snapshot, s: &Session, ids: &mut Ids, out: &mut String) -> String {
    let node = format!("s{}", ids.next);
    ids.next += 1;
    let kind = match s.kind {
        SessionKind::Root => "root",
        SessionKind::Child => "child",
    };
    let mut text = format!("{} · {kind}", s.id);
    if let Some(title) = &s.title {
        let _ = write!(text, "<br/>{title}");
    }
    if s.deleted {
        text.push_str("<br/>deleted");
    }
    let _ = writeln!(out, "  {node}[\"{}\"]", label(&text));
    for t in &s.turns {
        let tnode = format!("{node}t{}", t.id.ordinal());
        let mut text = format!("{} · {}", t.id, t.phase);
        if let Some(o) = t.outcome {
            let _ = write!(text, " · {o}");
        }
        let _ = writeln!(out, "  {tnode}([\"{}\"])", label(&text));
        let _ = writeln!(out, "  {node} --> {tnode}");
        for c in children_of(snapshot, s, t) {
            let cnode = session(snapshot, c, ids, out);
            match c.relation.as_ref().and_then(|r| r.tool_call.as_ref()) {
                Some(call) => {
                    let _ = writeln!(out, "  {tnode} -->|\"{}\"| {cnode}", label(call.as_str()));
                }
                None => {
                    let _ = writeln!(out, "  {tnode} --> {cnode}");
                }
            }
        }
    }
    for c in orphaned_children(snapshot, s) {
        let cnode = session(snapshot, c, ids, out);
        let _ = writeln!(out, "  {node} --> {cnode}");
    }
    node
}
