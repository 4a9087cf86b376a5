//! The ACP corpus (`traces/acp/`): every validation scenario of the Subagent Sessions RFD
//! that is visible on the wire (`scenarios/`), and one passing and one failing trace per
//! conformance rule (`rules/<rule-id>.{pass,fail}.jsonl`).
//!
//! Each trace states in its header what the RFD demands of it, written from the RFD:
//! `"expect":{"findings":["12:cancel-not-granted"],"connection":…,"sessions":{"A":{…}}}`
//! and `"expectAt":{"<line>":{"sessions":…}}`. `findings` must match exactly (as a
//! multiset of `line:rule`); session fields are compared with the view's JSON. The
//! checker (transcripts off) and the replay (transcripts on) must agree on findings.
//! insta keeps `check --format json` of every trace, and `replay --format json` of every
//! scenario, for review.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use lineage_core::finding::Code;
use lineage_core::render;
use lineage_core::render::CheckedFile;

/// The engine driven over a whole `acp` text: replayed (transcripts on, optionally cut
/// after a line) or checked.
mod replay {
    use lineage_core::replay::{self, Options, Replay};

    pub fn replay(text: &str, until_line: Option<usize>) -> Replay {
        let options = Options {
            format: None,
            until_line,
            spec: None,
        };
        replay::replay(text, &options).unwrap()
    }

    pub fn check(text: &str) -> Replay {
        replay::check(text, None).unwrap()
    }

    /// Checked against `spec` whatever the header says.
    pub fn check_under(text: &str, spec: &str) -> Replay {
        let options = Options {
            spec: Some(spec.parse().unwrap()),
            ..Options::default()
        };
        replay::check_with(text, &options).unwrap()
    }

    /// Replayed under `spec` whatever the header says.
    pub fn replay_under(text: &str, spec: &str) -> Replay {
        let options = Options {
            spec: Some(spec.parse().unwrap()),
            ..Options::default()
        };
        replay::replay(text, &options).unwrap()
    }
}
use lineage_core::trace::Format;
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("acp")
}

fn files(sub: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join(sub))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    files.sort();
    files
}

fn relative(path: &Path) -> String {
    path.strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or(path)
        .display()
        .to_string()
}

fn header(text: &str) -> Value {
    text.lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null)
}

fn sorted_findings(findings: &[lineage_core::replay::Finding]) -> Vec<String> {
    let mut got: Vec<(usize, &str)> = findings.iter().map(|f| (f.line, f.rule.as_str())).collect();
    got.sort_unstable();
    got.into_iter().map(|(l, r)| format!("{l}:{r}")).collect()
}

/// Compares the view's session fields (and `connection`) with the expectation.
fn compare_view(view: &Value, expect: &Value, when: &str, failures: &mut Vec<String>) {
    if let Some(want) = expect.get("connection")
        && &view["connection"] != want
    {
        failures.push(format!(
            "{when}: connection: expected {want}, got {}",
            view["connection"]
        ));
    }
    let Some(sessions) = expect.get("sessions").and_then(Value::as_object) else {
        return;
    };
    for (id, fields) in sessions {
        let got = view["sessions"]
            .as_array()
            .and_then(|all| all.iter().find(|s| s["id"] == id.as_str()));
        let Some(got) = got else {
            failures.push(format!("{when}: session {id} is not in the view"));
            continue;
        };
        for (field, want) in fields.as_object().into_iter().flatten() {
            if &got[field] != want {
                failures.push(format!(
                    "{when}: session {id}.{field}: expected {want}, got {}",
                    got[field]
                ));
            }
        }
    }
}

/// The expected findings of an expectation object, sorted by line then rule.
fn wanted(expect: &Value) -> Vec<String> {
    let mut want: Vec<String> = expect["findings"]
        .as_array()
        .expect("every corpus trace states its expected findings")
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    want.sort_by_key(|s| {
        let (l, r) = s.split_once(':').unwrap_or(("0", s));
        (l.parse::<usize>().unwrap_or(0), r.to_owned())
    });
    want
}

/// `"expectUnder":{"<revision>":{"findings":[…],"sessions":…}}`: what the trace gives
/// when checked against another revision than its header's `"spec"` (`--spec`).
fn check_other_revisions(text: &str, header: &Value, failures: &mut Vec<String>) {
    for (spec, expect) in header["expectUnder"].as_object().into_iter().flatten() {
        let got = sorted_findings(&replay::check_under(text, spec).findings);
        let want = wanted(expect);
        if got != want {
            failures.push(format!(
                "--spec {spec}: findings: expected {want:?}, got {got:?}"
            ));
        }
        compare_view(
            &render::json(&replay::replay_under(text, spec)),
            expect,
            &format!("--spec {spec}, at the end"),
            failures,
        );
    }
}

/// Checks one trace against its header; returns the unmet expectations.
fn check_trace(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let header = header(&text);
    let mut failures = Vec::new();
    let replayed = replay::replay(&text, None);
    let checked = replay::check(&text);
    let want_sorted = wanted(&header["expect"]);
    let got = sorted_findings(&checked.findings);
    if got != want_sorted {
        failures.push(format!("findings: expected {want_sorted:?}, got {got:?}"));
    }
    if sorted_findings(&replayed.findings) != got {
        failures.push("the replay (transcripts on) and the checker disagree on findings".into());
    }
    compare_view(
        &render::json(&replayed),
        &header["expect"],
        "at the end",
        &mut failures,
    );
    check_other_revisions(&text, &header, &mut failures);
    for (line, expect) in header["expectAt"].as_object().into_iter().flatten() {
        let n: usize = line.parse().unwrap();
        let at = replay::replay(&text, Some(n));
        compare_view(
            &render::json(&at),
            expect,
            &format!("after line {n}"),
            &mut failures,
        );
    }
    failures
}

fn check_json(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let checked = replay::check(&text);
    let rel = relative(path);
    let file = CheckedFile {
        path: &rel,
        format: Some(Format::Acp),
        findings: &checked.findings,
        error: None,
        revision: None,
    };
    lineage_core::render::check_json_string(&[file], true)
}

fn assert_meets_expectations(path: &Path) {
    let failures = check_trace(path);
    assert!(
        failures.is_empty(),
        "{} does not meet the expectations in its header:\n  {}",
        relative(path),
        failures.join("\n  ")
    );
}

/// A rule's two traces: expectations met, the failing one reports the rule, the passing
/// one is clean (exit 0), and both `check --format json` snapshots.
fn rule(id: &str) {
    let rule: Code = id.parse().unwrap();
    for kind in ["pass", "fail"] {
        let path = corpus_dir()
            .join("rules")
            .join(format!("{id}.{kind}.jsonl"));
        assert!(path.is_file(), "missing {}", relative(&path));
        assert_meets_expectations(&path);
        let findings = replay::check(&std::fs::read_to_string(&path).unwrap()).findings;
        if kind == "fail" {
            assert!(
                findings.iter().any(|f| f.rule == rule.as_str()),
                "{id}.fail.jsonl must report {id}"
            );
        } else {
            assert!(
                findings.is_empty(),
                "{id}.pass.jsonl must be clean: {findings:?}"
            );
        }
        insta::assert_snapshot!(format!("rule-{id}.{kind}"), check_json(&path));
    }
}

fn scenario(file: &str) {
    let path = corpus_dir().join("scenarios").join(file);
    assert_meets_expectations(&path);
    let name = file.trim_end_matches(".jsonl");
    insta::assert_snapshot!(format!("scenario-{name}.check"), check_json(&path));
    let text = std::fs::read_to_string(&path).unwrap();
    insta::assert_snapshot!(
        format!("scenario-{name}.replay"),
        render::json_string(&replay::replay(&text, None), true)
    );
}

macro_rules! rules {
    ($($test:ident => $id:literal,)*) => {
        $(#[test] fn $test() { rule($id); })*

        #[test]
        fn every_rule_id_has_a_named_test() {
            let named = [$($id),*];
            for r in Code::ALL.iter().filter(|r| r.is_acp_rule()) {
                assert!(named.contains(&r.as_str()), "rule {} has no test in traces/tests/acp.rs", r.as_str());
            }
            for path in files("rules") {
                let file = path.file_name().unwrap().to_str().unwrap();
                let id = file.split('.').next().unwrap();
                assert!(named.contains(&id), "{file} names no rule");
            }
        }
    };
}

rules! {
    v1_subagent_updates_need_the_client_capability => "subagents-not-negotiated",
    child_traffic_waits_for_the_announcement => "traffic-before-announce",
    a_child_never_changes_parent => "reparent",
    a_session_is_never_its_own_child => "self-association",
    associations_never_form_a_cycle => "association-cycle",
    child_ids_are_never_reused_for_new_sessions => "session-id-reused",
    session_messages_need_a_message_id => "message-id-missing",
    chunks_carry_exactly_one_content_block => "chunk-content-invalid",
    subagent_fields_have_their_json_types => "field-invalid",
    sender_and_recipient_differ => "message-participants-same",
    messages_live_in_a_participant_transcript => "message-outer-mismatch",
    known_participants_never_change => "message-participant-changed",
    message_ids_are_unique_across_message_kinds => "message-id-conflict",
    delayed_state_copies_are_stale => "stale-mirror",
    v2_child_states_are_mirrored_on_the_parent => "state-not-mirrored",
    dependent_traffic_never_shares_a_batch => "batch-dependency",
    replay_never_reissues_answered_requests => "request-reissued",
    children_respect_client_capabilities => "child-capability-bypass",
    cancelled_children_confirm_idle_or_unknown => "cancel-not-confirmed",
    earlier_draft_shapes_are_flagged => "legacy-draft-shape",
    unknown_states_are_preserved_and_noted => "unknown-state",
    children_are_not_listed => "child-listed",
    clients_never_mutate_children => "child-mutation",
    child_cancel_needs_a_current_grant => "cancel-not-granted",
    cancelled_work_permissions_are_answered_cancelled => "permission-not-cancelled",
    cancelled_work_permissions_are_answered => "permission-left-pending",
    cancelled_work_elicitations_are_answered_cancel => "elicitation-not-cancelled",
    one_response_per_request => "duplicate-response",
    responses_answer_pending_requests => "unknown-response",
    child_requests_are_answered => "child-request-unanswered",
    malformed_records_are_findings_and_checking_goes_on => "malformed-record",
    v1_child_work_is_preceded_by_running => "work-without-running",
    tool_calls_are_updated_on_their_own_session => "tool-call-foreign",
    pending_updates_precede_the_cancel_confirmation => "update-after-cancel-confirmed",
    the_error_stop_reason_is_a_later_revision => "later-revision-stop-reason",
    later_revision_fields_are_noted => "later-revision-field",
    final_chunks_carry_only_content => "chunk-participants",
    there_is_no_agent_side_capability => "agent-subagent-capability",
    clients_cancel_only_sessions_they_know => "cancel-unknown-session",
    every_message_is_json_rpc_2 => "jsonrpc-version-missing",
}

macro_rules! scenarios {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() { scenario($file); })*

        #[test]
        fn every_scenario_trace_has_a_named_test() {
            let named = [$($file),*];
            for path in files("scenarios") {
                let file = path.file_name().unwrap().to_str().unwrap();
                assert!(named.contains(&file), "{file} has no named test in traces/tests/acp.rs");
            }
        }
    };
}

scenarios! {
    same_child_reused_for_two_assignments => "01-reused-child-two-assignments.jsonl",
    v2_mirrored_state_converges_without_double_counting => "02-v2-mirrored-state-converges.jsonl",
    child_messages_parent_and_sibling_without_changing_the_tree => "03-child-messages-parent-and-sibling.jsonl",
    incoming_view_is_reported_never_invented => "04-incoming-view-not-invented.jsonl",
    streaming_chunks_snapshot_and_late_participants => "05-streaming-chunks-snapshot-late-metadata.jsonl",
    child_events_continue_after_the_parent_prompt_response => "06-child-events-after-parent-prompt-response.jsonl",
    permission_before_spawn_metadata_announces_truthfully => "07-permission-before-spawn-metadata.jsonl",
    guessed_parentage_is_flagged => "08-guessed-parent-rejected.jsonl",
    cancel_child_then_ancestor_with_pending_interactions => "09-cancel-child-then-ancestor.jsonl",
    replay_with_complete_partial_and_unavailable_child_history => "10-replay-complete-partial-unavailable-history.jsonl",
    live_request_during_replay => "11-live-request-during-replay.jsonl",
    resume_without_history_enables_controls_after_success => "12-resume-without-history.jsonl",
    failed_resume_invalidates_the_attempt => "13-failed-resume-invalidates-attempt.jsonl",
    lost_child_feed_reports_unknown => "14-lost-child-feed-reports-unknown.jsonl",
    inclusive_parent_cost_is_never_summed => "15-inclusive-parent-cost.jsonl",
    connection_loss_invents_no_outcome => "16-connection-loss-no-invented-outcome.jsonl",
    child_title_is_separate_from_the_parent_label => "17-child-title-separate-from-parent-label.jsonl",
    capabilities_are_replaced_whole => "18-capabilities-replaced-whole.jsonl",
}

/// A trace of `revisions/` (what a later revision of the RFD changes, checked against
/// the revision its header's `"spec"` names and, through `expectUnder`, against the
/// others) or of `view/` (the Client view's corrections): its expectations, and
/// insta snapshots of `check --format json` and `replay --format json`.
fn corpus_trace(dir: &str, file: &str) {
    let path = corpus_dir().join(dir).join(file);
    assert_meets_expectations(&path);
    let name = file.trim_end_matches(".jsonl");
    insta::assert_snapshot!(format!("{dir}-{name}.check"), check_json(&path));
    let text = std::fs::read_to_string(&path).unwrap();
    insta::assert_snapshot!(
        format!("{dir}-{name}.replay"),
        render::json_string(&replay::replay(&text, None), true)
    );
}

macro_rules! corpus {
    ($dir:literal, $every:ident: $($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() { corpus_trace($dir, $file); })*

        #[test]
        fn $every() {
            let named = [$($file),*];
            for path in files($dir) {
                let file = path.file_name().unwrap().to_str().unwrap();
                assert!(named.contains(&file), "{file} has no named test in traces/tests/acp.rs");
            }
        }
    };
}

corpus! { "revisions", every_revision_trace_has_a_named_test:
    narrowed_cascade_leaves_a_background_childs_request_open => "narrowed-cascade-ends-pending.jsonl",
    narrowed_cascade_lets_the_user_answer_continuing_work => "narrowed-cascade-answer-after-cancel.pass.jsonl",
    narrowed_cascade_cleans_up_after_a_cancelled_idle => "narrowed-cascade-cleanup.fail.jsonl",
    final_participants_are_patches => "final-participant-patch.pass.jsonl",
    final_patched_participants_are_still_checked => "final-participant-patch.fail.jsonl",
    final_session_references_name_known_sessions => "final-session-reference.pass.jsonl",
    final_session_references_follow_announcement_order => "final-session-reference.fail.jsonl",
    the_error_idle_carries_an_error_object => "error-idle-shape.fail.jsonl",
}

corpus! { "view", every_view_trace_has_a_named_test:
    ids_compare_as_json_values_and_null_id_errors_are_accepted => "json-rpc-ids.pass.jsonl",
    unmatched_ids_are_unknown_responses => "json-rpc-ids.fail.jsonl",
    mirrored_states_converge_in_the_view => "stale-mirror-view.pass.jsonl",
    a_stale_mirror_never_replaces_newer_state => "stale-mirror-view.fail.jsonl",
    each_session_keeps_its_ordinary_transcript => "transcripts.pass.jsonl",
    replayed_history_replaces_the_transcript_and_counts_no_transition => "transcripts-replayed.pass.jsonl",
    a_meta_only_bridge_does_not_negotiate_subagents => "meta-bridge.fail.jsonl",
    the_capability_beside_a_bridge_flag_negotiates => "meta-bridge.pass.jsonl",
    final_v2_meta_is_patched_by_top_level_key => "v2-meta-patch.pass.jsonl",
}

/// Every `session/update` of the corpus that the RFD considers well-formed also
/// deserializes with the official schema crate (v1, or v2 for v2 traces), so the view
/// agrees with the ecosystem on the shapes they share. Lines whose expected findings
/// say the shape itself is wrong are skipped.
#[test]
fn corpus_session_updates_deserialize_with_the_official_schema() {
    use agent_client_protocol_schema as acp;
    const SHAPE_RULES: [&str; 5] = [
        "malformed-record",
        "field-invalid",
        "chunk-content-invalid",
        "message-id-missing",
        "legacy-draft-shape",
    ];
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in files("rules")
        .into_iter()
        .chain(files("scenarios"))
        .chain(files("revisions"))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let header = header(&text);
        let v2 = header["protocolVersion"] == 2;
        let bad_lines: Vec<usize> = header["expect"]["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter_map(|f| f.split_once(':'))
            .filter(|(_, rule)| SHAPE_RULES.contains(rule))
            .filter_map(|(line, _)| line.parse().ok())
            .collect();
        for (i, line) in text.lines().enumerate().skip(1) {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if bad_lines.contains(&(i + 1)) {
                continue;
            }
            let entries = match &record["message"] {
                Value::Array(a) => a.clone(),
                Value::Null => continue,
                one => vec![one.clone()],
            };
            for entry in entries.iter().filter(|e| e["method"] == "session/update") {
                let params = entry["params"].clone();
                let result = if v2 {
                    serde_json::from_value::<acp::v2::UpdateSessionNotification>(params).map(|_| ())
                } else {
                    serde_json::from_value::<acp::v1::SessionNotification>(params).map(|_| ())
                };
                checked += 1;
                if let Err(e) = result {
                    failures.push(format!("{}:{}: {e}", relative(&path), i + 1));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} updates checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Bad input is data, not a panic: every corpus line cut at many points, pushed as one
/// stream of garbage, still yields findings and a view.
#[test]
fn truncated_records_never_panic_and_are_malformed_findings() {
    for path in files("rules")
        .into_iter()
        .chain(files("scenarios"))
        .chain(files("revisions"))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut r = lineage_core::engine::Engine::new(lineage_core::engine::Options {
            format: Some(Format::Acp),
            ..Default::default()
        });
        let mut cut_lines = 0;
        for line in text.lines().skip(1) {
            for cut in (1..line.len()).step_by(13) {
                if let Some(prefix) = line.get(..cut) {
                    r.push_line(prefix).unwrap();
                    cut_lines += 1;
                }
            }
            r.push_line(line).unwrap();
        }
        let replayed = r.finish().unwrap();
        let malformed = replayed
            .findings
            .iter()
            .filter(|f| f.rule == "malformed-record")
            .count();
        assert!(
            malformed >= cut_lines,
            "{}: {malformed} < {cut_lines}",
            relative(&path)
        );
        let _ = render::json_string(&replayed, false);
    }
}
