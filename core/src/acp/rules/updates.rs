//! `session/update` checks: announcement order, associations, field types, session
//! messages, work-state reports and earlier-draft shapes.

use serde_json::Value;

use super::mirror::Path;
use super::{Batch, Checker, MessageIds};
use crate::acp::view::Id;
use crate::acp::wire::{
    self, KNOWN_STATES, LEGACY_STATES, Patch, StateKey, object_patch, string_patch,
};
use crate::finding::{Code, Revision};
use crate::trace::borrowed::{Json, Object};

impl Checker {
    pub(super) fn session_update(&mut self, line: usize, params: &Json<'_>, batch: &mut Batch) {
        let u = match wire::session_update(params) {
            Ok(u) => u,
            Err(reason) => {
                self.malformed(line, reason);
                return;
            }
        };
        self.bears(line, u.session, "its outer `params.sessionId`", batch);
        self.later_revision_fields(line, u.kind, u.update, batch);
        match u.kind {
            "agent_message_chunk" | "agent_thought_chunk" | "tool_call" | "plan" => {
                self.unreported_work(line, u.session, u.kind);
            }
            _ => {}
        }
        if u.kind == "tool_call_update" {
            self.foreign_tool_call(line, u.session, u.update);
            self.update_after_confirmation(line, u.session, u.update);
        }
        match u.kind {
            "subagent_update" => self.association(line, u.session, u.update, batch),
            "session_message" | "session_message_chunk" => {
                self.negotiated(line, u.kind);
                self.session_message(line, u.session, u.kind, u.update, batch);
            }
            "state_update" => self.child_state(line, u.session, u.update, batch),
            "subagent_spawned" | "subagent_state_update" => {
                self.legacy(line, u.kind, u.update, true);
            }
            "agent_message_chunk" | "user_message_chunk" | "agent_thought_chunk" => {
                if let Some(id) = u.update.get("messageId").and_then(Json::as_str) {
                    if self.view.has_live_session_message(u.session, id) {
                        self.message_id_conflict(line, u.session, id);
                    }
                    match self.ordinary_messages.get_mut(u.session) {
                        Some(ids) => ids.insert(id),
                        None => {
                            let ids = MessageIds::One(id.into());
                            self.ordinary_messages.insert(u.session.into(), ids);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// `traffic-before-announce`: an Agent record bearing `id`.
    pub(super) fn bears(&mut self, line: usize, id: &str, how: &str, batch: &mut Batch) {
        if batch.active {
            batch.borne.push(id.into());
        }
        if self.view.routable(id) || (self.agent_side_only() && !self.view.is_child(id)) {
            return;
        }
        let message = if self.view.is_child(id) {
            format!(
                "`{id}` is a child not announced on this connection since the last reset, yet this record bears it as {how}; send its `subagent_update` (and its ancestors', parent first) before any traffic for it"
            )
        } else {
            format!(
                "`{id}` was never set up on this connection (no `session/new`/`session/fork` result, no `session/load`/`session/resume`, no `subagent_update` announcing it), yet this record bears it as {how}; announce it first or keep the work on its parent"
            )
        };
        self.report(line, Code::TrafficBeforeAnnounce, message);
    }

    /// `subagents-not-negotiated` for one update kind.
    fn negotiated(&mut self, line: usize, kind: &str) {
        let Some(caps) = self.view.client_caps() else {
            return;
        };
        if self.view.version() == Some(1) && !caps.subagents {
            let hint = if caps.meta_subagents {
                " (the Client signals support only through a `_meta` flag: such bridges are compatibility shims, not an alternative protocol; the Client must advertise `clientCapabilities.subagents: {}`)"
            } else {
                ""
            };
            self.report(
                line,
                Code::SubagentsNotNegotiated,
                format!(
                    "`{kind}` sent on a v1 connection whose `initialize` did not advertise `clientCapabilities.subagents` as an object; present the work through the parent session instead{hint}"
                ),
            );
        }
    }

    /// Fields only the final revision defines: under earlier revisions a note naming
    /// the revision (once per field per connection); under `final` their types, and a
    /// `session` tool-call reference must name a known session (announcement order).
    fn later_revision_fields(
        &mut self,
        line: usize,
        kind: &str,
        update: &Object<'_>,
        batch: &mut Batch,
    ) {
        let fields = wire::final_only_fields(kind, update);
        if fields.is_empty() {
            return;
        }
        if self.view.spec() < Revision::Final {
            for field in fields {
                if self.noted_fields.insert(field) {
                    self.report(
                        line,
                        Code::LaterRevisionField,
                        format!(
                            "{} is defined by the final revision of the RFD, not by {} (checked against): preserved, not checked; check with `--spec final` to have it checked",
                            if field.starts_with('`') { field.to_owned() } else { format!("`{field}`") },
                            self.view.spec()
                        ),
                    );
                }
            }
            return;
        }
        let mut bad = Vec::new();
        for key in ["cwd", "senderMessageId", "recipientMessageId"] {
            if string_patch(update, key).invalid().is_some() {
                bad.push(format!("`{key}` must be a string or null"));
            }
        }
        if let Some(dirs) = update.get("additionalDirectories")
            && !dirs.is_null()
            && !dirs
                .as_array()
                .is_some_and(|a| a.iter().all(Json::is_string))
        {
            bad.push("`additionalDirectories` must be an array of path strings or null".into());
        }
        self.field_invalid(line, kind, &bad);
        let references = wire::session_references(update);
        if !references.is_empty() {
            self.negotiated(line, "`session` tool-call content");
        }
        for id in references {
            self.bears(line, id, "a `session` tool-call content reference", batch);
        }
    }

    /// `work-without-running`: a v1 child's own stream carries new work while its
    /// current state is absent (reported at once, once until its next state report) or
    /// idle. Work while idle is decided by the child's next state report: `running` or
    /// `requires_action` shows foreground work started before its report (reported at
    /// the work's line); another `idle`, `unknown` or none leaves it background
    /// activity, which "may still emit updates while foreground work is idle".
    fn unreported_work(&mut self, line: usize, session: &str, kind: &str) {
        // An unannounced child's traffic is `traffic-before-announce`'s.
        if self.view.version() != Some(1)
            || !self.view.is_child(session)
            || !self.view.routable(session)
            || self.view.in_replay()
            || self.work_noted.contains(session)
            || self.idle_work.contains_key(session)
        {
            return;
        }
        match self.view.current_state(session) {
            None => {
                self.work_noted.insert(session.into());
                self.work_without_running(line, session, kind, "no current work state");
            }
            // After a cancelled idle, or once a Client cancel reached the child (directly
            // or through an ancestor, on this connection), output while idle is taken as
            // late fallout of the cancelled work, which Clients "SHOULD still accept"
            // (Cancellation), not new foreground work.
            Some("idle") if !self.cancel_fallout(session) => {
                self.idle_work.insert(session.into(), (line, kind.into()));
            }
            Some(_) => {}
        }
    }

    fn work_without_running(&mut self, line: usize, session: &str, kind: &str, state: &str) {
        self.report(
            line,
            Code::WorkWithoutRunning,
            format!(
                "child `{session}` emits `{kind}` with {state}; when the v1 Agent observes child foreground work starting or resuming it must report `running` first"
            ),
        );
    }

    /// Is `session` idle from cancelled work: a cancelled idle, or a Client cancel of it
    /// or an ancestor on this connection (one descendant test per cancelled session)?
    fn cancel_fallout(&self, session: &str) -> bool {
        let stop = self
            .view
            .session(session)
            .and_then(|s| s.state.as_ref())
            .and_then(|s| s.get("stopReason"))
            .and_then(Value::as_str);
        stop == Some("cancelled") || self.view.under_cancel(session)
    }

    /// `update-after-cancel-confirmed`: a `tool_call_update` for a call the Client's cancel
    /// showed cancelled, sent after the session confirmed that cancel with a current
    /// cancelled `idle` (RFD, *Cancellation and resource ownership*: "abort the affected
    /// work and send its pending updates before confirming cancellation"). The view still
    /// applies it: the Client "SHOULD still accept subsequent Agent updates".
    fn update_after_confirmation(&mut self, line: usize, session: &str, update: &Object<'_>) {
        let Some(call) = update.get("toolCallId").and_then(Json::as_str) else {
            return;
        };
        let Some(s) = self.view.session(session) else {
            return;
        };
        let cancelled_call = s
            .detail()
            .tool_calls
            .get(call)
            .is_some_and(|c| c.locally_cancelled);
        let stop = s.state.as_deref().and_then(|v| v.get("stopReason"));
        let confirmed = self.view.current_state(session) == Some("idle")
            && stop.and_then(Value::as_str) == Some("cancelled");
        if !(cancelled_call && confirmed) || self.view.in_replay() {
            return;
        }
        if self
            .late_updates_noted
            .insert((session.into(), call.into()))
        {
            self.report(
                line,
                Code::UpdateAfterCancelConfirmed,
                format!(
                    "`tool_call_update` for `{call}` on `{session}` after `{session}` confirmed the Client's cancel (a current `idle` with `stopReason: \"cancelled\"`): pending updates of the cancelled work are sent before the confirmation (the update still applies)"
                ),
            );
        }
    }

    /// `tool-call-foreign`: a `tool_call_update` on a session other than the one that
    /// opened the call.
    fn foreign_tool_call(&mut self, line: usize, session: &str, update: &Object<'_>) {
        let Some(call) = update.get("toolCallId").and_then(Json::as_str) else {
            return;
        };
        let own = self
            .view
            .session(session)
            .is_some_and(|s| s.detail().tool_calls.contains_key(call));
        let Some(owner) = self
            .view
            .tool_call_owner(call)
            .filter(|o| !own && &***o != session)
        else {
            return;
        };
        let owner = owner.clone();
        if self.foreign_noted.insert((session.into(), call.into())) {
            self.report(
                line,
                Code::ToolCallForeign,
                format!(
                    "`tool_call_update` for `{call}` on `{session}`, but `{owner}` opened that tool call; update it on `{owner}`'s stream (the call stays there)"
                ),
            );
        }
    }

    fn association(&mut self, line: usize, parent: &str, update: &Object<'_>, batch: &mut Batch) {
        let Some(child) = update.get("sessionId").and_then(Json::as_str) else {
            self.malformed(
                line,
                "`subagent_update` needs a string `update.sessionId` naming the child".into(),
            );
            return;
        };
        self.negotiated(line, "subagent_update");
        self.association_fields(line, update);
        self.legacy(line, "subagent_update", update, false);
        if let Some(state) = update
            .get("state")
            .and_then(|s| s.get("state"))
            .and_then(Json::as_str)
        {
            self.unknown_state(line, child, state);
        }
        if self.view.version() != Some(2)
            && update
                .get("state")
                .and_then(Json::as_object)
                .is_some_and(wire::is_error_idle)
        {
            self.report(
                line,
                Code::LaterRevisionStopReason,
                format!(
                    "`{child}` reports `idle` with `stopReason: \"error\"`, which the 2026-10-01 revision defines; the v1 idle of {} takes v1's `StopReason` values only. Check with `--spec 2026-10-05` (or `final`) if the Agent follows the later revision",
                    self.view.spec()
                ),
            );
        }
        if !self.association_valid(line, parent, child) {
            return;
        }
        if batch.active && !self.view.announced(child) {
            batch.announced.push(child.into());
        }
        let has_snapshot = !matches!(object_patch(update, "state"), Patch::Omitted)
            || !matches!(object_patch(update, "capabilities"), Patch::Omitted);
        if has_snapshot && batch.active && !batch.resumed.is_empty() {
            batch.after_resume.push(child.into());
        }
        if let Some(state) = object_patch(update, "state").set() {
            self.state_report(line, child, state, Path::Parent);
        }
    }

    /// `self-association`, `association-cycle`, `reparent`; `false` when the view will
    /// ignore the association.
    fn association_valid(&mut self, line: usize, parent: &str, child: &str) -> bool {
        if parent == child {
            self.report(
                line,
                Code::SelfAssociation,
                format!("`{child}` is associated as its own child; send the association on its parent's stream"),
            );
            return false;
        }
        let known = self
            .view
            .session(child)
            .map(|s| (s.parent.clone(), s.agent_root));
        let (remembered, agent_root) = known.unwrap_or_default();
        if let Some(old) = remembered {
            if &*old != parent {
                self.report(
                    line,
                    Code::Reparent,
                    format!(
                        "`{child}` belongs to `{old}` but is now associated under `{parent}`; a child has one immediate parent for the whole connection history — never guess parentage"
                    ),
                );
                return false;
            }
            return true;
        }
        if agent_root {
            self.report(
                line,
                Code::AssociationCycle,
                format!(
                    "`{child}` is a root the Agent created (`session/new`/`session/fork`) and cannot become a child of `{parent}`"
                ),
            );
            return false;
        }
        // A remembered parent never changes, so only a root can become its own ancestor:
        // one descendant test in the view's tour, not a walk up `parent`'s chain.
        if self.view.is_descendant(parent, child) {
            self.report(
                line,
                Code::AssociationCycle,
                format!(
                    "associating `{child}` under `{parent}` makes `{child}` its own ancestor; the ownership tree must stay acyclic"
                ),
            );
            return false;
        }
        true
    }

    /// `field-invalid` for the association's optional fields.
    fn association_fields(&mut self, line: usize, update: &Object<'_>) {
        let mut bad = Vec::new();
        for key in ["title", "description"] {
            if string_patch(update, key).invalid().is_some() {
                bad.push(format!("`{key}` must be a string or null"));
            }
        }
        match object_patch(update, "capabilities") {
            Patch::Invalid(_) => bad.push("`capabilities` must be an object or null".into()),
            Patch::Set(caps) if object_patch(caps, "cancel").invalid().is_some() => {
                bad.push("`capabilities.cancel` must be an object (e.g. `{}`) or null".into());
            }
            _ => {}
        }
        match object_patch(update, "state") {
            Patch::Invalid(_) => bad.push("`state` must be an object or null".into()),
            Patch::Set(state) if !state.get("state").is_some_and(Json::is_string) => {
                bad.push("a `state` object needs a string `state`".into());
            }
            // 2026-10-01: the error idle's optional, nullable JSON-RPC `error` object.
            Patch::Set(state)
                if self.view.spec() >= Revision::Narrowed
                    && object_patch(state, "error").invalid().is_some() =>
            {
                bad.push("`state.error` must be a JSON-RPC error object or null".into());
            }
            _ => {}
        }
        self.field_invalid(line, "subagent_update", &bad);
    }

    fn field_invalid(&mut self, line: usize, kind: &str, bad: &[String]) {
        if !bad.is_empty() {
            self.report(
                line,
                Code::FieldInvalid,
                format!(
                    "`{kind}`: {}; lenient decoders treat such a field as omitted, so the Client silently ignores it",
                    bad.join("; ")
                ),
            );
        }
    }

    /// `legacy-draft-shape`: one finding listing every earlier-draft element of `update`,
    /// naming the draft it follows and the current shape.
    fn legacy(&mut self, line: usize, kind: &str, update: &Object<'_>, draft_kind: bool) {
        let mut found: Vec<String> = Vec::new();
        if draft_kind {
            let now = if kind == "subagent_spawned" {
                "not an announcement: announce with `subagent_update {sessionId, title, description, capabilities}`"
            } else {
                "not a work-state report: report work state as `subagent_update.state` (v1) or `state_update` (v2)"
            };
            found.push(format!("`{kind}` (the 2026-08-31 draft; {now})"));
        }
        let renamed = [
            ("subagentSessionId", "`sessionId`"),
            ("name", "`title`"),
            (
                "task",
                "`description` for the role; the assignment is a `session_message`",
            ),
        ];
        for (field, now) in renamed {
            if update.contains_key(field) {
                found.push(format!("field `{field}` (the 2026-09-15 draft; now {now})"));
            }
        }
        if update
            .get("capabilities")
            .and_then(|c| c.get("cancel"))
            .is_some_and(|c| matches!(c, Json::Bool(_)))
        {
            found
                .push("a boolean `cancel` (an earlier draft; now `\"cancel\": {}` or null)".into());
        }
        let state = match update.get("state") {
            Some(Json::Str(s)) => Some(s.as_ref()),
            Some(other) => other.get("state").and_then(Json::as_str),
            None => None,
        };
        if let Some(state) = state.filter(|s| LEGACY_STATES.contains(s)) {
            found.push(format!(
                "the terminal state `{state}` (the 2026-08-31 draft's lifecycle; now `idle` with a `stopReason`, or `unknown`)"
            ));
        }
        if !found.is_empty() {
            self.report(
                line,
                Code::LegacyDraftShape,
                format!("earlier-draft subagent shape: {}", found.join(", ")),
            );
        }
    }

    fn unknown_state(&mut self, line: usize, session: &str, state: &str) {
        if !KNOWN_STATES.contains(&state)
            && !LEGACY_STATES.contains(&state)
            && !state.starts_with('_')
        {
            self.report(
                line,
                Code::UnknownState,
                format!(
                    "work state `{state}` of `{session}` is not defined by the RFD (reserved for future ACP states); it is preserved and implies no outcome — prefix implementation-specific states with `_`"
                ),
            );
        }
    }

    /// A v2 child `state_update` on the child's own stream.
    fn child_state(&mut self, line: usize, session: &str, update: &Object<'_>, batch: &mut Batch) {
        let Some(state) = update.get("state").and_then(Json::as_str) else {
            self.malformed(line, "`state_update` needs a string `state`".into());
            return;
        };
        self.legacy(line, "state_update", update, false);
        self.unknown_state(line, session, state);
        if batch.active && !batch.resumed.is_empty() {
            batch.after_resume.push(session.into());
        }
        self.state_report(line, session, update, Path::Child);
    }

    /// A current work-state report of `session` on either path: confirms cancels and,
    /// in v2, feeds the mirror tracker.
    fn state_report(&mut self, line: usize, session: &str, snapshot: &Object<'_>, path: Path) {
        if self.view.in_replay() || (path == Path::Child && !self.view.is_child(session)) {
            return;
        }
        let state = snapshot.get("state").and_then(Json::as_str);
        if !self.work_noted.is_empty() {
            self.work_noted.remove(session);
        }
        if let Some((work, kind)) = self.idle_work.remove(session)
            && matches!(state, Some("running" | "requires_action"))
        {
            self.work_without_running(
                work,
                session,
                &kind,
                "its current state `idle`, and its next report says its foreground work was running",
            );
        }
        if matches!(state, Some("idle" | "unknown")) && !self.awaiting_confirmation.is_empty() {
            self.awaiting_confirmation.remove(session);
        }
        // 2026-10-05: once a descendant of cancelled work reports a cancelled idle, the
        // Client cleans up its requests as if it had cancelled it directly.
        if state == Some("idle")
            && snapshot.get("stopReason").and_then(Json::as_str) == Some("cancelled")
            && !self.view.cancel_cascades()
            && self.view.under_cancel(session)
        {
            self.must_cancel_within(session, false);
        }
        if self.view.version() == Some(2)
            && let Some(key) = StateKey::of_object(snapshot)
        {
            let verdict = self
                .mirrors
                .entry(session.into())
                .or_default()
                .report(path, key, line);
            self.mirror_verdict(&Id::from(session), verdict);
        }
    }

    /// The field checks of a session message or chunk (`chunk-participants`,
    /// `chunk-content-invalid`, `field-invalid`); returns its participant patches (none
    /// for a chunk under the final revision, whose decoders drop them).
    fn message_fields<'a>(
        &mut self,
        line: usize,
        kind: &str,
        update: &'a Object<'a>,
    ) -> [Patch<'a, &'a str>; 2] {
        let chunk = kind == "session_message_chunk";
        let final_rev = self.view.spec() == Revision::Final;
        let mut bad = Vec::new();
        if chunk
            && (update.contains_key("senderSessionId") || update.contains_key("recipientSessionId"))
        {
            self.report(
                line,
                Code::ChunkParticipants,
                "in the final revision a `session_message_chunk` carries only content; send `senderSessionId` / `recipientSessionId` in a `session_message` upsert (final-schema decoders drop them here)".into(),
            );
        }
        let (sender, recipient) = if chunk && final_rev {
            (Patch::Omitted, Patch::Omitted)
        } else {
            (
                string_patch(update, "senderSessionId"),
                string_patch(update, "recipientSessionId"),
            )
        };
        for (key, p) in [
            ("senderSessionId", &sender),
            ("recipientSessionId", &recipient),
        ] {
            if p.invalid().is_some() {
                bad.push(format!("`{key}` must be a string or null"));
            }
        }
        if chunk {
            if !update
                .get("content")
                .is_some_and(crate::acp::view::is_content_block)
            {
                self.report(
                    line,
                    Code::ChunkContentInvalid,
                    "`session_message_chunk` needs `content`: one ContentBlock object with a string `type` (e.g. {\"type\":\"text\",\"text\":\"…\"})".into(),
                );
            }
        } else if matches!(update.get("content"), Some(c) if !c.is_array() && !c.is_null()) {
            bad.push("`content` must be an array of ContentBlocks or null".into());
        }
        self.field_invalid(line, kind, &bad);
        [sender, recipient]
    }

    fn session_message(
        &mut self,
        line: usize,
        outer: &str,
        kind: &str,
        update: &Object<'_>,
        batch: &mut Batch,
    ) {
        let [sender, recipient] = self.message_fields(line, kind, update);
        let in_replay = self.view.in_replay();
        let mut named: Vec<&str> = Vec::new();
        for id in [sender.set(), recipient.set()].into_iter().flatten() {
            if batch.active {
                batch.borne.push(id.into());
            }
            if !in_replay && id != outer && !named.contains(&id) {
                named.push(id);
                let mut scratch = Batch::default();
                self.bears(line, id, "a message participant", &mut scratch);
            }
        }
        let Some(message_id) = update.get("messageId").and_then(Json::as_str) else {
            self.report(
                line,
                Code::MessageIdMissing,
                format!(
                    "`{kind}` needs a string `messageId`, unique within session `{outer}`'s transcript"
                ),
            );
            return;
        };
        if self
            .ordinary_messages
            .get(outer)
            .is_some_and(|ids| ids.contains(message_id))
        {
            self.message_id_conflict(line, outer, message_id);
        }
        self.message_participants(line, outer, message_id, [sender, recipient]);
    }

    /// Accumulates a message's participants (2026-09-24, 2026-10-05: a known one never
    /// changes; final: patches) and checks the pair once it changes.
    fn message_participants(
        &mut self,
        line: usize,
        outer: &str,
        message_id: &str,
        [sender, recipient]: [Patch<'_, &str>; 2],
    ) {
        let final_rev = self.view.spec() == Revision::Final;
        let known = self.view.known_participants(outer, message_id);
        let mut acc = [known.0.clone(), known.1.clone()];
        for (slot, (name, supplied)) in acc
            .iter_mut()
            .zip([("sender", sender), ("recipient", recipient)])
        {
            // Final: a patch (`null` clears, a value replaces).
            if final_rev {
                match supplied {
                    Patch::Null => *slot = None,
                    Patch::Set(new) => *slot = Some(new.into()),
                    Patch::Omitted | Patch::Invalid(_) => {}
                }
                continue;
            }
            match (slot.as_deref(), supplied.set()) {
                (Some(old), Some(new)) if old != new => {
                    self.report(
                        line,
                        Code::MessageParticipantChanged,
                        format!(
                            "message `{message_id}` in `{outer}` already has {name} `{old}`, now `{new}`; participants never change — omit them or repeat the same id"
                        ),
                    );
                }
                (None, Some(new)) => *slot = Some(new.into()),
                _ => {}
            }
        }
        let changed = acc != [known.0, known.1];
        if let [Some(s), Some(r)] = &acc
            && changed
        {
            if s == r {
                self.report(
                    line,
                    Code::MessageParticipantsSame,
                    format!(
                        "message `{message_id}` has `{s}` as both sender and recipient; they must identify different sessions"
                    ),
                );
            } else if &**s != outer && &**r != outer {
                self.report(
                    line,
                    Code::MessageOuterMismatch,
                    format!(
                        "message `{message_id}` from `{s}` to `{r}` is reported in `{outer}`'s transcript; report it in the sender's (outgoing) or the recipient's (incoming) transcript"
                    ),
                );
            }
        }
    }

    fn message_id_conflict(&mut self, line: usize, session: &str, message: &str) {
        let key = (Id::from(session), Id::from(message));
        if self.conflicted.insert(key.clone()) {
            self.report(
                line,
                Code::MessageIdConflict,
                format!(
                    "message id `{}` of `{}` is used both by a session message and by another kind of message; message ids are unique within a session",
                    key.1, key.0
                ),
            );
        }
    }
}
