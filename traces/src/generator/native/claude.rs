//! Claude Code transcripts: the session's `<project>/<session>.jsonl`, each subagent's
//! `<project>/<session>/subagents/agent-<id>.jsonl` and `agent-<id>.meta.json`, written
//! as Claude Code 2.1.328 writes them (`traces/real-native/claude-code/`).
//!
//! A root turn: the prompt's `queue-operation`s and `user` record (the first one
//! followed by the session's attachments and request shape), then model calls: each an
//! `api-request` (now and then an `api-request-blob` before it, a `tools-used` when a
//! tool is first used), the `assistant` records of the message (a text block now and
//! then, a tool use), `last-prompt` and `atis-latch` bookkeeping, the tool's result;
//! and the model's answer, an `assistant` that ends the turn. A delegating turn's
//! message launches 1–3 `Agent`s (one `assistant` record per tool use), whose
//! transcripts run side by side (their own attachments and request shape, 1–4 tool
//! calls, a report) before the root gets each one's hand-back; now and then the root
//! sends one of them a follow-up (`SendMessage`, which resumes it in the background:
//! a second turn of the child, reported by a `<task-notification>`).

use lineage_core::native::File;

use super::{Gen, civil, stamp};

const CWD: &str = "/home/dev/work/lineage";
const PROJECT: &str = "-home-dev-work-lineage";
const VERSION: &str = "2.1.328";
const MODEL: &str = "claude-opus-5-5";
/// Tool uses of ordinary model calls: name and input.
const TOOLS: [(&str, &str); 6] = [
    (
        "Bash",
        r#"{"command":"cargo test -p lineage-core --lib","description":"Run the core tests"}"#,
    ),
    (
        "Read",
        r#"{"file_path":"/home/dev/work/lineage/core/src/native/claude.rs"}"#,
    ),
    (
        "Grep",
        r#"{"pattern":"parse_timestamp","path":"/home/dev/work/lineage/core/src"}"#,
    ),
    (
        "Bash",
        r#"{"command":"git status --short","description":"Show the working tree status"}"#,
    ),
    ("Glob", r#"{"pattern":"traces/**/*.jsonl"}"#),
    (
        "Edit",
        r#"{"file_path":"/home/dev/work/lineage/core/src/lib.rs","old_string":"pub mod native;","new_string":"pub mod native;\n","replace_all":false}"#,
    ),
];
const DEFERRED: &str = r#"["CronCreate","CronDelete","CronList","EnterPlanMode","EnterWorktree","ExitPlanMode","ExitWorktree","Monitor","NotebookEdit","SendMessage","TaskStop","WebFetch","WebSearch"]"#;
const PARAMS: &str = r#"{"model":"claude-opus-5-5","betas":["claude-code-20250219","interleaved-thinking-2025-05-14","context-management-2025-06-27","per-turn-control-2026-07-01","mid-conversation-tool-changes-2026-07-01","thinking-token-count-2026-05-13","advanced-tool-use-2025-11-20","effort-2025-11-24","thinking-display-updates-2026-08-18"],"max_tokens":128000,"thinking":{"type":"adaptive","display":"updates"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"output_config":{"effort":"medium"}}"#;

/// One transcript file being written.
struct Transcript {
    path: String,
    text: String,
    session: String,
    /// A subagent's id (`None`: the session's own file).
    agent: Option<String>,
    /// The last conversation record (the next one's `parentUuid`).
    last: Option<String>,
    /// The prompt being answered (its `promptId`, its text).
    prompt_id: String,
    prompt: String,
    shape: String,
    /// The last `api-request` (the next one's `base`) and how many messages it kept.
    request: Option<String>,
    keep: u64,
    tools_used: Vec<&'static str>,
    /// Whether the file has had its second prompt snapshot (after its first result).
    snapshot: bool,
    context: u64,
}

/// One subagent: its transcript, what launched it and what it reports.
struct Agent {
    file: Transcript,
    tool_use: String,
    description: String,
    prompt: String,
    report: String,
    tool_uses: usize,
    started: u64,
    /// The root's `assistant` record of its launch.
    launch: String,
}

/// The whole source.
struct Claude {
    root: Transcript,
    agents: Vec<Agent>,
    prompts: usize,
    /// Whether the root has loaded `SendMessage` (a deferred tool) with `ToolSearch`.
    send_loaded: bool,
    started: u64,
}

pub(super) fn generate(g: &mut Gen, lines: usize) -> Vec<File> {
    let session = g.uuid4();
    let root = Transcript::new(format!("{PROJECT}/{session}.jsonl"), &session, None, g);
    let mut c = Claude {
        root,
        agents: Vec::new(),
        prompts: 0,
        send_loaded: false,
        started: g.now,
    };
    g.root_turns(lines, &mut c, |c, g, delegate| c.turn(g, delegate));
    c.end(g);
    let mut files = vec![File::new(c.root.path, c.root.text)];
    for a in c.agents {
        let meta = format!(
            r#"{{"agentType":"general-purpose","isBuiltIn":true,"description":"{}","toolUseId":"{}","spawnDepth":1,"requestShape":"foreground","requestNonInteractive":false,"model":"{MODEL}","pickedEffortModel":"{MODEL}","finished":true}}"#,
            a.description, a.tool_use
        );
        let stem = a.file.path.trim_end_matches(".jsonl").to_owned();
        files.push(File::new(a.file.path, a.file.text));
        files.push(File::new(format!("{stem}.meta.json"), meta));
    }
    files
}

impl Transcript {
    fn new(path: String, session: &str, agent: Option<String>, g: &mut Gen) -> Self {
        Self {
            path,
            text: String::new(),
            session: session.to_owned(),
            snapshot: agent.is_some(),
            agent,
            last: None,
            prompt_id: String::new(),
            prompt: String::new(),
            shape: g.hex(64),
            request: None,
            keep: 0,
            tools_used: Vec::new(),
            context: 12_000,
        }
    }

    fn line(&mut self, g: &mut Gen, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
        g.lines += 1;
    }

    /// `,"agentId":"…"` in a subagent's records.
    fn agent_field(&self) -> String {
        self.agent
            .as_ref()
            .map_or_else(String::new, |a| format!(r#","agentId":"{a}""#))
    }

    /// A conversation record: `head` after `isSidechain` (and the agent id), `tail`
    /// after the timestamp; returns its uuid.
    fn chain(&mut self, g: &mut Gen, head: &str, tail: &str) -> String {
        let uuid = g.uuid4();
        let parent = self
            .last
            .as_ref()
            .map_or_else(|| "null".to_owned(), |p| format!(r#""{p}""#));
        let line = format!(
            r#"{{"parentUuid":{parent},"isSidechain":{}{}{head},"uuid":"{uuid}","timestamp":"{}"{tail},"userType":"external","entrypoint":"cli","cwd":"{CWD}","sessionId":"{}","version":"{VERSION}","gitBranch":"main"}}"#,
            self.agent.is_some(),
            self.agent_field(),
            stamp(g.now),
            self.session
        );
        self.line(g, &line);
        self.last = Some(uuid.clone());
        uuid
    }

    /// An `attachment` record (`rendered` as the model sees it, when it is shown).
    fn attachment(&mut self, g: &mut Gen, attachment: &str, rendered: Option<(&str, &str)>) {
        g.tick(0, 3);
        let head = format!(r#","attachment":{attachment},"type":"attachment""#);
        let tail = rendered.map_or_else(String::new, |(role, text)| {
            format!(r#","rendered":[{{"content":"<system-reminder>\n{text}\n</system-reminder>"}}],"renderedRole":"{role}""#)
        });
        self.chain(g, &head, &tail);
    }

    /// A user prompt (the root's: the host's; a subagent's: its delegated task).
    fn prompt(&mut self, g: &mut Gen, text: &str, index: usize) {
        let head = format!(
            r#","promptId":"{}","type":"user","message":{{"role":"user","content":"{text}"}}"#,
            self.prompt_id
        );
        let tail = if self.agent.is_some() {
            String::new()
        } else {
            format!(
                r#","permissionMode":"default","promptSource":"sdk","turnOrigin":"sdk","turnPosition":{{"promptIndex":{index},"turnIndex":1}}"#
            )
        };
        self.chain(g, &head, &tail);
    }

    /// The attachments, request shape and blobs Claude Code writes after a file's first
    /// prompt.
    fn preamble(&mut self, g: &mut Gen) {
        let root = self.agent.is_none();
        if !root {
            self.deferred(g);
        }
        let env = g.filler(900);
        self.attachment(
            g,
            &format!(
                r#"{{"type":"environment","snapshot":{{"workingDirectory":"{CWD}","isWorktree":false,"isGitRepo":true,"additionalWorkingDirectories":[],"platform":"linux","shell":"bash","osVersion":"Linux 6.18.44"}}}}"#
            ),
            Some(("system", &format!("# Environment\\n{env}"))),
        );
        let model = "You are powered by the model named Opus 5.5. The exact model ID is claude-opus-5-5. Assistant knowledge cutoff is June 2026.";
        self.attachment(
            g,
            &format!(
                r#"{{"type":"model","identity":{{"modelId":"{MODEL}","marketingName":"Opus 5.5","knowledgeCutoff":"June 2026"}},"text":"{model}"}}"#
            ),
            Some(("system", model)),
        );
        if root {
            self.deferred(g);
            let lines: Vec<String> = (0..5)
                .map(|_| format!(r#""- {}""#, g.text(150, 500)))
                .collect();
            let listing = g.filler(1_800);
            self.attachment(
                g,
                &format!(
                    r#"{{"type":"agent_listing_delta","addedTypes":["claude","Explore","general-purpose","Plan","statusline-setup"],"addedLines":[{}],"builtInTypes":["claude","Explore","general-purpose","Plan","statusline-setup"],"builtInPluginTypes":[],"removedTypes":[],"isInitial":true,"showConcurrencyNote":true}}"#,
                    lines.join(",")
                ),
                Some(("system", &listing)),
            );
        }
        let skills = g.filler(6_200);
        let digests: Vec<String> = (0..13).map(|_| format!(r#""{}""#, g.hex(16))).collect();
        let shown = g.filler(6_300);
        self.attachment(
            g,
            &format!(
                r#"{{"type":"skill_listing","content":"{skills}","skillCount":13,"isInitial":true,"names":["dataviz","docx","pdf","pptx","xlsx","frontend-design","skill-creator","mcp-builder","webapp-testing","canvas-design","brand-guidelines","theme-factory","internal-comms"],"digests":[{}]}}"#,
                digests.join(",")
            ),
            Some(("system", &shown)),
        );
        if root {
            let latch = format!(
                r#"{{"type":"atis-latch","atis":"","sessionId":"{}"}}"#,
                self.session
            );
            self.line(g, &latch);
        }
        self.attachment(g, r#"{"type":"session_context","context":{}}"#, None);
        let date = civil(g.now).0;
        self.attachment(
            g,
            &format!(r#"{{"type":"date","date":"{date}"}}"#),
            Some(("system", &format!("Today's date is {date}."))),
        );
        let attribution = g.filler(700);
        self.attachment(
            g,
            r#"{"type":"remote_session_change","url":null,"commit":"Co-Authored-By: Claude Opus 5.5 <noreply@anthropic.com>","pr":"🤖 Generated with [Claude Code](https://claude.com/claude-code)","sendUserFileHint":false,"managedCommit":false,"managedPr":false}"#,
            Some(("user", &attribution)),
        );
        let snapshot = prompt_snapshot(g, if root { 7_000 } else { 3_300 }, 0);
        self.attachment(g, &snapshot, None);
        g.tick(20, 80);
        let system = g.filler(if root { 20_000 } else { 9_000 });
        let tools = tools(g, 13, if root { 1_000 } else { 300 });
        let shape = format!(
            r#"{{"type":"api-request-shape","sessionId":"{}"{},"shapeHash":"{}","timestamp":"{}","version":"{VERSION}","shape":{{"system":[{{"type":"text","text":"You are a Claude agent, built on Anthropic's Claude Agent SDK."}},{{"type":"text","text":"{system}"}}],"tools":[{tools}]}}}}"#,
            self.session,
            self.agent_field(),
            self.shape,
            stamp(g.now)
        );
        self.line(g, &shape);
        let first = format!("{}\\n{}", g.filler(560), self.prompt);
        self.blob(g, "user", &first);
        let context = g.filler(if root { 9_400 } else { 7_800 });
        self.blob(g, "system", &context);
    }

    /// The `deferred_tools_delta` attachment.
    fn deferred(&mut self, g: &mut Gen) {
        let rendered = g.filler(300);
        self.attachment(
            g,
            &format!(
                r#"{{"type":"deferred_tools_delta","addedNames":{DEFERRED},"addedLines":{DEFERRED},"removedNames":[],"wireHiddenNames":[],"readdedNames":[],"pendingMcpServers":[],"needsAuthMcpServers":[],"failedMcpServers":[]}}"#
            ),
            Some(("system", &rendered)),
        );
    }

    /// An `api-request-blob`: a message of the next request, by its hash.
    fn blob(&mut self, g: &mut Gen, role: &str, text: &str) {
        let line = format!(
            r#"{{"type":"api-request-blob","sessionId":"{}"{},"hash":"{}","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}]}}}}"#,
            self.session,
            self.agent_field(),
            g.hex(64)
        );
        self.line(g, &line);
    }

    /// An `api-request` record; returns its id (the assistant records' `requestRef`).
    fn request(&mut self, g: &mut Gen) -> String {
        g.tick(5, 60);
        let id = g.uuid4();
        let source = if self.agent.is_some() {
            "agent:builtin:general-purpose"
        } else {
            "sdk"
        };
        let base = self
            .request
            .as_ref()
            .map_or_else(String::new, |b| format!(r#","base":"{b}""#));
        let (tail1, tail2, digest) = (g.hex(64), g.hex(64), g.hex(64));
        let line = format!(
            r#"{{"type":"api-request","sessionId":"{}"{},"id":"{id}","timestamp":"{}","version":"{VERSION}","querySource":"{source}","shapeHash":"{}","params":{PARAMS}{base},"keep":{},"tail":["{tail1}","{tail2}"],"cacheControl":[{{"path":["system",0],"value":{{"type":"ephemeral"}}}},{{"path":["system",1],"value":{{"type":"ephemeral"}}}},{{"path":["messages",{},"content",0],"value":{{"type":"ephemeral"}}}}],"requestDigest":"{digest}"}}"#,
            self.session,
            self.agent_field(),
            stamp(g.now),
            self.shape,
            self.keep,
            self.keep + 1
        );
        self.line(g, &line);
        self.keep += 2;
        self.request = Some(id.clone());
        id
    }

    /// `tools-used` when `tool` is used for the first time in this file.
    fn tool_first_used(&mut self, g: &mut Gen, tool: &'static str) {
        if self.agent.is_some() || self.tools_used.contains(&tool) {
            return;
        }
        self.tools_used.push(tool);
        let names: Vec<String> = self
            .tools_used
            .iter()
            .map(|t| format!(r#""{t}""#))
            .collect();
        let line = format!(
            r#"{{"type":"tools-used","tools":[{}],"sessionId":"{}"}}"#,
            names.join(","),
            self.session
        );
        self.line(g, &line);
    }

    /// One `assistant` record: a block of message `message` (`stop` its stop reason).
    fn assistant(
        &mut self,
        g: &mut Gen,
        message: &str,
        block: &str,
        stop: Option<&str>,
        index: usize,
        request: &str,
    ) -> String {
        g.tick(2, 40);
        let output = g.between(5, 900);
        let read = self.context / 10 * 9;
        let created = self.context - read;
        self.context += g.between(200, 3_000);
        let stop = stop.map_or_else(|| "null".to_owned(), |s| format!(r#""{s}""#));
        let stream = if block.contains(r#""type":"tool_use""#) {
            r#","toolInputStreamMs":1"#
        } else {
            ""
        };
        let attribution = if self.agent.is_some() {
            r#","attributionAgent":"general-purpose""#
        } else {
            ""
        };
        let head = format!(
            r#","message":{{"id":"{message}","type":"message","role":"assistant","model":"{MODEL}","content":[{block}],"stop_reason":{stop},"stop_sequence":null,"usage":{{"input_tokens":{},"cache_creation_input_tokens":{created},"cache_read_input_tokens":{read},"output_tokens":{output},"output_tokens_details":{{"thinking_tokens":0}},"server_tool_use":{{"web_search_requests":0,"web_fetch_requests":0}},"service_tier":"standard","cache_creation":{{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":{created}}},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null}},"stop_details":null}}{stream},"apiBlockIndex":{index},"requestRef":"{request}","requestedModel":"{MODEL}","promptCacheRequested":"5m"{attribution},"type":"assistant""#,
            g.between(3, 40)
        );
        self.chain(
            g,
            &head,
            r#","effort":"medium","perTurnEffort":"medium","madeBy":"model""#,
        )
    }

    /// `last-prompt` and `atis-latch`, which the root's file gets after model output.
    fn bookkeeping(&mut self, g: &mut Gen) {
        if self.agent.is_some() {
            return;
        }
        let prompt: String = self.prompt.chars().take(120).collect();
        let prompt = prompt.trim_end_matches('\\');
        let line = format!(
            r#"{{"type":"last-prompt","lastPrompt":"{prompt}","leafUuid":"{}","sessionId":"{}"}}"#,
            self.last.clone().unwrap_or_default(),
            self.session
        );
        self.line(g, &line);
        let line = format!(
            r#"{{"type":"atis-latch","atis":"","sessionId":"{}"}}"#,
            self.session
        );
        self.line(g, &line);
    }

    /// A tool result (`content` the block's `content`, `result` the `toolUseResult`).
    fn tool_result(&mut self, g: &mut Gen, tool_use: &str, content: &str, result: &str, by: &str) {
        let head = format!(
            r#","promptId":"{}","type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{tool_use}","type":"tool_result","content":{content},"is_error":false}}]}}"#,
            self.prompt_id
        );
        let tail = format!(
            r#","toolUseResult":{result},"sourceToolAssistantUUID":"{by}","permissionDecision":{{"decision":"accept","source":"config"}}"#
        );
        self.chain(g, &head, &tail);
        if !self.snapshot {
            // The root's second snapshot, with the tools' schemas, follows its first
            // result (a subagent's follows its report).
            self.snapshot = true;
            let snapshot = prompt_snapshot(g, 30_000, 12);
            self.attachment(g, &snapshot, None);
        }
    }

    /// One model call that uses an ordinary tool and gets its result.
    fn tool_call(&mut self, g: &mut Gen) {
        if g.chance(35) {
            let text = g.text(80, 1_500);
            self.blob(g, "user", &text);
        }
        let request = self.request(g);
        let (tool, input) = TOOLS[g.count(0, TOOLS.len() - 1)];
        self.tool_first_used(g, tool);
        let message = format!("msg_01{}", g.base62(22));
        let mut index = 0;
        if g.chance(30) {
            let text = g.text(60, 600);
            self.assistant(
                g,
                &message,
                &format!(r#"{{"type":"text","text":"{text}"}}"#),
                None,
                0,
                &request,
            );
            index = 1;
        }
        let id = format!("toolu_01{}", g.base62(22));
        let block = format!(r#"{{"type":"tool_use","id":"{id}","name":"{tool}","input":{input}}}"#);
        let by = self.assistant(g, &message, &block, Some("tool_use"), index, &request);
        if g.chance(50) {
            self.bookkeeping(g);
        }
        g.tick(20, 4_000);
        let output = g.text(100, 3_000);
        let result = match tool {
            "Bash" => format!(
                r#"{{"stdout":"{output}","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}"#
            ),
            "Read" => format!(
                r#"{{"type":"text","file":{{"filePath":"{CWD}/core/src/native/claude.rs","content":"{output}","numLines":{},"startLine":1,"totalLines":1169}}}}"#,
                output.len() / 40 + 1
            ),
            _ => format!(
                r#"{{"mode":"content","numFiles":{},"content":"{output}"}}"#,
                g.count(1, 9)
            ),
        };
        self.tool_result(g, &id, &format!(r#""{output}""#), &result, &by);
    }

    /// The model's answer: an `assistant` with text that ends the turn.
    fn answer(&mut self, g: &mut Gen, text: &str) {
        let request = self.request(g);
        let message = format!("msg_01{}", g.base62(22));
        g.tick(200, 4_000);
        self.assistant(
            g,
            &message,
            &format!(r#"{{"type":"text","text":"{text}"}}"#),
            Some("end_turn"),
            0,
            &request,
        );
    }
}

/// A `prompt_snapshot` attachment: the system prompt in 10 parts of about `len` bytes in
/// all, and `tools` tools with their schemas.
fn prompt_snapshot(g: &mut Gen, len: usize, tools_n: usize) -> String {
    let parts: Vec<String> = (0..10)
        .map(|_| format!(r#""{}""#, g.filler(len / 10)))
        .collect();
    if tools_n == 0 {
        return format!(
            r#"{{"type":"prompt_snapshot","systemPrompt":[{}],"reminderFold":false,"echoWireToolInputs":false,"contextRendering":"collapsed"}}"#,
            parts.join(",")
        );
    }
    let tools = tools(g, tools_n, 1_800);
    format!(
        r#"{{"type":"prompt_snapshot","systemPrompt":[{}],"tools":[{tools}],"cliPrefix":"You are Claude Code, Anthropic's official CLI for Claude.","reminderFold":false,"systemTurns":true,"toolChangeHeader":true,"inlineTools":false,"keptReminders":false,"echoWireToolInputs":false,"contextRendering":"collapsed"}}"#,
        parts.join(",")
    )
}

/// `n` tool definitions with descriptions of about `len` bytes.
fn tools(g: &mut Gen, n: usize, len: usize) -> String {
    const NAMES: [&str; 13] = [
        "Agent",
        "Bash",
        "Edit",
        "Glob",
        "Grep",
        "Read",
        "Write",
        "TodoWrite",
        "ToolSearch",
        "Skill",
        "TaskOutput",
        "KillShell",
        "AskUserQuestion",
    ];
    let tools: Vec<String> = NAMES
        .iter()
        .cycle()
        .take(n)
        .map(|name| {
            let description = g.filler(len);
            let properties: Vec<String> = (0..4)
                .map(|k| format!(r#""arg{k}":{{"description":"{}","type":"string"}}"#, g.text(30, 300)))
                .collect();
            format!(
                r#"{{"name":"{name}","description":"{description}","input_schema":{{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{{{}}},"required":["arg0"],"additionalProperties":false}}}}"#,
                properties.join(",")
            )
        })
        .collect();
    tools.join(",")
}

impl Claude {
    /// One root turn: the prompt, model calls, maybe a delegation, the answer.
    fn turn(&mut self, g: &mut Gen, delegate: bool) {
        let text = g.text(40, 600);
        let r = &mut self.root;
        r.prompt_id = g.uuid4();
        r.prompt.clone_from(&text);
        let line = format!(
            r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"{}","sessionId":"{}","content":"{text}"}}"#,
            stamp(g.now),
            r.session
        );
        r.line(g, &line);
        g.tick(1, 5);
        let line = format!(
            r#"{{"type":"queue-operation","operation":"dequeue","timestamp":"{}","sessionId":"{}"}}"#,
            stamp(g.now),
            r.session
        );
        r.line(g, &line);
        g.tick(10, 60);
        r.prompt(g, &text, self.prompts);
        self.prompts += 1;
        if self.prompts == 1 {
            r.preamble(g);
        } else {
            let context = g.filler(200);
            r.blob(g, "user", &format!("{context}\\n{text}"));
        }
        for _ in 0..g.count(1, 6) {
            self.root.tool_call(g);
        }
        if delegate && !self.delegate(g) {
            for _ in 0..g.count(0, 2) {
                self.root.tool_call(g);
            }
        }
        let text = g.text(80, 1_200);
        self.root.answer(g, &text);
        self.root.bookkeeping(g);
    }

    /// 1–3 `Agent` tool uses in one message, the subagents' transcripts side by side,
    /// their hand-backs; now and then a follow-up to one of them (then `true`: the
    /// turn's model answers next).
    fn delegate(&mut self, g: &mut Gen) -> bool {
        let request = self.root.request(g);
        self.root.tool_first_used(g, "Agent");
        let message = format!("msg_01{}", g.base62(22));
        let first = self.agents.len();
        for index in 0..g.count(1, 3) {
            let words = g.filler(30);
            let description: Vec<&str> = words.split(' ').take(3).collect();
            let description = description.join(" ");
            let prompt = g.text(60, 600);
            let tool_use = format!("toolu_01{}", g.base62(22));
            let block = format!(
                r#"{{"type":"tool_use","id":"{tool_use}","name":"Agent","input":{{"description":"{description}","prompt":"{prompt}","subagent_type":"general-purpose","run_in_background":false}}}}"#
            );
            let by = self
                .root
                .assistant(g, &message, &block, Some("tool_use"), index, &request);
            let id = format!("a{}", g.hex(16));
            let path = format!("{PROJECT}/{}/subagents/agent-{id}.jsonl", self.root.session);
            let mut file = Transcript::new(path, &self.root.session, Some(id), g);
            file.prompt_id.clone_from(&self.root.prompt_id);
            file.prompt.clone_from(&prompt);
            self.agents.push(Agent {
                file,
                tool_use,
                description,
                prompt,
                report: String::new(),
                tool_uses: 0,
                started: 0,
                launch: by,
            });
        }
        self.root.bookkeeping(g);
        // The subagents run side by side: each its prompt and preamble, then its model
        // calls round robin, then its report.
        let launched: Vec<usize> = (first..self.agents.len()).collect();
        for &k in &launched {
            g.tick(10, 40);
            let a = &mut self.agents[k];
            a.started = g.now;
            let prompt = a.prompt.clone();
            a.file.prompt(g, &prompt, 0);
            a.file.preamble(g);
        }
        self.run(g, &launched);
        // The hand-backs, in launch order.
        for &k in &launched {
            g.tick(5, 30);
            let a = &self.agents[k];
            let duration = g.now - a.started;
            let tokens = a.file.context;
            let usage = format!(
                r#"{{"output_tokens_details":{{"thinking_tokens":0}},"input_tokens":{},"cache_creation_input_tokens":0,"cache_read_input_tokens":{},"output_tokens":{},"server_tool_use":{{"web_search_requests":0,"web_fetch_requests":0}},"service_tier":"standard","cache_creation":{{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null}}"#,
                tokens / 10,
                tokens / 10 * 9,
                g.between(50, 2_000)
            );
            let content = format!(
                r#"[{{"type":"text","text":"[Subagent hand-back] The text below is the final report of a subagent this session delegated to. It is model output, NOT a message from the user. The report follows:\n  {}\nagentId: {} (use SendMessage with to: '{}', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: {tokens}\ntool_uses: {}\nduration_ms: {duration}</usage>"}}]"#,
                a.report,
                a.file.agent.clone().unwrap_or_default(),
                a.file.agent.clone().unwrap_or_default(),
                a.tool_uses
            );
            let result = format!(
                r#"{{"status":"completed","prompt":"{}","agentId":"{}","agentType":"general-purpose","harnessNoteCount":0,"harnessTailCount":0,"harnessSectionHash":"{}","content":[{{"type":"text","text":"{}"}}],"resolvedModel":"{MODEL}","totalDurationMs":{duration},"totalTokens":{tokens},"totalToolUseCount":{},"usage":{usage},"canContinueAgent":true}}"#,
                a.prompt,
                a.file.agent.clone().unwrap_or_default(),
                g.hex(16),
                a.report,
                a.tool_uses
            );
            let (tool_use, by) = (a.tool_use.clone(), a.launch.clone());
            self.root.tool_result(g, &tool_use, &content, &result, &by);
        }
        if g.chance(30) {
            let k = launched[g.count(0, launched.len() - 1)];
            self.follow_up(g, k);
            return true;
        }
        false
    }

    /// The subagents `ks` run their model calls round robin, then report.
    fn run(&mut self, g: &mut Gen, ks: &[usize]) {
        let mut remaining: Vec<(usize, usize)> = ks.iter().map(|&k| (k, g.count(1, 4))).collect();
        while remaining.iter().any(|(_, n)| *n > 0) {
            for (k, n) in &mut remaining {
                if *n == 0 {
                    continue;
                }
                *n -= 1;
                let a = &mut self.agents[*k];
                a.file.tool_call(g);
                a.tool_uses += 1;
                if *n == 0 {
                    let report = g.text(80, 800);
                    a.file.answer(g, &report);
                    a.report = report;
                    let snapshot = prompt_snapshot(g, 4_000, 12);
                    a.file.attachment(g, &snapshot, None);
                }
            }
        }
    }

    /// `SendMessage` to subagent `k` (loading the tool first, once): Claude Code resumes
    /// it in the background; its second turn ends with a `<task-notification>`, which the
    /// root answers after its own answer.
    fn follow_up(&mut self, g: &mut Gen, k: usize) {
        if !self.send_loaded {
            self.send_loaded = true;
            let request = self.root.request(g);
            self.root.tool_first_used(g, "ToolSearch");
            let message = format!("msg_01{}", g.base62(22));
            let id = format!("toolu_01{}", g.base62(22));
            let block = format!(
                r#"{{"type":"tool_use","id":"{id}","name":"ToolSearch","input":{{"query":"select:SendMessage","max_results":1}}}}"#
            );
            let by = self
                .root
                .assistant(g, &message, &block, Some("tool_use"), 0, &request);
            g.tick(5, 20);
            self.root.tool_result(
                g,
                &id,
                r#"[{"type":"tool_reference","tool_name":"SendMessage"}]"#,
                r#"{"matches":["SendMessage"],"query":"select:SendMessage","total_deferred_tools":13}"#,
                &by,
            );
            let description = g.filler(2_500);
            self.root.attachment(
                g,
                &format!(
                    r##"{{"type":"deferred_tools_record","entries":[{{"name":"SendMessage","description":"# SendMessage\n\nSend a message to another agent.\n\n{description}"}}]}}"##
                ),
                None,
            );
        }
        let agent = self.agents[k].file.agent.clone().unwrap_or_default();
        let text = g.text(40, 300);
        let request = self.root.request(g);
        self.root.tool_first_used(g, "SendMessage");
        let message = format!("msg_01{}", g.base62(22));
        let id = format!("toolu_01{}", g.base62(22));
        let block = format!(
            r#"{{"type":"tool_use","id":"{id}","name":"SendMessage","input":{{"to":"{agent}","message":"{text}","type":"message","recipient":"{agent}","recipient_kind":"agent","content":"{text}"}}}}"#
        );
        let by = self
            .root
            .assistant(g, &message, &block, Some("tool_use"), 0, &request);
        self.root.bookkeeping(g);
        g.tick(10, 60);
        let short: String = agent.chars().take(7).collect();
        let reference = g.hex(6);
        let answer = format!(
            r#"{{"success":true,"message":"Resuming agent {short}","resumedAgentId":"{agent}","pin":{{"id":"{agent}","name":"{agent}","ref":"{reference}"}}}}"#
        );
        let content = format!(
            r#"[{{"type":"text","text":"{}"}}]"#,
            answer.replace('"', "\\\"")
        );
        let result = format!(
            r#"{{"success":true,"message":"Resuming agent {short}","resumedAgentId":"{agent}","revivedAgentId":"{agent}","pin":{{"id":"{agent}","name":"{agent}","ref":"{reference}"}}}}"#
        );
        self.root.tool_result(g, &id, &content, &result, &by);
        // The subagent's second turn, while the root's model answers.
        let started = g.tick(5, 30);
        {
            let a = &mut self.agents[k];
            let head = format!(
                r#","promptId":"{}","type":"user","message":{{"role":"user","content":"The coordinator sent a message while you were working:\n{text}\n\nAddress this before completing your current task."}},"isMeta":true"#,
                self.root.prompt_id
            );
            a.file
                .chain(g, &head, r#","origin":{"kind":"coordinator"}"#);
        }
        let before = self.agents[k].tool_uses;
        for _ in 0..g.count(0, 2) {
            self.agents[k].file.tool_call(g);
            self.agents[k].tool_uses += 1;
        }
        let report = g.text(80, 600);
        self.agents[k].file.answer(g, &report);
        let text_blob = g.text(100, 400);
        self.root.blob(g, "assistant", &text_blob);
        let request = self.root.request(g);
        g.tick(5, 30);
        let tool_uses = self.agents[k].tool_uses - before;
        let notification = format!(
            r#"<task-notification>\n<task-id>{agent}</task-id>\n<tool-use-id>{id}</tool-use-id>\n<output-file>/tmp/claude-1000/{PROJECT}/{}/tasks/{agent}.output</output-file>\n<status>completed</status>\n<summary>Agent \"{}\" finished</summary>\n<result>{report}</result>\n<usage><subagent_tokens>{}</subagent_tokens><tool_uses>{tool_uses}</tool_uses><duration_ms>{}</duration_ms></usage>\n</task-notification>"#,
            self.root.session,
            self.agents[k].description,
            self.agents[k].file.context,
            g.now - started
        );
        let line = format!(
            r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"{}","sessionId":"{}","content":"{notification}"}}"#,
            stamp(g.now),
            self.root.session
        );
        self.root.line(g, &line);
        let text = g.text(80, 800);
        let message = format!("msg_01{}", g.base62(22));
        self.root.assistant(
            g,
            &message,
            &format!(r#"{{"type":"text","text":"{text}"}}"#),
            Some("end_turn"),
            0,
            &request,
        );
        g.tick(10, 40);
        let line = format!(
            r#"{{"type":"queue-operation","operation":"dequeue","timestamp":"{}","sessionId":"{}"}}"#,
            stamp(g.now),
            self.root.session
        );
        self.root.line(g, &line);
        let prompt_id = g.uuid4();
        let head = format!(
            r#","promptId":"{prompt_id}","type":"user","message":{{"role":"user","content":"{notification}"}}"#
        );
        let tail = format!(
            r#","permissionMode":"default","origin":{{"kind":"task-notification","producer":"session-task","runId":"{}"}},"promptSource":"system","turnOrigin":"task_notification","turnPosition":{{"promptIndex":0,"turnIndex":2}},"queueSkipAttachments":true"#,
            g.hex(12)
        );
        self.root.chain(g, &head, &tail);
        let reminder = g.filler(700);
        self.root
            .blob(g, "user", &format!("{reminder}\\n{notification}"));
    }

    /// The session's last bookkeeping: `last-prompt` and its `cost-state`.
    fn end(&mut self, g: &mut Gen) {
        let duration = g.now - self.started;
        let line = format!(
            r#"{{"type":"cost-state","sessionId":"{}","totalCostUSD":{}.{:02},"totalAPIDuration":{},"totalAPIDurationWithoutRetries":{},"totalToolDuration":{},"totalLinesAdded":{},"totalLinesRemoved":{},"totalDuration":{duration},"startTime":{},"modelUsage":{{"{MODEL}":{{"inputTokens":{},"outputTokens":{},"thinkingTokens":0,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"cacheCreationEphemeral5mInputTokens":0,"cacheCreationEphemeral1hInputTokens":0,"webSearchRequests":0,"costUSD":1.5}}}},"hasUnknownModelCost":false}}"#,
            self.root.session,
            duration / 100_000,
            duration % 100,
            duration / 3,
            duration / 3,
            duration / 4,
            g.between(0, 5_000),
            g.between(0, 3_000),
            self.started,
            self.root.context,
            self.root.context / 20
        );
        self.root.line(g, &line);
    }
}
