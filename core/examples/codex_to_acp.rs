//! A Codex app-server capture in, the ACP stream an Agent would send out: what an
//! adapter author embeds to expose Codex subagents over ACP. Reads a trace (the path
//! given, or standard input), writes an `acp` trace (v1, the Client advertising
//! `subagents`) to standard output, and the input's findings to standard error.
//!
//! ```text
//! cargo run -p lineage-core --example codex_to_acp -- traces/codex/11-user-cancel-full-fanout.jsonl \
//!   | cargo run --bin lineage -- check -
//! ```

use std::io::{BufRead, Read, Write};

use lineage_core::engine::Options as EngineOptions;
use lineage_core::project::{Converter, Options};
use lineage_core::trace::Format;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut input = String::new();
    match std::env::args().nth(1) {
        Some(path) => input = std::fs::read_to_string(path)?,
        None => {
            std::io::stdin().lock().read_to_string(&mut input)?;
        }
    }
    let engine = EngineOptions {
        format: Some(Format::CodexAppServer),
        ..EngineOptions::default()
    };
    let mut converter = Converter::new(engine, Options::default());
    let mut out = std::io::stdout().lock();
    out.write_all(converter.header().as_bytes())?;
    for line in input.as_bytes().lines() {
        out.write_all(converter.push_line(&line?)?.as_bytes())?;
    }
    let (tail, replay) = converter.finish()?;
    out.write_all(tail.as_bytes())?;
    for f in &replay.findings {
        eprintln!("line {}: {}[{}]: {}", f.line, f.severity, f.rule, f.message);
    }
    Ok(())
}
