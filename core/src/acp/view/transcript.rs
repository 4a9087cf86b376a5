//! The view's ordinary transcript: what a Client shows of each session besides its
//! session-directed messages (agent and user message text, thoughts, tool calls with
//! their titles and status, the current plan), the requests the Client answered, and
//! which revision's shapes the stream uses.
//!
//! Owns: the transcript entries, tool-call ownership (the session that opened a call
//! keeps it; an update on another session neither moves nor duplicates it).
//! Never: keeps content with the transcripts option off (tool-call status and
//! ownership are kept either way: a cancel and the checker read them).
//!
//! Replay: a session's transcript is replaced, not extended, by the first write of a
//! new replay epoch, exactly as session-directed message content is, so a `session/load`
//! that replays history does not duplicate what was shown.

use std::sync::Arc;

use imbl::Vector;
use serde_json::{Map, Value};

use super::changes::Touch;
use super::json::sorted;
use super::reduce::is_open;
use super::{Answered, Entry, Id, Pending, Set, ToolCall, View};
use crate::acp::wire;
use crate::finding::Shapes;
use crate::trace::borrowed::{Json, JsonRead, Object};

impl View {
    /// Starts writing `session`'s transcript in its current epoch (clearing what an
    /// earlier epoch showed); `false` with transcripts off or for an unknown session.
    fn transcript_epoch(&mut self, session: &Id) -> bool {
        if !self.options.transcripts {
            return false;
        }
        let Some(s) = self.sessions.get_mut(session).map(Arc::make_mut) else {
            return false;
        };
        if s.detail().transcript_epoch != s.replay_epoch {
            let epoch = s.replay_epoch;
            let detail = s.detail_mut();
            let shown = !detail.transcript.is_empty() || detail.plan.is_some();
            detail.transcript = Vector::new();
            detail.plan = None;
            detail.transcript_epoch = epoch;
            if shown {
                self.touch(Touch::TranscriptCleared(session.clone()));
            }
        }
        self.tour.mark(Set::Transcript, session, true);
        true
    }

    /// An `agent_message_chunk`, `user_message_chunk` or `agent_thought_chunk`: its
    /// block joins the last entry when that has the same kind and `messageId`.
    pub(super) fn text_chunk(&mut self, session: &Id, kind: &'static str, update: &Object<'_>) {
        let Some(block) = update.get("content").filter(|c| super::is_content_block(c)) else {
            return;
        };
        if !self.transcript_epoch(session) {
            return;
        }
        let Some(s) = self.sessions.get_mut(session).map(Arc::make_mut) else {
            return;
        };
        let block = &block.to_value();
        let message_id: Option<Id> = update
            .get("messageId")
            .and_then(Json::as_str)
            .map(Into::into);
        let index = s.detail_mut().transcript.len().saturating_sub(1);
        if let Some(last) = s.detail_mut().transcript.back_mut().map(Arc::make_mut)
            && let Entry::Text {
                kind: k,
                message_id: m,
                content,
            } = last
            && *k == kind
            && *m == message_id
        {
            content.push_back(block.clone());
            self.touch(Touch::EntryAppended(session.clone(), index, sorted(block)));
            return;
        }
        let index = s.detail_mut().transcript.len();
        let mut entry = Map::new();
        entry.insert("type".into(), Value::from(kind));
        if let Some(id) = &message_id {
            entry.insert("messageId".into(), Value::from(&**id));
        }
        entry.insert("content".into(), Value::Array(vec![sorted(block)]));
        s.detail_mut().transcript.push_back(Arc::new(Entry::Text {
            kind,
            message_id,
            content: Vector::unit(block.clone()),
        }));
        self.touch(Touch::EntryAdded(
            session.clone(),
            index,
            Value::Object(entry),
        ));
    }

    /// A `plan` update: its `entries` replace the current plan.
    pub(super) fn plan(&mut self, session: &Id, update: &Object<'_>) {
        if !self.transcript_epoch(session) {
            return;
        }
        if let Some(s) = self.sessions.get_mut(session).map(Arc::make_mut) {
            s.detail_mut().plan = Some(Arc::new(
                update
                    .get("entries")
                    .map_or(Value::Null, JsonRead::to_value),
            ));
            self.touch(Touch::Plan(session.clone()));
        }
    }

    /// A `tool_call` or `tool_call_update` on `outer`. An update for a call another
    /// session opened is not applied here (`tool-call-foreign`): the call stays on the
    /// session that opened it, and nothing is created on `outer`.
    pub(super) fn tool_call(&mut self, outer: &Id, kind: &str, update: &Object<'_>) {
        let Some(call) = update.get("toolCallId").and_then(Json::as_str) else {
            return;
        };
        let status = update.get("status").and_then(Json::as_str);
        let foreign = self.call_owners.get(call).is_some_and(|o| o != outer);
        let shown = self.transcript_epoch(outer);
        let Some(s) = self.sessions.get_mut(outer).map(Arc::make_mut) else {
            return;
        };
        let existing = s
            .detail()
            .tool_calls
            .get_key_value(call)
            .map(|(k, _)| k.clone());
        let opens = kind == "tool_call";
        if existing.is_none() && !opens && (status.is_none() || foreign) {
            return;
        }
        let key: Arc<str> = existing.clone().unwrap_or_else(|| call.into());
        let mut added = None;
        let mut entry = s
            .detail()
            .tool_calls
            .get(call)
            .cloned()
            .unwrap_or(ToolCall {
                status: "pending".into(),
                locally_cancelled: false,
                title: None,
                kind: None,
                shown_in: None,
            });
        if let Some(status) = status {
            entry.status = status.into();
            entry.locally_cancelled = false;
        }
        if shown {
            for (field, slot) in [("title", &mut entry.title), ("kind", &mut entry.kind)] {
                if let Some(v) = update.get(field).and_then(Json::as_str) {
                    *slot = Some(v.into());
                }
            }
            if entry.shown_in != Some(s.replay_epoch) {
                entry.shown_in = Some(s.replay_epoch);
                let transcript = &mut s.detail_mut().transcript;
                added = Some(transcript.len());
                transcript.push_back(Arc::new(Entry::ToolCall(key.clone())));
            }
        }
        let open = is_open(&entry.status);
        let touched_status = status.is_some() || existing.is_none();
        s.detail_mut().tool_calls.insert(key.clone(), entry);
        let session = s.id.clone();
        if opens && existing.is_none() {
            self.call_owners.insert(key.clone(), session.clone());
        }
        if let Some(index) = added {
            let entry = serde_json::json!({"type": "tool_call", "toolCallId": &*key});
            self.touch(Touch::EntryAdded(session.clone(), index, entry));
        }
        self.touch(Touch::ToolCall(session.clone(), key.clone()));
        if touched_status {
            self.set_open_call(&session, key, open);
        }
    }

    /// The Client answered an Agent request (kept under the transcripts option).
    pub(super) fn record_answer(
        &mut self,
        line: usize,
        request: Pending,
        outcome: Result<&Json<'_>, &Json<'_>>,
    ) {
        if self.options.transcripts {
            self.answered.push_back(Arc::new(Answered {
                request,
                line,
                outcome: outcome.map(JsonRead::to_value).map_err(JsonRead::to_value),
            }));
            self.touch(Touch::Answered(self.answered.len() - 1));
        }
    }

    /// Records which revision's shapes an update uses (for the summary of `check`).
    pub(super) fn note_shapes(&mut self, u: &wire::SessionUpdate<'_>) {
        if let Some(draft) = wire::draft_of(u.kind, u.update) {
            self.draft_shapes = Some(self.draft_shapes.map_or(draft, |d| d.min(draft)));
        }
        let error_idle = match u.kind {
            "subagent_update" => u
                .update
                .get("state")
                .and_then(Json::as_object)
                .is_some_and(wire::is_error_idle),
            _ => false,
        };
        let later = if !wire::final_only_fields(u.kind, u.update).is_empty() {
            Some(Shapes::Final)
        } else {
            error_idle.then_some(Shapes::Oct01)
        };
        if let Some(later) = later {
            self.later_shapes = Some(self.later_shapes.map_or(later, |l| l.max(later)));
        }
    }
}
