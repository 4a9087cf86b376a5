//! The Claude Agent SDK corpus: one trace per case of the Claude adapter issue, written
//! from the SDK's declarations (`sdk.d.ts` 0.3.332) and `reference/PROVIDERS.md`. Each
//! test names the rule; expectations live in the trace header.

use lineage_traces::{expect_trace, unnamed};

macro_rules! scenario {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() {
            let json = expect_trace("claude", $file);
            insta::assert_snapshot!($file.trim_end_matches(".jsonl"), json);
        })*

        #[test]
        fn every_claude_trace_has_a_named_test() {
            let missing = unnamed("claude", &[$($file),*]);
            assert!(missing.is_empty(), "traces without a named test: {missing:?}");
        }
    };
}

scenario! {
    foreground_child_settles_from_its_launch_tool_result => "01-foreground-agent.jsonl",
    background_child_keeps_the_root_active_past_result_and_continuation_joins_it => "02-background-continuation.jsonl",
    nested_agent_creates_a_grandchild_under_the_child_turn => "03-nested-agent.jsonl",
    permission_before_tool_use_is_owned_by_the_child_via_agent_id => "04-permission-before-tool-use.jsonl",
    background_bash_is_never_a_session_and_never_gates_the_root => "05-background-bash.jsonl",
    concurrent_children_task_and_agent_ids_never_cross_bind => "06-concurrent-aliases.jsonl",
    continuation_times_out_after_30s_and_its_output_is_stale => "07-continuation-timeout.jsonl",
    stop_task_cancels_one_child_and_root_settles_from_its_outcome => "08-stop-task.jsonl",
    interrupt_cancels_root_and_children_and_drops_late_fallout => "09-interrupt-late-fallout.jsonl",
    guidance_during_the_notification_wait_joins_the_same_root_turn => "10-guidance-during-notification-wait.jsonl",
    task_progress_after_a_terminal_does_not_revive_the_task => "11-progress-after-terminal.jsonl",
    legacy_task_tool_name_launches_children => "12-legacy-task-tool.jsonl",
    malformed_lines_and_unknown_message_types => "13-malformed-and-unknown.jsonl",
    guidance_while_a_child_runs_joins_the_same_root_turn => "14-guidance-while-child-runs.jsonl",
    guidance_does_not_extend_the_continuation_wait => "15-guidance-does-not-extend-wait.jsonl",
    stop_task_error_leaves_the_child_interrupted => "16-stop-task-error.jsonl",
    unbound_agent_request_and_unknown_task_are_reported => "17-unknown-agent-and-task.jsonl",
    interrupt_without_response_is_reported_incomplete => "18-interrupt-incomplete.jsonl",
    stdout_only_capture_reads_the_interrupt_from_its_answer => "19-stdout-only-interrupt.jsonl",
    cancel_during_the_notification_wait_settles_the_root_canceled => "20-cancel-during-notification-wait.jsonl",
    two_notifications_two_continuations_the_late_one_is_reported => "21-two-notifications-two-continuations.jsonl",
    interrupt_answer_covers_nested_children_whatever_the_order => "22-interrupt-nested-children-order.jsonl",
    task_updated_as_the_only_terminal_settles_the_child => "23-task-updated-only-terminal.jsonl",
    launch_result_agent_id_and_user_message_notification_are_read => "24-agent-id-and-user-notification.jsonl",
    stdout_only_capture_of_two_prompts_opens_two_root_turns => "25-stdout-only-two-prompts.jsonl",
}
