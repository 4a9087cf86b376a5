//! # lineage-core
//!
//! A pure, I/O-free library that folds logs of agent events into immutable snapshots of
//! a **session tree**: root agent sessions, the subagent (child) sessions they delegate
//! to, their turns, messages and pending interactions.
//!
//! The canonical reducer ([`Snapshot::apply`]) enforces the hard rules every host needs:
//! a root turn settles only when its provider turn is terminal *and* every nested child
//! turn is settled, in any arrival order; a child never changes parent; nothing comes
//! back to life after a cancel. Every step returns the new snapshot, the canonical
//! [`Change`]s it caused and typed [`Diagnostic`]s for whatever it rejected.
//!
//! ```
//! use lineage_core::{replay, Phase, TurnId};
//!
//! let trace = r#"{"event":{"type":"root_session_created","session":"R"}}
//! {"event":{"type":"user_submitted","session":"R","text":"go"}}
//! {"event":{"type":"root_provider_turn_started","session":"R"}}
//! {"event":{"type":"child_spawned","session":"A","parent_session":"R"}}
//! {"event":{"type":"root_provider_turn_completed","session":"R","outcome":"completed"}}
//! "#;
//! let replayed = replay::replay(trace, &replay::Options::default()).unwrap();
//! let root_turn = replayed.snapshot().unwrap().turn(&TurnId::new("R".into(), 1)).unwrap();
//! assert_eq!(root_turn.phase, Phase::Waiting); // child A is still active
//! ```
//!
//! Every input enters through one [`engine::Engine`] (`push_line`, `push_bytes`,
//! `push_record`, `push_event`, `handle_timeout`, then `end`, `finish` or `stop`);
//! [`replay::replay`], [`replay::check`], [`native::replay`] and
//! [`project::Converter`] drive it over a whole input, and the readers ([`render`],
//! [`timeline`], [`project::Projector`]) only read what it returns. The ACP view and
//! checker have no way in of their own.
//!
//! Modules, from the bottom up (each imports only modules listed before it, and the private
//! `ids` and `output`):
//!
//! - [`finding`]: findings and the one catalogue of every code any layer reports.
//! - [`tree`]: the canonical model and reducer ([`Snapshot::apply`]) with its invariants.
//! - [`trace`]: the trace envelope: header, format names, records, the JSON line parser.
//! - [`providers`]: the Codex app-server and Claude Code adapters (provider records to
//!   canonical events).
//! - [`acp`]: the ACP Client view and conformance checker ("Subagent Sessions").
//! - [`engine`]: one sans-I/O state machine for every format; what each input caused.
//! - [`replay`]: a whole trace text through the engine.
//! - [`native`]: the files the programs keep (Codex rollouts, Claude Code transcripts, Zed's
//!   ACP log) read as provider records.
//! - [`timeline`]: the history of a replay, for pictures.
//! - [`render`]: views of a replay: JSON contract, unicode tree, Mermaid, HTML page; the
//!   `check` report.
//! - [`project`]: canonical changes projected to the ACP stream an Agent would send.
//! - `fuzz` (feature `fuzz`): the fuzz bodies.
//!
//! Ids ([`SessionId`], [`TurnId`], …) and the tree's main types are re-exported here. See
//! `ARCHITECTURE.md` for the invariants each module keeps.
//!
//! Snapshots and views are persistent: their public fields hold [`imbl`] collections
//! ([`Session::turns`], [`acp::view::Session::children`],
//! [`acp::view::Detail::messages`], …) and [`serde_json`] values.
//! Both crates are re-exported, so a caller names those types at the versions this crate
//! was built with:
//!
//! ```
//! use std::sync::Arc;
//! use lineage_core::imbl::Vector;
//! use lineage_core::{Session, Turn, replay};
//!
//! fn turns(session: &Session) -> &Vector<Arc<Turn>> {
//!     &session.turns
//! }
//! let trace = r#"{"event":{"type":"root_session_created","session":"R"}}
//! {"event":{"type":"user_submitted","session":"R","text":"go"}}
//! "#;
//! let replayed = replay::replay(trace, &replay::Options::default()).unwrap();
//! let root = replayed.snapshot().unwrap().session(&"R".into()).unwrap();
//! assert_eq!(turns(root).len(), 1);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod acp;
pub mod engine;
pub mod finding;
#[cfg(feature = "fuzz")]
pub mod fuzz;
mod ids;
pub mod native;
mod output;
pub mod project;
pub mod providers;
pub mod render;
pub mod replay;
pub mod timeline;
pub mod trace;
pub mod tree;

/// The persistent collections ([`imbl::Vector`], [`imbl::OrdMap`], [`imbl::OrdSet`]) in
/// the public fields of [`Snapshot`]'s sessions and turns and of the ACP view.
pub use imbl;
/// The JSON values the ACP view, the provider records and the renderers hold and return.
pub use serde_json;

pub use ids::{Alias, CallId, MessageId, RequestId, SessionId, TurnId, TurnIdParseError};
pub use tree::{
    Change, Diagnostic, Event, InteractionKind, InteractionStatus, Level, Millis, Outcome, Phase,
    ProviderPhase, Role, Session, SessionKind, Severity, Snapshot, Step, ToolStatus, Turn,
};

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
