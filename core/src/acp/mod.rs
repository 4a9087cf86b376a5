//! ACP (Agent Client Protocol) streams: the Client-side view and the conformance checker
//! for the "Subagent Sessions" RFD (`../shared/seeds/000_b5fcef2e22b46b21.txt`).
//!
//! Owns: `acp` trace records ([`wire`]), the Client's view of the stream as an immutable
//! snapshot fold ([`view`]), the rule catalogue and checker ([`rules`]), the line loop
//! ([`replay`]) and its presentations ([`render`]).
//! Never: does I/O; callers hand in lines of text. The seed wins where the published
//! schema differs (participant ids: omitted and `null` both keep the earlier value).
//!
//! ```
//! use lineage_core::acp;
//! let trace = r#"{"lineage":"trace","format":"acp","version":1,"protocolVersion":1}
//! {"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}
//! {"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}
//! {"from":"client","message":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"R"}}}
//! "#;
//! let checked = acp::replay::check(trace);
//! assert!(checked.findings.is_empty());
//! assert_eq!(acp::render::json(&checked)["sessions"][0]["id"], "R");
//! ```

pub mod render;
pub mod replay;
pub mod rules;
pub mod view;
pub mod wire;
