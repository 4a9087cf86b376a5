//! Model-based property tests of the canonical reducer.
//!
//! Every generated sequence is folded through the reducer (`Snapshot::apply`) and, where
//! the property says so, through the naive reference model (`lineage_model_tests::Model`);
//! after **every** event the whole observable tree and the diagnostic codes are compared
//! and `check_invariants(Level::Full)` must hold.
//!
//! Case counts: `PROPTEST_CASES` overrides every property's default (see README.md for a
//! long campaign). A failure prints the resolved events as a canonical trace, ready for
//! `lineage replay`.

// Test code: a panic is a test failure, so the workspace's panic-freedom lints do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::{BTreeMap, BTreeSet};

use lineage_core::{Event, Level, Outcome, Phase, Severity, Snapshot, Step, TurnId};
use lineage_model_tests::strategies::{self, Guide, Mix, Op};
use lineage_model_tests::{Model, Observable};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};

// ----- harness -----

/// `PROPTEST_CASES` when set, else the property's default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(default),
        max_shrink_iters: 20_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/model_based.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// The events as a canonical trace (what `lineage replay` reads).
fn trace(events: &[Event]) -> String {
    let mut out = String::from("{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n");
    for e in events {
        out.push_str(&format!(
            "{{\"event\":{}}}\n",
            serde_json::to_string(e).unwrap_or_default()
        ));
    }
    out
}

fn fail(events: &[Event], what: String) -> TestCaseError {
    TestCaseError::fail(format!(
        "{what}\nafter event #{} of this trace:\n{}",
        events.len(),
        trace(events)
    ))
}

/// `snapshot.apply(event)`, with a reducer panic turned into a failure that shows the
/// trace (debug builds of the reducer panic when an internal invariant breaks).
fn apply(snapshot: &Snapshot, event: &Event, events: &[Event]) -> Result<Step, TestCaseError> {
    apply_at(snapshot, event, None, events)
}

/// The `at` of the `n`th event (1-based): mostly its position, sometimes none.
fn stamp(n: usize) -> Option<u64> {
    (n % 7 != 3).then(|| 1_000 * u64::try_from(n).unwrap_or(0))
}

fn apply_at(
    snapshot: &Snapshot,
    event: &Event,
    at: Option<u64>,
    events: &[Event],
) -> Result<Step, TestCaseError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| snapshot.apply(event, at))).map_err(
        |panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            fail(events, format!("the reducer panicked: {message}"))
        },
    )
}

fn codes(step: &Step) -> Vec<&'static str> {
    step.diagnostics.iter().map(|d| d.code().as_str()).collect()
}

fn rejected(step: &Step) -> bool {
    step.diagnostics
        .iter()
        .any(|d| d.severity() >= Severity::Warning)
}

/// One folded step: the event, the reducer's step, the model after it.
struct Folded {
    event: Event,
    step: Step,
}

/// Resolves the ops against the model while folding them through the reducer (skipping
/// events that would hit a known, reported reducer bug).
fn fold_ops(ops: &[Op]) -> Result<(Vec<Folded>, Vec<Event>), TestCaseError> {
    let mut model = Model::new();
    let mut snapshot = Snapshot::new();
    let mut out = Vec::new();
    let mut events = Vec::new();
    for op in ops {
        let event = strategies::resolve(op, &model);
        events.push(event.clone());
        let step = apply(&snapshot, &event, &events)?;
        model = model.step(&event).0;
        snapshot = step.snapshot.clone();
        out.push(Folded { event, step });
    }
    Ok((out, events))
}

fn fold_events(events: &[Event]) -> Result<Vec<Step>, TestCaseError> {
    let mut snapshot = Snapshot::new();
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let step = apply(&snapshot, e, &events[..=i])?;
        snapshot = step.snapshot.clone();
        out.push(step);
    }
    Ok(out)
}

fn check_invariants(snapshot: &Snapshot, events: &[Event]) -> Result<(), TestCaseError> {
    snapshot
        .check_invariants(Level::Full)
        .map_err(|v| fail(events, format!("invariant violated: {v}")))
}

/// The heart of the suite: reducer and model agree after every event.
fn check_against_model(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut model = Model::new();
    let mut snapshot = Snapshot::new();
    let mut events = Vec::new();
    let mut before = Observable::of_snapshot(&snapshot);
    for op in ops {
        let event = strategies::resolve(op, &model);
        events.push(event.clone());
        let at = stamp(events.len());
        let step = apply_at(&snapshot, &event, at, &events)?;
        let (next, expected) = model.step_at(&event, at);
        check_invariants(&step.snapshot, &events)?;
        let got = codes(&step);
        if got != expected {
            return Err(fail(
                &events,
                format!(
                    "diagnostics differ: reducer {got:?}, model {expected:?} ({:?})",
                    step.diagnostics
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                ),
            ));
        }
        let reducer = Observable::of_snapshot(&step.snapshot);
        let reference = Observable::of_model(&next);
        if reducer != reference {
            return Err(fail(
                &events,
                format!(
                    "observable differs (left: reducer, right: model):\n{}",
                    reducer.diff(&reference)
                ),
            ));
        }
        if rejected(&step) {
            if step.snapshot != snapshot {
                return Err(fail(
                    &events,
                    "a rejected event changed the snapshot".into(),
                ));
            }
            if !step.changes.is_empty() {
                return Err(fail(
                    &events,
                    format!("a rejected event published changes: {:?}", step.changes),
                ));
            }
        }
        if reducer != before && step.changes.is_empty() {
            return Err(fail(
                &events,
                "the tree changed but the step published no change".into(),
            ));
        }
        if !step.changes.is_empty() && step.snapshot == snapshot {
            return Err(fail(
                &events,
                format!(
                    "changes published for an unchanged snapshot: {:?}",
                    step.changes
                ),
            ));
        }
        before = reducer;
        snapshot = step.snapshot;
        model = next;
    }
    Ok(())
}

// ----- reducer == reference model -----

proptest! {
    #![proptest_config(config(384))]

    /// Realistic lifecycles (spawns under active turns, nested children, continuations,
    /// guidance, interactions, cancels with partial acknowledgement, late events,
    /// deletions) mixed with blind events: the whole observable tree and the diagnostics
    /// equal the reference model's after every event, and invariants hold.
    #[test]
    fn reducer_matches_reference_model_after_every_event(
        ops in prop_oneof![
            strategies::ops(Mix::realistic(), 1..90),
            strategies::ops(Mix::gate_heavy(), 1..90),
        ]
    ) {
        check_against_model(&ops)?;
    }

    /// Mostly hostile input (unknown ids, duplicates, terminals before starts, reparent
    /// attempts, wrong session kinds) over a live tree: same comparison.
    #[test]
    fn reducer_matches_reference_model_on_hostile_input(
        ops in strategies::ops(Mix::hostile(), 1..90)
    ) {
        check_against_model(&ops)?;
    }

    /// Cancel-heavy runs (absorbed cancels, partial acknowledgements, child-only
    /// cancels, late events after cancellation): same comparison.
    #[test]
    fn reducer_matches_reference_model_around_cancels(
        ops in strategies::ops(Mix::cancel_heavy(), 1..90)
    ) {
        check_against_model(&ops)?;
    }
}

// ----- order independence -----

fn final_state(
    events: &[Event],
) -> Result<(Observable, BTreeMap<&'static str, usize>), TestCaseError> {
    let mut snapshot = Snapshot::new();
    let mut diags: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        let step = apply(&snapshot, e, &events[..=i])?;
        check_invariants(&step.snapshot, &events[..=i])?;
        for c in codes(&step) {
            *diags.entry(c).or_default() += 1;
        }
        snapshot = step.snapshot;
    }
    Ok((Observable::of_snapshot(&snapshot), diags))
}

proptest! {
    #![proptest_config(config(256))]

    /// For a generated tree and each session's events, random causal orders (each
    /// session's events in order, a child's events after its spawn) all give the same
    /// final tree and the same diagnostics; every turn ends settled and each root turn
    /// carries its own provider outcome whatever its children did.
    #[test]
    fn root_settlement_is_independent_of_causal_order(
        plan in strategies::plan(),
        seeds in prop::collection::vec(any::<u64>(), 4),
    ) {
        let sequential = plan.sequential();
        let (expected, expected_diags) = final_state(&sequential)?;
        // The reference model agrees on the sequential order.
        let mut model = Model::new();
        for e in &sequential {
            model = model.step(e).0;
        }
        let reference = Observable::of_model(&model);
        prop_assert!(
            expected == reference,
            "reducer and model differ on the sequential order:\n{}\n{}",
            expected.diff(&reference),
            trace(&sequential)
        );
        for (id, turn) in &expected.turns {
            prop_assert_eq!(&turn.phase, "settled", "turn {} not settled:\n{}", id, trace(&sequential));
            if let Some(p) = &turn.provider_outcome {
                prop_assert_eq!(turn.outcome.as_ref(), Some(p), "root turn {} outcome is not its provider's", id);
            }
        }
        for seed in seeds {
            let order = plan.interleave(seed);
            prop_assert_eq!(order.len(), sequential.len());
            let (got, got_diags) = final_state(&order)?;
            prop_assert!(
                got == expected,
                "final tree depends on the order:\n{}\norder:\n{}\nsequential:\n{}",
                got.diff(&expected),
                trace(&order),
                trace(&sequential)
            );
            prop_assert_eq!(got_diags, expected_diags.clone(), "diagnostics depend on the order:\n{}", trace(&order));
        }
    }
}

// ----- named safety properties -----

/// A scenario that reaches a root cancel, completes one, then keeps going with
/// hostile and late events.
fn cancel_scenario() -> impl Strategy<Value = Vec<Op>> {
    (
        strategies::ops(Mix::realistic(), 0..25),
        any::<u8>(),
        strategies::ops(Mix::cancel_heavy(), 0..10),
        any::<u8>(),
        strategies::ops(Mix::cancel_heavy(), 0..40),
        strategies::ops(Mix::hostile(), 0..20),
    )
        .prop_map(|(mut prefix, a, middle, c, late, hostile)| {
            prefix.push(Op::Guided {
                guide: Guide::Cancel,
                a,
                b: 0,
                outcome: Outcome::Canceled,
                flag: true,
            });
            prefix.extend(middle);
            prefix.push(Op::Guided {
                guide: Guide::CancelComplete,
                a: c,
                b: 0,
                outcome: Outcome::Canceled,
                flag: false,
            });
            prefix.extend(late);
            prefix.extend(hostile);
            prefix
        })
}

fn root_turn_of(session: &lineage_core::Session) -> Option<TurnId> {
    session.relation.as_ref().map(|r| r.root_turn.clone())
}

proptest! {
    #![proptest_config(config(256))]

    /// No event sequence changes a child's creator relation (parent session, parent turn,
    /// tool call, root session, root turn) or a session's kind.
    #[test]
    fn no_event_sequence_reparents_a_child(
        ops in strategies::ops(Mix::reparent_heavy(), 1..80)
    ) {
        let (steps, events) = fold_ops(&ops)?;
        let mut previous = Snapshot::new();
        for (i, f) in steps.iter().enumerate() {
            for s in previous.sessions() {
                let now = f.step.snapshot.session(&s.id);
                prop_assert!(now.is_some(), "session {} vanished\n{}", s.id, trace(&events[..=i]));
                let now = now.unwrap();
                prop_assert_eq!(now.kind, s.kind, "kind of {} changed\n{}", s.id, trace(&events[..=i]));
                prop_assert_eq!(
                    now.relation.as_deref(),
                    s.relation.as_deref(),
                    "creator relation of {} changed\n{}",
                    s.id,
                    trace(&events[..=i])
                );
            }
            previous = f.step.snapshot.clone();
        }
    }

    /// After a root turn settles `canceled`, no later event changes its phase or outcome
    /// and no child session appears under it.
    #[test]
    fn no_resurrection_after_a_root_turn_settles_canceled(ops in cancel_scenario()) {
        let (steps, events) = fold_ops(&ops)?;
        // canceled root turn → the sessions under it when it settled
        let mut canceled: BTreeMap<TurnId, BTreeSet<String>> = BTreeMap::new();
        for (i, f) in steps.iter().enumerate() {
            let snap = &f.step.snapshot;
            let trace_so_far = || trace(&events[..=i]);
            for (turn, under) in &canceled {
                let deleted = snap.session(turn.session()).is_none_or(|s| s.deleted);
                if !deleted {
                    let t = snap.turn(turn);
                    prop_assert!(t.is_some(), "canceled root turn {} vanished\n{}", turn, trace_so_far());
                    let t = t.unwrap();
                    prop_assert_eq!(t.phase, Phase::Settled, "canceled root turn {} reopened\n{}", turn, trace_so_far());
                    prop_assert_eq!(t.outcome, Some(Outcome::Canceled), "canceled root turn {} changed outcome\n{}", turn, trace_so_far());
                }
                for s in snap.sessions() {
                    if root_turn_of(s).as_ref() == Some(turn) {
                        prop_assert!(
                            under.contains(s.id.as_str()),
                            "child {} appeared under canceled root turn {}\n{}", s.id, turn, trace_so_far()
                        );
                        if let Some(active) = s.active_turn() {
                            prop_assert!(false, "child turn {} active under canceled root turn {}\n{}", active.id, turn, trace_so_far());
                        }
                    }
                }
            }
            for root in snap.roots() {
                for t in &root.turns {
                    if t.outcome == Some(Outcome::Canceled) && !canceled.contains_key(&t.id) {
                        let under = snap
                            .sessions()
                            .filter(|s| root_turn_of(s).as_ref() == Some(&t.id))
                            .map(|s| s.id.to_string())
                            .collect();
                        canceled.insert(t.id.clone(), under);
                    }
                }
            }
        }
    }

    /// A settled turn stays settled with the same outcome (only deleting its session
    /// removes it).
    #[test]
    fn settled_is_final_for_every_turn(
        ops in prop_oneof![
            strategies::ops(Mix::realistic(), 1..80),
            strategies::ops(Mix::cancel_heavy(), 1..80),
            cancel_scenario(),
        ]
    ) {
        let (steps, events) = fold_ops(&ops)?;
        let mut previous = Snapshot::new();
        for (i, f) in steps.iter().enumerate() {
            let snap = &f.step.snapshot;
            for s in previous.sessions() {
                let deleted_now = snap.session(&s.id).is_none_or(|x| x.deleted);
                for t in &s.turns {
                    if t.outcome.is_none() || deleted_now {
                        continue;
                    }
                    let now = snap.turn(&t.id);
                    prop_assert!(now.is_some(), "settled turn {} vanished\n{}", t.id, trace(&events[..=i]));
                    let now = now.unwrap();
                    prop_assert_eq!(now.phase, Phase::Settled, "turn {} reopened\n{}", t.id, trace(&events[..=i]));
                    prop_assert_eq!(now.outcome, t.outcome, "turn {} changed outcome\n{}", t.id, trace(&events[..=i]));
                }
            }
            previous = snap.clone();
        }
    }

    /// A root turn settles either `canceled` by its own cancel or with its retained root
    /// provider outcome: a failed (or interrupted, or canceled) child never decides it.
    #[test]
    fn a_failed_child_never_fails_its_root(
        ops in prop_oneof![
            strategies::ops(Mix::realistic(), 1..80),
            cancel_scenario(),
        ]
    ) {
        let (steps, events) = fold_ops(&ops)?;
        let mut previous = Snapshot::new();
        for (i, f) in steps.iter().enumerate() {
            let snap = &f.step.snapshot;
            for root in snap.roots() {
                for t in &root.turns {
                    let Some(outcome) = t.outcome else { continue };
                    let was_active = previous.turn(&t.id).is_some_and(|p| p.outcome.is_none());
                    if !was_active {
                        continue;
                    }
                    let own_cancel = matches!(&f.event, Event::CancelCompleted { session } if session == &root.id)
                        && previous.cancel_operation(&t.id).is_some();
                    let provider = t.gate.as_ref().and_then(|g| g.provider.outcome);
                    if own_cancel {
                        prop_assert_eq!(outcome, Outcome::Canceled, "root turn {} canceled with another outcome\n{}", t.id, trace(&events[..=i]));
                    } else {
                        prop_assert_eq!(
                            Some(outcome), provider,
                            "root turn {} settled {} but its provider outcome is {:?}\n{}",
                            t.id, outcome, provider, trace(&events[..=i])
                        );
                    }
                }
            }
            previous = snap.clone();
        }
    }

    /// Persistence: a snapshot kept before later events is unchanged by them, both as an
    /// observable tree and by `==` against the same prefix folded again from scratch.
    #[test]
    fn earlier_snapshots_are_unchanged_by_later_events(
        ops in strategies::ops(Mix::realistic(), 1..60)
    ) {
        let (steps, events) = fold_ops(&ops)?;
        let kept: Vec<(Snapshot, Observable)> = steps
            .iter()
            .map(|f| (f.step.snapshot.clone(), Observable::of_snapshot(&f.step.snapshot)))
            .collect();
        // Fold everything again on top of the kept snapshots' successors (the kept
        // values are shared with those), then look at the kept ones.
        let mut last = kept.last().map(|k| k.0.clone()).unwrap_or_default();
        for e in &events {
            last = apply(&last, e, &events)?.snapshot;
        }
        // A fresh fold yields every prefix's snapshot again.
        let fresh = fold_events(&events)?;
        for (i, ((snapshot, observed), again)) in kept.iter().zip(&fresh).enumerate() {
            let now = Observable::of_snapshot(snapshot);
            prop_assert!(&now == observed, "snapshot #{} changed:\n{}\n{}", i, now.diff(observed), trace(&events));
            prop_assert!(snapshot == &again.snapshot, "snapshot #{} differs from a fresh fold of its prefix\n{}", i, trace(&events));
        }
    }

    /// Folding the same log twice gives identical snapshots, changes and diagnostics.
    #[test]
    fn folding_the_same_log_twice_is_deterministic(
        ops in prop_oneof![
            strategies::ops(Mix::realistic(), 1..80),
            strategies::ops(Mix::hostile(), 1..80),
        ]
    ) {
        let (_, events) = fold_ops(&ops)?;
        let first = fold_events(&events)?;
        let second = fold_events(&events)?;
        for (i, (a, b)) in first.iter().zip(&second).enumerate() {
            prop_assert!(a.snapshot == b.snapshot, "snapshot #{} differs\n{}", i, trace(&events));
            prop_assert_eq!(&a.changes, &b.changes, "changes #{} differ", i);
            prop_assert_eq!(&a.diagnostics, &b.diagnostics, "diagnostics #{} differ", i);
        }
    }

    /// `check_invariants(Full)` holds after every step of realistic, hostile and
    /// cancel-heavy sequences, and a rejected event never changes the snapshot.
    #[test]
    fn invariants_hold_after_every_step(
        ops in prop_oneof![
            strategies::ops(Mix::realistic(), 1..100),
            strategies::ops(Mix::hostile(), 1..100),
            cancel_scenario(),
        ]
    ) {
        let (steps, events) = fold_ops(&ops)?;
        let mut previous = Snapshot::new();
        for (i, f) in steps.iter().enumerate() {
            check_invariants(&f.step.snapshot, &events[..=i])?;
            if rejected(&f.step) {
                prop_assert!(f.step.snapshot == previous, "rejected event #{} changed the snapshot\n{}", i, trace(&events[..=i]));
            }
            previous = f.step.snapshot.clone();
        }
    }
}

// ----- generator coverage -----

/// Not a property: tallies what generated runs reach (diagnostics, changes, which event
/// settles root turns, tree depth) to check that the generators reach deep states.
/// `cargo test -p lineage-model-tests --test model_based -- --ignored --nocapture`
#[test]
#[ignore = "a report, not a check"]
fn generator_coverage_report() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let mut diagnostics: BTreeMap<String, usize> = BTreeMap::new();
    let mut changes: BTreeMap<String, usize> = BTreeMap::new();
    let mut root_settled_by: BTreeMap<String, usize> = BTreeMap::new();
    let mut depth: BTreeMap<usize, usize> = BTreeMap::new();
    let mut events_total = 0;
    let mut runs_with_canceled_root: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, strategy) in [
        ("realistic", strategies::ops(Mix::realistic(), 1..90)),
        ("gate_heavy", strategies::ops(Mix::gate_heavy(), 1..90)),
        ("hostile", strategies::ops(Mix::hostile(), 1..90)),
        ("cancel_heavy", strategies::ops(Mix::cancel_heavy(), 1..90)),
        ("cancel_scenario", cancel_scenario().boxed()),
    ] {
        for _ in 0..400 {
            let ops = strategy.new_tree(&mut runner).unwrap().current();
            let (steps, _) = fold_ops(&ops).unwrap();
            events_total += steps.len();
            if steps.last().is_some_and(|f| {
                f.step
                    .snapshot
                    .roots()
                    .iter()
                    .any(|r| r.turns.iter().any(|t| t.outcome == Some(Outcome::Canceled)))
            }) {
                *runs_with_canceled_root.entry(name).or_default() += 1;
            }
            let mut deepest = 0;
            for f in &steps {
                for d in &f.step.diagnostics {
                    *diagnostics
                        .entry(format!("{name}: {}", d.code()))
                        .or_default() += 1;
                }
                for c in &f.step.changes {
                    let v = serde_json::to_value(c).unwrap();
                    let kind = v["type"].as_str().unwrap_or("?").to_owned();
                    if kind == "turn_settled" {
                        let turn: TurnId = v["turn"].as_str().unwrap().parse().unwrap();
                        if f.step
                            .snapshot
                            .session(turn.session())
                            .is_some_and(|s| s.relation.is_none())
                        {
                            *root_settled_by
                                .entry(format!(
                                    "{} → {}",
                                    f.event.name(),
                                    v["outcome"].as_str().unwrap_or("?")
                                ))
                                .or_default() += 1;
                        }
                    }
                    *changes.entry(kind).or_default() += 1;
                }
                for s in f.step.snapshot.sessions() {
                    let mut d = 0;
                    let mut cur = s;
                    while let Some(r) = cur.relation.as_ref() {
                        d += 1;
                        match f.step.snapshot.session(&r.parent_session) {
                            Some(p) => cur = p,
                            None => break,
                        }
                    }
                    deepest = deepest.max(d);
                }
            }
            *depth.entry(deepest).or_default() += 1;
        }
    }
    println!("events folded: {events_total}");
    println!("diagnostics: {diagnostics:#?}");
    println!("changes: {changes:#?}");
    println!("root turns settled by: {root_settled_by:#?}");
    println!("runs by deepest nesting: {depth:?}");
    println!("runs (of 400) ending with a canceled root turn: {runs_with_canceled_root:?}");
}
