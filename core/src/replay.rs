//! Replay: a whole trace text through the [`Engine`], for tests,
//! documentation and embedders that have the text in hand.
//!
//! Owns: nothing but the loop; the engine does the rest.
//! Never: reads files; every line read is either applied or reported.

pub use crate::engine::{EngineError, Replay, State};
pub use crate::finding::Finding;

use crate::engine::{Engine, Options as EngineOptions};
use crate::finding::Revision;
use crate::trace::Format;

/// Replay options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The format when the trace has no header (`--input-format`); detected from content
    /// when `None`.
    pub format: Option<Format>,
    /// Stop after this physical line (`--at`); the header is line 1. A cut trace has no
    /// end-of-trace findings.
    pub until_line: Option<usize>,
    /// ACP: the RFD revision to check against (`--spec`); the header's `"spec"`, else
    /// 2026-09-24, when `None`.
    pub spec: Option<Revision>,
}

/// Replays a whole trace text (up to `options.until_line`), keeping ACP transcripts.
///
/// ```
/// use lineage_core::{replay, Phase, TurnId};
///
/// let trace = r#"{"event":{"type":"root_session_created","session":"R"}}
/// {"event":{"type":"user_submitted","session":"R","text":"go"}}
/// {"event":{"type":"root_provider_turn_started","session":"R"}}
/// {oops
/// "#;
/// let replayed = replay::replay(trace, &replay::Options::default()).unwrap();
/// let turn = replayed.snapshot().unwrap().turn(&TurnId::new("R".into(), 1)).unwrap();
/// assert_eq!(turn.phase, Phase::Running);
/// assert_eq!((replayed.findings[0].line, replayed.findings[0].rule.as_str()), (4, "malformed-record"));
/// ```
pub fn replay(text: &str, options: &Options) -> Result<Replay, EngineError> {
    run(text, options, true)
}

/// Checks a whole trace text: as [`replay`] to its end, without keeping ACP message
/// content (what `lineage check` does).
///
/// ```
/// use lineage_core::replay;
///
/// let trace = "{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\"}}\n{oops\n";
/// let checked = replay::check(trace, None).unwrap();
/// assert!(checked.ended);
/// assert_eq!((checked.findings[0].line, checked.findings[0].rule.as_str()), (2, "malformed-record"));
/// ```
pub fn check(text: &str, format: Option<Format>) -> Result<Replay, EngineError> {
    check_with(
        text,
        &Options {
            format,
            ..Options::default()
        },
    )
}

/// [`check`] with every option (`until_line` cuts the trace as in [`replay`]).
///
/// ```
/// use lineage_core::replay;
///
/// let trace = "{\"event\":{\"type\":\"root_session_created\",\"session\":\"R\"}}\n{oops\n";
/// let options = replay::Options { until_line: Some(1), ..replay::Options::default() };
/// let cut = replay::check_with(trace, &options).unwrap();
/// assert!(!cut.ended); // cut at line 1: line 2 was never read
/// assert!(cut.findings.is_empty());
/// ```
pub fn check_with(text: &str, options: &Options) -> Result<Replay, EngineError> {
    run(text, options, false)
}

fn run(text: &str, options: &Options, transcripts: bool) -> Result<Replay, EngineError> {
    let mut engine = Engine::new(EngineOptions {
        format: options.format,
        transcripts,
        // Only the final state is returned: no push's changes are read.
        view_changes: false,
        acp_spec: options.spec,
        ..EngineOptions::default()
    });
    for line in text.lines() {
        if options.until_line.is_some_and(|stop| engine.line() >= stop) {
            return engine.stop();
        }
        engine.push_line(line)?;
    }
    if options.until_line.is_some() {
        return engine.stop(); // `--at` past the last line is still a cut, never the end
    }
    engine.finish()
}
