//! Proptest strategies for canonical event sequences.
//!
//! Two kinds of generated step:
//! - [`Op::Guided`]: a choice (what to do, two picks, an outcome, a flag) that is resolved
//!   against the reference model's *current* state when the sequence is folded
//!   ([`resolve`]), so that long sequences keep reaching deep states: spawns under active
//!   turns, nested children, terminals of live children, cancels of live turns,
//!   acknowledgements of real targets. When nothing fits, a guided step falls back to the
//!   step that makes progress (create a root, submit to it, spawn a child).
//! - [`Op::Raw`]: an event drawn blindly from a small id alphabet: unknown ids,
//!   duplicates, terminals before starts, reparent attempts, wrong session kinds.
//!
//! [`plan`] builds a well-formed tree and each session's own event sequence for the
//! order-independence property; [`interleave`] produces one causal order of it.

use lineage_core::{
    Alias, CallId, Event, InteractionKind, MessageId, Outcome, RequestId, Role, SessionId,
    ToolStatus, TurnId,
};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};

use crate::model::{Kind, Model, TurnRef};

/// Root session ids.
pub const ROOTS: [&str; 2] = ["R0", "R1"];
/// Child session ids.
pub const CHILDREN: [&str; 8] = ["A", "B", "C", "D", "E", "F", "G", "H"];
/// Every id raw events draw from (`X` is never created by guided steps).
pub const IDS: [&str; 11] = ["R0", "R1", "A", "B", "C", "D", "E", "F", "G", "H", "X"];

/// What a guided step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guide {
    /// `root_session_created`.
    CreateRoot,
    /// `user_submitted` (new root turn or guidance).
    Submit,
    /// `root_provider_turn_started` (first or continuation).
    ProviderStart,
    /// `root_provider_turn_completed`.
    ProviderComplete,
    /// `child_spawned` under an active turn (root or child).
    Spawn,
    /// `child_turn_started` (start, or a later turn of a settled child).
    ChildStart,
    /// `child_turn_completed`.
    ChildComplete,
    /// `message`.
    Message,
    /// `tool_call_started`.
    ToolStart,
    /// `tool_call_completed`.
    ToolComplete,
    /// `interaction_requested`.
    Request,
    /// `interaction_answered`.
    Answer,
    /// `interaction_resolved`.
    Resolve,
    /// `cancel_requested`.
    Cancel,
    /// `cancel_acknowledged`.
    Ack,
    /// `cancel_completed`.
    CancelComplete,
    /// `session_deleted`.
    Delete,
    /// `session_titled`.
    Title,
    /// `alias_bound`.
    Alias,
    /// `child_spawned` of an existing child (duplicate or reparent attempt).
    Reparent,
}

/// One generated step.
#[derive(Debug, Clone)]
pub enum Op {
    /// Resolved against the model's state when folded.
    Guided {
        /// What to do.
        guide: Guide,
        /// First pick (which session, turn, …).
        a: u8,
        /// Second pick (which id, text, …).
        b: u8,
        /// Outcome for terminals.
        outcome: Outcome,
        /// A variant switch.
        flag: bool,
    },
    /// A blind event.
    Raw(Event),
}

/// Relative weights of the generated steps.
#[derive(Debug, Clone)]
pub struct Mix {
    /// (guide, weight) pairs.
    pub guided: Vec<(Guide, u32)>,
    /// Weight of raw (blind, mostly hostile) events.
    pub raw: u32,
}

impl Mix {
    /// Realistic lifecycles with some hostility.
    pub fn realistic() -> Self {
        use Guide::*;
        Mix {
            guided: vec![
                (CreateRoot, 2),
                (Submit, 5),
                (ProviderStart, 8),
                (ProviderComplete, 8),
                (Spawn, 12),
                (ChildStart, 6),
                (ChildComplete, 12),
                (Message, 5),
                (ToolStart, 3),
                (ToolComplete, 3),
                (Request, 5),
                (Answer, 3),
                (Resolve, 2),
                (Cancel, 3),
                (Ack, 4),
                (CancelComplete, 4),
                (Delete, 1),
                (Title, 1),
                (Alias, 2),
                (Reparent, 2),
            ],
            raw: 10,
        }
    }

    /// Root gates: continuations, provider terminals, child terminals in every order,
    /// nested children; cancels are rare.
    pub fn gate_heavy() -> Self {
        use Guide::*;
        let mut m = Self::realistic();
        for (g, w) in &mut m.guided {
            match g {
                ProviderStart | ProviderComplete | ChildComplete => *w = 14,
                ChildStart => *w = 8,
                Cancel | CancelComplete => *w = 1,
                Ack => *w = 0,
                _ => {}
            }
        }
        m.raw = 4;
        m
    }

    /// Mostly blind events.
    pub fn hostile() -> Self {
        let mut m = Self::realistic();
        m.raw = 120;
        m
    }

    /// Many cancels, acknowledgements and late events.
    pub fn cancel_heavy() -> Self {
        use Guide::*;
        let mut m = Self::realistic();
        for (g, w) in &mut m.guided {
            match g {
                Cancel => *w = 12,
                Ack => *w = 10,
                CancelComplete => *w = 12,
                Reparent => *w = 6,
                _ => {}
            }
        }
        m
    }

    /// Many re-spawns of existing children.
    pub fn reparent_heavy() -> Self {
        use Guide::*;
        let mut m = Self::realistic();
        for (g, w) in &mut m.guided {
            if *g == Reparent {
                *w = 25;
            }
        }
        m.raw = 20;
        m
    }
}

/// Outcomes, mostly `completed`.
pub fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        5 => Just(Outcome::Completed),
        2 => Just(Outcome::Failed),
        2 => Just(Outcome::Canceled),
        1 => Just(Outcome::Interrupted),
    ]
}

fn session_id() -> impl Strategy<Value = SessionId> {
    prop::sample::select(IDS.to_vec()).prop_map(SessionId::from)
}

fn turn_id() -> impl Strategy<Value = TurnId> {
    (session_id(), 1..=3u32).prop_map(|(s, n)| TurnId::new(s, n))
}

fn alias() -> impl Strategy<Value = Alias> {
    (
        prop::sample::select(vec!["task", "agent", "thread"]),
        0..4u8,
    )
        .prop_map(|(k, n)| Alias::new(k, &format!("a{n}")))
}

fn role_of(n: u8) -> Role {
    match n % 4 {
        0 => Role::Assistant,
        1 => Role::User,
        2 => Role::Thought,
        _ => Role::System,
    }
}

fn tool_status_of(n: u8) -> ToolStatus {
    match n % 4 {
        0 | 1 => ToolStatus::Completed,
        2 => ToolStatus::Failed,
        _ => ToolStatus::Canceled,
    }
}

/// Blind events over the small id alphabet.
pub fn raw_event() -> BoxedStrategy<Event> {
    let opt_text = prop::option::of(prop::sample::select(vec!["t", "u"]).prop_map(String::from));
    let arms: Vec<BoxedStrategy<Event>> = vec![
        (
            session_id(),
            prop::option::of(Just("title".to_owned())),
            prop::collection::vec(alias(), 0..2),
        )
            .prop_map(|(session, title, aliases)| Event::RootSessionCreated {
                session,
                title,
                aliases,
            })
            .boxed(),
        (session_id(), opt_text.clone())
            .prop_map(|(session, text)| Event::UserSubmitted {
                session,
                message: None,
                text,
            })
            .boxed(),
        (session_id(), prop::option::of(0..3u8))
            .prop_map(|(session, p)| Event::RootProviderTurnStarted {
                session,
                provider_turn: p.map(|p| format!("p{p}")),
            })
            .boxed(),
        (session_id(), prop::option::of(0..3u8), outcome())
            .prop_map(|(session, p, outcome)| Event::RootProviderTurnCompleted {
                session,
                provider_turn: p.map(|p| format!("p{p}")),
                outcome,
                error: Some("context canceled".into()),
            })
            .boxed(),
        (
            session_id(),
            session_id(),
            prop::option::of(turn_id()),
            prop::option::of(0..3u8),
            prop::collection::vec(alias(), 0..2),
        )
            .prop_map(
                |(session, parent_session, parent_turn, call, aliases)| Event::ChildSpawned {
                    session,
                    parent_session,
                    parent_turn,
                    tool_call: call.map(|c| CallId::new(format!("c{c}"))),
                    title: None,
                    aliases,
                },
            )
            .boxed(),
        session_id()
            .prop_map(|session| Event::ChildTurnStarted { session })
            .boxed(),
        (session_id(), outcome())
            .prop_map(|(session, outcome)| Event::ChildTurnCompleted {
                session,
                outcome,
                error: None,
            })
            .boxed(),
        (session_id(), prop::option::of(0..2u8), any::<u8>())
            .prop_map(|(session, m, r)| Event::Message {
                session,
                message: m.map(|m| MessageId::new(format!("m{m}"))),
                role: role_of(r),
                text: format!("r{}", r % 3),
            })
            .boxed(),
        (session_id(), 0..4u8)
            .prop_map(|(session, c)| Event::ToolCallStarted {
                session,
                call: CallId::new(format!("c{c}")),
                name: None,
                title: None,
            })
            .boxed(),
        (session_id(), 0..4u8, any::<u8>())
            .prop_map(|(session, c, st)| Event::ToolCallCompleted {
                session,
                call: CallId::new(format!("c{c}")),
                status: tool_status_of(st),
            })
            .boxed(),
        (session_id(), alias())
            .prop_map(|(session, alias)| Event::AliasBound { session, alias })
            .boxed(),
        (session_id(), opt_text)
            .prop_map(|(session, title)| Event::SessionTitled { session, title })
            .boxed(),
        (session_id(), 0..4u32, prop::option::of(0..50u64), 0..50u64)
            .prop_map(|(session, n, input, output)| {
                let usage = lineage_core::tree::Usage {
                    input_tokens: input,
                    output_tokens: Some(output),
                    ..Default::default()
                };
                Event::usage_reported(lineage_core::TurnId::new(session, n), usage)
            })
            .boxed(),
        (session_id(), 0..3u8)
            .prop_map(|(session, r)| Event::InteractionRequested {
                session,
                request: RequestId::new(format!("q{r}")),
                kind: InteractionKind::Approval,
                provider_turn: None,
                tool_call: None,
                title: None,
            })
            .boxed(),
        (session_id(), 0..3u8)
            .prop_map(|(session, r)| Event::InteractionAnswered {
                session,
                request: RequestId::new(format!("q{r}")),
                answer: Some("yes".into()),
            })
            .boxed(),
        (session_id(), 0..3u8)
            .prop_map(|(session, r)| Event::InteractionResolved {
                session,
                request: RequestId::new(format!("q{r}")),
            })
            .boxed(),
        session_id()
            .prop_map(|session| Event::CancelRequested { session })
            .boxed(),
        session_id()
            .prop_map(|session| Event::CancelAcknowledged { session })
            .boxed(),
        session_id()
            .prop_map(|session| Event::CancelCompleted { session })
            .boxed(),
        session_id()
            .prop_map(|session| Event::SessionDeleted { session })
            .boxed(),
    ];
    Union::new(arms).boxed()
}

/// One step under a mix.
pub fn op(mix: &Mix) -> BoxedStrategy<Op> {
    let mut arms: Vec<(u32, BoxedStrategy<Op>)> = mix
        .guided
        .iter()
        .filter(|(_, w)| *w > 0)
        .map(|&(guide, w)| {
            (
                w,
                (any::<u8>(), any::<u8>(), outcome(), any::<bool>())
                    .prop_map(move |(a, b, outcome, flag)| Op::Guided {
                        guide,
                        a,
                        b,
                        outcome,
                        flag,
                    })
                    .boxed(),
            )
        })
        .collect();
    if mix.raw > 0 {
        arms.push((mix.raw, raw_event().prop_map(Op::Raw).boxed()));
    }
    Union::new_weighted(arms).boxed()
}

/// A sequence of steps.
pub fn ops(mix: Mix, len: std::ops::Range<usize>) -> BoxedStrategy<Vec<Op>> {
    prop::collection::vec(op(&mix), len).boxed()
}

fn pick<T: Clone>(items: &[T], n: u8) -> Option<T> {
    if items.is_empty() {
        return None;
    }
    items.get(usize::from(n) % items.len()).cloned()
}

fn sid(s: &str) -> SessionId {
    SessionId::from(s)
}

fn tid(t: &TurnRef) -> TurnId {
    TurnId::new(SessionId::from(t.0.as_str()), t.1)
}

/// A root exists, else the event creating one.
fn need_root(m: &Model, a: u8) -> Result<String, Event> {
    pick(&m.roots(), a).ok_or_else(|| Event::RootSessionCreated {
        session: sid(pick(&ROOTS, a).unwrap_or("R0")),
        title: None,
        aliases: vec![],
    })
}

/// A root with an active turn, else the event that leads to one.
fn need_active_root(m: &Model, a: u8) -> Result<String, Event> {
    let active: Vec<String> = m
        .roots()
        .into_iter()
        .filter(|r| m.active_turn(r).is_some())
        .collect();
    if let Some(r) = pick(&active, a) {
        return Ok(r);
    }
    let root = need_root(m, a)?;
    Err(Event::UserSubmitted {
        session: sid(&root),
        message: None,
        text: Some("go".into()),
    })
}

/// A session with an active turn, else the event that leads to one.
fn need_active_session(m: &Model, a: u8) -> Result<(String, TurnRef), Event> {
    let active = m.active_turns();
    if let Some(t) = pick(&active, a) {
        return Ok((t.0.clone(), t));
    }
    let root = need_active_root(m, a)?;
    Err(Event::UserSubmitted {
        session: sid(&root),
        message: None,
        text: Some("go".into()),
    })
}

fn spawn_under(m: &Model, child: &str, parent: &TurnRef, b: u8, flag: bool) -> Event {
    let _ = m;
    Event::ChildSpawned {
        session: sid(child),
        parent_session: sid(&parent.0),
        parent_turn: flag.then(|| tid(parent)),
        tool_call: (!b.is_multiple_of(3)).then(|| CallId::new(format!("spawn_{child}"))),
        title: b.is_multiple_of(2).then(|| format!("task {child}")),
        aliases: if b.is_multiple_of(5) {
            vec![Alias::new("task", &format!("a{}", b % 4))]
        } else {
            vec![]
        },
    }
}

/// The concrete event a step stands for in the model's current state.
pub fn resolve(op: &Op, m: &Model) -> Event {
    match op {
        Op::Raw(e) => e.clone(),
        Op::Guided {
            guide,
            a,
            b,
            outcome,
            flag,
        } => resolve_guided(*guide, *a, *b, *outcome, *flag, m).unwrap_or_else(|e| e),
    }
}

fn resolve_guided(
    guide: Guide,
    a: u8,
    b: u8,
    outcome: Outcome,
    flag: bool,
    m: &Model,
) -> Result<Event, Event> {
    let any_session = |m: &Model| -> Result<String, Event> {
        match pick(&m.live_ids(), a) {
            Some(s) => Ok(s),
            None => need_root(m, a),
        }
    };
    Ok(match guide {
        Guide::CreateRoot => Event::RootSessionCreated {
            session: sid(pick(&ROOTS, a).unwrap_or("R0")),
            title: flag.then(|| "root".to_owned()),
            aliases: if b.is_multiple_of(4) {
                vec![Alias::new("thread", &format!("a{}", b % 4))]
            } else {
                vec![]
            },
        },
        Guide::Submit => Event::UserSubmitted {
            session: sid(&need_root(m, a)?),
            message: None,
            text: Some(format!("u{}", b % 3)),
        },
        Guide::ProviderStart => {
            let root = need_active_root(m, a)?;
            Event::RootProviderTurnStarted {
                session: sid(&root),
                provider_turn: flag.then(|| format!("p{}", b % 3)),
            }
        }
        Guide::ProviderComplete => {
            let roots = m.roots();
            let running: Vec<String> = roots
                .iter()
                .filter(|r| {
                    m.session(r)
                        .and_then(|s| s.turns.last())
                        .and_then(|t| t.provider.as_ref())
                        .is_some_and(|p| p.phase == lineage_core::ProviderPhase::Running)
                })
                .cloned()
                .collect();
            let root = match pick(&running, a) {
                Some(r) if !flag || !b.is_multiple_of(4) => r,
                _ => need_root(m, a)?,
            };
            let id = m
                .session(&root)
                .and_then(|s| s.turns.last())
                .and_then(|t| t.provider.as_ref())
                .and_then(|p| p.id.clone());
            Event::RootProviderTurnCompleted {
                session: sid(&root),
                provider_turn: if b % 8 == 7 { Some("p9".into()) } else { id },
                outcome,
                error: b.is_multiple_of(2).then(|| format!("root error {}", b % 3)),
            }
        }
        Guide::Spawn => {
            let (_, mut parent) = need_active_session(m, a)?;
            if b.is_multiple_of(11) {
                // Now and then under an explicit, already settled turn.
                let settled: Vec<TurnRef> = m
                    .sessions
                    .iter()
                    .filter(|s| !s.deleted)
                    .flat_map(|s| {
                        s.turns
                            .iter()
                            .filter(|t| t.outcome.is_some())
                            .map(|t| (s.id.clone(), t.n))
                    })
                    .collect();
                if let Some(t) = pick(&settled, a) {
                    parent = t;
                }
            }
            let all = m.all_ids();
            let fresh: Vec<&str> = CHILDREN
                .iter()
                .copied()
                .filter(|c| !all.iter().any(|x| x == c))
                .collect();
            let child = pick(&fresh, b)
                .or_else(|| pick(&CHILDREN, b))
                .unwrap_or("A");
            spawn_under(m, child, &parent, b, flag)
        }
        Guide::Reparent => {
            let kids: Vec<String> = m
                .sessions
                .iter()
                .filter(|s| s.kind == Kind::Child)
                .map(|s| s.id.clone())
                .collect();
            let Some(child) = pick(&kids, b) else {
                return resolve_guided(Guide::Spawn, a, b, outcome, flag, m);
            };
            let parent = if b.is_multiple_of(3) {
                // The recorded parent again: a duplicate edge, or a spawn under a
                // later turn of the same parent session.
                m.session(&child)
                    .and_then(|s| s.relation.as_ref())
                    .map(|r| r.parent_turn.clone())
            } else {
                pick(&m.active_turns(), a)
            };
            match parent {
                Some(p) => spawn_under(m, &child, &p, b, flag),
                None => return resolve_guided(Guide::Spawn, a, b, outcome, flag, m),
            }
        }
        Guide::ChildStart | Guide::ChildComplete => {
            let kids = m.children();
            let live: Vec<String> = kids
                .iter()
                .filter(|k| m.active_turn(k).is_some())
                .cloned()
                .collect();
            let pool = if flag || live.is_empty() {
                &kids
            } else {
                &live
            };
            let Some(child) = pick(pool, a) else {
                return resolve_guided(Guide::Spawn, a, b, outcome, flag, m);
            };
            if guide == Guide::ChildStart {
                Event::ChildTurnStarted {
                    session: sid(&child),
                }
            } else {
                Event::ChildTurnCompleted {
                    session: sid(&child),
                    outcome,
                    error: b
                        .is_multiple_of(2)
                        .then(|| format!("child error {}", b % 3)),
                }
            }
        }
        Guide::Message => Event::Message {
            session: sid(&any_session(m)?),
            message: b
                .is_multiple_of(3)
                .then(|| MessageId::new(format!("m{}", b % 2))),
            role: role_of(b / 3),
            text: format!("t{}", b % 5),
        },
        Guide::ToolStart => Event::ToolCallStarted {
            session: sid(&any_session(m)?),
            call: CallId::new(format!("c{}", b % 4)),
            name: None,
            title: None,
        },
        Guide::ToolComplete => Event::ToolCallCompleted {
            session: sid(&any_session(m)?),
            call: CallId::new(format!("c{}", b % 4)),
            status: tool_status_of(b / 4),
        },
        Guide::Request => {
            let (session, _) = need_active_session(m, a)?;
            Event::InteractionRequested {
                session: sid(&session),
                request: RequestId::new(format!("q{}", b % 3)),
                kind: if flag {
                    InteractionKind::Question
                } else {
                    InteractionKind::Approval
                },
                provider_turn: None,
                tool_call: None,
                title: None,
            }
        }
        Guide::Answer | Guide::Resolve => {
            let (session, request) = match pick(&m.interaction_keys(), a) {
                Some(k) => k,
                None => (any_session(m)?, format!("q{}", b % 3)),
            };
            if guide == Guide::Answer {
                Event::InteractionAnswered {
                    session: sid(&session),
                    request: RequestId::new(request),
                    answer: Some("allow".into()),
                }
            } else {
                Event::InteractionResolved {
                    session: sid(&session),
                    request: RequestId::new(request),
                }
            }
        }
        Guide::Cancel => {
            let live_children: Vec<String> = m
                .children()
                .into_iter()
                .filter(|c| m.active_turn(c).is_some())
                .collect();
            let session = if flag {
                need_active_root(m, a)?
            } else if let Some(child) = pick(&live_children, a) {
                // A child-only cancel.
                child
            } else {
                need_active_session(m, a)?.0
            };
            Event::CancelRequested {
                session: sid(&session),
            }
        }
        Guide::Ack => {
            let session = match pick(&m.covered_sessions(), a) {
                Some(s) => s,
                None => need_active_session(m, a)?.0,
            };
            Event::CancelAcknowledged {
                session: sid(&session),
            }
        }
        Guide::CancelComplete => {
            let mut pool: Vec<String> = m.cancels.iter().map(|c| c.requested.0.clone()).collect();
            if flag {
                pool.extend(m.covered_sessions());
            }
            let session = match pick(&pool, a) {
                Some(s) => s,
                None => any_session(m)?,
            };
            Event::CancelCompleted {
                session: sid(&session),
            }
        }
        Guide::Delete => {
            let pool = if flag { m.all_ids() } else { m.children() };
            let session = match pick(&pool, a) {
                Some(s) => s,
                None => any_session(m)?,
            };
            Event::SessionDeleted {
                session: sid(&session),
            }
        }
        Guide::Title => Event::SessionTitled {
            session: sid(&any_session(m)?),
            title: flag.then(|| format!("T{}", b % 3)),
        },
        Guide::Alias => Event::AliasBound {
            session: sid(&any_session(m)?),
            alias: Alias::new(
                ["task", "agent", "thread"][usize::from(b % 3)],
                &format!("a{}", (b / 3) % 4),
            ),
        },
    })
}

// ----- well-formed trees for the order-independence property -----

/// One session of a [`Plan`] with its own event sequence.
#[derive(Debug, Clone)]
pub struct PlanSession {
    /// Session id.
    pub id: String,
    /// Its events in per-session order.
    pub events: Vec<Event>,
    /// Children: (parent session index, index of the spawn event in the parent's events).
    pub spawned_at: Option<(usize, usize)>,
}

/// A generated tree and every session's events.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Parents before children.
    pub sessions: Vec<PlanSession>,
}

#[derive(Debug, Clone)]
enum Extra {
    Msg(u8, bool),
    Tool(u8),
    Interaction(u8, u8),
    Guidance,
}

#[derive(Debug, Clone)]
enum Late {
    Msg,
    Terminal(Outcome),
    Request,
}

#[derive(Debug, Clone)]
struct Spec {
    parent: u8,
    slot: u8,
    body: Vec<Extra>,
    outcome: Outcome,
    start_first: bool,
    explicit_parent_turn: bool,
    late: Vec<Late>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let extra = prop_oneof![
        (any::<u8>(), any::<bool>()).prop_map(|(n, id)| Extra::Msg(n, id)),
        any::<u8>().prop_map(Extra::Tool),
        (0..3u8, 0..3u8).prop_map(|(r, a)| Extra::Interaction(r, a)),
        Just(Extra::Guidance),
    ];
    let late = prop_oneof![
        Just(Late::Msg),
        outcome().prop_map(Late::Terminal),
        Just(Late::Request),
    ];
    (
        any::<u8>(),
        any::<u8>(),
        prop::collection::vec(extra, 0..4),
        outcome(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(late, 0..2),
    )
        .prop_map(
            |(parent, slot, body, outcome, start_first, explicit_parent_turn, late)| Spec {
                parent,
                slot,
                body,
                outcome,
                start_first,
                explicit_parent_turn,
                late,
            },
        )
}

enum Item {
    Ev(Event),
    Spawn(usize),
}

/// A well-formed tree: 1–2 roots, up to 8 nested children, each session with its own
/// realistic event sequence (spawns inside the parent's sequence, before its terminal;
/// root guidance and interactions before the root provider terminal; late child output
/// and terminals after the child terminal).
pub fn plan() -> impl Strategy<Value = Plan> {
    (
        prop::collection::vec(spec(), 1..=2),
        prop::collection::vec(spec(), 0..=8),
    )
        .prop_map(|(roots, kids)| build_plan(&roots, &kids))
}

fn build_plan(roots: &[Spec], kids: &[Spec]) -> Plan {
    let mut ids: Vec<String> = Vec::new();
    let mut specs: Vec<&Spec> = Vec::new();
    let mut parents: Vec<Option<usize>> = Vec::new();
    for (i, r) in roots.iter().enumerate() {
        ids.push(ROOTS.get(i).copied().unwrap_or("R0").to_owned());
        specs.push(r);
        parents.push(None);
    }
    for (i, k) in kids.iter().enumerate() {
        let before = ids.len();
        ids.push(CHILDREN.get(i).copied().unwrap_or("A").to_owned());
        specs.push(k);
        parents.push(Some(usize::from(k.parent) % before));
    }
    let mut sessions: Vec<PlanSession> = Vec::new();
    let mut items: Vec<Vec<Item>> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let id = ids.get(i).cloned().unwrap_or_default();
        let root = parents.get(i).copied().flatten().is_none();
        let mut body: Vec<Item> = Vec::new();
        for x in &spec.body {
            match x {
                Extra::Msg(n, with_id) => body.push(Item::Ev(Event::Message {
                    session: sid(&id),
                    message: with_id.then(|| MessageId::new(format!("m{}", n % 2))),
                    role: role_of(*n),
                    text: format!("x{}", n % 7),
                })),
                Extra::Tool(n) => {
                    body.push(Item::Ev(Event::ToolCallStarted {
                        session: sid(&id),
                        call: CallId::new(format!("c{}", n % 3)),
                        name: None,
                        title: None,
                    }));
                    body.push(Item::Ev(Event::ToolCallCompleted {
                        session: sid(&id),
                        call: CallId::new(format!("c{}", n % 3)),
                        status: tool_status_of(*n),
                    }));
                }
                Extra::Interaction(r, answer) => {
                    let request = RequestId::new(format!("q{r}"));
                    body.push(Item::Ev(Event::InteractionRequested {
                        session: sid(&id),
                        request: request.clone(),
                        kind: InteractionKind::Approval,
                        provider_turn: None,
                        tool_call: None,
                        title: None,
                    }));
                    match answer {
                        1 => body.push(Item::Ev(Event::InteractionAnswered {
                            session: sid(&id),
                            request,
                            answer: None,
                        })),
                        2 => body.push(Item::Ev(Event::InteractionResolved {
                            session: sid(&id),
                            request,
                        })),
                        _ => {}
                    }
                }
                Extra::Guidance if root => body.push(Item::Ev(Event::UserSubmitted {
                    session: sid(&id),
                    message: None,
                    text: Some("more".into()),
                })),
                Extra::Guidance => {}
            }
        }
        // Spawns of this session's children, at their slots.
        for (c, parent) in parents.iter().enumerate() {
            if *parent == Some(i) {
                let slot = specs.get(c).map_or(0, |s| usize::from(s.slot)) % (body.len() + 1);
                body.insert(slot, Item::Spawn(c));
            }
        }
        let mut seq: Vec<Item> = Vec::new();
        if root {
            seq.push(Item::Ev(Event::RootSessionCreated {
                session: sid(&id),
                title: None,
                aliases: vec![],
            }));
            seq.push(Item::Ev(Event::UserSubmitted {
                session: sid(&id),
                message: None,
                text: Some("go".into()),
            }));
            seq.push(Item::Ev(Event::RootProviderTurnStarted {
                session: sid(&id),
                provider_turn: Some("p1".into()),
            }));
            seq.extend(body);
            seq.push(Item::Ev(Event::RootProviderTurnCompleted {
                session: sid(&id),
                provider_turn: Some("p1".into()),
                outcome: spec.outcome,
                error: None,
            }));
        } else {
            if spec.start_first {
                seq.push(Item::Ev(Event::ChildTurnStarted { session: sid(&id) }));
            }
            seq.extend(body);
            seq.push(Item::Ev(Event::ChildTurnCompleted {
                session: sid(&id),
                outcome: spec.outcome,
                error: None,
            }));
            for l in &spec.late {
                seq.push(Item::Ev(match l {
                    Late::Msg => Event::Message {
                        session: sid(&id),
                        message: None,
                        role: Role::Assistant,
                        text: "late".into(),
                    },
                    Late::Terminal(o) => Event::ChildTurnCompleted {
                        session: sid(&id),
                        outcome: *o,
                        error: None,
                    },
                    Late::Request => Event::InteractionRequested {
                        session: sid(&id),
                        request: RequestId::new("late"),
                        kind: InteractionKind::Question,
                        provider_turn: None,
                        tool_call: None,
                        title: None,
                    },
                }));
            }
        }
        items.push(seq);
        sessions.push(PlanSession {
            id,
            events: Vec::new(),
            spawned_at: None,
        });
    }
    // Materialize spawn events and record where each child was spawned.
    for (p, seq) in items.iter().enumerate() {
        let parent_id = ids.get(p).cloned().unwrap_or_default();
        let mut events = Vec::new();
        for (k, item) in seq.iter().enumerate() {
            match item {
                Item::Ev(e) => events.push(e.clone()),
                Item::Spawn(c) => {
                    let child = ids.get(*c).cloned().unwrap_or_default();
                    let explicit = specs.get(*c).is_some_and(|s| s.explicit_parent_turn);
                    events.push(Event::ChildSpawned {
                        session: sid(&child),
                        parent_session: sid(&parent_id),
                        parent_turn: explicit.then(|| TurnId::new(sid(&parent_id), 1)),
                        tool_call: Some(CallId::new(format!("spawn_{child}"))),
                        title: Some(format!("task {child}")),
                        aliases: vec![Alias::new("agent", &format!("agent-{child}"))],
                    });
                    if let Some(s) = sessions.get_mut(*c) {
                        s.spawned_at = Some((p, k));
                    }
                }
            }
        }
        if let Some(s) = sessions.get_mut(p) {
            s.events = events;
        }
    }
    Plan { sessions }
}

/// SplitMix64: a tiny deterministic generator for picking interleavings.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Plan {
    /// Sessions one after the other, parents first (a valid causal order).
    pub fn sequential(&self) -> Vec<Event> {
        self.sessions
            .iter()
            .flat_map(|s| s.events.iter().cloned())
            .collect()
    }

    /// A random causal order: each session's events keep their order and a child's
    /// first event comes after its spawn.
    pub fn interleave(&self, seed: u64) -> Vec<Event> {
        let mut state = seed;
        let mut next: Vec<usize> = vec![0; self.sessions.len()];
        let mut out = Vec::new();
        loop {
            let ready: Vec<usize> = (0..self.sessions.len())
                .filter(|&i| {
                    let Some(s) = self.sessions.get(i) else {
                        return false;
                    };
                    let at = next.get(i).copied().unwrap_or(usize::MAX);
                    if at >= s.events.len() {
                        return false;
                    }
                    match s.spawned_at {
                        Some((p, k)) => next.get(p).is_some_and(|&n| n > k),
                        None => true,
                    }
                })
                .collect();
            if ready.is_empty() {
                return out;
            }
            let len = u64::try_from(ready.len()).unwrap_or(1);
            let choice = usize::try_from(splitmix(&mut state) % len).unwrap_or(0);
            let Some(&i) = ready.get(choice) else {
                return out;
            };
            if let (Some(s), Some(n)) = (self.sessions.get(i), next.get_mut(i)) {
                if let Some(e) = s.events.get(*n) {
                    out.push(e.clone());
                }
                *n += 1;
            }
        }
    }
}
