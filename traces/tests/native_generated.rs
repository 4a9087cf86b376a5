//! Generated native sources (`generator::generate_native`): a Codex sessions folder and a
//! Claude Code project folder read and replay, through `native::read` and
//! `native::replay`, to one clean tree: the root and one child per child file, every
//! child under the root, every turn completed, and only the reader's note of what such
//! a source cannot hold.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use lineage_core::native::{self, File};
use lineage_core::{Outcome, Phase, SessionKind, Severity};
use lineage_traces::generator::{NativeKind, generate_native};

const KINDS: [NativeKind; 2] = [NativeKind::CodexRollout, NativeKind::ClaudeTranscript];

fn lines(files: &[File]) -> usize {
    files.iter().map(|f| f.text.lines().count()).sum()
}

/// The transcripts and rollouts of the source (a Claude subagent's `.meta.json` is
/// none): one session each.
fn session_files(files: &[File]) -> Vec<&File> {
    files
        .iter()
        .filter(|f| f.path.ends_with(".jsonl"))
        .collect()
}

/// How many turns a file's records open: Codex's `task_started`; a Claude root's user
/// prompts (not the `<task-notification>`s Claude Code queues as prompts), a subagent's
/// task and each message its coordinator sent it.
fn turns_in(kind: NativeKind, file: &File) -> usize {
    let count = |s: &str| file.text.matches(s).count();
    match kind {
        NativeKind::CodexRollout => count(r#""type":"task_started""#),
        NativeKind::ClaudeTranscript if file.path.contains("/subagents/") => {
            1 + count(r#""origin":{"kind":"coordinator"}"#)
        }
        NativeKind::ClaudeTranscript => count(r#""turnOrigin":"sdk""#),
    }
}

#[test]
fn generated_sources_replay_to_one_clean_tree() {
    for kind in KINDS {
        let mut followed_up = 0;
        for (seed, size) in [(1, 3_000), (2, 8_000), (3, 500)] {
            let files = generate_native(kind, size, seed);
            let what = format!("{kind:?} seed {seed} size {size}");
            let n = lines(&files);
            assert!((size..size + 1_000).contains(&n), "{what}: {n} lines");
            let source = native::read(&files);
            assert!(source.findings.is_empty(), "{what}: {:?}", source.findings);
            assert_eq!(source.streams.len(), 1, "{what}");
            assert_eq!(source.streams[0].files.len(), files.len(), "{what}");

            let replayed = native::replay(&source, 0, native::Options::default()).unwrap();
            // A follow-up (`SendMessage`) is answered by the root after its own answer, as in
            // real run 16: the root turn has settled when that continuation speaks, so what
            // it says is a `late-continuation` note ("Provider-Native Subagents": nothing a
            // continuation says is dropped in silence).
            let codes: Vec<String> = replayed
                .findings
                .iter()
                .map(|l| l.finding.rule.to_string())
                .filter(|code| code != "late-continuation")
                .collect();
            assert!(
                replayed
                    .findings
                    .iter()
                    .all(|l| l.finding.severity != Severity::Error),
                "{what}: {:?}",
                replayed.findings
            );
            assert_eq!(
                codes,
                ["native-source-limits"],
                "{what}: {:?}",
                replayed.findings
            );

            let tree = replayed.replay.snapshot().unwrap();
            let sessions = session_files(&files);
            assert!(sessions.len() > 1 || size < 1_000, "{what}: no child");
            let all = tree.sessions_in_creation_order();
            assert_eq!(all.len(), sessions.len(), "{what}");
            let root = all[0];
            assert_eq!(root.kind, SessionKind::Root, "{what}");
            assert_eq!(root.id.to_string(), source.streams[0].root, "{what}");
            assert_eq!(root.turns.len(), turns_in(kind, sessions[0]), "{what}");
            let mut child_turns: Vec<usize> = all[1..].iter().map(|s| s.turns.len()).collect();
            let mut want: Vec<usize> = sessions[1..].iter().map(|f| turns_in(kind, f)).collect();
            child_turns.sort_unstable();
            want.sort_unstable();
            assert_eq!(child_turns, want, "{what}");
            followed_up += child_turns.iter().filter(|&&n| n > 1).count();
            for session in &all[1..] {
                assert_eq!(session.kind, SessionKind::Child, "{what}: {}", session.id);
                let relation = session.relation.as_ref().unwrap();
                assert_eq!(relation.parent_session, root.id, "{what}: {}", session.id);
            }
            for session in &all {
                for turn in &session.turns {
                    assert_eq!(turn.phase, Phase::Settled, "{what}: {}", turn.id);
                    assert_eq!(
                        turn.outcome,
                        Some(Outcome::Completed),
                        "{what}: {}",
                        turn.id
                    );
                }
            }
        }
        // Some children were asked for more: their later turns replay too.
        assert!(followed_up > 0, "{kind:?}: no child with a second turn");
    }
}

#[test]
fn generation_is_deterministic_in_the_seed() {
    for kind in KINDS {
        let a = generate_native(kind, 2_000, 5);
        assert_eq!(a, generate_native(kind, 2_000, 5), "{kind:?}");
        assert_ne!(a, generate_native(kind, 2_000, 6), "{kind:?}");
    }
}
