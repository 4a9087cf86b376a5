//! Claude Code transcripts: the older layouts and bad input, on small hand-made fixtures.
//!
//! The fixtures are modelled on the records real Claude Code 2.1.328 wrote (recorded under
//! `traces/real-native/claude-code/`), cut down to the fields the reader looks at. No
//! recording of an older version exists here: the flat (2.0.28–2.1.1) and inline-sidechain
//! (≤ 2.0.27) layouts below follow the layouts as described for those versions (the same
//! record shapes, subagent records in `agent-<id>.jsonl` beside the session file, or kept
//! inside it with `isSidechain: true`), and the inline one also leaves `stop_reason` null,
//! as older transcripts often do.

use serde_json::{Value, json};

use super::super::{File, Source, read, replay};
use crate::finding::Code;
use crate::tree::{Outcome, Role, SessionKind, Snapshot};
use crate::{SessionId, TurnId};

const S: &str = "7faf2eae-8b7f-49f4-8e0e-4f99ecdc51c4";
const S2: &str = "e73b4441-7445-45ab-abfb-cb11f4f40f6f";

fn at(ms: u32) -> String {
    format!("2026-12-01T15:02:{:02}.{:03}Z", 3 + ms / 1000, ms % 1000)
}

/// A record of session `session`: `agent` makes it a sidechain (a subagent's) record.
fn rec(session: &str, agent: Option<&str>, ms: u32, kind: &str, body: Value) -> String {
    let mut r = json!({
        "type": kind, "uuid": format!("u-{ms}"), "timestamp": at(ms), "sessionId": session,
        "isSidechain": agent.is_some(), "userType": "external", "version": "2.1.328",
    });
    if let Some(agent) = agent {
        r["agentId"] = json!(agent);
    }
    if let (Some(r), Some(body)) = (r.as_object_mut(), body.as_object()) {
        r.extend(body.clone());
    }
    r.to_string()
}

fn prompt(session: &str, agent: Option<&str>, ms: u32, text: &str) -> String {
    rec(
        session,
        agent,
        ms,
        "user",
        json!({"message": {"role": "user", "content": text}}),
    )
}

fn say(session: &str, agent: Option<&str>, ms: u32, text: &str, stop: Value) -> String {
    let message = json!({"id": format!("msg_{ms}"), "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": text}], "stop_reason": stop});
    rec(session, agent, ms, "assistant", json!({"message": message}))
}

fn launch(
    session: &str,
    agent: Option<&str>,
    ms: u32,
    tool: &str,
    id: &str,
    prompt: &str,
) -> String {
    let message = json!({"id": format!("msg_{ms}"), "type": "message", "role": "assistant",
        "content": [{"type": "tool_use", "id": id, "name": tool,
            "input": {"description": "count files", "prompt": prompt, "subagent_type": "general-purpose"}}],
        "stop_reason": "tool_use"});
    rec(session, agent, ms, "assistant", json!({"message": message}))
}

fn launch_result(session: &str, ms: u32, id: &str, agent: &str) -> String {
    rec(
        session,
        None,
        ms,
        "user",
        json!({
            "message": {"role": "user", "content": [{"tool_use_id": id, "type": "tool_result",
                "content": [{"type": "text", "text": "There are three files."}]}]},
            "toolUseResult": {"status": "completed", "agentId": agent, "content": [{"type": "text", "text": "There are three files."}]},
        }),
    )
}

fn bookkeeping(session: &str, ms: u32) -> Vec<String> {
    vec![
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": at(ms), "sessionId": session, "content": "Count the files."}).to_string(),
        json!({"type": "queue-operation", "operation": "dequeue", "timestamp": at(ms + 1), "sessionId": session}).to_string(),
    ]
}

fn lines(records: &[String]) -> String {
    records.join("\n") + "\n"
}

/// A 2.1 layout session: one foreground child `toolu_1` (agent `a1`), with its meta file.
fn current_session(session: &str, child_file: bool) -> Vec<File> {
    let mut root = bookkeeping(session, 0);
    root.extend([
        prompt(session, None, 10, "Ask a subagent to count the files here."),
        launch(session, None, 100, "Agent", "toolu_1", "Count the files."),
        launch_result(session, 300, "toolu_1", "a1"),
        say(
            session,
            None,
            400,
            "The subagent counted three files.",
            json!("end_turn"),
        ),
    ]);
    let mut files = vec![File::new(format!("proj/{session}.jsonl"), lines(&root))];
    if child_file {
        let child = [
            prompt(session, Some("a1"), 120, "Count the files."),
            say(
                session,
                Some("a1"),
                200,
                "There are three files.",
                json!("end_turn"),
            ),
        ];
        files.push(File::new(
            format!("proj/{session}/subagents/agent-a1.jsonl"),
            lines(&child),
        ));
        let meta = json!({"agentType": "general-purpose", "description": "count files", "toolUseId": "toolu_1",
            "spawnDepth": 1, "requestShape": "foreground"});
        files.push(File::new(
            format!("proj/{session}/subagents/agent-a1.meta.json"),
            meta.to_string(),
        ));
    }
    files
}

fn snapshot(source: &Source, stream: usize) -> (Snapshot, Vec<Code>) {
    let replayed = replay(source, stream, super::super::Options::default()).unwrap();
    let codes = replayed.findings.iter().map(|l| l.finding.rule).collect();
    (replayed.replay.snapshot().unwrap().clone(), codes)
}

fn outcome(tree: &Snapshot, turn: &str) -> Option<Outcome> {
    tree.turn(&turn.parse::<TurnId>().unwrap())?.outcome
}

fn texts(tree: &Snapshot, session: &str, role: Role) -> Vec<String> {
    tree.session(&SessionId::from(session))
        .map(|s| {
            s.messages
                .iter()
                .filter(|m| m.role == role)
                .map(|m| m.text.to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The tree every fixture of one foreground child should give.
fn assert_one_foreground_child(tree: &Snapshot, session: &str) {
    assert_eq!(
        outcome(tree, &format!("{session}#1")),
        Some(Outcome::Completed)
    );
    assert_eq!(outcome(tree, "toolu_1#1"), Some(Outcome::Completed));
    let child = tree.session(&SessionId::from("toolu_1")).unwrap();
    assert_eq!(child.kind, SessionKind::Child);
    let relation = child.relation.as_ref().unwrap();
    assert_eq!(relation.parent_session.as_str(), session);
    assert_eq!(
        texts(tree, "toolu_1", Role::Assistant),
        ["There are three files."]
    );
}

#[test]
fn the_current_layout_with_meta_files() {
    let source = read(&current_session(S, true));
    assert_eq!(source.streams.len(), 1);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    // The session, then its subagent with its meta file.
    assert_eq!(source.streams[0].files, [0, 1, 2]);
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(codes, [Code::NativeSourceLimits]);
}

/// 2.0.28–2.1.1: `agent-<id>.jsonl` beside the session file, no meta; the `Task` launch's
/// result names the agent (`toolUseResult.agentId`).
#[test]
fn the_flat_layout_links_by_the_launch_results_agent_id() {
    let root = [
        prompt(S, None, 10, "Ask a subagent to count the files here."),
        launch(S, None, 100, "Task", "toolu_1", "Count the files."),
        launch_result(S, 300, "toolu_1", "a1"),
        say(
            S,
            None,
            400,
            "The subagent counted three files.",
            json!("end_turn"),
        ),
    ];
    // The prompt differs from the launch's: only the agent id links them.
    let child = [
        prompt(S, Some("a1"), 120, "Count the files, please."),
        say(
            S,
            Some("a1"),
            200,
            "There are three files.",
            json!("end_turn"),
        ),
    ];
    let files = [
        File::new("proj/agent-a1.jsonl", lines(&child)),
        File::new(format!("proj/{S}.jsonl"), lines(&root)),
    ];
    let source = read(&files);
    assert_eq!(source.streams.len(), 1);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    assert_eq!(source.streams[0].files, [1, 0]); // root file first
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(codes, [Code::NativeSourceLimits]);
}

/// ≤ 2.0.27: the subagent's records are inside the session file (`isSidechain: true`),
/// and `stop_reason` is null: the turn ends at the last `assistant` before the next
/// prompt (or the end of the file).
#[test]
fn inline_sidechain_records_are_the_subagents() {
    let records = [
        prompt(S, None, 10, "Ask a subagent to count the files here."),
        launch(S, None, 100, "Task", "toolu_1", "Count the files."),
        prompt(S, Some("a1"), 120, "Count the files."),
        say(S, Some("a1"), 200, "There are three files.", Value::Null),
        launch_result(S, 300, "toolu_1", "a1"),
        say(
            S,
            None,
            400,
            "The subagent counted three files.",
            Value::Null,
        ),
        prompt(S, None, 1000, "Thanks. And directories?"),
        say(S, None, 1100, "None.", Value::Null),
    ];
    let source = read(&[File::new(format!("proj/{S}.jsonl"), lines(&records))]);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(outcome(&tree, &format!("{S}#2")), Some(Outcome::Completed));
    // The subagent's prompt is its input, not a root prompt.
    assert_eq!(texts(&tree, "toolu_1", Role::User), ["Count the files."]);
    assert_eq!(texts(&tree, S, Role::User).len(), 2);
    assert_eq!(codes, [Code::NativeSourceLimits]);
}

/// Without an agent id in the result, a subagent file is linked to the launch whose
/// prompt is its first message.
#[test]
fn a_subagent_without_meta_or_result_links_by_its_prompt() {
    let root = [
        prompt(S, None, 10, "Ask a subagent to count the files here."),
        launch(S, None, 100, "Task", "toolu_1", "Count the files."),
    ];
    let child = [prompt(S, Some("a1"), 120, "Count the files.")];
    let files = [
        File::new(format!("proj/{S}.jsonl"), lines(&root)),
        File::new("proj/agent-a1.jsonl", lines(&child)),
    ];
    let source = read(&files);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    let (tree, _) = snapshot(&source, 0);
    assert_eq!(texts(&tree, "toolu_1", Role::User), ["Count the files."]);
}

#[test]
fn a_missing_subagent_file_is_reported_at_its_launch_and_the_child_still_exists() {
    let source = read(&current_session(S, false));
    let (tree, codes) = snapshot(&source, 0);
    assert_eq!(outcome(&tree, "toolu_1#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&tree, &format!("{S}#1")), Some(Outcome::Completed));
    assert!(texts(&tree, "toolu_1", Role::Assistant).is_empty());
    assert_eq!(
        codes,
        [Code::NativeSourceLimits, Code::NativeSubagentMissing]
    );
    let missing = source.streams[0]
        .findings
        .iter()
        .find(|l| l.finding.rule == Code::NativeSubagentMissing)
        .unwrap();
    assert_eq!((missing.file, missing.finding.line), (0, 4)); // the launch's line
    assert!(
        missing.finding.message.contains("`a1`"),
        "{}",
        missing.finding.message
    );
}

#[test]
fn a_truncated_last_line_is_a_malformed_record_there_and_the_rest_is_read() {
    let mut files = current_session(S, true);
    let cut = prompt(S, None, 2000, "And the directories?");
    let cut = cut.get(..cut.len() / 2).unwrap();
    files[0].text.push_str(cut);
    let source = read(&files);
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(codes, [Code::NativeSourceLimits, Code::MalformedRecord]);
    let bad = source.streams[0]
        .findings
        .iter()
        .find(|l| l.finding.rule == Code::MalformedRecord)
        .unwrap();
    assert_eq!((bad.file, bad.finding.line), (0, 7));
}

/// Kinds that carry no tree fact are skipped silently; unknown kinds are counted once
/// per file, at the first.
#[test]
fn unknown_record_kinds_are_counted_once_per_file() {
    let mut files = current_session(S, true);
    let extra = [
        json!({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}}).to_string(),
        json!({"type": "ai-title", "sessionId": S, "aiTitle": "Counting"}).to_string(),
        json!({"type": "galaxy-state", "sessionId": S, "timestamp": at(500)}).to_string(),
        json!({"type": "galaxy-state", "sessionId": S, "timestamp": at(501)}).to_string(),
        json!({"type": "nebula", "sessionId": S}).to_string(),
    ];
    files[0].text.push_str(&lines(&extra));
    let source = read(&files);
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(codes, [Code::NativeSourceLimits, Code::NativeRecordSkipped]);
    let note = source.streams[0]
        .findings
        .iter()
        .find(|l| l.finding.rule == Code::NativeRecordSkipped)
        .unwrap();
    assert_eq!(note.finding.line, 9);
    assert!(
        note.finding
            .message
            .contains("`galaxy-state` (2), `nebula` (1)"),
        "{}",
        note.finding.message
    );
}

/// A whole project folder: one tree per session file, each subagent in its own session's
/// tree; a subagent whose session file is absent, an unrelated file and the CLI's
/// compaction file are not attached.
#[test]
fn a_project_folder_of_two_sessions_gives_two_trees() {
    let mut files = current_session(S, true);
    files.extend(current_session(S2, true));
    let orphan = [prompt("gone", Some("a9"), 120, "Count the files.")];
    files.push(File::new(
        "proj/gone/subagents/agent-a9.jsonl",
        lines(&orphan),
    ));
    files.push(File::new("proj/notes.txt", "remember the milk\n"));
    let compact = [prompt(
        S,
        Some("acompact-1"),
        150,
        "Summarize the conversation.",
    )];
    files.push(File::new(
        format!("proj/{S}/subagents/agent-acompact-1.jsonl"),
        lines(&compact),
    ));
    let source = read(&files);
    assert_eq!(source.streams.len(), 2);
    assert_eq!(source.streams[0].root, S);
    assert_eq!(source.streams[1].root, S2);
    assert_eq!(source.streams[1].files, [3, 4, 5]);
    for (k, session) in [S, S2].into_iter().enumerate() {
        let (tree, codes) = snapshot(&source, k);
        assert_one_foreground_child(&tree, session);
        assert_eq!(tree.sessions().count(), 2);
        assert_eq!(codes, [Code::NativeSourceLimits]);
    }
    let codes: Vec<(usize, Code)> = source
        .findings
        .iter()
        .map(|l| (l.file, l.finding.rule))
        .collect();
    assert_eq!(
        codes,
        [
            (7, Code::NativeFileUnrelated),
            (6, Code::NativeParentMissing)
        ]
    );
}

/// A background child that completes (its notification both queued and in a user
/// record), then a second turn with a foreground child that the user interrupts.
fn background_then_interrupt() -> Vec<File> {
    let mut root = background_turn();
    root.extend(interrupted_turn());
    let child = [
        prompt(S, Some("a1"), 120, "Count the files."),
        say(
            S,
            Some("a1"),
            800,
            "There are three files.",
            json!("end_turn"),
        ),
    ];
    let child3 = [
        prompt(S, Some("a3"), 2120, "Count the directories."),
        prompt(S, Some("a3"), 2990, "[Request interrupted by user]"),
    ];
    let meta = |id: &str, shape: &str| json!({"toolUseId": id, "requestShape": shape}).to_string();
    let sub = |name: &str| format!("p/{S}/subagents/{name}");
    vec![
        File::new(format!("p/{S}.jsonl"), lines(&root)),
        File::new(sub("agent-a1.jsonl"), lines(&child)),
        File::new(sub("agent-a1.meta.json"), meta("toolu_1", "background")),
        File::new(sub("agent-a3.jsonl"), lines(&child3)),
        File::new(sub("agent-a3.meta.json"), meta("toolu_3", "foreground")),
    ]
}

/// The root's first turn: a background launch, its completion notified.
fn background_turn() -> Vec<String> {
    let notification = "<task-notification>\n<task-id>a1</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<status>completed</status>\n<summary>Agent \"count files\" finished</summary>\n</task-notification>";
    let queued = json!({"type": "queue-operation", "operation": "enqueue", "timestamp": at(900),
        "sessionId": S, "content": notification});
    let launched = json!({
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result", "content": "Async agent launched successfully."}]},
        "toolUseResult": {"isAsync": true, "status": "async_launched", "agentId": "a1"},
    });
    let delivered = json!({"message": {"role": "user", "content": notification},
        "origin": {"kind": "task-notification"}});
    vec![
        prompt(S, None, 10, "Count the files in the background."),
        launch(S, None, 100, "Agent", "toolu_1", "Count the files."),
        rec(S, None, 110, "user", launched),
        say(S, None, 200, "Started.", json!("end_turn")),
        queued.to_string(),
        rec(S, None, 910, "user", delivered),
        say(S, None, 950, "The subagent reports.", json!("end_turn")),
    ]
}

/// The root's second turn: a foreground launch the user interrupts.
fn interrupted_turn() -> Vec<String> {
    let rejected = json!({
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_3", "type": "tool_result", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected."}]},
        "toolUseResult": "User rejected tool use",
    });
    vec![
        prompt(S, None, 2000, "Now the directories, with another subagent."),
        launch(S, None, 2100, "Agent", "toolu_3", "Count the directories."),
        rec(S, None, 3000, "user", rejected),
        prompt(S, None, 3010, "[Request interrupted by user for tool use]"),
    ]
}

/// What the transcript says becomes the stream-json messages of the same facts: one
/// notification (the queued one; its user record is the same), one interrupt.
#[test]
fn notifications_and_interrupts_become_task_and_control_messages() {
    let files = background_then_interrupt();
    let source = read(&files);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    let kinds: Vec<String> = source.streams[0]
        .records
        .iter()
        .map(|(_, r)| {
            let m = &r.message;
            let sub = m.get("subtype").and_then(Value::as_str).unwrap_or_default();
            format!(
                "{} {} {sub}",
                r.from,
                m["type"].as_str().unwrap_or_default()
            )
        })
        .collect();
    // One notification (the queued one; its user record is the same), one interrupt.
    assert_eq!(
        kinds
            .iter()
            .filter(|k| k.ends_with("task_notification"))
            .count(),
        1
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|k| *k == "host control_request ")
            .count(),
        1
    );
    let (tree, codes) = snapshot(&source, 0);
    assert_eq!(outcome(&tree, &format!("{S}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&tree, "toolu_1#1"), Some(Outcome::Completed));
    assert_eq!(outcome(&tree, &format!("{S}#2")), Some(Outcome::Canceled));
    assert_eq!(outcome(&tree, "toolu_3#1"), Some(Outcome::Canceled));
    // The stopped subagent's own marker is fallout, not input.
    assert_eq!(
        texts(&tree, "toolu_3", Role::User),
        ["Count the directories."]
    );
    assert_eq!(codes, [Code::NativeSourceLimits]);
}

/// The oldest inline layout names no agent id at all: each sidechain's records follow
/// one another by `parentUuid`, and the chain links to the launch whose prompt it starts
/// with (two subagents, launched in one message, interleaved in the file).
#[test]
fn inline_sidechains_without_agent_ids_follow_their_parent_uuid_chains() {
    let chained = |r: String, uuid: &str, parent: Option<&str>| {
        let mut v: Value = serde_json::from_str(&r).unwrap();
        v.as_object_mut().unwrap().remove("agentId");
        v["uuid"] = json!(uuid);
        v["parentUuid"] = json!(parent);
        v.to_string()
    };
    let two = json!({"id": "msg_100", "type": "message", "role": "assistant", "stop_reason": null,
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Task", "input": {"description": "files", "prompt": "Count the files."}},
            {"type": "tool_use", "id": "toolu_2", "name": "Task", "input": {"description": "dirs", "prompt": "Count the directories."}}]});
    let result = |ms: u32, id: &str, text: &str| {
        rec(
            S,
            None,
            ms,
            "user",
            json!({
                "message": {"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": [{"type": "text", "text": text}]}]},
                "toolUseResult": {"content": [{"type": "text", "text": text}], "totalDurationMs": 90},
            }),
        )
    };
    let records = [
        prompt(S, None, 10, "Count files and directories, in parallel."),
        rec(S, None, 100, "assistant", json!({"message": two})),
        chained(prompt(S, Some("x"), 110, "Count the files."), "f1", None),
        chained(
            prompt(S, Some("x"), 111, "Count the directories."),
            "d1",
            None,
        ),
        // A bookkeeping record in a sidechain is still a link of its chain (the reader
        // skips such kinds unread only outside sidechains).
        chained(
            rec(
                S,
                Some("x"),
                150,
                "progress",
                json!({"data": {"type": "hook"}}),
            ),
            "d1p",
            Some("d1"),
        ),
        chained(
            say(S, Some("x"), 200, "No directories.", Value::Null),
            "d2",
            Some("d1p"),
        ),
        chained(
            say(S, Some("x"), 210, "There are three files.", Value::Null),
            "f2",
            Some("f1"),
        ),
        result(300, "toolu_1", "There are three files."),
        result(310, "toolu_2", "No directories."),
        say(S, None, 400, "Three files, no directories.", Value::Null),
    ];
    let source = read(&[File::new(format!("proj/{S}.jsonl"), lines(&records))]);
    assert!(source.findings.is_empty(), "{:?}", source.findings);
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(outcome(&tree, "toolu_2#1"), Some(Outcome::Completed));
    assert_eq!(
        texts(&tree, "toolu_2", Role::Assistant),
        ["No directories."]
    );
    assert_eq!(
        texts(&tree, "toolu_2", Role::User),
        ["Count the directories."]
    );
    assert_eq!(codes, [Code::NativeSourceLimits]);
}

/// A subagent file no launch names is reported and left out; the CLI's own "Warmup"
/// agent runs (which no tool use launched) are left out without a finding.
#[test]
fn an_unlinked_subagent_is_reported_and_a_warmup_run_is_not() {
    let mut files = current_session(S, true);
    let stray = [prompt(S, Some("a7"), 150, "Something nobody asked for.")];
    let warmup = [
        prompt(S, Some("a8"), 5, "Warmup"),
        say(S, Some("a8"), 6, "Ready.", json!("end_turn")),
    ];
    files.push(File::new("proj/agent-a7.jsonl", lines(&stray)));
    files.push(File::new("proj/agent-a8.jsonl", lines(&warmup)));
    let source = read(&files);
    let unlinked: Vec<(usize, Code)> = source
        .findings
        .iter()
        .map(|l| (l.file, l.finding.rule))
        .collect();
    assert_eq!(unlinked, [(3, Code::NativeParentMissing)]);
    assert_eq!(source.streams[0].files, [0, 1, 2]); // the files the tree was read from
    let (tree, _) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(tree.sessions().count(), 2);
}

/// A prompt starts a model turn: a turn with no end before it is over. A command the CLI
/// ran itself (no model output) completed; a turn cut short (a tool use and no result, the
/// CLI killed) failed.
#[test]
fn a_prompt_ends_a_turn_that_shows_no_end() {
    let records = [
        prompt(
            S,
            None,
            10,
            "<command-name>/model</command-name>\n<command-args></command-args>",
        ),
        prompt(
            S,
            None,
            11,
            "<local-command-stdout>Kept model Opus</local-command-stdout>",
        ),
        prompt(S, None, 100, "Count the files."),
        launch(S, None, 200, "Bash", "toolu_9", "ls"),
        prompt(S, None, 5000, "Are you there?"),
        say(S, None, 5100, "Yes.", json!("end_turn")),
    ];
    let source = read(&[File::new(format!("proj/{S}.jsonl"), lines(&records))]);
    let (tree, codes) = snapshot(&source, 0);
    assert_eq!(outcome(&tree, &format!("{S}#1")), Some(Outcome::Completed));
    assert_eq!(outcome(&tree, &format!("{S}#2")), Some(Outcome::Failed));
    assert_eq!(outcome(&tree, &format!("{S}#3")), Some(Outcome::Completed));
    assert_eq!(codes, [Code::NativeSourceLimits]);
}

/// A bookkeeping line is read from its head alone, yet it still holds its place: the
/// root's `system/init` is at the file's first line with its time, and a line that is
/// no object is reported even when it names a bookkeeping kind.
#[test]
fn a_bookkeeping_first_line_still_starts_the_root_and_an_array_is_still_malformed() {
    let mut files = current_session(S, true);
    let first = json!({"type": "file-history-snapshot", "timestamp": "2026-12-01T15:02:02.500Z",
        "sessionId": S, "snapshot": {"trackedFileBackups": {}}});
    files[0].text = format!(
        "{first}\n[\"progress\", \"{S}\", null, null, null]\n{}",
        files[0].text
    );
    let source = read(&files);
    let (tree, codes) = snapshot(&source, 0);
    assert_one_foreground_child(&tree, S);
    assert_eq!(codes, [Code::NativeSourceLimits, Code::MalformedRecord]);
    let stream = &source.streams[0];
    let (place, init) = &stream.records[0];
    assert_eq!((place.file, place.line), (0, 1));
    assert_eq!(init.message["subtype"], "init");
    let start = super::super::time::parse_timestamp(&json!("2026-12-01T15:02:02.500Z"));
    assert_eq!(init.at, start);
    let bad = stream
        .findings
        .iter()
        .find(|l| l.finding.rule == Code::MalformedRecord)
        .unwrap();
    assert_eq!((bad.file, bad.finding.line), (0, 2));
}

/// A line's head as serde_json reads it (the reading lineage's own parser replaced): the
/// head of a silent record, or `None`.
fn serde_head(line: &str) -> Option<[Option<String>; 5]> {
    let head: super::Head<'_> = serde_json::from_str(line).ok()?;
    head.is_silent().then(|| head_fields(&head))
}

fn head_fields(head: &super::Head<'_>) -> [Option<String>; 5] {
    let text = |s: &Option<std::borrow::Cow<'_, str>>| s.as_deref().map(str::to_owned);
    [
        text(&head.kind),
        text(&head.session),
        text(&head.agent),
        text(&head.timestamp),
        head.sidechain.map(|b| b.to_string()),
    ]
}

/// The head that skips a record no reading needs is read as serde_json reads it, whether
/// its `type` decides early, a member is repeated or of the wrong type, a key is escaped,
/// or an unread member holds text lineage's parser refuses (a lone surrogate escape).
#[test]
fn a_line_s_head_reads_as_serde_json_reads_it() {
    let lines = [
        r#"{"type":"summary","sessionId":"S","agentId":"a1","timestamp":"T","isSidechain":false,"x":[1,{"y":null}]}"#,
        r#"{"type":"summary","isSidechain":true}"#,
        r#"{"isSidechain":true,"type":"summary"}"#,
        r#"{"type":"user","message":{"content":"hi"}} trailing"#,
        r#"{"type":"user","message":{"content":"hi"#,
        r#"{"type":"summary","message":{"content":"hi"}} trailing"#,
        r#"{"type":"summary","x":"\ud800 lone"}"#,
        r#"{"type":"user","x":"\ud800 lone"}"#,
        r#"{"type":"summary","type":"summary"}"#,
        r#"{"type":"user","type":"summary"}"#,
        r#"{"type":"summary","sessionId":5}"#,
        r#"{"type":5}"#,
        r#"{"type":null,"sessionId":"S"}"#,
        r#"{"type":"summary","sessionId":null,"isSidechain":null}"#,
        r#"{"typ\u0065":"summ\u0061ry","sessionId":"S\n"}"#,
        r#"{"type":"attachment"}"#,
        r#"{"type":"queue-operation"}"#,
        r#"{"type":"progress","isSidechain":"yes"}"#,
        r#"{}"#,
        r#"{"type":"progress"}"#,
    ];
    for line in lines {
        let ours = super::Head::of_silent(line).map(|h| head_fields(&h));
        assert_eq!(ours, serde_head(line), "{line}");
    }
    assert!(super::Head::of_silent(lines[0]).is_some());
    assert!(
        super::Head::of_silent(lines[6]).is_some(),
        "serde_json takes it"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
    /// [`a_line_s_head_reads_as_serde_json_reads_it`] over generated lines.
    #[test]
    fn any_line_s_head_reads_as_serde_json_reads_it(line in super::super::head_lines::line()) {
        let ours = super::Head::of_silent(&line).map(|h| head_fields(&h));
        proptest::prop_assert_eq!(ours, serde_head(&line), "{}", line);
    }
}
