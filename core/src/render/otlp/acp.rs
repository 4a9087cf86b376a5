//! An ACP Client view as spans. The view has sessions, not turns: each session is one
//! `invoke_agent` span from its first appearance to its last change, under its
//! parent's span (one trace per root); its tool calls are `execute_tool` spans under
//! it and its reported work states are events.

use std::collections::BTreeMap;

use crate::acp::view::View;

use super::ids;
use super::mapping;
use super::model::{KIND_INTERNAL, Span, Status};
use super::recorder::Recorder;
use super::tree::{bounds, event};

/// Every span of the view, sessions in order of first appearance.
pub(super) fn spans(view: &View, rec: &Recorder) -> Vec<Span> {
    // A session's root is its parent's when the parent came first (the usual order),
    // so the walk up the ancestors happens only for a session learned before its parent.
    let mut roots: BTreeMap<&str, String> = BTreeMap::new();
    let mut out = Vec::new();
    for s in view.sessions() {
        let root = match s.parent.as_deref().and_then(|p| roots.get(p)) {
            Some(root) => root.clone(),
            None => view
                .ancestors_or_self(&s.id)
                .last()
                .unwrap_or(&s.id)
                .to_owned(),
        };
        roots.insert(&s.id, root.clone());
        let trace_id = ids::trace_id(&root);
        let span_id = ids::acp_session_span(&root, &s.id);
        let times = rec.acp_sessions.get(&*s.id).copied().unwrap_or_default();
        let (start, end) = bounds(rec, times, None);
        let (states, dropped) = rec.acp_states.get(&*s.id).cloned().unwrap_or_default();
        let events = states
            .into_iter()
            .map(|(stamp, state)| {
                let attributes = vec![super::model::KeyValue::string("lineage.acp.state", state)];
                event(rec.nanos(stamp), mapping::ACP_STATE, attributes)
            })
            .collect();
        let label = s
            .title
            .as_deref()
            .or(s.detail().conversation_title.as_deref());
        out.push(Span {
            trace_id: trace_id.clone(),
            span_id: span_id.clone(),
            parent_span_id: s.parent.as_deref().map(|p| ids::acp_session_span(&root, p)),
            name: mapping::agent_span_name(label, &s.id),
            kind: KIND_INTERNAL,
            start_time_unix_nano: start.to_string(),
            end_time_unix_nano: end.to_string(),
            attributes: mapping::acp_session_attributes(s, &root),
            events,
            dropped_events_count: dropped,
            status: Status::default(),
        });
        for (id, call) in &s.detail().tool_calls {
            let key = (s.id.to_string(), id.to_string());
            let times = rec.acp_tools.get(&key).copied().unwrap_or_default();
            let (from, to) = bounds(rec, times, Some((start, end)));
            let (name, attributes) = mapping::acp_tool(&s.id, id, call, &root);
            out.push(Span {
                trace_id: trace_id.clone(),
                span_id: ids::acp_tool_span(&root, &s.id, id),
                parent_span_id: Some(span_id.clone()),
                name,
                kind: KIND_INTERNAL,
                start_time_unix_nano: from.to_string(),
                end_time_unix_nano: to.to_string(),
                attributes,
                events: Vec::new(),
                dropped_events_count: 0,
                status: mapping::tool_status(&*call.status == "failed"),
            });
        }
    }
    out
}
