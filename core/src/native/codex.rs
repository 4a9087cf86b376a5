//! Codex rollouts → Codex app-server notifications (in progress).

use super::{File, Source};

/// Reads the rollout files `indices` of `files` into `source`.
pub(super) fn read(files: &[File], indices: &[usize], source: &mut Source) {
    super::claude_unread(files, indices, source);
}
