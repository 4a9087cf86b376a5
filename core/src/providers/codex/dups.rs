//! Repeated records: a record equal to the one just before it, and a request whose
//! JSON-RPC id repeats one already seen in the same direction.
//!
//! Every app-server notification carries the provider's `emittedAtMs` and a capture adds
//! its own `at`, so a record equal in every field to the one just before it (direction,
//! message, time) is a capture written twice, not traffic: it is skipped and counted, and
//! the count is said once at the end (`duplicate-record`). A record with no time at all
//! (neither `at` nor `emittedAtMs`) is no such evidence and applies. A request that reuses an id on
//! its direction without being such a repeat is a protocol fault: reported at its line,
//! naming the first (`duplicate-request-id`), and not applied again.
//!
//! A capture writes its duplicate byte for byte, so a line is compared with the previous
//! line's text (kept, not parsed again); a record pushed as data with the previous record.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::rpc::{self, RpcId};
use crate::finding::Code;
use crate::providers::{Ctx, ProviderRecord, Rec};
use crate::trace::borrowed::JsonRead;

/// The record a pushed record is compared with.
#[derive(Debug, Clone)]
enum Previous {
    /// A record read in place: its line.
    Line(String),
    /// A record pushed as data.
    Record(ProviderRecord),
}

/// At most this many lines of skipped repeats are named in the summary.
const SHOWN: usize = 8;

#[derive(Debug, Clone, Default)]
pub(super) struct Repeats {
    /// The last record pushed (released held records are not pushes), handed over by the
    /// engine once applied ([`Repeats::remember`]): never a copy of a record, at most of
    /// its line.
    previous: Option<Previous>,
    /// Skipped exact repeats: the first lines (at most `SHOWN`) and counts by kind.
    lines: Vec<usize>,
    counts: [usize; 3],
    /// Request ids seen, per direction, with the line of the first request.
    client_ids: BTreeMap<RpcId, usize>,
    server_ids: BTreeMap<RpcId, usize>,
}

/// What to do with a pushed record.
pub(super) enum Verdict {
    Apply,
    /// Equal to the record just before it: skipped, said once at the end.
    Repeat,
    /// A request reusing an id of its direction: the line of the first request.
    ReusedId {
        id: RpcId,
        first: usize,
        method: String,
    },
}

impl Repeats {
    /// Judges a pushed record at `line` against the previous one (the caller then hands
    /// the record over with [`Repeats::remember`]).
    pub(super) fn judge<J: JsonRead>(
        &mut self,
        line: usize,
        record: Rec<'_, J>,
        text: Option<&str>,
    ) -> Verdict {
        let timed = record.at.is_some() || record.message.get("emittedAtMs").is_some();
        if timed && self.repeats_previous(record, text) {
            let kind = match rpc::classify(record.message) {
                rpc::Kind::Request { .. } => 0,
                rpc::Kind::Response { .. } => 1,
                _ => 2,
            };
            if let Some(count) = self.counts.get_mut(kind) {
                *count += 1;
            }
            if self.lines.len() < SHOWN + 1 {
                self.lines.push(line);
            }
            return Verdict::Repeat;
        }
        let rpc::Kind::Request { id, method, .. } = rpc::classify(record.message) else {
            return Verdict::Apply;
        };
        let table = match record.from {
            "client" => &mut self.client_ids,
            "server" => &mut self.server_ids,
            _ => return Verdict::Apply,
        };
        match table.entry(id.clone()) {
            Entry::Occupied(first) => Verdict::ReusedId {
                id,
                first: *first.get(),
                method: method.to_owned(),
            },
            Entry::Vacant(slot) => {
                slot.insert(line);
                Verdict::Apply
            }
        }
    }

    /// Keeps the record just judged and applied as the previous one (moved, not copied:
    /// a copy of every record cost as much as parsing it).
    pub(super) fn remember(&mut self, record: ProviderRecord) {
        self.previous = Some(Previous::Record(record));
    }

    /// Keeps the line of the record just judged and applied as the previous one (its
    /// buffer reused from line to line).
    pub(super) fn remember_line(&mut self, text: &str) {
        match &mut self.previous {
            Some(Previous::Line(previous)) => {
                previous.clear();
                previous.push_str(text);
            }
            previous => *previous = Some(Previous::Line(text.to_owned())),
        }
    }

    /// Is `record` the previous record again: the same line, byte for byte, or (pushed as
    /// data) the same side, time and message?
    fn repeats_previous<J: JsonRead>(&self, record: Rec<'_, J>, text: Option<&str>) -> bool {
        match (&self.previous, text) {
            (Some(Previous::Line(previous)), Some(text)) => previous == text,
            (Some(Previous::Record(previous)), None) => {
                previous.from == record.from
                    && previous.at == record.at
                    && record.message.same_as(&previous.message)
            }
            _ => false,
        }
    }

    /// End of trace: one note for every exact repeat skipped, at the first one's line.
    pub(super) fn finish(&self, cx: &mut Ctx<'_>) {
        let Some(first) = self.lines.first() else {
            return;
        };
        let total: usize = self.counts.iter().sum();
        let [requests, responses, notifications] = self.counts;
        let mut shown: Vec<String> = self
            .lines
            .iter()
            .take(SHOWN)
            .map(ToString::to_string)
            .collect();
        if total > SHOWN {
            shown.push("…".to_owned());
        }
        cx.finding_at(*first, Code::DuplicateRecord, format!(
            "{total} record(s) equal to the record just before them (lines {}: {requests} request(s), {responses} response(s), {notifications} notification(s)) were skipped as a capture's duplicates",
            shown.join(", ")
        ));
    }
}

/// The warning for a request that reuses an id of its direction.
/// `pending` is whether the first request still awaits its response, when known.
pub(super) fn report_reused(
    cx: &mut Ctx<'_>,
    from: &str,
    (id, first, method): (&RpcId, usize, &str),
    pending: Option<bool>,
) {
    let state = match pending {
        Some(true) => ", still pending",
        Some(false) => ", already answered",
        None => "",
    };
    cx.finding(Code::DuplicateRequestId, format!(
        "{from} request `{method}` reuses id {id} of the {from} request at line {first}{state}; not applied again (a JSON-RPC id names one request per direction)"
    ));
}
