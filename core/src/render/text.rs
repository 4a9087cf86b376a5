//! `replay --format tree`: a unicode tree of sessions, turns, children and interactions.
//!
//! Owns: the layout of the tree (branches, indentation, one line per entity). Never:
//! recurses on the depth of the session tree; the walk keeps an explicit stack.

use std::fmt::Write;

use super::Children;
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
    // Children whose root is unknown cannot exist (a child needs a live parent), so the
    // roots reach every session.
    let mut stack: Vec<Step<'_>> = snapshot
        .roots()
        .into_iter()
        .rev()
        .map(|s| Step::Session {
            s,
            indent: Indent::default(),
            branch: None,
        })
        .collect();
    while let Some(step) = stack.pop() {
        match step {
            Step::Session { s, indent, branch } => {
                session(snapshot, s, &indent, branch, &mut out, &mut stack);
            }
            Step::Turn {
                t,
                children,
                indent,
                last,
            } => turn(snapshot, t, children, &indent, last, &mut out, &mut stack),
            Step::Text(text) => out.push_str(&text),
        }
    }
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

/// Tree levels drawn as indentation; deeper lines keep this indentation and show their
/// level instead (`[level 45] `), so the output of a chain N deep grows as N, not N².
const DRAWN_LEVELS: usize = 32;

/// The drawing to the left of a line: the guides of the levels above it (at most
/// [`DRAWN_LEVELS`] of them) and its level.
#[derive(Clone, Default)]
struct Indent {
    guides: String,
    level: usize,
}

impl Indent {
    /// One level deeper, drawn with `piece` (`"   "` or `"│  "`) while levels are drawn.
    fn nest(&self, piece: &str) -> Indent {
        let mut guides = self.guides.clone();
        if self.level < DRAWN_LEVELS {
            guides.push_str(piece);
        }
        Indent {
            guides,
            level: self.level + 1,
        }
    }
}

impl std::fmt::Display for Indent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.guides)?;
        if self.level > DRAWN_LEVELS {
            write!(f, "[level {}] ", self.level)?;
        }
        Ok(())
    }
}

/// What is left to write, innermost last: the walk keeps its own stack, so the depth of
/// the tree never reaches the call stack.
enum Step<'a> {
    /// A session line (with `branch` drawn before it), then its turns and orphans.
    Session {
        s: &'a Session,
        indent: Indent,
        branch: Option<bool>,
    },
    /// A turn line, then its children (in spawn order) and interactions.
    Turn {
        t: &'a Turn,
        children: Vec<&'a Session>,
        indent: Indent,
        last: bool,
    },
    /// Lines already laid out (a turn's interactions, written after its children).
    Text(String),
}

/// Writes `s` as a line (with `branch` drawn before it) and schedules its turns, then
/// its orphaned children, below it.
fn session<'a>(
    snapshot: &'a Snapshot,
    s: &'a Session,
    indent: &Indent,
    branch: Option<bool>,
    out: &mut String,
    stack: &mut Vec<Step<'a>>,
) {
    let (lead, child_indent) = match branch {
        None => (String::new(), indent.clone()),
        Some(last) => (
            format!("{indent}{}", if last { "└─ " } else { "├─ " }),
            indent.nest(if last { "   " } else { "│  " }),
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
        let _ = write!(out, " · {}", super::quoted(title));
    }
    if s.deleted {
        out.push_str(" · deleted");
    }
    out.push('\n');
    let Children { by_turn, orphans } = Children::of(snapshot, s);
    let count = s.turns.len() + orphans.len();
    for (i, c) in orphans.into_iter().enumerate().rev() {
        stack.push(Step::Session {
            s: c,
            indent: child_indent.clone(),
            branch: Some(s.turns.len() + i + 1 == count),
        });
    }
    for ((i, t), children) in s.turns.iter().enumerate().zip(by_turn).rev() {
        stack.push(Step::Turn {
            t,
            children,
            indent: child_indent.clone(),
            last: i + 1 == count,
        });
    }
}

/// Writes the turn's line and schedules its children, then its interactions, below it.
fn turn<'a>(
    snapshot: &'a Snapshot,
    t: &'a Turn,
    children: Vec<&'a Session>,
    indent: &Indent,
    last: bool,
    out: &mut String,
    stack: &mut Vec<Step<'a>>,
) {
    turn_line(t, indent, last, out);
    let below = indent.nest(if last { "   " } else { "│  " });
    let mut interactions: Vec<_> = snapshot.interactions_of(&t.id).collect();
    interactions.sort_by_key(|x| x.seq);
    let count = children.len() + interactions.len();
    let mut text = String::new();
    for (i, x) in interactions.into_iter().enumerate() {
        let kind = match x.kind {
            crate::tree::InteractionKind::Approval => "approval",
            crate::tree::InteractionKind::Question => "question",
        };
        let _ = writeln!(
            text,
            "{below}{}? {kind} {} · {}",
            if children.len() + i + 1 == count {
                "└─ "
            } else {
                "├─ "
            },
            x.request,
            x.status
        );
    }
    if !text.is_empty() {
        stack.push(Step::Text(text));
    }
    for (i, c) in children.into_iter().enumerate().rev() {
        stack.push(Step::Session {
            s: c,
            indent: below.clone(),
            branch: Some(i + 1 == count),
        });
    }
}

/// The turn's own line: phase, outcome, provider, waiting children, cancel, notes.
fn turn_line(t: &Turn, indent: &Indent, last: bool, out: &mut String) {
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
}
