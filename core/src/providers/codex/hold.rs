//! Records of threads no spawn edge has registered yet.
//!
//! Seed, *Codex App-Server Mapping*: "Unknown foreign-thread events must not update the
//! root turn. They may be counted as early drops and reconciled if a spawn edge later
//! registers that thread." They are held here, in arrival order and bounded, and replayed
//! when the thread becomes known, so they join the child's single initial turn. Whatever
//! is still held at the end is reported, never attributed to the root.

use std::collections::BTreeMap;

use super::rpc;
use crate::finding::Code;
use crate::ids::SessionId;
use crate::providers::{Ctx, ProviderRecord};

/// At most this many records are held per unknown thread …
const PER_THREAD: usize = 1024;
/// … and in all.
const TOTAL: usize = 16 * 1024;

#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) line: usize,
    pub(super) record: ProviderRecord,
}

#[derive(Debug, Clone, Default)]
pub(super) struct HeldRecords {
    by_thread: BTreeMap<SessionId, Vec<Held>>,
    /// Held server requests → their thread, so the client's answers wait with them.
    requests: BTreeMap<rpc::RpcId, SessionId>,
    total: usize,
}

impl HeldRecords {
    /// Holds a record; returns a message when the bound forces it to be dropped instead.
    pub(super) fn hold(&mut self, thread: SessionId, held: Held) -> Option<String> {
        let records = self.by_thread.entry(thread.clone()).or_default();
        if records.len() >= PER_THREAD || self.total >= TOTAL {
            return Some(format!(
                "record for unregistered thread `{thread}` dropped: more than {} records held ({} for this thread) before any spawn edge registered it",
                TOTAL,
                records.len()
            ));
        }
        if let rpc::Kind::Request { id, .. } = rpc::classify(&held.record.message)
            && held.record.from == "server"
        {
            self.requests.insert(id, thread.clone());
        }
        records.push(held);
        self.total += 1;
        None
    }

    /// The thread of a held server request.
    pub(super) fn request_thread(&self, id: &rpc::RpcId) -> Option<&SessionId> {
        self.requests.get(id)
    }

    /// Takes the records of a thread that became known.
    pub(super) fn take(&mut self, thread: &SessionId) -> Vec<Held> {
        let records = self.by_thread.remove(thread).unwrap_or_default();
        self.total = self.total.saturating_sub(records.len());
        self.requests.retain(|_, t| t != thread);
        records
    }

    /// Takes everything still held.
    pub(super) fn drain(&mut self) -> BTreeMap<SessionId, Vec<Held>> {
        self.total = 0;
        self.requests.clear();
        std::mem::take(&mut self.by_thread)
    }
}

/// Reports a thread's records that no spawn edge ever claimed: each server request on its
/// own line (`unknown-thread-request`), the rest once at the first record.
pub(super) fn report_unclaimed(cx: &mut Ctx<'_>, thread: &SessionId, records: &[Held]) {
    let mut others = Vec::new();
    for held in records {
        match rpc::classify(&held.record.message) {
            rpc::Kind::Request { method, .. } if held.record.from == "server" => cx.finding_at(held.line, Code::UnknownThreadRequest, format!(
                    "server request `{method}` on thread `{thread}`, which no spawn edge registered, is rejected (never attributed to the root)"
                ),),
            _ => others.push(held.line),
        }
    }
    if let Some(first) = others.first() {
        cx.finding_at(*first, Code::UnclaimedThreadEvents, format!(
                "{} record(s) of thread `{thread}` (lines {}) were never claimed by a spawn edge; not attributed to any session",
                others.len(),
                summarize(&others)
            ),);
    }
}

/// Reports everything held when no root thread was ever identified: the trace starts
/// mid-session (its `thread/start` response and first `turn/start` were cut off), so
/// nothing can be placed. One warning, at the first held record's line, naming each
/// thread, instead of a claim about spawn edges for threads that may well be the root.
pub(super) fn report_mid_session(cx: &mut Ctx<'_>, held: &BTreeMap<SessionId, Vec<Held>>) {
    let mut threads: Vec<(usize, &SessionId, &[Held])> = held
        .iter()
        .filter_map(|(thread, records)| Some((records.first()?.line, thread, records.as_slice())))
        .collect();
    threads.sort_by_key(|(first, _, _)| *first);
    let Some((first, _, _)) = threads.first() else {
        return;
    };
    let named: Vec<String> = threads
        .iter()
        .map(|(_, thread, records)| {
            let lines: Vec<usize> = records.iter().map(|h| h.line).collect();
            format!(
                "`{thread}`: {} record(s), lines {}",
                lines.len(),
                summarize(&lines)
            )
        })
        .collect();
    cx.finding_at(*first, Code::TraceStartsMidSession, format!(
        "the trace starts mid-session: no root thread was identified (no `thread/start` response, no `turn/start` request), so the records of {} thread(s) are attributed to no session ({}); name the root in the header, e.g. {{\"lineage\":\"trace\",\"format\":\"codex-app-server\",\"version\":1,\"rootThreadId\":\"<root thread id>\"}}",
        threads.len(),
        named.join("; "),
    ));
}

fn summarize(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(8).map(ToString::to_string).collect();
    if lines.len() > 8 {
        format!("{}, …", shown.join(", "))
    } else {
        shown.join(", ")
    }
}
