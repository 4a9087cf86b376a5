//! The ACP view's renderers moved to [`crate::render`] (`render::json`, `tree` and
//! `mermaid` take a replay of any format) and the Client's activity to
//! [`super::activity`]; this path is kept for existing users. Nothing in the crate uses it.
//!
//! ```
//! use lineage_core::acp::render::{CheckedFile, activity, check_json_string};
//! let file = CheckedFile { path: "t.jsonl", format: None, findings: &[], error: None, revision: None };
//! assert_eq!(check_json_string(&[file], false), lineage_core::render::check_json_string(&[file], false));
//! ```

pub use super::activity;
pub use crate::render::{CheckedFile, check_json_string};
