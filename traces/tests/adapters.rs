//! The ACP adapters' own test recordings (`traces/adapters/`, see its `SOURCE.md`):
//! claude-agent-acp's `__snapshots__/{v2,air}/` and codex-acp's
//! `src/__tests__/scenarios/data/`, copied as they are (no header). Each is told `acp`
//! from its content and read as an Agent-side source; the findings it must give are
//! listed below, each with the sentence of the Subagent Sessions RFD it enforces (the
//! same list is in `SPEC_COVERAGE.md`). Every file of the folder must be listed, and the
//! checker (transcripts off) and the replay (transcripts on) must agree.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use lineage_core::replay::{Finding, Options, check, replay};
use lineage_core::trace::Format;

/// Said once per recording: what an Agent-side source lacks (not a finding against the
/// adapter).
const LIMITS: &str = "1:native-source-limits";

/// "There is no Agent-side capability." (note: the adapter advertises
/// `sessionCapabilities.subagents` in its `initialize` result.)
const OWN_CAPABILITY: &str = "1:agent-subagent-capability";

/// Every recording and the findings it must give (`line:rule`, in line order).
const EXPECTED: &[(&str, &[&str])] = &[
    // `createElicitation` (`elicitation/create`), answered by the harness: not reported
    // unanswered.
    ("claude-agent-acp/air/ask-user-question.jsonl", &[LIMITS]),
    // A background shell task: the JetBrains `async_task_spawned`, `async_task_progress`
    // and `async_task_state_update` extension updates, no subagent session.
    ("claude-agent-acp/air/bash-background.jsonl", &[LIMITS]),
    // `compaction_update` and `compaction_summary_chunk` on the root.
    ("claude-agent-acp/air/compaction-update.jsonl", &[LIMITS]),
    // A permission request the harness answered, then `current_mode_update` and
    // `config_option_update`.
    ("claude-agent-acp/air/exit-plan-approve.jsonl", &[LIMITS]),
    // `session_info_update` carrying the goal.
    ("claude-agent-acp/air/goal.jsonl", &[LIMITS]),
    // "The child's own messages, plans, and tool calls have outer `sessionId`
    // [...]. They update the child's history, not the parent session": a tool call
    // belongs to the session that opened it. Line 6 updates `<session>`'s Bash call
    // `toolu_denied` (its `failed` result) on `11111111-2222-4333-8444-555555555555`, a
    // session that never opened it (no session the recording set up or announced); the
    // call's later updates are on `<session>` again.
    (
        "claude-agent-acp/air/permission-denied.jsonl",
        &[LIMITS, "6:tool-call-foreign"],
    ),
    // A `session/load` replay in the 2026-08-31 draft's shapes: the v1 `initialize`
    // result advertises `sessionCapabilities.subagents`; `subagent_spawned` (line 7) and
    // `subagent_state_update` `completed` (line 13) are the earlier drafts' shapes.
    (
        "claude-agent-acp/air/session-load-replay.jsonl",
        &[
            LIMITS,
            OWN_CAPABILITY,
            "7:legacy-draft-shape",
            "13:legacy-draft-shape",
        ],
    ),
    (
        "claude-agent-acp/air/session-setup.jsonl",
        &[LIMITS, OWN_CAPABILITY],
    ),
    (
        "claude-agent-acp/air/subagent-late-child-update.jsonl",
        &[LIMITS],
    ),
    (
        "claude-agent-acp/air/subagent-native-sessions.jsonl",
        &[LIMITS],
    ),
    ("claude-agent-acp/air/subagent-nested.jsonl", &[LIMITS]),
    // "The child's own messages, plans, and tool calls have outer `sessionId:
    // "sess_child_1"`. They update the child's history, not the parent session": line 22
    // updates the child `agent_1`'s Edit call (`toolu_sub_edit`) on the root's stream.
    (
        "claude-agent-acp/air/subagent-task-legacy.jsonl",
        &[LIMITS, "22:tool-call-foreign"],
    ),
    // Two prompts on one session (two `promptResponse` lines), `plan` updates between.
    ("claude-agent-acp/air/task-create-update.jsonl", &[LIMITS]),
    // The same rule as `permission-denied`: lines 6 to 8 update `<session>`'s Bash call
    // `toolu_slow` (its elapsed-time progress) on `<id-1>`, said once for the pair.
    (
        "claude-agent-acp/air/tool-progress.jsonl",
        &[LIMITS, "6:tool-call-foreign"],
    ),
    // A v2 `elicitation/create` request, answered by the harness.
    ("claude-agent-acp/v2/ask-user-question.jsonl", &[LIMITS]),
    // v2 `compaction_update` and `compaction_summary_chunk` inside a prompt turn.
    ("claude-agent-acp/v2/compaction-legacy.jsonl", &[LIMITS]),
    // A v2 permission request (its `subject` a tool call first reported by a
    // `tool_call_update`) between `requires_action` and `running`, answered by the
    // harness, then `config_option_update`.
    ("claude-agent-acp/v2/exit-plan-approve.jsonl", &[LIMITS]),
    ("claude-agent-acp/v2/read.jsonl", &[LIMITS]),
    ("claude-agent-acp/v2/session-load-replay.jsonl", &[LIMITS]),
    (
        "claude-agent-acp/v2/subagent-native-sessions.jsonl",
        &[LIMITS],
    ),
    // Two v2 prompt turns (`running` to `idle` twice), `plan_update` in the first.
    ("claude-agent-acp/v2/task-create-update.jsonl", &[LIMITS]),
    // `codexResponse` lines are the adapter's answers to the Codex app-server: skipped,
    // said once.
    (
        "codex-acp/air/command-approval.jsonl",
        &[LIMITS, OWN_CAPABILITY, "7:native-record-skipped"],
    ),
    // A `session/load` result, then the loaded history (which the RFD wants before the
    // response; not checkable without the Client's request, see SPEC_COVERAGE row 25).
    (
        "codex-acp/air/history-replay.jsonl",
        &[LIMITS, OWN_CAPABILITY],
    ),
    // An `elicitation/create` request; line 4 is a `codexResponse`, skipped.
    (
        "codex-acp/air/mcp-elicitation.jsonl",
        &[LIMITS, OWN_CAPABILITY, "4:native-record-skipped"],
    ),
    // Tool calls (failed MCP server starts) before any prompt, and no prompt response.
    (
        "codex-acp/air/mcp-startup-failure.jsonl",
        &[LIMITS, OWN_CAPABILITY],
    ),
    // The earlier drafts' `subagent_spawned` (fields `subagentSessionId`, `name`,
    // `task`) and `subagent_state_update` with state `completed`: the RFD's shapes are
    // `subagent_update` with `sessionId`, `title`, `description` and a `state` object
    // whose `state` is `running`, `requires_action`, `unknown` or `idle`.
    (
        "codex-acp/air/native-subagent-session.jsonl",
        &[
            LIMITS,
            OWN_CAPABILITY,
            "3:legacy-draft-shape",
            "10:legacy-draft-shape",
        ],
    ),
    (
        "codex-acp/air/nested-subagent-session.jsonl",
        &[
            LIMITS,
            OWN_CAPABILITY,
            "3:legacy-draft-shape",
            "4:legacy-draft-shape",
            "8:legacy-draft-shape",
            "9:legacy-draft-shape",
        ],
    ),
    // Two permission requests with no earlier `tool_call`; the two `codexResponse`
    // lines (4 and 6) are said once.
    (
        "codex-acp/air/network-and-sandbox-approval.jsonl",
        &[LIMITS, OWN_CAPABILITY, "4:native-record-skipped"],
    ),
    // A `plan_update` (markdown) and a `plan` (entries) on the root.
    (
        "codex-acp/air/plan-deltas-and-turn-plan.jsonl",
        &[LIMITS, OWN_CAPABILITY],
    ),
    (
        "codex-acp/baseline/plain/subagent-activity.jsonl",
        &[LIMITS, OWN_CAPABILITY],
    ),
    (
        "codex-acp/baseline/zed/background-terminal.jsonl",
        &[LIMITS, OWN_CAPABILITY],
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters")
}

/// Every `*.jsonl` under `traces/adapters/`, relative, sorted.
fn recordings() -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                let rel = path.strip_prefix(root()).unwrap();
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

fn located(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{}:{}", f.line, f.rule.as_str()))
        .collect()
}

#[test]
fn every_adapter_recording_gives_only_the_findings_the_rfd_justifies() {
    let listed: Vec<&str> = EXPECTED.iter().map(|(file, _)| *file).collect();
    assert_eq!(
        recordings(),
        listed,
        "every recording is listed, in name order"
    );
    let mut failures = Vec::new();
    for (file, want) in EXPECTED {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let checked = check(&text, None).unwrap_or_else(|e| panic!("{file}: {e}"));
        let replayed = replay(&text, &Options::default()).unwrap();
        assert_eq!(checked.format, Format::Acp, "{file}");
        let got = located(&checked.findings);
        if got != *want {
            failures.push(format!("{file}: expected {want:?}, got {got:?}"));
        }
        if located(&replayed.findings) != got {
            failures.push(format!("{file}: the replay and the check disagree"));
        }
        let forced = Options {
            format: Some(Format::Acp),
            ..Options::default()
        };
        if located(&replay(&text, &forced).unwrap().findings) != got {
            failures.push(format!("{file}: `--input-format acp` reads it otherwise"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
