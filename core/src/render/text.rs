//! `replay --format tree`: a unicode tree of sessions, turns, children and interactions.

use std::fmt::Write;

use super::{children_of, orphaned_children};
use crate::finding::Finding;
use crate::tree::{Phase, ProviderPhase, Session, SessionKind, Snapshot, Turn};

/// The replay as a readable tree, followed by its findings.
///
/// ```
/// use lineage_core::{render, replay};
/// let r = replay::replay(
///     "{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\"}}\n\
///      {\"event\":{\"type\":\"user_submitted\",\"session\":\"R\"}}",
///     &replay::Options::default(),
/// ).unwrap();
/// assert_eq!(render::tree(&r), "R · root\n└─ R#1 · submitted\n");
/// ```
pub(crate) fn tree(snapshot: &Snapshot, findings: &[Finding]) -> String {
    let mut out = String::new();
    for root in snapshot.roots() {
        session(snapshot, root, "", None, &mut out);
    }
    // Children whose root is unknown cannot exist (a child needs a live parent), so the
    // roots reach every session.
    if !findings.is_empty() {
        out.push_str("\nfindings:\n");
        for f in findings {
            let _ = writeln!(
                out,
                "  line {}: {}[{}]: {}",
                f.line, f.severity, f.rule, f.message
            );
        }
    }
    out
}

/// Writes `s` as a line (with `branch` drawn before it) and its turns below.
fn session(snapshot: &Snapshot, s: &Session, indent: &str, branch: Option<bool>, out: &mut String) {
    let (lead, child_indent) = match branch {
        None => (String::new(), indent.to_owned()),
        Some(last) => (
            format!("{indent}{}", if last { "└─ " } else { "├─ " }),
            format!("{indent}{}", if last { "   " } else { "│  " }),
        ),
    };
    let _ = write!(
        out,
        "{lead}{} · {}",
        s.id,
        match s.kind {
            SessionKind::Root => "root",
            SessionKind::Child => "child",
        }
    );
    if let Some(call) = s.relation.as_ref().and_then(|r| r.tool_call.as_ref()) {
        let _ = write!(out, " via {call}");
    }
    if let Some(title) = &s.title {
        let _ = write!(out, " · {title:?}");
    }
    if s.deleted {
        out.push_str(" · deleted");
    }
    out.push('\n');
    let orphans = orphaned_children(snapshot, s);
    let count = s.turns.len() + orphans.len();
    for (i, t) in s.turns.iter().enumerate() {
        turn(snapshot, s, t, &child_indent, i + 1 == count, out);
    }
    for (i, c) in orphans.iter().enumerate() {
        session(
            snapshot,
            c,
            &child_indent,
            Some(s.turns.len() + i + 1 == count),
            out,
        );
    }
}

fn turn(
    snapshot: &Snapshot,
    owner: &Session,
    t: &Turn,
    indent: &str,
    last: bool,
    out: &mut String,
) {
    let _ = write!(
        out,
        "{indent}{}{} · {}",
        if last { "└─ " } else { "├─ " },
        t.id,
        t.phase
    );
    if let Some(outcome) = t.outcome {
        let _ = write!(out, " · {outcome}");
    }
    if let Some(gate) = &t.gate {
        match gate.provider.phase {
            ProviderPhase::Idle => {}
            ProviderPhase::Running => out.push_str(" · provider running"),
            ProviderPhase::Completed => {
                if let Some(o) = gate.provider.outcome {
                    let _ = write!(out, " · provider {o}");
                }
            }
        }
        if gate.provider.turns > 1 {
            let _ = write!(out, " ({} provider turns)", gate.provider.turns);
        }
        if t.phase != Phase::Settled && !gate.active_descendants.is_empty() {
            let _ = write!(
                out,
                " · {} active child turn(s)",
                gate.active_descendants.len()
            );
        }
    }
    if let Some(mark) = t.cancel.as_ref().filter(|_| t.is_active()) {
        let _ = write!(
            out,
            " · cancel {}{}",
            mark.operation,
            if mark.acknowledged {
                " acknowledged"
            } else {
                ""
            }
        );
    }
    if let Some(late) = t.late_terminal {
        let _ = write!(out, " · late {late} ignored");
    }
    if t.guidance > 0 {
        let _ = write!(out, " · +{} guidance", t.guidance);
    }
    out.push('\n');
    let below = format!("{indent}{}", if last { "   " } else { "│  " });
    let children = children_of(snapshot, owner, t);
    let interactions: Vec<_> = snapshot.interactions_of(&t.id).collect();
    let count = children.len() + interactions.len();
    let mut i = 0;
    for c in children {
        i += 1;
        session(snapshot, c, &below, Some(i == count), out);
    }
    let mut interactions = interactions;
    interactions.sort_by_key(|x| x.seq);
    for x in interactions {
        i += 1;
        let kind = match x.kind {
            crate::tree::InteractionKind::Approval => "approval",
            crate::tree::InteractionKind::Question => "question",
        };
        let _ = writeln!(
            out,
            "{below}{}? {kind} {} · {}",
            if i == count { "└─ " } else { "├─ " },
            x.request,
            x.status
        );
    }
}
