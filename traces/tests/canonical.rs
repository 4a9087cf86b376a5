//! The canonical corpus: one trace per validation scenario of the Provider-Native
//! Subagents specification (its validation list, plus rule-specific traces). Each test names
//! the rule; the expectations live in the trace header, written from the seed, and are
//! checked by `lineage_traces::check_trace`. The insta snapshot of `replay --format json`
//! is kept for review of everything else.

use lineage_traces::{expect_trace, unnamed};

macro_rules! scenario {
    ($($test:ident => $file:literal,)*) => {
        $(#[test] fn $test() {
            let json = expect_trace("canonical", $file);
            insta::assert_snapshot!($file.trim_end_matches(".jsonl"), json);
        })*

        #[test]
        fn every_canonical_trace_has_a_named_test() {
            let missing = unnamed("canonical", &[$($file),*]);
            assert!(missing.is_empty(), "traces without a named test: {missing:?}");
        }
    };
}

scenario! {
    concurrent_children_root_settles_only_after_the_last => "01-concurrent-children.jsonl",
    early_child_events_join_the_child_turn_never_the_root => "02-early-child-events.jsonl",
    root_terminal_before_child_terminal_root_waits_then_settles => "03-root-terminal-before-child.jsonl",
    child_terminal_before_root_terminal_root_settles_on_provider_terminal => "04-child-terminal-before-root.jsonl",
    cancel_with_late_child_events_nothing_resurrects => "05-cancel-with-late-child-events.jsonl",
    child_created_while_root_cancel_prepared_is_rejected => "06-spawn-racing-prepared-cancel.jsonl",
    provider_terminal_after_canonical_cancel_updates_only_provider_lifecycle => "07-provider-terminal-after-cancel.jsonl",
    unowned_provider_turn_after_cancel_opens_no_root_turn => "08-unowned-provider-turn-after-cancel.jsonl",
    child_approvals_are_owned_by_the_child_turn => "09-child-approvals.jsonl",
    guidance_while_children_run_joins_the_same_root_turn => "10-guidance-while-children-run.jsonl",
    failed_child_never_fails_a_completed_root => "11-failed-child-completed-root.jsonl",
    nested_children_gate_the_root_turn => "12-nested-children.jsonl",
    deleting_a_session_tombstones_its_whole_subtree => "13-delete-subtree.jsonl",
    child_only_cancel_settles_root_from_retained_outcome => "14-child-only-cancel.jsonl",
    child_never_changes_parent_and_aliases_never_cross_bind => "15-reparent-and-alias-conflict.jsonl",
    continuation_provider_turn_attaches_to_the_same_root_turn => "16-continuation-provider-turn.jsonl",
    cancel_settles_acknowledged_canceled_and_unacknowledged_interrupted => "17-partial-cancel-acknowledgement.jsonl",
    cancel_bookkeeping_rejects_stray_and_repeated_operations => "18-cancel-bookkeeping.jsonl",
    impossible_inputs_are_typed_errors_and_duplicates_idempotent => "19-impossible-and-idempotent-inputs.jsonl",
}
