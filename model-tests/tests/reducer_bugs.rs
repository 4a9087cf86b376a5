//! Minimal reproductions of the four reducer bugs the model-based tests found (all fixed
//! since; these keep them fixed). Each test states the specified behaviour.

// Test code: a panic is a test failure, so the workspace's panic-freedom lints do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lineage_core::{Alias, Event, Level, Outcome, Phase, Snapshot, Step, TurnId};

fn events(lines: &str) -> Vec<Event> {
    lines
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// Folds the events, checking invariants after each; returns every step.
fn fold(events: &[Event]) -> Vec<Step> {
    let mut snapshot = Snapshot::new();
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let step = snapshot.apply(e, None);
        if let Err(v) = step.snapshot.check_invariants(Level::Full) {
            panic!("invariant broken after event #{}: {v}", i + 1);
        }
        snapshot = step.snapshot.clone();
        out.push(step);
    }
    out
}

fn turn(s: &str) -> TurnId {
    s.parse().unwrap()
}

/// Seed *Root Turn Lifecycle*: the root provider terminal retains *the* provider turn's
/// outcome; `unmatched-provider-terminal` is "a provider terminal with no provider turn
/// to end". Once provider turn `p1` has ended, a terminal for `p2` (never started) ends
/// nothing, yet the reducer accepts it silently and overwrites the retained outcome, so
/// the root later settles `failed` instead of `completed`. (A repeated terminal of `p1`
/// itself likewise rewrites the outcome.)
#[test]
fn a_provider_terminal_for_no_live_provider_turn_is_unmatched() {
    let steps = fold(&events(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"child_spawned","session":"A","parent_session":"R"}
        {"type":"root_provider_turn_started","session":"R","provider_turn":"p1"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p1","outcome":"completed"}
        {"type":"root_provider_turn_completed","session":"R","provider_turn":"p2","outcome":"failed"}
        {"type":"child_turn_completed","session":"A","outcome":"completed"}
        "#,
    ));
    let stale = &steps[5];
    let codes: Vec<&str> = stale
        .diagnostics
        .iter()
        .map(|d| d.code().as_str())
        .collect();
    assert_eq!(codes, ["unmatched-provider-terminal"]);
    assert_eq!(
        stale.snapshot, steps[4].snapshot,
        "a rejected event must change nothing"
    );
    let root = steps[6].snapshot.turn(&turn("R#1")).unwrap().clone();
    assert_eq!(root.outcome, Some(Outcome::Completed));
}

/// Diagnostic `deleted-session`: "the session was deleted with its subtree; nothing can
/// change it". A repeated `root_session_created` for a deleted root is answered
/// `duplicate-session` ("nothing changed") but binds the new alias to the tombstone.
#[test]
fn a_repeated_root_creation_does_not_change_a_deleted_root() {
    let steps = fold(&events(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"session_deleted","session":"R"}
        {"type":"root_session_created","session":"R","aliases":[{"kind":"task","id":"x"}]}
        "#,
    ));
    let after = &steps[2].snapshot;
    assert_eq!(after.resolve_alias(&Alias::new("task", "x")), None);
    assert_eq!(after, &steps[1].snapshot, "a tombstone never changes");
}

/// Seed *Cancellation* / canonical events: `cancel_completed` names "the session named by
/// the matching `cancel_requested`" and settles every recorded target. After a
/// child-only cancel of A whose own turn A#1 already settled `completed`, A opens A#2
/// (allowed: the root turn is open). `cancel_completed` for A is then answered
/// `no-pending-cancel` although A's operation is still prepared: the operation can never
/// complete, C#1 (a recorded target) stays `settling` forever, and the root turn can
/// never settle after its provider completes.
#[test]
fn a_child_only_cancel_completes_after_its_child_opened_a_later_turn() {
    let steps = fold(&events(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"root_provider_turn_started","session":"R"}
        {"type":"child_spawned","session":"A","parent_session":"R"}
        {"type":"child_spawned","session":"C","parent_session":"A"}
        {"type":"cancel_requested","session":"A"}
        {"type":"child_turn_completed","session":"A","outcome":"completed"}
        {"type":"child_turn_started","session":"A"}
        {"type":"child_turn_completed","session":"A","outcome":"completed"}
        {"type":"cancel_completed","session":"A"}
        {"type":"root_provider_turn_completed","session":"R","outcome":"completed"}
        "#,
    ));
    let last = &steps.last().unwrap().snapshot;
    assert_eq!(
        last.cancel_operations().count(),
        0,
        "A's cancel never completed"
    );
    let c = last.turn(&turn("C#1")).unwrap();
    assert_eq!(
        (c.phase, c.outcome),
        (Phase::Settled, Some(Outcome::Interrupted))
    );
    let root = last.turn(&turn("R#1")).unwrap();
    assert_eq!(root.outcome, Some(Outcome::Completed));
}

/// "Invariants are code … a panic means a broken internal invariant." A child-only cancel
/// of C records C#1 and D#1 (F#1 had already settled). F then opens F#2 (the root turn is
/// open) and a cancel of F targets F#2 and D#1, overlapping C's *wider* in-flight cancel.
/// The reducer leaves C#1 marked by an operation that no longer lists it: the debug build
/// panics ("turn C#1 is marked by cancel C#1 which does not list it"), a release build
/// keeps a snapshot that fails `check_invariants`.
#[test]
fn a_cancel_overlapping_a_wider_in_flight_cancel_keeps_invariants() {
    let steps = fold(&events(
        r#"
        {"type":"root_session_created","session":"R"}
        {"type":"user_submitted","session":"R","text":"go"}
        {"type":"child_spawned","session":"C","parent_session":"R"}
        {"type":"child_spawned","session":"F","parent_session":"C"}
        {"type":"child_spawned","session":"D","parent_session":"F"}
        {"type":"child_turn_completed","session":"F","outcome":"completed"}
        {"type":"cancel_requested","session":"C"}
        {"type":"child_turn_started","session":"F"}
        {"type":"cancel_requested","session":"F"}
        "#,
    ));
    let last = &steps.last().unwrap().snapshot;
    assert_eq!(last.turn(&turn("C#1")).unwrap().phase, Phase::Settling);
    assert_eq!(last.turn(&turn("D#1")).unwrap().phase, Phase::Settling);
}
