//! Deterministic trace generator: realistic traces of a requested shape, in every format.
//!
//! A seeded script of abstract steps (submit, spawn, child output, approvals, terminals,
//! cancels, continuations) is rendered by one renderer per format. The same seed and shape
//! always give the same bytes. Shapes:
//! - `Wide { children }`: one root turn with `children` concurrently active children;
//! - `Deep { depth }`: a chain of nested children `depth` deep;
//! - `Long { records }`: churn until at least `records` records: root turns that spawn
//!   and nest children, stream output, ask and answer approvals, end in every order, get
//!   cancelled with partial acknowledgement, and continue after their provider turn.
//!
//! ```
//! use lineage_traces::generator::{generate, Shape};
//! use lineage_core::trace::Format;
//! let a = generate(Format::CodexAppServer, Shape::Wide { children: 3 }, 7);
//! let b = generate(Format::CodexAppServer, Shape::Wide { children: 3 }, 7);
//! assert_eq!(a, b);
//! assert!(a.lines().count() > 10);
//! ```

mod acp;
mod canonical;
mod claude;
mod codex;
mod native;
mod script;

use lineage_core::trace::Format;
pub use native::{NativeKind, generate_native};
pub use script::{Script, Step};

/// The shape of a generated trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One root turn with this many concurrently active children.
    Wide {
        /// Number of children.
        children: usize,
    },
    /// A chain of nested children this deep.
    Deep {
        /// Depth of the chain.
        depth: usize,
    },
    /// Churn until at least this many records.
    Long {
        /// Minimum number of records.
        records: usize,
    },
}

/// A trace of `shape` in `format` (header line first), deterministic in `seed`.
pub fn generate(format: Format, shape: Shape, seed: u64) -> String {
    let mut out = String::new();
    write(format, shape, seed, &mut out);
    out
}

/// Appends the trace to `out`.
pub fn write(format: Format, shape: Shape, seed: u64, out: &mut String) {
    let script = Script::new(shape, seed, format);
    render(format, &script, out);
}

/// Appends `script` rendered in `format` to `out` (nothing for a format this generator
/// has no renderer for).
pub fn render(format: Format, script: &Script, out: &mut String) {
    match format {
        Format::CodexAppServer => codex::render(script, out),
        Format::ClaudeSdk => claude::render(script, out),
        Format::Acp => acp::render(script, out),
        Format::Canonical => canonical::render(script, out),
        // `Format` is non-exhaustive: a format added to lineage-core after this
        // generator has no renderer yet, and its trace stays empty (not even a header).
        _ => {}
    }
}

/// Parses `wide:N`, `deep:N`, `long:N`.
pub fn parse_shape(s: &str) -> Result<Shape, String> {
    let (kind, n) = s
        .split_once(':')
        .ok_or_else(|| format!("shape `{s}`: expected wide:N, deep:N or long:N"))?;
    let n: usize = n
        .parse()
        .map_err(|_| format!("shape `{s}`: N must be a number"))?;
    match kind {
        "wide" => Ok(Shape::Wide { children: n }),
        "deep" => Ok(Shape::Deep { depth: n }),
        "long" => Ok(Shape::Long { records: n }),
        _ => Err(format!("shape `{s}`: expected wide:N, deep:N or long:N")),
    }
}

/// Appends provider records (`{"from":…,"message":…,"at":…}`) on a clock that advances
/// 10 ms per record; shared by every provider renderer.
struct Records<'a> {
    out: &'a mut String,
    at: u64,
}

impl<'a> Records<'a> {
    fn new(out: &'a mut String) -> Self {
        Self { out, at: 0 }
    }

    fn push(&mut self, from: &str, message: &str) {
        use std::fmt::Write;
        self.at += 10;
        let _ = writeln!(
            self.out,
            r#"{{"from":"{from}","message":{message},"at":{}}}"#,
            self.at
        );
    }
}
