//! The mapping from lineage's session tree (and an ACP Client view) to OpenTelemetry
//! spans, in one place: the span names, the attributes with where each value comes
//! from, the statuses and the event names. It follows the GenAI agent-span conventions
//! of OpenTelemetry semantic conventions [`SEMCONV_VERSION`] (still "Development":
//! when they move, this file and `docs/otel.md` move together, and [`TABLE`] is what
//! the docs list).
//!
//! Owns: every key and name the export writes. Never: reads time (`recorder.rs`) or
//! walks the tree (`tree.rs`, `acp.rs`).

use crate::acp::view::Session as AcpSession;
use crate::finding::Finding;
use crate::ids::TurnId;
use crate::trace::Format;
use crate::tree::{Interaction, Outcome, Session, ToolCall, ToolStatus, Turn, Usage};

use super::model::{KeyValue, STATUS_ERROR, Status};

/// The semantic-conventions release whose GenAI agent spans the export follows.
pub const SEMCONV_VERSION: &str = "1.41.0";
/// Its schema URL, written on the resource and the scope.
pub const SCHEMA_URL: &str = "https://opentelemetry.io/schemas/1.41.0";

/// One row of the mapping: an attribute (or span or event name), the spans it is on,
/// and what lineage writes there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Attribute key, or a span or event name.
    pub key: &'static str,
    /// Where: `resource`, `turn`, `tool`, `acp session`, `acp tool`, or an event name.
    pub on: &'static str,
    /// The value.
    pub value: &'static str,
}

const fn row(key: &'static str, on: &'static str, value: &'static str) -> Row {
    Row { key, on, value }
}

/// Every attribute the export writes. `docs/otel.md` lists the same rows.
pub const TABLE: &[Row] = &[
    row("service.name", "resource", "`lineage`"),
    row("lineage.trace.format", "resource", "the input's format"),
    row(
        "lineage.time.source",
        "resource",
        "`at` (the records' times) or `record-order` (no record has `at`: one millisecond per line from the Unix epoch)",
    ),
    row(
        "gen_ai.operation.name",
        "turn, acp session",
        "`invoke_agent`",
    ),
    row("gen_ai.operation.name", "tool, acp tool", "`execute_tool`"),
    row(
        "gen_ai.provider.name",
        "turn, acp session",
        "`openai` (Codex), `anthropic` (Claude), `_OTHER` (canonical, ACP)",
    ),
    row("gen_ai.agent.id", "turn, acp session", "the session id"),
    row(
        "gen_ai.agent.name",
        "turn, acp session",
        "the session's title, when it has one",
    ),
    row(
        "gen_ai.agent.description",
        "acp session",
        "the parent's description of the child",
    ),
    row(
        "gen_ai.conversation.id",
        "turn, tool, acp session, acp tool",
        "the root session id",
    ),
    row(
        "gen_ai.tool.name",
        "tool, acp tool",
        "the tool's name (else its title, else `tool`)",
    ),
    row("gen_ai.tool.call.id", "tool, acp tool", "the tool call id"),
    row(
        "gen_ai.usage.input_tokens",
        "turn",
        "the turn's input tokens, cached ones included (when the trace reports them)",
    ),
    row(
        "gen_ai.usage.output_tokens",
        "turn",
        "the turn's output tokens, reasoning included (when the trace reports them)",
    ),
    row(
        "gen_ai.usage.cache_read.input_tokens",
        "turn",
        "input tokens served from the prompt cache (when reported)",
    ),
    row(
        "gen_ai.usage.cache_creation.input_tokens",
        "turn",
        "input tokens written to the prompt cache (when reported)",
    ),
    row(
        "gen_ai.usage.reasoning.output_tokens",
        "turn",
        "output tokens spent on reasoning (when reported)",
    ),
    row(
        "error.type",
        "turn, tool, acp tool",
        "`_OTHER` when the turn or tool call failed",
    ),
    row(
        "openinference.span.kind",
        "turn, tool, acp session, acp tool",
        "`AGENT` or `TOOL` (Arize Phoenix's span kinds)",
    ),
    row(
        "lineage.session.id",
        "turn, tool, acp session, acp tool",
        "the session id",
    ),
    row(
        "lineage.session.kind",
        "turn, acp session",
        "`root` or `child`",
    ),
    row("lineage.turn.id", "turn, tool", "`<session>#<n>`"),
    row(
        "lineage.turn.phase",
        "turn",
        "`submitted`, `running`, `waiting`, `settling`, `settled`",
    ),
    row(
        "lineage.turn.outcome",
        "turn",
        "`completed`, `failed`, `canceled`, `interrupted` (settled turns)",
    ),
    row("lineage.turn.error", "turn", "the provider's error text"),
    row(
        "lineage.turn.late_terminal",
        "turn",
        "a provider terminal recorded after settlement",
    ),
    row(
        "lineage.turn.guidance",
        "turn",
        "guidance messages joined to the turn (when any)",
    ),
    row(
        "lineage.parent.turn",
        "turn",
        "children: the turn that spawned the session",
    ),
    row(
        "lineage.parent.tool_call",
        "turn",
        "children: the tool call that spawned it, when known",
    ),
    row(
        "lineage.root.turn",
        "turn",
        "children: the root turn it runs under",
    ),
    row(
        "lineage.provider.phase",
        "turn",
        "root turns: the root provider turn's phase",
    ),
    row(
        "lineage.provider.outcome",
        "turn",
        "root turns: the retained provider outcome",
    ),
    row(
        "lineage.cancel.target",
        "turn",
        "the turn a cancel covering this turn was requested for",
    ),
    row(
        "lineage.cancel.acknowledged",
        "turn",
        "whether the provider confirmed this target stopped",
    ),
    row(
        "lineage.tool.status",
        "tool, acp tool",
        "`in_progress`, `completed`, `failed`, `canceled` (ACP: as the Agent reported it)",
    ),
    row(
        "lineage.acp.state",
        "acp session",
        "the last work state (`running`, `idle`, `requires_action`, …)",
    ),
    row(
        "lineage.acp.stop_reason",
        "acp session",
        "the last state's `stopReason`",
    ),
    row(
        "lineage.acp.usage.used",
        "acp session",
        "the last `usage_update`'s `used` (context tokens)",
    ),
    row(
        "lineage.acp.usage.size",
        "acp session",
        "the last `usage_update`'s `size` (context window)",
    ),
    row(
        "lineage.acp.idle_transitions",
        "acp session",
        "transitions into `idle`",
    ),
    row(
        "lineage.interaction.kind",
        "lineage.interaction",
        "`approval` or `question`",
    ),
    row(
        "lineage.interaction.request",
        "lineage.interaction",
        "the provider's request id",
    ),
    row(
        "lineage.interaction.status",
        "lineage.interaction",
        "`pending`, `answered`, `resolved`, `superseded`",
    ),
    row(
        "lineage.interaction.tool_call",
        "lineage.interaction",
        "the tool call it is about",
    ),
    row(
        "lineage.interaction.answer",
        "lineage.interaction",
        "the client's answer",
    ),
    row(
        "lineage.cancel.operation",
        "lineage.cancel.*",
        "the turn the cancel was requested for",
    ),
    row(
        "lineage.cancel.targets",
        "lineage.cancel.prepared",
        "how many turns it covers",
    ),
    row(
        "lineage.acp.state",
        "lineage.acp.state",
        "a work state the session reported",
    ),
    row(
        "lineage.finding.rule",
        "lineage.finding",
        "the finding's code (`lineage rules <code>`)",
    ),
    row(
        "lineage.finding.severity",
        "lineage.finding",
        "`error`, `warning`, `note`",
    ),
    row(
        "lineage.finding.line",
        "lineage.finding",
        "the line it points at",
    ),
    row("lineage.finding.message", "lineage.finding", "its message"),
];

/// `gen_ai.provider.name` for a trace's format.
pub(super) fn provider(format: Format) -> &'static str {
    match format {
        Format::CodexAppServer => "openai",
        Format::ClaudeSdk => "anthropic",
        Format::Canonical | Format::Acp => "_OTHER",
    }
}

/// The resource: lineage, the input's format and where times come from.
pub(super) fn resource(format: Format, timed: bool) -> Vec<KeyValue> {
    vec![
        KeyValue::string("service.name", "lineage"),
        KeyValue::string("lineage.trace.format", format.to_string()),
        KeyValue::string(
            "lineage.time.source",
            if timed { "at" } else { "record-order" },
        ),
    ]
}

/// `invoke_agent <title>` (the session id when it has none).
pub(super) fn agent_span_name(title: Option<&str>, id: &str) -> String {
    format!("invoke_agent {}", title.unwrap_or(id))
}

/// What a turn span says about its turn.
#[derive(Debug, Clone, Copy)]
pub(super) struct TurnFacts<'a> {
    pub session: &'a Session,
    pub turn: &'a Turn,
    pub root: &'a str,
    pub provider: &'static str,
}

/// A turn span's attributes.
pub(super) fn turn_attributes(f: TurnFacts<'_>) -> Vec<KeyValue> {
    let (session, turn) = (f.session, f.turn);
    let mut a = vec![
        KeyValue::string("gen_ai.operation.name", "invoke_agent"),
        KeyValue::string("gen_ai.provider.name", f.provider),
        KeyValue::string("gen_ai.agent.id", session.id.as_str()),
    ];
    if let Some(title) = &session.title {
        a.push(KeyValue::string("gen_ai.agent.name", &**title));
    }
    a.push(KeyValue::string("gen_ai.conversation.id", f.root));
    if let Some(usage) = &turn.usage {
        usage_attributes(usage, &mut a);
    }
    if turn.outcome == Some(Outcome::Failed) {
        a.push(KeyValue::string("error.type", "_OTHER"));
    }
    a.push(KeyValue::string("openinference.span.kind", "AGENT"));
    a.push(KeyValue::string("lineage.session.id", session.id.as_str()));
    a.push(KeyValue::string(
        "lineage.session.kind",
        name(&session.kind),
    ));
    a.push(KeyValue::string("lineage.turn.id", turn.id.to_string()));
    a.push(KeyValue::string(
        "lineage.turn.phase",
        turn.phase.to_string(),
    ));
    if let Some(outcome) = turn.outcome {
        a.push(KeyValue::string(
            "lineage.turn.outcome",
            outcome.to_string(),
        ));
    }
    if let Some(error) = &turn.error {
        a.push(KeyValue::string("lineage.turn.error", &**error));
    }
    if let Some(late) = turn.late_terminal {
        a.push(KeyValue::string(
            "lineage.turn.late_terminal",
            late.to_string(),
        ));
    }
    if turn.guidance > 0 {
        a.push(KeyValue::int(
            "lineage.turn.guidance",
            u64::from(turn.guidance),
        ));
    }
    relation_attributes(session, turn, &mut a);
    a
}

/// The turn's token counts, each figure the trace reported (none is estimated).
fn usage_attributes(usage: &Usage, a: &mut Vec<KeyValue>) {
    for (figure, key) in [
        (usage.input_tokens, "gen_ai.usage.input_tokens"),
        (usage.output_tokens, "gen_ai.usage.output_tokens"),
        (
            usage.cache_read_input_tokens,
            "gen_ai.usage.cache_read.input_tokens",
        ),
        (
            usage.cache_creation_input_tokens,
            "gen_ai.usage.cache_creation.input_tokens",
        ),
        (
            usage.reasoning_output_tokens,
            "gen_ai.usage.reasoning.output_tokens",
        ),
    ] {
        if let Some(n) = figure {
            a.push(KeyValue::int(key, n));
        }
    }
}

/// A child's creator edge, a root turn's provider lifecycle, the cancel covering it.
fn relation_attributes(session: &Session, turn: &Turn, a: &mut Vec<KeyValue>) {
    if let Some(r) = &session.relation {
        a.push(KeyValue::string(
            "lineage.parent.turn",
            r.parent_turn.to_string(),
        ));
        if let Some(call) = &r.tool_call {
            a.push(KeyValue::string("lineage.parent.tool_call", call.as_str()));
        }
        a.push(KeyValue::string(
            "lineage.root.turn",
            r.root_turn.to_string(),
        ));
    }
    if let Some(gate) = &turn.gate {
        a.push(KeyValue::string(
            "lineage.provider.phase",
            name(&gate.provider.phase),
        ));
        if let Some(outcome) = gate.provider.outcome {
            a.push(KeyValue::string(
                "lineage.provider.outcome",
                outcome.to_string(),
            ));
        }
    }
    if let Some(cancel) = &turn.cancel {
        a.push(KeyValue::string(
            "lineage.cancel.target",
            cancel.operation.to_string(),
        ));
        a.push(KeyValue::bool(
            "lineage.cancel.acknowledged",
            cancel.acknowledged,
        ));
    }
}

/// A failed turn is an error; every other outcome (canceled and interrupted included,
/// which `lineage.turn.outcome` tells apart) and an open turn leave the status unset.
pub(super) fn turn_status(turn: &Turn) -> Status {
    match turn.outcome {
        Some(Outcome::Failed) => Status {
            code: STATUS_ERROR,
            message: Some(
                turn.error
                    .as_deref()
                    .unwrap_or("the turn failed")
                    .to_owned(),
            ),
        },
        _ => Status::default(),
    }
}

/// `execute_tool <name>`.
pub(super) fn tool_span_name(call: &ToolCall) -> String {
    format!("execute_tool {}", tool_name(call))
}

fn tool_name(call: &ToolCall) -> &str {
    call.name
        .as_deref()
        .or(call.title.as_deref())
        .unwrap_or("tool")
}

/// A tool call span's attributes.
pub(super) fn tool_attributes(call: &ToolCall, turn: &TurnId, root: &str) -> Vec<KeyValue> {
    let mut a = vec![
        KeyValue::string("gen_ai.operation.name", "execute_tool"),
        KeyValue::string("gen_ai.tool.name", tool_name(call)),
        KeyValue::string("gen_ai.tool.call.id", call.id.as_str()),
        KeyValue::string("gen_ai.conversation.id", root),
    ];
    if call.status == ToolStatus::Failed {
        a.push(KeyValue::string("error.type", "_OTHER"));
    }
    a.push(KeyValue::string("openinference.span.kind", "TOOL"));
    a.push(KeyValue::string(
        "lineage.session.id",
        turn.session().as_str(),
    ));
    a.push(KeyValue::string("lineage.turn.id", turn.to_string()));
    a.push(KeyValue::string("lineage.tool.status", name(&call.status)));
    a
}

/// A failed tool call is an error; a canceled one leaves the status unset.
pub(super) fn tool_status(failed: bool) -> Status {
    if failed {
        Status {
            code: STATUS_ERROR,
            message: Some("the tool call failed".to_owned()),
        }
    } else {
        Status::default()
    }
}

/// The `lineage.interaction` event's attributes.
pub(super) fn interaction_attributes(i: &Interaction) -> Vec<KeyValue> {
    let mut a = vec![
        KeyValue::string("lineage.interaction.kind", name(&i.kind)),
        KeyValue::string("lineage.interaction.request", i.request.as_str()),
        KeyValue::string("lineage.interaction.status", i.status.to_string()),
    ];
    if let Some(call) = &i.tool_call {
        a.push(KeyValue::string(
            "lineage.interaction.tool_call",
            call.as_str(),
        ));
    }
    if let Some(answer) = &i.answer {
        a.push(KeyValue::string("lineage.interaction.answer", &**answer));
    }
    a
}

/// Event names.
pub(super) const INTERACTION: &str = "lineage.interaction";
/// A cancel prepared for this turn (with its target count).
pub(super) const CANCEL_PREPARED: &str = "lineage.cancel.prepared";
/// This target's stop confirmed.
pub(super) const CANCEL_ACKNOWLEDGED: &str = "lineage.cancel.acknowledged";
/// The cancel requested for this turn completed.
pub(super) const CANCEL_COMPLETED: &str = "lineage.cancel.completed";
/// A finding at a line where this span's turn or session was the latest changed.
pub(super) const FINDING: &str = "lineage.finding";
/// An ACP work state reported.
pub(super) const ACP_STATE: &str = "lineage.acp.state";

/// A `lineage.cancel.*` event's attributes.
pub(super) fn cancel_attributes(operation: &TurnId, targets: Option<usize>) -> Vec<KeyValue> {
    let mut a = vec![KeyValue::string(
        "lineage.cancel.operation",
        operation.to_string(),
    )];
    if let Some(n) = targets {
        a.push(KeyValue::int("lineage.cancel.targets", n as u64));
    }
    a
}

/// The `lineage.finding` event's attributes.
pub(super) fn finding_attributes(f: &Finding) -> Vec<KeyValue> {
    vec![
        KeyValue::string("lineage.finding.rule", f.rule.as_str()),
        KeyValue::string("lineage.finding.severity", f.severity.to_string()),
        KeyValue::int("lineage.finding.line", f.line as u64),
        KeyValue::string("lineage.finding.message", f.message.as_str()),
    ]
}

/// An ACP session span's attributes.
pub(super) fn acp_session_attributes(s: &AcpSession, root: &str) -> Vec<KeyValue> {
    let mut a = vec![
        KeyValue::string("gen_ai.operation.name", "invoke_agent"),
        KeyValue::string("gen_ai.provider.name", provider(Format::Acp)),
        KeyValue::string("gen_ai.agent.id", &*s.id),
    ];
    if let Some(title) = &s.title {
        a.push(KeyValue::string("gen_ai.agent.name", &**title));
    }
    if let Some(description) = &s.description {
        a.push(KeyValue::string("gen_ai.agent.description", &**description));
    }
    a.push(KeyValue::string("gen_ai.conversation.id", root));
    a.push(KeyValue::string("openinference.span.kind", "AGENT"));
    a.push(KeyValue::string("lineage.session.id", &*s.id));
    let kind = if s.parent.is_some() { "child" } else { "root" };
    a.push(KeyValue::string("lineage.session.kind", kind));
    let state = s.state.as_deref();
    if let Some(name) = state.and_then(|v| v.get("state")).and_then(|v| v.as_str()) {
        a.push(KeyValue::string("lineage.acp.state", name));
    }
    if let Some(reason) = state
        .and_then(|v| v.get("stopReason"))
        .and_then(|v| v.as_str())
    {
        a.push(KeyValue::string("lineage.acp.stop_reason", reason));
    }
    for (field, key) in [
        ("used", "lineage.acp.usage.used"),
        ("size", "lineage.acp.usage.size"),
    ] {
        if let Some(n) = s
            .detail()
            .usage
            .as_ref()
            .and_then(|u| u.get(field))
            .and_then(|v| v.as_u64())
        {
            a.push(KeyValue::int(key, n));
        }
    }
    a.push(KeyValue::int(
        "lineage.acp.idle_transitions",
        s.idle_transitions,
    ));
    a
}

/// An ACP tool call span's name and attributes.
pub(super) fn acp_tool(
    session: &str,
    id: &str,
    call: &crate::acp::view::ToolCall,
    root: &str,
) -> (String, Vec<KeyValue>) {
    let tool = call
        .kind
        .as_deref()
        .or(call.title.as_deref())
        .unwrap_or("tool");
    let mut a = vec![
        KeyValue::string("gen_ai.operation.name", "execute_tool"),
        KeyValue::string("gen_ai.tool.name", tool),
        KeyValue::string("gen_ai.tool.call.id", id),
        KeyValue::string("gen_ai.conversation.id", root),
    ];
    if &*call.status == "failed" {
        a.push(KeyValue::string("error.type", "_OTHER"));
    }
    a.push(KeyValue::string("openinference.span.kind", "TOOL"));
    a.push(KeyValue::string("lineage.session.id", session));
    a.push(KeyValue::string("lineage.tool.status", &*call.status));
    (format!("execute_tool {tool}"), a)
}

/// The serialized (snake_case) name of a unit enum value.
fn name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}
