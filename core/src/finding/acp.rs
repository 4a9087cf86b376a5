//! The ACP rules' texts: for every ACP conformance code, its precise definition, the
//! RFD text it enforces ("Subagent Sessions") and an example, plus the checker's model
//! of a trace that every rule uses.

use super::Code;
use super::Revision;

/// The checker's model of a trace, shared by every rule (printed by `lineage rules`).
pub const MODEL: &str = "\
Connection: the trace start, a {\"from\":\"transport\",\"event\":\"connected\"} record or a Client `initialize` request starts one; a disconnect ends it. A connection start resets pending requests (keyed by requesting side and id), the children announced on it, effective capabilities, current work states and message state.
Version: `protocolVersion` of the `initialize` response, else the trace header's; unknown => version-specific rules are skipped.
Load reset: a Client `session/load` or `session/resume` of R drops R's descendants from the announced set, with their effective capabilities and current state.
Replay window: from a `session/load` (or a `session/resume` with non-null `replayFrom`) request to its response. A resume without `replayFrom` has none.
Trace-wide memory (never reset): every child with its parent, and the roots the Agent created (`session/new`, `session/fork` results).
Revision: `--spec 2026-09-24` (the default, else the trace header's \"spec\"), `2026-10-05` (the error stop reason and the narrowed cancel cascade) or `final` (participant and v2 `_meta` patches, message correlation ids, content-only chunks, execution-context and session-reference fields); a rule that does not apply to the revision reports nothing.
Findings point at the line of the record that breaks the rule (end-of-trace findings at the record they concern); a JSON-RPC batch is read in array order.";

/// The documentation of an ACP rule: summary, definition, RFD quote, example (`None`
/// for codes that are not ACP rules).
pub(crate) fn text(rule: Code) -> Option<(&'static str, &'static str, &'static str, &'static str)> {
    use Code::*;
    Some(match rule {
        SubagentsNotNegotiated => (
            "v1: subagent updates sent although the Client did not advertise `subagents`",
            "ACP v1 only. An Agent `session/update` whose update is `subagent_update`, `session_message` or `session_message_chunk`, sent while this connection's `initialize` request did not carry `clientCapabilities.subagents` as a JSON object (`true`, `[]`, `null` and absent do not count). Skipped when no `initialize` request was seen on the connection or the version is not known to be 1. Replay is included. Under the final revision a `{\"type\":\"session\"}` tool-call content item counts too. When the Client signals support only through a flag in `clientCapabilities._meta` (a key naming subagents, such as claude-agent-acp's `nativeSubagentSessions`), the finding stays and says such bridges are compatibility shims.",
            "In v1, an Agent **MUST NOT** send the updates defined by this RFD unless the Client advertised `subagents`. It may still use subagents internally and present their results through the parent session.",
            "initialize params: {\"protocolVersion\":1,\"clientCapabilities\":{}}\nlater: {\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\"}  <- error\nFix: present the child's work through the parent session, or have the Client send \"subagents\": {}.",
        ),
        TrafficBeforeAnnounce => (
            "traffic bearing a child before its announcement on this connection",
            "An Agent record *bears* session X when X is the outer `params.sessionId` of any `session/update` (a `subagent_update` announcing X's own child bears X, which gives parent-before-child order), the `params.sessionId` of any Agent→Client request, or the `senderSessionId`/`recipientSessionId` of a session message or chunk. Reported when X is a child (known anywhere earlier in the trace) not announced on this connection since the last reset (connection start, or a `session/load`/`session/resume` of an ancestor), or X was never set up on this connection at all (`session/new`/`session/fork` result, `session/load`/`session/resume` request). Only sender/recipient ids inside a replay window are exempt; replayed announcements count and need not be repeated after the response. Under the final revision the `sessionId` of a `{\"type\":\"session\"}` tool-call content item is borne too (the referenced session must already be known).",
            "When an Agent creates a subagent that it wants to expose, it **MUST** send the announcing `subagent_update` before sending any request or notification bearing the child's session ID, including any live session message naming it as sender or recipient. […] Before using a child in live traffic, the Agent establishes the child's complete ancestor chain in parent-before-child order during this load/resume.",
            "{\"method\":\"session/request_permission\",\"params\":{\"sessionId\":\"A\",…}}  <- error: A not announced yet\nFix: send {\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\"} on the parent's stream first (or keep the operation on the parent).",
        ),
        Reparent => (
            "a child associated under a second parent",
            "A `subagent_update` associates a child under an outer `sessionId` other than the parent remembered for it (trace-wide, across reconnects and loads). Re-announcing under the same parent after a reset is required, not a violation. The association is ignored.",
            "A child has one immediate parent; the association cannot reparent an existing session, refer to itself, or create a cycle. […] It **MUST NOT** guess parentage or temporarily announce a nested child under the root.",
            "line 5: R announces A; line 9: {\"sessionId\":\"B\",\"update\":{\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\"}}  <- error\nFix: announce A only under its one true parent; buffer until the parent is known.",
        ),
        SelfAssociation => (
            "a session associated as its own child",
            "A `subagent_update` whose `update.sessionId` equals the outer `params.sessionId`. The association is ignored.",
            "A child has one immediate parent; the association cannot reparent an existing session, refer to itself, or create a cycle.",
            "{\"sessionId\":\"A\",\"update\":{\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\"}}  <- error\nFix: send the association on the parent's stream.",
        ),
        AssociationCycle => (
            "an association that makes a session its own ancestor",
            "A `subagent_update` that would make a session its own ancestor (using the trace-wide parent memory), or that announces a root the Agent created (`session/new` or `session/fork` result) as a child. The association is ignored.",
            "A child has one immediate parent; the association cannot reparent an existing session, refer to itself, or create a cycle.",
            "R announces A, A announces B, then B announces A  <- error\nFix: never associate an ancestor or a top-level session as a child.",
        ),
        SessionIdReused => (
            "a new session reuses an id announced as a child",
            "A `session/new` or `session/fork` result whose `sessionId` equals an id announced earlier in the trace as a child.",
            "`update.sessionId` is an opaque `SessionId` unique within the ACP connection. It identifies the same child across repeated delegations and **MUST NOT** be reused for an unrelated session.",
            "child A announced under R; later session/new returns {\"sessionId\":\"A\"}  <- error\nFix: mint a fresh id for every new session.",
        ),
        MessageIdMissing => (
            "a session message without a string `messageId`",
            "A `session_message` or `session_message_chunk` whose `messageId` is absent, `null` or not a string. The update cannot be placed in any transcript.",
            "`messageId`: required, non-nullable, and unique within the enclosing session, just like other message IDs. It identifies the entry in that transcript, not a globally shared message or either participant.",
            "{\"sessionUpdate\":\"session_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}  <- error\nFix: add \"messageId\": \"msg_1\".",
        ),
        ChunkContentInvalid => (
            "a chunk whose `content` is not one ContentBlock",
            "A `session_message_chunk` whose `content` is not a single ContentBlock object with a string `type` (absent, `null`, an array, or an object without `type`).",
            "`content`: a `session_message` may replace the whole `ContentBlock[]`; `session_message_chunk` requires one non-nullable `ContentBlock` to append.",
            "{\"sessionUpdate\":\"session_message_chunk\",\"messageId\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}  <- error\nFix: send one block per chunk: \"content\": {\"type\":\"text\",\"text\":\"a\"}.",
        ),
        FieldInvalid => (
            "a subagent field of the wrong JSON type (lenient decoders drop it silently)",
            "`title`/`description` not a string or null; `capabilities`, `capabilities.cancel` or `state` not an object or null; a `state` object without a string `state`; `session_message.content` not an array or null; `senderSessionId`/`recipientSessionId` not a string or null. The official schema decodes such a field as *omitted* (`DefaultOnError`), so the Client silently ignores it; the view does the same. From 2026-10-05 also: a state's `error` not object or null (the 2026-10-01 error idle). Under the final revision also: `cwd`, `senderMessageId`, `recipientMessageId` not string or null; `additionalDirectories` not an array of strings or null.",
            "In both versions, these optional fields are nullable patches: omission means unchanged, `null` clears the field, and a concrete value replaces the whole previous field. […] `cancel` is an optional, nullable capability object: omitted or `null` means unsupported, while `{}` advertises support.",
            "{\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\",\"capabilities\":{\"cancel\":true}}  <- error (and legacy-draft-shape)\nFix: \"capabilities\": {\"cancel\": {}}.",
        ),
        MessageParticipantsSame => (
            "a message whose sender and recipient are the same session",
            "Once both participants of a message (keyed by outer `sessionId` and `messageId`) are known, they are the same id. Reported once, on the record that completes the pair.",
            "Known participant information must remain consistent with the enclosing transcript and earlier updates for that message. When both IDs are known, they identify different sessions and the outer `params.sessionId` matches one of them.",
            "{\"sessionId\":\"R\",\"update\":{\"sessionUpdate\":\"session_message\",\"messageId\":\"m\",\"senderSessionId\":\"R\",\"recipientSessionId\":\"R\"}}  <- error\nFix: name the other session as recipient.",
        ),
        MessageOuterMismatch => (
            "a message placed in a transcript that is neither its sender's nor its recipient's",
            "Once both participants of a message are known, the outer `params.sessionId` equals neither. Reported once, on the record that completes the pair.",
            "When both IDs are known, they identify different sessions and the outer `params.sessionId` matches one of them. Matching the sender represents the outgoing view; matching the recipient represents the incoming view.",
            "{\"sessionId\":\"B\",\"update\":{\"sessionUpdate\":\"session_message\",\"messageId\":\"m\",\"senderSessionId\":\"R\",\"recipientSessionId\":\"A\"}}  <- error\nFix: report the message in R's transcript (outgoing) and/or A's (incoming).",
        ),
        MessageParticipantChanged => (
            "a known message participant replaced by another id",
            "Messages are keyed by (outer `sessionId`, `messageId`); participants accumulate over upserts and chunks; omitted and `null` mean \"not supplied\" and never change them; a known participant replaced by a different id is the violation (the view keeps the first). This state resets per connection and, for the loaded session's subtree, at the start of a replay. Checked against 2026-09-24 and 2026-10-05 only: in the final revision participants are patches (`null` clears, a value replaces), and `message-participants-same` / `message-outer-mismatch` check the patched values.",
            "For these identity fields, omission and `null` mean not supplied: the Client retains any previously reported value. […] Known participant information must remain consistent with the enclosing transcript and earlier updates for that message.",
            "chunk 1: \"senderSessionId\":\"R\"; chunk 2 of the same messageId: \"senderSessionId\":\"B\"  <- error\nFix: keep participants stable, or use a new messageId for a new message.",
        ),
        MessageIdConflict => (
            "one message id used for a session message and another kind of message",
            "The same (session, `messageId`) is used on this connection by a `session_message`/`session_message_chunk` and by another kind of message (`agent_message_chunk`, `user_message_chunk`, `agent_thought_chunk`). Reported once per id.",
            "`messageId`: required, non-nullable, and unique within the enclosing session, just like other message IDs.",
            "agent_message_chunk messageId \"m1\" then session_message messageId \"m1\" in the same session  <- warning\nFix: draw session-message ids from the same unique space as other message ids.",
        ),
        StaleMirror => (
            "v2: a delayed state copy that would overwrite newer state",
            "ACP v2, current snapshots only (not inside a replay window; reset at a load/resume covering the child). A snapshot is `state` + `stopReason`; the child's own `state_update` stream is authoritative. A parent copy S (`subagent_update.state`) is stale when the child's stream reported S and then a different snapshot, unless the child's next report is S again (the parent carried a new transition first); it is reported at the parent copy's line once the child's next report or the end of the connection decides. A child `state_update` S is stale when the parent path reported S and then a different S′ the child has not yet reported. Repeated equal copies in a row never count.",
            "Mirrored reports use the same `StateUpdate` snapshot and are idempotent: a second copy does not represent additional work, completion, or token usage. Copies of a transition precede later transitions on either path, so a delayed mirror cannot overwrite newer state.",
            "child: running, idle; then parent: {\"state\":{\"state\":\"running\"}}  <- error (and the child never reports running again)\nFix: mirror each transition before the next one on either path.",
        ),
        StateNotMirrored => (
            "v2: a child state never mirrored on the parent association",
            "ACP v2: a current child `state_update` with no equal parent `subagent_update.state` (before or after it) before the child's next different report, the parent path's next transition, a reset covering the child, or the end of the connection. Reported at the child's report.",
            "V2 uses the child's ordinary `state_update` notifications and their existing foreground-work semantics. Agents **SHOULD** also mirror each reported child state on the immediate parent's `subagent_update.state`, so both the parent's roster and the child's own stream carry the information.",
            "child stream: {\"sessionUpdate\":\"state_update\",\"state\":\"running\"}, then idle, with no parent subagent_update carrying running  <- warning\nFix: send {\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\",\"state\":{\"state\":\"running\"}} on the parent stream.",
        ),
        BatchDependency => (
            "v2: an announcement or a freshness boundary shares a batch with what depends on it",
            "ACP v2: one JSON-RPC batch holds an announcement of X (the record that makes X announced on this connection) and traffic bearing X; or the success response to a `session/resume` with non-null `replayFrom` together with, after it in array order, a `subagent_update` carrying `state` or `capabilities`, or a `state_update`, of a session in that resumed subtree. Reported once per session per batch.",
            "In v2, Agents **MUST NOT** place an announcement and traffic that depends on it in the same JSON-RPC batch, since batch entries may be processed in any order. […] In v2, the response and current snapshots that depend on this boundary **MUST NOT** share a JSON-RPC batch.",
            "[{…subagent_update announcing A…},{…session/update with sessionId A…}]  <- error\nFix: send the announcement in its own message (or an earlier batch).",
        ),
        RequestReissued => (
            "replay reissues a permission request that was already answered",
            "Inside a replay window, a `session/request_permission` whose (`sessionId`, `toolCall.toolCallId`) matches a request already answered before the current load/resume request (same or earlier connection). Requests still pending at a disconnect may be issued again.",
            "Replay **MUST NOT** reissue recorded permission, elicitation, or other Agent-to-Client requests. Newly issued requests are live and may proceed once their child and ancestors are announced, under ordinary request handling.",
            "call_1 permission answered on connection 1; during session/load on connection 2 the Agent sends session/request_permission for call_1 again  <- error\nFix: replay the tool call's history, not its request.",
        ),
        ChildCapabilityBypass => (
            "a child uses fs/terminal methods the Client never advertised",
            "The Agent sends `fs/read_text_file`, `fs/write_text_file` or `terminal/*` with a child's `sessionId` although this connection's `initialize` request did not advertise `clientCapabilities.fs.readTextFile`, `fs.writeTextFile` or `terminal` respectively as `true`. Skipped when no `initialize` request was seen on the connection.",
            "Agent-to-Client requests made on behalf of a child are subject to the same Client capabilities and permission checks as the parent's, and the Agent **MUST NOT** use a child to circumvent restrictions the Client imposed on the parent session.",
            "initialize: \"fs\":{\"readTextFile\":true}; later {\"method\":\"fs/write_text_file\",\"params\":{\"sessionId\":\"A\",…}}  <- error\nFix: do the write in the Agent's own runtime or ask the user through the parent.",
        ),
        CancelNotConfirmed => (
            "a cancelled running child never confirmed it stopped",
            "At the end of the trace, with no disconnect or reload since the cancel: a child that was `running` or `requires_action` (current state) when a Client `session/cancel` named it or (2026-09-24 only) an ancestor never reported a later current `idle` (any `stopReason`) or `unknown`, on either path. Reported at the cancel's line. From 2026-10-05 a cancel reaches the cancelled session and the descendant work it waits on, which the wire does not show, so only the named child must confirm.",
            "Cancellation retains ordinary session semantics: abort the affected work and send its pending updates before confirming cancellation. A child confirms cancellation with `idle` and `stopReason: \"cancelled\"` through its v1 state snapshot or ordinary v2 notification, mirrored on the v2 parent association. […] If activity becomes unobservable, it reports `unknown` rather than inventing a cancelled outcome.",
            "A running; Client sends session/cancel A; the trace ends with no idle/unknown for A  <- warning\nFix: report {\"state\":{\"state\":\"idle\",\"stopReason\":\"cancelled\"}} once the work stopped (or unknown).",
        ),
        LegacyDraftShape => (
            "an earlier-draft subagent shape",
            "Earlier-draft shapes, each named with the draft it follows and the current shape: `subagent_spawned` / `subagent_state_update` updates and the terminal states `completed`, `failed`, `cancelled`, `disconnected` (the 2026-08-19 … 2026-08-31 drafts); fields `subagentSessionId`, `name`, `task` in a `subagent_update` (the 2026-09-15 draft); a boolean `capabilities.cancel`. A draft `subagent_spawned` is not an announcement. One finding per update, listing every draft element.",
            "Merged `subagent_spawned` and `subagent_state_update` into a single upsert-style `subagent_update` […] made `name`, `task`, and `capabilities` optional […] Replaced the terminal lifecycle enum with v1 work-state snapshots and normal v2 state notifications. (Revision history.) Cancellation uses `idle` with `stopReason: \"cancelled\"`, not a terminal child state.",
            "{\"sessionUpdate\":\"subagent_spawned\",\"subagentSessionId\":\"A\",\"name\":\"worker\",\"task\":\"…\"}  <- warning\nFix: {\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\",\"title\":\"worker\"}; report idle+cancelled instead of \"cancelled\".",
        ),
        UnknownState => (
            "a work state the RFD does not define (preserved)",
            "A state value outside `running`, `requires_action`, `unknown`, `idle` that does not start with `_` and is not an earlier-draft state (those are `legacy-draft-shape`). The view preserves it with its payload; it implies neither completion nor closure.",
            "Unrecognized state objects preserve both their discriminator and payload. Values beginning with `_` are implementation-specific; other unknown values are reserved for future ACP states. An unknown value does not imply completion or closure.",
            "{\"state\":{\"state\":\"paused\"}}  <- note\nFix: use `_paused` for an implementation-specific state.",
        ),
        ChildListed => (
            "a child appears in a `session/list` result",
            "A `session/list` result contains the id of a child (a session associated under a parent earlier in the trace). One note per listed child.",
            "Restricted children are discovered through parent associations rather than ordinary standalone `session/list` entries. This avoids offering load, resume, or prompt controls that are not available for them.",
            "session/list result {\"sessions\":[{\"sessionId\":\"A\",…}]} where A is a child  <- note\nFix: list only top-level sessions.",
        ),
        ChildMutation => (
            "the Client mutates a restricted child session",
            "The Client sends `session/prompt`, `session/load`, `session/resume`, `session/set_mode`, `session/set_config_option`, `session/set_model`, `session/fork` or `session/close` naming a child (trace-wide child set, so a load of a child after a reconnect is caught): error. Any other `session/*` method or `_`-prefixed method naming a child: **warning** (it may be an unadvertised mutation). `session/cancel` is `cancel-not-granted`'s; responses and `session/list` are never mutations.",
            "Clients **MUST NOT** invoke an unadvertised mutation, including a future method, merely because the Agent supports it for ordinary sessions. […] The only mutation capability defined by this RFD is `cancel`; direct child load, resume, and close are therefore not allowed. […] Clients **MUST NOT** call `session/load` or `session/resume` on a child to begin receiving its events.",
            "{\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"A\",…}} where A is a child  <- error\nFix: prompt the parent; the parent Agent delegates to its child.",
        ),
        CancelNotGranted => (
            "the Client cancels a child without a current `cancel` grant",
            "A Client `session/cancel` naming a child X unless X was announced on this connection since the last reset and its current effective `cancel` is a JSON object. Effective capabilities start empty at each connection and at each load/resume covering X; `capabilities` omitted keeps them, `null` empties them, an object replaces them (no `cancel` object ⇒ no grant); `cancel: true` is no grant. Grants received inside a replay window do not count; for a resume without replay, grants after the request are current but no child cancel is allowed before the success response, and an error response voids every grant received during that attempt. Root sessions are exempt.",
            "If `capabilities.cancel` is a non-null object, the Client may send the existing `session/cancel` notification with the child's session ID. […] When loading or resuming a parent, the Client **MUST** invalidate cached live work state and mutation authorization for its children. […] The Client **MUST NOT** enable child mutations until the load/resume succeeds and a current capability grants them.",
            "A announced with \"capabilities\":{\"cancel\":null}; Client sends {\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"A\"}}  <- error\nFix: cancel the parent turn instead, or wait for a current {\"cancel\":{}} grant.",
        ),
        PermissionNotCancelled => (
            "a permission request of cancelled work answered with something other than `cancelled`",
            "After a Client `session/cancel` or `session/close` of S, a `session/request_permission` that was pending at that moment on this connection for S or a known descendant not confirmed `idle` is answered with anything but `{\"outcome\":{\"outcome\":\"cancelled\"}}` (an error response counts). S's parent and siblings are never affected. From 2026-10-05 a `session/cancel` reaches S's own requests only; a descendant D's requests pending when D reports `idle` with `stopReason: \"cancelled\"` (after a cancel of D or an ancestor on this connection) must then be answered cancelled; until then the user may answer them. A `session/close` still reaches every descendant.",
            "When the Client cancels child work, directly or through an ancestor, it **MUST** respond to pending `session/request_permission` requests for the affected work with the `cancelled` outcome, following the existing cancellation rule. (2026-10-05, in our words: it MUST answer that session's pending permission requests; the cancel does not by itself resolve a descendant's requests; once a descendant reports a cancelled idle, the Client cleans up its requests as if it had cancelled it directly.)",
            "permission 7 pending for A; session/cancel R; response 7 {\"outcome\":{\"outcome\":\"selected\",\"optionId\":\"allow\"}}  <- error\nFix: answer {\"outcome\":{\"outcome\":\"cancelled\"}}.",
        ),
        PermissionLeftPending => (
            "a permission request of cancelled work never answered",
            "A permission request affected by a cancel or close, or (from 2026-10-05) by a descendant's cancelled idle (see `permission-not-cancelled`), is still unanswered at the end of the trace and the connection never dropped. Reported at the request's line (and not again as `child-request-unanswered`).",
            "When the Client cancels child work, directly or through an ancestor, it **MUST** respond to pending `session/request_permission` requests for the affected work with the `cancelled` outcome. […] Responses to Agent-to-Client requests are not Client-initiated session mutations and **MUST** still be delivered.",
            "permission 7 pending for A; session/cancel A; the trace ends  <- warning\nFix: answer request 7 with {\"outcome\":{\"outcome\":\"cancelled\"}}.",
        ),
        ElicitationNotCancelled => (
            "an elicitation of cancelled work not answered with `cancel`",
            "An `elicitation/create` request of the affected work (its `sessionId` is the cancelled or closed session or a known descendant not confirmed `idle`; from 2026-10-05 a cancel reaches descendants as in `permission-not-cancelled`), pending at such a cancel or close, answered with anything but `{\"action\":\"cancel\"}`, or left unanswered at the end of the trace with no disconnect (then reported at the request's line).",
            "It **SHOULD** dismiss affected elicitation controls and respond with the `cancel` action. The same cleanup applies when closing the parent.",
            "elicitation 8 pending for A; session/cancel A; response 8 {\"action\":\"accept\",…}  <- warning\nFix: answer {\"action\":\"cancel\"}.",
        ),
        DuplicateResponse => (
            "a second response to one request",
            "A response to a request that was already answered on this connection (keyed by connection, requesting side and id). Reusing an id for a new request after its answer is fine.",
            "A late response still resolves its original request, but the Agent **MUST NOT** use it to restart cancelled or otherwise abandoned work, or to authorize a new assignment to the same child. A request **MUST NOT** receive more than one response.",
            "response {\"id\":7,\"result\":…} twice  <- error\nFix: answer each request exactly once.",
        ),
        UnknownResponse => (
            "a response to no pending request",
            "A response whose id matches no pending request of the other side on this connection (and none answered before, which would be `duplicate-response`). Ids compare as JSON values (`5` and `5.0` are one id; `\"5\"` is another). An error response with `\"id\": null` (JSON-RPC 2.0: the request's id could not be read) answers nothing and is accepted.",
            "A request **MUST NOT** receive more than one response. (JSON-RPC 2.0: a response answers a request.)",
            "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}} with no request 99  <- warning\nFix: check the id, or capture the whole connection.",
        ),
        ChildRequestUnanswered => (
            "an Agent→Client request for a child never answered",
            "At the end of the trace, an Agent→Client request whose `sessionId` is a child is still unanswered and the connection never dropped. Reported at the request's line. Requests already reported by `permission-left-pending` or `elicitation-not-cancelled` are not reported again.",
            "Responses to Agent-to-Client requests are not Client-initiated session mutations and **MUST** still be delivered. […] Requests remain attributed to their original child session and **MUST NOT** move to the parent or a later operation.",
            "{\"id\":7,\"method\":\"session/request_permission\",\"params\":{\"sessionId\":\"A\",…}} and no response  <- warning\nFix: the Client answers every request it receives, child or not.",
        ),
        MalformedRecord => (
            "a line that is not a valid `acp` record",
            "Not JSON; not a record (`{\"from\":\"client\"|\"agent\",\"message\":…}` or `{\"from\":\"transport\",\"event\":\"connected\"|\"disconnected\"}`, optional numeric `at`); a batch entry that is not a JSON-RPC message; or a subagent-related update missing a required field (`session/update` without string `params.sessionId`, object `params.update` or string `sessionUpdate`; `subagent_update` without string `update.sessionId`; `state_update` without string `state`). Processing continues with the next entry or line.",
            "Only `update.sessionId` is required.",
            "{\"from\":\"agent\",\"message\":{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"R\",\"update\":{\"sessionUpdate\":\"subagent_update\"}}}}  <- error\nFix: name the child in update.sessionId.",
        ),
        WorkWithoutRunning => (
            "v1: a child does work before reporting `running`",
            "ACP v1 only. A child's own stream (outer `sessionId` = the child) carries new work, an `agent_message_chunk`, `agent_thought_chunk`, `tool_call` or `plan`, while its current work state on this connection is absent (never reported, cleared, or reset by a load/resume): reported at once, once until its next state report. Work while its state is `idle` is reported (at the work's line) only when the child's next state report is `running` or `requires_action`, which shows its foreground work started before it was reported; followed by another `idle`, `unknown` or nothing it is background activity, which the RFD allows. Output while idle after a cancelled idle, or after a Client `session/cancel` of the child or an ancestor on this connection, is late fallout of the cancelled work. Outside replay windows; an unannounced child's traffic is `traffic-before-announce`'s.",
            "When the v1 Agent observes child foreground work starting, resuming, or stopping, it **MUST** report the corresponding `running` or `idle` state. […] As in ordinary v2 sessions, background activity may still emit updates while foreground work is idle.",
            "A announced without state; {\"sessionId\":\"A\",\"update\":{\"sessionUpdate\":\"tool_call\",\"toolCallId\":\"c1\",…}}  <- warning\nA idle; a chunk on A's stream; then A reports running  <- warning at the chunk\nFix: report {\"state\":{\"state\":\"running\"}} on A's association before its work starts.",
        ),
        ToolCallForeign => (
            "a tool-call update on a session other than the one that opened the call",
            "A `tool_call_update` (or a repeated `tool_call`) on session S for a `toolCallId` that S never opened while another session T opened it with `tool_call`. The view keeps the call on T, unchanged, and creates nothing on S. Reported once per (session, tool call).",
            "The child's own messages, plans, and tool calls have outer `sessionId: \"sess_child_1\"`. They update the child's history, not the parent session. […] Requests remain attributed to their original child session and **MUST NOT** move to the parent or a later operation.",
            "{\"sessionId\":\"A\",…\"tool_call\",\"toolCallId\":\"c1\"}; later {\"sessionId\":\"R\",…\"tool_call_update\",\"toolCallId\":\"c1\",\"status\":\"completed\"}  <- warning\nFix: update the call on the session that opened it (A).",
        ),
        UpdateAfterCancelConfirmed => (
            "a tool-call update after the session confirmed the Client's cancel",
            "After a Client `session/cancel` reached session S (directly, or through an ancestor where the revision cascades), the view shows S's unfinished tool calls cancelled. Once S confirms the cancel with a current `idle` whose `stopReason` is `cancelled`, a `tool_call_update` for one of those calls is a pending update of the cancelled work sent after the confirmation. The view still applies it. Reported once per (session, tool call), outside replay windows. A `running` report or an `end_turn` idle racing with the cancel is not this rule's: a cancellation racing with already-ended work does not rewrite that work's outcome.",
            "Cancellation retains ordinary session semantics: abort the affected work and send its pending updates before confirming cancellation. […] The Client **SHOULD** optimistically mark the affected unfinished tool calls as cancelled […] It **SHOULD** still accept subsequent Agent updates for those calls.",
            "Client session/cancel A; A reports {\"state\":\"idle\",\"stopReason\":\"cancelled\"}; then {\"sessionId\":\"A\",\"update\":{\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"c1\",\"status\":\"failed\"}}  <- warning\nFix: send the call's last update before the cancelled idle.",
        ),
        LaterRevisionStopReason => (
            "2026-09-24: an idle `stopReason: \"error\"` (defined from 2026-10-01)",
            "Checked against 2026-09-24 only. A v1 `subagent_update.state` (or a v2 `state_update`) `idle` whose `stopReason` is `\"error\"`: the seed's v1 idle takes v1's `StopReason` values, which have no `error`; the 2026-10-01 revision added it (with an optional `error` object). Check with `--spec 2026-10-05` or `--spec final` if the stream follows those.",
            "`idle`: foreground work is not in progress; the parent may assign more work. Optional nullable `stopReason` uses v1's existing `StopReason`. (2026-10-01, in our words: the v1 idle's `stopReason` takes v1's values plus `error`, with an optional nullable JSON-RPC `error` object beside it.)",
            "{\"state\":{\"state\":\"idle\",\"stopReason\":\"error\",\"error\":{…}}} checked against 2026-09-24  <- warning\nFix: check with --spec 2026-10-05 (or final), or report a v1 stop reason.",
        ),
        LaterRevisionField => (
            "a field that only a later revision defines (noted, never an error)",
            "Checked against 2026-09-24 or 2026-10-05. A field the final revision defines: `cwd` or `additionalDirectories` on `subagent_update`, `senderMessageId` or `recipientMessageId` on a session message, a `{\"type\":\"session\"}` tool-call content item. The field is preserved and not checked; the note names the revision. With `--spec final` each is checked by its own rule. Once per field name per connection.",
            "A future RFD may add explicit per-child execution-context fields if Clients need to display or negotiate them. […] No cross-session message-correlation ID is defined here. […] this RFD adds no session-reference variant to `ToolCallContent`.",
            "{\"sessionUpdate\":\"subagent_update\",\"sessionId\":\"A\",\"cwd\":\"/work\"} checked against 2026-09-24  <- note\nFix: none needed; check with --spec final to have it checked.",
        ),
        ChunkParticipants => (
            "final: a `session_message_chunk` carries participants",
            "Checked against the final revision only. A `session_message_chunk` with `senderSessionId` or `recipientSessionId` present: in the final revision a chunk carries only content, and participants come from `session_message` upserts; decoders of the final schema drop them.",
            "(Final revision, schema doc comment:) a chunk carries only content; participants come from `session_message` upserts.",
            "{\"sessionUpdate\":\"session_message_chunk\",\"messageId\":\"m\",\"senderSessionId\":\"R\",\"content\":{…}} under --spec final  <- error\nFix: send the participants in a metadata-only session_message.",
        ),
        AgentSubagentCapability => (
            "the Agent advertises a subagent capability of its own",
            "The Agent's `initialize` result carries a `subagents` member in `agentCapabilities` or in its `sessionCapabilities`. Nothing reads it: there is no Agent-side capability, the Client capability alone decides (v1).",
            "There is no Agent-side capability. Subagent visibility flows only from Agent to Client, so the Client capability alone is enough to prevent sending updates the other side cannot understand; a Client learns that a particular Agent exposes subagents by receiving the first update.",
            "initialize result {\"agentCapabilities\":{\"sessionCapabilities\":{\"subagents\":{}}}}  <- note\nFix: drop it; Clients learn of subagents from the first subagent_update.",
        ),
        CancelUnknownSession => (
            "the Client cancels a session it never saw set up or announced",
            "A Client `session/cancel` naming a session that was never set up (no `session/new`/`session/fork` result, no `session/load`/`session/resume` request) and never announced as a child anywhere in the trace. The view shows such a session as `kind: \"unknown\"` with no cancel control.",
            "If `capabilities.cancel` is a non-null object, the Client may send the existing `session/cancel` notification with the child's session ID. […] Clients **MUST NOT** invoke an unadvertised mutation",
            "{\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"X\"}} where X was never set up or announced  <- warning\nFix: cancel a session the Client knows (the root it prompted, or a granted child).",
        ),
        JsonrpcVersionMissing => (
            "a JSON-RPC message without `\"jsonrpc\": \"2.0\"`",
            "A message (or batch entry) that has no `jsonrpc` member or one other than the string `\"2.0\"`. The message is still read. Reported once per line.",
            "(JSON-RPC 2.0, Request object:) jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly \"2.0\".",
            "{\"id\":1,\"method\":\"session/new\",\"params\":{}}  <- warning\nFix: add \"jsonrpc\":\"2.0\" to every message.",
        ),
        _ => return None,
    })
}

/// The revisions an ACP rule applies to (every revision unless listed here).
pub(crate) fn revisions(rule: Code) -> &'static [Revision] {
    use Revision::{Final, Narrowed, Seed};
    match rule {
        Code::LaterRevisionStopReason => &[Seed],
        Code::LaterRevisionField => &[Seed, Narrowed],
        // The final revision patches participants (`null` clears, a value replaces).
        Code::MessageParticipantChanged => &[Seed, Narrowed],
        Code::ChunkParticipants => &[Final],
        _ => &Revision::ALL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_acp_rule_is_documented() {
        let acp: Vec<Code> = Code::ALL
            .iter()
            .copied()
            .filter(|c| c.is_acp_rule())
            .collect();
        assert_eq!(acp.len(), 40);
        for rule in acp {
            let (summary, definition, quote, example) = text(rule).unwrap();
            assert!(!summary.is_empty() && !definition.is_empty());
            assert!(!quote.is_empty() && !example.is_empty(), "{rule}");
        }
        assert!(text(Code::ReparentRejected).is_none());
    }
}
