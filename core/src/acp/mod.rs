//! ACP (Agent Client Protocol) streams: the Client-side view and the conformance checker
//! for the Agent Client Protocol RFD "Subagent Sessions".
//!
//! Owns: `acp` trace records (`wire`, internal), the Client's view of the stream as an immutable
//! snapshot fold ([`view`]), the rules and their checker ([`rules`]), which is the `acp`
//! arm of the engine, and the Client's current activity word ([`activity`]). The view's
//! presentations are in [`crate::render`], the projection of canonical changes to an ACP
//! stream in [`crate::project`] (the old paths [`render`] and [`project`] re-export them).
//! Never: does I/O; callers hand in lines of text. The RFD's text wins where the published
//! schema differs (participant ids: omitted and `null` both keep the earlier value).
//!
//! ```
//! use lineage_core::acp;
//! let trace = r#"{"lineage":"trace","format":"acp","version":1,"protocolVersion":1}
//! {"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}
//! {"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}
//! {"from":"client","message":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}}}
//! "#;
//! let checked = lineage_core::replay::check(trace, None).unwrap();
//! assert!(checked.findings.is_empty());
//! assert_eq!(lineage_core::render::json(&checked)["sessions"][0]["id"], "R");
//! ```

pub mod project;
pub(crate) mod recording;
pub mod render;
pub mod rules;
pub mod view;
pub(crate) mod wire;

pub use crate::finding::{Revision, Shapes};
pub use wire::{RpcId, Side};

/// What the Client shows as current activity: the current state, `unconfirmed` when
/// there is none (never reported, cleared, historical, or reset by a load/resume), and
/// `disconnected` while the connection is down. Never an invented outcome.
pub fn activity(view: &view::View, s: &view::Session) -> String {
    if !view.connected() {
        return "disconnected".into();
    }
    view.current_state(&s.id)
        .map_or_else(|| "unconfirmed".into(), String::from)
}
