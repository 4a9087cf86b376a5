//! Codex rollouts (`sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`, one file per
//! thread, children included) → the Codex app-server messages the Codex adapter reads.
//!
//! Owns: each file's thread (its first record, `session_meta`), the parent a child's
//! `session_meta` names (`parent_thread_id`, or `source.subagent.thread_spawn`), one tree
//! per root, and the translation of each record:
//! - `task_started` → `turn/started` on the file's thread. A root turn that holds a
//!   `UserMessage` item was the user's submission: the client's `turn/start` with that
//!   text comes first; a later `UserMessage` in the same root turn is a `turn/steer`.
//! - `task_complete` → `turn/completed` (`failed` when it carries an `error`);
//!   `turn_aborted` → the interrupt that aborted it (the client's `turn/interrupt` and its
//!   answer) and `turn/completed` `interrupted`.
//! - `item_completed` → `item/completed` with the app-server's item shape (camelCase
//!   names and fields, an agent message's text); the older `collab_agent_spawn_end` is a
//!   completed spawn, and `user_message` / `agent_message` events stand for the items in
//!   rollouts that have none.
//! - v2 children that start with a copy of their parent's history skip the records
//!   below `subagent_history_start_ordinal`.
//!
//! Never: invents an approval or a question (rollouts do not keep them: a
//! `native-source-limits` note says so) or a parent: a child whose parent's file is not
//! in the source is reported (`native-parent-missing`) and left out.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::merge::{self, Lane};
use super::{File, Located, Place, Skipped, Source, Stream, object, time};
use crate::finding::{Code, Finding};
use crate::providers::ProviderRecord;
use crate::providers::codex::content_text;
use crate::trace::Format;
use crate::trace::borrowed::{Cursor, Json, JsonRead, Skipped as ParsedOnly};
use crate::tree::Millis;

/// What a rollout's `session_meta` says of its thread.
struct Meta {
    thread: String,
    parent: Option<String>,
    history_start: Option<u64>,
}

/// Reads the rollout files `indices` of `files` into `source`: one stream per root.
pub(super) fn read(files: &[File], indices: &[usize], source: &mut Source) {
    let mut metas: Vec<(usize, Meta)> = Vec::new();
    for &index in indices {
        let Some(file) = files.get(index) else {
            continue;
        };
        match meta(file) {
            Ok(m) => metas.push((index, m)),
            Err(finding) => source.findings.push(Located {
                file: index,
                finding,
            }),
        }
    }
    let threads: BTreeSet<&str> = metas.iter().map(|(_, m)| m.thread.as_str()).collect();
    let mut children: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (k, (index, m)) in metas.iter().enumerate() {
        match m.parent.as_deref() {
            Some(parent) if threads.contains(parent) => {
                children.entry(parent).or_default().push(k);
            }
            Some(parent) => source.findings.push(Located {
                file: *index,
                finding: Finding::new(
                    1,
                    Code::NativeParentMissing,
                    format!(
                        "thread `{}` is a subagent of thread `{parent}`, whose rollout is not in this source; this file is not read",
                        m.thread
                    ),
                ),
            }),
            None => {}
        }
    }
    for (k, (_, m)) in metas.iter().enumerate() {
        if m.parent.is_none() {
            let tree = tree_of(k, &metas, &children);
            source.streams.push(stream(files, &metas, &tree));
        }
    }
}

/// The files of the tree rooted at `root` (indices into `metas`), root first, then each
/// generation; each file once even if the links loop.
fn tree_of(
    root: usize,
    metas: &[(usize, Meta)],
    children: &BTreeMap<&str, Vec<usize>>,
) -> Vec<usize> {
    let mut order = vec![root];
    let mut seen: BTreeSet<usize> = order.iter().copied().collect();
    let mut next = 0;
    while let Some(&k) = order.get(next) {
        next += 1;
        let Some((_, m)) = metas.get(k) else { continue };
        for &child in children.get(m.thread.as_str()).into_iter().flatten() {
            if seen.insert(child) {
                order.push(child);
            }
        }
    }
    order
}

/// The `session_meta` of a rollout, or why its first record is not one.
fn meta(file: &File) -> Result<Meta, Finding> {
    let (line, text) = file
        .text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
        .unwrap_or((1, ""));
    let value: Option<Value> =
        crate::trace::json::parse_value(crate::trace::strip_bom(text.trim()))
            .ok()
            .map(|p| p.value);
    let payload = value
        .as_ref()
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("session_meta"))
        .and_then(|v| v.get("payload"));
    let thread = payload.and_then(|p| p.get("id")).and_then(Value::as_str);
    let (Some(payload), Some(thread)) = (payload, thread) else {
        return Err(Finding::new(
            line,
            Code::MalformedRecord,
            "a Codex rollout's first record must be its `session_meta` with the thread `id`; this file is not read",
        ));
    };
    let spawn = JsonRead::pointer(payload, "/source/subagent/thread_spawn");
    let parent = payload
        .get("parent_thread_id")
        .or_else(|| spawn.and_then(|s| s.get("parent_thread_id")))
        .and_then(Value::as_str)
        .map(String::from);
    let history_start = payload
        .get("subagent_history_start_ordinal")
        .or_else(|| spawn.and_then(|s| s.get("subagent_history_start_ordinal")))
        .and_then(Value::as_u64);
    Ok(Meta {
        thread: thread.to_owned(),
        parent,
        history_start,
    })
}

/// One tree's stream: each file translated into a lane, the lanes merged by time.
fn stream(files: &[File], metas: &[(usize, Meta)], tree: &[usize]) -> Stream {
    let mut lanes = Vec::new();
    let mut findings = Vec::new();
    let mut indices = Vec::new();
    let mut root_thread = String::new();
    for (position, &k) in tree.iter().enumerate() {
        let (Some((index, m)), Some(file)) =
            (metas.get(k), metas.get(k).and_then(|(i, _)| files.get(*i)))
        else {
            continue;
        };
        if position == 0 {
            root_thread.clone_from(&m.thread);
        }
        indices.push(*index);
        let mut reader = FileReader::new(*index, m, position == 0, &file.text);
        lanes.push(reader.lane(&file.text, &mut findings));
    }
    if let Some(&root_file) = indices.first() {
        findings.insert(0, Located {
            file: root_file,
            finding: Finding::new(
                1,
                Code::NativeSourceLimits,
                "Codex rollouts do not keep approvals, questions or the client's requests: the tree has no interactions, and an interrupted turn is read from its `turn_aborted` record",
            ),
        });
    }
    Stream {
        format: Format::CodexAppServer,
        root: root_thread,
        files: indices,
        records: merge::merge(lanes),
        findings,
    }
}

/// Record kinds that carry no session-tree fact.
const SILENT_KINDS: [&str; 9] = [
    "response_item",
    "turn_context",
    "world_state",
    "token_usage_record",
    "compacted",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "retained_context",
    "session_meta",
];

/// `event_msg` types that carry no session-tree fact (or whose fact an item carries).
const SILENT_EVENTS: [&str; 27] = [
    "thread_settings_applied",
    "agent_reasoning",
    "agent_reasoning_delta",
    "agent_reasoning_raw_content",
    "agent_reasoning_section_break",
    "agent_message_delta",
    "exec_command_begin",
    "exec_command_end",
    "exec_command_output_delta",
    "exec_approval_request",
    "apply_patch_approval_request",
    "patch_apply_begin",
    "patch_apply_end",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "web_search_begin",
    "web_search_end",
    "turn_diff",
    "plan_update",
    "background_event",
    "stream_error",
    "context_compacted",
    "entered_review_mode",
    "exited_review_mode",
    "item_started",
    "collab_agent_spawn_begin",
    "thread_name_updated",
];

/// The translation state of one rollout file.
struct FileReader {
    file: usize,
    thread: String,
    root: bool,
    history_start: Option<u64>,
    /// Whether the file has `item_completed` records (then `user_message` and
    /// `agent_message` events repeat what the items say).
    has_items: bool,
    /// Root turns started and not yet given their submission: turn id → where its
    /// `turn/started` is in the lane, with that record's place and time. The turn's first
    /// `UserMessage` (a few records later) is the user's submission, which the client
    /// sent before the turn started: it is inserted there (`Insertions`).
    starts: BTreeMap<String, (usize, Place, Option<Millis>)>,
    /// The turn a record just started, for the lane to note where it went.
    started: Option<String>,
    /// Records to insert into the lane, by position, once it is read.
    insertions: Vec<(usize, Lane)>,
    /// The turn the file is in (events without a `turn_id` belong to it).
    turn: Option<String>,
    next_id: u64,
    /// Unknown kinds skipped.
    skipped: Skipped,
}

impl FileReader {
    fn new(file: usize, meta: &Meta, root: bool, text: &str) -> Self {
        Self {
            file,
            thread: meta.thread.clone(),
            root,
            history_start: meta.history_start,
            // A substring test, not a parse: older rollouts have no items at all.
            has_items: text.contains("\"item_completed\""),
            starts: BTreeMap::new(),
            started: None,
            insertions: Vec::new(),
            turn: None,
            next_id: 0,
            skipped: Skipped::default(),
        }
    }

    /// The file's records, translated, each with its place and time.
    fn lane(&mut self, text: &str, findings: &mut Vec<Located>) -> Lane {
        let mut lane = Lane::new();
        for (i, line) in text.lines().enumerate() {
            let place = Place {
                file: self.file,
                line: i + 1,
            };
            let trimmed = crate::trace::strip_bom(line.trim());
            if trimmed.is_empty() || is_silent(trimmed) {
                continue;
            }
            let record = match crate::trace::json::parse_value(trimmed) {
                Ok(parsed) => parsed.value,
                Err(e) => {
                    let why = format!("not a rollout record: {e}");
                    findings.push(self.located(place.line, Code::MalformedRecord, why));
                    continue;
                }
            };
            let at = record.get("timestamp").and_then(time::parse_timestamp);
            self.started = None;
            let messages = self.translate(place.line, &record, findings);
            if let Some(turn) = self.started.take() {
                // The `turn/started` is the last message of this record.
                let index = lane.len() + messages.len().saturating_sub(1);
                self.starts.insert(turn, (index, place, at));
            }
            lane.extend(messages.into_iter().map(|m| (place, at, record_of(m, at))));
        }
        findings.extend(self.skipped.finding(self.file));
        splice(lane, std::mem::take(&mut self.insertions))
    }

    fn located(&self, line: usize, code: Code, message: impl Into<String>) -> Located {
        Located {
            file: self.file,
            finding: Finding::new(line, code, message),
        }
    }

    fn skip(&mut self, line: usize, kind: &str) {
        self.skipped.add(line, kind);
    }

    /// The app-server messages one rollout record stands for.
    fn translate(
        &mut self,
        line: usize,
        record: &Value,
        findings: &mut Vec<Located>,
    ) -> Vec<Value> {
        let kind = record.get("type").and_then(Value::as_str);
        let payload = record.get("payload");
        let (Some(kind), Some(payload)) = (kind, payload) else {
            findings.push(self.located(
                line,
                Code::MalformedRecord,
                "a rollout record needs a string `type` and a `payload`",
            ));
            return Vec::new();
        };
        if let (Some(start), Some(ordinal)) = (
            self.history_start,
            record.get("ordinal").and_then(Value::as_u64),
        ) && ordinal < start
        {
            return Vec::new(); // the parent's history, copied into a v2 child
        }
        match kind {
            "event_msg" => self.event(line, payload),
            k if SILENT_KINDS.contains(&k) => Vec::new(),
            other => {
                self.skip(line, other);
                Vec::new()
            }
        }
    }

    fn event(&mut self, line: usize, payload: &Value) -> Vec<Value> {
        let kind = payload
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let turn = payload
            .get("turn_id")
            .and_then(Value::as_str)
            .map(String::from)
            .or_else(|| self.turn.clone());
        match kind {
            "task_started" => {
                self.turn.clone_from(&turn);
                if self.root {
                    self.started.clone_from(&turn);
                }
                let turn = json!({"id": turn, "status": "inProgress"});
                vec![self.notify("turn/started", object([("turn", turn)]))]
            }
            "task_complete" => self.completed(turn.as_deref(), payload),
            "turn_aborted" => self.aborted(turn.as_deref(), payload),
            "item_completed" => self.item(payload, turn.as_deref()),
            "token_count" => self.token_count(payload, turn.as_deref()),
            "collab_agent_spawn_end" => self.spawn_end(payload, turn.as_deref()),
            "user_message" | "agent_message" if !self.has_items => {
                self.legacy_message(line, kind, payload, turn.as_deref())
            }
            "error" => {
                let message = payload.get("message").cloned().unwrap_or(Value::Null);
                vec![self.notify("error", json!({"error": {"message": message}}))]
            }
            "user_message" | "agent_message" => Vec::new(),
            k if SILENT_EVENTS.contains(&k) => Vec::new(),
            other => {
                self.skip(line, &format!("event_msg/{other}"));
                Vec::new()
            }
        }
    }

    /// `task_complete`: the turn's end, `failed` when it carries an `error` (the
    /// app-server reports that error as an `error` notification first, as here).
    fn completed(&self, turn: Option<&str>, payload: &Value) -> Vec<Value> {
        let error = payload.get("error").filter(|e| !e.is_null());
        let mut out: Vec<Value> = error
            .map(|e| self.notify("error", object([("error", e.clone())])))
            .into_iter()
            .collect();
        let status = if error.is_some() {
            "failed"
        } else {
            "completed"
        };
        let error = error.cloned().unwrap_or(Value::Null);
        let turn = object([
            ("id", json!(turn)),
            ("status", json!(status)),
            ("error", error),
        ]);
        out.push(self.notify("turn/completed", object([("turn", turn)])));
        out
    }

    /// `token_count`: the thread's token counts after a model call, as the app-server's
    /// `thread/tokenUsage/updated` reports them (snake_case members in camelCase). A count
    /// without `info` (a rate-limit report alone) says nothing of the turn.
    fn token_count(&self, payload: &Value, turn: Option<&str>) -> Vec<Value> {
        let Some(info) = payload.get("info").filter(|i| i.is_object()) else {
            return Vec::new();
        };
        let usage = object([
            ("total", camel_usage(info.get("total_token_usage"))),
            ("last", camel_usage(info.get("last_token_usage"))),
            (
                "modelContextWindow",
                info.get("model_context_window")
                    .cloned()
                    .unwrap_or(Value::Null),
            ),
        ]);
        vec![self.notify(
            "thread/tokenUsage/updated",
            object([("turnId", json!(turn)), ("tokenUsage", usage)]),
        )]
    }

    /// An older rollout's `user_message` / `agent_message` event, in a file without
    /// items: the message item it stands for.
    fn legacy_message(
        &mut self,
        line: usize,
        kind: &str,
        payload: &Value,
        turn: Option<&str>,
    ) -> Vec<Value> {
        let text = payload
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind == "user_message" {
            let content = json!([{"type": "text", "text": text}]);
            let item =
                json!({"type": "UserMessage", "id": format!("user-{line}"), "content": content});
            return self.item(&object([("item", item)]), turn);
        }
        let item = json!({"type": "agentMessage", "id": format!("agent-{line}"), "text": text});
        vec![self.notify(
            "item/completed",
            object([("turnId", json!(turn)), ("item", item)]),
        )]
    }

    fn aborted(&mut self, turn: Option<&str>, payload: &Value) -> Vec<Value> {
        let reason = payload
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("interrupted");
        let mut out = Vec::new();
        if reason == "interrupted" {
            out = self.request("turn/interrupt", json!({"turnId": turn}), json!({}));
        }
        let status = if reason == "interrupted" {
            "interrupted"
        } else {
            "failed"
        };
        let error =
            (status == "failed").then(|| json!({"message": format!("turn aborted: {reason}")}));
        out.push(self.notify(
            "turn/completed",
            json!({"turn": {"id": turn, "status": status, "error": error}}),
        ));
        out
    }

    fn item(&mut self, payload: &Value, turn: Option<&str>) -> Vec<Value> {
        let Some(item) = payload.get("item") else {
            return Vec::new();
        };
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        if kind == "UserMessage" && self.root {
            let Some(turn) = turn else { return Vec::new() };
            let text = content_text(item).unwrap_or_default();
            let input = json!([{"type": "text", "text": text}]);
            if let Some((index, place, at)) = self.starts.remove(turn) {
                // The user's submission: the client's `turn/start`, before the turn started.
                let start = self.request(
                    "turn/start",
                    json!({ "input": input }),
                    json!({"turn": {"id": turn}}),
                );
                let records = start
                    .into_iter()
                    .map(|m| (place, at, record_of(m, at)))
                    .collect();
                self.insertions.push((index, records));
                return Vec::new();
            }
            let params = json!({"input": input, "expectedTurnId": turn});
            return self.request("turn/steer", params, json!({"turnId": turn}));
        }
        let thread = payload
            .get("thread_id")
            .and_then(Value::as_str)
            .unwrap_or(self.thread.as_str())
            .to_owned();
        let mut params = Map::new();
        params.insert("threadId".into(), Value::String(thread));
        params.insert(
            "turnId".into(),
            turn.map_or(Value::Null, |t| Value::String(t.to_owned())),
        );
        params.insert("item".into(), app_server_item(item));
        vec![object([
            ("method", json!("item/completed")),
            ("params", Value::Object(params)),
        ])]
    }

    /// The older spawn record: a completed `spawnAgent` call naming the new thread.
    fn spawn_end(&mut self, payload: &Value, turn: Option<&str>) -> Vec<Value> {
        let call = payload.get("call_id").cloned().unwrap_or(Value::Null);
        let child = payload.get("new_thread_id").and_then(Value::as_str);
        let item = json!({
            "type": "collabAgentToolCall", "id": call, "tool": "spawnAgent",
            "status": if child.is_some() { "completed" } else { "failed" },
            "senderThreadId": payload.get("sender_thread_id").cloned().unwrap_or(Value::Null),
            "receiverThreadIds": child.map_or_else(Vec::new, |c| vec![c]),
            "prompt": payload.get("prompt").cloned().unwrap_or(Value::Null),
        });
        vec![self.notify(
            "item/completed",
            object([("turnId", json!(turn)), ("item", item)]),
        )]
    }

    /// A server notification on this file's thread.
    fn notify(&self, method: &str, params: Value) -> Value {
        let mut params = params;
        if let Some(obj) = params.as_object_mut() {
            obj.insert("threadId".into(), Value::String(self.thread.clone()));
        }
        object([("method", json!(method)), ("params", params)])
    }

    /// A client request on this file's thread and the server's answer.
    fn request(&mut self, method: &str, params: Value, result: Value) -> Vec<Value> {
        self.next_id += 1;
        let id = format!("rollout-{}-{}", self.file, self.next_id);
        let mut params = params;
        if let Some(obj) = params.as_object_mut() {
            obj.insert("threadId".into(), Value::String(self.thread.clone()));
        }
        vec![
            object([
                ("jsonrpc", json!("2.0")),
                ("id", json!(id)),
                ("method", json!(method)),
                ("params", params),
            ]),
            object([("id", json!(id)), ("result", result)]),
        ]
    }
}

/// Whether a rollout line is of a kind with no session-tree fact, told from its `type`
/// (and an event's `payload.type`) without building the record: most of a rollout is
/// model input and token counts. lineage's own parser reads the head; a line it refuses
/// (a lone surrogate escape, say) is read by serde_json, which the answer always agrees
/// with.
fn is_silent(line: &str) -> bool {
    RolloutHead::glance(line).unwrap_or_else(|| serde_is_silent(line))
}

/// [`is_silent`] by serde_json: the fields of a line read without building it.
fn serde_is_silent(line: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        payload: Option<PayloadHead<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct PayloadHead<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
    }
    let Ok(head) = serde_json::from_str::<Head<'_>>(line) else {
        return false; // the full parse reports what is wrong
    };
    RolloutHead {
        kind: head.kind,
        event: head.payload.and_then(|p| p.kind),
        seen: 0,
    }
    .silent()
}

/// What the head of a rollout line says so far: its `type` and its `payload.type`.
#[derive(Default)]
struct RolloutHead<'a> {
    kind: Option<Cow<'a, str>>,
    event: Option<Cow<'a, str>>,
    /// Members read, by their bits below.
    seen: u8,
}

impl<'a> RolloutHead<'a> {
    /// The members a head reads, by their bit in the set of those seen.
    const KIND: u8 = 0;
    const PAYLOAD: u8 = 1;
    const EVENT: u8 = 2;

    /// Is a record with this head silent?
    fn silent(&self) -> bool {
        match self.kind.as_deref() {
            Some("session_meta") | None => false,
            Some("event_msg") => self
                .event
                .as_deref()
                .is_some_and(|k| SILENT_EVENTS.contains(&k)),
            Some(kind) => SILENT_KINDS.contains(&kind),
        }
    }

    /// Is the record known to be one the reader reads, whatever the rest of its line holds?
    fn loud(&self) -> bool {
        match self.kind.as_deref() {
            Some("event_msg") => self
                .event
                .as_deref()
                .is_some_and(|k| !SILENT_EVENTS.contains(&k)),
            Some(kind) => kind == "session_meta" || !SILENT_KINDS.contains(&kind),
            None => false,
        }
    }

    /// The answer of [`is_silent`] as serde_json's reading gives it, read by lineage's
    /// parser: `false` as soon as the head makes the record one the reader reads (the
    /// full parse then reports what else the line holds), or a member serde_json would
    /// refuse (repeated, of the wrong type); `None` when the parser refuses the line
    /// before that.
    fn glance(line: &'a str) -> Option<bool> {
        let mut head = RolloutHead::default();
        let mut decided = false;
        let mut cursor = Cursor::new(line);
        let read = cursor.object(|key, c| {
            let ok = match key.as_ref() {
                "type" => head.once(Self::KIND) && head.text(c, Self::KIND)?,
                "payload" => head.once(Self::PAYLOAD) && head.payload(c, &mut decided)?,
                _ => return c.value::<ParsedOnly>().map(drop),
            };
            decided = decided || !ok || head.loud();
            (!decided).then_some(())
        });
        if decided {
            return Some(false);
        }
        read?;
        Some(cursor.end().is_some() && head.silent())
    }

    /// Marks member `bit` read; `false` when it was read before.
    fn once(&mut self, bit: u8) -> bool {
        let first = self.seen & 1 << bit == 0;
        self.seen |= 1 << bit;
        first
    }

    /// Reads a `type` ([`Self::KIND`]) or `payload.type` ([`Self::EVENT`]): `Some(false)`
    /// when it is neither a string nor `null`.
    fn text(&mut self, c: &mut Cursor<'a>, bit: u8) -> Option<bool> {
        let text = match c.value::<Json<'a>>()? {
            Json::Null => None,
            Json::Str(text) => Some(text),
            _ => return Some(false),
        };
        *if bit == Self::KIND {
            &mut self.kind
        } else {
            &mut self.event
        } = text;
        Some(true)
    }

    /// Reads `payload`: `null` or an object whose `type` is read (and decides as soon as
    /// an `event_msg`'s event is one the reader reads); `Some(false)` for another value
    /// serde_json refuses, `None` for an array (which serde_json reads as the struct's
    /// fields in order: it decides).
    fn payload(&mut self, c: &mut Cursor<'a>, decided: &mut bool) -> Option<bool> {
        if c.next_is(b'[') {
            return None;
        }
        if !c.next_is(b'{') {
            return c.value::<Json<'a>>().map(|v| v.is_null());
        }
        c.object(|key, c| {
            if key != "type" {
                return c.value::<ParsedOnly>().map(drop);
            }
            *decided = !self.once(Self::EVENT) || !self.text(c, Self::EVENT)? || self.loud();
            (!*decided).then_some(())
        })?;
        Some(true)
    }
}

/// An app-server message as the provider record of the side that sent it (a request is
/// the client's; its answer and every notification the server's).
fn record_of(message: Value, at: Option<Millis>) -> ProviderRecord {
    let client = message.get("method").is_some() && message.get("id").is_some();
    ProviderRecord::new(if client { "client" } else { "server" }, message, at)
}

/// The lane with `insertions` (position → records to place before the record there), in
/// one pass.
fn splice(lane: Lane, mut insertions: Vec<(usize, Lane)>) -> Lane {
    if insertions.is_empty() {
        return lane;
    }
    insertions.sort_by_key(|(index, _)| *index);
    let mut out =
        Lane::with_capacity(lane.len() + insertions.iter().map(|(_, l)| l.len()).sum::<usize>());
    let mut pending = insertions.into_iter().peekable();
    for (index, entry) in lane.into_iter().enumerate() {
        while let Some((_, records)) = pending.next_if(|(at, _)| *at == index) {
            out.extend(records);
        }
        out.push(entry);
    }
    out.extend(pending.flat_map(|(_, records)| records));
    out
}

/// A rollout item in the app-server's shape: `PascalCase` type → `camelCase`, snake_case
/// fields → camelCase, a collab tool's `snake_case` name → `camelCase`, an agent
/// message's content → its `text`.
fn app_server_item(item: &Value) -> Value {
    let Some(obj) = item.as_object() else {
        return item.clone();
    };
    let mut out = Map::new();
    for (key, value) in obj {
        let value = match key.as_str() {
            "type" => Value::String(camel(value.as_str().unwrap_or_default(), false)),
            "tool" => Value::String(camel(value.as_str().unwrap_or_default(), true)),
            _ => value.clone(),
        };
        out.insert(camel(key, true), value);
    }
    if obj.get("type").and_then(Value::as_str) == Some("AgentMessage") {
        out.insert(
            "text".into(),
            Value::String(content_text(item).unwrap_or_default()),
        );
    }
    Value::Object(out)
}

/// `snake_case` or `PascalCase` → `camelCase` (`lower_first` lowers a leading capital
/// too; names already camelCase stay).
fn camel(name: &str, snake: bool) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for (i, c) in name.chars().enumerate() {
        if snake && c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else if i == 0 {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[path = "codex_tests.rs"]
mod tests;

/// A rollout's token usage breakdown with the app-server's member names.
fn camel_usage(usage: Option<&Value>) -> Value {
    const NAMES: [(&str, &str); 6] = [
        ("input_tokens", "inputTokens"),
        ("cached_input_tokens", "cachedInputTokens"),
        ("cache_write_input_tokens", "cacheWriteInputTokens"),
        ("output_tokens", "outputTokens"),
        ("reasoning_output_tokens", "reasoningOutputTokens"),
        ("total_tokens", "totalTokens"),
    ];
    let Some(usage) = usage.and_then(Value::as_object) else {
        return Value::Null;
    };
    let members = NAMES
        .iter()
        .filter_map(|(snake, camel)| Some(((*camel).to_owned(), usage.get(*snake)?.clone())));
    Value::Object(members.collect())
}
