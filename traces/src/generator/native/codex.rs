//! Codex rollouts: one `sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl` per thread,
//! written as Codex 0.169 writes them (`traces/real-native/codex/`).
//!
//! A root turn: `task_started`, `turn_context`, the user's message (a `response_item`
//! and its `UserMessage` item), then model calls: each a `reasoning` item, an
//! `exec_command` call, its `token_usage_record`, the `CommandExecution` item, the
//! call's output and a `token_count` (now and then an `AgentMessage` commentary), and
//! the turn's last `AgentMessage` and `task_complete`. A delegating turn spawns its
//! children in one model call (`spawn_agent`, a `CollabAgentToolCall` item per child),
//! waits for them all (`wait_agent`, then a `<subagent_notification>` each), and may ask
//! some for more (`send_input`, then another wait).

use lineage_core::native::File;

use super::{Gen, civil, stamp};

const CWD: &str = "/home/dev/work/lineage";
const NICKNAMES: [&str; 10] = [
    "Cicero", "Huygens", "Faraday", "Herschel", "Euler", "Noether", "Hopper", "Turing", "Lovelace",
    "Kepler",
];
const COMMANDS: [&str; 10] = [
    "cargo test -p lineage-core --lib",
    "rg -n parse_timestamp core/src",
    "sed -n 1,160p core/src/native/codex.rs",
    "git status --short",
    "ls -la core/src/native",
    "cargo clippy --all-targets",
    "git diff --stat",
    "rg -n TODO traces/src",
    "cargo build -p lineage-cli",
    "cat Cargo.toml",
];
const RATE_LIMITS: &str = r#"{"limit_id":"codex","limit_name":null,"primary":null,"secondary":null,"credits":null,"individual_limit":null,"spend_control_reached":null,"plan_type":null,"rate_limit_reached_type":null}"#;

/// Token counts of one model call, or a sum of them.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    input: u64,
    cached: u64,
    output: u64,
    reasoning: u64,
}

impl Usage {
    fn add(&mut self, other: Usage) {
        self.input += other.input;
        self.cached += other.cached;
        self.output += other.output;
        self.reasoning += other.reasoning;
    }

    fn json(self) -> String {
        format!(
            r#"{{"input_tokens":{},"cached_input_tokens":{},"cache_write_input_tokens":0,"output_tokens":{},"reasoning_output_tokens":{},"total_tokens":{}}}"#,
            self.input,
            self.cached,
            self.output,
            self.reasoning,
            self.input + self.output
        )
    }
}

/// One rollout file being written.
struct Rollout {
    thread: String,
    path: String,
    text: String,
    ordinal: u64,
    /// The `history_sequence` of the thread's last response item.
    history: u64,
    /// The thread's context, in tokens (grows with every call).
    context: u64,
    thread_usage: Usage,
    turn_usage: Usage,
    /// The running turn, its start (ms) and the root turn it belongs under.
    turn: String,
    turn_started: u64,
    root_turn: String,
    nickname: Option<&'static str>,
    /// The root thread of the tree (every file's `session_id`).
    session: String,
    /// The thread's last agent message.
    last_message: String,
}

/// The state of the whole source.
struct Codex {
    root: Rollout,
    children: Vec<Rollout>,
    /// The text of every file's `base_instructions` (the same in all, as Codex writes).
    instructions: String,
    responses: u64,
}

pub(super) fn generate(g: &mut Gen, lines: usize) -> Vec<File> {
    let instructions = g.filler(21_500);
    let root = Rollout::new(g, None, &instructions);
    let mut c = Codex {
        root,
        children: Vec::new(),
        instructions,
        responses: 0,
    };
    g.root_turns(lines, &mut c, |c, g, delegate| c.root_turn(g, delegate));
    std::iter::once(c.root)
        .chain(c.children)
        .map(|r| File::new(r.path, r.text))
        .collect()
}

impl Rollout {
    /// A new thread's file with its `session_meta` (a child's names its parent).
    fn new(g: &mut Gen, parent: Option<(&str, &'static str)>, instructions: &str) -> Self {
        let thread = g.uuid7();
        let (date, (h, m, s)) = civil(g.now);
        let path = format!(
            "sessions/{}/rollout-{date}T{h:02}-{m:02}-{s:02}-{thread}.jsonl",
            date.replace('-', "/")
        );
        let mut r = Self {
            thread,
            path,
            text: String::new(),
            ordinal: 0,
            history: 0,
            context: 9_000,
            thread_usage: Usage::default(),
            turn_usage: Usage::default(),
            turn: String::new(),
            turn_started: 0,
            root_turn: String::new(),
            nickname: parent.map(|(_, n)| n),
            session: String::new(),
            last_message: String::new(),
        };
        r.session = parent.map_or_else(|| r.thread.clone(), |(root, _)| root.to_owned());
        let window = g.uuid7();
        let now = stamp(g.now);
        let body = match parent {
            None => format!(
                r#"{{"account_scoped":true,"session_id":"{t}","id":"{t}","timestamp":"{now}","cwd":"{CWD}","runtime_workspace_roots":["{CWD}"],"originator":"codex_cli_rs","cli_version":"0.169.0","source":"cli","model_provider":"openai","base_instructions":{{"text":"{instructions}"}},"history_mode":"paginated","context_window":{{"window_id":"{window}"}}}}"#,
                t = r.thread
            ),
            Some((root, nick)) => format!(
                r#"{{"account_scoped":true,"session_id":"{root}","id":"{t}","parent_thread_id":"{root}","timestamp":"{now}","cwd":"{CWD}","runtime_workspace_roots":["{CWD}"],"originator":"codex_cli_rs","cli_version":"0.169.0","source":{{"subagent":{{"thread_spawn":{{"parent_thread_id":"{root}","depth":1,"agent_path":null,"agent_nickname":"{nick}","agent_role":null}}}}}},"thread_source":"subagent","agent_nickname":"{nick}","model_provider":"openai","base_instructions":{{"text":"{instructions}"}},"history_mode":"paginated","multi_agent_version":"v1","context_window":{{"window_id":"{window}"}}}}"#,
                t = r.thread
            ),
        };
        r.record(g, "session_meta", &body);
        r
    }

    /// Appends one record at the clock's time.
    fn record(&mut self, g: &mut Gen, kind: &str, payload: &str) {
        use std::fmt::Write;
        let _ = writeln!(
            self.text,
            r#"{{"timestamp":"{}","ordinal":{},"type":"{kind}","payload":{payload}}}"#,
            stamp(g.now),
            self.ordinal
        );
        self.ordinal += 1;
        g.lines += 1;
    }

    fn event(&mut self, g: &mut Gen, payload: &str) {
        self.record(g, "event_msg", payload);
    }

    /// A `response_item`: `item` is the payload without its closing brace, `passthrough`
    /// what its `internal_chat_message_metadata_passthrough` holds after the turn id, and
    /// `metadata` what the record's `metadata` holds after `client_authored`.
    fn response_item(&mut self, g: &mut Gen, item: &str, passthrough: &str, metadata: &str) {
        self.history += 1;
        let sampled = self.history.saturating_sub(2);
        let body = format!(
            r#"{item},"internal_chat_message_metadata_passthrough":{{"turn_id":"{}"{passthrough}}}}},"metadata":{{"history_sequence":{},"sampled_through_sequence":{sampled},"client_authored":false{metadata}}}"#,
            self.turn, self.history
        );
        self.record(g, "response_item", &body);
    }

    /// `create_time` as Codex writes it (seconds, with a fraction).
    fn create_time(g: &Gen) -> String {
        format!("{}.{:03}", g.now / 1000, g.now % 1000)
    }

    /// One model call's usage: its `token_usage_record` (written now) and the
    /// `token_count` that follows the call's items ([`Rollout::token_count`]).
    fn sample(&mut self, g: &mut Gen, c: &mut u64) -> Usage {
        let output = g.between(20, 900);
        let usage = Usage {
            input: self.context,
            cached: self.context / 10 * 9,
            output,
            reasoning: g.between(0, 600).min(output),
        };
        self.context += g.between(300, 4_000);
        self.thread_usage.add(usage);
        self.turn_usage.add(usage);
        *c += 1;
        let body = format!(
            r#"{{"thread_id":"{}","turn_id":"{}","session_id":"{}","root_turn_id":"{}","response_id":"resp_{c}","usage":{},"turn_token_usage":{},"thread_token_usage":{}}}"#,
            self.thread,
            self.turn,
            self.session,
            self.root_turn,
            usage.json(),
            self.turn_usage.json(),
            self.thread_usage.json()
        );
        self.record(g, "token_usage_record", &body);
        usage
    }

    fn token_count(&mut self, g: &mut Gen, last: Usage) {
        let body = format!(
            r#"{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"last_usage_includes_reasoning":false,"model_context_window":258400}},"rate_limits":{RATE_LIMITS}}}"#,
            self.thread_usage.json(),
            last.json()
        );
        self.event(g, &body);
    }

    /// `task_started` and what Codex writes before the user's message: the developer
    /// and environment messages and the full world state on the thread's first turn,
    /// the turn context always, and the thread settings first.
    fn start_turn(&mut self, g: &mut Gen, parent_turn: Option<&str>, text: &str) {
        g.tick(1, 20);
        self.turn = g.uuid7();
        self.turn_started = g.now;
        self.turn_usage = Usage::default();
        self.root_turn = parent_turn.unwrap_or(&self.turn).to_owned();
        let parent = parent_turn.map_or_else(|| "null".to_owned(), |p| format!(r#""{p}""#));
        let first = self.history == 0;
        let body = format!(
            r#"{{"type":"task_started","turn_attribution":{{"turn_id":"{t}","turn_trigger":null,"parent_turn_id":{parent},"initiating_agent_path":null,"root_turn_id":"{r}"}},"turn_id":"{t}","root_turn_id":"{r}","started_at":{s},"model_context_window":258400,"collaboration_mode_kind":"default"}}"#,
            t = self.turn,
            r = self.root_turn,
            s = g.now / 1000
        );
        self.event(g, &body);
        if first {
            g.tick(10, 30);
            let skills = g.filler(2_900);
            let id = g.uuid7();
            let ct = Self::create_time(g);
            let item = format!(
                r#"{{"type":"message","id":"msg_{id}","role":"developer","content":[{{"type":"input_text","text":"<skills_instructions>\n## Skills\n{skills}\n</skills_instructions>"}},{{"type":"input_text","text":"<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`. Network access is restricted.\nApproval policy is currently on-request.\n</permissions instructions>"}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{}","create_time":{ct},"content_item_kinds":["host_skills.instructions","permissions.instructions"],"content_item_metadata":[{{"provenance":{{"type":"skills"}}}},{{"provenance":{{"type":"harness","hook":false}}}}]}}}},"metadata":{{"history_sequence":1,"sampled_through_sequence":0,"client_authored":false,"mcp_attribution":{{"status":"none"}}}}"#,
                self.turn
            );
            self.history = 1;
            self.record(g, "response_item", &item);
            let id = g.uuid7();
            let item = format!(
                r#"{{"type":"message","id":"msg_{id}","role":"user","content":[{{"type":"input_text","text":"<environment_context>\n  <cwd>{CWD}</cwd>\n  <shell>bash</shell>\n  <current_date>{}</current_date>\n  <timezone>Etc/UTC</timezone>\n  <filesystem><workspace_roots><root>{CWD}</root></workspace_roots><permission_profile type=\"managed\"><file_system type=\"restricted\"><entry access=\"write\"><special>:workspace</special></entry></file_system></permission_profile></filesystem>\n</environment_context>"}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{}","create_time":{ct},"content_item_kinds":["environments.environment_context"],"content_item_metadata":[{{"provenance":{{"type":"harness","hook":false}}}}]}}}},"metadata":{{"history_sequence":2,"sampled_through_sequence":0,"client_authored":false}}"#,
                civil(g.now).0,
                self.turn
            );
            self.history = 2;
            self.record(g, "response_item", &item);
            g.tick(1, 5);
            let body = g.filler(2_400);
            let state = format!(
                r#"{{"full":true,"state":{{"agents_md":{{}},"apps_instructions":false,"collaboration_mode":{{"mode":"default","model":"gpt-5.5-codex","instructions":"{}"}},"context_window_guidance":"","environments":{{"environments":{{"local":{{"cwd":"{CWD}","status":"available","shell":"bash"}}}},"current_date":"{}","timezone":"Etc/UTC"}},"environments_instructions":false,"git_attribution":false,"host_skills":{{"body":"{body}","includeInstructions":true}},"managed_developer_instructions":{{}},"model":"gpt-5.5-codex","model_catalog":"{}","multi_agent_mode":{{}},"permissions":{{"instructions":"{}","approved_command_prefixes":[]}},"persistent_mode":{{}},"plugins_instructions":false,"realtime":{{"active":false}},"skills":{{"includeInstructions":true}}}}}}"#,
                g.hex(40),
                civil(g.now).0,
                g.hex(40),
                g.hex(40)
            );
            self.record(g, "world_state", &state);
        }
        g.tick(1, 3);
        let context = format!(
            r#"{{"turn_id":"{}","root_turn_id":"{}","disabled_plugin_ids":[],"cwd":"{CWD}","approval_policy":"on-request","approvals_reviewer":"user","permission_profile":{{"type":"managed","file_system":{{"type":"restricted","entries":[{{"path":{{"type":"special","value":{{"kind":"workspace"}}}},"access":"write"}}]}},"network":"restricted"}},"model":"gpt-5.5-codex","collaboration_mode":{{"mode":"default","settings":{{"model":"gpt-5.5-codex","reasoning_effort":"medium","developer_instructions":null}}}},"multi_agent_version":"v1","realtime_active":false,"summary":"auto","sandbox_policy":{{"type":"workspace-write"}}}}"#,
            self.turn, self.root_turn
        );
        self.record(g, "turn_context", &context);
        if first {
            let body = format!(
                r#"{{"type":"thread_settings_applied","thread_id":"{}","thread_settings":{{"model":"gpt-5.5-codex","model_provider_id":"openai","approval_policy":"on-request","approvals_reviewer":"user","requested_approvals_reviewer":"user","permission_profile":{{"type":"managed","file_system":{{"type":"restricted","entries":[{{"path":{{"type":"special","value":{{"kind":"workspace"}}}},"access":"write"}}]}},"network":"restricted"}},"cwd":"{CWD}","runtime_workspace_roots":["{CWD}"],"reasoning_summary":"auto","collaboration_mode":{{"mode":"default","settings":{{"model":"gpt-5.5-codex","reasoning_effort":"medium","developer_instructions":null}}}},"disabled_plugin_ids":[]}}}}"#,
                self.thread
            );
            self.event(g, &body);
        }
        g.tick(5, 30);
        let id = g.uuid7();
        let revision = g.uuid7();
        let item = format!(
            r#"{{"type":"message","id":"msg_{id}","role":"user","content":[{{"type":"input_text","text":"{text}"}}]"#
        );
        let ct = Self::create_time(g);
        let passthrough = format!(
            r#","create_time":{ct},"content_item_kinds":["user.text"],"content_item_metadata":[{{"provenance":{{"type":"user"}}}}]"#
        );
        let metadata = format!(
            r#","retained_source":{{"id":{{"message_id":"msg_{id}","turn_id":"{}","role":"user"}},"revision":"retained_{revision}","complete":true}},"user_input_order":{},"mcp_attribution":{{"status":"none"}}"#,
            self.turn, self.history
        );
        self.response_item(g, &item, &passthrough, &metadata);
        g.tick(1, 5);
        let item_id = g.uuid7();
        let body = format!(
            r#"{{"type":"item_completed","thread_id":"{}","turn_id":"{}","item":{{"type":"UserMessage","id":"{item_id}","content":[{{"type":"text","text":"{text}","text_elements":[]}}]}},"started_at_ms":{n},"completed_at_ms":{n}}}"#,
            self.thread,
            self.turn,
            n = g.now
        );
        self.event(g, &body);
    }

    /// An `AgentMessage` item and its `response_item` (commentary, or the turn's answer).
    fn agent_message(&mut self, g: &mut Gen, text: &str) {
        let id = format!("msg_{}", g.hex(24));
        let body = format!(
            r#"{{"type":"item_completed","thread_id":"{}","turn_id":"{}","item":{{"type":"AgentMessage","id":"{id}","content":[{{"type":"Text","text":"{text}"}}]}},"started_at_ms":{n},"completed_at_ms":{n}}}"#,
            self.thread,
            self.turn,
            n = g.now
        );
        self.event(g, &body);
        g.tick(1, 4);
        let revision = g.uuid7();
        let item = format!(
            r#"{{"type":"message","status":"completed","id":"{id}","role":"assistant","content":[{{"type":"output_text","text":"{text}","annotations":[]}}]"#
        );
        let metadata = format!(
            r#","retained_source":{{"id":{{"message_id":"{id}","turn_id":"{}","role":"assistant"}},"revision":"retained_{revision}","complete":true}},"user_input_order":{}"#,
            self.turn, self.history
        );
        self.response_item(g, &item, r#","content_item_kinds":["unknown"]"#, &metadata);
        self.last_message = text.to_owned();
    }

    /// One model call that runs a command: reasoning, the call, its usage, the command's
    /// item and output, the token count (sometimes commentary first).
    fn exec(&mut self, g: &mut Gen, responses: &mut u64) {
        g.tick(300, 6_000);
        if g.chance(25) {
            let text = g.text(60, 300);
            self.agent_message(g, &text);
            g.tick(5, 50);
        }
        let summary = g.text(80, 400);
        let len = g.count(800, 3_200);
        let encrypted = g.base62(len);
        let rs = g.hex(32);
        let item = format!(
            r#"{{"type":"reasoning","id":"rs_{rs}","summary":[{{"type":"summary_text","text":"**Planning the next step**\n\n{summary}"}}],"content":null,"encrypted_content":"gAAAAB{encrypted}""#
        );
        self.response_item(g, &item, "", "");
        g.tick(1, 30);
        let command = COMMANDS[g.count(0, COMMANDS.len() - 1)];
        let call = format!("call_{}", g.base62(24));
        let fc = g.hex(32);
        let item = format!(
            r#"{{"type":"function_call","id":"fc_{fc}","name":"exec_command","arguments":"{{\"cmd\":\"{command}\",\"workdir\":\"{CWD}\",\"yield_time_ms\":10000}}","call_id":"{call}""#
        );
        let metadata = format!(r#","user_input_order":{}"#, self.history);
        self.response_item(g, &item, "", &metadata);
        g.tick(1, 5);
        let usage = self.sample(g, responses);
        let started = g.tick(5, 40);
        let ran = g.tick(20, 4_000) - started;
        let failed = g.chance(8);
        let output = g.text(100, 3_000);
        let body = format!(
            r#"{{"type":"item_completed","thread_id":"{}","turn_id":"{}","item":{{"type":"CommandExecution","id":"{call}","process_id":"{}","command":["/bin/bash","-lc","{command}"],"cwd":"file://{CWD}","parsed_cmd":[{{"type":"unknown","cmd":"{command}"}}],"source":"unified_exec_startup","status":"{}","aggregated_output":"{output}","exit_code":{},"duration":{{"secs":{},"nanos":{}}}}},"started_at_ms":{started},"completed_at_ms":{}}}"#,
            self.thread,
            self.turn,
            g.between(1_000, 99_999),
            if failed { "failed" } else { "completed" },
            u8::from(failed),
            ran / 1000,
            ran % 1000 * 1_000_000,
            g.now
        );
        self.event(g, &body);
        g.tick(2, 10);
        let fco = g.uuid7();
        let ct = Self::create_time(g);
        let item = format!(
            r#"{{"type":"function_call_output","id":"fco_{fco}","call_id":"{call}","output":"Chunk ID: {}\nWall time: {}.{:04} seconds\nProcess exited with code {}\nOriginal token count: {}\nOutput:\n{output}""#,
            g.hex(6),
            ran / 1000,
            ran % 1000 * 10,
            u8::from(failed),
            output.len() / 4
        );
        let passthrough = format!(r#","create_time":{ct}"#);
        self.response_item(
            g,
            &item,
            &passthrough,
            r#","fallback_token_limit_override":3000"#,
        );
        g.tick(1, 3);
        self.token_count(g, usage);
    }

    /// The turn's answer and `task_complete`.
    fn finish_turn(&mut self, g: &mut Gen, responses: &mut u64) {
        g.tick(300, 5_000);
        let text = g.text(80, 1_200);
        self.agent_message(g, &text);
        g.tick(1, 3);
        let usage = self.sample(g, responses);
        g.tick(1, 3);
        self.token_count(g, usage);
        g.tick(1, 6);
        let duration = g.now - self.turn_started;
        let body = format!(
            r#"{{"type":"task_complete","root_turn_id":"{}","turn_id":"{}","last_agent_message":"{text}","started_at":{},"completed_at":{},"duration_ms":{duration},"time_to_first_token_ms":{}}}"#,
            self.root_turn,
            self.turn,
            self.turn_started / 1000,
            g.now / 1000,
            g.between(40, 900)
        );
        self.event(g, &body);
    }

    /// A `function_call` of the multi-agent tools in this thread's turn.
    fn collab_call(&mut self, g: &mut Gen, name: &str, arguments: &str) -> String {
        let call = format!("call_{}", g.base62(24));
        let fc = g.hex(32);
        let item = format!(
            r#"{{"type":"function_call","id":"fc_{fc}","name":"{name}","namespace":"multi_agent_v1","arguments":"{arguments}","call_id":"{call}""#
        );
        let metadata = format!(r#","user_input_order":{}"#, self.history);
        self.response_item(g, &item, "", &metadata);
        call
    }

    /// A `CollabAgentToolCall` item of this thread.
    fn collab_item(
        &mut self,
        g: &mut Gen,
        call: &str,
        tool: &str,
        receivers: &[(&str, &str)],
        rest: &str,
    ) {
        let ids: Vec<String> = receivers.iter().map(|(t, _)| format!(r#""{t}""#)).collect();
        let agents: Vec<String> = receivers
            .iter()
            .map(|(t, n)| format!(r#"{{"thread_id":"{t}","agent_nickname":"{n}"}}"#))
            .collect();
        let started = g.now.saturating_sub(g.between(5, 30));
        let body = format!(
            r#"{{"type":"item_completed","thread_id":"{t}","turn_id":"{}","item":{{"type":"CollabAgentToolCall","id":"{call}","tool":"{tool}","status":"completed","sender_thread_id":"{t}","receiver_thread_ids":[{}],"receiver_agents":[{}]{rest}}},"started_at_ms":{started},"completed_at_ms":{}}}"#,
            self.turn,
            ids.join(","),
            agents.join(","),
            g.now,
            t = self.thread
        );
        self.event(g, &body);
    }

    /// A tool call's output (`output` is already escaped for a JSON string).
    fn call_output(&mut self, g: &mut Gen, call: &str, output: &str) {
        let fco = g.uuid7();
        let ct = Self::create_time(g);
        let item = format!(
            r#"{{"type":"function_call_output","id":"fco_{fco}","call_id":"{call}","output":"{output}""#
        );
        let passthrough = format!(r#","create_time":{ct}"#);
        self.response_item(
            g,
            &item,
            &passthrough,
            r#","fallback_token_limit_override":3000"#,
        );
    }
}

impl Codex {
    /// One root turn: the user's message, commands, maybe a delegation, the answer.
    fn root_turn(&mut self, g: &mut Gen, delegate: bool) {
        let text = g.text(40, 600);
        self.root.start_turn(g, None, &text);
        for _ in 0..g.count(1, 6) {
            self.root.exec(g, &mut self.responses);
        }
        if delegate {
            self.delegate(g);
            for _ in 0..g.count(0, 2) {
                self.root.exec(g, &mut self.responses);
            }
        }
        self.root.finish_turn(g, &mut self.responses);
    }

    /// Spawns 1–3 children in one model call, waits for them, asks some for more.
    fn delegate(&mut self, g: &mut Gen) {
        let n = g.count(1, 3);
        g.tick(300, 5_000);
        let prompts: Vec<String> = (0..n).map(|_| g.text(60, 500)).collect();
        let calls: Vec<String> = prompts
            .iter()
            .map(|p| {
                let args = format!(r#"{{\"message\":\"{}\"}}"#, p.replace('\\', "\\\\"));
                g.tick(1, 4);
                self.root.collab_call(g, "spawn_agent", &args)
            })
            .collect();
        g.tick(1, 4);
        let usage = self.root.sample(g, &mut self.responses);
        let first = self.children.len();
        for (call, prompt) in calls.iter().zip(&prompts) {
            g.tick(15, 60);
            let nick = NICKNAMES[g.count(0, NICKNAMES.len() - 1)];
            let child = Rollout::new(g, Some((&self.root.thread, nick)), &self.instructions);
            let rest = format!(
                r#","prompt":"{prompt}","model":"gpt-5.5-codex","reasoning_effort":"medium","agents_states":{{"{}":"pending_init"}}"#,
                child.thread
            );
            self.root
                .collab_item(g, call, "spawn_agent", &[(&child.thread, nick)], &rest);
            g.tick(5, 20);
            let output = format!(
                r#"{{\"agent_id\":\"{}\",\"nickname\":\"{nick}\"}}"#,
                child.thread
            );
            self.root.call_output(g, call, &output);
            self.children.push(child);
        }
        // Each child's first turn starts as soon as it is spawned.
        let root_turn = self.root.turn.clone();
        for (k, prompt) in (first..self.children.len()).zip(&prompts) {
            g.tick(1, 10);
            self.children[k].start_turn(g, Some(&root_turn), prompt);
        }
        g.tick(1, 4);
        self.root.token_count(g, usage);
        let spawned: Vec<usize> = (first..self.children.len()).collect();
        let listing: Vec<String> = spawned
            .iter()
            .map(|&k| {
                let c = &self.children[k];
                format!("- {}: {}", c.thread, c.nickname.unwrap_or_default())
            })
            .collect();
        g.tick(5, 20);
        let state = format!(
            r#"{{"full":false,"state":{{"environments":{{"subagents":"{}"}}}}}}"#,
            listing.join("\\n")
        );
        self.root.record(g, "world_state", &state);
        let turns: Vec<(usize, String)> = spawned.iter().copied().zip(prompts).collect();
        self.run_and_wait(g, &turns);
        // Follow-ups: `send_input` to some of the children, then another wait.
        for _ in 0..2 {
            let asked: Vec<usize> = spawned.iter().copied().filter(|_| g.chance(30)).collect();
            if asked.is_empty() {
                break;
            }
            g.tick(300, 4_000);
            let mut turns = Vec::new();
            let mut sends = Vec::new();
            for &k in &asked {
                let message = g.text(40, 300);
                let args = format!(
                    r#"{{\"target\":\"{}\",\"message\":\"{}\"}}"#,
                    self.children[k].thread,
                    message.replace('\\', "\\\\")
                );
                g.tick(1, 4);
                let call = self.root.collab_call(g, "send_input", &args);
                sends.push((k, call, message));
            }
            g.tick(1, 4);
            let usage = self.root.sample(g, &mut self.responses);
            for (k, call, message) in sends {
                g.tick(3, 15);
                let (thread, nick, last) = {
                    let c = &self.children[k];
                    (
                        c.thread.clone(),
                        c.nickname.unwrap_or_default(),
                        c.last_message.clone(),
                    )
                };
                let rest = format!(
                    r#","prompt":"{message}","agents_states":{{"{thread}":{{"completed":"{last}"}}}}"#
                );
                self.root
                    .collab_item(g, &call, "send_input", &[(&thread, nick)], &rest);
                // The child's next turn starts once the input is delivered.
                g.tick(1, 10);
                let submission = {
                    let child = &mut self.children[k];
                    child.start_turn(g, Some(&self.root.turn.clone()), &message);
                    child.turn.clone()
                };
                g.tick(1, 6);
                let output = format!(r#"{{\"submission_id\":\"{submission}\"}}"#);
                self.root.call_output(g, &call, &output);
                turns.push((k, message));
            }
            g.tick(1, 3);
            self.root.token_count(g, usage);
            self.run_and_wait(g, &turns);
        }
    }

    /// `wait_agent` on the children of `turns` (started already), their turns run side
    /// by side, the wait's result and a notification per child.
    fn run_and_wait(&mut self, g: &mut Gen, turns: &[(usize, String)]) {
        let targets: Vec<String> = turns
            .iter()
            .map(|(k, _)| format!(r#"\"{}\""#, self.children[*k].thread))
            .collect();
        g.tick(200, 3_000);
        let args = format!(
            r#"{{\"targets\":[{}],\"timeout_ms\":120000}}"#,
            targets.join(",")
        );
        let call = self.root.collab_call(g, "wait_agent", &args);
        g.tick(1, 5);
        let usage = self.root.sample(g, &mut self.responses);
        // Each child's turn as a list of model calls, run round robin.
        let mut remaining: Vec<(usize, usize)> =
            turns.iter().map(|(k, _)| (*k, g.count(1, 4))).collect();
        while remaining.iter().any(|(_, n)| *n > 0) {
            for (k, n) in &mut remaining {
                if *n == 0 {
                    continue;
                }
                *n -= 1;
                let child = &mut self.children[*k];
                child.exec(g, &mut self.responses);
                if *n == 0 {
                    child.finish_turn(g, &mut self.responses);
                }
            }
        }
        g.tick(5, 60);
        let receivers: Vec<(String, &str, String)> = turns
            .iter()
            .map(|(k, _)| {
                let c = &self.children[*k];
                (
                    c.thread.clone(),
                    c.nickname.unwrap_or_default(),
                    c.last_message.clone(),
                )
            })
            .collect();
        let states: Vec<String> = receivers
            .iter()
            .map(|(t, _, m)| format!(r#""{t}":{{"completed":"{m}"}}"#))
            .collect();
        let pairs: Vec<(&str, &str)> = receivers.iter().map(|(t, n, _)| (t.as_str(), *n)).collect();
        let rest = format!(r#","agents_states":{{{}}}"#, states.join(","));
        self.root.collab_item(g, &call, "wait", &pairs, &rest);
        g.tick(2, 10);
        let status: Vec<String> = receivers
            .iter()
            .map(|(t, _, m)| {
                format!(
                    r#"\"{t}\":{{\"completed\":\"{}\"}}"#,
                    m.replace('\\', "\\\\")
                )
            })
            .collect();
        let output = format!(
            r#"{{\"status\":{{{}}},\"timed_out\":false}}"#,
            status.join(",")
        );
        self.root.call_output(g, &call, &output);
        g.tick(1, 3);
        self.root.token_count(g, usage);
        for (thread, _, message) in &receivers {
            g.tick(1, 5);
            let id = g.uuid7();
            let ct = Rollout::create_time(g);
            let item = format!(
                r#"{{"type":"message","id":"msg_{id}","role":"user","content":[{{"type":"input_text","text":"<subagent_notification>\n{{\"agent_path\":\"{thread}\",\"status\":{{\"completed\":\"{}\"}}}}\n</subagent_notification>"}}]"#,
                message.replace('\\', "\\\\")
            );
            let passthrough = format!(
                r#","create_time":{ct},"content_item_kinds":["multi_agent.subagent_notification"],"content_item_metadata":[{{"provenance":{{"type":"tool","namespace":"multi_agent_v1"}}}}]"#
            );
            self.root.response_item(g, &item, &passthrough, "");
        }
    }
}
