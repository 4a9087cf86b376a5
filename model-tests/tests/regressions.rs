//! Shrunk disagreements between the reducer and the reference model, kept as explicit
//! regression cases. Each was a model-based test failure; the comment says which side
//! was wrong and which rule decided it ("aligned" = the specification is silent and the
//! model follows the reducer's reasonable choice). Every case folds the events through
//! both, compares the whole observable tree and the diagnostics after every event, checks
//! invariants, and then asserts the specific outcome.

// Test code: a panic is a test failure, so the workspace's panic-freedom lints do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lineage_core::{Event, Level, Snapshot};
use lineage_model_tests::{Model, Observable};

/// Folds `lines` (one canonical event per line) through the reducer and the model,
/// asserting agreement after every event. Returns each event's diagnostic codes and the
/// final observable tree.
fn agree(lines: &str) -> (Vec<Vec<&'static str>>, Observable) {
    let mut snapshot = Snapshot::new();
    let mut model = Model::new();
    let mut codes = Vec::new();
    for (i, line) in lines
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let event: Event = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let step = snapshot.apply(&event, Some(10 * (i as u64 + 1)));
        let (next, expected) = model.step_at(&event, Some(10 * (i as u64 + 1)));
        if let Err(v) = step.snapshot.check_invariants(Level::Full) {
            panic!("event #{}: invariant broken: {v}", i + 1);
        }
        let got: Vec<&'static str> = step.diagnostics.iter().map(|d| d.code().as_str()).collect();
        assert_eq!(got, expected, "event #{} ({line}): diagnostics", i + 1);
        let (r, m) = (
            Observable::of_snapshot(&step.snapshot),
            Observable::of_model(&next),
        );
        assert!(
            r == m,
            "event #{} ({line}): reducer (left) and model (right) differ:\n{}",
            i + 1,
            r.diff(&m)
        );
        codes.push(got);
        snapshot = step.snapshot;
        model = next;
    }
    (codes, Observable::of_snapshot(&snapshot))
}

const ROOT_AND_CHILD: &str = r#"
    {"type":"root_session_created","session":"R"}
    {"type":"user_submitted","session":"R","text":"go"}
    {"type":"root_provider_turn_started","session":"R","provider_turn":"p1"}
    {"type":"child_spawned","session":"A","parent_session":"R","tool_call":"call_a"}
"#;

/// Aligned: the submitted text joins the root turn's transcript as a user message, for
/// the opening submission and for guidance alike.
#[test]
fn user_submissions_join_the_root_transcript() {
    let (_, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"{"type":"user_submitted","session":"R","text":"more"}"#
    ));
    assert_eq!(
        obs.sessions["R"].messages,
        ["R#1|user|false|go", "R#1|user|false|more"]
    );
    assert_eq!(obs.turns["R#1"].guidance, 1);
}

/// Model was wrong (precedence): a known child spawned under itself or under its own
/// descendant is a reparent attempt (`reparent-rejected`), checked before any cycle.
#[test]
fn a_child_spawned_under_itself_or_its_descendant_is_a_reparent() {
    let (codes, _) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"child_spawned","session":"B","parent_session":"A"}
        {"type":"child_spawned","session":"A","parent_session":"A"}
        {"type":"child_spawned","session":"A","parent_session":"B"}
        "#
    ));
    assert_eq!(codes[5], ["reparent-rejected"]);
    assert_eq!(codes[6], ["reparent-rejected"]);
}

/// Model was wrong (precedence): the parent's turn is resolved before the child id is
/// looked at; a parent session with no turn at all gives `unknown-parent-turn`.
#[test]
fn a_parent_without_turns_is_an_unknown_parent_turn() {
    let (codes, _) = agree(
        r#"
        {"type":"root_session_created","session":"A"}
        {"type":"child_spawned","session":"A","parent_session":"A"}
        {"type":"child_spawned","session":"B","parent_session":"A"}
        "#,
    );
    assert_eq!(codes[1], ["unknown-parent-turn"]);
    assert_eq!(codes[2], ["unknown-parent-turn"]);
}

/// Aligned: the provider may resolve an interaction the client already answered.
#[test]
fn an_answered_interaction_can_be_resolved() {
    let (codes, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"interaction_requested","session":"A","request":"q"}
        {"type":"interaction_answered","session":"A","request":"q","answer":"allow"}
        {"type":"interaction_resolved","session":"A","request":"q"}
        {"type":"interaction_answered","session":"A","request":"q"}
        "#
    ));
    assert!(codes[6].is_empty());
    assert_eq!(codes[7], ["interaction-closed"]);
    assert_eq!(obs.interactions[&("A#1".into(), "q".into())], "resolved");
}

/// Aligned: a repeated root creation is `duplicate-session` but binds aliases it newly
/// names (its title is not changed).
#[test]
fn a_repeated_root_creation_binds_new_aliases() {
    let (codes, obs) = agree(
        r#"
        {"type":"root_session_created","session":"R","title":"one"}
        {"type":"root_session_created","session":"R","title":"two","aliases":[{"kind":"thread","id":"t"}]}
        "#,
    );
    assert_eq!(codes[1], ["duplicate-session"]);
    assert_eq!(obs.sessions["R"].title.as_deref(), Some("one"));
    assert!(obs.sessions["R"].aliases.contains("thread:t"));
}

/// Aligned: the first late terminal of a settled turn is the one recorded.
#[test]
fn the_first_late_terminal_is_recorded() {
    let (codes, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"child_turn_completed","session":"A","outcome":"completed"}
        {"type":"child_turn_completed","session":"A","outcome":"failed"}
        {"type":"child_turn_completed","session":"A","outcome":"canceled"}
        "#
    ));
    assert_eq!(codes[5], ["late-terminal"]);
    assert_eq!(obs.turns["A#1"].outcome.as_deref(), Some("completed"));
    assert_eq!(obs.turns["A#1"].late_terminal.as_deref(), Some("failed"));
}

/// Aligned: a repeated spawn edge is `duplicate-spawn` and merges a title (only when the
/// child has none) and aliases; naming a *different* delegation call is a reparent, an
/// unknown call on either side is the same edge.
#[test]
fn a_repeated_spawn_edge_merges_later_fields() {
    let (codes, obs) = agree(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"child_spawned","session":"A","parent_session":"R"}
        {"type":"child_spawned","session":"A","parent_session":"R","tool_call":"c1","title":"task A","aliases":[{"kind":"task","id":"t"}]}
        {"type":"child_spawned","session":"B","parent_session":"R","tool_call":"c2","title":"task B"}
        {"type":"session_titled","session":"B","title":"renamed"}
        {"type":"child_spawned","session":"B","parent_session":"R","title":"task B"}
        {"type":"child_spawned","session":"B","parent_session":"R","tool_call":"c3"}
        "#,
    );
    assert_eq!(codes[3], ["duplicate-spawn"]);
    assert_eq!(obs.sessions["A"].title.as_deref(), Some("task A"));
    assert!(obs.sessions["A"].aliases.contains("task:t"));
    assert_eq!(
        obs.sessions["A"].tool_call, None,
        "the relation never changes"
    );
    assert_eq!(codes[6], ["duplicate-spawn"]);
    assert_eq!(obs.sessions["B"].title.as_deref(), Some("renamed"));
    assert_eq!(codes[7], ["reparent-rejected"]);
}

/// Model was wrong (precedence): a spawn naming a deleted child answers
/// `deleted-session` for a deleted parent first, then `reparent-rejected` for another
/// parent, and `deleted-session` for the same edge.
#[test]
fn spawning_a_deleted_child_is_rejected() {
    let (codes, _) = agree(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"child_spawned","session":"A","parent_session":"R"}
        {"type":"child_spawned","session":"B","parent_session":"A"}
        {"type":"session_deleted","session":"B"}
        {"type":"child_spawned","session":"B","parent_session":"R"}
        {"type":"child_spawned","session":"B","parent_session":"A"}
        {"type":"session_deleted","session":"R"}
        {"type":"child_spawned","session":"A","parent_session":"R"}
        "#,
    );
    assert_eq!(codes[5], ["reparent-rejected"]);
    assert_eq!(codes[6], ["deleted-session"]);
    assert_eq!(codes[8], ["deleted-session"]);
}

/// Aligned: a repeated start of a known tool call changes nothing, even on a settled
/// root turn (no `late-root-output`).
#[test]
fn a_repeated_tool_call_start_changes_nothing() {
    let (codes, obs) = agree(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"tool_call_started","session":"R","call":"c"}
        {"type":"cancel_requested","session":"R"}
        {"type":"cancel_completed","session":"R"}
        {"type":"tool_call_started","session":"R","call":"c"}
        {"type":"tool_call_started","session":"R","call":"d"}
        "#,
    );
    assert!(codes[5].is_empty());
    assert_eq!(codes[6], ["late-root-output"]);
    assert_eq!(obs.sessions["R"].tool_calls["c"], "R#1|in_progress");
}

/// Decided semantics (deletion removes the subtree's *active* turns from cancel
/// targets) and aligned (an operation requested inside the deleted subtree goes with
/// it; a settled target stays listed).
#[test]
fn deletion_edits_cancel_operations() {
    let (_, obs) = agree(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"child_spawned","session":"A","parent_session":"R"}
        {"type":"child_spawned","session":"B","parent_session":"R"}
        {"type":"child_spawned","session":"C","parent_session":"R"}
        {"type":"cancel_requested","session":"C"}
        {"type":"child_turn_completed","session":"C","outcome":"completed"}
        {"type":"session_deleted","session":"C"}
        {"type":"cancel_requested","session":"R"}
        {"type":"child_turn_completed","session":"A","outcome":"completed"}
        {"type":"session_deleted","session":"A"}
        {"type":"session_deleted","session":"B"}
        "#,
    );
    let targets: Vec<&str> = obs.cancels["R#1"].iter().map(String::as_str).collect();
    assert_eq!(targets, ["A#1", "R#1"]);
    assert!(!obs.cancels.contains_key("C#1"));
}

/// Aligned: acknowledging a target that already settled (it is still listed) is
/// accepted without effect; completing a cancel from a settled, non-requested target's
/// session is `no-pending-cancel`.
#[test]
fn acknowledging_a_settled_target_is_accepted() {
    let (codes, _) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"cancel_requested","session":"R"}
        {"type":"child_turn_completed","session":"A","outcome":"completed"}
        {"type":"cancel_acknowledged","session":"A"}
        {"type":"cancel_completed","session":"A"}
        "#
    ));
    assert!(codes[6].is_empty());
    assert_eq!(codes[7], ["no-pending-cancel"]);
}

/// Seed (*Root Turn Lifecycle*): the running provider turn confirming the canonical
/// cancel (`interrupted`) after it settled is the expected order (real Codex answers
/// `turn/interrupt` first): recorded in the provider lifecycle without a note.
#[test]
fn a_provider_terminal_confirming_the_cancel_is_silent() {
    let (codes, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"cancel_requested","session":"R"}
        {"type":"cancel_completed","session":"R"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p1","outcome":"interrupted"}
        "#
    ));
    assert!(codes[6].is_empty(), "{:?}", codes[6]);
    let r = &obs.turns["R#1"];
    assert_eq!(r.outcome.as_deref(), Some("canceled"));
    assert_eq!(r.provider_phase.as_deref(), Some("completed"));
}

/// Seed (*Root Turn Lifecycle*: "a *matching* root provider terminal may arrive after
/// the canonical root was settled as canceled"): a late terminal naming another provider
/// turn while the provider is still running is `unmatched-provider-terminal`; once it is
/// not running, any late terminal is only noted.
#[test]
fn a_late_provider_terminal_must_match() {
    let (codes, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"cancel_requested","session":"R"}
        {"type":"cancel_completed","session":"R"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p9","outcome":"completed"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p1","outcome":"completed"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p9","outcome":"failed"}
        "#
    ));
    assert_eq!(codes[6], ["unmatched-provider-terminal"]);
    assert_eq!(codes[7], ["late-provider-terminal"]);
    assert_eq!(codes[8], ["late-provider-terminal"]);
    let r = &obs.turns["R#1"];
    assert_eq!(r.outcome.as_deref(), Some("canceled"));
    assert_eq!(r.provider_phase.as_deref(), Some("completed"));
    assert_eq!(r.provider_outcome.as_deref(), Some("completed"));
}

/// Aligned (and seed *Cancellation*: a canceled turn carries no error): the root turn
/// keeps the error text of a failed provider terminal, a continuation clears it, and a
/// terminal arriving while a cancel covers the root keeps none.
#[test]
fn root_error_text_follows_the_provider_terminal() {
    let (_, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p1","outcome":"failed","error":"boom"}
        {"type":"child_turn_completed","session":"A","outcome":"failed","error":"child boom"}
        {"type":"user_submitted","session":"R","text":"again"}
        {"type":"root_provider_turn_started","session":"R","provider_turn":"p2"}
        {"type":"cancel_requested","session":"R"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p2","outcome":"failed","error":"context canceled"}
        {"type":"cancel_completed","session":"R"}
        "#
    ));
    assert_eq!(obs.turns["R#1"].outcome.as_deref(), Some("failed"));
    assert_eq!(obs.turns["R#1"].error.as_deref(), Some("boom"));
    assert_eq!(obs.turns["A#1"].error.as_deref(), Some("child boom"));
    assert_eq!(obs.turns["R#2"].outcome.as_deref(), Some("canceled"));
    assert_eq!(obs.turns["R#2"].error, None);
}

/// Decided semantics: a child-only cancel that closes the last active child settles the
/// root from its retained provider outcome (not `canceled`); acknowledged targets settle
/// `canceled`, unacknowledged ones `interrupted`, a failed child never fails the root.
#[test]
fn a_child_only_cancel_settles_the_root_from_its_retained_outcome() {
    let (_, obs) = agree(&format!(
        "{ROOT_AND_CHILD}{}",
        r#"
        {"type":"child_spawned","session":"B","parent_session":"A"}
        {"type":"child_spawned","session":"C","parent_session":"R"}
        {"type":"child_turn_completed","session":"C","outcome":"failed"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p1","outcome":"completed"}
        {"type":"cancel_requested","session":"A"}
        {"type":"child_turn_completed","session":"B","outcome":"canceled"}
        {"type":"cancel_completed","session":"A"}
        "#
    ));
    assert_eq!(obs.turns["A#1"].outcome.as_deref(), Some("interrupted"));
    assert_eq!(obs.turns["B#1"].outcome.as_deref(), Some("canceled"));
    assert_eq!(obs.turns["R#1"].outcome.as_deref(), Some("completed"));
}
