//! A pass and a fail trace for the v2 mirror tracker of `mirror.rs` (`stale-mirror`,
//! `state-not-mirrored`; `cargo mutants` survivors), from the Subagent Sessions RFD: the
//! child's `state_update` and the parent's `subagent_update.state` "are two reports of one
//! logical child state", copies "are idempotent", and "Copies of a transition precede
//! later transitions on either path, so a delayed mirror cannot overwrite newer state".
//! The streams are `requests_tests.rs`'s (v2): `initialize`, R set up, child `A` announced
//! with the parent's copy of `running` (line 5), then the records given (line 6 on).

use serde_json::{Value, json};

use super::requests_tests::{ALL_CAPS, agent_update, run};

/// A's own report of `state` (`state_update` on A's stream).
fn on_child(state: &Value) -> Value {
    let mut update = state.clone();
    update["sessionUpdate"] = "state_update".into();
    agent_update("A", update)
}

/// R's copy of A's `state` (`subagent_update.state` on R's stream).
fn on_parent(state: &Value) -> Value {
    agent_update(
        "R",
        json!({"sessionUpdate":"subagent_update","sessionId":"A","state":state}),
    )
}

fn v2(rest: &[Value]) -> Vec<String> {
    let caps: Value = serde_json::from_str(ALL_CAPS).unwrap();
    run(2, &caps, rest)
}

fn running() -> Value {
    json!({"state":"running"})
}

fn idle() -> Value {
    json!({"state":"idle","stopReason":"end_turn"})
}

/// A parent copy of an older snapshot that the child's next report repeats was a new
/// transition the parent carried first (A runs again), however many times the parent
/// sent it before the child confirmed it: the repeat is a copy, not a second verdict.
#[test]
fn a_repeated_parent_copy_confirmed_by_the_child_is_a_new_transition() {
    let lines = |repeats: usize| {
        let mut rest = vec![on_child(&running()), on_child(&idle()), on_parent(&idle())];
        rest.extend(std::iter::repeat_n(on_parent(&running()), 1 + repeats));
        rest.push(on_child(&running()));
        rest
    };
    for repeats in [0, 1, 2] {
        let trace = v2(&lines(repeats));
        assert!(trace.is_empty(), "{repeats} repeats: {trace:?}");
    }
}

/// An unmirrored transition is reported at the child's first report of it, not at a
/// later repeat of the same snapshot.
#[test]
fn an_unmirrored_state_is_reported_at_the_child_s_first_report_of_it() {
    let trace = v2(&[on_child(&running()), on_child(&idle()), on_child(&idle())]);
    assert_eq!(trace, ["7:state-not-mirrored"]);
}
