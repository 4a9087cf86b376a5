//! A session tree as spans: one trace per root session, a span per turn, the child
//! sessions' turns under the span of the tool call (or else the turn) that spawned
//! them, tool calls as spans under their turn, interactions and cancels as events.
//!
//! Never recurses: the creator relation names each child's parent span directly, so
//! sessions are visited in creation order, grouped by root.

use std::collections::BTreeMap;

use crate::ids::{SessionId, TurnId};
use crate::tree::{Session, Snapshot, ToolCall, ToolStatus, Turn};

use super::ids;
use super::mapping::{self, TurnFacts};
use super::model::{Event, KIND_INTERNAL, Span};
use super::recorder::{Recorder, Stamp, Times};

/// Everything a turn's spans are built from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub snapshot: &'a Snapshot,
    pub recorder: &'a Recorder,
    pub provider: &'static str,
}

/// Every span of the tree: roots in creation order, each root's sessions in creation
/// order (parents before children), each turn followed by its tool calls.
pub(super) fn spans(ctx: Ctx<'_>) -> Vec<Span> {
    let mut groups: BTreeMap<&SessionId, Vec<&Session>> = BTreeMap::new();
    for session in ctx.snapshot.sessions_in_creation_order() {
        if session.deleted {
            continue;
        }
        let root = session
            .relation
            .as_ref()
            .map_or(&session.id, |r| &r.root_session);
        groups.entry(root).or_default().push(session);
    }
    let mut spans = Vec::new();
    for root in ctx.snapshot.roots() {
        for session in groups.get(&root.id).into_iter().flatten() {
            let mut calls: BTreeMap<u32, Vec<&ToolCall>> = BTreeMap::new();
            for call in session.tool_calls.values() {
                calls.entry(call.turn).or_default().push(call);
            }
            for turn in &session.turns {
                let tools = calls.get(&turn.id.ordinal()).map_or(&[][..], Vec::as_slice);
                turn_spans(ctx, session, turn, tools, &mut spans);
            }
        }
    }
    spans
}

/// The spans of the turns `changes` settled, with their tool calls (`record`'s live
/// export): the same spans a whole export writes for them, findings aside.
pub(super) fn settled_spans(ctx: Ctx<'_>, settled: &[&TurnId]) -> Vec<Span> {
    let mut spans = Vec::new();
    for id in settled {
        let Some(session) = ctx.snapshot.session(id.session()) else {
            continue;
        };
        let Some(turn) = session.turn(id.ordinal()) else {
            continue;
        };
        let tools: Vec<&ToolCall> = session
            .tool_calls
            .values()
            .filter(|c| c.turn == id.ordinal())
            .collect();
        turn_spans(ctx, session, turn, &tools, &mut spans);
    }
    spans
}

/// The turn's span, then its tool calls' spans (in the order they were first reported).
fn turn_spans(
    ctx: Ctx<'_>,
    session: &Session,
    turn: &Turn,
    tools: &[&ToolCall],
    out: &mut Vec<Span>,
) {
    let root = session
        .relation
        .as_ref()
        .map_or(session.id.as_str(), |r| r.root_session.as_str());
    let facts = TurnFacts {
        session,
        turn,
        root,
        provider: ctx.provider,
    };
    let times = ctx
        .recorder
        .turns
        .get(&turn.id)
        .copied()
        .unwrap_or_default();
    let (start, end) = bounds(ctx.recorder, times, None);
    let trace_id = ids::trace_id(root);
    let turn_span = ids::turn_span(root, &turn.id);
    out.push(Span {
        trace_id: trace_id.clone(),
        span_id: turn_span.clone(),
        parent_span_id: parent_span(ctx.snapshot, session),
        name: mapping::agent_span_name(session.title.as_deref(), session.id.as_str()),
        kind: KIND_INTERNAL,
        start_time_unix_nano: start.to_string(),
        end_time_unix_nano: end.to_string(),
        attributes: mapping::turn_attributes(facts),
        events: turn_events(ctx, turn),
        dropped_events_count: 0,
        status: mapping::turn_status(turn),
    });
    let mut tools: Vec<(&ToolCall, Times)> = tools
        .iter()
        .map(|c| {
            let key = (session.id.clone(), c.id.clone());
            (
                *c,
                ctx.recorder.tools.get(&key).copied().unwrap_or_default(),
            )
        })
        .collect();
    tools.sort_by_key(|(c, t)| (t.start.map(|s| s.line), c.id.clone()));
    for (call, times) in tools {
        let (from, to) = bounds(ctx.recorder, times, Some((start, end)));
        out.push(Span {
            trace_id: trace_id.clone(),
            span_id: ids::tool_span(root, &session.id, &call.id),
            parent_span_id: Some(turn_span.clone()),
            name: mapping::tool_span_name(call),
            kind: KIND_INTERNAL,
            start_time_unix_nano: from.to_string(),
            end_time_unix_nano: to.to_string(),
            attributes: mapping::tool_attributes(call, &turn.id, root),
            events: Vec::new(),
            dropped_events_count: 0,
            status: mapping::tool_status(call.status == ToolStatus::Failed),
        });
    }
}

/// Start and end in nanoseconds: the recorded moments; what is missing is the
/// enclosing span's (`within`) or, for a turn, the trace's last moment (a turn still
/// open ends where the trace does). Never ends before it starts.
pub(super) fn bounds(rec: &Recorder, times: Times, within: Option<(u64, u64)>) -> (u64, u64) {
    let at = |s: Option<Stamp>| s.map(|s| rec.nanos(s));
    let (outer_start, outer_end) = within.unwrap_or((rec.nanos(rec.last), rec.nanos(rec.last)));
    let start = at(times.start).unwrap_or(outer_start);
    let end = at(times.end).unwrap_or(outer_end);
    (start, end.max(start))
}

/// A child's turns hang under the tool call that spawned it when the parent session
/// has that call in the spawning turn, else under the spawning turn; a root's turns
/// are the top of their trace.
fn parent_span(snapshot: &Snapshot, session: &Session) -> Option<String> {
    let r = session.relation.as_ref()?;
    if let Some(call) = &r.tool_call
        && snapshot
            .session(&r.parent_session)
            .and_then(|p| p.tool_calls.get(call))
            .is_some_and(|c| c.turn == r.parent_turn.ordinal())
    {
        return Some(ids::tool_span(
            r.root_session.as_str(),
            &r.parent_session,
            call,
        ));
    }
    Some(ids::turn_span(r.root_session.as_str(), &r.parent_turn))
}

/// The turn's interactions, the cancel requested for it and its own cancel
/// acknowledgement, in time order.
fn turn_events(ctx: Ctx<'_>, turn: &Turn) -> Vec<Event> {
    let rec = ctx.recorder;
    let mut events: Vec<(u64, Event)> = Vec::new();
    let mut push = |stamp: Option<Stamp>, name: &str, attributes| {
        let t = rec.nanos(stamp.unwrap_or(rec.last));
        events.push((t, event(t, name, attributes)));
    };
    for i in ctx.snapshot.interactions_of(&turn.id) {
        let asked = rec
            .asks
            .get(&(turn.id.clone(), i.request.clone()))
            .and_then(|t| t.start);
        push(
            asked,
            mapping::INTERACTION,
            mapping::interaction_attributes(i),
        );
    }
    if let Some(times) = rec.cancels.get(&turn.id) {
        let targets = Some(times.targets);
        push(
            times.prepared,
            mapping::CANCEL_PREPARED,
            mapping::cancel_attributes(&turn.id, targets),
        );
        if times.completed.is_some() {
            push(
                times.completed,
                mapping::CANCEL_COMPLETED,
                mapping::cancel_attributes(&turn.id, None),
            );
        }
    }
    if let Some(mark) = &turn.cancel
        && let Some(acked) = rec
            .cancels
            .get(&mark.operation)
            .and_then(|c| c.acknowledged.get(&turn.id))
    {
        push(
            Some(*acked),
            mapping::CANCEL_ACKNOWLEDGED,
            mapping::cancel_attributes(&mark.operation, None),
        );
    }
    events.sort_by_key(|(t, _)| *t);
    events.into_iter().map(|(_, e)| e).collect()
}

/// An event at `nanos`.
pub(super) fn event(nanos: u64, name: &str, attributes: Vec<super::model::KeyValue>) -> Event {
    Event {
        time_unix_nano: nanos.to_string(),
        name: name.to_owned(),
        attributes,
    }
}
