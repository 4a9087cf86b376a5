//! lineage-cli as a library: the operations of the `lineage` command (reading a trace
//! from a path or from text, native source folders, `check`'s reports, `convert`, the
//! `replay --format json` document and the change stream, the OTLP/HTTP export) as
//! functions that return their documents. The command prints them; the Node.js and
//! Python bindings hand them to their hosts. [`api`] is the entry point.
//!
//! All I/O of lineage is here and in the binary; `lineage-core` stays pure.

#![forbid(unsafe_code)]

pub mod api;
pub mod changes;
pub mod check;
pub mod convert;
pub mod escape;
pub mod input;
pub mod native_source;
pub mod otlp_http;
pub mod walk;
