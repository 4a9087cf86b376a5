//! The revisions of the ACP RFD "Subagent Sessions" the checker knows.
//!
//! Owns: [`Revision`] (what `--spec` selects: the revision a stream is checked against)
//! and [`Shapes`] (the revision whose wire shapes a record follows, drafts included, for
//! the summary of `lineage check`).
//! Never: decides what a revision demands; each rule states the revisions it applies to
//! ([`super::Code::revisions`]) and the checker asks the selected one.

use std::fmt;

/// A revision of the Subagent Sessions RFD a stream is checked against (`--spec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Revision {
    /// 2026-09-24, the revision the project was built on (the default).
    #[default]
    Seed,
    /// 2026-10-05: the `error` stop reason (from 2026-10-01) and the narrowed cancel
    /// cascade (a cancel reaches the cancelled session and the work it waits on).
    Narrowed,
    /// The final, stabilized shapes (schema 1.13 to 1.20): participant patches with
    /// `null` clearing, `senderMessageId` / `recipientMessageId`, no participants on
    /// chunks, `cwd` / `additionalDirectories`, `session` tool-call content, v2 `_meta`
    /// patched by top-level key.
    Final,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Revision; 3] = [Revision::Seed, Revision::Narrowed, Revision::Final];

    /// `2026-09-24`, `2026-10-05` or `final` (what `--spec` takes).
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::Seed => "2026-09-24",
            Revision::Narrowed => "2026-10-05",
            Revision::Final => "final",
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text names no revision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no RFD revision `{0}`: use 2026-09-24 (the default), 2026-10-05 or final")]
pub struct UnknownRevision(pub String);

impl std::str::FromStr for Revision {
    type Err = UnknownRevision;
    fn from_str(s: &str) -> Result<Self, UnknownRevision> {
        Revision::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRevision(s.to_owned()))
    }
}

/// The revision whose wire shapes a stream follows: the newest shape any record used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Shapes {
    /// The 2026-08-19 … 2026-08-31 drafts (`subagent_spawned`, `subagent_state_update`,
    /// terminal lifecycle states).
    Draft0831,
    /// The 2026-09-15 draft (`subagent_update` with `subagentSessionId`, `name`, `task`).
    Draft0915,
    /// 2026-09-24 (nothing beyond it was seen).
    #[default]
    Seed,
    /// 2026-10-01: the v1 idle `stopReason: "error"`.
    Oct01,
    /// The final revision: `cwd`, `additionalDirectories`, `senderMessageId`,
    /// `recipientMessageId`, `session` tool-call content.
    Final,
}

impl Shapes {
    /// `2026-08-31 draft`, `2026-09-15 draft`, `2026-09-24`, `2026-10-01` or `final`.
    pub fn as_str(self) -> &'static str {
        match self {
            Shapes::Draft0831 => "2026-08-31 draft",
            Shapes::Draft0915 => "2026-09-15 draft",
            Shapes::Seed => "2026-09-24",
            Shapes::Oct01 => "2026-10-01",
            Shapes::Final => "final",
        }
    }
}

impl fmt::Display for Shapes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_parse_from_their_names_and_are_ordered() {
        for r in Revision::ALL {
            assert_eq!(r.as_str().parse::<Revision>(), Ok(r));
        }
        assert!("2026-10-01".parse::<Revision>().is_err());
        assert!(Revision::Seed < Revision::Narrowed && Revision::Narrowed < Revision::Final);
        assert_eq!(Revision::default(), Revision::Seed);
    }
}
