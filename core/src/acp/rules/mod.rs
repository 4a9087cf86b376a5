//! The conformance checker: every rule of docs/contract.md's "ACP conformance rules", on both
//! sides of the connection.
//!
//! Owns: the line-located findings and the bookkeeping the view does not need (answered
//! ids, mirror trackers, cancels awaiting confirmation, requests that must be answered
//! `cancelled`). It drives a [`View`] with transcripts off and reads it *before* each
//! record, so every rule sees the Client's knowledge at that moment.
//! Never: panics or stops on bad input (a malformed line or batch entry is a
//! `malformed-record` finding and the rest is still checked), scans all sessions per
//! record, or walks a parent chain or a subtree (ancestry is the view's descendant test,
//! O(log n); a cancel visits the view's subtree ranges of working sessions and pending
//! interactions, a load/resume the descendants the view resets, each O(log n); only the
//! end of a connection or of the trace visits every pending request or tracker).

mod agent_side;
#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod connection_tests;
mod mirror;
#[cfg(test)]
mod mirror_tests;
mod requests;
#[cfg(test)]
mod requests_tests;
mod updates;
#[cfg(test)]
mod updates_tests;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Who a rule constrains, and the checker's model of a trace (`lineage rules` prints it).
/// The rules themselves are codes of the one finding catalogue, [`crate::finding::Code`].
pub use crate::finding::{Party, acp::MODEL};

use super::view::{Id, IdMap, View, ViewOptions};
use super::wire::{self, LineRecord, Record, Rpc, RpcId, Side, Transport};
use crate::finding::{Code, Finding, Revision};
use crate::trace::borrowed::Json;
use crate::tree::Severity;
use agent_side::AgentSide;
use mirror::Mirror;

/// A request of cancelled work that must be answered with the cancellation outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MustCancel {
    Permission,
    Elicitation,
}

/// What one JSON-RPC batch holds, for `batch-dependency` (recorded only for batches).
#[derive(Debug, Default)]
struct Batch {
    active: bool,
    announced: Vec<Id>,
    borne: Vec<Id>,
    resumed: Vec<Id>,
    after_resume: Vec<Id>,
}

/// The ordinary message ids a session used on this connection (for
/// `message-id-conflict`): most sessions use one, which needs no set, and a few need no
/// tree (a set's first node holds room for eleven).
#[derive(Debug, Clone)]
enum MessageIds {
    One(Id),
    /// Up to [`MessageIds::FEW`] distinct ids, in order of first use.
    Few(Vec<Id>),
    Many(BTreeSet<Id>),
}

impl MessageIds {
    /// The most ids kept in a list, searched end to end.
    const FEW: usize = 8;

    fn contains(&self, id: &str) -> bool {
        match self {
            MessageIds::One(one) => &**one == id,
            MessageIds::Few(ids) => ids.iter().any(|known| &**known == id),
            MessageIds::Many(ids) => ids.contains(id),
        }
    }

    fn insert(&mut self, id: &str) {
        if self.contains(id) {
            return;
        }
        match self {
            MessageIds::One(one) => *self = MessageIds::Few(vec![one.clone(), id.into()]),
            MessageIds::Few(ids) if ids.len() < Self::FEW => ids.push(id.into()),
            MessageIds::Few(ids) => {
                let mut set: BTreeSet<Id> = ids.drain(..).collect();
                set.insert(id.into());
                *self = MessageIds::Many(set);
            }
            MessageIds::Many(ids) => {
                ids.insert(id.into());
            }
        }
    }
}

/// Checks an `acp` trace record by record: the `acp` arm of the engine.
#[derive(Debug, Clone)]
pub(crate) struct Checker {
    view: View,
    findings: Vec<Finding>,
    // Per connection.
    answered: BTreeSet<(Side, RpcId)>,
    ordinary_messages: IdMap<MessageIds>,
    conflicted: BTreeSet<(Id, Id)>,
    must_cancel: BTreeMap<RpcId, MustCancel>,
    awaiting_confirmation: BTreeMap<Id, usize>,
    mirrors: BTreeMap<Id, Mirror>,
    /// Later-revision field names already noted (`later-revision-field`).
    noted_fields: BTreeSet<&'static str>,
    /// v1 children whose unreported work was flagged since their last state report.
    work_noted: BTreeSet<Id>,
    /// v1 children's first work while idle (line, update kind), decided by their next
    /// state report.
    idle_work: BTreeMap<Id, (usize, String)>,
    /// (session, tool call) pairs already flagged `tool-call-foreign`.
    foreign_noted: BTreeSet<(Id, Id)>,
    /// (session, tool call) already reported as updated after a confirmed cancel.
    late_updates_noted: BTreeSet<(Id, Id)>,
    // Trace-wide.
    answered_permissions: BTreeMap<(Id, Id), usize>,
    /// Set once the source showed it holds the Agent's messages only.
    agent_side: Option<AgentSide>,
}

impl Checker {
    /// A checker; `header_version` is the trace header's `protocolVersion`, if any.
    pub(crate) fn new(header_version: Option<u64>) -> Self {
        Self {
            view: View::new(ViewOptions {
                transcripts: false,
                header_version,
                spec: Revision::Seed,
                changes: false,
            }),
            findings: Vec::new(),
            answered: BTreeSet::new(),
            ordinary_messages: IdMap::default(),
            conflicted: BTreeSet::new(),
            must_cancel: BTreeMap::new(),
            awaiting_confirmation: BTreeMap::new(),
            mirrors: BTreeMap::new(),
            noted_fields: BTreeSet::new(),
            work_noted: BTreeSet::new(),
            idle_work: BTreeMap::new(),
            foreign_noted: BTreeSet::new(),
            late_updates_noted: BTreeSet::new(),
            answered_permissions: BTreeMap::new(),
            agent_side: None,
        }
    }

    /// A checker that also keeps message content in its view (for `replay`).
    pub(crate) fn with_view_options(options: ViewOptions) -> Self {
        let mut checker = Self::new(options.header_version);
        checker.view = View::new(options);
        checker
    }

    /// The Client's view so far.
    pub(crate) fn view(&self) -> &View {
        &self.view
    }

    /// The view, to take the changes of the records pushed (the engine's `Output`).
    pub(crate) fn view_mut(&mut self) -> &mut View {
        &mut self.view
    }

    /// The findings raised since the last call, in the order raised (the engine drains
    /// them into its `Output` after every record).
    pub(crate) fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    /// Checks one physical line of record text (blank lines are ignored).
    #[cfg(test)]
    pub(crate) fn push_line(&mut self, line: usize, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value) => self.push_value(line, &value),
            Err(e) => self.malformed(line, format!("not JSON: {}", crate::trace::in_record(&e))),
        }
    }

    /// Checks one parsed record.
    pub(crate) fn push_value(&mut self, line: usize, value: &Value) {
        self.push(line, wire::parse_record(value));
    }

    /// Checks one record the engine holds typed: who sent it and its JSON-RPC message
    /// or batch (no JSON envelope is built for it).
    pub(crate) fn push_message(&mut self, line: usize, from: &str, message: &Value) {
        self.push(line, wire::record_of(Some(from), Some(message), None));
    }

    /// Checks one record the engine decoded on the fast path ([`wire::Line`]); `at` is
    /// its `at` unless the engine found it not a time. Reports what [`Checker::push_value`]
    /// reports for the same record.
    pub(crate) fn push_decoded(
        &mut self,
        line: usize,
        record: &wire::Line<'_>,
        at: Option<&Value>,
    ) {
        match wire::line_record(record, at) {
            Err(reason) => self.malformed(line, format!("not a valid acp record: {reason}")),
            Ok(LineRecord::Transport(event)) => self.transport(event),
            Ok(LineRecord::Message { from, message }) => {
                if !message.has_jsonrpc_version() {
                    self.jsonrpc_version_missing(line);
                }
                match message.classify() {
                    Ok(rpc) => self.entry(line, from, &rpc, &mut Batch::default()),
                    Err(reason) => self.malformed(line, reason),
                }
            }
        }
    }

    fn push(&mut self, line: usize, record: Result<Record<'_>, String>) {
        match record {
            Err(reason) => self.malformed(line, format!("not a valid acp record: {reason}")),
            Ok(Record::Transport(event)) => self.transport(event),
            Ok(Record::Message {
                from,
                entries,
                batch,
            }) => {
                let mut ctx = Batch {
                    active: batch,
                    ..Batch::default()
                };
                // Read as a parsed line is read: borrowed, no `Value` looked up by key.
                let entries: Vec<Json<'_>> = entries.iter().map(Json::of_value).collect();
                if entries
                    .iter()
                    .any(|e| e.is_object() && !wire::has_jsonrpc_version(e))
                {
                    self.jsonrpc_version_missing(line);
                }
                for (i, entry) in entries.iter().enumerate() {
                    match wire::classify(entry) {
                        Ok(rpc) => self.entry(line, from, &rpc, &mut ctx),
                        Err(reason) if batch => {
                            self.malformed(line, format!("batch entry {i}: {reason}"));
                        }
                        Err(reason) => self.malformed(line, reason),
                    }
                }
                if batch {
                    self.batch_dependencies(line, &ctx);
                }
            }
        }
    }

    fn transport(&mut self, event: Transport) {
        self.end_connection();
        match event {
            Transport::Connected => self.view.connect(),
            Transport::Disconnected => self.view.disconnect(),
        }
    }

    fn jsonrpc_version_missing(&mut self, line: usize) {
        self.report(
            line,
            Code::JsonrpcVersionMissing,
            "a JSON-RPC message without `\"jsonrpc\": \"2.0\"`; every request, notification and response must carry it exactly".into(),
        );
    }

    /// Reports a malformed line (e.g. bytes that are not UTF-8, found by the caller).
    pub(crate) fn malformed(&mut self, line: usize, message: String) {
        self.report(line, Code::MalformedRecord, message);
    }

    /// The trace ended: the end-of-trace findings join those [`Checker::take_findings`] hands out.
    pub(crate) fn end(&mut self) {
        self.end_of_trace();
    }

    /// The view, once the trace ended or stopped.
    pub(crate) fn into_view(self) -> View {
        self.view
    }

    fn entry(&mut self, line: usize, from: Side, rpc: &Rpc<'_>, batch: &mut Batch) {
        match (rpc, from) {
            (Rpc::Request { id, method, params }, _) => {
                if from == Side::Client && *method == "initialize" {
                    self.end_connection();
                }
                self.answered.remove(&(from, id.clone()));
                match from {
                    Side::Client => self.client_call(line, method, params),
                    Side::Agent => self.agent_request(line, method, params, batch),
                }
            }
            (Rpc::Notification { method, params }, Side::Client) => {
                self.client_call(line, method, params);
            }
            (Rpc::Notification { method, params }, Side::Agent) => {
                if *method == "session/update" {
                    self.session_update(line, params, batch);
                }
            }
            (Rpc::Response { id, outcome }, _) => self.response(line, from, id, *outcome, batch),
        }
        self.view.apply_rpc(line, from, rpc);
    }

    fn report(&mut self, line: usize, rule: Code, message: String) {
        self.report_at(line, rule, rule.level(), message);
    }

    /// Every finding goes through here: a rule that does not apply to the revision
    /// checked against (`--spec`) reports nothing.
    fn report_at(&mut self, line: usize, rule: Code, severity: Severity, message: String) {
        if !rule.applies_to(self.view.spec()) {
            return;
        }
        self.findings.push(Finding {
            line,
            rule,
            severity,
            message,
        });
    }

    /// The connection ends (disconnect, a new connection, or the end of the trace):
    /// mirror trackers decide, and every per-connection obligation is dropped.
    fn end_connection(&mut self) {
        let mirrors = std::mem::take(&mut self.mirrors);
        for (child, mirror) in mirrors {
            self.mirror_verdict(&child, mirror.close());
        }
        self.answered.clear();
        self.ordinary_messages = IdMap::default();
        self.conflicted.clear();
        self.must_cancel.clear();
        self.awaiting_confirmation.clear();
        self.noted_fields.clear();
        self.work_noted.clear();
        self.idle_work.clear();
        self.foreign_noted.clear();
        self.late_updates_noted.clear();
    }

    fn end_of_trace(&mut self) {
        let mirrors = std::mem::take(&mut self.mirrors);
        for (child, mirror) in mirrors {
            self.mirror_verdict(&child, mirror.close());
        }
        let cancels = std::mem::take(&mut self.awaiting_confirmation);
        for (child, line) in cancels {
            self.report(
                line,
                Code::CancelNotConfirmed,
                format!(
                    "`{child}` was working when this cancel reached it but never reported a later `idle` or `unknown`; report {{\"state\":\"idle\",\"stopReason\":\"cancelled\"}} once its work stopped, or `unknown` if it cannot tell"
                ),
            );
        }
        if self.agent_side_only() {
            // No answer of the Client's is in the source: none is missing.
            return;
        }
        let pending: Vec<_> = self
            .view
            .pending_requests()
            .filter(|p| p.from == Side::Agent)
            .cloned()
            .collect();
        for p in pending {
            let method = &*p.method;
            match self.must_cancel.get(&p.id) {
                Some(MustCancel::Permission) => self.report(
                    p.line,
                    Code::PermissionLeftPending,
                    format!(
                        "permission request {} belongs to cancelled work and was never answered; answer it with {{\"outcome\":{{\"outcome\":\"cancelled\"}}}}",
                        p.id
                    ),
                ),
                Some(MustCancel::Elicitation) => self.report(
                    p.line,
                    Code::ElicitationNotCancelled,
                    format!(
                        "elicitation {} belongs to cancelled work and was never answered; dismiss it and answer {{\"action\":\"cancel\"}}",
                        p.id
                    ),
                ),
                None => {
                    if let Some(session) = p.session.as_deref()
                        && self.view.is_child(session)
                    {
                        self.report(
                            p.line,
                            Code::ChildRequestUnanswered,
                            format!(
                                "`{method}` request {} for child `{session}` was never answered; the Client must answer every Agent request, child or not",
                                p.id
                            ),
                        );
                    }
                }
            }
        }
    }

    fn mirror_verdict(&mut self, child: &Id, verdict: mirror::Verdict) {
        for line in verdict.stale {
            self.report(
                line,
                Code::StaleMirror,
                format!(
                    "this work-state copy for `{child}` is older than a transition already reported on the other path; mirror each transition before the next one on either path"
                ),
            );
        }
        for line in verdict.unmirrored {
            self.report(
                line,
                Code::StateNotMirrored,
                format!(
                    "the parent association never carried this state of `{child}`; also send it as `subagent_update.state` on the parent's stream"
                ),
            );
        }
    }

    fn batch_dependencies(&mut self, line: usize, batch: &Batch) {
        if self.view.version() != Some(2) {
            return;
        }
        let mut reported = BTreeSet::new();
        for child in &batch.announced {
            if batch.borne.contains(child) && reported.insert(child.clone()) {
                self.report(
                    line,
                    Code::BatchDependency,
                    format!(
                        "this batch announces `{child}` and also carries traffic bearing it; batch entries may be processed in any order, so send the announcement first, on its own"
                    ),
                );
            }
        }
        for id in &batch.after_resume {
            let covered = batch
                .resumed
                .iter()
                .any(|root| root == id || self.view.is_descendant(id, root));
            if covered && reported.insert(id.clone()) {
                self.report(
                    line,
                    Code::BatchDependency,
                    format!(
                        "this batch holds the resume response (the freshness boundary) and a current snapshot of `{id}` that depends on it; send current snapshots after the response, in a separate message"
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Checker;

    fn upd(session: &str, update: Value) -> String {
        json!({"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":session,"update":update}}}).to_string()
    }

    fn client(method: &str, id: Option<u64>, params: Value) -> String {
        let mut m = json!({"jsonrpc":"2.0","method":method,"params":params});
        if let Some(id) = id {
            m["id"] = id.into();
        }
        json!({"from":"client","message":m}).to_string()
    }

    /// A load/resume visits only the view's stamped descendants, which is complete
    /// because every session with an awaited confirmation or a mirror tracker is
    /// stamped. Checked after every record of seeded pseudo-random v2 streams, with the
    /// `initialize` notification (a new connection for the view, not for the checker).
    #[test]
    fn every_tracked_session_is_stamped() {
        const IDS: [&str; 6] = ["R", "A", "B", "C", "D", "E"];
        const STATES: [&str; 4] = ["running", "idle", "unknown", "requires_action"];
        for seed in 1..=40u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut next = move |n: usize| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                usize::try_from(x % n as u64).unwrap_or_default()
            };
            let mut c = Checker::new(Some(2));
            let init = r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"clientCapabilities":{"subagents":{}}}}}"#;
            c.push_line(1, init);
            c.push_line(2, r#"{"from":"agent","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2}}}"#);
            let mut request = 10;
            for line in 3..300 {
                let (a, b) = (IDS[next(IDS.len())], IDS[next(IDS.len())]);
                let state = STATES[next(STATES.len())];
                let record = match next(9) {
                    0..=2 => upd(
                        a,
                        json!({"sessionUpdate":"subagent_update","sessionId":b,"capabilities":{"cancel":{}},"state":{"state":state}}),
                    ),
                    3..=4 => upd(a, json!({"sessionUpdate":"state_update","state":state})),
                    5 => client("session/cancel", None, json!({"sessionId":a})),
                    6 => {
                        request += 1;
                        let method = ["session/load", "session/resume"][next(2)];
                        client(method, Some(request), json!({"sessionId":a}))
                    }
                    7 => {
                        json!({"from":"agent","message":{"jsonrpc":"2.0","id":request,"result":{}}})
                            .to_string()
                    }
                    _ => match next(3) {
                        0 => client("initialize", None, json!({"protocolVersion":2})),
                        1 => r#"{"from":"transport","event":"connected"}"#.into(),
                        _ => init.into(),
                    },
                };
                c.push_line(line, &record);
                let stamped = c.view.stamped();
                for id in c.awaiting_confirmation.keys().chain(c.mirrors.keys()) {
                    assert!(
                        stamped.contains(id),
                        "seed {seed} line {line}: `{id}` is tracked but not stamped"
                    );
                }
            }
        }
    }
}
