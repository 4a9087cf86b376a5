//! The Codex app-server corpus: one trace per case of the Codex adapter issue and the
//! seed's validation list, written from the wire shapes (`reference/PROVIDERS.md`, the
//! app-server JSON Schemas). Each test names the rule; the expectations live in the trace
//! header and are checked by `lineage_traces::expect_trace`.

use lineage_traces::{expect_trace, unnamed};

macro_rules! scenario {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() {
            let json = expect_trace("codex", $file);
            insta::assert_snapshot!($file.trim_end_matches(".jsonl"), json);
        })*

        #[test]
        fn every_codex_trace_has_a_named_test() {
            let missing = unnamed("codex", &[$($file),*]);
            assert!(missing.is_empty(), "traces without a named test: {missing:?}");
        }
    };
}

scenario! {
    collab_spawn_root_terminal_first_root_waits_for_the_child => "01-collab-spawn-root-terminal-first.jsonl",
    child_terminal_before_root_terminal_settles_at_the_root_terminal => "02-child-terminal-before-root.jsonl",
    subagent_activity_spawn_reported_twice_registers_one_child => "03-subagent-activity-spawn-reported-twice.jsonl",
    early_child_events_are_held_and_join_the_initial_child_turn => "04-early-child-events-before-spawn.jsonl",
    failed_spawn_creates_no_child => "05-failed-spawn-creates-no-child.jsonl",
    spawn_on_a_child_thread_creates_a_nested_grandchild => "06-nested-grandchild.jsonl",
    concurrent_children_one_failed_child_never_fails_the_root => "07-concurrent-children-one-fails.jsonl",
    child_approvals_are_owned_by_the_child_turn => "08-child-approvals.jsonl",
    steer_and_start_while_children_run_join_the_same_root_turn => "09-guidance-while-children-run.jsonl",
    continuation_provider_turn_attaches_to_the_same_root_turn => "10-continuation-provider-turn.jsonl",
    user_cancel_fans_out_and_settles_acknowledged_children_canceled => "11-user-cancel-full-fanout.jsonl",
    cancel_settles_an_unacknowledged_child_interrupted => "12-cancel-unacknowledged-child.jsonl",
    late_events_after_cancel_resurrect_nothing => "13-late-events-after-cancel.jsonl",
    child_revealed_after_cancel_is_never_created => "14-spawn-revealed-after-cancel.jsonl",
    child_only_cancel_settles_root_from_its_retained_outcome => "15-child-only-cancel.jsonl",
    unclaimed_thread_events_are_reported_never_given_to_the_root => "16-unclaimed-thread.jsonl",
    malformed_records_and_unknown_responses_are_located_findings => "17-malformed-and-unknown-responses.jsonl",
    header_root_thread_id_identifies_the_root => "18-header-root-thread-id.jsonl",
    cancel_that_never_completes_is_reported => "19-cancel-incomplete.jsonl",
    every_thread_start_is_a_root_and_the_header_s_is_shown_first => "20-two-roots-one-connection.jsonl",
    resume_response_history_settles_earlier_turns_and_their_children => "21-resume-history.jsonl",
    server_turn_after_a_root_cancel_interrupted_by_the_host_is_no_finding => "22-server-turn-after-cancel-interrupted.jsonl",
}
