//! Claude Code transcripts (`~/.claude/projects/<cwd>/<session>.jsonl` and their
//! subagents' files) → the Claude stream-json messages the Claude adapter reads.
//!
//! Owns: the layouts (since about 2.1.2 `<session>/subagents/agent-<id>.jsonl` with an
//! `agent-<id>.meta.json`; 2.0.28–2.1.1 a flat `agent-<id>.jsonl` beside the session file;
//! up to 2.0.27 `isSidechain` records inside the session file), one tree per session file,
//! linking each subagent to its launching `Agent`/`Task` tool use (the meta's `toolUseId`,
//! else the launch result's `toolUseResult.agentId`, else the launch whose prompt is the
//! subagent's first message; inline records that name no `agentId` form one subagent per
//! `parentUuid` chain), and the translation of each record:
//! - the session starts with `system/init`; a user's prompt (or a prompt the CLI absorbed
//!   mid-turn, a `queued_command` attachment) is the host's `user` message;
//! - `assistant` records and tool results are the CLI's messages, a subagent's scoped by
//!   `parent_tool_use_id` (its launching tool use) and `agent_id`; a subagent's file starts
//!   with its `task_started` (background when its meta's `requestShape` or the launch's
//!   `run_in_background` says so);
//! - a root `assistant` that ends the model's turn (no tool use, and no further block of
//!   the same message) is followed by the `result` the transcript does not keep; a prompt
//!   while the last turn shows no end ends it first (completed when the model wrote
//!   nothing in it, a command the CLI ran itself; else `error_during_execution`);
//! - a `<task-notification>` (queued, or the user record that carries it) is
//!   `system/task_notification` (`killed` is `stopped`); a background Bash's result
//!   (`backgroundTaskId`) and a resumed agent's (`resumedAgentId`) are `task_started`;
//! - the CLI's `[Request interrupted by user…]` record in the root is the host's interrupt
//!   (placed before the rejected tool results that were its fallout) and its answer, then
//!   the `result` `error_during_execution`; in a subagent it is the fallout of its stop
//!   and adds nothing (the stop itself is the parent's tool result or notification);
//! - a tool result whose `permissionDecision` names the user (`user_temporary`, …) was a
//!   permission the user answered: the CLI's `can_use_tool` request (named
//!   `permission-<tool use>`, the transcript keeps no request id) and the host's answer.
//!
//! Never: invents control traffic the transcript does not hold (a pending permission
//! request, hook callbacks, `stop_task`, an interrupt while no model turn runs): a
//! `native-source-limits` note says so, once per tree. Records that carry no tree fact
//! (attachments, queue bookkeeping, API request logs, titles, …) are skipped silently;
//! unknown kinds are counted in one `native-record-skipped` note per file. The CLI's own
//! agent runs are no subagents: `agent-acompact-*` (compaction) and an unlaunched run whose
//! prompt is `Warmup` are left out. A launch whose subagent has no records in the source is
//! `native-subagent-missing` (the child still comes from the launch and its result); a
//! subagent file whose session file is absent, or that no launch names, is
//! `native-parent-missing` and is not attached.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::merge::{self, Lane};
use super::{File, Located, Place, Source, Stream, object, time};
use crate::finding::{Code, Finding};
use crate::providers::ProviderRecord;
use crate::trace::Format;
use crate::trace::borrowed::{Cursor, Json, JsonRead, Skipped};
use crate::tree::Millis;

/// Record kinds that carry no session-tree fact (or whose fact another record carries).
const SILENT_KINDS: [&str; 20] = [
    "attachment",
    "queue-operation",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "file-history-snapshot",
    "ai-title",
    "custom-title",
    "summary",
    "system",
    "progress",
    "tools-used",
    "last-prompt",
    "cost-state",
    "atis-latch",
    "tag",
    "agent-name",
    "pr-link",
    "mode",
    "worktree-state",
];

/// What the note of every tree says the transcripts do not hold.
const LIMITS: &str = "Claude Code transcripts keep no control traffic (permission requests, hook callbacks, the host's interrupt and stop_task): a permission the user answered is read from its tool result's `permissionDecision`, a pending one is not seen; an interrupt shows only through the CLI's `[Request interrupted by user]` records and its subagents' stops";

/// One transcript file, parsed: its records with their lines.
struct Transcript {
    index: usize,
    name: String,
    records: Vec<(usize, Value)>,
    findings: Vec<Located>,
    /// The first `sessionId` its records name.
    session: Option<String>,
}

impl Transcript {
    fn parse(index: usize, file: &File) -> Self {
        let mut records = Vec::new();
        let mut findings = Vec::new();
        for (i, line) in file.text.lines().enumerate() {
            let trimmed = crate::trace::strip_bom(line.trim());
            if trimmed.is_empty() {
                continue;
            }
            if let Some(head) = Head::of_silent(trimmed) {
                records.push((i + 1, head.stub()));
                continue;
            }
            match crate::trace::json::parse_value(trimmed) {
                Ok(parsed) if parsed.value.is_object() => records.push((i + 1, parsed.value)),
                Ok(_) => findings.push(located(
                    index,
                    i + 1,
                    Code::MalformedRecord,
                    "not a transcript record: not a JSON object",
                )),
                Err(e) => findings.push(located(
                    index,
                    i + 1,
                    Code::MalformedRecord,
                    format!("not a transcript record: {e}"),
                )),
            }
        }
        let session = records
            .iter()
            .find_map(|(_, r)| str_of(r, "sessionId"))
            .map(String::from);
        Self {
            index,
            name: file.name().to_owned(),
            records,
            findings,
            session,
        }
    }

    /// The id of the session this file is the transcript of (a subagent file names its
    /// session's), else the file's stem.
    fn session_id(&self) -> String {
        self.session.clone().unwrap_or_else(|| {
            self.name
                .strip_suffix(".jsonl")
                .unwrap_or(&self.name)
                .to_owned()
        })
    }
}

/// What an `agent-<id>.meta.json` says.
#[derive(Debug, Clone, Default)]
struct Meta {
    /// The meta file (index into the source's files).
    file: usize,
    tool_use: Option<String>,
    parent_agent: Option<String>,
    background: Option<bool>,
    description: Option<String>,
}

/// The fields of a line read without building it, to skip a record no reading needs.
#[derive(Default, serde::Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow)]
    agent: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    sidechain: Option<bool>,
}

/// What a first reading of a line tells about it.
enum Glance<'a> {
    /// A record no reading looks into: its head.
    Silent(Head<'a>),
    /// A record the full parse reads (or reports).
    Read,
    /// The line holds what this reading does not take (a string with a lone surrogate
    /// escape, say); serde_json's reading decides.
    Unsure,
}

impl<'a> Head<'a> {
    /// The members a head reads, by their bit in the set of those seen.
    const KIND: u8 = 0;
    const SESSION: u8 = 1;
    const AGENT: u8 = 2;
    const TIMESTAMP: u8 = 3;
    const SIDECHAIN: u8 = 4;

    /// The head of a line whose record carries no session-tree fact and is no link of an
    /// inline sidechain: an object of a kind of [`SILENT_KINDS`] the reader never looks
    /// into (not an `attachment` or a `queue-operation`). `None` for every other line,
    /// and for a line the head cannot be read from (the full parse reports what is
    /// wrong). The members a head does not read are checked, not built.
    fn of_silent(line: &'a str) -> Option<Self> {
        if !line.starts_with('{') {
            return None;
        }
        match Self::glance(line) {
            Glance::Silent(head) => Some(head),
            Glance::Read => None,
            Glance::Unsure => serde_json::from_str::<Self>(line)
                .ok()
                .filter(Head::is_silent),
        }
    }

    /// Is this the head of a record no reading looks into?
    fn is_silent(&self) -> bool {
        self.kind.as_deref().is_some_and(Self::kind_is_silent) && self.sidechain != Some(true)
    }

    /// Reads the head by lineage's own parser, member by member. A `type` of a kind the
    /// reader looks into, or `isSidechain: true`, decides at once: the rest of the line
    /// (most often the message, the long part) is left to the full parse. A member of
    /// the wrong type or named twice is left to it too, as serde_json's reading of the
    /// head refuses it.
    fn glance(line: &'a str) -> Glance<'a> {
        let mut head = Head::default();
        let mut seen = 0u8;
        let mut loud = false;
        let mut cursor = Cursor::new(line);
        let read = cursor.object(|key, c| {
            let at = match key.as_ref() {
                "type" => Self::KIND,
                "sessionId" => Self::SESSION,
                "agentId" => Self::AGENT,
                "timestamp" => Self::TIMESTAMP,
                "isSidechain" => Self::SIDECHAIN,
                _ => return c.value::<Skipped>().map(drop),
            };
            if seen & 1 << at != 0 {
                loud = true;
                return None;
            }
            seen |= 1 << at;
            let value = c.value::<Json<'a>>()?;
            let ok = head.set(at, value);
            loud = !ok || matches!(at, Self::KIND | Self::SIDECHAIN) && head.decided_loud();
            (!loud).then_some(())
        });
        match (read.and_then(|()| cursor.end()), loud) {
            (_, true) => Glance::Read,
            (Some(()), false) if head.is_silent() => Glance::Silent(head),
            (Some(()), false) => Glance::Read,
            (None, false) => Glance::Unsure,
        }
    }

    /// Sets field `at` from `value` (`null` leaves it unset); `false` for a value of
    /// the wrong type.
    fn set(&mut self, at: u8, value: Json<'a>) -> bool {
        let text = match value {
            Json::Null => return true,
            Json::Bool(b) if at == Self::SIDECHAIN => {
                self.sidechain = Some(b);
                return true;
            }
            Json::Str(text) => text,
            _ => return false,
        };
        let slot = match at {
            Self::KIND => &mut self.kind,
            Self::SESSION => &mut self.session,
            Self::AGENT => &mut self.agent,
            Self::TIMESTAMP => &mut self.timestamp,
            _ => return false,
        };
        *slot = Some(text);
        true
    }

    /// Does what is read so far already make the record one a reading looks into?
    fn decided_loud(&self) -> bool {
        self.sidechain == Some(true)
            || self
                .kind
                .as_deref()
                .is_some_and(|kind| !Self::kind_is_silent(kind))
    }

    fn kind_is_silent(kind: &str) -> bool {
        SILENT_KINDS.contains(&kind) && !matches!(kind, "attachment" | "queue-operation")
    }

    /// The record kept in the line's place: what a reading of a file's first records
    /// takes from any record (its line, time, session and agent), and its kind.
    fn stub(self) -> Value {
        let fields = [
            ("type", self.kind),
            ("timestamp", self.timestamp),
            ("sessionId", self.session),
            ("agentId", self.agent),
        ];
        Value::Object(
            fields
                .into_iter()
                .filter_map(|(k, v)| Some((k.to_owned(), Value::String(v?.into_owned()))))
                .collect(),
        )
    }
}

fn meta(index: usize, file: &File) -> Result<Meta, Located> {
    let value: Value = crate::trace::json::parse_value(crate::trace::strip_bom(file.text.trim()))
        .map_err(|e| {
            located(
                index,
                1,
                Code::MalformedRecord,
                format!("not a subagent meta file: {e}"),
            )
        })?
        .value;
    let text = |k: &str| str_of(&value, k).map(String::from);
    Ok(Meta {
        file: index,
        tool_use: text("toolUseId"),
        parent_agent: text("parentAgentId"),
        background: str_of(&value, "requestShape").map(|s| s == "background"),
        description: text("description"),
    })
}

/// The agent id of a subagent transcript's name (`agent-<id>.jsonl`).
fn agent_file_id(name: &str) -> Option<&str> {
    name.strip_prefix("agent-")?.strip_suffix(".jsonl")
}

/// Reads the transcripts and subagent meta files `indices` of `files` into `source`: one
/// stream per session file.
pub(super) fn read(files: &[File], indices: &[usize], source: &mut Source) {
    let mut metas: BTreeMap<String, Meta> = BTreeMap::new();
    let mut sessions = Vec::new();
    let mut agents = Vec::new();
    for &index in indices {
        let Some(file) = files.get(index) else {
            continue;
        };
        let name = file.name();
        if let Some(stem) = file.path.strip_suffix(".meta.json") {
            match meta(index, file) {
                Ok(m) => {
                    metas.insert(format!("{stem}.jsonl"), m);
                }
                Err(finding) => source.findings.push(finding),
            }
            continue;
        }
        if name.starts_with("agent-acompact") {
            continue; // the CLI's own compaction run, not a subagent
        }
        let transcript = Transcript::parse(index, file);
        match agent_file_id(name) {
            Some(id) => agents.push((id.to_owned(), file.path.clone(), transcript)),
            None => sessions.push(transcript),
        }
    }
    let mut claimed = vec![false; agents.len()];
    for session in sessions {
        let root = session.session_id();
        let mine: Vec<(String, Option<&Meta>, &Transcript)> = agents
            .iter()
            .zip(claimed.iter_mut())
            .filter(|((_, _, t), claimed)| !**claimed && t.session_id() == root)
            .map(|((id, path, t), claimed)| {
                *claimed = true;
                (id.clone(), metas.get(path), t)
            })
            .collect();
        let (stream, unlinked) = Tree::new(&session, &mine).stream();
        source.findings.extend(unlinked);
        source.streams.push(stream);
    }
    for ((_, _, t), claimed) in agents.into_iter().zip(claimed) {
        if !claimed {
            source.findings.extend(parent_missing(t));
        }
    }
}

/// A subagent transcript whose session file is not in the source.
fn parent_missing(t: Transcript) -> Vec<Located> {
    let line = t
        .records
        .iter()
        .find(|(_, r)| r.get("sessionId").is_some())
        .map_or(1, |(l, _)| *l);
    let session = t.session_id();
    let mut findings = t.findings;
    findings.push(located(
        t.index,
        line,
        Code::NativeParentMissing,
        format!(
            "`{}` is a subagent of session `{}`, whose transcript is not in the source; it is not read",
            t.name, session
        ),
    ));
    findings
}

/// A subagent of a tree, linked to its launch.
#[derive(Debug, Clone)]
struct Child {
    agent: String,
    /// Its records name no agent id: no task is started and no agent id is given.
    anonymous: bool,
    tool_use: String,
    background: bool,
    parent_agent: Option<String>,
    description: Option<String>,
    /// When the launch was written (a subagent's records never apply before it).
    launched: Option<Millis>,
}

/// An `Agent`/`Task` tool use.
#[derive(Debug, Clone)]
struct Launch {
    tool_use: String,
    prompt: Option<String>,
    background: bool,
    description: Option<String>,
    file: usize,
    line: usize,
    at: Option<Millis>,
    /// The agent whose records hold the launch (`None`: the root).
    by: Option<String>,
}

/// Where one agent's records are: its own file, or the session file's sidechain records.
struct AgentRecords<'a> {
    /// The agent id (for sidechain records that name none, a label: `sidechain at line N`).
    agent: String,
    /// The records name no agent id (the oldest inline layout).
    anonymous: bool,
    file: usize,
    /// What reading its own file found (none for inline records).
    findings: &'a [Located],
    records: Vec<&'a (usize, Value)>,
    meta: Option<&'a Meta>,
}

/// One session's files, being read into a stream.
struct Tree<'a> {
    session: &'a Transcript,
    agents: Vec<AgentRecords<'a>>,
    files: Vec<usize>,
    findings: Vec<Located>,
}

impl<'a> Tree<'a> {
    fn new(session: &'a Transcript, files: &[(String, Option<&'a Meta>, &'a Transcript)]) -> Self {
        let mut agents: Vec<AgentRecords<'a>> = Vec::new();
        let findings = session.findings.clone();
        for (id, meta, t) in files {
            let agent = t
                .records
                .iter()
                .find_map(|(_, r)| str_of(r, "agentId"))
                .unwrap_or(id)
                .to_owned();
            agents.push(AgentRecords {
                agent,
                anonymous: false,
                file: t.index,
                findings: &t.findings,
                records: t.records.iter().collect(),
                meta: *meta,
            });
        }
        for (agent, anonymous, records) in sidechains(&session.records) {
            if !agents.iter().any(|a| a.agent == agent) {
                agents.push(AgentRecords {
                    agent,
                    anonymous,
                    file: session.index,
                    findings: &[],
                    records,
                    meta: None,
                });
            }
        }
        Self {
            session,
            agents,
            files: vec![session.index],
            findings,
        }
    }

    /// The stream, and the findings about subagent files that could not be attached.
    fn stream(mut self) -> (Stream, Vec<Located>) {
        let root = self.session.session_id();
        let launches = self.launches();
        let results = launch_results(self.session, &self.agents);
        let (children, unlinked) = self.link(&launches, &results);
        self.report_missing(&launches, &results, &children);
        let known: BTreeMap<String, String> = children
            .iter()
            .filter(|(_, c)| !c.anonymous)
            .map(|(_, c)| (c.agent.clone(), c.tool_use.clone()))
            .collect();
        let mut lanes = Vec::new();
        let mut writer = Writer::new(self.session.index, &root, None, &known);
        writer.root_lane(&self.session.records);
        lanes.push(writer.finish(&mut self.findings));
        let mut order: Vec<&(usize, Child)> = children.iter().collect();
        order.sort_by_key(|(_, c)| c.launched);
        for (k, child) in order {
            let Some(agent) = self.agents.get(*k) else {
                continue;
            };
            if !self.files.contains(&agent.file) {
                self.files.push(agent.file);
                // Its `.meta.json` was read for this tree too.
                self.files.extend(agent.meta.map(|m| m.file));
            }
            self.findings.extend(agent.findings.iter().cloned());
            let mut writer = Writer::new(agent.file, &root, Some(child), &known);
            writer.child_lane(&agent.records);
            lanes.push(writer.finish(&mut self.findings));
        }
        self.findings.insert(
            0,
            located(self.session.index, 1, Code::NativeSourceLimits, LIMITS),
        );
        let stream = Stream {
            format: Format::ClaudeSdk,
            root,
            files: self.files,
            records: merge::merge(lanes),
            findings: self.findings,
        };
        (stream, unlinked)
    }

    /// Every `Agent`/`Task` tool use of the tree, in the root's and the subagents' records.
    fn launches(&self) -> Vec<Launch> {
        let mut launches = Vec::new();
        let root_records = self
            .session
            .records
            .iter()
            .filter(|(_, r)| !is_sidechain(r));
        collect_launches(root_records, self.session.index, None, &mut launches);
        for agent in &self.agents {
            let records = agent.records.iter().copied();
            let by = (!agent.anonymous).then_some(agent.agent.as_str());
            collect_launches(records, agent.file, by, &mut launches);
        }
        launches
    }

    /// Links each agent to its launch: (agent index, child) and the agents left unlinked.
    fn link(
        &self,
        launches: &[Launch],
        results: &BTreeMap<String, Answer>,
    ) -> (Vec<(usize, Child)>, Vec<Located>) {
        let mut claimed: BTreeSet<&str> = BTreeSet::new();
        let mut children = Vec::new();
        let mut unlinked = Vec::new();
        for (k, agent) in self.agents.iter().enumerate() {
            let by_meta = agent.meta.and_then(|m| m.tool_use.as_deref());
            let by_result = || {
                results
                    .iter()
                    .find(|(_, a)| a.agent.as_deref() == Some(agent.agent.as_str()))
                    .map(|(t, _)| t.as_str())
            };
            let by_prompt = || {
                let prompt = first_prompt(&agent.records)?;
                launches
                    .iter()
                    .find(|l| {
                        !claimed.contains(l.tool_use.as_str())
                            && l.prompt.as_deref() == Some(prompt.as_str())
                    })
                    .map(|l| l.tool_use.as_str())
            };
            let Some(tool_use) = by_meta.or_else(by_result).or_else(by_prompt) else {
                if first_prompt(&agent.records).as_deref() == Some("Warmup") {
                    // The CLI's own cache warm-up of an agent type: never launched.
                    unlinked.extend(agent.findings.iter().cloned());
                } else {
                    unlinked.extend(self.unlinked(agent));
                }
                continue;
            };
            let launch = launches.iter().find(|l| l.tool_use == tool_use);
            claimed.insert(launch.map_or(tool_use, |l| l.tool_use.as_str()));
            children.push((k, child_of(agent, tool_use, launch)));
        }
        (children, unlinked)
    }

    fn unlinked(&self, agent: &AgentRecords<'_>) -> Vec<Located> {
        let line = agent.records.first().map_or(1, |(l, _)| *l);
        let mut findings = agent.findings.to_vec();
        findings.push(located(
            agent.file,
            line,
            Code::NativeParentMissing,
            format!(
                "subagent `{}` belongs to session `{}`, but no launch there names it (no meta `toolUseId`, no launch result with its `agentId`, no launch with its prompt); it is not attached",
                agent.agent,
                self.session.session_id()
            ),
        ));
        findings
    }

    /// A launch whose subagent's records are not in the source (a launch the CLI refused,
    /// an error result naming no agent, never ran one).
    fn report_missing(
        &mut self,
        launches: &[Launch],
        results: &BTreeMap<String, Answer>,
        children: &[(usize, Child)],
    ) {
        for launch in launches {
            if children.iter().any(|(_, c)| c.tool_use == launch.tool_use) {
                continue;
            }
            let answer = results.get(&launch.tool_use);
            if answer.is_some_and(|a| a.is_error && a.agent.is_none()) {
                continue;
            }
            let agent = answer.and_then(|a| a.agent.as_deref()).map_or_else(
                || "whose agent id the source does not name".to_owned(),
                |a| format!("`{a}`"),
            );
            self.findings.push(located(
                launch.file,
                launch.line,
                Code::NativeSubagentMissing,
                format!(
                    "tool use `{}` launched subagent {agent}, whose transcript is not in the source; the child comes from the launch and its result only",
                    launch.tool_use
                ),
            ));
        }
    }
}

/// One inline subagent: its agent id (or label), whether it is a label, its records.
type Sidechain<'r> = (String, bool, Vec<&'r (usize, Value)>);

/// Older CLIs kept subagents inline: the session file's sidechain records, by their
/// `agentId`, or (when they name none) by the `parentUuid` chain each starts, labelled by
/// the line of its first record. Without recursion: a record joins the chain of the
/// record it follows.
fn sidechains(records: &[(usize, Value)]) -> Vec<Sidechain<'_>> {
    let mut named: BTreeMap<String, Vec<&(usize, Value)>> = BTreeMap::new();
    let mut chains: Vec<Sidechain<'_>> = Vec::new();
    let mut chain_of: BTreeMap<&str, usize> = BTreeMap::new();
    for record in records.iter().filter(|(_, r)| is_sidechain(r)) {
        let (line, r) = record;
        if let Some(agent) = str_of(r, "agentId") {
            named.entry(agent.to_owned()).or_default().push(record);
            continue;
        }
        let parent = str_of(r, "parentUuid").and_then(|p| chain_of.get(p).copied());
        let k = match parent {
            Some(k) => k,
            None => {
                chains.push((format!("sidechain at line {line}"), true, Vec::new()));
                chains.len() - 1
            }
        };
        if let Some((_, _, chain)) = chains.get_mut(k) {
            chain.push(record);
        }
        if let Some(uuid) = str_of(r, "uuid") {
            chain_of.insert(uuid, k);
        }
    }
    let mut out: Vec<_> = named.into_iter().map(|(a, r)| (a, false, r)).collect();
    out.extend(chains);
    out
}

fn child_of(agent: &AgentRecords<'_>, tool_use: &str, launch: Option<&Launch>) -> Child {
    let meta = agent.meta.cloned().unwrap_or_default();
    Child {
        agent: agent.agent.clone(),
        anonymous: agent.anonymous,
        tool_use: tool_use.to_owned(),
        background: meta
            .background
            .unwrap_or_else(|| launch.is_some_and(|l| l.background)),
        parent_agent: meta
            .parent_agent
            .or_else(|| launch.and_then(|l| l.by.clone())),
        description: meta
            .description
            .or_else(|| launch.and_then(|l| l.description.clone())),
        launched: launch.and_then(|l| l.at),
    }
}

fn collect_launches<'r>(
    records: impl Iterator<Item = &'r (usize, Value)>,
    file: usize,
    by: Option<&str>,
    out: &mut Vec<Launch>,
) {
    for (line, record) in records {
        if str_of(record, "type") != Some("assistant") {
            continue;
        }
        for block in blocks(record) {
            let name = str_of(block, "name");
            let (Some("tool_use"), Some("Agent" | "Task"), Some(id)) =
                (str_of(block, "type"), name, str_of(block, "id"))
            else {
                continue;
            };
            let input = block.get("input");
            let text = |k: &str| input.and_then(|i| str_of(i, k)).map(String::from);
            out.push(Launch {
                tool_use: id.to_owned(),
                prompt: text("prompt"),
                background: input
                    .and_then(|i| i.get("run_in_background"))
                    .and_then(Value::as_bool)
                    == Some(true),
                description: text("description"),
                file,
                line: *line,
                at: record.get("timestamp").and_then(time::parse_timestamp),
                by: by.map(String::from),
            });
        }
    }
}

/// What a launch's tool result says.
#[derive(Debug, Clone)]
struct Answer {
    agent: Option<String>,
    is_error: bool,
}

/// Tool results by tool use id, in the root's and the subagents' records.
fn launch_results(session: &Transcript, agents: &[AgentRecords<'_>]) -> BTreeMap<String, Answer> {
    let mut out = BTreeMap::new();
    let all = session
        .records
        .iter()
        .chain(agents.iter().flat_map(|a| a.records.iter().copied()));
    for (_, record) in all {
        if str_of(record, "type") != Some("user") {
            continue;
        }
        let results: Vec<&Value> = blocks(record)
            .filter(|b| str_of(b, "type") == Some("tool_result"))
            .collect();
        let agent = JsonRead::pointer(record, "/toolUseResult/agentId")
            .and_then(Value::as_str)
            .filter(|_| results.len() == 1);
        for block in results {
            if let Some(id) = str_of(block, "tool_use_id") {
                out.insert(
                    id.to_owned(),
                    Answer {
                        agent: agent.map(String::from),
                        is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
                    },
                );
            }
        }
    }
    out
}

/// The text of an agent's first user record (the delegated prompt).
fn first_prompt(records: &[&(usize, Value)]) -> Option<String> {
    records
        .iter()
        .find(|(_, r)| str_of(r, "type") == Some("user"))
        .and_then(|(_, r)| text_of(r))
}

/// What a user record is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum UserKind {
    /// A prompt (the host's, or the delegated prompt of a subagent).
    Prompt,
    /// Tool results.
    ToolResults,
    /// A `<task-notification>` the CLI queued for the model.
    Notification(String),
    /// The CLI's `[Request interrupted by user…]`.
    Interrupt,
    /// Text the CLI itself adds (caveats, compaction summaries, command output).
    Harness,
}

fn user_kind(record: &Value) -> UserKind {
    let flag = |k: &str| record.get(k).and_then(Value::as_bool) == Some(true);
    if flag("isMeta") || flag("isCompactSummary") || flag("isVisibleInTranscriptOnly") {
        return UserKind::Harness;
    }
    if blocks(record).any(|b| str_of(b, "type") == Some("tool_result")) {
        return UserKind::ToolResults;
    }
    let text = text_of(record).unwrap_or_default();
    let trimmed = text.trim_start();
    if JsonRead::pointer(record, "/origin/kind").and_then(Value::as_str)
        == Some("task-notification")
        || trimmed.starts_with("<task-notification>")
    {
        return UserKind::Notification(text);
    }
    if trimmed.starts_with("[Request interrupted by user") {
        return UserKind::Interrupt;
    }
    if [
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
    ]
    .iter()
    .any(|p| trimmed.starts_with(p))
    {
        return UserKind::Harness;
    }
    UserKind::Prompt
}

/// Builds one file's lane (the root's records, or one subagent's).
struct Writer<'a> {
    file: usize,
    root: &'a str,
    child: Option<&'a Child>,
    /// Agent id → launching tool use, for every linked subagent.
    known: &'a BTreeMap<String, String>,
    lane: Lane,
    /// Notifications already given from the queue, waiting for their user record.
    queued: Vec<(String, String, String)>,
    skipped: super::Skipped,
    interrupts: usize,
    /// The root's model turn is open (since a prompt or model output, until a `result`),
    /// and whether the model wrote in it.
    turn: Option<bool>,
}

impl<'a> Writer<'a> {
    fn new(
        file: usize,
        root: &'a str,
        child: Option<&'a Child>,
        known: &'a BTreeMap<String, String>,
    ) -> Self {
        Self {
            file,
            root,
            child,
            known,
            lane: Lane::new(),
            queued: Vec::new(),
            skipped: super::Skipped::default(),
            interrupts: 0,
            turn: None,
        }
    }

    fn push(&mut self, line: usize, at: Option<Millis>, from: &str, message: Value) {
        let at = match (self.child.and_then(|c| c.launched), at) {
            (Some(launched), Some(at)) => Some(at.max(launched)),
            (_, at) => at,
        };
        let place = Place {
            file: self.file,
            line,
        };
        self.lane
            .push((place, at, ProviderRecord::new(from, message, at)));
    }

    fn finish(self, findings: &mut Vec<Located>) -> Lane {
        findings.extend(self.skipped.finding(self.file));
        self.lane
    }

    /// The root's records: `system/init`, then each record, with the interrupts placed
    /// before their fallout and a `result` after each turn-ending `assistant`.
    fn root_lane(&mut self, records: &[(usize, Value)]) {
        let records: Vec<&(usize, Value)> =
            records.iter().filter(|(_, r)| !is_sidechain(r)).collect();
        let interrupts = interrupt_points(&records);
        if let Some((line, _)) = records.first() {
            let at = records
                .iter()
                .find_map(|(_, r)| r.get("timestamp").and_then(time::parse_timestamp));
            let init = json!({"type": "system", "subtype": "init", "session_id": self.root});
            self.push(*line, at, "cli", init);
        }
        for (k, (line, record)) in records.iter().enumerate() {
            let at = record.get("timestamp").and_then(time::parse_timestamp);
            if interrupts.contains(&k) {
                self.interrupt(*line, at);
            }
            self.record(*line, at, record);
            if str_of(record, "type") == Some("assistant") && ends_turn(&records, k) {
                self.result(*line, at, record);
            }
        }
    }

    /// A subagent's records, after its `task_started`.
    fn child_lane(&mut self, records: &[&(usize, Value)]) {
        let Some(child) = self.child else {
            return;
        };
        if let (Some((line, record)), false) = (records.first(), child.anonymous) {
            let at = record.get("timestamp").and_then(time::parse_timestamp);
            let mut started = json!({
                "type": "system", "subtype": "task_started", "task_id": child.agent,
                "tool_use_id": child.tool_use, "task_type": "local_agent",
                "is_backgrounded": child.background, "session_id": self.root,
            });
            if let Some(parent) = &child.parent_agent {
                set(&mut started, "parent_task_id", json!(parent));
            }
            if let Some(description) = &child.description {
                set(&mut started, "description", json!(description));
            }
            self.push(*line, at, "cli", started);
        }
        for (line, record) in records {
            let at = record.get("timestamp").and_then(time::parse_timestamp);
            self.record(*line, at, record);
        }
    }

    /// One record's messages.
    fn record(&mut self, line: usize, at: Option<Millis>, record: &Value) {
        match str_of(record, "type").unwrap_or_default() {
            "user" => self.user(line, at, record),
            "assistant" => {
                if self.child.is_none() {
                    self.turn = Some(true);
                }
                let message = self.scoped("assistant", record);
                self.push(line, at, "cli", message);
            }
            "queue-operation" => {
                if str_of(record, "operation") == Some("enqueue")
                    && let Some(text) = str_of(record, "content")
                    && text.trim_start().starts_with("<task-notification>")
                {
                    self.notification(line, at, text, true);
                }
            }
            "attachment" => self.attachment(line, at, record),
            kind if SILENT_KINDS.contains(&kind) => {}
            kind => {
                self.skipped.add(line, kind);
            }
        }
    }

    fn user(&mut self, line: usize, at: Option<Millis>, record: &Value) {
        match user_kind(record) {
            UserKind::Harness => {}
            UserKind::Notification(text) => self.notification(line, at, &text, false),
            UserKind::Interrupt if self.child.is_none() => {
                // The interrupt itself was placed before its fallout; the turn ends here.
                let result = json!({
                    "type": "result", "subtype": "error_during_execution", "is_error": true,
                    "session_id": self.root,
                });
                self.turn = None;
                self.push(line, at, "cli", result);
            }
            UserKind::Prompt if self.child.is_none() => {
                self.unfinished(line, at);
                self.turn = Some(false);
                let prompt = object([
                    ("type", json!("user")),
                    ("message", member(record, "message")),
                    ("parent_tool_use_id", Value::Null),
                    ("session_id", json!(self.root)),
                    ("uuid", member(record, "uuid")),
                ]);
                self.push(line, at, "host", prompt);
            }
            UserKind::ToolResults => {
                self.permission(line, at, record);
                self.task_starts(line, at, record);
                let mut message = self.scoped("user", record);
                if let Some(result) = record.get("toolUseResult") {
                    set(&mut message, "tool_use_result", result.clone());
                }
                self.push(line, at, "cli", message);
            }
            // A subagent's `[Request interrupted by user]` is the CLI's record of its
            // stop (cancellation fallout), not input: its stop comes from the parent's
            // tool result or task notification.
            UserKind::Interrupt => {}
            UserKind::Prompt => {
                let message = self.scoped("user", record);
                self.push(line, at, "cli", message);
            }
        }
    }

    /// A CLI message of this lane: the record's `message`, scoped to the subagent.
    fn scoped(&self, kind: &str, record: &Value) -> Value {
        let mut message = object([
            ("type", json!(kind)),
            ("message", member(record, "message")),
            ("session_id", json!(self.root)),
            ("uuid", member(record, "uuid")),
            ("parent_tool_use_id", Value::Null),
        ]);
        if let Some(child) = self.child {
            set(&mut message, "parent_tool_use_id", json!(child.tool_use));
            if !child.anonymous {
                set(&mut message, "agent_id", json!(child.agent));
            }
        }
        message
    }

    /// A tool result whose `permissionDecision` names the user as its source was asked
    /// and answered: the CLI's `can_use_tool` request (its id made from the tool use: the
    /// transcript keeps no request id) and the host's answer, just before the result.
    fn permission(&mut self, line: usize, at: Option<Millis>, record: &Value) {
        let Some(decision) = record.get("permissionDecision") else {
            return;
        };
        if !str_of(decision, "source").is_some_and(|s| s.starts_with("user")) {
            return; // allowed by configuration, a hook or a classifier: nobody was asked
        }
        let Some(tool_use) = blocks(record)
            .filter(|b| str_of(b, "type") == Some("tool_result"))
            .find_map(|b| str_of(b, "tool_use_id"))
        else {
            return;
        };
        let behavior = if str_of(decision, "decision") == Some("accept") {
            "allow"
        } else {
            "deny"
        };
        let id = format!("permission-{tool_use}");
        let mut request = json!({"subtype": "can_use_tool", "tool_use_id": tool_use});
        if let Some(child) = self.child.filter(|c| !c.anonymous) {
            set(&mut request, "agent_id", json!(child.agent));
        }
        let asked = json!({"type": "control_request", "request_id": id, "request": request});
        let answer = json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": id, "response": {"behavior": behavior}},
        });
        self.push(line, at, "cli", asked);
        self.push(line, at, "host", answer);
    }

    /// Task-system starts a tool result reports: a background Bash, a resumed agent.
    fn task_starts(&mut self, line: usize, at: Option<Millis>, record: &Value) {
        let Some(result) = record.get("toolUseResult") else {
            return;
        };
        let Some(tool_use) = blocks(record)
            .filter(|b| str_of(b, "type") == Some("tool_result"))
            .find_map(|b| str_of(b, "tool_use_id"))
        else {
            return;
        };
        let started = if let Some(task) = str_of(result, "backgroundTaskId") {
            Some((task, "local_bash"))
        } else {
            str_of(result, "resumedAgentId")
                .or_else(|| str_of(result, "revivedAgentId"))
                .filter(|agent| self.known.contains_key(*agent))
                .map(|agent| (agent, "local_agent"))
        };
        if let Some((task, task_type)) = started {
            let message = json!({
                "type": "system", "subtype": "task_started", "task_id": task,
                "tool_use_id": tool_use, "task_type": task_type, "is_backgrounded": true,
                "session_id": self.root,
            });
            self.push(line, at, "cli", message);
        }
    }

    /// A `<task-notification>`: from the queue (`queued`) or from the user record that
    /// carries it (skipped when the queue already gave it).
    fn notification(&mut self, line: usize, at: Option<Millis>, text: &str, queued: bool) {
        let task = tag(text, "task-id").unwrap_or_default().to_owned();
        let tool_use = tag(text, "tool-use-id").unwrap_or_default().to_owned();
        let status = match tag(text, "status").unwrap_or_default() {
            "killed" | "stopped" => "stopped",
            other => other,
        }
        .to_owned();
        let key = (task.clone(), tool_use.clone(), status.clone());
        if !queued && let Some(k) = self.queued.iter().position(|q| *q == key) {
            self.queued.remove(k);
            return;
        }
        if queued {
            self.queued.push(key);
        }
        let mut message = json!({
            "type": "system", "subtype": "task_notification", "task_id": task,
            "status": status, "session_id": self.root,
        });
        if !tool_use.is_empty() {
            set(&mut message, "tool_use_id", json!(tool_use));
        }
        if let Some(summary) = tag(text, "summary") {
            set(&mut message, "summary", json!(summary));
        }
        self.push(line, at, "cli", message);
    }

    /// A prompt the CLI absorbed into a running turn (`queued_command`) is the host's.
    fn attachment(&mut self, line: usize, at: Option<Millis>, record: &Value) {
        let Some(attachment) = record.get("attachment") else {
            return;
        };
        let prompt_mode = str_of(attachment, "commandMode").is_none_or(|m| m == "prompt");
        if self.child.is_some()
            || str_of(attachment, "type") != Some("queued_command")
            || !prompt_mode
        {
            return;
        }
        let Some(prompt) = attachment.get("prompt") else {
            return;
        };
        let message = json!({
            "type": "user", "message": {"role": "user", "content": prompt},
            "parent_tool_use_id": null, "session_id": self.root,
            "uuid": str_of(attachment, "source_uuid").or_else(|| str_of(record, "uuid")),
        });
        self.push(line, at, "host", message);
    }

    /// The host's interrupt and the CLI's answer.
    fn interrupt(&mut self, line: usize, at: Option<Millis>) {
        self.interrupts += 1;
        let id = format!("transcript-interrupt-{}", self.interrupts);
        let request = json!({
            "type": "control_request", "request_id": id, "request": {"subtype": "interrupt"},
        });
        let response = json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": id, "response": {}},
        });
        self.push(line, at, "host", request);
        self.push(line, at, "cli", response);
    }

    /// A prompt while the root's last turn shows no end: the CLI writes a prompt only when
    /// it starts a model turn, so that turn is over. Without model output (a command the
    /// CLI ran itself) it completed; otherwise it stopped short (the CLI was stopped or
    /// killed), which the `result` says.
    fn unfinished(&mut self, line: usize, at: Option<Millis>) {
        let Some(output) = self.turn.take() else {
            return;
        };
        let mut result = json!({
            "type": "result", "subtype": "success", "is_error": false, "session_id": self.root,
        });
        if output {
            result = json!({
                "type": "result", "subtype": "error_during_execution", "is_error": true,
                "session_id": self.root,
                "result": "the transcript shows no end of this turn before the next prompt",
            });
        }
        self.push(line, at, "cli", result);
    }

    /// The `result` after a turn-ending root `assistant`.
    fn result(&mut self, line: usize, at: Option<Millis>, record: &Value) {
        self.turn = None;
        let failed = record.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
        let mut result = json!({
            "type": "result", "subtype": "success", "is_error": failed, "session_id": self.root,
        });
        if failed && let Some(text) = text_of(record) {
            set(&mut result, "result", json!(text));
        }
        self.push(line, at, "cli", result);
    }
}

/// Where the host's interrupts go: for each root `[Request interrupted by user…]`, the
/// first of the rejected tool results just before it (its fallout), else the marker.
fn interrupt_points(records: &[&(usize, Value)]) -> BTreeSet<usize> {
    let mut points = BTreeSet::new();
    for (k, (_, record)) in records.iter().enumerate() {
        if str_of(record, "type") != Some("user") || user_kind(record) != UserKind::Interrupt {
            continue;
        }
        let mut point = k;
        for j in (0..k).rev() {
            let Some((_, earlier)) = records.get(j) else {
                break;
            };
            match str_of(earlier, "type") {
                Some("user") if is_fallout(earlier) => point = j,
                Some("user" | "assistant") => break,
                _ => {}
            }
        }
        points.insert(point);
    }
    points
}

/// A tool result the CLI wrote because the user interrupted (rejected tool uses).
fn is_fallout(record: &Value) -> bool {
    let results: Vec<&Value> = blocks(record)
        .filter(|b| str_of(b, "type") == Some("tool_result"))
        .collect();
    let rejected = |b: &&Value| {
        let content = match b.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        b.get("is_error").and_then(Value::as_bool) == Some(true)
            && (content.contains("doesn't want to proceed")
                || content.contains("interrupted by user"))
    };
    !results.is_empty()
        && (results.iter().all(rejected)
            || str_of(record, "toolUseResult") == Some("User rejected tool use"))
}

/// Does the root `assistant` at `k` end the model's turn? It uses no tool, and the next
/// conversation record is not another block of the same message.
fn ends_turn(records: &[&(usize, Value)], k: usize) -> bool {
    let Some((_, record)) = records.get(k) else {
        return false;
    };
    let uses_tool = blocks(record).any(|b| str_of(b, "type") == Some("tool_use"));
    let stop = JsonRead::pointer(record, "/message/stop_reason").and_then(Value::as_str);
    if uses_tool || stop == Some("tool_use") {
        return false;
    }
    let id = JsonRead::pointer(record, "/message/id").and_then(Value::as_str);
    let next = records
        .iter()
        .skip(k + 1)
        .map(|(_, r)| r)
        .find(|r| matches!(str_of(r, "type"), Some("user" | "assistant")));
    match next {
        Some(next) if str_of(next, "type") == Some("assistant") => {
            id.is_none() || JsonRead::pointer(next, "/message/id").and_then(Value::as_str) != id
        }
        _ => true,
    }
}

/// The text inside `<name>…</name>`.
fn tag<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close)?;
    rest.get(..end).map(str::trim)
}

/// A copy of `record`'s member `key`, `null` when it has none.
fn member(record: &Value, key: &str) -> Value {
    record.get(key).cloned().unwrap_or(Value::Null)
}

/// Sets `key` of the object `value` (a message this reader built).
fn set(value: &mut Value, key: &str, to: Value) {
    if let Some(object) = value.as_object_mut() {
        object.insert(key.to_owned(), to);
    }
}

fn is_sidechain(record: &Value) -> bool {
    record.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

fn str_of<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// The content blocks of a record's message (none when its content is a string).
fn blocks(record: &Value) -> impl Iterator<Item = &Value> {
    JsonRead::pointer(record, "/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The text of a record's message: a string content, or its text blocks joined.
fn text_of(record: &Value) -> Option<String> {
    match JsonRead::pointer(record, "/message/content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let parts: Vec<&str> = blocks
                .iter()
                .filter(|b| str_of(b, "type") == Some("text"))
                .filter_map(|b| str_of(b, "text"))
                .collect();
            (!parts.is_empty()).then(|| parts.join(""))
        }
        _ => None,
    }
}

fn located(file: usize, line: usize, code: Code, message: impl Into<String>) -> Located {
    Located {
        file,
        finding: Finding::new(line, code, message),
    }
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
