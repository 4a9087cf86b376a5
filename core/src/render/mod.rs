//! Views of a replay: the JSON contract, a readable unicode tree, a Mermaid flowchart.
//!
//! Owns: presentation only. Never: changes or re-derives lifecycle facts; every phase,
//! outcome and status shown is read from the snapshot. Never recurses on the depth of
//! the session tree: every walk keeps an explicit stack, so any depth the reducer can
//! build renders on any thread.

mod json;
mod mermaid;
#[cfg(test)]
mod tests;
mod text;

pub use json::{json, json_string, snapshot_json};
pub(crate) use mermaid::escape;
pub use mermaid::mermaid;
pub use text::tree;

use crate::tree::{Session, Snapshot, Turn};

/// Sessions spawned by `turn` (in spawn order), read from the owner's children list.
fn children_of<'a>(snapshot: &'a Snapshot, owner: &'a Session, turn: &'a Turn) -> Vec<&'a Session> {
    owner
        .children
        .iter()
        .filter_map(|c| snapshot.session(c))
        .filter(|c| {
            c.relation
                .as_ref()
                .is_some_and(|r| r.parent_turn == turn.id)
        })
        .collect()
}

/// Children of a session that has no turns left (deleted): shown directly under it.
fn orphaned_children<'a>(snapshot: &'a Snapshot, owner: &'a Session) -> Vec<&'a Session> {
    owner
        .children
        .iter()
        .filter_map(|c| snapshot.session(c))
        .filter(|c| {
            c.relation
                .as_ref()
                .is_some_and(|r| owner.turn(r.parent_turn.ordinal()).is_none())
        })
        .collect()
}
