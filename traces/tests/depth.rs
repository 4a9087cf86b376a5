//! Depth: a generated deep chain replays and renders in every view (`tree`, `json`,
//! `mermaid`) on a thread with a 2 MiB stack, and each view shows every session of it.
//!
//! The canonical chain is 100 000 deep. The tree view draws at most 32 levels of guides
//! and shows the level of deeper lines instead, so its size grows with the depth, not
//! with its square.

use lineage_core::render;
use lineage_core::replay::{Options, replay};
use lineage_core::trace::Format;
use lineage_traces::generator::{Shape, generate};
use serde_json::Value;

/// The stack of every thread the tests run on (the default of a spawned Rust thread).
const STACK: usize = 2 << 20;

/// Canonical chain depth.
const CANONICAL_DEPTH: usize = 100_000;

/// Levels of guides the tree view draws.
const DRAWN_LEVELS: usize = 32;

/// ACP chain depth (see the module comment for why not deeper).
const ACP_DEPTH: usize = 3000;

/// Runs `f` on a fresh thread with a [`STACK`]-byte stack. A stack overflow aborts the
/// whole test binary, which fails the run.
fn on_small_stack<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "the thread panicked".to_string())?
}

/// The three views of a replay.
struct Views {
    tree: String,
    json: String,
    mermaid: String,
}

/// The ids of the generated chain, root first: `root-1`, `child-1-0`, `child-1-1`, …
fn chain_ids(depth: usize) -> Vec<String> {
    std::iter::once("root-1".to_string())
        .chain((0..depth).map(|i| format!("child-1-{i}")))
        .collect()
}

fn json_sessions(json: &str) -> Result<Vec<Value>, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    match value.get("sessions") {
        Some(Value::Array(sessions)) => Ok(sessions.clone()),
        _ => Err("no `sessions` array".into()),
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

#[test]
fn canonical_deep_chain_replays_and_renders_on_a_small_stack() -> Result<(), String> {
    let views = on_small_stack(|| {
        let text = generate(
            Format::Canonical,
            Shape::Deep {
                depth: CANONICAL_DEPTH,
            },
            1,
        );
        let r = replay(&text, &Options::default()).map_err(|e| e.to_string())?;
        if !r.findings.is_empty() {
            return Err(format!("unexpected findings: {:?}", r.findings));
        }
        Ok(Views {
            tree: render::tree(&r),
            json: render::json_string(&r, true),
            mermaid: render::mermaid(&r),
        })
    })?;
    let ids = chain_ids(CANONICAL_DEPTH);

    // Tree: each session and its one turn, each a level deeper than the line before.
    let lines: Vec<&str> = views.tree.lines().collect();
    assert_eq!(lines.len(), 2 * ids.len());
    for (level, (line, id)) in lines.iter().step_by(2).zip(&ids).enumerate() {
        // A child's line sits 2·level − 1 tree levels deep (its parent turn is between).
        let levels = (2 * level).saturating_sub(1);
        let expected_kind = if level == 0 { "root" } else { "child via" };
        let marker = if levels > DRAWN_LEVELS {
            format!("[level {levels}] ")
        } else {
            String::new()
        };
        let want = format!("{marker}└─ {id} · {expected_kind}");
        let text = line.trim_start();
        if level == 0 {
            assert!(line.starts_with(&format!("{id} · root")), "{line:?}");
            continue;
        }
        assert!(text.starts_with(&want), "line {line:?} is not {want:?}");
        assert_eq!(
            line.len() - text.len(),
            3 * levels.min(DRAWN_LEVELS),
            "{line:?}"
        );
    }
    let deepest = format!("{}#1 · settled · completed", ids.last().ok_or("no ids")?);
    assert!(lines.last().is_some_and(|l| l.ends_with(&deepest)));

    // JSON: every session, each the child of the one before.
    let sessions = json_sessions(&views.json)?;
    assert_eq!(sessions.len(), ids.len());
    for (pair, s) in ids.windows(2).zip(sessions.iter().skip(1)) {
        assert_eq!(str_at(s, "/id"), pair.get(1).map(String::as_str));
        assert_eq!(
            str_at(s, "/parent/session"),
            pair.first().map(String::as_str)
        );
    }

    // Mermaid: a node and a turn node per session, the session → turn edge, and one
    // turn → child edge per child.
    let mermaid: Vec<&str> = views.mermaid.lines().collect();
    assert_eq!(mermaid.first(), Some(&"flowchart TD"));
    assert_eq!(mermaid.len(), 1 + 3 * ids.len() + CANONICAL_DEPTH);
    let nodes: std::collections::BTreeSet<&str> = mermaid
        .iter()
        .filter_map(|l| {
            l.strip_prefix("  s")?
                .split_once(" · ")
                .map(|(node, _)| node)
        })
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let node = format!("{i}[\"{id}");
        assert!(nodes.contains(node.as_str()), "no node s{i} for {id}");
    }
    assert_eq!(mermaid.last(), Some(&"  s0t1 -->|\"call-0\"| s1"));
    Ok(())
}

#[test]
fn acp_deep_chain_replays_and_renders_on_a_small_stack() -> Result<(), String> {
    let views = on_small_stack(|| {
        let text = generate(Format::Acp, Shape::Deep { depth: ACP_DEPTH }, 1);
        let r = replay(&text, &Options::default()).map_err(|e| e.to_string())?;
        if !r.findings.is_empty() {
            return Err(format!("unexpected findings: {:?}", r.findings));
        }
        Ok(Views {
            tree: render::tree(&r),
            json: render::json_string(&r, true),
            mermaid: render::mermaid(&r),
        })
    })?;
    let ids = chain_ids(ACP_DEPTH);

    // Tree: the connection line, then each session a level deeper than the one before.
    let lines: Vec<&str> = views.tree.lines().collect();
    assert_eq!(lines.first(), Some(&"connection: connected · protocol v1"));
    assert_eq!(lines.len(), 1 + ids.len());
    for (level, (line, id)) in lines.iter().skip(1).zip(&ids).enumerate() {
        let indent = level.saturating_sub(1) * 3;
        let text = line.trim_start_matches([' ', '└', '─']);
        assert!(
            text.starts_with(&format!("{id} · ")),
            "{line:?} is not {id}"
        );
        assert_eq!(line.len() - line.trim_start().len(), indent, "{line:?}");
    }

    // JSON: every session, each the child of the one before.
    let sessions = json_sessions(&views.json)?;
    assert_eq!(sessions.len(), ids.len());
    for (pair, s) in ids.windows(2).zip(sessions.iter().skip(1)) {
        assert_eq!(str_at(s, "/id"), pair.get(1).map(String::as_str));
        assert_eq!(str_at(s, "/parent"), pair.first().map(String::as_str));
    }

    // Mermaid: a node per session and an ownership edge per child.
    let mermaid: Vec<&str> = views.mermaid.lines().collect();
    assert_eq!(mermaid.len(), 1 + ids.len() + ACP_DEPTH);
    let edge = format!("    s{} --> s{ACP_DEPTH}", ACP_DEPTH - 1);
    assert_eq!(mermaid.last(), Some(&edge.as_str()));
    Ok(())
}
