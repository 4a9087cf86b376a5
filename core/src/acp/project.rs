//! The projection moved to [`crate::project`], a reader of the engine's output beside
//! [`crate::render`]; this path is kept for existing users. Nothing in the crate uses it.
//!
//! ```
//! use lineage_core::acp::project::{Converter, Options};
//! let converter: lineage_core::project::Converter = Converter::new(Default::default(), Options::default());
//! assert!(converter.header().contains(r#""format":"acp""#));
//! ```

pub use crate::project::*;
