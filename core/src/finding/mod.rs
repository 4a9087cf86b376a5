//! Findings and the one catalogue of every code any layer can report.
//!
//! Owns: [`Finding`] (a located, coded report), [`Code`] (every stable kebab-case code:
//! trace reader, canonical reducer, provider adapters, ACP conformance rules) and its
//! documentation ([`Code::rule`], [`catalogue`]), which `lineage rules`, SARIF `rules[]`
//! and JUnit read. A finding can only be built from a [`Code`], so nothing can print a
//! code the catalogue lacks.
//! Never: decides when a code is raised; each layer does, and cites the specification
//! sentence in the entry's `quote`. It depends on no other module (every layer depends
//! on it).

pub(crate) mod acp;
mod revision;
mod texts;

pub use revision::{Revision, Shapes, UnknownRevision};

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

/// How serious a finding is.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Recorded in restricted form; the trace is fine.
    Note,
    /// Rejected by a lifecycle rule; often an adapter ordering problem.
    Warning,
    /// Impossible input.
    Error,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Which layer raises a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// The trace reader (every format): envelopes, headers, JSON.
    Trace,
    /// The canonical reducer (every format but `acp`).
    Reducer,
    /// The Codex app-server adapter.
    Codex,
    /// The Claude Agent SDK adapter.
    Claude,
    /// Both provider adapters.
    Providers,
    /// The readers of native sources (Codex rollouts, Claude Code transcripts).
    Native,
    /// An ACP conformance rule of the Subagent Sessions RFD, holding this party to
    /// account.
    Acp(Party),
}

impl Layer {
    /// A short name: `trace`, `reducer`, `codex`, `claude`, `providers`, `native`, `acp-agent`,
    /// `acp-client`, `acp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Trace => "trace",
            Layer::Reducer => "reducer",
            Layer::Codex => "codex",
            Layer::Claude => "claude",
            Layer::Providers => "providers",
            Layer::Native => "native",
            Layer::Acp(Party::Agent) => "acp-agent",
            Layer::Acp(Party::Client) => "acp-client",
            Layer::Acp(Party::Both) => "acp",
        }
    }
}

/// Which end of an ACP connection a rule holds to account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Party {
    /// The Agent's obligations.
    Agent,
    /// The Client's obligations.
    Client,
    /// Either end.
    Both,
}

impl Party {
    /// `agent`, `client` or `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            Party::Agent => "agent",
            Party::Client => "client",
            Party::Both => "both",
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $id:literal, $level:ident, $layer:expr;)*) => {
        /// Every finding code, in catalogue order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code { $(#[doc = $id] $variant,)* }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable kebab-case id.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $id,)* }
            }

            /// The documented level (a few codes also report a milder variant; the
            /// definition says when).
            pub fn level(self) -> Severity {
                match self { $(Code::$variant => Severity::$level,)* }
            }

            /// The layer that raises it (for a code two layers share, the first).
            pub fn layer(self) -> Layer {
                use Layer::*;
                match self { $(Code::$variant => $layer,)* }
            }
        }
    };
}

codes! {
    // Trace reader (every format).
    MalformedRecord = "malformed-record", Error, Acp(Party::Both);
    ValueDepthLimited = "value-depth-limited", Note, Trace;
    InvalidUtf8 = "invalid-utf8", Error, Trace;
    AtInvalid = "at-invalid", Warning, Trace;
    AtBackwards = "at-backwards", Note, Trace;
    UnknownHeaderVersion = "unknown-header-version", Warning, Trace;
    // Canonical reducer.
    EmptyId = "empty-id", Error, Reducer;
    UnknownSession = "unknown-session", Error, Reducer;
    DeletedSession = "deleted-session", Warning, Reducer;
    WrongSessionKind = "wrong-session-kind", Error, Reducer;
    SessionKindConflict = "session-kind-conflict", Error, Reducer;
    DuplicateSession = "duplicate-session", Note, Reducer;
    ReparentRejected = "reparent-rejected", Error, Reducer;
    DuplicateSpawn = "duplicate-spawn", Note, Reducer;
    SpawnCycle = "spawn-cycle", Error, Reducer;
    UnknownParentTurn = "unknown-parent-turn", Error, Reducer;
    UnknownTurn = "unknown-turn", Error, Reducer;
    SpawnUnderSettledTurn = "spawn-under-settled-turn", Warning, Reducer;
    SpawnAfterCancel = "spawn-after-cancel", Warning, Reducer;
    AliasConflict = "alias-conflict", Error, Reducer;
    UnownedProviderTurn = "unowned-provider-turn", Warning, Reducer;
    ProviderTurnDuringCancel = "provider-turn-during-cancel", Warning, Reducer;
    LateProviderTerminal = "late-provider-terminal", Note, Reducer;
    UnmatchedProviderTerminal = "unmatched-provider-terminal", Warning, Reducer;
    LateRootOutput = "late-root-output", Warning, Reducer;
    LateChildOutput = "late-child-output", Note, Reducer;
    LateTerminal = "late-terminal", Note, Reducer;
    LateChildTurn = "late-child-turn", Warning, Reducer;
    ChildGuidanceUnsupported = "child-guidance-unsupported", Warning, Reducer;
    SubmissionDuringCancel = "submission-during-cancel", Warning, Reducer;
    InteractionWithoutTurn = "interaction-without-turn", Warning, Reducer;
    DuplicateInteraction = "duplicate-interaction", Note, Reducer;
    UnknownInteraction = "unknown-interaction", Error, Reducer;
    InteractionClosed = "interaction-closed", Note, Reducer;
    NothingToCancel = "nothing-to-cancel", Warning, Reducer;
    AlreadyCancelling = "already-cancelling", Note, Reducer;
    CancelAbsorbed = "cancel-absorbed", Note, Reducer;
    NoPendingCancel = "no-pending-cancel", Warning, Reducer;
    // Provider adapters.
    HeldEventsOverflow = "held-events-overflow", Warning, Providers;
    CancelIncomplete = "cancel-incomplete", Warning, Providers;
    UnexpectedRecord = "unexpected-record", Warning, Providers;
    UnknownThreadRequest = "unknown-thread-request", Warning, Codex;
    RejectedThreadEvent = "rejected-thread-event", Note, Codex;
    UnclaimedThreadEvents = "unclaimed-thread-events", Warning, Codex;
    TraceStartsMidSession = "trace-starts-mid-session", Warning, Codex;
    DuplicateRequestId = "duplicate-request-id", Warning, Codex;
    DuplicateRecord = "duplicate-record", Note, Codex;
    InterruptUnregisteredThread = "interrupt-unregistered-thread", Note, Codex;
    UnattributedRecord = "unattributed-record", Warning, Claude;
    UnknownAgentRequest = "unknown-agent-request", Warning, Claude;
    UnknownParentToolUse = "unknown-parent-tool-use", Warning, Claude;
    UnknownTask = "unknown-task", Note, Claude;
    StaleTaskEvent = "stale-task-event", Note, Claude;
    StaleContinuation = "stale-continuation", Note, Claude;
    LateContinuation = "late-continuation", Note, Claude;
    CancelFallout = "cancel-fallout", Note, Claude;
    HostSideMissing = "host-side-missing", Note, Claude;
    // Native source readers.
    NativeFileUnrelated = "native-file-unrelated", Warning, Native;
    NativeParentMissing = "native-parent-missing", Warning, Native;
    NativeSubagentMissing = "native-subagent-missing", Warning, Native;
    NativeRecordSkipped = "native-record-skipped", Note, Native;
    NativeSourceLimits = "native-source-limits", Note, Native;
    // ACP conformance rules (Subagent Sessions RFD), Agent side.
    SubagentsNotNegotiated = "subagents-not-negotiated", Error, Acp(Party::Agent);
    TrafficBeforeAnnounce = "traffic-before-announce", Error, Acp(Party::Agent);
    Reparent = "reparent", Error, Acp(Party::Agent);
    SelfAssociation = "self-association", Error, Acp(Party::Agent);
    AssociationCycle = "association-cycle", Error, Acp(Party::Agent);
    SessionIdReused = "session-id-reused", Error, Acp(Party::Agent);
    MessageIdMissing = "message-id-missing", Error, Acp(Party::Agent);
    ChunkContentInvalid = "chunk-content-invalid", Error, Acp(Party::Agent);
    FieldInvalid = "field-invalid", Error, Acp(Party::Agent);
    MessageParticipantsSame = "message-participants-same", Error, Acp(Party::Agent);
    MessageOuterMismatch = "message-outer-mismatch", Error, Acp(Party::Agent);
    MessageParticipantChanged = "message-participant-changed", Error, Acp(Party::Agent);
    MessageIdConflict = "message-id-conflict", Warning, Acp(Party::Agent);
    StaleMirror = "stale-mirror", Error, Acp(Party::Agent);
    StateNotMirrored = "state-not-mirrored", Warning, Acp(Party::Agent);
    BatchDependency = "batch-dependency", Error, Acp(Party::Agent);
    RequestReissued = "request-reissued", Error, Acp(Party::Agent);
    ChildCapabilityBypass = "child-capability-bypass", Error, Acp(Party::Agent);
    CancelNotConfirmed = "cancel-not-confirmed", Warning, Acp(Party::Agent);
    LegacyDraftShape = "legacy-draft-shape", Warning, Acp(Party::Agent);
    UnknownState = "unknown-state", Note, Acp(Party::Agent);
    ChildListed = "child-listed", Note, Acp(Party::Agent);
    WorkWithoutRunning = "work-without-running", Warning, Acp(Party::Agent);
    ToolCallForeign = "tool-call-foreign", Warning, Acp(Party::Agent);
    UpdateAfterCancelConfirmed = "update-after-cancel-confirmed", Warning, Acp(Party::Agent);
    LaterRevisionStopReason = "later-revision-stop-reason", Warning, Acp(Party::Agent);
    LaterRevisionField = "later-revision-field", Note, Acp(Party::Agent);
    ChunkParticipants = "chunk-participants", Error, Acp(Party::Agent);
    AgentSubagentCapability = "agent-subagent-capability", Note, Acp(Party::Agent);
    // Client side.
    ChildMutation = "child-mutation", Error, Acp(Party::Client);
    CancelNotGranted = "cancel-not-granted", Error, Acp(Party::Client);
    PermissionNotCancelled = "permission-not-cancelled", Error, Acp(Party::Client);
    PermissionLeftPending = "permission-left-pending", Warning, Acp(Party::Client);
    ElicitationNotCancelled = "elicitation-not-cancelled", Warning, Acp(Party::Client);
    CancelUnknownSession = "cancel-unknown-session", Warning, Acp(Party::Client);
    // Both sides.
    DuplicateResponse = "duplicate-response", Error, Acp(Party::Both);
    UnknownResponse = "unknown-response", Warning, Acp(Party::Both);
    ChildRequestUnanswered = "child-request-unanswered", Warning, Acp(Party::Both);
    JsonrpcVersionMissing = "jsonrpc-version-missing", Warning, Acp(Party::Both);
}

impl Code {
    /// Is this an ACP conformance rule (checked by `lineage check` on `acp` traces)?
    pub fn is_acp_rule(self) -> bool {
        matches!(self.layer(), Layer::Acp(_))
    }

    /// The RFD revisions an ACP rule applies to (`lineage check --spec`), oldest first;
    /// every revision for codes that are not ACP rules.
    ///
    /// ```
    /// use lineage_core::finding::{Code, Revision};
    /// assert_eq!(Code::LaterRevisionStopReason.revisions(), &[Revision::Seed]);
    /// assert!(Code::Reparent.applies_to(Revision::Final));
    /// ```
    pub fn revisions(self) -> &'static [Revision] {
        acp::revisions(self)
    }

    /// Does this code apply under `revision`?
    pub fn applies_to(self, revision: Revision) -> bool {
        self.revisions().contains(&revision)
    }

    /// The ACP party held to account, for ACP rules.
    pub fn party(self) -> Option<Party> {
        match self.layer() {
            Layer::Acp(p) => Some(p),
            _ => None,
        }
    }

    /// Its documentation.
    ///
    /// ```
    /// use lineage_core::finding::Code;
    /// let rule = Code::ReparentRejected.rule();
    /// assert_eq!(rule.id, "reparent-rejected");
    /// assert!(!rule.definition.is_empty());
    /// ```
    pub fn rule(self) -> Rule {
        let acp = acp::text(self);
        let other = texts::ENTRIES.iter().find(|e| e.id == self.as_str());
        let (summary, definition, source, quote, example) = match (acp, other) {
            (Some(a), _) => (a.0, a.1, ACP_SOURCE, a.2, a.3),
            (None, Some(e)) => (e.summary, e.definition, e.source, e.quote, e.example),
            (None, None) => ("", "", "", "", ""),
        };
        Rule {
            code: self,
            id: self.as_str(),
            level: self.level(),
            layer: self.layer(),
            summary,
            definition,
            source,
            quote,
            example,
            also: other.filter(|_| acp.is_some()),
        }
    }
}

/// The source every ACP rule quotes.
const ACP_SOURCE: &str = "Agent Client Protocol RFD, *Subagent Sessions*";

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for Code {
    type Err = UnknownCode;
    fn from_str(s: &str) -> Result<Self, UnknownCode> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

/// The text names no finding code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no finding code `{0}` (`lineage rules` lists them all)")]
pub struct UnknownCode(pub String);

/// A catalogue text of one code (`texts.rs`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub id: &'static str,
    pub summary: &'static str,
    pub definition: &'static str,
    pub source: &'static str,
    pub quote: &'static str,
    pub example: &'static str,
}

/// One documented code.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The code.
    pub code: Code,
    /// Its stable id.
    pub id: &'static str,
    /// Its documented level.
    pub level: Severity,
    /// The layer that raises it.
    pub layer: Layer,
    /// One line.
    pub summary: &'static str,
    /// The precise definition the code implements.
    pub definition: &'static str,
    /// The specification and section quoted.
    pub source: &'static str,
    /// The specification text it enforces (empty for robustness bounds no sentence
    /// demands; the definition says why).
    pub quote: &'static str,
    /// A failing example and what to do instead.
    pub example: &'static str,
    /// For a code the ACP checker shares with provider traces, what it means there.
    also: Option<&'static Entry>,
}

impl Rule {
    /// For a code shared by the ACP checker and provider traces: its meaning in
    /// provider traces (summary, definition, example).
    pub fn in_provider_traces(&self) -> Option<(&'static str, &'static str, &'static str)> {
        self.also.map(|e| (e.summary, e.definition, e.example))
    }
}

/// Every code's documentation, in catalogue order.
pub fn catalogue() -> Vec<Rule> {
    Code::ALL.iter().map(|c| c.rule()).collect()
}

/// A located report: a reducer diagnostic, an adapter finding, an ACP rule violation or
/// a malformed record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Physical, 1-based line of the record concerned.
    pub line: usize,
    /// The code.
    pub rule: Code,
    /// Severity.
    pub severity: Severity,
    /// What happened and what to fix.
    pub message: String,
}

impl Finding {
    /// A finding at the code's documented level.
    pub fn new(line: usize, rule: Code, message: impl Into<String>) -> Self {
        Self {
            line,
            rule,
            severity: rule.level(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_documented_once_with_a_definition_and_an_example() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in catalogue() {
            assert!(seen.insert(rule.id), "duplicate id {}", rule.id);
            assert!(!rule.summary.is_empty(), "{} has no summary", rule.id);
            assert!(!rule.definition.is_empty(), "{} has no definition", rule.id);
            assert!(!rule.example.is_empty(), "{} has no example", rule.id);
            assert!(!rule.source.is_empty(), "{} has no source", rule.id);
            assert_eq!(rule.id.parse::<Code>(), Ok(rule.code));
        }
        for entry in texts::ENTRIES {
            assert!(
                entry.id.parse::<Code>().is_ok(),
                "texts.rs documents `{}`, which is no code",
                entry.id
            );
        }
    }

    #[test]
    fn shared_codes_explain_both_meanings() {
        for code in [Code::MalformedRecord, Code::UnknownResponse] {
            assert!(code.rule().in_provider_traces().is_some(), "{code}");
        }
    }
}
