//! The session tree of one frame as the rows the tree pane shows.
//!
//! Owns: the layout (one row per session with its current turn, a row per earlier turn
//! that spawned children, a row per interaction under its turn; children under the turn
//! that spawned them), folds, and the words and marks each row carries. Every phase,
//! outcome and status is read from the snapshot or view as it stands, never re-derived.
//! Never: styles (the parts carry a [`Tone`], the renderer picks colours) or recurses
//! on the tree's depth (the walk keeps an explicit stack).

use std::collections::{BTreeMap, BTreeSet};

use lineage_core::acp::Side;
use lineage_core::acp::view::{Session as AcpSession, View};
use lineage_core::render::Children;
use lineage_core::tree::{Interaction, InteractionKind, ProviderPhase};
use lineage_core::{Millis, Outcome, Phase, Session, SessionKind, Snapshot, Turn};

use super::history::Shown;

/// What a piece of a row is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Tree guides and separators.
    Guide,
    /// An id.
    Id,
    /// A title or a label.
    Title,
    /// Work in progress (running, submitted, settling).
    Active,
    /// Blocked: a root waiting for children, a session waiting on an interaction.
    Waiting,
    /// Settled completed.
    Done,
    /// Settled failed or interrupted.
    Bad,
    /// Canceled, or a cancel in flight.
    Cancel,
    /// A pending interaction: needs someone.
    Pending,
    /// Past, closed, less important.
    Dim,
}

/// A piece of text with its tone.
pub(crate) type Part = (String, Tone);

/// What a row stands for (selection and folds follow it across updates).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Key {
    Session(String),
    Turn(String),
    Interaction(String, String),
}

/// One line of the tree pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub key: Key,
    /// The tree guides before it.
    pub indent: String,
    /// `Some(folded)` for a session with something to fold.
    pub fold: Option<bool>,
    pub parts: Vec<Part>,
    /// The text searched by `/` (ids and title).
    pub haystack: String,
}

/// How time is shown: the trace's clock at this frame (ages are measured to it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Clock {
    pub now: Option<Millis>,
    /// The spinner's step.
    pub spin: usize,
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// What the layout reads besides the state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'a> {
    /// The folded sessions' ids.
    pub folded: &'a BTreeSet<String>,
    pub clock: Clock,
    /// When each interaction (turn id, request) was last seen becoming pending.
    pub pending_since: &'a BTreeMap<(String, String), Millis>,
}

/// The rows of `state`.
pub(crate) fn rows(state: &Shown, layout: &Layout<'_>) -> Vec<Row> {
    match state {
        Shown::Empty => Vec::new(),
        Shown::Tree(snapshot) => tree_rows(snapshot, layout),
        Shown::Acp(view) => acp_rows(view, layout),
    }
}

/// What is left to lay out, innermost last.
enum Step<'a> {
    Session {
        s: &'a Session,
        indent: String,
        branch: Option<bool>,
    },
    Turn {
        t: &'a Turn,
        /// The sessions it spawned.
        children: Vec<&'a Session>,
        indent: String,
        last: bool,
    },
    Interaction {
        x: &'a Interaction,
        indent: String,
        last: bool,
    },
}

fn tree_rows(snapshot: &Snapshot, layout: &Layout<'_>) -> Vec<Row> {
    let clock = layout.clock;
    let mut out = Vec::new();
    let mut stack: Vec<Step<'_>> = snapshot
        .roots()
        .into_iter()
        .rev()
        .map(|s| Step::Session {
            s,
            indent: String::new(),
            branch: None,
        })
        .collect();
    while let Some(step) = stack.pop() {
        match step {
            Step::Session { s, indent, branch } => {
                session(snapshot, s, &indent, branch, layout, &mut out, &mut stack);
            }
            Step::Turn {
                t,
                children,
                indent,
                last,
            } => {
                let (lead, below) = branch_of(&indent, last);
                let mut parts = vec![(format!("#{}", t.id.ordinal()), Tone::Id)];
                parts.extend(turn_parts(t, clock));
                out.push(Row {
                    key: Key::Turn(t.id.to_string()),
                    indent: lead,
                    fold: None,
                    parts,
                    haystack: t.id.to_string(),
                });
                below_turn(snapshot, t, children, &below, &mut stack);
            }
            Step::Interaction { x, indent, last } => {
                let (lead, _) = branch_of(&indent, last);
                out.push(interaction_row(x, lead, layout));
            }
        }
    }
    out
}

/// The guides before a row (`├─ ` or `└─ ` after `indent`) and the indent below it.
fn branch_of(indent: &str, last: bool) -> (String, String) {
    (
        format!("{indent}{}", if last { "└─ " } else { "├─ " }),
        format!("{indent}{}", if last { "   " } else { "│  " }),
    )
}

/// A session's row (with its current turn), then, unless folded, its earlier turns that
/// spawned children and its current turn's children and interactions.
fn session<'a>(
    snapshot: &'a Snapshot,
    s: &'a Session,
    indent: &str,
    branch: Option<bool>,
    layout: &Layout<'_>,
    out: &mut Vec<Row>,
    stack: &mut Vec<Step<'a>>,
) {
    let (lead, below) = match branch {
        None => (String::new(), String::new()),
        Some(last) => branch_of(indent, last),
    };
    let current = s.turns.last().map(|t| &**t);
    // The children by turn, in one pass (a child whose turn is gone, under a deleted
    // session, is not shown): the current turn's, and the earlier turns that spawned some.
    let mut by_turn = Children::of(snapshot, s).by_turn;
    let current_children = by_turn.pop().unwrap_or_default();
    let earlier: Vec<(&Turn, Vec<&Session>)> = s
        .turns
        .iter()
        .zip(by_turn)
        .filter(|(_, children)| !children.is_empty())
        .map(|(t, children)| (&**t, children))
        .collect();
    let under_current = current.map_or(0, |t| {
        current_children.len() + snapshot.interactions_of(&t.id).count()
    });
    let below_count = earlier.len() + under_current;
    let is_folded = layout.folded.contains(s.id.as_str());
    let mut parts = session_parts(s, current, layout.clock);
    if is_folded && below_count > 0 {
        parts.push((format!("  ({below_count} folded)"), Tone::Dim));
    }
    out.push(Row {
        key: Key::Session(s.id.to_string()),
        indent: lead,
        fold: (below_count > 0).then_some(is_folded),
        parts,
        haystack: format!("{} {}", s.id, s.title.as_deref().unwrap_or_default()),
    });
    if is_folded {
        return;
    }
    // Pushed in reverse: the earlier turns come first, then the current turn's children.
    if let Some(t) = current {
        below_turn(snapshot, t, current_children, &below, stack);
    }
    for (i, (t, children)) in earlier.into_iter().enumerate().rev() {
        stack.push(Step::Turn {
            t,
            children,
            indent: below.clone(),
            last: i + 1 == below_count,
        });
    }
}

/// A session's line: id, kind, its current turn's state (before the title: a long title
/// is what the screen's edge cuts), title, the tool call that spawned it.
fn session_parts(s: &Session, current: Option<&Turn>, clock: Clock) -> Vec<Part> {
    let kind = match s.kind {
        SessionKind::Root => " root",
        SessionKind::Child => " child",
    };
    let mut parts = vec![(s.id.to_string(), Tone::Id), (kind.into(), Tone::Dim)];
    if s.deleted {
        parts.push((" deleted".into(), Tone::Dim));
    }
    if let Some(t) = current {
        parts.push(("  ".into(), Tone::Guide));
        parts.push((format!("#{}", t.id.ordinal()), Tone::Id));
        parts.extend(turn_parts(t, clock));
        if let Some(gate) = &t.gate
            && t.phase == Phase::Waiting
            && !gate.active_descendants.is_empty()
        {
            parts.push((waits_for(gate.active_descendants.iter()), Tone::Waiting));
        }
    }
    if let Some(title) = &s.title {
        parts.push((format!("  {}", quoted(title)), Tone::Title));
    }
    if let Some(call) = s.relation.as_ref().and_then(|r| r.tool_call.as_ref()) {
        parts.push((format!(" via {call}"), Tone::Dim));
    }
    parts
}

/// Schedules the children a turn spawned, then its interactions, below it.
fn below_turn<'a>(
    snapshot: &'a Snapshot,
    t: &'a Turn,
    children: Vec<&'a Session>,
    below: &str,
    stack: &mut Vec<Step<'a>>,
) {
    let mut interactions: Vec<&Interaction> = snapshot.interactions_of(&t.id).collect();
    interactions.sort_by_key(|x| x.seq);
    let count = children.len() + interactions.len();
    for (i, x) in interactions.into_iter().enumerate().rev() {
        stack.push(Step::Interaction {
            x,
            indent: below.to_owned(),
            last: children.len() + i + 1 == count,
        });
    }
    for (i, c) in children.into_iter().enumerate().rev() {
        stack.push(Step::Session {
            s: c,
            indent: below.to_owned(),
            branch: Some(i + 1 == count),
        });
    }
}

/// A turn's phase or outcome, its age or duration, and what it is blocked on.
fn turn_parts(t: &Turn, clock: Clock) -> Vec<Part> {
    let mut parts = Vec::new();
    match (t.phase, t.outcome) {
        (Phase::Settled, Some(outcome)) => {
            let (mark, tone) = match outcome {
                Outcome::Completed => ("✓", Tone::Done),
                Outcome::Failed => ("✗", Tone::Bad),
                Outcome::Canceled => ("⊘", Tone::Cancel),
                Outcome::Interrupted => ("!", Tone::Bad),
            };
            parts.push((format!(" {mark} {outcome}"), tone));
            if let (Some(from), Some(to)) = (t.opened_at, t.settled_at) {
                parts.push((
                    format!(" in {}", duration(to.saturating_sub(from))),
                    Tone::Dim,
                ));
            }
        }
        (phase, _) => {
            let spin = SPINNER
                .get(clock.spin % SPINNER.len())
                .copied()
                .unwrap_or("*");
            let tone = match phase {
                Phase::Waiting => Tone::Waiting,
                Phase::Settling => Tone::Cancel,
                _ => Tone::Active,
            };
            parts.push((format!(" {spin} {phase}"), tone));
            if let (Some(from), Some(now)) = (t.opened_at, clock.now) {
                parts.push((
                    format!(" {}", duration(now.saturating_sub(from))),
                    Tone::Dim,
                ));
            }
        }
    }
    if let Some(gate) = &t.gate
        && t.phase != Phase::Settled
        && gate.provider.phase == ProviderPhase::Completed
        && let Some(o) = gate.provider.outcome
    {
        parts.push((format!(" · provider {o}"), Tone::Dim));
    }
    if let Some(mark) = t.cancel.as_ref().filter(|_| t.is_active()) {
        let word = if mark.acknowledged {
            " · cancel acknowledged"
        } else {
            " · cancel requested"
        };
        parts.push((word.into(), Tone::Cancel));
    }
    if t.pending_interactions > 0 {
        parts.push((
            format!(" · {} pending", t.pending_interactions),
            Tone::Pending,
        ));
    }
    if let Some(late) = t.late_terminal {
        parts.push((format!(" · late {late} ignored"), Tone::Dim));
    }
    parts
}

/// `· waits for A, B and 3 more` (the sessions of the active child turns).
fn waits_for<'a>(turns: impl Iterator<Item = &'a lineage_core::TurnId>) -> String {
    const SHOWN: usize = 3;
    let all: Vec<String> = turns.map(|t| t.session().to_string()).collect();
    let mut text = format!(
        " · waits for {}",
        all.iter()
            .take(SHOWN)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    );
    if all.len() > SHOWN {
        text.push_str(&format!(" and {} more", all.len() - SHOWN));
    }
    text
}

fn interaction_row(x: &Interaction, indent: String, layout: &Layout<'_>) -> Row {
    let kind = match x.kind {
        InteractionKind::Approval => "approval",
        InteractionKind::Question => "question",
    };
    let pending = x.status == lineage_core::InteractionStatus::Pending;
    let tone = if pending { Tone::Pending } else { Tone::Dim };
    let mut parts = vec![
        (format!("? {kind} {}", x.request), tone),
        (format!(" · {}", x.status), tone),
    ];
    let key = (x.turn.to_string(), x.request.to_string());
    if pending && let (Some(since), Some(now)) = (layout.pending_since.get(&key), layout.clock.now)
    {
        parts.push((
            format!(" {}", duration(now.saturating_sub(*since))),
            Tone::Pending,
        ));
    }
    if let Some(title) = &x.title {
        parts.push((format!(" {}", quoted(title)), Tone::Title));
    }
    Row {
        key: Key::Interaction(x.turn.to_string(), x.request.to_string()),
        indent,
        fold: None,
        parts,
        haystack: format!("{} {}", x.request, x.title.as_deref().unwrap_or_default()),
    }
}

/// `"text"` on one line, at most 60 characters.
fn quoted(text: &str) -> String {
    const MAX: usize = 60;
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut cut: String = one_line.chars().take(MAX).collect();
    if one_line.chars().count() > MAX {
        cut.push('…');
    }
    format!("\"{cut}\"")
}

/// `850ms`, `12s`, `3m05s`, `2h07m`.
pub(crate) fn duration(ms: Millis) -> String {
    let s = ms / 1000;
    match s {
        0 => format!("{ms}ms"),
        1..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// The ACP Client view: sessions under their parents (roots in order of first
/// appearance), each with its activity, and the Agent's pending requests (permissions,
/// elicitations) under the session they name.
fn acp_rows(view: &View, layout: &Layout<'_>) -> Vec<Row> {
    let mut out = Vec::new();
    // (session, indent below it, branch drawn before it)
    let mut stack: Vec<(&AcpSession, String, Option<bool>)> = view
        .sessions()
        .filter(|s| s.parent.is_none())
        .rev()
        .map(|s| (s, String::new(), None))
        .collect();
    while let Some((s, indent, branch)) = stack.pop() {
        let (lead, below) = match branch {
            None => (String::new(), String::new()),
            Some(last) => branch_of(&indent, last),
        };
        // The Agent's requests wait for someone (a permission, an elicitation); the
        // Client's own (a prompt in flight) are the work the activity word shows.
        let pending: Vec<_> = view
            .pending_requests()
            .filter(|p| p.from == Side::Agent && p.session.as_deref() == Some(&*s.id))
            .collect();
        let children: Vec<&AcpSession> =
            s.children.iter().filter_map(|c| view.session(c)).collect();
        let count = children.len() + pending.len();
        let folded = layout.folded.contains(&*s.id);
        out.push(acp_session_row(view, s, lead, count, folded));
        if folded {
            continue;
        }
        for (i, p) in pending.iter().enumerate() {
            let (lead, _) = branch_of(&below, children.is_empty() && i + 1 == pending.len());
            out.push(Row {
                key: Key::Interaction(s.id.to_string(), p.id.to_string()),
                indent: lead,
                fold: None,
                parts: vec![(format!("? {} {} · pending", p.method, p.id), Tone::Pending)],
                haystack: format!("{} {}", p.method, p.id),
            });
        }
        for (i, c) in children.into_iter().enumerate().rev() {
            stack.push((c, below.clone(), Some(i + 1 == count - pending.len())));
        }
    }
    out
}

/// An ACP session's line: id, kind, title, the Client's activity word.
fn acp_session_row(view: &View, s: &AcpSession, indent: String, below: usize, folded: bool) -> Row {
    let activity = lineage_core::acp::activity(view, s);
    let tone = match activity.as_str() {
        "running" => Tone::Active,
        "requires_action" => Tone::Pending,
        "idle" => Tone::Done,
        _ => Tone::Dim,
    };
    let kind = if s.parent.is_some() {
        " child"
    } else {
        " root"
    };
    let mut parts = vec![(s.id.to_string(), Tone::Id), (kind.into(), Tone::Dim)];
    if let Some(title) = &s.title {
        parts.push((format!(" {}", quoted(title)), Tone::Title));
    }
    parts.push(("  ".into(), Tone::Guide));
    parts.push((activity, tone));
    if folded && below > 0 {
        parts.push((format!("  ({below} folded)"), Tone::Dim));
    }
    Row {
        key: Key::Session(s.id.to_string()),
        indent,
        fold: (below > 0).then_some(folded),
        parts,
        haystack: format!("{} {}", s.id, s.title.as_deref().unwrap_or_default()),
    }
}
