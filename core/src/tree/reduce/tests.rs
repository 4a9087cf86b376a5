//! Reducer tests, one per seed rule, all through one helper: [`fold`] applies events in
//! order and [`Folded::state`] reads a turn as `"<phase>"` or `"settled:<outcome>"`.

use crate::ids::{Alias, TurnId};
use crate::tree::{
    Change, Event, InteractionKind, InteractionStatus, Level, Outcome, Role, Snapshot,
};

mod ev {
    use super::*;

    pub fn root(s: &str) -> Event {
        Event::RootSessionCreated {
            session: s.into(),
            title: None,
            aliases: vec![],
        }
    }
    pub fn submit(s: &str) -> Event {
        Event::UserSubmitted {
            session: s.into(),
            message: None,
            text: Some("go".into()),
        }
    }
    pub fn p_start(s: &str) -> Event {
        Event::RootProviderTurnStarted {
            session: s.into(),
            provider_turn: None,
        }
    }
    pub fn p_done(s: &str, outcome: Outcome) -> Event {
        Event::RootProviderTurnCompleted {
            session: s.into(),
            provider_turn: None,
            outcome,
            error: None,
        }
    }
    pub fn spawn(child: &str, parent: &str) -> Event {
        Event::ChildSpawned {
            session: child.into(),
            parent_session: parent.into(),
            parent_turn: None,
            tool_call: Some(format!("call_{child}").into()),
            title: None,
            aliases: vec![],
        }
    }
    pub fn c_start(s: &str) -> Event {
        Event::ChildTurnStarted { session: s.into() }
    }
    pub fn c_done(s: &str, outcome: Outcome) -> Event {
        Event::ChildTurnCompleted {
            session: s.into(),
            outcome,
            error: None,
        }
    }
    pub fn say(s: &str, text: &str) -> Event {
        Event::Message {
            session: s.into(),
            message: None,
            role: Role::Assistant,
            text: text.into(),
        }
    }
    pub fn ask(s: &str, request: &str) -> Event {
        Event::InteractionRequested {
            session: s.into(),
            request: request.into(),
            kind: InteractionKind::Approval,
            provider_turn: Some("provider-turn-9".into()),
            tool_call: None,
            title: None,
        }
    }
    pub fn answer(s: &str, request: &str) -> Event {
        Event::InteractionAnswered {
            session: s.into(),
            request: request.into(),
            answer: Some("accept".into()),
        }
    }
    pub fn cancel(s: &str) -> Event {
        Event::CancelRequested { session: s.into() }
    }
    pub fn ack(s: &str) -> Event {
        Event::CancelAcknowledged { session: s.into() }
    }
    pub fn cancel_done(s: &str) -> Event {
        Event::CancelCompleted { session: s.into() }
    }
    pub fn delete(s: &str) -> Event {
        Event::SessionDeleted { session: s.into() }
    }
}

use Outcome::{Completed, Failed, Interrupted};
use ev::*;

struct Folded {
    snapshots: Vec<Snapshot>,
    /// Per event: the diagnostic codes it produced.
    codes: Vec<Vec<&'static str>>,
    changes: Vec<Vec<Change>>,
}

impl Folded {
    fn last(&self) -> &Snapshot {
        self.snapshots.last().unwrap()
    }
    fn state(&self, turn: &str) -> String {
        state(self.last(), turn)
    }
    fn all_codes(&self) -> Vec<&'static str> {
        self.codes.iter().flatten().copied().collect()
    }
}

fn state(s: &Snapshot, turn: &str) -> String {
    match s.turn(&turn.parse::<TurnId>().unwrap()) {
        None => "absent".into(),
        Some(t) => match t.outcome {
            Some(o) => format!("settled:{o}"),
            None => t.phase.to_string(),
        },
    }
}

fn fold(events: &[Event]) -> Folded {
    let mut snapshots = vec![Snapshot::new()];
    let mut codes = Vec::new();
    let mut changes = Vec::new();
    for e in events {
        let step = snapshots.last().unwrap().apply(e, None);
        step.snapshot.check_invariants(Level::Full).unwrap();
        codes.push(step.diagnostics.iter().map(|d| d.code().as_str()).collect());
        changes.push(step.changes);
        snapshots.push(step.snapshot);
    }
    Folded {
        snapshots,
        codes,
        changes,
    }
}

/// R with root turn R#1 running.
fn running_root() -> Vec<Event> {
    vec![root("R"), submit("R"), p_start("R")]
}

fn with(mut base: Vec<Event>, more: &[Event]) -> Vec<Event> {
    base.extend_from_slice(more);
    base
}

// --- Root Turn Lifecycle -------------------------------------------------------------

#[test]
fn root_lifecycle_provider_terminal_first_root_waits_then_settles_on_last_child() {
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), p_done("R", Completed)],
    ));
    assert_eq!(f.state("R#1"), "waiting");
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            p_done("R", Completed),
            c_done("A", Completed),
        ],
    ));
    assert_eq!(f.state("R#1"), "settled:completed");
    assert_eq!(f.state("A#1"), "settled:completed");
}

#[test]
fn root_lifecycle_child_terminal_first_root_stays_running_then_settles_on_provider() {
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), c_done("A", Completed)],
    ));
    assert_eq!(f.state("R#1"), "running");
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_done("A", Completed),
            p_done("R", Completed),
        ],
    ));
    assert_eq!(f.state("R#1"), "settled:completed");
}

#[test]
fn root_lifecycle_failed_child_never_fails_the_root() {
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), p_done("R", Completed), c_done("A", Failed)],
    ));
    assert_eq!(f.state("A#1"), "settled:failed");
    assert_eq!(f.state("R#1"), "settled:completed");
}

#[test]
fn root_lifecycle_root_takes_the_retained_provider_outcome() {
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), p_done("R", Failed), c_done("A", Completed)],
    ));
    assert_eq!(f.state("R#1"), "settled:failed");
}

#[test]
fn root_lifecycle_provider_terminal_alone_settles_root_without_children() {
    let f = fold(&with(running_root(), &[p_done("R", Completed)]));
    assert_eq!(f.state("R#1"), "settled:completed");
    // The child-terminal event never chose the root outcome and the change says so.
    assert!(f.changes[3].contains(&Change::TurnSettled {
        turn: "R#1".parse().unwrap(),
        outcome: Completed,
        error: None,
        settled_at: None,
    }));
}

#[test]
fn root_lifecycle_nested_grandchild_gates_the_root() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_start("A"),
            spawn("G", "A"),
            p_done("R", Completed),
            c_done("A", Completed),
        ],
    ));
    assert_eq!(
        f.state("R#1"),
        "waiting",
        "the grandchild G#1 is still active"
    );
    let g = f
        .last()
        .session(&"G".into())
        .unwrap()
        .relation
        .clone()
        .unwrap();
    assert_eq!(g.parent_turn.to_string(), "A#1");
    assert_eq!(g.root_turn.to_string(), "R#1");
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_start("A"),
            spawn("G", "A"),
            p_done("R", Completed),
            c_done("A", Completed),
            c_done("G", Failed),
        ],
    ));
    assert_eq!(f.state("R#1"), "settled:completed");
}

#[test]
fn root_lifecycle_continuation_provider_turn_joins_the_same_root_turn() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            p_done("R", Completed),
            c_done("A", Completed),
        ],
    ));
    assert_eq!(f.state("R#1"), "settled:completed");
    // Claude-style continuation: provider turn restarts while the child is still active.
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            p_done("R", Completed),
            p_start("R"),
            c_done("A", Completed),
        ],
    ));
    assert_eq!(
        f.state("R#1"),
        "running",
        "the continuation is live, no settlement"
    );
    assert_eq!(f.last().session(&"R".into()).unwrap().turns.len(), 1);
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            p_done("R", Completed),
            p_start("R"),
            c_done("A", Completed),
            p_done("R", Failed),
        ],
    ));
    assert_eq!(
        f.state("R#1"),
        "settled:failed",
        "the last provider terminal is the retained one"
    );
    let t = f.last().turn(&"R#1".parse().unwrap()).unwrap();
    assert_eq!(t.gate.as_ref().unwrap().provider.turns, 2);
}

// --- Sending While Children Run -----------------------------------------------------

#[test]
fn guidance_while_root_active_joins_the_same_turn_and_never_reaches_children() {
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), p_done("R", Completed), submit("R")],
    ));
    let r = f.last().session(&"R".into()).unwrap();
    assert_eq!(r.turns.len(), 1, "no second root turn");
    assert_eq!(r.turns[0].guidance, 1);
    assert!(
        f.last().session(&"A".into()).unwrap().messages.is_empty(),
        "not fanned out"
    );
    // After settlement, a submission opens R#2.
    let f = fold(&with(
        running_root(),
        &[p_done("R", Completed), submit("R")],
    ));
    assert_eq!(f.state("R#2"), "submitted");
}

#[test]
fn user_cannot_target_a_child_directly() {
    let f = fold(&with(running_root(), &[spawn("A", "R"), submit("A")]));
    assert_eq!(f.codes[4], vec!["child-guidance-unsupported"]);
    assert_eq!(
        f.snapshots[4], f.snapshots[5],
        "rejected events leave the snapshot unchanged"
    );
}

// --- Entity Decision: creator relation, aliases ---------------------------------------

#[test]
fn creator_relation_is_immutable_reparent_rejected_same_edge_idempotent() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            spawn("B", "R"),
            c_start("B"),
            spawn("A", "B"),
            spawn("A", "R"),
        ],
    ));
    assert_eq!(f.codes[6], vec!["reparent-rejected"]);
    assert_eq!(f.codes[7], vec!["duplicate-spawn"]);
    let a = f.last().session(&"A".into()).unwrap();
    assert_eq!(a.relation.as_ref().unwrap().parent_session.as_str(), "R");
    assert_eq!(a.turns.len(), 1, "a duplicate spawn opens no second turn");
}

/// An alias named twice by one spawn, or again by a later binding to the same child, is
/// bound once: one entry in the child's aliases, one `AliasBound` change.
#[test]
fn an_alias_named_twice_binds_once() {
    let mut spawn_a = spawn("A", "R");
    if let Event::ChildSpawned { aliases, .. } = &mut spawn_a {
        aliases.push(Alias::new("task", "t1"));
        aliases.push(Alias::new("task", "t1"));
    }
    let again = Event::AliasBound {
        session: "A".into(),
        alias: Alias::new("task", "t1"),
    };
    let f = fold(&with(running_root(), &[spawn_a, again]));
    let bound = |changes: &[Change]| {
        changes
            .iter()
            .filter(|c| matches!(c, Change::AliasBound { .. }))
            .count()
    };
    assert_eq!(bound(&f.changes[3]), 1);
    assert_eq!(bound(&f.changes[4]), 0);
    assert!(f.codes[4].is_empty());
    let a = f.last().session(&"A".into()).unwrap();
    let t1 = Alias::new("task", "t1");
    assert_eq!(a.aliases.iter().filter(|x| **x == t1).count(), 1);
    assert_eq!(f.last().resolve_alias(&t1).unwrap().as_str(), "A");
}

#[test]
fn aliases_bind_to_exactly_one_child() {
    let mut spawn_b = spawn("B", "R");
    if let Event::ChildSpawned { aliases, .. } = &mut spawn_b {
        aliases.push(Alias::new("task", "t1"));
    }
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            Event::AliasBound {
                session: "A".into(),
                alias: Alias::new("task", "t1"),
            },
            spawn_b,
        ],
    ));
    assert_eq!(f.codes[5], vec!["alias-conflict"]);
    assert!(
        f.last().session(&"B".into()).is_none(),
        "the conflicting spawn is rejected whole"
    );
    assert_eq!(
        f.last()
            .resolve_alias(&Alias::new("task", "t1"))
            .unwrap()
            .as_str(),
        "A"
    );
}

#[test]
fn child_runs_sequential_turns_under_the_same_relation() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_done("A", Completed),
            c_start("A"),
            say("A", "again"),
        ],
    ));
    assert_eq!(f.state("A#1"), "settled:completed");
    assert_eq!(f.state("A#2"), "running");
    assert_eq!(f.state("R#1"), "running");
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_done("A", Completed),
            c_start("A"),
            p_done("R", Completed),
        ],
    ));
    assert_eq!(f.state("R#1"), "waiting", "A#2 gates the root like A#1 did");
}

#[test]
fn spawn_under_settled_turn_is_rejected_not_resurrected() {
    let f = fold(&with(
        running_root(),
        &[p_done("R", Completed), spawn("A", "R")],
    ));
    assert_eq!(f.codes[4], vec!["spawn-under-settled-turn"]);
    assert_eq!(f.state("R#1"), "settled:completed");
    assert!(f.last().session(&"A".into()).is_none());
}

// --- Cancellation ------------------------------------------------------------------

#[test]
fn cancel_records_targets_when_prepared_and_closes_child_creation() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            spawn("B", "R"),
            cancel("R"),
            spawn("C", "R"),
            spawn("D", "A"),
        ],
    ));
    assert_eq!(f.codes[6], vec!["spawn-after-cancel"]);
    assert_eq!(f.codes[7], vec!["spawn-after-cancel"]);
    let op = f.last().cancel_operation(&"R#1".parse().unwrap()).unwrap();
    let targets: Vec<String> = op.targets.iter().map(|t| t.to_string()).collect();
    assert_eq!(targets, ["R#1", "A#1", "B#1"]);
    for t in ["R#1", "A#1", "B#1"] {
        assert_eq!(f.state(t), "settling");
    }
}

#[test]
fn cancel_completion_acknowledged_canceled_unacknowledged_interrupted_root_canceled() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            spawn("B", "R"),
            ask("B", "0"),
            cancel("R"),
            ack("A"),
            cancel_done("R"),
        ],
    ));
    assert_eq!(f.state("A#1"), "settled:canceled");
    assert_eq!(f.state("B#1"), "settled:interrupted");
    assert_eq!(f.state("R#1"), "settled:canceled");
    let i = f
        .last()
        .interaction(&"B#1".parse().unwrap(), &"0".into())
        .unwrap();
    assert_eq!(i.status, InteractionStatus::Superseded);
}

#[test]
fn cancel_child_terminal_during_cancel_is_evidence_or_its_own_outcome() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            spawn("B", "R"),
            cancel("R"),
            c_done("A", Interrupted),
            c_done("B", Completed),
            cancel_done("R"),
        ],
    ));
    assert_eq!(
        f.state("A#1"),
        "settled:canceled",
        "interrupted during the cancel acknowledges it"
    );
    assert_eq!(
        f.state("B#1"),
        "settled:completed",
        "work that ended on its own keeps its outcome"
    );
    assert_eq!(f.state("R#1"), "settled:canceled");
}

#[test]
fn cancel_nothing_resurrects_late_output_history_late_terminal_recorded() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            cancel("R"),
            cancel_done("R"),
            say("A", "late"),
            c_done("A", Failed),
            c_start("A"),
            say("R", "late root"),
            p_start("R"),
            spawn("Z", "R"),
        ],
    ));
    assert_eq!(f.state("R#1"), "settled:canceled");
    assert_eq!(f.state("A#1"), "settled:interrupted");
    assert_eq!(f.state("A#2"), "absent");
    assert_eq!(
        f.all_codes(),
        [
            "late-child-output",
            "late-terminal",
            "late-child-turn",
            "late-root-output",
            "unowned-provider-turn",
            "spawn-under-settled-turn"
        ]
    );
    let a = f.last().session(&"A".into()).unwrap();
    assert!(a.messages[0].history);
    assert_eq!(a.turns[0].late_terminal, Some(Failed));
}

#[test]
fn cancel_provider_terminal_after_canonical_cancel_updates_only_provider_fields() {
    let f = fold(&with(
        running_root(),
        &[cancel("R"), cancel_done("R"), p_done("R", Interrupted)],
    ));
    assert_eq!(f.state("R#1"), "settled:canceled");
    let t = f.last().turn(&"R#1".parse().unwrap()).unwrap();
    let p = &t.gate.as_ref().unwrap().provider;
    assert_eq!(
        p.phase,
        crate::ProviderPhase::Completed,
        "no stale provider running"
    );
    assert_eq!(p.outcome, Some(Interrupted));
    // Seed, *Root Turn Lifecycle*: "A matching root provider terminal may arrive after
    // the canonical root was atomically settled as canceled": the provider confirming
    // the stop is the expected order (real Codex answers `turn/interrupt` with `{}`
    // before its `turn/completed interrupted`), so it is recorded without a note.
    assert!(f.codes[5].is_empty(), "{:?}", f.codes[5]);
}

#[test]
fn cancel_provider_terminal_of_work_that_ended_on_its_own_is_noted() {
    let f = fold(&with(
        running_root(),
        &[cancel("R"), cancel_done("R"), p_done("R", Completed)],
    ));
    assert_eq!(f.state("R#1"), "settled:canceled");
    let t = f.last().turn(&"R#1".parse().unwrap()).unwrap();
    let p = &t.gate.as_ref().unwrap().provider;
    assert_eq!(p.phase, crate::ProviderPhase::Completed);
    assert_eq!(p.outcome, Some(Completed));
    assert_eq!(f.codes[5], vec!["late-provider-terminal"]);
}

#[test]
fn cancel_child_only_targets_that_child_and_settles_root_from_retained_outcome() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            spawn("B", "R"),
            c_done("B", Completed),
            p_done("R", Completed),
            cancel("A"),
        ],
    ));
    let op = f.last().cancel_operation(&"A#1".parse().unwrap()).unwrap();
    assert_eq!(op.targets.len(), 1);
    assert_eq!(f.state("R#1"), "waiting", "the root is not a target");
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            spawn("B", "R"),
            c_done("B", Completed),
            p_done("R", Completed),
            cancel("A"),
            ack("A"),
            cancel_done("A"),
        ],
    ));
    assert_eq!(f.state("A#1"), "settled:canceled");
    assert_eq!(
        f.state("R#1"),
        "settled:completed",
        "root settles from its retained outcome, not canceled"
    );
}

#[test]
fn cancel_of_root_absorbs_a_child_only_cancel_in_flight() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            cancel("A"),
            ack("A"),
            cancel("R"),
            cancel_done("A"),
            cancel_done("R"),
        ],
    ));
    assert_eq!(f.codes[7], vec!["cancel-absorbed"]);
    assert_eq!(
        f.state("A#1"),
        "settled:canceled",
        "its acknowledgement carried over"
    );
    assert_eq!(f.state("R#1"), "settled:canceled");
}

#[test]
fn cancel_during_cancel_and_submission_during_cancel_are_refused() {
    let f = fold(&with(
        running_root(),
        &[cancel("R"), cancel("R"), submit("R"), p_start("R")],
    ));
    assert_eq!(
        f.all_codes(),
        [
            "already-cancelling",
            "submission-during-cancel",
            "provider-turn-during-cancel"
        ]
    );
    assert_eq!(f.last().session(&"R".into()).unwrap().turns.len(), 1);
}

// --- Interactions ------------------------------------------------------------------

#[test]
fn interactions_are_owned_by_the_child_turn_and_keep_the_provider_turn() {
    let f = fold(&with(running_root(), &[spawn("A", "R"), ask("A", "0")]));
    let i = f.last().find_interaction(&"A".into(), &"0".into()).unwrap();
    assert_eq!(i.turn.to_string(), "A#1");
    assert_eq!(i.provider_turn.as_deref(), Some("provider-turn-9"));
    assert_eq!(f.state("A#1"), "waiting");
    assert_eq!(
        f.state("R#1"),
        "running",
        "the root stays active, presenting the child's request"
    );
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), ask("A", "0"), answer("A", "0")],
    ));
    assert_eq!(f.state("A#1"), "running");
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            ask("A", "0"),
            c_done("A", Completed),
            answer("A", "0"),
        ],
    ));
    let i = f.last().find_interaction(&"A".into(), &"0".into()).unwrap();
    assert_eq!(i.status, InteractionStatus::Superseded);
    assert_eq!(f.codes[6], vec!["interaction-closed"]);
}

/// An interaction is owned by (session, turn, request): a request id asked again on the
/// same turn after its answer replaces the closed interaction; asked on a later turn, it
/// is a new interaction beside the earlier turn's, and the session's request index names
/// the latest.
#[test]
fn interactions_a_request_id_asked_again_replaces_only_its_own_turn_s() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            ask("A", "q"),
            answer("A", "q"),
            ask("A", "q"),
        ],
    ));
    let a1: TurnId = "A#1".parse().unwrap();
    let statuses = |s: &Snapshot, t: &TurnId| -> Vec<InteractionStatus> {
        s.interactions_of(t).map(|i| i.status).collect()
    };
    assert_eq!(statuses(f.last(), &a1), [InteractionStatus::Pending]);
    assert_eq!(f.last().interactions().len(), 1);
    assert_eq!(f.state("A#1"), "waiting");

    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            ask("A", "q"),
            answer("A", "q"),
            c_done("A", Completed),
            c_start("A"),
            ask("A", "q"),
        ],
    ));
    let last = f.last();
    let a2: TurnId = "A#2".parse().unwrap();
    assert_eq!(statuses(last, &a1), [InteractionStatus::Answered]);
    assert_eq!(statuses(last, &a2), [InteractionStatus::Pending]);
    let found = last.find_interaction(&"A".into(), &"q".into()).unwrap();
    assert_eq!(found.turn, a2);
    let closed = last.interaction(&a1, &"q".into()).unwrap();
    assert_eq!(closed.answer.as_deref(), Some("accept"));
    let seqs: Vec<u64> = last.interactions().iter().map(|i| i.seq).collect();
    assert!(
        seqs.len() == 2 && seqs[0] < seqs[1],
        "creation order: {seqs:?}"
    );
}

#[test]
fn interactions_need_an_active_turn_and_a_known_request() {
    let f = fold(&with(
        running_root(),
        &[p_done("R", Completed), ask("R", "1"), answer("R", "2")],
    ));
    assert_eq!(
        f.all_codes(),
        ["interaction-without-turn", "unknown-interaction"]
    );
}

// --- Deletion ------------------------------------------------------------------------

#[test]
fn deleting_a_child_tombstones_its_subtree_and_reopens_the_root_gate() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_start("A"),
            spawn("G", "A"),
            ask("G", "0"),
            p_done("R", Completed),
            delete("A"),
        ],
    ));
    for s in ["A", "G"] {
        let session = f.last().session(&s.into()).unwrap();
        assert!(session.deleted && session.turns.is_empty(), "{s}");
    }
    assert!(f.last().interactions().is_empty());
    assert_eq!(
        f.state("R#1"),
        "settled:completed",
        "no active child remains"
    );
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), delete("A"), say("A", "x")],
    ));
    assert_eq!(f.codes[5], vec!["deleted-session"]);
}

#[test]
fn deleting_the_root_removes_everything_below() {
    let f = fold(&with(
        running_root(),
        &[spawn("A", "R"), cancel("R"), delete("R")],
    ));
    assert!(f.last().sessions().all(|s| s.deleted));
    assert_eq!(f.last().cancel_operations().count(), 0);
}

// --- Robustness ----------------------------------------------------------------------

#[test]
fn unknown_sessions_and_wrong_kinds_are_typed_errors() {
    let f = fold(&[
        say("X", "hi"),
        root("R"),
        c_start("R"),
        p_start("R"),
        spawn("R", "R"),
        root("R"),
    ]);
    assert_eq!(
        f.all_codes(),
        [
            "unknown-session",
            "wrong-session-kind",
            "unowned-provider-turn",
            "unknown-parent-turn",
            "duplicate-session"
        ]
    );
}

#[test]
fn snapshots_are_persistent_earlier_ones_never_change() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            p_done("R", Completed),
            c_done("A", Completed),
        ],
    ));
    assert_eq!(state(&f.snapshots[4], "R#1"), "running");
    assert_eq!(state(&f.snapshots[5], "R#1"), "waiting");
    assert_eq!(state(&f.snapshots[6], "R#1"), "settled:completed");
}

#[test]
fn canceled_turns_do_not_keep_transport_errors() {
    let f = fold(&with(
        running_root(),
        &[Event::RootProviderTurnCompleted {
            session: "R".into(),
            provider_turn: None,
            outcome: Failed,
            error: Some("context canceled".into()),
        }],
    ));
    assert_eq!(
        f.last()
            .turn(&"R#1".parse().unwrap())
            .unwrap()
            .error
            .as_deref(),
        Some("context canceled")
    );
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            Event::ChildTurnCompleted {
                session: "A".into(),
                outcome: Failed,
                error: Some("x".into()),
            },
            cancel("R"),
            cancel_done("R"),
        ],
    ));
    assert_eq!(f.last().turn(&"R#1".parse().unwrap()).unwrap().error, None);
}

#[test]
fn a_streamed_delta_appends_without_copying_the_text_already_there() {
    let long = "x".repeat(crate::tree::text::SMALL_CHUNK);
    let delta = |text: &str| Event::Message {
        session: "A".into(),
        message: Some("m1".into()),
        role: Role::Assistant,
        text: text.into(),
    };
    let f = fold(&[
        root("R"),
        submit("R"),
        spawn("A", "R"),
        c_start("A"),
        delta(&long),
        delta("two"),
    ]);
    let text = |s: &Snapshot| s.session(&"A".into()).unwrap().messages[0].text.clone();
    let (before, after) = (text(&f.snapshots[5]), text(f.last()));
    assert_eq!(before, long.as_str());
    assert_eq!(after, format!("{long}two").as_str());
    // The earlier snapshot keeps its text; the new one adds a chunk and shares the first.
    assert_eq!(after.chunks().collect::<Vec<_>>(), [long.as_str(), "two"]);
    assert!(std::ptr::eq(
        before.chunks().next().unwrap(),
        after.chunks().next().unwrap()
    ));
}

/// A step shares the maps it did not change with the snapshot before it, even where it
/// looked a key up that is not there (`imbl` copies a shared map's search path on every
/// `remove` and `get_mut`, found or not): a new interaction leaves its session's closed ones alone,
/// and deleting an ended child leaves another root's cancel operation alone.
#[test]
fn a_step_copies_no_map_it_only_looked_in() {
    let mut events = with(running_root(), &[spawn("A", "R")]);
    for n in 0..64 {
        events.extend([ask("A", &format!("q{n}")), answer("A", &format!("q{n}"))]);
    }
    events.push(ask("A", "next"));
    let f = fold(&events);
    let n = f.snapshots.len();
    let closed = |s: &Snapshot| s.session(&"A".into()).unwrap().closed.clone();
    let (before, after) = (&f.snapshots[n - 2], &f.snapshots[n - 1]);
    assert_eq!(closed(before).len(), 64);
    assert_eq!(after.interactions.len(), 1);
    assert!(std::sync::Arc::ptr_eq(&closed(after), &closed(before)));
    events.push(c_done("A", Completed));

    let f = fold(&with(
        events,
        &[root("S"), submit("S"), p_start("S"), cancel("S")],
    ));
    let before = f.last();
    assert_eq!(before.cancels.len(), 1);
    let deleted = before.apply(&delete("A"), None);
    assert!(deleted.diagnostics.is_empty());
    assert!(deleted.snapshot.session(&"A".into()).unwrap().deleted);
    assert!(deleted.snapshot.cancels.ptr_eq(&before.cancels));
}

// --- In place ------------------------------------------------------------------------

/// A repeated spawn naming an alias another session holds is rejected before it writes
/// the first title it carries, so applying it in place leaves the tree as it was (debug
/// builds compare every in-place step with the persistent one and panic otherwise).
#[test]
fn in_place_a_respawn_with_a_taken_alias_writes_nothing() {
    let mut snapshot = Snapshot::new();
    for e in with(running_root(), &[spawn("C", "R")]) {
        snapshot.apply_in_place(&e, None);
    }
    let taken = Alias::new("thread", "R");
    snapshot.apply_in_place(
        &Event::AliasBound {
            session: "R".into(),
            alias: taken.clone(),
        },
        None,
    );
    let before = snapshot.clone();
    let respawn = Event::ChildSpawned {
        session: "C".into(),
        parent_session: "R".into(),
        parent_turn: None,
        tool_call: Some("call_C".into()),
        title: Some("worker".into()),
        aliases: vec![taken],
    };
    let applied = snapshot.apply_in_place(&respawn, None);
    let codes: Vec<_> = applied
        .diagnostics
        .iter()
        .map(|d| d.code().as_str())
        .collect();
    assert_eq!(codes, ["alias-conflict"]);
    assert!(applied.changes.is_empty());
    assert_eq!(snapshot, before);
}

// --- Usage ---------------------------------------------------------------------------

fn usage(turn: &str, input: u64, output: u64) -> Event {
    Event::usage_reported(
        turn.parse().unwrap(),
        crate::tree::Usage {
            input_tokens: Some(input),
            output_tokens: Some(output),
            ..Default::default()
        },
    )
}

fn usage_of(s: &Snapshot, turn: &str) -> Option<(Option<u64>, Option<u64>)> {
    let t = s.turn(&turn.parse::<TurnId>().unwrap())?;
    t.usage
        .as_deref()
        .map(|u| (u.input_tokens, u.output_tokens))
}

#[test]
fn usage_on_an_unknown_turn_or_session_is_rejected_like_other_events() {
    let f = fold(&with(
        running_root(),
        &[usage("R#2", 5, 1), usage("X#1", 5, 1)],
    ));
    assert_eq!(f.all_codes(), ["unknown-turn", "unknown-session"]);
    assert_eq!(usage_of(f.last(), "R#1"), None);
    assert!(f.changes.iter().skip(3).all(Vec::is_empty));
    let deleted = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            Event::SessionDeleted {
                session: "A".into(),
            },
            usage("A#1", 1, 1),
        ],
    ));
    assert_eq!(deleted.codes.last().unwrap(), &["deleted-session"]);
}

#[test]
fn usage_sets_the_figures_without_touching_the_lifecycle() {
    let f = fold(&with(
        running_root(),
        &[
            usage("R#1", 10, 5),
            usage("R#1", 10, 5),
            usage("R#1", 30, 15),
        ],
    ));
    assert!(f.all_codes().is_empty(), "{:?}", f.all_codes());
    assert_eq!(f.state("R#1"), "running");
    assert_eq!(usage_of(f.last(), "R#1"), Some((Some(30), Some(15))));
    // Set, not summed; a report equal to the figures held changes nothing.
    assert_eq!(f.changes[3].len(), 1);
    assert!(f.changes[4].is_empty());
    assert!(matches!(
        &f.changes[5][..],
        [Change::TurnUsageChanged { turn, usage }] if turn.to_string() == "R#1"
            && usage.input_tokens == Some(30)
    ));
}

#[test]
fn usage_after_settlement_updates_the_figures_without_reopening() {
    let f = fold(&with(
        running_root(),
        &[
            spawn("A", "R"),
            c_start("A"),
            c_done("A", Outcome::Failed),
            p_done("R", Outcome::Completed),
            usage("A#1", 7, 2),
            usage("R#1", 20, 10),
        ],
    ));
    assert!(f.all_codes().is_empty(), "{:?}", f.all_codes());
    assert_eq!(f.state("A#1"), "settled:failed");
    assert_eq!(f.state("R#1"), "settled:completed");
    assert_eq!(usage_of(f.last(), "A#1"), Some((Some(7), Some(2))));
    assert_eq!(usage_of(f.last(), "R#1"), Some((Some(20), Some(10))));
    for changes in f.changes.iter().skip(7) {
        assert!(
            matches!(&changes[..], [Change::TurnUsageChanged { .. }]),
            "{changes:?}"
        );
    }
    // The settled child stays archived (not live) after its usage changed.
    let a = f.last().session(&"A".into()).unwrap();
    assert!(a.active_turn().is_none());
}

#[test]
fn an_empty_usage_report_changes_nothing() {
    let empty = Event::usage_reported("R#1".parse().unwrap(), crate::tree::Usage::default());
    let f = fold(&with(running_root(), &[empty]));
    assert!(f.all_codes().is_empty());
    assert!(f.changes[3].is_empty());
    assert_eq!(usage_of(f.last(), "R#1"), None);
}
