//! The real Claude Code corpus: `traces/real/claude-code/*.jsonl`, recorded by
//! `lab/record.mjs` from `@anthropic-ai/claude-code` (`claude -p` stream-json, driven as
//! the Agent SDK drives it) against a scripted model. Each header states what the
//! "Provider-Native Subagents" seed expects of that run, with the ids the traffic showed;
//! a well-behaved real run must meet it with no finding at all (every expected finding
//! is listed in the header's `expect.findings`, which must match exactly).
//!
//! `traces/real/claude-code/` holds the lab's first pin (2.1.328); each later pin's
//! recordings of the same scenarios are in `traces/real/claude-code@<version>/` beside it,
//! and every named test checks the scenario in each of those folders.

use lineage_traces::{expect_well_behaved, unnamed, versions};

/// Every folder of the program's recordings, the first pin's first.
fn dirs() -> Vec<String> {
    versions("real", "claude-code")
}

/// Replays one recorded scenario in every version's folder and checks its header, and
/// that nothing above a note was reported.
fn replay(file: &str) {
    for dir in dirs() {
        expect_well_behaved(&dir, file);
    }
}

macro_rules! recorded {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() { replay($file); })*

        #[test]
        fn every_real_claude_trace_has_a_named_test() {
            for dir in dirs() {
                let missing = unnamed(&dir, &[$($file),*]);
                assert!(missing.is_empty(), "{dir}: traces without a named test: {missing:?}");
            }
        }
    };
}

recorded! {
    foreground_child_settles_from_its_launch_result => "01-foreground-child.jsonl",
    two_sequential_children_under_one_root_turn => "02-two-children.jsonl",
    parallel_children_keep_their_own_aliases => "03-parallel-children.jsonl",
    nested_child_is_created_under_its_parent_child_turn => "04-nested-child.jsonl",
    child_permission_is_owned_by_the_child_turn => "05-child-permission.jsonl",
    failed_child_does_not_fail_the_root => "06-child-fails.jsonl",
    background_child_continuation_joins_the_same_root_turn => "07-background-continuation.jsonl",
    background_bash_is_no_child_and_its_follow_up_warns_nothing => "08-background-bash.jsonl",
    interrupt_cancels_root_and_running_children => "09-interrupt-with-children.jsonl",
    stop_task_cancels_one_child_and_the_follow_ups_join_the_root => "10-stop-task.jsonl",
    stop_of_the_last_background_child_settles_the_root => "11-stop-last-background-child.jsonl",
    interrupt_during_a_child_permission_supersedes_it => "12-interrupt-during-permission.jsonl",
    guidance_while_a_child_runs_joins_the_same_root_turn => "13-guidance-while-children-run.jsonl",
    prompt_on_the_command_line_opens_the_root_turn => "14-prompt-on-command-line.jsonl",
    hook_callback_answers_are_not_unknown_responses => "15-hook-callback.jsonl",
    send_message_to_a_finished_child_opens_its_next_turn => "16-follow-up-to-the-same-child.jsonl",
    guidance_during_a_live_provider_turn_joins_it => "17-guidance-while-a-foreground-child-runs.jsonl",
    interrupt_after_the_result_cancels_the_background_children => "18-interrupt-with-background-children.jsonl",
    failed_background_child_is_followed_up_in_the_same_root_turn => "19-background-child-fails.jsonl",
    stop_of_a_foreground_child_leaves_the_root_running => "20-stop-foreground-child.jsonl",
    a_second_prompt_after_the_result_opens_the_next_root_turn => "21-two-prompts.jsonl",
    interrupt_after_the_result_cancels_a_nested_child_holding_a_permission => "22-interrupt-nested-after-result.jsonl",
    interrupt_during_the_root_turn_cancels_a_nested_child_holding_a_permission => "23-interrupt-nested-during-root-turn.jsonl",
    a_second_continuation_after_the_root_settled_is_reported => "24-two-notifications-two-continuations.jsonl",
    interrupt_during_the_notification_wait_cancels_the_root => "25-interrupt-during-the-notification-wait.jsonl",
    a_background_childs_permission_is_owned_by_the_child_turn => "26-background-child-permission-after-the-launch-result.jsonl",
    a_nested_background_grandchild_belongs_to_its_child_turn => "27-nested-background-grandchild.jsonl",
    a_child_the_model_stopped_settles_canceled => "28-model-stops-its-background-child.jsonl",
}
